//! TF.js layers-format models (tests/fixtures/layers, from tools/gen_layers_models.py): Keras
//! configs read into layer graphs, weights restored as resource variables, each layer run as TF
//! ops, compared with Keras's outputs.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{check_layers_model, LAYERS_FIXTURES};
use eager_wasm::EagerContext;

fn check(name: &str) {
    let f = LAYERS_FIXTURES
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no fixture {name}"));
    let mut ctx = EagerContext::default();
    check_layers_model(&mut ctx, f).unwrap_or_else(|e| panic!("{name}: {e}"));
}

macro_rules! layers_tests {
    ($($test:ident: $name:literal,)*) => {$(
        #[test]
        fn $test() {
            check($name);
        }
    )*};
}

layers_tests! {
    sequential_mlp_and_dropout_family_match_keras: "seq_mlp",
    activations_match_keras: "activations",
    conv2d_family_matches_keras: "conv2d",
    conv1d_family_matches_keras: "conv1d",
    merge_shared_and_nested_models_match_keras: "merge",
    simple_rnn_lstm_gru_match_keras: "rnn",
    bidirectional_time_distributed_masking_match_keras: "rnn_wrappers",
    embedding_with_mask_matches_keras: "embedding",
    rescaling_and_normalization_match_keras: "preprocess",
    teachable_machine_style_model_matches_keras: "teachable",
    masked_embedding_lstm_text_model_matches_keras: "lstm_text",
    resizing_and_center_crop_match_keras: "image_preprocess",
    masked_steps_in_returned_sequences_match_keras: "masked_sequences",
    conv2d_transpose_matches_keras: "conv_transpose",
    conv3d_pool3d_and_3d_padding_match_keras: "conv3d",
    conv2d_transpose_output_padding_matches_keras: "conv_transpose_padding",
    keras3_h5_sequential_matches_keras: "k3_seq",
    keras3_h5_functional_nested_shared_matches_keras: "k3_functional",
    keras3_h5_rnn_wrappers_matches_keras: "k3_rnn",
    keras3_file_sequential_matches_keras: "k3kk_seq",
    keras3_file_functional_nested_shared_matches_keras: "k3kk_functional",
    keras3_file_rnn_wrappers_matches_keras: "k3kk_rnn",
}

use common::op_stats;
use eager_wasm::model::layers::LayersModel;
use eager_wasm::{Code, ContextOptions, ResourceNaming, Status};
use serde_json::Value;

fn fixture(name: &str) -> &'static common::LayersFixture {
    LAYERS_FIXTURES.iter().find(|f| f.name == name).unwrap()
}

fn load(ctx: &mut EagerContext, f: &common::LayersFixture) -> LayersModel {
    LayersModel::load(ctx, f.json, f.weights, &mut |_, _| {}).unwrap()
}

