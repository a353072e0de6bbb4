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
fn layers_models_match_keras_in_chromium() {
    let mut ctx = EagerContext::default();
    let failures = common::check_all_layers_models(&mut ctx);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[wasm_bindgen_test]
fn layers_model_load_predict_dispose_returns_heap_exactly() {
    use eager_wasm::model::layers::LayersModel;
    let f = common::LAYERS_FIXTURES
        .iter()
        .find(|f| f.name == "teachable")
        .unwrap();
    let (inputs, _) = common::reference(f.reference);
    let mut ctx = EagerContext::default();
    let cycle = |ctx: &mut EagerContext| {
        let mut model = LayersModel::load(ctx, f.json, f.weights, &mut |_, _| {}).unwrap();
        drop(model.predict(ctx, inputs.clone()).unwrap());
        model.dispose(ctx);
        ctx.memory()
    };
    let first = cycle(&mut ctx);
    for _ in 0..10 {
        assert_eq!(cycle(&mut ctx).heap_bytes, first.heap_bytes);
    }
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
    assert!(first.wasm_memory_bytes >= first.heap_bytes as u64 && first.wasm_memory_bytes > 0);
    for _ in 0..20 {
        let m = cycle(&mut ctx);
        assert_eq!(m.heap_bytes, first.heap_bytes);
        assert_eq!(
            m.wasm_memory_bytes, first.wasm_memory_bytes,
            "no growth after warm-up"
        );
    }
}

/// A control-flow model (GRU: a v1 loop over TensorLists), 1,000 cycles: heap back to the byte,
/// cache entries flat, no churn warning. (~10 s in a debug build: the suite needs
/// WASM_BINDGEN_TEST_TIMEOUT above its 20 s default, as scripts/test.sh sets.)
#[wasm_bindgen_test]
fn gru_load_predict_dispose_cycles_leave_heap_and_cache_flat() {
    let m = common::MODEL_FIXTURES
        .iter()
        .find(|m| m.name == "gru")
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
    for _ in 0..1000 {
        let m = cycle(&mut ctx);
        assert_eq!(m.heap_bytes, first.heap_bytes);
        assert_eq!(m.cache_entries, first.cache_entries);
        assert_eq!((m.num_resources, m.num_tensors), (0, first.num_tensors));
    }
    assert!(ctx.cache_stats().warnings.is_empty());
}

/// When the wasm memory cannot grow any more, tensor allocation and model loading fail with
/// ResourceExhausted (no abort), and the context works again once memory is released.
#[wasm_bindgen_test]
fn exhausted_wasm_memory_is_resource_exhausted() {
    use eager_wasm::tensor::Shape;
    use eager_wasm::{Code, DType, Tensor};
    let mlp = common::MODEL_FIXTURES
        .iter()
        .find(|m| m.name == "mlp")
        .unwrap();
    let mut ctx = EagerContext::default();
    let mut warm = GraphModel::load(&mut ctx, mlp.json, mlp.weights, &mut |_, _| {}).unwrap();
    warm.dispose(&mut ctx);
    let base = ctx.memory().heap_bytes;
    // Fill the instance: big blocks first, then smaller ones, until even 64 KiB is refused.
    let mut fillers = Vec::new();
    for elements in [64 << 20, 4 << 20, 256 << 10, 16 << 10] {
        loop {
            match Tensor::zeros(DType::Float32, Shape::new(vec![elements]).unwrap()) {
                Ok(t) => fillers.push(t),
                Err(e) => {
                    assert_eq!(e.code, Code::ResourceExhausted, "{e}");
                    break;
                }
            }
        }
    }
    assert!(
        ctx.memory().wasm_memory_bytes > 3 << 30,
        "memory grew to its limit"
    );
    // Leave room for the loader's bookkeeping, not for the mlp's 401 KB weight.
    fillers.truncate(fillers.len() - 3);
    let err = match GraphModel::load(&mut ctx, mlp.json, mlp.weights, &mut |_, _| {}) {
        Ok(_) => panic!("load should not fit"),
        Err(e) => e,
    };
    assert_eq!(err.code, Code::ResourceExhausted, "{err}");
    assert_eq!(ctx.memory().num_resources, 0);
    drop(err);
    drop(fillers);
    assert_eq!(ctx.memory().heap_bytes, base, "everything released");
    let failures = common::check_all_models(&mut ctx);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
