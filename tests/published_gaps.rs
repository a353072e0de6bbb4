//! Graphs found in published TF.js models that TF.js runs (tools/gen_published_gaps.py, and the
//! uint8_image model of tools/gen_models.py): float64 inside the graph, an int32 feed for a uint8
//! input, int64 indices from Where, int64 Consts stored as int32 weights.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use eager_wasm::model::GraphModel;
use eager_wasm::{Code, DType, EagerContext, Shape, Tensor};

use common::{ATOL, RTOL};

struct Fixture {
    json: String,
    weights: Vec<u8>,
    reference: String,
}

fn fixture(name: &str) -> Fixture {
    let (json, weights, reference) = common::model_files(name);
    Fixture {
        json,
        weights,
        reference,
    }
}

fn check(name: &str, atol: f32, rtol: f32) {
    let f = fixture(name);
    let mut ctx = EagerContext::default();
    common::check_model(&mut ctx, &f.json, &f.weights, &f.reference, atol, rtol)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
}

#[test]
fn float64_graph_runs_in_float32_like_tfjs() {
    // TF computed in float64; float32 arithmetic on the same inputs stays within float32 error.
    check("float64_head", 1e-5, 1e-5);
    let f = fixture("float64_head");
    let mut ctx = EagerContext::default();
    let model = GraphModel::load(&mut ctx, &f.json, &f.weights, &mut |_, _| {}).unwrap();
    let y64 = model.outputs().iter().find(|o| o.name == "y64").unwrap();
    assert_eq!(y64.dtype, DType::Float32, "a DT_DOUBLE output is float32");
}

#[test]
fn where_int64_indices_and_int64_weight_consts_run() {
    check("sparse_detector", ATOL, RTOL);
}

/// The uint8_image reference input as int32 (what `fromPixels` gives by default), or with one
/// value replaced.
fn uint8_input_as_int32(f: &Fixture, replace: Option<(usize, i32)>) -> Tensor {
    let (inputs, _) = common::reference(&f.reference);
    let x = &inputs.iter().find(|(n, _)| n == "x").unwrap().1;
    let mut v: Vec<i32> = x
        .as_slice::<u8>()
        .unwrap()
        .iter()
        .map(|&b| b as i32)
        .collect();
    if let Some((i, value)) = replace {
        v[i] = value;
    }
    Tensor::from_slice(x.dims(), &v).unwrap()
}

#[test]
fn uint8_input_takes_int32_values_in_range() {
    let f = fixture("uint8_image");
    let (_, want) = common::reference(&f.reference);
    let mut ctx = EagerContext::default();
    let mut model = GraphModel::load(&mut ctx, &f.json, &f.weights, &mut |_, _| {}).unwrap();
    let got = model
        .predict(&mut ctx, vec![("x".into(), uint8_input_as_int32(&f, None))])
        .unwrap();
    for (info, g) in model.outputs().iter().zip(&got) {
        let w = &want.iter().find(|(n, _)| *n == info.name).unwrap().1;
        common::compare(g, w, ATOL, RTOL).unwrap_or_else(|e| panic!("{}: {e}", info.name));
    }
    // TF.js passes such values on unchanged (it holds uint8 inputs as int32); they are refused
    // here, naming the input.
    for bad in [256, -1] {
        let e = model
            .predict(
                &mut ctx,
                vec![("x".into(), uint8_input_as_int32(&f, Some((7, bad))))],
            )
            .unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument, "{e}");
        assert!(
            e.message.contains("input 'x'") && e.message.contains(&bad.to_string()),
            "{e}"
        );
    }
    // Other dtypes are still refused.
    let e = model
        .predict(
            &mut ctx,
            vec![(
                "x".into(),
                Tensor::zeros(DType::Float32, Shape::new(vec![1, 12, 10, 3]).unwrap()).unwrap(),
            )],
        )
        .unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    model.dispose(&mut ctx);
    assert_eq!(ctx.memory().num_resources, 0);
}
