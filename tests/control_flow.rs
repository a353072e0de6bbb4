//! Control-flow models (tests/fixtures/models, from tools/gen_control_flow_models.py): v1 loops and
//! conds run on the dynamic schedule and match TF; runaway loops end cleanly; tensor lists are
//! released with the run that made them.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use eager_wasm::model::GraphModel;
use eager_wasm::{Code, ContextOptions, EagerContext, Tensor};

use common::{ATOL, RTOL};

fn check(name: &str) {
    let (json, weights, reference) = common::model_files(name);
    let mut ctx = EagerContext::default();
    let before = ctx.memory();
    common::check_model(&mut ctx, &json, &weights, &reference, ATOL, RTOL)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let after = ctx.memory();
    assert_eq!(
        after.num_resources, before.num_resources,
        "{name}: resources left"
    );
    assert_eq!(
        after.num_tensors, before.num_tensors,
        "{name}: tensors left"
    );
}

macro_rules! model_tests {
    ($($test:ident: $name:literal,)*) => {$(
        #[test]
        fn $test() {
            check($name);
        }
    )*};
}

model_tests! {
    gru_v1_matches_tf: "gru",
    zoo_gru_text_classifier_v1_matches_tf: "zoo_gru",
    lstm_loop_v1_matches_tf: "lstm_loop",
    cond_v1_true_branch_matches_tf: "cond",
    cond_v1_false_branch_matches_tf: "cond_false",
    nested_loop_v1_matches_tf: "nested_loop",
    while_tensorarray_v1_matches_tf: "while_tensorarray",
    dynamic_loop_v1_matches_tf: "dynamic_loop",
    map_fn_v1_matches_tf: "map_fn",
    map_fn_with_nms_v1_matches_tf: "map_fn_nms",
    ragged_in_cond_v1_matches_tf: "ragged_cond",
}

/// The dynamic loop's trip count follows its input `n`: fewer steps give a shorter output.
#[test]
fn dynamic_loop_length_follows_the_data() {
    let (json, weights, reference) = common::model_files("dynamic_loop");
    let mut ctx = EagerContext::default();
    let mut m = GraphModel::load(&mut ctx, &json, &weights, &mut |_, _| {}).unwrap();
    let (inputs, _) = common::reference(&reference);
    let x = inputs.iter().find(|(k, _)| k == "x").unwrap().1.clone();
    let run = |ctx: &mut EagerContext, n: i32| {
        let out = m
            .predict(
                ctx,
                vec![("x".into(), x.clone()), ("n".into(), Tensor::scalar(n))],
            )
            .unwrap();
        let names: Vec<_> = m.outputs().iter().map(|o| o.name.clone()).collect();
        let get = |k: &str| out[names.iter().position(|n| n == k).unwrap()].clone();
        (
            get("steps").as_slice::<i32>().unwrap()[0],
            get("out").dims().to_vec(),
        )
    };
    assert_eq!(run(&mut ctx, 2), (2, vec![8]));
    assert_eq!(run(&mut ctx, 0).0, 0);
    m.dispose(&mut ctx);
}

