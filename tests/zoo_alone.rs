//! Native version of the benchmark's profile check (bench/profile.mjs --alone): each node of a zoo
//! model (bench/models/zoo, made by tools/gen_zoo.py) timed inside `GraphModel::profile` against
//! the same op, attrs and input shapes run alone through `EagerContext::execute`: float32 inputs synthetic values of the same shapes (in [-1, 1),
//! never denormal), the others the model's own (shapes, indices, axes). Prints a table, flags
//! nodes more than 2x slower in the model. Ignored (timing, and the zoo is not committed):
//!
//!   ZOO=age_cnn,centernet_512 cargo test --release --test zoo_alone -- --ignored --nocapture
//!
//! `ZOO_REAL=1` times the op alone on the model's own float values too: a node slow both ways is
//! slow on its values (denormals), not on the model path.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use eager_wasm::model::GraphModel;
use eager_wasm::{EagerContext, Tensor};
use std::path::PathBuf;
use std::time::Instant;

const NOT_TIMED: &[&str] = &[
    "Placeholder",
    "Const",
    "ReadVariableOp",
    "Identity",
    "Enter",
    "Exit",
    "Merge",
    "Switch",
    "NextIteration",
    "LoopCond",
];

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median ms of `f` over samples of at least ~5 ms each (after a warm-up).
fn time(mut f: impl FnMut()) -> f64 {
    for _ in 0..3 {
        f();
    }
    let t0 = Instant::now();
    f();
    let once = t0.elapsed().as_secs_f64() * 1e3;
    let reps = ((5.0 / once.max(1e-4)) as usize).clamp(1, 10_000);
    let mut samples: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed().as_secs_f64() * 1e3 / reps as f64
        })
        .collect();
    median(&mut samples)
}

fn synthetic(t: &Tensor) -> Tensor {
    match t.f32s() {
        Ok(v) => {
            let x: Vec<f32> = (0..v.len())
                .map(|i| ((i * 7919 % 2003) as f32 / 1001.5) - 1.0)
                .collect();
            Tensor::from_slice(t.dims(), &x).unwrap()
        }
        Err(_) => t.clone(),
    }
}

