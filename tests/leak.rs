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

/// A control-flow model (Keras GRU, v1 loop with TensorLists): 1,000 load -> predict -> dispose
/// cycles leave heap in use where the first left it, to the byte, with cache entries flat, no
/// resource or tensor left and no churn warning.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn gru_load_predict_dispose_cycles_leave_heap_and_cache_flat() {
    use eager_wasm::model::GraphModel;
    let dir = common::fixtures().join("models/gru");
    let json = std::fs::read_to_string(dir.join("model.json")).unwrap();
    let weights = std::fs::read(dir.join("group1-shard1of1.bin")).unwrap();
    let (inputs, _) =
        common::reference(&std::fs::read_to_string(dir.join("reference.json")).unwrap());
    let mut ctx = EagerContext::default();
    let before = ctx.memory();
    let cycle = |ctx: &mut EagerContext| {
        let mut m = GraphModel::load(ctx, &json, &weights[..], &mut |_, _| {}).unwrap();
        let out = m.predict(ctx, inputs.clone()).unwrap();
        assert_eq!(out[0].dims(), &[2, 3]);
        drop(out);
        m.dispose(ctx);
        ctx.memory()
    };
    let first = cycle(&mut ctx);
    for i in 0..1000 {
        let m = cycle(&mut ctx);
        assert_eq!(m.heap_bytes, first.heap_bytes, "heap after cycle {i}");
        assert_eq!(
            m.cache_entries, first.cache_entries,
            "cache entries after cycle {i}"
        );
        assert_eq!(m.num_resources, before.num_resources);
        assert_eq!(m.num_tensors, before.num_tensors);
    }
    assert!(
        ctx.cache_stats().warnings.is_empty(),
        "{:?}",
        ctx.cache_stats().warnings
    );
}
