//! Model loading and running on mutated real models: a converted model.json (embedded) is edited
//! by the fuzz input and then loaded and run. Loading must fail with a Status or succeed; nothing
//! may panic, and a failed load must leave no resources behind.
//!
//! Edits that break the model: ops, inputs, attrs, weight shapes, dtypes and bytes, huge declared
//! shapes, unusual dtypes, frame names merged or malformed, functions calling functions (or
//! themselves), manifest paths and groups that are not strings or lists.
//!
//! Edits that keep its meaning: a node, a function or a loop frame renamed everywhere (long,
//! Unicode or non-UTF-8 names), a function called through a chain of wrapper functions (each
//! maybe calling it twice), the graph's computation duplicated under a prefix, shard paths
//! changed or split into groups. After only such edits the model must load and predict exactly
//! what the original predicts: a silently wrong value is a crash too.
#![no_main]

use eager_wasm::model::GraphModel;
use eager_wasm::registry::registry;
use eager_wasm::tensor::Data;
use eager_wasm::{Code, DType, EagerContext, Tensor};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};
use std::sync::OnceLock;

macro_rules! fixture {
    ($name:literal) => {
        (
            include_str!(concat!(
                "../../tests/fixtures/models/",
                $name,
                "/model.json"
            )),
            include_bytes!(concat!(
                "../../tests/fixtures/models/",
                $name,
                "/group1-shard1of1.bin"
            )) as &[u8],
        )
    };
}

