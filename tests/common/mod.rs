//! Shared by integration tests: JSON tensor specs from the TF-generated fixtures, and tolerant
//! comparison against TF's outputs.
#![allow(dead_code)]

use eager_wasm::eager::OpCacheStats;
use eager_wasm::model::GraphModel;
use eager_wasm::tensor::{Data, Shape, C64};
use eager_wasm::{AttrValue, CacheStats, DType, EagerContext, Tensor};
use serde_json::Value;
use std::path::PathBuf;

/// Tolerance every TF comparison uses: |got - want| <= ATOL + RTOL * |want|.
pub const ATOL: f32 = 1e-5;
pub const RTOL: f32 = 1e-4;
/// complex64 outputs: |got - want| <= ATOL + CRTOL * (largest |part| of the expected tensor).
pub const CRTOL: f32 = 1e-5;

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The graph model fixture `name` (tests/fixtures/models/NAME): its model.json, its weight shards
/// concatenated in manifest order, and its reference.json.
pub fn model_files(name: &str) -> (String, Vec<u8>, String) {
    let dir = fixtures().join("models").join(name);
    let json = std::fs::read_to_string(dir.join("model.json")).unwrap();
    let mut weights = Vec::new();
    for p in GraphModel::weight_paths(&json).unwrap() {
        weights.extend(std::fs::read(dir.join(p)).unwrap());
    }
    let reference = std::fs::read_to_string(dir.join("reference.json")).unwrap();
    (json, weights, reference)
}

/// The kernel cache's figures for one op type (panics if no kernel of that op was looked up).
pub fn op_stats<'a>(stats: &'a CacheStats, op: &str) -> &'a OpCacheStats {
    &stats
        .by_op
        .iter()
        .find(|(o, _)| o == op)
        .unwrap_or_else(|| panic!("no cache figures for {op}"))
        .1
}