fn distinct_weight_shapes(json: &str) -> usize {
    let v: Value = serde_json::from_str(json).unwrap();
    let mut shapes: Vec<String> = v["weightsManifest"][0]["weights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| format!("{}{}", w["dtype"], w["shape"]))
        .collect();
    shapes.sort();
    shapes.dedup();
    shapes.len()
}

fn manifest_len(json: &str) -> usize {
    let v: Value = serde_json::from_str(json).unwrap();
    v["weightsManifest"][0]["weights"].as_array().unwrap().len()
}

#[test]
fn weights_become_resource_variables_through_the_context() {
    let f = fixture("rnn_wrappers");
    let n = manifest_len(f.json);
    let mut ctx = EagerContext::default();
    let mut model = load(&mut ctx, f);
    assert_eq!(ctx.memory().num_resources, n);
    let stats = ctx.cache_stats();
    assert_eq!(
        op_stats(&stats, "VarHandleOp").misses + op_stats(&stats, "VarHandleOp").hits,
        n as u64
    );
    let assign = op_stats(&stats, "AssignVariableOp");
    assert_eq!(assign.hits + assign.misses, n as u64);
    assert_eq!(model.weight_bytes(), f.weights.len());
    let (inputs, _) = common::reference(f.reference);
    model.predict(&mut ctx, inputs.clone()).unwrap();
    // A run reads the weights it uses through ReadVariableOp (the bidirectional layers read theirs
    // once per direction).
    let stats = ctx.cache_stats();
    let reads = op_stats(&stats, "ReadVariableOp");
    assert!(reads.hits + reads.misses >= n as u64);
    model.dispose(&mut ctx);
    assert_eq!(ctx.memory().num_resources, 0);
    assert!(model.is_disposed() && model.inputs().is_empty());
    let e = model.predict(&mut ctx, inputs).unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
    model.dispose(&mut ctx); // idempotent
}

#[test]
fn load_predict_dispose_cycles_leave_heap_where_it_was() {
    for name in ["teachable", "rnn_wrappers", "merge"] {
        let f = fixture(name);
        let (inputs, _) = common::reference(f.reference);
        let mut ctx = EagerContext::default();
        let cycle = |ctx: &mut EagerContext| {
            let mut model = load(ctx, f);
            drop(model.predict(ctx, inputs.clone()).unwrap());
            model.dispose(ctx);
            drop(model);
            ctx.memory()
        };
        let first = cycle(&mut ctx);
        for _ in 0..20 {
            let m = cycle(&mut ctx);
            assert_eq!(
                m.heap_bytes, first.heap_bytes,
                "{name}: heap back to the byte"
            );
            assert_eq!(m.cache_entries, first.cache_entries, "{name}");
            assert_eq!(m.num_tensors, first.num_tensors, "{name}");
            assert_eq!(m.num_resources, 0, "{name}");
        }
    }
}

#[test]
fn unique_names_grow_the_cache_by_one_per_weight_per_load_anonymous_stay_flat() {
    let f = fixture("seq_mlp");
    let weights = manifest_len(f.json);
    assert_eq!(weights, 6);
    let (inputs, _) = common::reference(f.reference);
    for (naming, growth) in [
        (ResourceNaming::Unique, weights),
        (ResourceNaming::Anonymous, 0),
    ] {
        let mut ctx = EagerContext::new(ContextOptions {
            resource_naming: naming,
            ..ContextOptions::default()
        });
        let mut history = Vec::with_capacity(10); // no growth inside the measured loop
        for _ in 0..10 {
            let mut model = load(&mut ctx, f);
            drop(model.predict(&mut ctx, inputs.clone()).unwrap());
            model.dispose(&mut ctx);
            let m = ctx.memory();
            history.push((m.cache_entries, m.heap_bytes));
        }
        for w in history.windows(2) {
            assert_eq!(w[1].0, w[0].0 + growth, "{naming:?}: {history:?}");
            if growth == 0 {
                assert_eq!(w[1].1, w[0].1, "{naming:?}: heap flat: {history:?}");
            } else {
                assert!(w[1].1 > w[0].1, "{naming:?}: heap grows with the cache");
            }
        }
        // Anonymous: one kernel per distinct (dtype, shape) (the attrs left in the key); unique:
        // one per variable per load.
        let vh = op_stats(&ctx.cache_stats(), "VarHandleOp").entries;
        let shapes = distinct_weight_shapes(f.json);
        assert_eq!(vh, if growth == 0 { shapes } else { 10 * weights });
    }
}

fn load_err(ctx: &mut EagerContext, json: &str, weights: &[u8]) -> Status {
    match LayersModel::load(ctx, json, weights, &mut |_, _| {}) {
        Ok(_) => panic!("load should fail"),
        Err(e) => e,
    }
}

#[test]
fn bad_layers_configs_fail_at_load_with_typed_errors_and_leak_nothing() {
    let seq = fixture("seq_mlp");
    let fun = fixture("merge");
    let mut ctx = EagerContext::default();
    // Warm up (op registry, caches) so heap comparisons are exact.
    for f in [seq, fun] {
        let mut m = load(&mut ctx, f);
        m.dispose(&mut ctx);
    }
    let seq_doc: Value = serde_json::from_str(seq.json).unwrap();
    let fun_doc: Value = serde_json::from_str(fun.json).unwrap();
    let edit = |doc: &Value, f: &dyn Fn(&mut Value)| {
        let mut d = doc.clone();
        f(&mut d);
        d.to_string()
    };
    let fun_layer = |d: &mut Value, name: &str| -> Value {
        d["modelTopology"]["model_config"]["config"]["layers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["name"] == name)
            .unwrap()
            .clone()
    };
    let set_fun_layer = |d: &mut Value, name: &str, l: Value| {
        let layers = d["modelTopology"]["model_config"]["config"]["layers"]
            .as_array_mut()
            .unwrap();
        let i = layers.iter().position(|x| x["name"] == name).unwrap();
        layers[i] = l;
    };
    let w = seq.weights.to_vec();
    let cases: Vec<(&str, String, Vec<u8>, Code, &str)> = vec![
        (
            "not json",
            "{nope".into(),
            w.clone(),
            Code::InvalidArgument,
            "not a valid",
        ),
        (
            "graph-model format",
            edit(&seq_doc, &|d| d["format"] = "graph-model".into()),
            w.clone(),
            Code::InvalidArgument,
            "loadGraphModel",
        ),
        (
            "unknown layer class",
            edit(&seq_doc, &|d| {
                d["modelTopology"]["model_config"]["config"]["layers"][3]["class_name"] =
                    "FancyLayer".into()
            }),
            w.clone(),
            Code::Unimplemented,
            "FancyLayer",
        ),
        (
            "layer without an op here",
            edit(&seq_doc, &|d| {
                d["modelTopology"]["model_config"]["config"]["layers"][2]["class_name"] =
                    "Conv3DTranspose".into()
            }),
            w.clone(),
            Code::Unimplemented,
            "Conv3DTranspose",
        ),
        (
            "unknown activation",
            edit(&seq_doc, &|d| {
                d["modelTopology"]["model_config"]["config"]["layers"][1]["config"]["activation"] =
                    "sparkle".into()
            }),
            w.clone(),
            Code::InvalidArgument,
            "sparkle",
        ),
        (
            "weight of the wrong shape",
            edit(&seq_doc, &|d| {
                d["modelTopology"]["model_config"]["config"]["layers"][1]["config"]["units"] =
                    17.into()
            }),
            w.clone(),
            Code::InvalidArgument,
            "dense/kernel",
        ),
        (
            "a weight missing",
            edit(&seq_doc, &|d| {
                d["weightsManifest"][0]["weights"]
                    .as_array_mut()
                    .unwrap()
                    .pop();
            }),
            w[..w.len() - 16].to_vec(),
            Code::InvalidArgument,
            "needs weight 'bias'",
        ),
        (
            "a weight too many",
            edit(&seq_doc, &|d| {
                d["weightsManifest"][0]["weights"]
                    .as_array_mut()
                    .unwrap()
                    .push(serde_json::json!({"name": "ghost/kernel", "shape": [1], "dtype": "float32"}));
            }),
            [w.as_slice(), &[0u8; 4]].concat(),
            Code::InvalidArgument,
            "ghost/kernel",
        ),
        (
            "Keras 3 object-path names that miss a layer",
            edit(&seq_doc, &|d| {
                for (i, w) in d["weightsManifest"][0]["weights"]
                    .as_array_mut()
                    .unwrap()
                    .iter_mut()
                    .enumerate()
                {
                    w["name"] = format!("layers/dense/vars/{i}").into();
                }
            }),
            w.clone(),
            Code::InvalidArgument,
            "under 'layers/dense_1'",
        ),
        (
            "short weights",
            seq.json.to_string(),
            w[..w.len() - 4].to_vec(),
            Code::InvalidArgument,
            "bytes",
        ),
        (
            "inbound node of an unknown layer",
            edit(&fun_doc, &|d| {
                let mut l = fun_layer(d, "add");
                l["inbound_nodes"][0][0][0] = "nowhere".into();
                set_fun_layer(d, "add", l);
            }),
            fun.weights.to_vec(),
            Code::InvalidArgument,
            "nowhere",
        ),
        (
            "inbound node index that does not exist",
            edit(&fun_doc, &|d| {
                let mut l = fun_layer(d, "add");
                l["inbound_nodes"][0][0][1] = 7.into();
                set_fun_layer(d, "add", l);
            }),
            fun.weights.to_vec(),
            Code::InvalidArgument,
            "node 7 of layer 'shared'",
        ),
        (
            "a cycle",
            edit(&fun_doc, &|d| {
                // dense_2 reads c; make it read y3, which reads dense_2.
                let mut l = fun_layer(d, "dense_2");
                l["inbound_nodes"][0][0][0] = "y3".into();
                set_fun_layer(d, "dense_2", l);
            }),
            fun.weights.to_vec(),
            Code::InvalidArgument,
            "cycle",
        ),
        (
            "output of an unknown layer",
            edit(&fun_doc, &|d| {
                d["modelTopology"]["model_config"]["config"]["output_layers"][0][0] = "ghost".into()
            }),
            fun.weights.to_vec(),
            Code::InvalidArgument,
            "ghost",
        ),
        (
            "duplicate layer names",
            edit(&fun_doc, &|d| {
                let mut l = fun_layer(d, "subtract");
                l["name"] = "add".into();
                set_fun_layer(d, "subtract", l);
            }),
            fun.weights.to_vec(),
            Code::InvalidArgument,
            "two layers",
        ),
        (
            "a config field of the wrong type",
            edit(&seq_doc, &|d| {
                d["modelTopology"]["model_config"]["config"]["layers"][1]["config"]["units"] =
                    "many".into()
            }),
            w.clone(),
            Code::InvalidArgument,
            "units",
        ),
    ];
    for (what, json, weights, code, needle) in cases {
        let before = ctx.memory().heap_bytes;
        let e = load_err(&mut ctx, &json, &weights);
        assert_eq!(e.code, code, "{what}: {e}");
        assert!(e.message.contains(needle), "{what}: '{needle}' not in: {e}");
        drop(e);
        let m = ctx.memory();
        assert_eq!(m.num_resources, 0, "{what}");
        assert_eq!(m.heap_bytes, before, "{what}: heap back where it was");
    }
    // The context still works.
    let mut m = load(&mut ctx, fun);
    m.dispose(&mut ctx);
}

#[test]
fn bad_feeds_fail_with_typed_errors_and_leak_nothing() {
    let f = fixture("conv2d");
    let mut ctx = EagerContext::default();
    let mut model = load(&mut ctx, f);
    let (inputs, _) = common::reference(f.reference);
    drop(model.predict(&mut ctx, inputs.clone()).unwrap());
    let feeds = |what: &str| -> Vec<(String, eager_wasm::Tensor)> {
        let t = |dims: &[usize]| {
            let n = dims.iter().product();
            eager_wasm::Tensor::from_slice(dims, &vec![0.5f32; n]).unwrap()
        };
        match what {
            "unknown name" => vec![("nope".to_string(), inputs[0].1.clone())],
            "no feeds" => vec![],
            "wrong spatial size" => vec![("image".to_string(), t(&[2, 5, 5, 3]))],
            _ => vec![("image".to_string(), t(&[2, 3]))],
        }
    };
    for what in [
        "unknown name",
        "no feeds",
        "wrong spatial size",
        "wrong rank",
    ] {
        let before = ctx.memory();
        let e = model.predict(&mut ctx, feeds(what)).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument, "{what}: {e}");
        drop(e);
        let m = ctx.memory();
        assert_eq!(m.heap_bytes, before.heap_bytes, "{what}: heap back");
        assert_eq!(m.num_tensors, before.num_tensors, "{what}");
    }
    model.dispose(&mut ctx);
}

#[test]
fn model_inputs_and_outputs_describe_the_config() {
    let mut ctx = EagerContext::default();
    let mut m = load(&mut ctx, fixture("merge"));
    let names: Vec<_> = m.inputs().iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(m.inputs()[2].shape, Some(vec![-1, 4, 3]));
    let outs: Vec<_> = m.outputs().iter().map(|i| i.name.as_str()).collect();
    assert_eq!(outs, ["y1", "y2", "y3"]);
    assert_eq!(m.outputs()[2].shape, Some(vec![-1, 8, 3]));
    m.dispose(&mut ctx);
    // Shapes through unknown dims: an RNN input of unknown length.
    let f = fixture("rnn");
    let mut doc: Value = serde_json::from_str(f.json).unwrap();
    doc["modelTopology"]["model_config"]["config"]["layers"][0]["config"]["batch_input_shape"] =
        serde_json::json!([null, null, 5]);
    let mut m = LayersModel::load(&mut ctx, &doc.to_string(), f.weights, &mut |_, _| {}).unwrap();
    assert_eq!(m.inputs()[0].shape, Some(vec![-1, -1, 5]));
    let shapes: Vec<_> = m.outputs().iter().map(|o| o.shape.clone()).collect();
    assert_eq!(
        shapes,
        [Some(vec![-1, 4]), Some(vec![-1, -1, 3]), Some(vec![-1, 11])]
    );
    m.dispose(&mut ctx);
    // Huge config dims: shapes saturate or stay unknown, never overflow (a panic in wasm).
    let cf = fixture("conv2d");
    let mut big: Value = serde_json::from_str(cf.json).unwrap();
    for dims in [
        serde_json::json!([null, 1u64 << 40, 1u64 << 40, 3]),
        serde_json::json!([null, 999_999_999_999_999u64, 7, 3]),
    ] {
        big["modelTopology"]["model_config"]["config"]["layers"][0]["config"]
            ["batch_input_shape"] = dims;
        let mut m =
            LayersModel::load(&mut ctx, &big.to_string(), cf.weights, &mut |_, _| {}).unwrap();
        m.dispose(&mut ctx);
    }
    // No input shape at all: outputs unknown, not wrong.
    doc["modelTopology"]["model_config"]["config"]["layers"][0]["config"]
        .as_object_mut()
        .unwrap()
        .remove("batch_input_shape");
    let mut m = LayersModel::load(&mut ctx, &doc.to_string(), f.weights, &mut |_, _| {}).unwrap();
    assert!(m.outputs().iter().all(|o| o.shape.is_none()));
    m.dispose(&mut ctx);
    let mut m = load(&mut ctx, fixture("embedding"));
    assert_eq!(m.inputs()[0].dtype, eager_wasm::DType::Int32);
    m.dispose(&mut ctx);
}

/// Config mutations (numbers made huge, negative, zero or strings; keys dropped; class names and
/// inbound references swapped) never panic: a load either fails with a Status or gives a model
/// whose predict returns a Status or outputs; nothing is left behind either way.
#[test]
fn mutated_configs_never_panic_and_leak_nothing() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rand = move |n: usize| -> usize {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    fn leaves(v: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    path.push(k.clone());
                    out.push(path.clone());
                    leaves(x, path, out);
                    path.pop();
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    path.push(i.to_string());
                    out.push(path.clone());
                    leaves(x, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    // None when an earlier mutation of the same document removed the path.
    fn at<'v>(v: &'v mut Value, path: &[String]) -> Option<&'v mut Value> {
        path.iter().try_fold(v, |v, k| match v {
            Value::Array(a) => a.get_mut(k.parse::<usize>().ok()?),
            Value::Object(m) => m.get_mut(k.as_str()),
            _ => None,
        })
    }
    let mut ctx = EagerContext::default();
    let mut tried = (0, 0);
    for name in [
        "merge",
        "rnn_wrappers",
        "conv1d",
        "teachable",
        "conv3d",
        "k3kk_rnn",
        "k3_functional",
    ] {
        let f = fixture(name);
        let (inputs, _) = common::reference(f.reference);
        let doc: Value = serde_json::from_str(f.json).unwrap();
        let mut paths = Vec::new();
        leaves(
            &doc["modelTopology"],
            &mut vec!["modelTopology".into()],
            &mut paths,
        );
        let replacements = [
            Value::from(0),
            Value::from(-3),
            Value::from(1u64 << 40),
            Value::from(2.5),
            Value::from("valid"),
            Value::Null,
            serde_json::json!([]),
            serde_json::json!([[1, 2], [3]]),
            Value::from("LSTM"),
            Value::from("Dense"),
        ];
        for _ in 0..150 {
            let mut d = doc.clone();
            for _ in 0..1 + rand(3) {
                let p = &paths[rand(paths.len())];
                let r = replacements[rand(replacements.len())].clone();
                if rand(4) == 0 {
                    let (last, parent) = p.split_last().unwrap();
                    if let Some(Value::Object(m)) = at(&mut d, parent) {
                        m.remove(last);
                    }
                } else if let Some(v) = at(&mut d, p) {
                    *v = r;
                }
            }
            let json = d.to_string();
            match LayersModel::load(&mut ctx, &json, f.weights, &mut |_, _| {}) {
                Err(_) => tried.0 += 1,
                Ok(mut m) => {
                    tried.1 += 1;
                    let _ = m.predict(&mut ctx, inputs.clone());
                    m.dispose(&mut ctx);
                }
            }
            assert_eq!(ctx.memory().num_resources, 0, "{name}: {json}");
        }
    }
    // Both paths were exercised.
    assert!(tried.0 > 50 && tried.1 > 20, "{tried:?}");
}

#[test]
fn profile_times_every_layer_call_and_matches_predict() {
    for name in ["seq_mlp", "teachable", "merge", "rnn_wrappers"] {
        let f = fixture(name);
        let mut ctx = EagerContext::default();
        let model = load(&mut ctx, f);
        let (inputs, _) = common::reference(f.reference);
        let start = std::time::Instant::now();
        let clock = || start.elapsed().as_secs_f64() * 1e3;
        let first = model.profile(&mut ctx, inputs.clone(), &clock).unwrap();
        let second = model.profile(&mut ctx, inputs.clone(), &clock).unwrap();
        let config: Value = serde_json::from_str(f.json).unwrap();
        let text = config["modelTopology"].to_string();
        assert!(!first.nodes.is_empty(), "{name}");
        for n in &first.nodes {
            // Every step is a layer of the config, with a kind and a time.
            assert!(
                text.contains(&format!("\"{}\"", n.name)),
                "{name}: {} is no layer",
                n.name
            );
            assert!(n.op != "InputLayer", "{name}: an input layer does not run");
            assert!(n.ms >= 0.0 && n.ms.is_finite());
        }
        // Fresh context: kernels are made on first use; the second run finds them all cached.
        assert!(
            first.nodes.iter().any(|n| n.cache == Some("miss")),
            "{name}"
        );
        assert!(
            second.nodes.iter().all(|n| n.cache != Some("miss")),
            "{name}"
        );
        assert_eq!(
            first.nodes.iter().map(|n| &n.name).collect::<Vec<_>>(),
            second.nodes.iter().map(|n| &n.name).collect::<Vec<_>>()
        );
        // The last step made the last output, as predict makes it.
        let got = model.predict(&mut ctx, inputs.clone()).unwrap();
        let last = first.nodes.last().unwrap();
        assert!(
            got.iter()
                .any(|t| last.outputs.iter().any(|o| o.shape == t.dims())),
            "{name}: the last layer's output shape is no output's"
        );
        drop(got);
        // A profile leaves heap and tensors where they were.
        let before = ctx.memory();
        drop(model.profile(&mut ctx, inputs.clone(), &clock).unwrap());
        let after = ctx.memory();
        assert_eq!(after.heap_bytes, before.heap_bytes, "{name}");
        assert_eq!(after.num_tensors, before.num_tensors, "{name}");
    }
}
