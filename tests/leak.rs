//! The kernel-cache leak of TF issue #40171 and each historical fix, asserted.

mod common;
#[path = "../examples/leak_repro.rs"]
mod repro;

use common::op_stats;
use eager_wasm::EagerContext;
use repro::{load_once, settings};

const V: usize = 20;

/// Cache entries and heap after each of `n` loads.
fn run(ctx: &mut EagerContext, n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .map(|_| {
            load_once(ctx, V);
            let m = ctx.memory();
            (m.cache_entries, m.heap_bytes)
        })
        .collect()
}

fn context(i: usize) -> EagerContext {
    EagerContext::new(settings().swap_remove(i).1)
}

#[test]
fn unique_names_unbounded_cache_grows_by_v_per_load() {
    let mut ctx = context(0);
    let t = run(&mut ctx, 50);
    for w in t.windows(2) {
        assert_eq!(
            w[1].0,
            w[0].0 + V,
            "each load adds one VarHandleOp entry per variable"
        );
        assert!(w[1].1 > w[0].1, "heap grows with the cache");
    }
    let stats = ctx.cache_stats();
    let warning = stats.warnings.iter().find(|w| w.op == "VarHandleOp");
    assert!(
        warning.is_some(),
        "churn warning names VarHandleOp: {:?}",
        stats.warnings
    );
    assert!(warning.unwrap().message.contains("0 hits in 1,000 lookups"));
    let vh = op_stats(&stats, "VarHandleOp");
    assert!(
        (vh.distinct_keys as f64 - 1000.0).abs() < 80.0,
        "{}",
        vh.distinct_keys
    );
}

#[test]
fn lru_bound_keeps_entries_within_capacity() {
    let mut ctx = context(1);
    let t = run(&mut ctx, 80);
    assert!(t.iter().all(|&(e, _)| e <= 1000));
    assert_eq!(t.last().unwrap().0, 1000);
    assert!(ctx.cache_stats().evictions >= (80 * V - 1000) as u64);
}

#[test]
fn excluding_var_handle_op_stops_growth() {
    let mut ctx = context(2);
    let t = run(&mut ctx, 50);
    assert!(t.iter().all(|&(e, _)| e == t[0].0), "entries flat: {t:?}");
    let stats = ctx.cache_stats();
    let vh = op_stats(&stats, "VarHandleOp");
    assert_eq!(vh.bypassed, (50 * V) as u64);
    assert_eq!(vh.entries, 0);
}

#[test]
fn anonymous_names_keep_entries_and_heap_flat() {
    let mut ctx = context(3);
    let t = run(&mut ctx, 100);
    let (entries, heap) = t[1];
    assert_eq!(
        entries, 2,
        "one VarHandleOp and one AssignVariableOp kernel"
    );
    for &(e, h) in &t[1..] {
        assert_eq!(e, entries);
        assert_eq!(
            h, heap,
            "heap in use returns exactly to its post-warm-up value"
        );
    }
    assert!(ctx.cache_stats().warnings.is_empty());
}
