//! Parallel kernels give the single-threaded results bit for bit: every op below and every model
//! fixture, run with the pool at 1 thread and at 3; and every TF op case matches TF on 3 threads (std threads natively; the threaded wasm build
//! runs the same kernels on Web Workers), with the work cut fine enough that small inputs take the
//! parallel paths and their ragged last blocks.

// Native: the pool runs on std threads here (the threaded wasm build is checked through the JS
// suites).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{random_tensor as tensor, reference, MODEL_FIXTURES};
use eager_wasm::model::GraphModel;
use eager_wasm::parallel;
use eager_wasm::{AttrValue, EagerContext, Tensor};

type Case = (&'static str, Vec<Tensor>, Vec<(&'static str, AttrValue)>);

fn conv(x: &[usize], f: &[usize], strides: i64, padding: &str) -> Case {
    (
        "Conv2D",
        vec![tensor(x, 1), tensor(f, 2)],
        vec![
            ("strides", AttrValue::ListInt(vec![1, strides, strides, 1])),
            ("padding", AttrValue::Str(padding.as_bytes().to_vec())),
        ],
    )
}

fn matmul(a: &[usize], b: &[usize], ta: bool, tb: bool) -> Case {
    (
        "MatMul",
        vec![tensor(a, 3), tensor(b, 4)],
        vec![
            ("transpose_a", AttrValue::Bool(ta)),
            ("transpose_b", AttrValue::Bool(tb)),
        ],
    )
}

fn depthwise(x: &[usize], f: &[usize], strides: i64, padding: &str) -> Case {
    let (_, inputs, attrs) = conv(x, f, strides, padding);
    ("DepthwiseConv2dNative", inputs, attrs)
}

fn pool(op: &'static str, x: &[usize], k: i64, s: i64, padding: &str) -> Case {
    (
        op,
        vec![tensor(x, 5)],
        vec![
            ("ksize", AttrValue::ListInt(vec![1, k, k, 1])),
            ("strides", AttrValue::ListInt(vec![1, s, s, 1])),
            ("padding", AttrValue::Str(padding.as_bytes().to_vec())),
        ],
    )
}

fn cases() -> Vec<Case> {
    vec![
        pool("MaxPool", &[2, 31, 29, 24], 3, 2, "SAME"),
        pool("AvgPool", &[1, 28, 28, 19], 2, 2, "VALID"),
        pool("AvgPool", &[1, 17, 17, 8], 3, 1, "SAME"),
        // Depthwise: the 3x3 and 5x5 register paths, a wide depth, a depth off the SIMD width.
        depthwise(&[1, 40, 40, 32], &[3, 3, 32, 1], 1, "SAME"),
        depthwise(&[2, 33, 33, 16], &[5, 5, 16, 1], 2, "SAME"),
        depthwise(&[1, 20, 20, 136], &[3, 3, 136, 1], 1, "VALID"),
        depthwise(&[1, 25, 25, 6], &[3, 3, 6, 1], 1, "SAME"),
        // im2col strips on the direct path (depth 3x3x16 = 144).
        conv(&[1, 30, 30, 16], &[3, 3, 16, 24], 1, "SAME"),
        // Depth 3x3x80 = 720: the packed path; batch 2, VALID.
        conv(&[2, 17, 17, 80], &[3, 3, 80, 20], 1, "VALID"),
        conv(&[1, 29, 29, 8], &[5, 5, 8, 12], 2, "SAME"),
        // Thin inputs (an RGB stem), without im2col.
        conv(&[1, 64, 64, 3], &[3, 3, 3, 16], 2, "SAME"),
        conv(&[2, 40, 37, 1], &[5, 5, 1, 12], 1, "VALID"),
        // 1x1: the input is the matrix (rows cut by gemm_into).
        conv(&[1, 33, 33, 40], &[1, 1, 40, 36], 1, "VALID"),
        matmul(&[67, 300], &[300, 45], false, false),
        matmul(&[70, 700], &[33, 700], false, true),
        matmul(&[300, 61], &[300, 29], true, false),
        matmul(&[5, 64], &[64, 64], false, false),
        (
            "BatchMatMulV2",
            vec![tensor(&[6, 33, 40], 6), tensor(&[1, 40, 27], 7)],
            vec![
                ("adj_x", AttrValue::Bool(false)),
                ("adj_y", AttrValue::Bool(false)),
            ],
        ),
    ]
}

fn run_cases(ctx: &mut EagerContext) -> Vec<Vec<Tensor>> {
    cases()
        .into_iter()
        .map(|(op, inputs, attrs)| ctx.execute(op, &inputs, attrs).unwrap())
        .collect()
}

fn run_models(ctx: &mut EagerContext) -> Vec<Vec<Tensor>> {
    MODEL_FIXTURES
        .iter()
        .map(|m| {
            let mut model = GraphModel::load(ctx, m.json, m.weights, &mut |_, _| {}).unwrap();
            let (inputs, _) = reference(m.reference);
            let out = model.predict(ctx, inputs).unwrap();
            model.dispose(ctx);
            out
        })
        .collect()
}

fn same_bits(a: &[Vec<Tensor>], b: &[Vec<Tensor>], what: &str) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert_eq!(x.len(), y.len(), "{what} {i}: output count");
        for (j, (p, q)) in x.iter().zip(y).enumerate() {
            assert!(
                p.bitwise_eq(q),
                "{what} {i}, output {j}: threads changed the result"
            );
        }
    }
}

#[test]
fn parallel_kernels_match_one_thread_bit_for_bit() {
    // One test function: the pool is process-wide.
    parallel::set_grain_divisor(1 << 12);
    let mut ctx = EagerContext::default();
    parallel::set_threads(1);
    let (ops1, models1) = (run_cases(&mut ctx), run_models(&mut ctx));
    parallel::set_threads(3);
    let (ops3, models3) = (run_cases(&mut ctx), run_models(&mut ctx));
    // Every TF op case (values and error classes) with the work cut into tasks on 3 threads.
    let (mut passed, mut failures) = (0, Vec::new());
    for (stem, json) in common::OP_FIXTURES {
        let (p, f) = common::run_op_file(&mut ctx, stem, json);
        passed += p;
        failures.extend(f);
    }
    parallel::set_threads(1);
    assert!(failures.is_empty(), "on 3 threads: {failures:#?}");
    assert!(passed > 1000, "only {passed} op cases ran");
    println!("{passed} op cases match TF on 3 threads");
    same_bits(&ops1, &ops3, "op case");
    let names: Vec<_> = MODEL_FIXTURES.iter().map(|m| m.name).collect();
    same_bits(&models1, &models3, &format!("model (of {names:?})"));
}
