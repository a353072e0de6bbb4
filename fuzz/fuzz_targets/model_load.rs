//! Model loading and running on mutated real models: a converted model.json (embedded) is edited
//! by the fuzz input (ops, inputs, attrs, shapes, dtypes, signature, weight bytes) and then loaded
//! and run. Loading must fail with a Status or succeed; nothing may panic, and a failed load must
//! leave no resources behind.
#![no_main]

use eager_wasm::model::GraphModel;
use eager_wasm::registry::registry;
use eager_wasm::{EagerContext, Tensor};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

const MODELS: &[(&str, &[u8])] = &[
    (
        include_str!("../../tests/fixtures/models/mlp/model.json"),
        include_bytes!("../../tests/fixtures/models/mlp/group1-shard1of1.bin"),
    ),
    (
        include_str!("../../tests/fixtures/models/cnn/model.json"),
        include_bytes!("../../tests/fixtures/models/cnn/group1-shard1of1.bin"),
    ),
    (
        include_str!("../../tests/fixtures/models/tensor_ops/model.json"),
        include_bytes!("../../tests/fixtures/models/tensor_ops/group1-shard1of1.bin"),
    ),
    (
        include_str!("../../tests/fixtures/models/lstm/model.json"),
        include_bytes!("../../tests/fixtures/models/lstm/group1-shard1of1.bin"),
    ),
    // Control flow: v1 loops and conds (frames, TensorLists) and v2 functions (While/If bodies).
    (
        include_str!("../../tests/fixtures/models/gru/model.json"),
        include_bytes!("../../tests/fixtures/models/gru/group1-shard1of1.bin"),
    ),
    (
        include_str!("../../tests/fixtures/models/nested_loop/model.json"),
        include_bytes!("../../tests/fixtures/models/nested_loop/group1-shard1of1.bin"),
    ),
    (
        include_str!("../../tests/fixtures/models/nested_loop_v2/model.json"),
        include_bytes!("../../tests/fixtures/models/nested_loop_v2/group1-shard1of1.bin"),
    ),
    (
        include_str!("../../tests/fixtures/models/gru_v2/model.json"),
        include_bytes!("../../tests/fixtures/models/gru_v2/group1-shard1of1.bin"),
    ),
];

/// Control-flow node kinds the executor runs itself (not in the op registry).
const FLOW_OPS: &[&str] = &[
    "Enter",
    "Exit",
    "Switch",
    "Merge",
    "NextIteration",
    "LoopCond",
    "StatelessWhile",
    "StatelessIf",
    "PartitionedCall",
];

