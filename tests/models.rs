//! Real converted TF.js graph models (tests/fixtures/models, from tools/gen_models.py): loaded as
//! resource variables, run op by op, compared with TF's outputs, and released completely.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use eager_wasm::model::GraphModel;
use eager_wasm::{Code, EagerContext, Tensor};
use serde_json::Value;
use std::path::Path;

use common::{op_stats, ATOL, RTOL};

struct Fixture {
    json: String,
    weights: Vec<u8>,
    dir: std::path::PathBuf,
}

fn fixture(name: &str) -> Fixture {
    let dir = common::fixtures().join("models").join(name);
    let json = std::fs::read_to_string(dir.join("model.json")).unwrap();
    let mut weights = Vec::new();
    for p in GraphModel::weight_paths(&json).unwrap() {
        weights.extend(std::fs::read(dir.join(p)).unwrap());
    }
    Fixture { json, weights, dir }
}

fn reference(dir: &Path, file: &str) -> (common::Io, common::Io) {
    common::reference(&std::fs::read_to_string(dir.join(file)).unwrap())
}

fn load(ctx: &mut EagerContext, f: &Fixture) -> GraphModel {
    GraphModel::load(ctx, &f.json, &f.weights, &mut |_, _| {}).unwrap()
}

/// Loads, predicts on TF's reference inputs and compares every output.
fn check_model(name: &str, reference_file: &str, atol: f32, rtol: f32) {
    let f = fixture(name);
    let reference = std::fs::read_to_string(f.dir.join(reference_file)).unwrap();
    let mut ctx = EagerContext::default();
    common::check_model(&mut ctx, &f.json, &f.weights, &reference, atol, rtol)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
}

macro_rules! model_tests {
    ($($test:ident: $name:literal,)*) => {$(
        #[test]
        fn $test() {
            check_model($name, "reference.json", ATOL, RTOL);
        }
    )*};
}

model_tests! {
    mlp_matches_tf: "mlp",
    cnn_matches_tf: "cnn",
    mobilenet_matches_tf: "mobilenet",
    tensor_ops_matches_tf: "tensor_ops",
    tensor_ops2_matches_tf: "tensor_ops2",
    activations_match_tf: "activations",
    lstm_matches_tf: "lstm",
    conv_variants_match_tf: "conv_variants",
    layer_norm_keras_matches_tf: "layer_norm_keras",
    unet_transpose_matches_tf: "unet_transpose",
    keypoint_decoder_matches_tf: "keypoint_decoder",
    detector_head_matches_tf: "detector_head",
    upsample_d2s_matches_tf: "upsample_d2s",
    uint8_image_matches_tf: "uint8_image",
    misc_ops_match_tf: "misc_ops",
    bert_tiny_matches_tf: "bert_tiny",
    ragged_ops_match_tf: "ragged_ops",
    complex_fft_matches_tf: "complex_fft",
    frozen_no_inputs_matches_tf: "frozen_no_inputs",
    strings_vocab_matches_tf: "strings_vocab",
    zoo_blazeface_matches_tf: "zoo_blazeface",
    zoo_landmarks_matches_tf: "zoo_landmarks",
    zoo_unet_matches_tf: "zoo_unet",
}

#[test]
fn quantized_models_match_tf_on_dequantized_weights() {
    for name in ["mlp_uint8", "mlp_float16"] {
        check_model(name, "reference_dequantized.json", ATOL, RTOL);
        // Against the float model, quantization error dominates: a loose sanity bound.
        check_model(name, "reference.json", 0.05, 0.0);
    }
}

