//! The TF op cases and model references, run as wasm (SIMD128 kernels) under Node.
#![cfg(target_arch = "wasm32")]

mod common;

use eager_wasm::EagerContext;
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn ops_match_tensorflow_in_wasm() {
    let mut ctx = EagerContext::default();
    let mut failures = Vec::new();
    for (stem, json) in common::OP_FIXTURES {
        failures.extend(common::run_op_file(&mut ctx, stem, json).1);
    }
    assert!(
        failures.is_empty(),
        "{} op cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[wasm_bindgen_test]
fn models_match_tensorflow_in_wasm() {
    let mut ctx = EagerContext::default();
    let failures = common::check_all_models(&mut ctx);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[wasm_bindgen_test]
fn layers_models_match_keras_in_wasm() {
    let mut ctx = EagerContext::default();
    let failures = common::check_all_layers_models(&mut ctx);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
