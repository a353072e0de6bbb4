//! The loader's fusion pass (src/model/fuse.rs) on a converted model whose converter left
//! bias/activation chains and Pad -> VALID conv pairs unfused (tools/gen_fusion_models.py): the
//! chains run as single fused kernels, and the outputs match TF's and the unfused graph's.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{ATOL, RTOL};
use eager_wasm::model::GraphModel;
use eager_wasm::{EagerContext, Tensor};
use serde_json::Value;

fn fixture() -> (String, Vec<u8>, String) {
    fixture_named("unfused_chains")
}

fn fixture_named(name: &str) -> (String, Vec<u8>, String) {
    let dir = common::fixtures().join("models").join(name);
    let json = std::fs::read_to_string(dir.join("model.json")).unwrap();
    let weights = std::fs::read(dir.join("group1-shard1of1.bin")).unwrap();
    let reference = std::fs::read_to_string(dir.join("reference.json")).unwrap();
    (json, weights, reference)
}

/// Outputs by signature name, and each op's kernel lookups in one predict (one per node run).
type Run = (Vec<(String, Tensor)>, Vec<(String, u64)>);

/// Loads `json` and predicts the reference inputs once, in a fresh context.
fn run(json: &str, weights: &[u8], reference: &str) -> Run {
    let mut ctx = EagerContext::default();
    let mut model = GraphModel::load(&mut ctx, json, weights, &mut |_, _| {}).unwrap();
    let before = ctx.cache_stats();
    let lookups = |s: &eager_wasm::CacheStats, op: &str| {
        s.by_op
            .iter()
            .find(|(o, _)| o == op)
            .map_or(0, |(_, v)| v.hits + v.misses + v.bypassed)
    };
    let (inputs, _) = common::reference(reference);
    let got = model.predict(&mut ctx, inputs).unwrap();
    let after = ctx.cache_stats();
    let ran = after
        .by_op
        .iter()
        .map(|(op, _)| (op.clone(), lookups(&after, op) - lookups(&before, op)))
        .filter(|&(_, n)| n > 0)
        .collect();
    let names = model.outputs().iter().map(|o| o.name.clone());
    let got = names.zip(got).collect();
    model.dispose(&mut ctx);
    assert_eq!(ctx.memory().num_resources, 0);
    (got, ran)
}

fn count(ran: &[(String, u64)], op: &str) -> u64 {
    ran.iter().find(|(o, _)| o == op).map_or(0, |&(_, n)| n)
}

#[test]
fn unfused_chains_run_as_fused_kernels_and_match_tf() {
    let (json, weights, reference) = fixture();
    let mut ctx = EagerContext::default();
    common::check_model(&mut ctx, &json, &weights, &reference, ATOL, RTOL).unwrap();

    let (_, ran) = run(&json, &weights, &reference);
    // Converted: 2 Conv2D, 5 _FusedConv2D, 3 DepthwiseConv2dNative, 1 _FusedMatMul, 5 AddV2,
    // 2 Sigmoid, 2 Tanh, Elu, Relu6, 2 Relu, Pad, Mean, Mul, 11 Identity (37 op nodes). Every
    // chain folds except the one whose conv output a second op (Mul) also reads.
    let want = [
        ("_FusedConv2D", 6),
        ("FusedDepthwiseConv2dNative", 3),
        ("_FusedMatMul", 1),
        ("Relu", 1),
        ("Mul", 1),
        ("Mean", 1),
        ("Identity", 11),
    ];
    for (op, n) in want {
        assert_eq!(count(&ran, op), n, "{op} nodes run: {ran:?}");
    }
    for op in [
        "Conv2D",
        "DepthwiseConv2dNative",
        "AddV2",
        "Sigmoid",
        "Tanh",
        "Elu",
        "Relu6",
        "Pad",
    ] {
        assert_eq!(count(&ran, op), 0, "{op} left unfused: {ran:?}");
    }
    let ops: u64 = ran
        .iter()
        .filter(|(o, _)| o != "ReadVariableOp")
        .map(|(_, n)| n)
        .sum();
    assert_eq!(ops, 24, "op nodes run after fusion: {ran:?}");
}