#[test]
fn weights_become_resource_variables_and_dispose_releases_them() {
    let f = fixture("mlp");
    let mut ctx = EagerContext::default();
    let before = ctx.memory();
    let mut model = load(&mut ctx, &f);
    let m = ctx.memory();
    assert_eq!(m.num_resources, 6, "3 kernels + 3 biases");
    assert_eq!(m.resource_bytes, f.weights.len());
    // Each weight is one live tensor (its value; the handle naming the variable is not counted),
    // and its bytes are part of the tensor bytes.
    assert_eq!(m.num_tensors - before.num_tensors, 6);
    assert_eq!(m.tensor_bytes - before.tensor_bytes, f.weights.len());
    let var_handle = |ctx: &EagerContext| {
        let s = ctx.cache_stats();
        let v = op_stats(&s, "VarHandleOp");
        (v.entries, v.misses, v.hits)
    };
    // With anonymous names the key is (dtype, shape): one kernel per distinct variable shape (the
    // mlp's 6 are all distinct), reused by every later load.
    assert_eq!(var_handle(&ctx), (6, 6, 0));
    let mut again = load(&mut ctx, &f);
    assert_eq!(var_handle(&ctx), (6, 6, 6), "a second load only hits");
    again.dispose(&mut ctx);
    model.dispose(&mut ctx);
    model.dispose(&mut ctx); // idempotent
    let after = ctx.memory();
    assert_eq!((after.num_resources, after.resource_bytes), (0, 0));
    assert_eq!(after.num_tensors, before.num_tensors);
    let err = model.predict(&mut ctx, vec![]).unwrap_err();
    assert_eq!(err.code, Code::FailedPrecondition);
}

/// Found by fuzzing: a graph node that creates a resource when the model runs (here the input
/// Placeholder turned into a VarHandleOp) made it in the context's root scope, so dispose() left
/// it behind. Predict now runs in the model's scope.
#[test]
fn resources_a_graph_creates_while_running_go_with_the_model() {
    let f = fixture("mlp");
    let mut doc: Value = serde_json::from_str(&f.json).unwrap();
    let x = doc["modelTopology"]["node"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|n| n["name"] == "x")
        .unwrap();
    x["op"] = "VarHandleOp".into();
    doc["signature"]["inputs"] = serde_json::json!({});
    let mut ctx = EagerContext::default();
    let mut model =
        GraphModel::load(&mut ctx, &doc.to_string(), &f.weights, &mut |_, _| {}).unwrap();
    let weights = ctx.memory().num_resources;
    // The MatMul then fails on a resource input; the handle was made first.
    assert!(model.predict(&mut ctx, vec![]).is_err());
    assert_eq!(ctx.memory().num_resources, weights + 1);
    model.dispose(&mut ctx);
    assert_eq!(ctx.memory().num_resources, 0);
    assert_eq!(ctx.current_scope(), eager_wasm::resource::ScopeId::ROOT);
}

#[test]
fn hundred_load_run_dispose_cycles_leave_heap_where_it_was() {
    let f = fixture("mobilenet");
    let (inputs, _) = reference(&f.dir, "reference.json");
    let mut ctx = EagerContext::default();
    let cycle = |ctx: &mut EagerContext| {
        let mut model = load(ctx, &f);
        let out = model.predict(ctx, inputs.clone()).unwrap();
        drop(out);
        model.dispose(ctx);
        drop(model);
        ctx.memory()
    };
    let first = cycle(&mut ctx);
    for _ in 0..99 {
        let m = cycle(&mut ctx);
        assert_eq!(m.heap_bytes, first.heap_bytes);
        assert_eq!(m.cache_entries, first.cache_entries);
        assert_eq!(m.num_tensors, first.num_tensors);
    }
}

#[test]
fn unique_names_grow_the_cache_per_load_anonymous_do_not() {
    let f = fixture("mlp");
    for (naming, growth) in [("unique", 6), ("anonymous", 0)] {
        let mut ctx = EagerContext::new(eager_wasm::ContextOptions {
            resource_naming: eager_wasm::ResourceNaming::parse(naming).unwrap(),
            ..Default::default()
        });
        let mut entries = Vec::new();
        for _ in 0..5 {
            let mut m = load(&mut ctx, &f);
            m.dispose(&mut ctx);
            entries.push(ctx.memory().cache_entries);
        }
        for w in entries.windows(2) {
            assert_eq!(w[1] - w[0], growth, "{naming}: {entries:?}");
        }
    }
}

#[test]
fn progress_reports_weight_bytes() {
    let f = fixture("cnn");
    let mut ctx = EagerContext::default();
    let mut seen = Vec::new();
    let _m = GraphModel::load(&mut ctx, &f.json, &f.weights, &mut |done, total| {
        seen.push((done, total))
    })
    .unwrap();
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0));
    assert_eq!(*seen.last().unwrap(), (f.weights.len(), f.weights.len()));
}

fn load_err(ctx: &mut EagerContext, json: &str, weights: &[u8]) -> eager_wasm::Status {
    match GraphModel::load(ctx, json, weights, &mut |_, _| {}) {
        Ok(_) => panic!("load should fail"),
        Err(e) => e,
    }
}

