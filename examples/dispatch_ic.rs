//! Instruction-count harness for the eager dispatch hit path (run under
//! `valgrind --tool=callgrind`): `cargo run --release --example dispatch_ic [n] [op]`,
//! op = add (AddV2 [1]+[1], no attrs) or matmul (MatMul [1,1]x[1,1] with two bool attrs).
//! Compare the totals of two runs with different `n` to get instructions per execute.

use eager_wasm::{AttrValue, EagerContext, Tensor};
use std::hint::black_box;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let op = args.next().unwrap_or_else(|| "add".into());
    let mut ctx = EagerContext::default();
    let x = Tensor::from_slice(&[1], &[1f32]).unwrap();
    let m = Tensor::from_slice(&[1, 1], &[1f32]).unwrap();
    for _ in 0..n {
        let out = match op.as_str() {
            "matmul" => ctx
                .execute(
                    "MatMul",
                    &[m.clone(), m.clone()],
                    [
                        ("transpose_a", AttrValue::Bool(false)),
                        ("transpose_b", AttrValue::Bool(true)),
                    ],
                )
                .unwrap(),
            _ => ctx
                .execute(
                    "AddV2",
                    &[x.clone(), x.clone()],
                    Vec::<(&str, AttrValue)>::new(),
                )
                .unwrap(),
        };
        black_box(out);
    }
    let s = ctx.cache_stats();
    println!("{op} x{n}: hits {} misses {}", s.hits, s.misses);
}