/// A loop whose condition is always true: `LoopCond(true)` around an `x + 1` body.
fn infinite_loop_json() -> String {
    let node = |name: &str, op: &str, inputs: &[&str], attr: &str| {
        format!(
            r#"{{"name":"{name}","op":"{op}","input":[{}],"attr":{{{attr}}}}}"#,
            inputs
                .iter()
                .map(|i| format!("\"{i}\""))
                .collect::<Vec<_>>()
                .join(",")
        )
    };
    let t = r#""T":{"type":"DT_FLOAT"}"#;
    let frame =
        r#""T":{"type":"DT_FLOAT"},"frame_name":{"s":"bG9vcA=="},"is_constant":{"b":false}"#;
    let nodes = [
        node(
            "x",
            "Placeholder",
            &[],
            r#""dtype":{"type":"DT_FLOAT"},"shape":{"shape":{}}"#,
        ),
        node(
            "one",
            "Const",
            &[],
            r#""dtype":{"type":"DT_FLOAT"},"value":{"tensor":{"dtype":"DT_FLOAT","tensorShape":{},"floatVal":[1]}}"#,
        ),
        node(
            "yes",
            "Const",
            &["^loop/Merge"],
            r#""dtype":{"type":"DT_BOOL"},"value":{"tensor":{"dtype":"DT_BOOL","tensorShape":{},"boolVal":[true]}}"#,
        ),
        node("loop/Enter", "Enter", &["x"], frame),
        node(
            "loop/one",
            "Enter",
            &["one"],
            r#""T":{"type":"DT_FLOAT"},"frame_name":{"s":"bG9vcA=="},"is_constant":{"b":true}"#,
        ),
        node(
            "loop/Merge",
            "Merge",
            &["loop/Enter", "loop/Next"],
            &format!("{t},\"N\":{{\"i\":\"2\"}}"),
        ),
        node("loop/Cond", "LoopCond", &["yes"], ""),
        node("loop/Switch", "Switch", &["loop/Merge", "loop/Cond"], t),
        node("loop/Identity", "Identity", &["loop/Switch:1"], t),
        node("loop/Add", "AddV2", &["loop/Identity", "loop/one"], t),
        node("loop/Next", "NextIteration", &["loop/Add"], t),
        node("loop/Exit", "Exit", &["loop/Switch"], t),
        node("y", "Identity", &["loop/Exit"], t),
    ];
    format!(
        r#"{{"format":"graph-model","modelTopology":{{"node":[{}]}},"weightsManifest":[{{"paths":[],"weights":[]}}],
        "signature":{{"inputs":{{"x":{{"name":"x:0","dtype":"DT_FLOAT"}}}},"outputs":{{"y":{{"name":"y:0","dtype":"DT_FLOAT"}}}}}}}}"#,
        nodes.join(",")
    )
}

#[test]
fn a_loop_that_never_ends_stops_at_max_loop_iterations() {
    let json = infinite_loop_json();
    let mut ctx = EagerContext::new(ContextOptions {
        max_loop_iterations: 10_000,
        ..Default::default()
    });
    let before = ctx.memory();
    let mut m = GraphModel::load(&mut ctx, &json, &[][..], &mut |_, _| {}).unwrap();
    for _ in 0..2 {
        let err = m
            .predict(&mut ctx, vec![("x".into(), Tensor::scalar(1.0f32))])
            .unwrap_err();
        assert_eq!(err.code, Code::ResourceExhausted, "{err}");
        assert!(err.message.contains("maxLoopIterations"), "{err}");
    }
    // The context still works: the same loop with a bound that lets it... still never ends, but
    // an ordinary op runs fine.
    let out = ctx
        .execute(
            "AddV2",
            &[Tensor::scalar(1.0f32), Tensor::scalar(2.0f32)],
            Vec::<(&str, _)>::new(),
        )
        .unwrap();
    assert_eq!(out[0].as_slice::<f32>().unwrap(), &[3.0]);
    drop(out);
    m.dispose(&mut ctx);
    let after = ctx.memory();
    assert_eq!(after.num_tensors, before.num_tensors);
    assert_eq!(after.num_resources, before.num_resources);
}

#[test]
fn the_default_loop_bound_is_documented() {
    assert_eq!(
        ContextOptions::default().max_loop_iterations,
        eager_wasm::eager::DEFAULT_MAX_LOOP_ITERATIONS
    );
    assert_eq!(eager_wasm::eager::DEFAULT_MAX_LOOP_ITERATIONS, 1_000_000);
}

// Control flow v2 (`--control_flow_v2=True`): functional While/If/calls lowered at load.
model_tests! {
    gru_v2_matches_tf: "gru_v2",
    zoo_gru_text_classifier_v2_matches_tf: "zoo_gru_v2",
    lstm_loop_v2_matches_tf: "lstm_loop_v2",
    cond_v2_true_branch_matches_tf: "cond_v2",
    cond_v2_false_branch_matches_tf: "cond_false_v2",
    ragged_in_cond_v2_matches_tf: "ragged_cond_v2",
    nested_loop_v2_matches_tf: "nested_loop_v2",
    while_tensorarray_v2_matches_tf: "while_tensorarray_v2",
    dynamic_loop_v2_matches_tf: "dynamic_loop_v2",
    map_fn_v2_matches_tf: "map_fn_v2",
    map_fn_with_nms_v2_matches_tf: "map_fn_nms_v2",
}