#[test]
#[ignore]
fn zoo_nodes_alone() {
    let zoo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench/models/zoo");
    let names: Vec<String> = match std::env::var("ZOO") {
        Ok(v) => v.split(',').map(str::to_string).collect(),
        Err(_) => {
            let mut v: Vec<String> = std::fs::read_dir(&zoo)
                .map(|d| {
                    d.flatten()
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            v.sort();
            v
        }
    };
    let synth = std::env::var("ZOO_REAL").is_err();
    for name in names {
        let dir = zoo.join(&name);
        let Ok(json) = std::fs::read_to_string(dir.join("model.json")) else {
            println!("{name}: absent");
            continue;
        };
        let mut weights = Vec::new();
        for p in GraphModel::weight_paths(&json).unwrap() {
            weights.extend(std::fs::read(dir.join(p)).unwrap());
        }
        let reference = std::fs::read_to_string(dir.join("reference.json")).unwrap();
        let (inputs, _) = common::reference(&reference);
        let mut ctx = EagerContext::default();
        let model = GraphModel::load(&mut ctx, &json, &weights[..], &mut |_, _| {}).unwrap();
        let start = Instant::now();
        let clock = || start.elapsed().as_secs_f64() * 1e3;
        for _ in 0..3 {
            model.profile(&mut ctx, inputs.clone(), &clock).unwrap();
        }
        let profiles: Vec<_> = (0..7)
            .map(|_| model.profile(&mut ctx, inputs.clone(), &clock).unwrap())
            .collect();
        let first = &profiles[0];
        let mut total_in = 0.0;
        let mut total_alone = 0.0;
        println!(
            "\n{name}: {} nodes\n  {:>9} {:>9} {:>6}  op / inputs",
            first.nodes.len(),
            "model ms",
            "alone ms",
            "ratio"
        );
        for (i, n) in first.nodes.iter().enumerate() {
            let mut ms: Vec<f64> = profiles.iter().map(|p| p.nodes[i].ms).collect();
            let in_model = median(&mut ms) / n.count as f64;
            if NOT_TIMED.contains(&n.op) || n.inputs.is_empty() {
                continue;
            }
            let from: Vec<String> = n.inputs.iter().map(|i| i.from.clone()).collect();
            let Ok(args) = model.execute(&mut ctx, inputs.clone(), &from) else {
                println!(
                    "  {in_model:9.3} {:>9} {:>6}  {} (inputs not fetchable)",
                    "-", "-", n.op
                );
                continue;
            };
            let args: Vec<Tensor> = if synth {
                args.iter().map(synthetic).collect()
            } else {
                args
            };
            let attrs = n.attrs.clone();
            if ctx.execute(n.op, &args, attrs.clone()).is_err() {
                println!(
                    "  {in_model:9.3} {:>9} {:>6}  {} (fails alone)",
                    "-", "-", n.op
                );
                continue;
            }
            let alone = time(|| drop(ctx.execute(n.op, &args, attrs.clone()).unwrap()));
            total_in += in_model;
            total_alone += alone;
            let ratio = in_model / alone.max(1e-6);
            let flag = if ratio > 2.0 && in_model > 0.02 {
                "  <-- SLOW"
            } else {
                ""
            };
            if in_model > 0.02 || ratio > 2.0 {
                let shapes: Vec<String> =
                    n.inputs.iter().map(|i| format!("{:?}", i.shape)).collect();
                println!(
                    "  {in_model:9.3} {alone:9.3} {ratio:6.2}  {} {}{flag}",
                    n.op,
                    shapes.join(" ")
                );
            }
        }
        println!("  {total_in:9.3} {total_alone:9.3}  sum of timed nodes");
    }
}

/// Elementwise float32 ops on the shapes published models run per frame, alone (native per-element cost).
#[test]
#[ignore]
fn elementwise_shapes() {
    let mut ctx = EagerContext::default();
    let t = |dims: &[usize]| {
        let n: usize = dims.iter().product();
        let v: Vec<f32> = (0..n)
            .map(|i| ((i * 7919 % 2003) as f32 / 1001.5) + 0.01)
            .collect();
        Tensor::from_slice(dims, &v).unwrap()
    };
    let none: Vec<(&str, eager_wasm::AttrValue)> = Vec::new();
    let cases: Vec<(&str, Vec<Tensor>)> = vec![
        ("Sub", vec![t(&[1, 192, 192, 3]), t(&[3])]),
        ("Mul", vec![t(&[1, 192, 192, 3]), t(&[3])]),
        ("Mul", vec![t(&[1, 192, 192, 3]), t(&[1, 192, 192, 3])]),
        ("Sub", vec![t(&[48, 1, 1]), t(&[17])]),
        ("AddV2", vec![t(&[48, 48, 1]), t(&[48, 48, 17])]),
        ("Sqrt", vec![t(&[48, 48, 17])]),
        ("Rsqrt", vec![t(&[48, 48, 17])]),
        ("Exp", vec![t(&[48, 48, 17])]),
        ("Equal", vec![t(&[1, 128, 128, 80]), t(&[1, 128, 128, 80])]),
    ];
    for (op, args) in cases {
        let ms = time(|| drop(ctx.execute(op, &args, none.clone()).unwrap()));
        let n = ctx.execute(op, &args, none.clone()).unwrap()[0].num_elements();
        let shapes: Vec<_> = args.iter().map(|a| a.dims().to_vec()).collect();
        println!(
            "{op:6} {shapes:?}: {ms:.4} ms, {:.2} ns/element",
            ms * 1e6 / n as f64
        );
    }
}
