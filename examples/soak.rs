//! Native soak: N load -> predict -> dispose cycles of the MobileNet-style sample under the default
//! settings. Heap in use and cache entries must be identical, to the byte, at cycle 100 and cycle N.
//! `cargo run --release --example soak [N]` (exit code 1 on any drift).

use eager_wasm::model::GraphModel;
use eager_wasm::{EagerContext, Tensor};
use std::time::Instant;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/models/mobilenet"
);

fn main() {
    let cycles: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let json = std::fs::read_to_string(format!("{DIR}/model.json")).expect("model.json");
    let weights = std::fs::read(format!("{DIR}/group1-shard1of1.bin")).expect("weights");
    let x = Tensor::from_slice(&[1, 32, 32, 3], &vec![0.5f32; 32 * 32 * 3]).expect("input");
    // Print before measuring: stdout's buffer is allocated on first use.
    println!("soak: {cycles} load -> predict -> dispose cycles of {DIR}");
    let mut ctx = EagerContext::default();
    let mut at_100 = None;
    let mut drift = 0;
    let start = Instant::now();
    for i in 1..=cycles {
        let mut model = GraphModel::load(&mut ctx, &json, &weights, &mut |_, _| {}).expect("load");
        let out = model
            .predict(&mut ctx, vec![("x".into(), x.clone())])
            .expect("predict");
        drop(out);
        model.dispose(&mut ctx);
        drop(model);
        let m = ctx.memory();
        let figures = (
            m.heap_bytes,
            m.cache_entries,
            m.num_tensors,
            m.num_resources,
        );
        match at_100 {
            None if i == 100.min(cycles) => at_100 = Some(figures),
            Some(f) if f != figures => {
                drift += 1;
                if drift <= 5 {
                    eprintln!("cycle {i}: {figures:?} differs from cycle 100's {f:?}");
                }
            }
            _ => {}
        }
        if i % 1000 == 0 || i == cycles {
            println!(
                "cycle {i:>6}: heap {} B, peak {} B, cache {} entries / {} B, tensors {}, resources {}",
                m.heap_bytes, m.heap_peak_bytes, m.cache_entries, m.cache_bytes, m.num_tensors, m.num_resources
            );
        }
    }
    let per = start.elapsed().as_secs_f64() * 1e3 / cycles as f64;
    println!("{cycles} cycles, {per:.3} ms per load -> predict -> dispose");
    if drift > 0 {
        println!("FAIL: figures drifted after cycle 100 in {drift} cycles");
        std::process::exit(1);
    }
    println!("ok: heap in use and cache entries identical from cycle 100 to {cycles}");
}
