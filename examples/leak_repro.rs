//! TF issue #40171, reproduced: "load" a model of V variables N times (VarHandleOp +
//! AssignVariableOp per variable, then release its resources) under each historical setting, and
//! print cache entries and heap in use. `cargo run --release --example leak_repro [N] [V]`.

use eager_wasm::eager::CacheOptions;
use eager_wasm::{AttrValue, ContextOptions, DType, EagerContext, ResourceNaming, Tensor};

/// One load: a scope owns V variables, restored the way TF restores a SavedModel, then destroyed.
pub fn load_once(ctx: &mut EagerContext, variables: usize) {
    let scope = ctx.new_scope();
    let previous = ctx.enter_scope(scope);
    for i in 0..variables {
        let name = ctx.variable_shared_name(&format!("dense_{i}/kernel"));
        let handle = ctx
            .execute(
                "VarHandleOp",
                &[],
                [
                    ("shared_name", AttrValue::Str(name.into_bytes())),
                    ("dtype", AttrValue::Type(DType::Float32)),
                    ("shape", AttrValue::Shape(Some(vec![16]))),
                ],
            )
            .expect("VarHandleOp")
            .remove(0);
        let value = Tensor::from_slice(&[16], &[0.5f32; 16]).expect("value");
        ctx.execute(
            "AssignVariableOp",
            &[handle, value],
            Vec::<(&str, AttrValue)>::new(),
        )
        .expect("AssignVariableOp");
    }
    ctx.enter_scope(previous);
    ctx.destroy_scope(scope);
}

/// The settings of each moment in TF's history, by name.
pub fn settings() -> Vec<(&'static str, ContextOptions)> {
    let base = |naming, cache| ContextOptions {
        cache,
        resource_naming: naming,
        ..Default::default()
    };
    let mut exclude = CacheOptions::default();
    exclude.exclude.insert("VarHandleOp".into());
    vec![
        (
            "TF 2.2: unique names, unbounded",
            base(ResourceNaming::Unique, CacheOptions::default()),
        ),
        (
            "PR #42337: LRU of 1,000 entries",
            base(
                ResourceNaming::Unique,
                CacheOptions {
                    max_entries: Some(1000),
                    ..CacheOptions::default()
                },
            ),
        ),
        (
            "PR #42377: VarHandleOp excluded",
            base(ResourceNaming::Unique, exclude),
        ),
        (
            "shipped fix: anonymous names",
            base(ResourceNaming::Anonymous, CacheOptions::default()),
        ),
    ]
}

#[allow(dead_code)]
fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let loads = args.first().copied().unwrap_or(1000);
    let variables = args.get(1).copied().unwrap_or(20);
    println!("{loads} loads of a model with {variables} variables\n");
    println!(
        "{:<36} {:>14} {:>16} {:>16} {:>10}",
        "setting", "cache entries", "heap after 1", "heap after N", "evictions"
    );
    for (name, opts) in settings() {
        let mut ctx = EagerContext::new(opts);
        load_once(&mut ctx, variables);
        let warm = ctx.memory().heap_bytes;
        for _ in 1..loads {
            load_once(&mut ctx, variables);
        }
        let m = ctx.memory();
        println!(
            "{name:<36} {:>14} {:>16} {:>16} {:>10}",
            m.cache_entries,
            warm,
            m.heap_bytes,
            ctx.cache_stats().evictions
        );
        for w in ctx.cache_stats().warnings {
            println!("    warning: {}", w.message);
        }
    }
}
