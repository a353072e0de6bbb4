//! `EagerContext::execute` with any registered op, arbitrary attrs (right kind or not) and small
//! arbitrary tensors: it must return Ok or a Status, never panic, and stay usable.
#![no_main]

use eager_wasm::ops::{AttrType, AttrValue};
use eager_wasm::registry::registry;
use eager_wasm::tensor::{Data, Shape, C64};
use eager_wasm::{DType, EagerContext, Tensor};
use libfuzzer_sys::fuzz_target;

/// Reads bytes as needed; zeros once exhausted.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn i64(&mut self) -> i64 {
        // Mostly small values (axes, sizes), sometimes extreme ones.
        match self.u8() % 8 {
            0 => i64::MAX - self.u8() as i64,
            1 => i64::MIN + self.u8() as i64,
            2 => -(self.u8() as i64),
            _ => (self.u8() % 8) as i64 - 2,
        }
    }
    fn f32(&mut self) -> f32 {
        match self.u8() % 10 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => -0.0,
            _ => (self.u8() as f32 - 128.0) / 16.0,
        }
    }
}

fn tensor(b: &mut Bytes) -> Tensor {
    let dtype = [
        DType::Float32,
        DType::Int32,
        DType::Int64,
        DType::Bool,
        DType::UInt8,
        DType::Complex64,
    ][b.u8() as usize % 6];
    let rank = b.u8() as usize % 5;
    let dims: Vec<usize> = (0..rank).map(|_| b.u8() as usize % 5).collect();
    let shape = Shape::new(dims).expect("small shape");
    let n = shape.num_elements();
    let data = match dtype {
        DType::Float32 => Data::F32((0..n).map(|_| b.f32()).collect()),
        DType::Int32 => Data::I32((0..n).map(|_| b.i64() as i32).collect()),
        DType::Int64 => Data::I64((0..n).map(|_| b.i64()).collect()),
        DType::UInt8 => Data::U8((0..n).map(|_| b.u8()).collect()),
        DType::Complex64 => Data::C64((0..n).map(|_| C64::new(b.f32(), b.f32())).collect()),
        _ => Data::Bool((0..n).map(|_| b.u8() & 1 == 1).collect()),
    };
    Tensor::new(shape, data).expect("consistent tensor")
}

fn attr(b: &mut Bytes, declared: AttrType) -> AttrValue {
    // One time in four, a value of some other kind.
    let kind = if b.u8() % 4 == 0 { b.u8() % 8 } else { 255 };
    let small_ints = |b: &mut Bytes| (0..b.u8() % 6).map(|_| b.i64()).collect::<Vec<_>>();
    match (kind, declared) {
        (0, _) | (255, AttrType::Int) => AttrValue::Int(b.i64()),
        (1, _) | (255, AttrType::Float) => AttrValue::Float(b.f32()),
        (2, _) | (255, AttrType::Bool) => AttrValue::Bool(b.u8() & 1 == 1),
        (3, _) | (255, AttrType::Type) => AttrValue::Type(
            [
                DType::Float32,
                DType::Int32,
                DType::Int64,
                DType::Bool,
                DType::UInt8,
                DType::Complex64,
            ][b.u8() as usize % 6],
        ),
        (4, _) | (255, AttrType::ListInt) => AttrValue::ListInt(small_ints(b)),
        (5, _) | (255, AttrType::String) => {
            let options = [
                "SAME",
                "VALID",
                "EXPLICIT",
                "NHWC",
                "NCHW",
                "",
                "REFLECT",
                "SYMMETRIC",
            ];
            AttrValue::Str(options[b.u8() as usize % options.len()].as_bytes().to_vec())
        }
        (6, _) | (255, AttrType::ListString) => {
            let ops = [
                "BiasAdd",
                "Relu",
                "Relu6",
                "Elu",
                "LeakyRelu",
                "Prelu",
                "FusedBatchNorm",
                "Sigmoid",
                "Tanh",
                "Bogus",
                // RaggedTensorToTensor's row_partition_types.
                "ROW_SPLITS",
                "VALUE_ROWIDS",
                "FIRST_DIM_SIZE",
            ];
            AttrValue::ListStr(
                (0..b.u8() % 3)
                    .map(|_| ops[b.u8() as usize % ops.len()].as_bytes().to_vec())
                    .collect(),
            )
        }
        (_, AttrType::Shape) => AttrValue::Shape(if b.u8() % 5 == 0 {
            None
        } else {
            Some(small_ints(b))
        }),
        (_, AttrType::ListFloat) => {
            AttrValue::ListFloat((0..b.u8() % 4).map(|_| b.f32()).collect())
        }
        (_, AttrType::Tensor) => AttrValue::Tensor(tensor(b)),
        _ => AttrValue::ListInt(small_ints(b)),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    // FUZZ_OPS=RaggedGather,RaggedRange restricts the ops picked (a targeted run for new ops).
    static ONLY: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let only = ONLY.get_or_init(|| {
        let wanted = std::env::var("FUZZ_OPS").unwrap_or_default();
        let all = registry().names();
        let picked: Vec<_> = all
            .iter()
            .copied()
            .filter(|n| wanted.split(',').any(|w| w == *n))
            .collect();
        if picked.is_empty() {
            all
        } else {
            picked
        }
    });
    let names = only.as_slice();
    // Two bytes: the registry has more than 256 ops.
    let pick = b.u8() as usize | (b.u8() as usize) << 8;
    let op = names[pick % names.len()];
    let def = registry().get(op).expect("registered");
    // Up to 6 inputs (NonMaxSuppressionV5 has 6).
    let inputs: Vec<Tensor> = (0..b.u8() % 7).map(|_| tensor(&mut b)).collect();
    let mut attrs: Vec<(&str, AttrValue)> = Vec::new();
    for a in &def.attrs {
        if b.u8() % 3 != 0 {
            attrs.push((a.name, attr(&mut b, a.ty)));
        }
    }
    let mut ctx = EagerContext::default();
    let _ = ctx.execute(op, &inputs, attrs);
    // Still usable afterwards.
    let x = Tensor::from_slice(&[2], &[1f32, 2.0]).unwrap();
    let out = ctx.execute("AddV2", &[x.clone(), x], Vec::<(&str, AttrValue)>::new());
    assert!(out.is_ok());
});
