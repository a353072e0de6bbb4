//! Hostile graph models: loads and runs that a crafted model.json could make grow without bound
//! end early with a typed error, and loads stay linear in the model's size.
#![cfg(not(target_arch = "wasm32"))]

use eager_wasm::model::GraphModel;
use eager_wasm::{Code, EagerContext};

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