#[test]
fn malformed_models_fail_cleanly_and_leak_nothing() {
    let f = fixture("mlp");
    let mut ctx = EagerContext::default();
    // Warm up caches so heap comparisons are exact.
    let mut m = load(&mut ctx, &f);
    m.dispose(&mut ctx);
    drop(m);
    let mut doc: Value = serde_json::from_str(&f.json).unwrap();
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut d = doc.clone();
        edit(&mut d);
        d.to_string()
    };
    let cases: Vec<(&str, String, Vec<u8>, Code)> = vec![
        (
            "not json",
            "{not json".into(),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "layers model",
            with(&|d| d["format"] = "layers-model".into()),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "no topology",
            with(&|d| {
                d.as_object_mut().unwrap().remove("modelTopology");
            }),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "unknown op",
            with(&|d| d["modelTopology"]["node"][5]["op"] = "WhileV9".into()),
            f.weights.clone(),
            Code::Unimplemented,
        ),
        (
            "two unknown ops",
            with(&|d| {
                d["modelTopology"]["node"][5]["op"] = "WhileV9".into();
                d["modelTopology"]["node"][8]["op"] = "FancyOp".into();
            }),
            f.weights.clone(),
            Code::Unimplemented,
        ),
        (
            "dangling input",
            with(&|d| d["modelTopology"]["node"][8]["input"][0] = "nope".into()),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "bad output index",
            with(&|d| d["modelTopology"]["node"][8]["input"][0] = "x:zz".into()),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "input naming an output its producer lacks",
            with(&|d| d["modelTopology"]["node"][8]["input"][0] = "x:1".into()),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "signature output past its node's outputs",
            with(&|d| d["signature"]["outputs"]["y"]["name"] = "Identity:2".into()),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "short shard",
            f.json.clone(),
            f.weights[..1000].to_vec(),
            Code::InvalidArgument,
        ),
        (
            "long shard",
            f.json.clone(),
            [f.weights.clone(), vec![0; 4]].concat(),
            Code::InvalidArgument,
        ),
        (
            "absurd weight shape",
            with(&|d| {
                d["weightsManifest"][0]["weights"][0]["shape"] =
                    serde_json::json!([1_000_000_000i64, 1_000_000_000i64])
            }),
            f.weights.clone(),
            Code::ResourceExhausted,
        ),
        (
            "cycle",
            with(&|d| d["modelTopology"]["node"][7]["input"][0] = "Identity".into()),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "attr of the wrong kind",
            with(&|d| {
                d["modelTopology"]["node"][7]["attr"]["transpose_a"] = serde_json::json!({"i": "1"})
            }),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "int64 string that does not parse",
            with(&|d| {
                d["modelTopology"]["node"][7]["attr"]["num_args"] = serde_json::json!({"i": "two"})
            }),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "base64 that does not decode",
            with(&|d| {
                d["modelTopology"]["node"][7]["attr"]["fused_ops"] =
                    serde_json::json!({"list": {"s": ["@@@"]}})
            }),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "negative weight dim",
            with(&|d| {
                d["weightsManifest"][0]["weights"][0]["shape"] = serde_json::json!([-784, 128])
            }),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "quantization without min/scale",
            with(&|d| {
                d["weightsManifest"][0]["weights"][1]["quantization"] =
                    serde_json::json!({"dtype": "uint16"})
            }),
            f.weights[..f.weights.len() - 128 * 2].to_vec(),
            Code::InvalidArgument,
        ),
        (
            "no weights manifest",
            with(&|d| {
                d.as_object_mut().unwrap().remove("weightsManifest");
            }),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
        (
            "unknown weight dtype",
            with(&|d| d["weightsManifest"][0]["weights"][0]["dtype"] = "string".into()),
            f.weights.clone(),
            Code::InvalidArgument,
        ),
    ];
    doc["modelTopology"]["node"][0]["name"] = doc["modelTopology"]["node"][1]["name"].clone();
    let dup = doc.to_string();
    for (what, json, weights, code) in cases.into_iter().chain([(
        "duplicate node names",
        dup,
        f.weights.clone(),
        Code::InvalidArgument,
    )]) {
        let before = ctx.memory().heap_bytes;
        let e = load_err(&mut ctx, &json, &weights);
        assert_eq!(e.code, code, "{what}: {e}");
        if what == "two unknown ops" {
            // Every unsupported op is named at once, not only the first.
            assert!(
                e.message.contains("'WhileV9'") && e.message.contains("'FancyOp'"),
                "{e}"
            );
        }
        drop(e);
        let m = ctx.memory();
        assert_eq!(m.num_resources, 0, "{what}");
        assert_eq!(m.heap_bytes, before, "{what}: heap back where it was");
    }
    // The context still works.
    let mut m = load(&mut ctx, &f);
    m.dispose(&mut ctx);
}

