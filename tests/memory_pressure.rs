//! Out of memory at the model boundary: an inline constant too large to allocate is
//! ResourceExhausted (what it is), not InvalidArgument (a malformed model).
#![cfg(not(target_arch = "wasm32"))]

use eager_wasm::model::GraphModel;
use eager_wasm::{Code, EagerContext};

fn model_with_const(dims: &str) -> String {
    let c = format!(
        r#"{{"name":"c","op":"Const","input":[],"attr":{{"dtype":{{"type":"DT_FLOAT"}},"value":{{"tensor":{{"dtype":"DT_FLOAT","tensorShape":{{"dim":[{dims}]}}}}}}}}}}"#
    );
    format!(
        r#"{{"format":"graph-model","modelTopology":{{"node":[{c}]}},"weightsManifest":[{{"paths":[],"weights":[]}}],"signature":{{"inputs":{{}},"outputs":{{"c":{{"name":"c:0","dtype":"DT_FLOAT"}}}}}}}}"#
    )
}

#[test]
fn an_inline_const_too_large_to_allocate_is_resource_exhausted() {
    let mut ctx = EagerContext::default();
    // 2^30 floats: 4 GiB, past what one tensor may hold.
    let e = GraphModel::load(
        &mut ctx,
        &model_with_const(r#"{"size":"1073741824"}"#),
        &[][..],
        &mut |_, _| {},
    )
    .err()
    .expect("the load should fail");
    assert_eq!(e.code, Code::ResourceExhausted, "{e}");
    assert!(e.message.contains("cannot allocate"), "{e}");
    // A malformed value is still InvalidArgument; a small one loads.
    let bad = GraphModel::load(
        &mut ctx,
        &model_with_const(r#"{"size":"-2"}"#),
        &[][..],
        &mut |_, _| {},
    );
    assert_eq!(bad.err().unwrap().code, Code::InvalidArgument);
    let mut m = GraphModel::load(
        &mut ctx,
        &model_with_const(r#"{"size":"3"}"#),
        &[][..],
        &mut |_, _| {},
    )
    .unwrap();
    let out = m.predict(&mut ctx, vec![]).unwrap();
    assert_eq!(out[0].f32s().unwrap(), [0.0; 3]);
    m.dispose(&mut ctx);
}