fn pick<'a>(v: &'a mut Value, b: u8) -> Option<&'a mut Value> {
    let nodes = v["modelTopology"]["node"].as_array_mut()?;
    let n = nodes.len();
    nodes.get_mut(b as usize % n.max(1))
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, edits)) = data.split_first() else {
        return;
    };
    let (json, weights) = MODELS[which as usize % MODELS.len()];
    let mut doc: Value = serde_json::from_str(json).unwrap();
    let node_names: Vec<String> = doc["modelTopology"]["node"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap().to_string())
        .collect();
    let doc_node_name = |i: u8| node_names[i as usize % node_names.len()].clone();
    let mut weights = weights.to_vec();
    let names = registry().names();
    for e in edits.chunks(3) {
        let (kind, x, y) = (e[0], *e.get(1).unwrap_or(&0), *e.get(2).unwrap_or(&0));
        match kind % 10 {
            0 => {
                if let Some(n) = pick(&mut doc, x) {
                    n["op"] = if y % 4 == 0 {
                        json!(FLOW_OPS[y as usize / 4 % FLOW_OPS.len()])
                    } else {
                        json!(names[y as usize % names.len()])
                    }
                }
            }
            1 => {
                if let Some(n) = pick(&mut doc, x) {
                    let target = format!("{}:{}", doc_node_name(y), y % 3);
                    if let Some(inputs) = n["input"].as_array_mut() {
                        if !inputs.is_empty() {
                            let i = y as usize % inputs.len();
                            inputs[i] = json!(target);
                        }
                    }
                }
            }
            2 => {
                if let Some(n) = pick(&mut doc, x) {
                    if let Some(attrs) = n["attr"].as_object_mut() {
                        let keys: Vec<String> = attrs.keys().cloned().collect();
                        if !keys.is_empty() {
                            let k = &keys[y as usize % keys.len()];
                            attrs[k] = match y % 6 {
                                0 => json!({"i": (y as i64 - 128).to_string()}),
                                1 => json!({"list": {"i": ["1", "-1", "0", "9999999999"]}}),
                                2 => json!({"s": "!!notbase64"}),
                                3 => json!({"type": "DT_INT64"}),
                                4 => json!({"shape": {"dim": [{"size": "-7"}]}}),
                                _ => json!({"f": 1e30}),
                            };
                        }
                    }
                }
            }
            3 => {
                let w = &mut doc["weightsManifest"][0]["weights"];
                if let Some(ws) = w.as_array_mut() {
                    if !ws.is_empty() {
                        let i = x as usize % ws.len();
                        match y % 4 {
                            0 => ws[i]["shape"] = json!([y, x]),
                            1 => {
                                ws[i]["dtype"] =
                                    json!(["int32", "bool", "float16", "int64"][x as usize % 4])
                            }
                            2 => {
                                ws[i]["quantization"] =
                                    json!({"dtype": "uint8", "min": -1.0, "scale": 0.01})
                            }
                            _ => ws[i]["shape"] = json!([-1]),
                        }
                    }
                }
            }
            4 => weights.truncate(weights.len().saturating_sub(x as usize * 16)),
            5 => {
                if let Some(n) = pick(&mut doc, x) {
                    n["name"] = json!(doc_node_name(y))
                }
            }
            6 => {
                if let Some(n) = pick(&mut doc, x) {
                    if let Some(i) = n["input"].as_array_mut() {
                        i.push(json!(format!("^{}", doc_node_name(y))))
                    }
                }
            }
            7 => doc["signature"]["inputs"] = json!({}),
            8 => {
                let i = x as usize * 31 % weights.len().max(1);
                if let Some(b) = weights.get_mut(i) {
                    *b = y;
                }
            }
            _ if y % 2 == 0 => {
                if let Some(n) = pick(&mut doc, x) {
                    n["input"] = json!([])
                }
            }
            // A function body's node: its op, or an input pointed elsewhere in the body.
            _ => {
                if let Some(fs) = doc["modelTopology"]["library"]["function"].as_array_mut() {
                    let n = fs.len();
                    if let Some(body) = fs
                        .get_mut(x as usize % n.max(1))
                        .and_then(|f| f["nodeDef"].as_array_mut())
                    {
                        let m = body.len();
                        let other = body
                            .get(y as usize / 2 % m.max(1))
                            .and_then(|b| b["name"].as_str())
                            .map(|s| format!("{s}:output:{}", y % 3));
                        if let Some(node) = body.get_mut(y as usize % m.max(1)) {
                            match (y / 2 % 3, other) {
                                (0, _) => node["op"] = json!(FLOW_OPS[y as usize % FLOW_OPS.len()]),
                                (1, Some(o)) => node["input"] = json!([o]),
                                _ => node["input"] = json!([]),
                            }
                        }
                    }
                }
            }
        }
    }
    // A mutated loop may never end: a small bound keeps each run short.
    let mut ctx = EagerContext::new(eager_wasm::ContextOptions {
        max_loop_iterations: 1000,
        ..Default::default()
    });
    let text = doc.to_string();
    match GraphModel::load(&mut ctx, &text, &weights, &mut |_, _| {}) {
        Err(_) => assert_eq!(
            ctx.memory().num_resources,
            0,
            "failed load leaked resources"
        ),
        Ok(mut model) => {
            let feeds: Vec<(String, Tensor)> = model
                .inputs()
                .iter()
                .map(|i| {
                    let dims: Vec<usize> = i
                        .shape
                        .clone()
                        .unwrap_or_default()
                        .iter()
                        .map(|&d| if d < 0 { 1 } else { (d as usize).min(64) })
                        .collect();
                    let n: usize = dims.iter().product();
                    let t = Tensor::from_slice(&dims, &vec![0.5f32; n])
                        .unwrap_or_else(|_| Tensor::scalar(0.5f32));
                    (i.name.clone(), t)
                })
                .collect();
            let _ = model.predict(&mut ctx, feeds);
            model.dispose(&mut ctx);
            assert_eq!(ctx.memory().num_resources, 0);
        }
    }
});