#[test]
fn wrong_inputs_are_clear_errors() {
    let f = fixture("mlp");
    let mut ctx = EagerContext::default();
    let model = load(&mut ctx, &f);
    let ok = Tensor::from_slice(&[1, 784], &vec![0.5f32; 784]).unwrap();
    let cases = vec![
        (vec![], "takes 1 input"),
        (vec![("y".to_string(), ok.clone())], "no input 'y'"),
        (
            vec![(
                "x".to_string(),
                Tensor::from_slice(&[1, 783], &vec![0f32; 783]).unwrap(),
            )],
            "must have shape",
        ),
        (
            vec![(
                "x".to_string(),
                Tensor::from_slice(&[1, 784], &vec![0i32; 784]).unwrap(),
            )],
            "must be float32",
        ),
    ];
    for (feeds, msg) in cases {
        let e = model.predict(&mut ctx, feeds).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        assert!(e.message.contains(msg), "{e}");
    }
    // By signature key, tensor name and node name alike.
    for key in ["x", "x:0"] {
        assert_eq!(
            model
                .predict(&mut ctx, vec![(key.into(), ok.clone())])
                .unwrap()[0]
                .dims(),
            &[1, 10]
        );
    }
}

/// TF.js: a signature listing outputs but no inputs takes the graph's Placeholders as inputs.
#[test]
fn signature_without_inputs_falls_back_to_placeholders() {
    let f = fixture("mlp");
    let mut doc: Value = serde_json::from_str(&f.json).unwrap();
    doc["signature"].as_object_mut().unwrap().remove("inputs");
    let mut ctx = EagerContext::default();
    let mut model =
        GraphModel::load(&mut ctx, &doc.to_string(), &f.weights, &mut |_, _| {}).unwrap();
    assert_eq!(model.inputs().len(), 1);
    assert_eq!(model.inputs()[0].tensor_name, "x:0");
    let (inputs, want) = reference(&f.dir, "reference.json");
    let got = model.predict(&mut ctx, inputs).unwrap();
    common::compare(&got[0], &want[0].1, common::ATOL, common::RTOL).unwrap();
    model.dispose(&mut ctx);
}

/// A PlaceholderWithDefault input may be fed (the feed wins) or left out (its default runs).
#[test]
fn placeholder_with_default_inputs_are_optional() {
    let f = fixture("mlp");
    let mut doc: Value = serde_json::from_str(&f.json).unwrap();
    let nodes = doc["modelTopology"]["node"].as_array_mut().unwrap();
    nodes.push(serde_json::json!({
        "name": "x_default", "op": "Const",
        "attr": {"dtype": {"type": "DT_FLOAT"}, "value": {"tensor": {"dtype": "DT_FLOAT",
            "tensorShape": {"dim": [{"size": "2"}, {"size": "784"}]}, "floatVal": [0.25]}}}
    }));
    let x = nodes.iter_mut().find(|n| n["name"] == "x").unwrap();
    x["op"] = "PlaceholderWithDefault".into();
    x["input"] = serde_json::json!(["x_default"]);
    let mut ctx = EagerContext::default();
    let mut model =
        GraphModel::load(&mut ctx, &doc.to_string(), &f.weights, &mut |_, _| {}).unwrap();
    assert!(model.input_is_optional(0));
    let (inputs, want) = reference(&f.dir, "reference.json");
    let fed = model.predict(&mut ctx, inputs).unwrap();
    common::compare(&fed[0], &want[0].1, common::ATOL, common::RTOL).unwrap();
    let unfed = model.predict(&mut ctx, vec![]).unwrap();
    let quarter = Tensor::from_slice(&[2, 784], &[0.25f32; 2 * 784]).unwrap();
    let explicit = model
        .predict(&mut ctx, vec![("x".to_string(), quarter)])
        .unwrap();
    common::compare(&unfed[0], &explicit[0], 0.0, 0.0).unwrap();
    model.dispose(&mut ctx);
}