const MODELS: &[(&str, &[u8])] = &[
    fixture!("mlp"),
    fixture!("cnn"),
    fixture!("tensor_ops"),
    fixture!("lstm"),
    // Control flow: v1 loops and conds (frames, TensorLists) and v2 functions (While/If bodies).
    fixture!("gru"),
    fixture!("nested_loop"),
    fixture!("nested_loop_v2"),
    fixture!("gru_v2"),
    fixture!("dynamic_loop"),
    fixture!("dynamic_loop_v2"),
    fixture!("cond_v2"),
    fixture!("map_fn"),
    fixture!("map_fn_v2"),
    fixture!("tf1_tensorarray"),
    fixture!("while_tensorarray_v2"),
    fixture!("ragged_cond_v2"),
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

/// Shard paths a model file may name (the native loader gets the bytes concatenated, so none of
/// these may change what loads).
const PATHS: &[&str] = &[
    "../../../../../../etc/passwd",
    "file:///etc/passwd",
    "https://example.com/w.bin",
    "//example.com/w.bin",
    "/etc/passwd",
    "w.bin?x=1#y",
    "",
    "%2e%2e/%2e%2e/secret",
    "..\\..\\secret",
    "\u{0}\u{202e}é.bin",
];

/// Sizes a declared dim may have (strings, as the converter writes int64s).
const DIMS: &[&str] = &[
    "2147483648",
    "4294967297",
    "9223372036854775807",
    "-9223372036854775808",
    "-5",
    "0",
    "65536",
    "1e3",
    "abc",
];

const TF_DTYPES: &[&str] = &[
    "DT_STRING",
    "DT_COMPLEX64",
    "DT_RESOURCE",
    "DT_VARIANT",
    "DT_HALF",
    "DT_BFLOAT16",
    "DT_DOUBLE",
    "DT_UINT16",
    "DT_INT8",
    "DT_FOO",
    "",
];

const WEIGHT_DTYPES: &[&str] = &[
    "string",
    "complex64",
    "float64",
    "uint16",
    "int8",
    "resource",
    "",
    "float32 ",
];

fn pick(v: &mut Value, b: u8) -> Option<&mut Value> {
    let nodes = v["modelTopology"]["node"].as_array_mut()?;
    let n = nodes.len();
    nodes.get_mut(b as usize % n.max(1))
}

fn functions(doc: &mut Value) -> Option<&mut Vec<Value>> {
    // Not `doc[..]`: indexing a missing key would add it (as null).
    doc.pointer_mut("/modelTopology/library/function")?
        .as_array_mut()
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A name of about `len` bytes starting with `stem` (`~` makes it one no converter writes),
/// sometimes with non-ASCII characters.
fn long_name(stem: &str, len: usize, unicode: bool) -> String {
    let fill = if unicode { "é名/" } else { "n" };
    let mut s = format!("{stem}~");
    while s.len() < len {
        s.push_str(fill);
    }
    s
}

const LENGTHS: [usize; 4] = [1, 300, 5_000, 100_000];

/// `input` (`name`, `name:k` or `^name`) with node `old` renamed `new`.
fn rename_input(input: &str, old: &str, new: &str) -> Option<String> {
    let (ctl, rest) = match input.strip_prefix('^') {
        Some(r) => ("^", r),
        None => ("", input),
    };
    let (node, port) = match rest.split_once(':') {
        Some((n, p)) => (n, Some(p)),
        None => (rest, None),
    };
    (node == old).then(|| match port {
        Some(p) => format!("{ctl}{new}:{p}"),
        None => format!("{ctl}{new}"),
    })
}

/// Renames top-level node `old` everywhere it is named: inputs, signature, manifest. False when
/// the rename cannot keep the model's meaning (a function body node of that name reads the same
/// manifest entry).
fn rename_node(doc: &mut Value, old: &str, new: &str) -> bool {
    let in_body = functions(doc).is_some_and(|fs| {
        fs.iter().any(|f| {
            f["nodeDef"]
                .as_array()
                .is_some_and(|b| b.iter().any(|n| n["name"] == old))
        })
    });
    for n in doc["modelTopology"]["node"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        if n["name"] == old {
            n["name"] = json!(new);
        }
        for i in n
            .get_mut("input")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(r) = i.as_str().and_then(|s| rename_input(s, old, new)) {
                *i = json!(r);
            }
        }
    }
    for side in ["inputs", "outputs"] {
        for (_, info) in doc
            .pointer_mut(&format!("/signature/{side}"))
            .and_then(Value::as_object_mut)
            .into_iter()
            .flatten()
        {
            if let Some(r) = info["name"]
                .as_str()
                .and_then(|s| rename_input(s, old, new))
            {
                info["name"] = json!(r);
            }
        }
    }
    for g in doc["weightsManifest"].as_array_mut().into_iter().flatten() {
        for w in g["weights"].as_array_mut().into_iter().flatten() {
            if w["name"] == old {
                w["name"] = json!(new);
            }
        }
    }
    !in_body
}

/// Every `{"func": {"name": old}}` (or a list of them) under `v` now names `new`.
fn rename_func_refs(v: &mut Value, old: &str, new: &str) {
    match v {
        Value::Object(m) => {
            match m.get_mut("func") {
                Some(Value::Array(fs)) => {
                    for r in fs.iter_mut().filter(|r| r["name"] == old) {
                        r["name"] = json!(new);
                    }
                }
                Some(r) if r["name"] == old => r["name"] = json!(new),
                _ => {}
            }
            for (_, x) in m.iter_mut() {
                rename_func_refs(x, old, new);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rename_func_refs(x, old, new)),
        _ => {}
    }
}

/// Adds `wrapper`: a function with `target`'s signature whose body calls `target` (twice when
/// `twice`, the second call's results unused), and makes every caller of `target` call it.
fn wrap_function(doc: &mut Value, target: usize, wrapper: &str, twice: bool) -> bool {
    let Some(fs) = functions(doc) else {
        return false;
    };
    let Some(f) = fs.get(target % fs.len().max(1)) else {
        return false;
    };
    let sig = f["signature"].clone();
    let Some(name) = sig["name"].as_str().map(str::to_string) else {
        return false;
    };
    let args: Vec<Value> = sig["inputArg"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| a["name"].clone())
        .collect();
    let mut ret = Map::new();
    for (k, o) in sig["outputArg"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(o) = o["name"].as_str() {
            ret.insert(o.to_string(), json!(format!("call:output:{k}")));
        }
    }
    let call = |node: &str| {
        json!({"name": node, "op": "PartitionedCall", "input": args,
               "attr": {"f": {"func": {"name": name}}}})
    };
    let mut body = vec![call("call")];
    if twice {
        body.push(call("call_again"));
    }
    let mut sig = sig;
    sig["name"] = json!(wrapper);
    let topo = &mut doc["modelTopology"];
    rename_func_refs(topo, &name, wrapper);
    if let Some(fs) = topo["library"]["function"].as_array_mut() {
        fs.push(json!({"signature": sig, "nodeDef": body, "ret": ret}));
    }
    true
}

/// Frame names (base64) of the graph's Enter nodes, each once.
fn frame_names(doc: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in doc["modelTopology"]["node"]
        .as_array()
        .into_iter()
        .flatten()
    {
        if n["op"] == "Enter" {
            if let Some(s) = n["attr"]["frame_name"]["s"].as_str() {
                if !out.iter().any(|o| o == s) {
                    out.push(s.to_string());
                }
            }
        }
    }
    out
}

fn set_frames(doc: &mut Value, old: &str, new: &str) {
    for n in doc["modelTopology"]["node"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        if n["op"] == "Enter" && n["attr"]["frame_name"]["s"] == old {
            n["attr"]["frame_name"] = json!({ "s": new });
        }
    }
}

/// Copies every node but Placeholders and Consts under `prefix/` (reading the originals of
/// those), so the graph computes everything twice; the signature still names the originals.
/// Frames get new names unless `same_frames`.
fn duplicate_graph(doc: &mut Value, prefix: &str, same_frames: bool) {
    let Some(nodes) = doc["modelTopology"]["node"].as_array() else {
        return;
    };
    let copied: std::collections::HashSet<String> = nodes
        .iter()
        .filter(|n| n["op"] != "Placeholder" && n["op"] != "Const")
        .filter_map(|n| n["name"].as_str().map(str::to_string))
        .collect();
    let frames = frame_names(doc);
    let mut extra = Vec::new();
    for n in nodes {
        let Some(name) = n["name"].as_str() else {
            continue;
        };
        if !copied.contains(name) {
            continue;
        }
        let mut c = n.clone();
        c["name"] = json!(format!("{prefix}/{name}"));
        for i in c
            .get_mut("input")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(s) = i.as_str() {
                let node = s.trim_start_matches('^').split(':').next().unwrap_or("");
                if copied.contains(node) {
                    *i = json!(rename_input(s, node, &format!("{prefix}/{node}")).unwrap());
                }
            }
        }
        if !same_frames && c["op"] == "Enter" {
            if let Some(k) = c["attr"]["frame_name"]["s"]
                .as_str()
                .and_then(|f| frames.iter().position(|g| g == f))
            {
                c["attr"]["frame_name"] =
                    json!({ "s": base64(format!("{prefix}#{k}").as_bytes()) });
            }
        }
        extra.push(c);
    }
    if let Some(nodes) = doc["modelTopology"]["node"].as_array_mut() {
        nodes.extend(extra);
    }
}

/// A huge or malformed declared shape, as a TensorShapeProto.
fn big_shape(y: u8) -> Value {
    let dims: Vec<Value> = (0..1 + y % 3)
        .map(|k| json!({"size": DIMS[(y as usize + k as usize * 5) % DIMS.len()]}))
        .collect();
    json!({ "dim": dims })
}

/// A float's bits, every NaN as one value.
fn float_bits(x: f32) -> u64 {
    if x.is_nan() {
        u64::MAX
    } else {
        x.to_bits() as u64
    }
}

/// The value of a tensor, bit for bit (NaNs as one).
fn fingerprint(t: &Tensor) -> (Vec<usize>, DType, Vec<u64>) {
    let bits: Vec<u64> = match t.data() {
        Data::F32(v) => v.iter().map(|&x| float_bits(x)).collect(),
        Data::I32(v) => v.iter().map(|&x| x as u64).collect(),
        Data::I64(v) => v.iter().map(|&x| x as u64).collect(),
        Data::Bool(v) => v.iter().map(|&x| x as u64).collect(),
        Data::U8(v) => v.iter().map(|&x| x as u64).collect(),
        Data::C64(v) => v
            .iter()
            .flat_map(|c| [c.re, c.im])
            .map(|x| {
                if x.is_nan() {
                    u64::MAX
                } else {
                    x.to_bits() as u64
                }
            })
            .collect(),
        // Each string's bytes, after its length (so element boundaries count).
        Data::Str(v) => v
            .iter()
            .flat_map(|s| std::iter::once(s.len() as u64).chain(s.iter().map(|&b| b as u64)))
            .collect(),
        Data::Resource(_) => vec![],
    };
    (t.dims().to_vec(), t.dtype(), bits)
}

type Outputs = Vec<(Vec<usize>, DType, Vec<u64>)>;

fn feeds(model: &GraphModel) -> Vec<(String, Tensor)> {
    model
        .inputs()
        .iter()
        .map(|i| {
            let dims: Vec<usize> = i
                .shape
                .clone()
                .unwrap_or_default()
                .iter()
                .map(|&d| usize::try_from(d).unwrap_or(1))
                .collect();
            // Ints index or count: 0 in tensors, 2 as a scalar (a loop's trip count).
            let k = if dims.is_empty() { 2 } else { 0 };
            let n = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
            let t = match n.filter(|&n| n <= 1 << 16) {
                None => Tensor::scalar(0.5f32),
                Some(n) => match i.dtype {
                    DType::Int32 => Tensor::from_slice(&dims, &vec![k as i32; n]),
                    DType::Int64 => Tensor::from_slice(&dims, &vec![k as i64; n]),
                    DType::Bool => Tensor::from_slice(&dims, &vec![true; n]),
                    DType::UInt8 => Tensor::from_slice(&dims, &vec![2u8; n]),
                    _ => Tensor::from_slice(&dims, &vec![0.5f32; n]),
                }
                .unwrap_or_else(|_| Tensor::scalar(0.5f32)),
            };
            (i.name.clone(), t)
        })
        .collect()
}

fn context() -> EagerContext {
    // A mutated loop may never end: a small bound keeps each run short.
    EagerContext::new(eager_wasm::ContextOptions {
        max_loop_iterations: 1000,
        ..Default::default()
    })
}

/// What a load or a run gives.
type Run = Result<Result<Outputs, eager_wasm::Status>, eager_wasm::Status>;

/// Loads and runs `json`: the load's error, or what predict gives.
fn run(json: &str, weights: &[u8]) -> Run {
    let mut ctx = context();
    match GraphModel::load(&mut ctx, json, weights, &mut |_, _| {}) {
        Err(e) => {
            assert_eq!(
                ctx.memory().num_resources,
                0,
                "failed load leaked resources"
            );
            Err(e)
        }
        Ok(mut model) => {
            let out = model
                .predict(&mut ctx, feeds(&model))
                .map(|ts| ts.iter().map(fingerprint).collect());
            model.dispose(&mut ctx);
            assert_eq!(ctx.memory().num_resources, 0);
            Ok(out)
        }
    }
}

/// What each original model predicts.
fn reference(which: usize) -> &'static Run {
    static REFS: OnceLock<Vec<Run>> = OnceLock::new();
    &REFS.get_or_init(|| MODELS.iter().map(|(j, w)| run(j, w)).collect())[which]
}