/// Runs one TF-generated op case (tests/fixtures/ops/*.json): outputs within tolerance, or the
/// error class TF raised.
pub fn run_op_case(ctx: &mut EagerContext, case: &Value) -> Result<(), String> {
    let op = case["op"].as_str().ok_or("case without op")?;
    let inputs: Vec<_> = case["inputs"]
        .as_array()
        .map(|a| a.iter().map(tensor_from_json).collect())
        .unwrap_or_default();
    let attrs: Vec<(String, AttrValue)> = case["attrs"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        eager_wasm::model::attr_json::from_text(&v.to_string())
                            .expect("fixture attr parses"),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let result = ctx.execute(op, &inputs, attrs.clone());
    if let Some(code) = case.get("error").and_then(Value::as_str) {
        return match result {
            Err(e) if e.code.name() == code => Ok(()),
            Err(e) => Err(format!("expected {code}, got {e}")),
            Ok(_) => Err(format!("expected {code}, got success")),
        };
    }
    let got = result.map_err(|e| e.to_string())?;
    // The load-time output check (model/arity.rs) must agree with what the kernel returns, or a
    // model reading a real output would be refused at load.
    let declared = eager_wasm::model::arity::output_count(op, inputs.len(), |n| {
        attrs.iter().find(|(k, _)| k == n).map(|(_, v)| v)
    });
    if declared != got.len() {
        return Err(format!(
            "{} outputs, but model/arity.rs declares {declared}",
            got.len()
        ));
    }
    let want = case["outputs"].as_array().ok_or("case without outputs")?;
    // The generator stores only `y` for the FusedBatchNorm family (its other outputs are TF's
    // reserve space, whose contents TF leaves unspecified); every other op lists all outputs.
    let prefix_only = op.starts_with("FusedBatchNorm");
    if got.len() != want.len() && !(prefix_only && got.len() > want.len()) {
        return Err(format!("{} outputs, expected {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        compare(g, &tensor_from_json(w), ATOL, RTOL).map_err(|e| format!("output {i}: {e}"))?;
    }
    Ok(())
}

/// Runs every case of one fixture file; returns (passed, failure descriptions).
pub fn run_op_file(ctx: &mut EagerContext, stem: &str, json: &str) -> (usize, Vec<String>) {
    let cases: Value = serde_json::from_str(json).expect("fixture JSON");
    let mut passed = 0;
    let mut failures = Vec::new();
    for case in cases.as_array().expect("array of cases") {
        match run_op_case(ctx, case) {
            Ok(()) => passed += 1,
            Err(e) => failures.push(format!(
                "{stem}/{} ({}): {e}",
                case["name"].as_str().unwrap_or("?"),
                case["op"]
            )),
        }
    }
    (passed, failures)
}

/// Reference inputs and outputs of a model fixture, as (signature name, tensor) pairs.
pub type Io = Vec<(String, Tensor)>;

pub fn reference(json: &str) -> (Io, Io) {
    let r: Value = serde_json::from_str(json).expect("reference JSON");
    let side = |k: &str| {
        r[k].as_object()
            .expect("reference side")
            .iter()
            .map(|(n, v)| (n.clone(), tensor_from_json(v)))
            .collect::<Vec<_>>()
    };
    (side("inputs"), side("outputs"))
}

/// Loads a model, predicts TF's reference inputs, compares all outputs, disposes.
pub fn check_model(
    ctx: &mut EagerContext,
    model_json: &str,
    weights: &[u8],
    reference_json: &str,
    atol: f32,
    rtol: f32,
) -> Result<(), String> {
    let mut model =
        GraphModel::load(ctx, model_json, weights, &mut |_, _| {}).map_err(|e| e.to_string())?;
    let (inputs, want) = reference(reference_json);
    let got = model.predict(ctx, inputs).map_err(|e| e.to_string())?;
    compare_outputs(model.outputs(), &got, &want, atol, rtol)?;
    model.dispose(ctx);
    if ctx.memory().num_resources != 0 {
        return Err("resources left after dispose".into());
    }
    Ok(())
}

/// Each output (in `outputs` order) against the reference output of the same name.
fn compare_outputs(
    outputs: &[eager_wasm::model::TensorInfo],
    got: &[Tensor],
    want: &Io,
    atol: f32,
    rtol: f32,
) -> Result<(), String> {
    for (info, g) in outputs.iter().zip(got) {
        let w = &want
            .iter()
            .find(|(n, _)| *n == info.name)
            .ok_or_else(|| format!("no reference for output {}", info.name))?
            .1;
        compare(g, w, atol, rtol).map_err(|e| format!("output {}: {e}", info.name))?;
    }
    Ok(())
}

/// A fixture string element (standard base64) as bytes.
pub fn b64(s: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .expect("base64 string element")
}

/// `{"dtype": "float32", "shape": [..], "data": [..]}` to a tensor.
pub fn tensor_from_json(v: &Value) -> Tensor {
    let dtype = DType::parse(v["dtype"].as_str().expect("dtype")).expect("known dtype");
    let dims: Vec<usize> = v["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|d| d.as_u64().expect("dim") as usize)
        .collect();
    let data = v["data"].as_array().expect("data");
    let shape = Shape::new(dims).expect("shape");
    let num = |x: &Value| -> f64 {
        match x {
            Value::Number(n) => n.as_f64().unwrap(),
            Value::Bool(b) => *b as u8 as f64,
            Value::String(s) => match s.as_str() {
                "NaN" | "nan" => f64::NAN,
                "Infinity" | "inf" => f64::INFINITY,
                "-Infinity" | "-inf" => f64::NEG_INFINITY,
                other => other.parse().expect("numeric string"),
            },
            Value::Null => f64::NAN,
            other => panic!("bad value {other}"),
        }
    };
    let d = match dtype {
        DType::Float32 => Data::F32(data.iter().map(|x| num(x) as f32).collect()),
        DType::Int32 => Data::I32(data.iter().map(|x| num(x) as i32).collect()),
        // Exact: an int64 read through f64 loses its low bits.
        DType::Int64 => Data::I64(
            data.iter()
                .map(|x| x.as_i64().unwrap_or_else(|| num(x) as i64))
                .collect(),
        ),
        DType::Bool => Data::Bool(data.iter().map(|x| num(x) != 0.0).collect()),
        DType::UInt8 => Data::U8(data.iter().map(|x| num(x) as u8).collect()),
        // Interleaved (re, im) pairs.
        DType::Complex64 => Data::C64(
            data.chunks_exact(2)
                .map(|p| C64::new(num(&p[0]) as f32, num(&p[1]) as f32))
                .collect(),
        ),
        DType::String => Data::Str(
            data.iter()
                .map(|x| b64(x.as_str().expect("base64 string element")))
                .collect(),
        ),
        DType::Resource => panic!("resource in fixture"),
    };
    Tensor::new(shape, d).expect("fixture tensor")
}

/// Compares `got` to TF's `want`: same dtype and shape; floats within `atol + rtol * |want|`
/// (NaN matches NaN, infinities match exactly); everything else exactly. Err describes the first
/// mismatch.
pub fn compare(got: &Tensor, want: &Tensor, atol: f32, rtol: f32) -> Result<(), String> {
    if got.dtype() != want.dtype() {
        return Err(format!(
            "dtype {} != expected {}",
            got.dtype(),
            want.dtype()
        ));
    }
    if got.dims() != want.dims() {
        return Err(format!(
            "shape {:?} != expected {:?}",
            got.dims(),
            want.dims()
        ));
    }
    match (got.data(), want.data()) {
        (Data::F32(g), Data::F32(w)) => {
            for (i, (&a, &b)) in g.iter().zip(w).enumerate() {
                let ok = if b.is_nan() {
                    a.is_nan()
                } else if b.is_infinite() {
                    a == b
                } else {
                    (a - b).abs() <= atol + rtol * b.abs()
                };
                if !ok {
                    return Err(format!("element {i}: got {a}, expected {b}"));
                }
            }
            Ok(())
        }
        (Data::I32(g), Data::I32(w)) if g == w => Ok(()),
        (Data::I64(g), Data::I64(w)) if g == w => Ok(()),
        (Data::Bool(g), Data::Bool(w)) if g == w => Ok(()),
        (Data::U8(g), Data::U8(w)) if g == w => Ok(()),
        // complex64: each part within `atol + CRTOL * scale`, the scale being the largest
        // magnitude in the expected tensor (an FFT's error is relative to its inputs' size, not
        // to each bin, many of which are near zero).
        (Data::C64(g), Data::C64(w)) => {
            let scale = w
                .iter()
                .fold(0f32, |m, c| m.max(c.re.abs()).max(c.im.abs()));
            let tol = atol + CRTOL * scale;
            for (i, (a, b)) in g.iter().zip(w).enumerate() {
                let close = |p: f32, q: f32| {
                    if q.is_nan() {
                        p.is_nan()
                    } else if q.is_infinite() {
                        p == q
                    } else {
                        (p - q).abs() <= tol
                    }
                };
                if !close(a.re, b.re) || !close(a.im, b.im) {
                    return Err(format!(
                        "element {i}: got {}{:+}i, expected {}{:+}i",
                        a.re, a.im, b.re, b.im
                    ));
                }
            }
            Ok(())
        }
        (Data::Str(g), Data::Str(w)) if g == w => Ok(()),
        (g, w) => Err(format!("values differ: got {g:?}, expected {w:?}")),
    }
}

macro_rules! op_fixtures {
    ($($stem:literal),* $(,)?) => {
        /// Every op fixture file, embedded so the wasm suites (which cannot read files) run them too.
        pub const OP_FIXTURES: &[(&str, &str)] =
            &[$(($stem, include_str!(concat!("../fixtures/ops/", $stem, ".json")))),*];
    };
}

op_fixtures!(
    "array",
    "array_extra",
    "batchnorm",
    "binary",
    "compare",
    "complex",
    "conv",
    "conv_transpose",
    "dynamic",
    "einsum",
    "gather_nd",
    "grads",
    "image_extra",
    "image_more",
    "math_extra",
    "math_more",
    "matmul",
    "pool",
    "ragged",
    "reduce",
    "resize",
    "softmax",
    "sparse",
    "strings",
    "tfjs_grads",
    "tfjs_only",
    "uint8",
    "unary",
    "volume",
);

pub struct ModelFixture {
    pub name: &'static str,
    pub json: &'static str,
    pub weights: &'static [u8],
    pub reference: &'static str,
    /// For quantized models: TF's outputs with weights dequantized exactly as TF.js does.
    pub reference_dequantized: Option<&'static str>,
}

macro_rules! model_fixture {
    ($name:literal) => {
        model_fixture!($name, None)
    };
    ($name:literal, dequantized) => {
        model_fixture!(
            $name,
            Some(include_str!(concat!(
                "../fixtures/models/",
                $name,
                "/reference_dequantized.json"
            )))
        )
    };
    ($name:literal, $deq:expr) => {
        ModelFixture {
            name: $name,
            json: include_str!(concat!("../fixtures/models/", $name, "/model.json")),
            weights: include_bytes!(concat!(
                "../fixtures/models/",
                $name,
                "/group1-shard1of1.bin"
            )),
            reference: include_str!(concat!("../fixtures/models/", $name, "/reference.json")),
            reference_dequantized: $deq,
        }
    };
}

/// Every model fixture (all single-shard), embedded for the wasm suites.
pub const MODEL_FIXTURES: &[ModelFixture] = &[
    model_fixture!("activations"),
    model_fixture!("cnn"),
    model_fixture!("layer_norm_keras"),
    model_fixture!("conv_variants"),
    model_fixture!("lstm"),
    model_fixture!("mlp"),
    model_fixture!("mlp_float16", dequantized),
    model_fixture!("mlp_uint8", dequantized),
    model_fixture!("mobilenet"),
    model_fixture!("tensor_ops"),
    model_fixture!("tensor_ops2"),
    // Control flow v1 (tools/gen_control_flow_models.py).
    model_fixture!("cond"),
    model_fixture!("cond_false"),
    model_fixture!("dynamic_loop"),
    model_fixture!("gru"),
    model_fixture!("lstm_loop"),
    model_fixture!("map_fn"),
    model_fixture!("map_fn_nms"),
    model_fixture!("nested_loop"),
    model_fixture!("while_tensorarray"),
    model_fixture!("tf1_tensorarray"),
    // Control flow v2 (functional While/If, `--control_flow_v2=True`).
    model_fixture!("cond_v2"),
    model_fixture!("cond_false_v2"),
    model_fixture!("dynamic_loop_v2"),
    model_fixture!("gru_v2"),
    model_fixture!("lstm_loop_v2"),
    model_fixture!("map_fn_v2"),
    model_fixture!("map_fn_nms_v2"),
    model_fixture!("nested_loop_v2"),
    model_fixture!("while_tensorarray_v2"),
    model_fixture!("ragged_cond"),
    model_fixture!("ragged_cond_v2"),
    // Op coverage (tools/gen_models.py).
    model_fixture!("unet_transpose"),
    model_fixture!("keypoint_decoder"),
    model_fixture!("detector_head"),
    model_fixture!("upsample_d2s"),
    model_fixture!("uint8_image"),
    model_fixture!("misc_ops"),
    model_fixture!("bert_tiny"),
    model_fixture!("ragged_ops"),
    model_fixture!("frozen_no_inputs"),
    // String tensors, a hash table from the converter's modelInitializer (tools/gen_models.py).
    model_fixture!("strings_vocab"),
    // The benchmark zoo's small architectures at a smaller input (tools/gen_zoo.py).
    model_fixture!("zoo_blazeface"),
    model_fixture!("zoo_landmarks"),
    model_fixture!("zoo_unet"),
    // The zoo's GRU text classifier (two while loops), small, in both lowerings.
    model_fixture!("zoo_gru"),
    model_fixture!("zoo_gru_v2"),
    // Unfused chains the loader's fusion pass folds (tools/gen_fusion_models.py).
    model_fixture!("unfused_chains"),
    model_fixture!("swish_chains"),
];

/// Checks every model fixture: exact-tolerance against TF (dequantized reference for quantized
/// models, plus a loose bound against the float model). Returns failure descriptions.
pub fn check_all_models(ctx: &mut EagerContext) -> Vec<String> {
    let mut failures = Vec::new();
    for m in MODEL_FIXTURES {
        let (reference, loose) = match m.reference_dequantized {
            Some(d) => (d, Some(m.reference)),
            None => (m.reference, None),
        };
        if let Err(e) = check_model(ctx, m.json, m.weights, reference, ATOL, RTOL) {
            failures.push(format!("{}: {e}", m.name));
        }
        if let Some(r) = loose {
            if let Err(e) = check_model(ctx, m.json, m.weights, r, 0.05, 0.0) {
                failures.push(format!("{} vs float model: {e}", m.name));
            }
        }
    }
    failures
}

/// A layers-format model fixture (tests/fixtures/layers, from tools/gen_layers_models.py).
pub struct LayersFixture {
    pub name: &'static str,
    pub json: &'static str,
    pub weights: &'static [u8],
    pub reference: &'static str,
}

macro_rules! layers_fixture {
    ($name:literal) => {
        LayersFixture {
            name: $name,
            json: include_str!(concat!("../fixtures/layers/", $name, "/model.json")),
            weights: include_bytes!(concat!(
                "../fixtures/layers/",
                $name,
                "/group1-shard1of1.bin"
            )),
            reference: include_str!(concat!("../fixtures/layers/", $name, "/reference.json")),
        }
    };
}

/// Every layers-model fixture (all single-shard), embedded for the wasm suites.
pub const LAYERS_FIXTURES: &[LayersFixture] = &[
    layers_fixture!("activations"),
    layers_fixture!("conv1d"),
    layers_fixture!("conv2d"),
    layers_fixture!("conv3d"),
    layers_fixture!("conv_transpose"),
    layers_fixture!("conv_transpose_padding"),
    layers_fixture!("embedding"),
    layers_fixture!("image_preprocess"),
    layers_fixture!("k3_functional"),
    layers_fixture!("k3_rnn"),
    layers_fixture!("k3_seq"),
    layers_fixture!("k3kk_functional"),
    layers_fixture!("k3kk_rnn"),
    layers_fixture!("k3kk_seq"),
    layers_fixture!("lstm_text"),
    layers_fixture!("masked_sequences"),
    layers_fixture!("merge"),
    layers_fixture!("preprocess"),
    layers_fixture!("rnn"),
    layers_fixture!("rnn_wrappers"),
    layers_fixture!("seq_mlp"),
    layers_fixture!("teachable"),
];

/// Loads a layers model, predicts Keras's reference inputs, compares every output, disposes.
pub fn check_layers_model(ctx: &mut EagerContext, f: &LayersFixture) -> Result<(), String> {
    use eager_wasm::model::layers::LayersModel;
    let mut model =
        LayersModel::load(ctx, f.json, f.weights, &mut |_, _| {}).map_err(|e| e.to_string())?;
    let (inputs, want) = reference(f.reference);
    let got = model.predict(ctx, inputs).map_err(|e| e.to_string())?;
    if got.len() != model.outputs().len() {
        return Err(format!(
            "{} outputs for {}",
            got.len(),
            model.outputs().len()
        ));
    }
    compare_outputs(model.outputs(), &got, &want, ATOL, RTOL)?;
    // Every fixture's inputs have known shapes (batch aside), so Keras knows every output's.
    for (info, t) in model.outputs().iter().zip(&got) {
        let mut dims: Vec<i64> = t.dims().iter().map(|&d| d as i64).collect();
        dims[0] = -1;
        if info.shape.as_ref() != Some(&dims) {
            return Err(format!(
                "output '{}' declares shape {:?}, predict gave {:?}",
                info.name,
                info.shape,
                t.dims()
            ));
        }
    }
    model.dispose(ctx);
    if ctx.memory().num_resources != 0 {
        return Err("resources left after dispose".into());
    }
    Ok(())
}

/// Checks every layers-model fixture against Keras; returns failure descriptions.
pub fn check_all_layers_models(ctx: &mut EagerContext) -> Vec<String> {
    LAYERS_FIXTURES
        .iter()
        .filter_map(|f| {
            check_layers_model(ctx, f)
                .err()
                .map(|e| format!("{}: {e}", f.name))
        })
        .collect()
}

/// Deterministic values in [-1, 1] (xorshift), for inputs whose exact values do not matter.
pub fn random_values(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2654435761).wrapping_add(7);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 2001) as f32 / 1000.0 - 1.0
        })
        .collect()
}

/// A float32 tensor of `dims` filled by `random_values`.
pub fn random_tensor(dims: &[usize], seed: u32) -> Tensor {
    Tensor::from_slice(dims, &random_values(dims.iter().product(), seed)).unwrap()
}
