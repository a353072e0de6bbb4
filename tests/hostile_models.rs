//! Hostile graph models: loads and runs that a crafted model.json could make grow without bound
//! end early with a typed error, and loads stay linear in the model's size.
#![cfg(not(target_arch = "wasm32"))]

use eager_wasm::model::GraphModel;
use eager_wasm::{Code, ContextOptions, EagerContext, Tensor};

/// A node of model.json; `attr` is the attr object's inner text.
fn node(name: &str, op: &str, inputs: &[&str], attr: &str) -> String {
    let inputs: Vec<String> = inputs.iter().map(|i| format!("\"{i}\"")).collect();
    format!(
        r#"{{"name":"{name}","op":"{op}","input":[{}],"attr":{{{attr}}}}}"#,
        inputs.join(",")
    )
}

const T: &str = r#""T":{"type":"DT_FLOAT"}"#;

fn enter_attrs(frame_b64: &str, constant: bool) -> String {
    format!(r#"{T},"frame_name":{{"s":"{frame_b64}"}},"is_constant":{{"b":{constant}}}"#)
}

fn model(nodes: &[String], inputs: &[&str], outputs: &[&str]) -> String {
    let sig = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!(r#""{n}":{{"name":"{n}:0","dtype":"DT_FLOAT"}}"#))
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        r#"{{"format":"graph-model","modelTopology":{{"node":[{}]}},"weightsManifest":[{{"paths":[],"weights":[]}}],"signature":{{"inputs":{{{}}},"outputs":{{{}}}}}}}"#,
        nodes.join(","),
        sig(inputs),
        sig(outputs)
    )
}

fn load(ctx: &mut EagerContext, json: &str) -> eager_wasm::Result<GraphModel> {
    GraphModel::load(ctx, json, &[][..], &mut |_, _| {})
}

/// A loop counting `i` from 0 while `i < n` (frame `bG9vcA==`, "loop"); `extra` adds nodes in the
/// body, which may read `loop/Identity` (this iteration's `i`).
fn counting_loop(extra: Vec<String>) -> Vec<String> {
    let frame = "bG9vcA==";
    let mut nodes = vec![
        node(
            "n",
            "Placeholder",
            &[],
            r#""dtype":{"type":"DT_FLOAT"},"shape":{"shape":{}}"#,
        ),
        const_f32("zero", 0.0, &[]),
        const_f32("one", 1.0, &[]),
        node("loop/Enter", "Enter", &["zero"], &enter_attrs(frame, false)),
        node("loop/n", "Enter", &["n"], &enter_attrs(frame, true)),
        node("loop/one", "Enter", &["one"], &enter_attrs(frame, true)),
        node(
            "loop/Merge",
            "Merge",
            &["loop/Enter", "loop/Next"],
            &format!(r#"{T},"N":{{"i":"2"}}"#),
        ),
        node("loop/Less", "Less", &["loop/Merge", "loop/n"], T),
        node("loop/Cond", "LoopCond", &["loop/Less"], ""),
        node("loop/Switch", "Switch", &["loop/Merge", "loop/Cond"], T),
        node("loop/Identity", "Identity", &["loop/Switch:1"], T),
        node("loop/Add", "AddV2", &["loop/Identity", "loop/one"], T),
        node("loop/Next", "NextIteration", &["loop/Add"], T),
        node("loop/Exit", "Exit", &["loop/Switch"], T),
        node("y", "Identity", &["loop/Exit"], T),
    ];
    nodes.extend(extra);
    nodes
}

fn heap_growth(f: impl FnOnce()) -> usize {
    let before = eager_wasm::memory::heap_bytes();
    eager_wasm::memory::reset_heap_peak();
    f();
    eager_wasm::memory::heap_peak_bytes().saturating_sub(before)
}

fn const_f32(name: &str, v: f32, inputs: &[&str]) -> String {
    node(
        name,
        "Const",
        inputs,
        &format!(
            r#""dtype":{{"type":"DT_FLOAT"}},"value":{{"tensor":{{"dtype":"DT_FLOAT","tensorShape":{{}},"floatVal":[{v}]}}}}"#
        ),
    )
}

fn b64(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(s)
}

/// `x` through a chain of `n` nodes made by `link(k, previous)` to the output `y`.
fn chain(n: usize, link: impl Fn(usize, &str) -> String) -> String {
    let mut nodes = vec![node(
        "x",
        "Placeholder",
        &[],
        r#""dtype":{"type":"DT_FLOAT"},"shape":{"shape":{}}"#,
    )];
    let mut prev = "x".to_string();
    for k in 0..n {
        nodes.push(link(k, &prev));
        prev = format!("n{k}");
    }
    nodes.push(node("y", "Identity", &[&prev], T));
    model(&nodes, &["x"], &["y"])
}

/// Loads take time linear in the model: 100k distinct frame names, or 100k distinct ops no kernel
/// implements, load (or fail) in seconds, not the minutes a search per node took.
#[test]
fn many_frames_and_many_unsupported_ops_load_in_linear_time() {
    let frames = chain(100_000, |k, prev| {
        node(
            &format!("n{k}"),
            "Enter",
            &[prev],
            &enter_attrs(&b64(&format!("frame{k}")), false),
        )
    });
    let ops = chain(100_000, |k, prev| {
        node(&format!("n{k}"), &format!("MadeUp{k}"), &[prev], T)
    });
    let mut ctx = EagerContext::default();
    let start = std::time::Instant::now();
    let mut m = load(&mut ctx, &frames).unwrap();
    m.dispose(&mut ctx);
    let err = load(&mut ctx, &ops).err().expect("made-up ops");
    let took = start.elapsed();
    assert_eq!(err.code, Code::Unimplemented, "{err}");
    assert!(
        err.message.contains("100000 ops"),
        "{}",
        &err.message[..200]
    );
    // The message names a few, not all 100k.
    assert!(
        err.message.contains("and 99980 more"),
        "{}",
        err.message.len()
    );
    assert!(err.message.len() < 2000, "{}", err.message.len());
    assert!(took.as_secs_f64() < 10.0, "took {took:?}");
}

/// An Enter whose frame_name is not a string says so (not that it has none).
#[test]
fn a_non_string_frame_name_is_named_as_such() {
    let json = chain(1, |k, prev| {
        node(
            &format!("n{k}"),
            "Enter",
            &[prev],
            &format!(r#"{T},"frame_name":{{"i":"7"}}"#),
        )
    });
    let mut ctx = EagerContext::default();
    let err = load(&mut ctx, &json).err().expect("int frame_name");
    assert_eq!(err.code, Code::InvalidArgument, "{err}");
    assert!(
        err.message.contains("frame_name must be a string, got int"),
        "{err}"
    );
}

/// Explicit paddings past i32 (2^31 ..= 2^32-1 used to wrap to a small output size on wasm32;
/// natively they asked for a huge tensor) are InvalidArgument naming the attr, for Conv2D,
/// DepthwiseConv2dNative and MaxPool, through `execute` and in a model.json.
#[test]
fn huge_explicit_paddings_are_invalid_arguments() {
    use eager_wasm::{AttrValue, Tensor};
    let mut ctx = EagerContext::default();
    let x = Tensor::from_slice(&[1, 6, 6, 1], &[0f32; 36]).unwrap();
    let f = Tensor::from_slice(&[1, 1, 1, 1], &[1f32]).unwrap();
    let ones = || AttrValue::ListInt(vec![1, 1, 1, 1]);
    for pad in [
        1i64 << 31,
        (1 << 32) - 2,
        (1 << 32) - 1,
        1 << 32,
        (1 << 32) + 1,
    ] {
        let attrs = |extra: Option<(&'static str, AttrValue)>| {
            let mut a = vec![
                ("strides", ones()),
                ("padding", AttrValue::Str(b"EXPLICIT".to_vec())),
                (
                    "explicit_paddings",
                    AttrValue::ListInt(vec![0, 0, 0, pad, pad, 0, 0, 0]),
                ),
            ];
            a.extend(extra);
            a
        };
        for (op, inputs, extra) in [
            ("Conv2D", vec![x.clone(), f.clone()], None),
            ("DepthwiseConv2dNative", vec![x.clone(), f.clone()], None),
            ("MaxPool", vec![x.clone()], Some(("ksize", ones()))),
        ] {
            let err = ctx.execute(op, &inputs, attrs(extra)).unwrap_err();
            assert_eq!(err.code, Code::InvalidArgument, "{op} {pad}: {err}");
            assert!(
                err.message
                    .contains("explicit_paddings must be at most 2147483647"),
                "{op} {pad}: {err}"
            );
        }
    }
    // The largest accepted padding works (VALID-sized window over a zero-padded input).
    let out = ctx
        .execute(
            "MaxPool",
            std::slice::from_ref(&x),
            vec![
                ("strides", AttrValue::ListInt(vec![1, 1 << 30, 1, 1])),
                ("ksize", ones()),
                ("padding", AttrValue::Str(b"EXPLICIT".to_vec())),
                (
                    "explicit_paddings",
                    AttrValue::ListInt(vec![0, 0, 0, i32::MAX as i64, 0, 0, 0, 0]),
                ),
            ],
        )
        .unwrap();
    assert_eq!(out[0].dims(), &[1, 3, 6, 1]);
    // The same attr read from a model.json.
    let json = chain(1, |k, prev| {
        node(
            &format!("n{k}"),
            "MaxPool",
            &[prev],
            &format!(
                r#"{T},"ksize":{{"list":{{"i":["1","1","1","1"]}}}},"strides":{{"list":{{"i":["1","1","1","1"]}}}},"padding":{{"s":"RVhQTElDSVQ="}},"explicit_paddings":{{"list":{{"i":["0","0","0","4294967294","0","0","0","0"]}}}}"#
            ),
        )
    });
    let json = json.replace(
        r#""shape":{"shape":{}}"#,
        r#""shape":{"shape":{"dim":[{"size":"1"},{"size":"6"},{"size":"6"},{"size":"1"}]}}"#,
    );
    let m = load(&mut ctx, &json).unwrap();
    let err = m.predict(&mut ctx, vec![("x".into(), x)]).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument, "{err}");
    assert!(err.message.contains("explicit_paddings"), "{err}");
}

/// A kernel's message that names its op already is not prefixed with the op name again.
#[test]
fn kernel_errors_name_the_op_once() {
    use eager_wasm::Tensor;
    let mut ctx = EagerContext::default();
    let x = Tensor::from_slice(&[6, 6, 1], &[0f32; 36]).unwrap();
    let f = Tensor::from_slice(&[1, 1, 1, 1], &[1f32]).unwrap();
    let attrs = || {
        vec![
            ("strides", eager_wasm::AttrValue::ListInt(vec![1, 1, 1, 1])),
            ("padding", eager_wasm::AttrValue::Str(b"VALID".to_vec())),
        ]
    };
    for op in ["Conv2D", "DepthwiseConv2dNative"] {
        let err = ctx
            .execute(op, &[x.clone(), f.clone()], attrs())
            .unwrap_err();
        assert_eq!(
            err.message,
            format!("{op}: input must be 4-dimensional, got shape [6, 6, 1]")
        );
    }
}

/// A Sequential layers model over a [null, 4, 4, 1] input with one more layer `class` (config
/// `config`, its name added), no weights.
fn sequential(class: &str, config: &str) -> String {
    format!(
        r#"{{"format":"layers-model","modelTopology":{{"model_config":{{"class_name":"Sequential","config":{{"name":"s","layers":[{{"class_name":"InputLayer","config":{{"batch_input_shape":[null,4,4,1],"dtype":"float32","name":"x"}}}},{{"class_name":"{class}","config":{{"name":"probe",{config}}}}}]}}}}}},"weightsManifest":[{{"paths":[],"weights":[]}}]}}"#
    )
}

fn layers_err(json: &str, weights: &[u8]) -> eager_wasm::Status {
    let mut ctx = EagerContext::default();
    match eager_wasm::model::layers::LayersModel::load(&mut ctx, json, weights, &mut |_, _| {}) {
        Ok(m) => panic!("load should fail: outputs {:?}", m.outputs()),
        Err(e) => e,
    }
}

/// A Reshape target dim that does not fit int32 is rejected at load naming the layer (it wrapped:
/// outputs said [-1, 4294967300] while predict returned [1, 4]).
#[test]
fn a_reshape_dim_past_int32_is_rejected() {
    for t in ["[4294967300]", "[2147483648]", "[-1, 4294967297]"] {
        let e = layers_err(
            &sequential("Reshape", &format!(r#""target_shape":{t}"#)),
            &[],
        );
        assert_eq!(e.code, Code::InvalidArgument, "{e}");
        assert!(e.message.contains("layer 'probe'"), "{e}");
        assert!(e.message.contains("exceeds the limit of 2147483647"), "{e}");
    }
    // A dim that fits still loads and runs.
    let mut ctx = EagerContext::default();
    let json = sequential("Reshape", r#""target_shape":[16]"#);
    let mut m =
        eager_wasm::model::layers::LayersModel::load(&mut ctx, &json, &[][..], &mut |_, _| {})
            .unwrap();
    let x = eager_wasm::Tensor::from_slice(&[1, 4, 4, 1], &[0f32; 16]).unwrap();
    let out = m.predict(&mut ctx, vec![("x".into(), x)]).unwrap();
    assert_eq!(out[0].dims(), &[1, 16]);
    m.dispose(&mut ctx);
}

/// Config values out of range say which way: too large is "exceeds the limit", not "must be
/// positive" / "non-negative"; a bad merge_mode is printed as written.
#[test]
fn layer_config_errors_say_what_is_wrong() {
    let cases = [
        (
            sequential("MaxPooling2D", r#""pool_size":[1000000,1000000]"#),
            "pool_size [1000000, 1000000] exceeds the limit of 65536",
        ),
        (
            sequential("MaxPooling2D", r#""pool_size":[0,2]"#),
            "pool_size must be positive, got [0, 2]",
        ),
        (
            sequential("ZeroPadding2D", r#""padding":1000000000"#),
            "'padding' value 1000000000 exceeds the limit of 1048576",
        ),
        (
            sequential("ZeroPadding2D", r#""padding":-1"#),
            "'padding' values must be non-negative",
        ),
        (
            sequential("Dense", r#""units":100000000"#),
            "'units' 100000000 exceeds the limit of 16777216",
        ),
    ];
    for (json, want) in cases {
        let e = layers_err(&json, &[]);
        assert_eq!(e.code, Code::InvalidArgument, "{e}");
        assert!(e.message.contains(want), "'{want}' not in: {e}");
    }
    // A Bidirectional of the rnn_wrappers fixture with a bad merge_mode.
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layers/rnn_wrappers");
    let json = std::fs::read_to_string(dir.join("model.json")).unwrap();
    let weights = std::fs::read(dir.join("group1-shard1of1.bin")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let bi = doc["modelTopology"]["model_config"]["config"]["layers"]
        .as_array()
        .unwrap()
        .iter()
        .position(|l| l["class_name"] == "Bidirectional")
        .unwrap();
    for (mode, want) in [
        (serde_json::json!("weird"), "unknown merge_mode 'weird'"),
        (
            serde_json::json!(3),
            "merge_mode must be a string, got a number",
        ),
    ] {
        doc["modelTopology"]["model_config"]["config"]["layers"][bi]["config"]["merge_mode"] = mode;
        let e = layers_err(&doc.to_string(), &weights);
        assert_eq!(e.code, Code::InvalidArgument, "{e}");
        assert!(e.message.contains(want), "'{want}' not in: {e}");
        assert!(!e.message.contains("Some("), "{e}");
    }
}

/// `levels` functions where each but the last calls the next twice (PartitionedCall) and adds the
/// results; the last returns its input. Node names are `name_len` characters long. The graph
/// calls the first on `x`, so `y = 2^(levels-1) * x`.
fn doubling_library(levels: usize, name_len: usize) -> String {
    let f = |k: usize| format!("f{k}");
    let long = |k: usize, tag: &str| format!("{tag}{k}{}", "n".repeat(name_len));
    let mut funcs = Vec::new();
    for k in 0..levels {
        let (nodes, ret) = if k + 1 < levels {
            let call = |tag: &str| {
                format!(
                    r#"{{"name":"{}","op":"PartitionedCall","input":["x"],"attr":{{"f":{{"func":{{"name":"{}"}}}}}}}}"#,
                    long(k, tag),
                    f(k + 1)
                )
            };
            let add = node(
                &long(k, "add"),
                "AddV2",
                &[
                    &format!("{}:output:0", long(k, "a")),
                    &format!("{}:output:0", long(k, "b")),
                ],
                T,
            );
            (
                vec![call("a"), call("b"), add],
                format!("{}:z:0", long(k, "add")),
            )
        } else {
            (
                vec![node(&long(k, "id"), "Identity", &["x"], T)],
                format!("{}:output:0", long(k, "id")),
            )
        };
        funcs.push(format!(
            r#"{{"signature":{{"name":"{}","inputArg":[{{"name":"x","type":"DT_FLOAT"}}],"outputArg":[{{"name":"y","type":"DT_FLOAT"}}]}},"nodeDef":[{}],"ret":{{"y":"{ret}"}}}}"#,
            f(k),
            nodes.join(",")
        ));
    }
    let graph = [
        node(
            "x",
            "Placeholder",
            &[],
            r#""dtype":{"type":"DT_FLOAT"},"shape":{"shape":{}}"#,
        ),
        r#"{"name":"call","op":"PartitionedCall","input":["x"],"attr":{"f":{"func":{"name":"f0"}}}}"#
            .to_string(),
        node("y", "Identity", &["call"], T),
    ];
    model(&graph, &["x"], &["y"]).replacen(
        r#"]},"weightsManifest""#,
        &format!(
            r#"],"library":{{"function":[{}]}}}},"weightsManifest""#,
            funcs.join(",")
        ),
        1,
    )
}

/// A small library that expands exponentially with long node names fails fast with
/// ResourceExhausted naming the byte limit (it filled gigabytes of names before the node cap),
/// and the heap is back where it was; the same library with short names and fewer levels runs.
#[test]
fn function_libraries_are_bounded_by_expanded_bytes() {
    let mut ctx = EagerContext::default();
    let small = doubling_library(6, 4);
    let mut m = load(&mut ctx, &small).unwrap();
    let out = m
        .predict(
            &mut ctx,
            vec![("x".into(), eager_wasm::Tensor::scalar(1.5f32))],
        )
        .unwrap();
    assert_eq!(out[0].as_slice::<f32>().unwrap(), &[48.0]);
    drop(out);
    m.dispose(&mut ctx);

    let json = doubling_library(17, 20_000);
    assert!(json.len() < 2_500_000, "{}", json.len());
    let before = eager_wasm::memory::heap_bytes();
    eager_wasm::memory::reset_heap_peak();
    let start = std::time::Instant::now();
    let err = load(&mut ctx, &json).err().expect("expands too far");
    let took = start.elapsed();
    assert_eq!(err.code, Code::ResourceExhausted, "{err}");
    assert!(err.message.contains("256 MiB"), "{err}");
    drop(err);
    assert!(took.as_secs_f64() < 10.0, "took {took:?}");
    let peak = eager_wasm::memory::heap_peak_bytes() - before;
    assert!(peak < 600 << 20, "peak {} MiB", peak >> 20);
    assert_eq!(eager_wasm::memory::heap_bytes(), before);
}

/// The counting loop plus an accumulator that adds a 10,000-input AddN over a non-constant Enter
/// (visible in iteration 0 only, as in TF) and the counter: from iteration 1 on the AddN gets its
/// counter input but never the others. `late`: one more Enter of the frame that arrives only after the
/// loop ends (so no iteration can retire before).
fn stalled_addn_loop(late: bool) -> String {
    let frame = "bG9vcA==";
    let mut sum_inputs = vec!["loop/e"; 9_999];
    sum_inputs.push("loop/Identity");
    let mut extra = vec![
        node("loop/e", "Enter", &["one"], &enter_attrs(frame, false)),
        node(
            "loop/acc_enter",
            "Enter",
            &["zero"],
            &enter_attrs(frame, false),
        ),
        node(
            "loop/acc_merge",
            "Merge",
            &["loop/acc_enter", "loop/acc_next"],
            &format!(r#"{T},"N":{{"i":"2"}}"#),
        ),
        node(
            "loop/acc_switch",
            "Switch",
            &["loop/acc_merge", "loop/Cond"],
            T,
        ),
        node("loop/acc_id", "Identity", &["loop/acc_switch:1"], T),
        node(
            "loop/sum",
            "AddN",
            &sum_inputs,
            &format!(r#"{T},"N":{{"i":"10000"}}"#),
        ),
        node("loop/acc_add", "AddV2", &["loop/acc_id", "loop/sum"], T),
        node("loop/acc_next", "NextIteration", &["loop/acc_add"], T),
        node("loop/acc_exit", "Exit", &["loop/acc_switch"], T),
        node("acc", "Identity", &["loop/acc_exit"], T),
    ];
    if late {
        extra.push(node("after", "AddV2", &["zero", "loop/Exit"], T));
        extra.push(node(
            "loop/late",
            "Enter",
            &["after"],
            &enter_attrs(frame, true),
        ));
        // Read in the body, so it is needed.
        extra.push(node(
            "loop/use_late",
            "AddV2",
            &["loop/acc_id", "loop/late"],
            T,
        ));
        extra.push(node("late_exit", "Exit", &["loop/use_late"], T));
        extra.push(node("late_out", "Identity", &["late_exit"], T));
    }
    let outputs: &[&str] = if late {
        &["y", "acc", "late_out"]
    } else {
        &["y", "acc"]
    };
    model(&counting_loop(extra), &["n"], outputs)
}

/// A node in a loop body that never gets all its inputs after iteration 0 does not keep its
/// partial inputs for every iteration: iterations retire as in TF's executor, so 2,000 iterations
/// with a 10,000-input AddN stay within a few MB (they took over 1 GB), and the run ends with the
/// accumulator dead (a FailedPrecondition naming it), the counter having run to the end.
#[test]
fn a_node_stalled_in_every_iteration_keeps_nothing_per_iteration() {
    let json = stalled_addn_loop(false);
    let mut ctx = EagerContext::default();
    let mut m = load(&mut ctx, &json).unwrap();
    let mut result = None;
    let start = std::time::Instant::now();
    let grew = heap_growth(|| {
        result = Some(m.predict(&mut ctx, vec![("n".into(), Tensor::scalar(2_000f32))]));
    });
    let err = result.unwrap().unwrap_err();
    assert_eq!(err.code, Code::FailedPrecondition, "{err}");
    assert!(err.message.contains("node 'acc' is dead"), "{err}");
    assert!(grew < 32 << 20, "run grew the heap by {} MiB", grew >> 20);
    assert!(
        start.elapsed().as_secs_f64() < 20.0,
        "{:?}",
        start.elapsed()
    );
    // The counter alone, fetched by name: it ran all 2,000 iterations.
    let out = m
        .execute(
            &mut ctx,
            vec![("n".into(), Tensor::scalar(2_000f32))],
            &["y".to_string()],
        )
        .unwrap();
    assert_eq!(out[0].as_slice::<f32>().unwrap(), &[2_000.0]);
    m.dispose(&mut ctx);
}

/// When iterations can't retire (an Enter of the loop arrives only after it ends), what nodes
/// wait for is bounded: ResourceExhausted, not memory until the instance traps.
#[test]
fn loop_bookkeeping_that_cannot_retire_is_bounded() {
    let json = stalled_addn_loop(true);
    let mut ctx = EagerContext::default();
    let mut m = load(&mut ctx, &json).unwrap();
    let start = std::time::Instant::now();
    let err = m
        .predict(&mut ctx, vec![("n".into(), Tensor::scalar(1e6f32))])
        .unwrap_err();
    assert_eq!(err.code, Code::ResourceExhausted, "{err}");
    assert!(err.message.contains("input slots"), "{err}");
    assert!(
        start.elapsed().as_secs_f64() < 20.0,
        "{:?}",
        start.elapsed()
    );
    m.dispose(&mut ctx);
}

/// An endless loop keeps nothing per iteration: the run's peak heap is the same for 20k and 80k
/// iterations (each iteration left ~70 bytes until the run ended, so 1e8 iterations trapped
/// instead of reaching the maxLoopIterations error).
#[test]
fn an_endless_loop_keeps_nothing_per_iteration() {
    let mut peaks = Vec::new();
    for limit in [20_000, 80_000] {
        let mut ctx = EagerContext::new(ContextOptions {
            max_loop_iterations: limit,
            ..Default::default()
        });
        // `n` is never reached.
        let mut m = load(&mut ctx, &model(&counting_loop(Vec::new()), &["n"], &["y"])).unwrap();
        let mut result = None;
        peaks.push(heap_growth(|| {
            result = Some(m.predict(&mut ctx, vec![("n".into(), Tensor::scalar(f32::INFINITY))]));
        }));
        let err = result.unwrap().unwrap_err();
        assert_eq!(err.code, Code::ResourceExhausted, "{err}");
        assert!(err.message.contains("maxLoopIterations"), "{err}");
        m.dispose(&mut ctx);
    }
    assert!(
        peaks[1] < peaks[0] + (64 << 10),
        "peak heap {peaks:?} grows with the iterations"
    );
}