/// The shard paths in the manifest, if every group's are a list of strings.
fn manifest_paths(doc: &Value) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for g in doc["weightsManifest"].as_array()? {
        match g.get("paths") {
            None | Some(Value::Null) => {}
            Some(p) => {
                for s in p.as_array()? {
                    out.push(s.as_str()?.to_string());
                }
            }
        }
    }
    Some(out)
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, edits)) = data.split_first() else {
        return;
    };
    let which = which as usize % MODELS.len();
    let (json, weights) = MODELS[which];
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
    // Whether every edit so far keeps the model's meaning.
    let mut neutral = true;
    // Wrapper functions added (calls nest one deeper each, up to the loader's limit of 64).
    let mut wraps = 0;
    for (step, e) in edits.chunks(3).enumerate() {
        let (kind, x, y) = (e[0], *e.get(1).unwrap_or(&0), *e.get(2).unwrap_or(&0));
        let kind = kind % 19;
        neutral &= kind >= 10 && kind != 15 && kind != 16;
        match kind {
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
                    if let Some(inputs) = n.get_mut("input").and_then(Value::as_array_mut) {
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
                    if let Some(i) = n.get_mut("input").and_then(Value::as_array_mut) {
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
            9 if y % 2 == 0 => {
                if let Some(n) = pick(&mut doc, x) {
                    n["input"] = json!([])
                }
            }
            // A function body's node: its op, or an input pointed elsewhere in the body.
            9 => {
                if let Some(fs) = functions(&mut doc) {
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
            // Shard paths: any string keeps the meaning natively (the bytes come concatenated);
            // anything else must fail cleanly.
            10 => {
                let groups = doc["weightsManifest"].as_array_mut();
                if let Some(g) = groups.and_then(|g| {
                    let n = g.len();
                    g.get_mut(x as usize % n.max(1))
                }) {
                    g["paths"] = match y % 12 {
                        k @ 0..=9 => json!([PATHS[k as usize], PATHS[x as usize % PATHS.len()]]),
                        10 => json!([]),
                        _ => {
                            neutral = false;
                            [
                                json!(7),
                                json!(null),
                                json!([["a"]]),
                                json!({}),
                                json!("a.bin"),
                            ][x as usize % 5]
                                .clone()
                        }
                    }
                }
            }
            // The first group split in two at a weight (order kept), or an empty group added.
            11 => {
                if let Some(g) = doc["weightsManifest"].as_array_mut() {
                    if y % 4 == 0 {
                        g.insert(
                            x as usize % (g.len() + 1),
                            json!({"paths": [], "weights": []}),
                        );
                    } else if let Some(first) = g.first_mut() {
                        let ws = first["weights"].as_array_mut();
                        if let Some(ws) = ws.filter(|w| !w.is_empty()) {
                            let at = x as usize % ws.len();
                            let tail = ws.split_off(at);
                            g.insert(1, json!({"paths": ["tail.bin"], "weights": tail}));
                        }
                    }
                }
            }
            // A node renamed everywhere: long, Unicode, or a name another node had.
            12 => {
                let old = doc_node_name(x);
                let new = long_name(&old, LENGTHS[y as usize % 4], y & 4 != 0);
                let exists = doc["modelTopology"]["node"]
                    .as_array()
                    .is_some_and(|ns| ns.iter().any(|n| n["name"] == old));
                if exists {
                    neutral &= rename_node(&mut doc, &old, &new);
                }
            }
            // A function renamed everywhere.
            13 => {
                if let Some(fs) = functions(&mut doc) {
                    let n = fs.len();
                    if let Some(f) = fs.get_mut(x as usize % n.max(1)) {
                        if let Some(old) = f["signature"]["name"].as_str().map(str::to_string) {
                            let new = long_name(&old, LENGTHS[y as usize % 4], y & 4 != 0);
                            f["signature"]["name"] = json!(new);
                            rename_func_refs(&mut doc["modelTopology"], &old, &new);
                        }
                    }
                }
            }
            // A loop frame renamed on all its Enters: long, or bytes that are not UTF-8.
            14 => {
                let frames = frame_names(&doc);
                if let Some(old) = frames.get(x as usize % frames.len().max(1)) {
                    let new = match y % 3 {
                        0 => {
                            base64(long_name("frame", LENGTHS[y as usize / 3 % 4], true).as_bytes())
                        }
                        1 => base64(&[0x80 | (y >> 2), b'!', x]),
                        _ => base64(format!("frame{step}").as_bytes()),
                    };
                    // Renaming onto a name in use merges two frames.
                    if frames.contains(&new) {
                        neutral = false;
                    }
                    set_frames(&mut doc, old, &new);
                }
            }
            // Frames broken: two merged, a name missing, empty, not base64 or not a string, a
            // v2 While's name taken.
            15 => {
                let frames = frame_names(&doc);
                let enters: Vec<usize> = doc["modelTopology"]["node"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .enumerate()
                    .filter(|(_, n)| n["op"] == "Enter")
                    .map(|(i, _)| i)
                    .collect();
                if let Some(&i) = enters.get(x as usize % enters.len().max(1)) {
                    let n = &mut doc["modelTopology"]["node"][i];
                    let attrs = &mut n["attr"];
                    match y % 7 {
                        0 if !frames.is_empty() => {
                            let other = &frames[y as usize / 7 % frames.len()];
                            attrs["frame_name"] = json!({ "s": other });
                        }
                        0 | 1 => {
                            if let Some(a) = attrs.as_object_mut() {
                                a.remove("frame_name");
                            }
                        }
                        2 => attrs["frame_name"] = json!({"s": ""}),
                        3 => attrs["frame_name"] = json!({"s": "%%%"}),
                        4 => attrs["frame_name"] = json!({"i": "3"}),
                        5 => attrs["is_constant"] = json!({"b": y & 8 != 0}),
                        _ => {
                            attrs["frame_name"] =
                                json!({ "s": base64(doc_node_name(y).as_bytes()) })
                        }
                    }
                }
            }
            // Huge or malformed declared shapes, unusual dtypes.
            16 => match y % 6 {
                0 => {
                    if let Some(n) = pick(&mut doc, x) {
                        n["attr"]["shape"] = json!({ "shape": big_shape(y / 6) });
                    }
                }
                1 => {
                    if let Some(s) = doc["signature"]["inputs"].as_object_mut() {
                        for (k, (_, info)) in s.iter_mut().enumerate() {
                            if k == x as usize % 4 {
                                info["tensorShape"] = big_shape(y / 6);
                                if y & 64 != 0 {
                                    info["dtype"] = json!(TF_DTYPES[x as usize % TF_DTYPES.len()]);
                                }
                            }
                        }
                    }
                }
                2 => {
                    if let Some(ws) = doc["weightsManifest"][0]["weights"].as_array_mut() {
                        let n = ws.len();
                        if let Some(w) = ws.get_mut(x as usize % n.max(1)) {
                            w["shape"] = [
                                json!([65536, 65536, 65536]),
                                json!([2147483648u64]),
                                json!([1u64 << 62, 4]),
                                json!([3, -2]),
                                json!([0, 1u64 << 40]),
                                json!([1.5]),
                                json!("3"),
                            ][y as usize / 6 % 7]
                                .clone();
                        }
                    }
                }
                3 => {
                    if let Some(n) = pick(&mut doc, x) {
                        let key = ["dtype", "T", "DstT", "out_type"][y as usize / 6 % 4];
                        n["attr"][key] =
                            json!({"type": TF_DTYPES[y as usize / 24 % TF_DTYPES.len()]});
                    }
                }
                4 => {
                    if let Some(ws) = doc["weightsManifest"][0]["weights"].as_array_mut() {
                        let n = ws.len();
                        if let Some(w) = ws.get_mut(x as usize % n.max(1)) {
                            w["dtype"] = json!(WEIGHT_DTYPES[y as usize / 6 % WEIGHT_DTYPES.len()]);
                        }
                    }
                }
                _ => {
                    if let Some(n) = pick(&mut doc, x) {
                        n["attr"]["value"] = json!({"tensor": {
                            "dtype": TF_DTYPES[y as usize / 6 % TF_DTYPES.len()],
                            "tensorShape": big_shape(y / 3),
                        }});
                    }
                }
            },
            // A function called through a wrapper with a long name (maybe twice): chains of these
            // nest calls, past the depth limit, and double the inlined graph at each level.
            17 => {
                let wrapper =
                    long_name(&format!("wrap{step}"), LENGTHS[y as usize % 3], y & 4 != 0);
                wraps += wrap_function(&mut doc, x as usize, &wrapper, y & 8 != 0) as u32;
                neutral &= wraps <= 32;
            }
            // The whole computation duplicated: two copies of every loop, with their own frames
            // or sharing them.
            // Doubling is capped (a few MB of model.json): beyond that each run takes seconds
            // in the harness alone, and the loader's own limits are reached by wrapper chains.
            _ if doc.to_string().len() < 4 << 20 => {
                let same_frames = y % 4 == 0;
                if same_frames && !frame_names(&doc).is_empty() {
                    neutral = false;
                }
                duplicate_graph(
                    &mut doc,
                    &long_name(&format!("dup{step}"), LENGTHS[y as usize / 4 % 2], false),
                    same_frames,
                );
            }
            _ => {}
        }
    }
    let text = doc.to_string();
    // The shard list is the manifest's, in order, or an error when some path is not a string.
    match (GraphModel::weight_paths(&text), manifest_paths(&doc)) {
        (Ok(got), Some(want)) => assert_eq!(got, want, "weight_paths"),
        (Ok(got), None) => panic!("weight_paths accepted a malformed manifest: {got:?}"),
        (Err(_), _) => {}
    }
    let got = run(&text, &weights);
    // Limits (expanded graph size, loop iterations, memory) may refuse a bigger model that
    // means the same; nothing else may.
    let limit = |e: &eager_wasm::Status| e.code == Code::ResourceExhausted;
    if neutral {
        match (got, reference(which)) {
            (Err(e), Ok(_)) if !limit(&e) => {
                panic!("a model whose meaning was kept did not load: {e}")
            }
            (Ok(Ok(got)), Ok(Ok(want))) => assert!(got == *want, "predict gives other values"),
            (Ok(Err(e)), Ok(Ok(_))) if !limit(&e) => {
                panic!("a model whose meaning was kept fails: {e}")
            }
            _ => {}
        }
    }
});
