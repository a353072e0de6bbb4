//! Timings of TopKV2 with a small k over a large row and of float32 comparisons (CenterNet's
//! post-processing sizes). Ignored by default: `cargo test --release --test select_compare_timing
//! -- --ignored --nocapture` prints the median of 15 runs of each.

use eager_wasm::{AttrValue, EagerContext, Tensor};
use std::time::Instant;

fn values(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919 % 2003) as f32 / 1001.5) - 1.0)
        .collect()
}

fn median_ms(
    ctx: &mut EagerContext,
    op: &str,
    inputs: &[Tensor],
    attrs: &[(&str, AttrValue)],
) -> f64 {
    let mut t: Vec<f64> = (0..15)
        .map(|_| {
            let s = Instant::now();
            std::hint::black_box(ctx.execute(op, inputs, attrs.iter().cloned()).unwrap());
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

#[test]
#[ignore]
fn timings() {
    let mut ctx = EagerContext::default();
    let n = 128 * 128 * 80;
    let x = Tensor::from_slice(&[1, n], &values(n)).unwrap();
    let k = Tensor::from_slice(&[], &[100i32]).unwrap();
    for sorted in [true, false] {
        let ms = median_ms(
            &mut ctx,
            "TopKV2",
            &[x.clone(), k.clone()],
            &[("sorted", AttrValue::Bool(sorted))],
        );
        println!("TopKV2 k=100 over [1,{n}] sorted={sorted}: {ms:.3} ms");
    }
    let a = Tensor::from_slice(&[1, 128, 128, 80], &values(n)).unwrap();
    let b: Vec<f32> = values(n).into_iter().rev().collect();
    let b = Tensor::from_slice(&[1, 128, 128, 80], &b).unwrap();
    let s = Tensor::from_slice(&[], &[0.3f32]).unwrap();
    for op in [
        "Equal",
        "NotEqual",
        "Greater",
        "GreaterEqual",
        "Less",
        "LessEqual",
    ] {
        let same = median_ms(&mut ctx, op, &[a.clone(), b.clone()], &[]);
        let scalar = median_ms(&mut ctx, op, &[a.clone(), s.clone()], &[]);
        println!("{op} [1,128,128,80]: same shape {same:.3} ms, vs scalar {scalar:.3} ms");
    }
}