/// Intermediates requested as outputs stay (nothing folds through them); the final outputs of the
/// unfused graph equal the fused graph's bit for bit.
#[test]
fn requested_intermediates_block_fusion_and_outputs_are_identical() {
    let (json, weights, reference) = fixture();
    let mut doc: Value = serde_json::from_str(&json).unwrap();
    let inner: Vec<String> = doc["modelTopology"]["node"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| {
            let op = n["op"].as_str().unwrap();
            matches!(op, "Conv2D" | "DepthwiseConv2dNative" | "Pad" | "AddV2")
                || (op.contains("Fused") && n["attr"]["fused_ops"]["list"]["s"][1].is_null())
        })
        .map(|n| n["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(inner.len(), 14, "{inner:?}");
    let outputs = doc["signature"]["outputs"].as_object_mut().unwrap();
    let finals = outputs.len();
    for name in &inner {
        outputs.insert(
            format!("inner_{name}"),
            serde_json::json!({"name": format!("{name}:0"), "dtype": "DT_FLOAT"}),
        );
    }
    let unfused_json = doc.to_string();
    let (fused, ran_fused) = run(&json, &weights, &reference);
    let (unfused, ran) = run(&unfused_json, &weights, &reference);
    for op in ["Conv2D", "DepthwiseConv2dNative", "Pad"] {
        assert!(
            count(&ran, op) > 0,
            "{op} folded although requested: {ran:?}"
        );
    }
    assert_eq!(count(&ran, "AddV2"), 5);
    assert!(count(&ran_fused, "AddV2") == 0);
    for (name, f) in &fused {
        let u = &unfused.iter().find(|(n, _)| n == name).unwrap().1;
        assert_eq!(f.dims(), u.dims(), "{name}");
        let differ = f.f32s().unwrap().iter().zip(u.f32s().unwrap());
        let differ: Vec<_> = differ.filter(|(a, b)| a.to_bits() != b.to_bits()).collect();
        assert!(
            differ.is_empty(),
            "{name}: {:?}",
            &differ[..differ.len().min(3)]
        );
    }
    assert_eq!(fused.len(), finals);
    assert_eq!(unfused.len(), finals + inner.len());
}

/// Keras swish (`x * sigmoid(x)`) after a conv + batch norm, a depthwise + batch norm (3x3 and
/// 5x5 stride 2) and a dense layer folds into the contraction as a `_MklSwish` activation; a
/// swish on a conv output a second op reads, on a non-contraction, a sigmoid gate of another
/// tensor and the hard swish stay as they are. Outputs match TF's, and the unfused graph's bit
/// for bit.
#[test]
fn swish_folds_into_contractions_bit_identically() {
    let (json, weights, reference) = fixture_named("swish_chains");
    let mut ctx = EagerContext::default();
    common::check_model(&mut ctx, &json, &weights, &reference, ATOL, RTOL).unwrap();

    let (fused, ran) = run(&json, &weights, &reference);
    // Converted: 7 Sigmoid (4 swishes on contractions, the shared and non-contraction swishes,
    // the gate's Conv2D activation), 9 Mul.
    let want = [
        ("_FusedConv2D", 4),
        ("FusedDepthwiseConv2dNative", 2),
        ("_FusedMatMul", 1),
        ("Sigmoid", 2),
        ("Mul", 7),
        ("AddV2", 2),
        ("Relu6", 1),
    ];
    for (op, n) in want {
        assert_eq!(count(&ran, op), n, "{op} nodes run: {ran:?}");
    }

    // Requesting each Sigmoid's output keeps it (and so the Mul after it) out of the swish
    // fusion (the gate's conv still absorbs its Sigmoid, which keeps the name).
    let mut doc: Value = serde_json::from_str(&json).unwrap();
    let sigmoids: Vec<String> = doc["modelTopology"]["node"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["op"] == "Sigmoid")
        .map(|n| n["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sigmoids.len(), 7, "{sigmoids:?}");
    let outputs = doc["signature"]["outputs"].as_object_mut().unwrap();
    for name in &sigmoids {
        outputs.insert(
            format!("inner_{name}"),
            serde_json::json!({"name": format!("{name}:0"), "dtype": "DT_FLOAT"}),
        );
    }
    let (unfused, ran) = run(&doc.to_string(), &weights, &reference);
    assert_eq!(count(&ran, "Sigmoid"), 6, "{ran:?}");
    assert_eq!(fused.len(), 7);
    for (name, f) in &fused {
        let u = &unfused.iter().find(|(n, _)| n == name).unwrap().1;
        assert_eq!(f.dims(), u.dims(), "{name}");
        let same = f.f32s().unwrap().iter().zip(u.f32s().unwrap());
        assert!(
            same.into_iter().all(|(a, b)| a.to_bits() == b.to_bits()),
            "{name} differs from the unfused graph"
        );
    }
}
