//! Shared by integration tests: JSON tensor specs from the TF-generated fixtures, and tolerant
//! comparison against TF's outputs.
#![allow(dead_code)]

use eager_wasm::tensor::{Data, Shape};
use eager_wasm::{DType, Tensor};
use serde_json::Value;
use std::path::PathBuf;

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// `{"dtype": "float32", "shape": [..], "data": [..]}` to a tensor.
pub fn tensor_from_json(v: &Value) -> Tensor {
    let dtype = DType::parse(v["dtype"].as_str().expect("dtype")).expect("known dtype");
    let dims: Vec<usize> = v["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|d| d.as_u64().expect("dim") as usize)
        .collect();
    let data = v["data"].as_array().expect("data");
    let shape = Shape::new(dims).expect("shape");
    let num = |x: &Value| -> f64 {
        match x {
            Value::Number(n) => n.as_f64().unwrap(),
            Value::Bool(b) => *b as u8 as f64,
            Value::String(s) => match s.as_str() {
                "NaN" | "nan" => f64::NAN,
                "Infinity" | "inf" => f64::INFINITY,
                "-Infinity" | "-inf" => f64::NEG_INFINITY,
                other => other.parse().expect("numeric string"),
            },
            Value::Null => f64::NAN,
            other => panic!("bad value {other}"),
        }
    };
    let d = match dtype {
        DType::Float32 => Data::F32(data.iter().map(|x| num(x) as f32).collect()),
        DType::Int32 => Data::I32(data.iter().map(|x| num(x) as i32).collect()),
        DType::Int64 => Data::I64(data.iter().map(|x| num(x) as i64).collect()),
        DType::Bool => Data::Bool(data.iter().map(|x| num(x) != 0.0).collect()),
        DType::Resource => panic!("resource in fixture"),
    };
    Tensor::new(shape, d).expect("fixture tensor")
}

/// Compares `got` to TF's `want`: same dtype and shape; floats within `atol + rtol * |want|`
/// (NaN matches NaN, infinities match exactly); everything else exactly. Err describes the first
/// mismatch.
pub fn compare(got: &Tensor, want: &Tensor, atol: f32, rtol: f32) -> Result<(), String> {
    if got.dtype() != want.dtype() {
        return Err(format!(
            "dtype {} != expected {}",
            got.dtype(),
            want.dtype()
        ));
    }
    if got.dims() != want.dims() {
        return Err(format!(
            "shape {:?} != expected {:?}",
            got.dims(),
            want.dims()
        ));
    }
    match (got.data(), want.data()) {
        (Data::F32(g), Data::F32(w)) => {
            for (i, (&a, &b)) in g.iter().zip(w).enumerate() {
                let ok = if b.is_nan() {
                    a.is_nan()
                } else if b.is_infinite() {
                    a == b
                } else {
                    (a - b).abs() <= atol + rtol * b.abs()
                };
                if !ok {
                    return Err(format!("element {i}: got {a}, expected {b}"));
                }
            }
            Ok(())
        }
        (Data::I32(g), Data::I32(w)) if g == w => Ok(()),
        (Data::I64(g), Data::I64(w)) if g == w => Ok(()),
        (Data::Bool(g), Data::Bool(w)) if g == w => Ok(()),
        (g, w) => Err(format!("values differ: got {g:?}, expected {w:?}")),
    }
}
