//! In headless Chromium: every model matches TF, and memory figures behave as documented there
//! (wasm memory reserved is reported; heap in use returns exactly after load/predict/dispose).
#![cfg(target_arch = "wasm32")]

mod common;

use eager_wasm::model::GraphModel;
use eager_wasm::EagerContext;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn models_match_tensorflow_in_chromium() {
    let mut ctx = EagerContext::default();
    let failures = common::check_all_models(&mut ctx);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[wasm_bindgen_test]
fn load_predict_dispose_returns_heap_exactly() {
    let m = common::MODEL_FIXTURES
        .iter()
        .find(|m| m.name == "mobilenet")
        .unwrap();
    let (inputs, _) = common::reference(m.reference);
    let mut ctx = EagerContext::default();
    let cycle = |ctx: &mut EagerContext| {
        let mut model = GraphModel::load(ctx, m.json, m.weights, &mut |_, _| {}).unwrap();
        drop(model.predict(ctx, inputs.clone()).unwrap());
        model.dispose(ctx);
        ctx.memory()
    };
    let first = cycle(&mut ctx);
    assert!(first.wasm_memory_bytes >= first.heap_bytes && first.wasm_memory_bytes > 0);
    for _ in 0..20 {
        let m = cycle(&mut ctx);
        assert_eq!(m.heap_bytes, first.heap_bytes);
        assert_eq!(
            m.wasm_memory_bytes, first.wasm_memory_bytes,
            "no growth after warm-up"
        );
    }
}
