//! Kernel throughput, native (the wasm figures, against TF.js and ORT, come from `npm run bench`).
//! Sizes are the benchmark's (matmul 256^3 and 1024^3, conv2d [1,56,56,64]*[3,3,64,64] SAME,
//! depthwise 3x3 on [1,56,56,128]) plus odd sizes that exercise the micro-kernels' tails.
//! Throughput is reported as "elements/s" = flop/s for the matmul/conv cases, values/s otherwise.
//! `cargo bench --bench kernels` (a subset: `cargo bench --bench kernels -- conv`)

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{black_box, criterion_group, Criterion, Throughput};
    use eager_wasm::{AttrValue, EagerContext, Tensor};
    use std::time::Duration;

    /// Deterministic values in [-1, 1): the kernels' speed does not depend on them, but denormals
    /// or all-zero inputs would flatter nothing and slow nothing, so any fixed pattern will do.
    fn tensor(dims: &[usize]) -> Tensor {
        let n: usize = dims.iter().product();
        let v: Vec<f32> = (0..n)
            .map(|i| ((i * 7919 % 2003) as f32 / 1001.5) - 1.0)
            .collect();
        Tensor::from_slice(dims, &v).unwrap()
    }

    fn ints(v: &[i64]) -> AttrValue {
        AttrValue::ListInt(v.to_vec())
    }

    fn str_attr(s: &str) -> AttrValue {
        AttrValue::Str(s.as_bytes().to_vec())
    }

    struct Case {
        name: String,
        op: &'static str,
        inputs: Vec<Tensor>,
        attrs: Vec<(&'static str, AttrValue)>,
        /// flops (matmul/conv) or values produced, per run
        work: u64,
    }

    fn matmul(m: usize, k: usize, n: usize) -> Case {
        Case {
            name: format!("MatMul {m}x{k} * {k}x{n}"),
            op: "MatMul",
            inputs: vec![tensor(&[m, k]), tensor(&[k, n])],
            attrs: vec![],
            work: 2 * (m * k * n) as u64,
        }
    }

    fn conv2d(hw: usize, cin: usize, k: usize, cout: usize) -> Case {
        Case {
            name: format!("Conv2D [1,{hw},{hw},{cin}] * [{k},{k},{cin},{cout}] SAME"),
            op: "Conv2D",
            inputs: vec![tensor(&[1, hw, hw, cin]), tensor(&[k, k, cin, cout])],
            attrs: vec![
                ("strides", ints(&[1, 1, 1, 1])),
                ("padding", str_attr("SAME")),
            ],
            work: 2 * (hw * hw * cout * k * k * cin) as u64,
        }
    }

    fn depthwise(hw: usize, c: usize, stride: usize) -> Case {
        let out = hw.div_ceil(stride);
        Case {
            name: format!("DepthwiseConv2dNative [1,{hw},{hw},{c}] 3x3 stride {stride} SAME"),
            op: "DepthwiseConv2dNative",
            inputs: vec![tensor(&[1, hw, hw, c]), tensor(&[3, 3, c, 1])],
            attrs: vec![
                ("strides", ints(&[1, stride as i64, stride as i64, 1])),
                ("padding", str_attr("SAME")),
            ],
            work: 2 * (out * out * c * 9) as u64,
        }
    }

    fn elementwise(op: &'static str, a: &[usize], b: Option<&[usize]>) -> Case {
        let mut inputs = vec![tensor(a)];
        let mut name = format!("{op} {a:?}");
        if let Some(b) = b {
            inputs.push(tensor(b));
            name = format!("{name} + {b:?}");
        }
        Case {
            name,
            op,
            inputs,
            attrs: vec![],
            work: a.iter().product::<usize>() as u64,
        }
    }

    fn bench(c: &mut Criterion) {
        let axis = |v: &[i32]| Tensor::from_slice(&[v.len()], v).unwrap();
        let mut sum = elementwise("Sum", &[512, 1024], None);
        sum.inputs.push(axis(&[1]));
        let mut transpose = elementwise("Transpose", &[512, 512], None);
        transpose.inputs.push(axis(&[1, 0]));
        let cases = [
            matmul(256, 256, 256),
            matmul(1024, 1024, 1024),
            matmul(255, 257, 259),
            matmul(1, 784, 128),
            conv2d(56, 64, 3, 64),
            conv2d(28, 128, 1, 128),
            conv2d(57, 3, 3, 17),
            depthwise(56, 128, 1),
            depthwise(57, 131, 2),
            elementwise("AddV2", &[1 << 20], Some(&[1 << 20])),
            elementwise("AddV2", &[1024, 1024], Some(&[1024])),
            elementwise("Relu", &[1 << 20], None),
            elementwise("Exp", &[1 << 20], None),
            elementwise("Tanh", &[1 << 20], None),
            elementwise("Sigmoid", &[1 << 20], None),
            elementwise("Softmax", &[256, 1000], None),
            sum,
            transpose,
        ];
        let mut ctx = EagerContext::default();
        let mut group = c.benchmark_group("kernels");
        group
            .sample_size(20)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for case in &cases {
            group.throughput(Throughput::Elements(case.work));
            group.bench_function(&case.name, |b| {
                b.iter(|| {
                    black_box(
                        ctx.execute(case.op, &case.inputs, case.attrs.iter().cloned())
                            .unwrap(),
                    )
                })
            });
        }
        group.finish();
    }

    criterion_group!(benches, bench);
}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(native::benches);

// Criterion does not run on wasm32; the wasm figures come from `npm run bench`.
#[cfg(target_arch = "wasm32")]
fn main() {}