/// `execute(inputs, outputs)` returns intermediate nodes by name, as TF.js does: here the cond's
/// predicate input (a Sum) and its Merge's value_index (which branch ran), beside the output.
#[test]
fn execute_returns_intermediate_nodes_by_name() {
    let (json, weights, reference) = common::model_files("cond");
    let mut ctx = EagerContext::default();
    let mut m = GraphModel::load(&mut ctx, &json, &weights, &mut |_, _| {}).unwrap();
    let (inputs, want) = common::reference(&reference);
    let x = inputs[0].1.clone();
    let names: Vec<String> = [
        "PartitionedCall/Sum",
        "PartitionedCall/cond/output/_8:1",
        "y",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = m
        .execute(&mut ctx, vec![("x".into(), x.clone())], &names)
        .unwrap();
    let sum: f32 = x.as_slice::<f32>().unwrap().iter().sum();
    let got_sum = out[0].as_slice::<f32>().unwrap()[0];
    assert!((got_sum - sum).abs() < 1e-4, "{got_sum} vs {sum}");
    // value_index 0: the then branch (the fixture's sum is positive).
    assert!(sum > 0.0);
    assert_eq!(out[1].as_slice::<i32>().unwrap(), &[0]);
    common::compare(&out[2], &want[0].1, ATOL, RTOL).unwrap();
    let err = m
        .execute(&mut ctx, vec![("x".into(), x)], &["nope".to_string()])
        .unwrap_err();
    assert_eq!(err.code, Code::NotFound, "{err}");
    m.dispose(&mut ctx);
}

model_tests! {
    tf1_tensorarray_v3_matches_tf: "tf1_tensorarray",
}

/// TensorArrayV3's `tensor_array_name` names nothing shared here: arrays named differently share
/// one cache key (as anonymous variables do), so loads whose arrays have new names each time keep
/// the cache flat with no churn warning, and every run releases its arrays.
#[test]
fn tensor_array_names_do_not_churn_the_cache() {
    let (json, weights, reference) = common::model_files("tf1_tensorarray");
    let (inputs, _) = common::reference(&reference);
    let parts: Vec<&str> = json.split("\"tensor_array_name\": {\"s\": \"\"}").collect();
    assert!(parts.len() >= 3, "the fixture has two TensorArrayV3 nodes");
    // Load `n`'s arrays get names of their own (8 base64 digits).
    let named = |n: usize| {
        let mut out = parts[0].to_string();
        for (k, p) in parts[1..].iter().enumerate() {
            out.push_str(&format!(
                "\"tensor_array_name\": {{\"s\": \"{n:04}{k:04}\"}}{p}"
            ));
        }
        out
    };
    let mut ctx = EagerContext::default();
    let mut entries = Vec::new();
    for n in 0..20 {
        let mut m = GraphModel::load(&mut ctx, &named(n), &weights, &mut |_, _| {}).unwrap();
        let loaded = ctx.memory();
        for _ in 0..3 {
            drop(m.predict(&mut ctx, inputs.clone()).unwrap());
            let mem = ctx.memory();
            assert_eq!(mem.num_tensors, loaded.num_tensors, "tensors left by a run");
            assert_eq!(
                mem.num_resources, loaded.num_resources,
                "arrays left by a run"
            );
        }
        m.dispose(&mut ctx);
        entries.push(ctx.memory().cache_entries);
    }
    assert!(entries.iter().all(|&e| e == entries[0]), "{entries:?}");
    assert!(ctx.cache_stats().warnings.is_empty());
    assert_eq!(ctx.memory().num_resources, 0);
}

/// Broken function libraries fail at load with a clear InvalidArgument and leave nothing behind:
/// a call to a function that is not there, and a function that calls itself.
#[test]
fn broken_function_libraries_fail_cleanly() {
    let (json, weights, _) = common::model_files("nested_loop_v2");
    let mut ctx = EagerContext::default();
    let before = ctx.memory();
    let body = "__inference_while_body_19084_112";
    let missing = json.replacen(
        &format!("\"name\": \"{body}\"}}}}"),
        "\"name\": \"nope\"}}",
        1,
    );
    assert_ne!(missing, json);
    // The outer body's inner While calls the outer body: recursion.
    let inner = "__inference_while_while_body_19102_86\"}}";
    let recursive = json.replacen(inner, &format!("{body}\"}}}}"), 1);
    assert_ne!(recursive, json);
    for (text, want) in [(missing, "does not define"), (recursive, "calls itself")] {
        let err = match GraphModel::load(&mut ctx, &text, &weights, &mut |_, _| {}) {
            Ok(_) => panic!("load should fail ({want})"),
            Err(e) => e,
        };
        assert_eq!(err.code, Code::InvalidArgument, "{err}");
        assert!(err.message.contains(want), "{err}");
    }
    let after = ctx.memory();
    assert_eq!(after.num_resources, before.num_resources);
    assert_eq!(after.num_tensors, before.num_tensors);
}

/// An `If` whose predicate is not a bool reads it as TF does (ToBool): a float scalar is true when
/// non-zero; any non-scalar tensor is true when it has elements. The v2 cond fixtures' bool
/// predicate is cast to float (same branch, so TF's reference outputs still hold), or replaced by
/// the [batch, 4] input itself (non-empty: the then branch, which `cond_v2` takes).
#[test]
fn if_with_a_non_bool_predicate_reads_it_as_tf_does() {
    fn edit(json: &str, pred: &str, tcond: &str) -> String {
        let mut d: serde_json::Value = serde_json::from_str(json).unwrap();
        let nodes = d["modelTopology"]["node"].as_array_mut().unwrap();
        let cond = nodes.iter_mut().find(|n| n["op"] == "StatelessIf").unwrap();
        let bool_pred = cond["input"][0].as_str().unwrap().to_string();
        cond["input"][0] = pred.into();
        cond["attr"]["Tcond"] = serde_json::json!({ "type": tcond });
        nodes.push(serde_json::json!({
            "name": "pred_as_float", "op": "Cast", "input": [bool_pred],
            "attr": {"SrcT": {"type": "DT_BOOL"}, "DstT": {"type": "DT_FLOAT"}}
        }));
        d.to_string()
    }
    let mut ctx = EagerContext::default();
    for (name, pred, tcond) in [
        ("cond_v2", "pred_as_float", "DT_FLOAT"),
        ("cond_false_v2", "pred_as_float", "DT_FLOAT"),
        ("cond_v2", "x", "DT_FLOAT"),
    ] {
        let (json, weights, reference) = common::model_files(name);
        let json = edit(&json, pred, tcond);
        common::check_model(&mut ctx, &json, &weights, &reference, ATOL, RTOL)
            .unwrap_or_else(|e| panic!("{name} with predicate {pred}: {e}"));
    }
    // An empty non-scalar predicate is false: cond_v2's input with no rows takes the else branch
    // (whose output, like the then branch's, has no rows; the run must still succeed).
    let (json, weights, _) = common::model_files("cond_v2");
    let json = edit(&json, "x", "DT_FLOAT");
    let mut m = GraphModel::load(&mut ctx, &json, &weights, &mut |_, _| {}).unwrap();
    let x = Tensor::from_slice(&[0, 4], &[] as &[f32]).unwrap();
    let names = vec!["PartitionedCall/cond/merge_0:1".to_string()];
    let out = m.execute(&mut ctx, vec![("x".into(), x)], &names).unwrap();
    assert_eq!(
        out[0].as_slice::<i32>().unwrap(),
        &[1],
        "value_index 1: else"
    );
    drop(out);
    m.dispose(&mut ctx);
}
