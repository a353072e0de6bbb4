//! Attr values (TF's AttrValue), their kinds, and their parsing from AttrValue JSON as the TF.js
//! converter writes it.

use crate::status::{invalid_argument, Result};
use crate::tensor::{DType, Data, Tensor};
use base64::Engine;
use serde_json::Value;
use std::hash::{Hash, Hasher};

/// The kind an op declares for an attr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttrType {
    Type,
    Int,
    Float,
    Bool,
    String,
    Shape,
    Tensor,
    Func,
    ListType,
    ListInt,
    ListFloat,
    ListBool,
    ListString,
    ListShape,
}

impl AttrType {
    pub fn name(self) -> &'static str {
        match self {
            AttrType::Type => "type",
            AttrType::Int => "int",
            AttrType::Float => "float",
            AttrType::Bool => "bool",
            AttrType::String => "string",
            AttrType::Shape => "shape",
            AttrType::Tensor => "tensor",
            AttrType::Func => "func",
            AttrType::ListType => "list(type)",
            AttrType::ListInt => "list(int)",
            AttrType::ListFloat => "list(float)",
            AttrType::ListBool => "list(bool)",
            AttrType::ListString => "list(string)",
            AttrType::ListShape => "list(shape)",
        }
    }
}

/// A shape attr: `None` is unknown rank; `-1` dims are unknown sizes.
pub type ShapeAttr = Option<Vec<i64>>;

#[derive(Debug, Clone)]
pub enum AttrValue {
    Type(DType),
    Int(i64),
    Float(f32),
    Bool(bool),
    Str(Vec<u8>),
    Shape(ShapeAttr),
    Tensor(Tensor),
    Func(String),
    ListType(Vec<DType>),
    ListInt(Vec<i64>),
    ListFloat(Vec<f32>),
    ListBool(Vec<bool>),
    ListStr(Vec<Vec<u8>>),
    ListShape(Vec<ShapeAttr>),
}

impl AttrValue {
    pub fn attr_type(&self) -> AttrType {
        match self {
            AttrValue::Type(_) => AttrType::Type,
            AttrValue::Int(_) => AttrType::Int,
            AttrValue::Float(_) => AttrType::Float,
            AttrValue::Bool(_) => AttrType::Bool,
            AttrValue::Str(_) => AttrType::String,
            AttrValue::Shape(_) => AttrType::Shape,
            AttrValue::Tensor(_) => AttrType::Tensor,
            AttrValue::Func(_) => AttrType::Func,
            AttrValue::ListType(_) => AttrType::ListType,
            AttrValue::ListInt(_) => AttrType::ListInt,
            AttrValue::ListFloat(_) => AttrType::ListFloat,
            AttrValue::ListBool(_) => AttrType::ListBool,
            AttrValue::ListStr(_) => AttrType::ListString,
            AttrValue::ListShape(_) => AttrType::ListShape,
        }
    }

    /// Converts to the declared kind where that is lossless (an int given for a float attr, an
    /// empty list of any kind); otherwise a type error naming both kinds.
    pub fn coerce(self, want: AttrType) -> std::result::Result<AttrValue, AttrValue> {
        if self.attr_type() == want {
            return Ok(self);
        }
        let empty = |v: &AttrValue| match v {
            AttrValue::ListType(l) => l.is_empty(),
            AttrValue::ListInt(l) => l.is_empty(),
            AttrValue::ListFloat(l) => l.is_empty(),
            AttrValue::ListBool(l) => l.is_empty(),
            AttrValue::ListStr(l) => l.is_empty(),
            AttrValue::ListShape(l) => l.is_empty(),
            _ => false,
        };
        Ok(match (self, want) {
            (AttrValue::Int(i), AttrType::Float) => AttrValue::Float(i as f32),
            (AttrValue::ListInt(l), AttrType::ListFloat) => {
                AttrValue::ListFloat(l.into_iter().map(|i| i as f32).collect())
            }
            (AttrValue::ListInt(l), AttrType::Shape) => AttrValue::Shape(Some(l)),
            (v, t) if empty(&v) => match t {
                AttrType::ListType => AttrValue::ListType(Vec::new()),
                AttrType::ListInt => AttrValue::ListInt(Vec::new()),
                AttrType::ListFloat => AttrValue::ListFloat(Vec::new()),
                AttrType::ListBool => AttrValue::ListBool(Vec::new()),
                AttrType::ListString => AttrValue::ListStr(Vec::new()),
                AttrType::ListShape => AttrValue::ListShape(Vec::new()),
                _ => return Err(v),
            },
            (v, _) => return Err(v),
        })
    }

    /// Heap bytes owned by this value (for the cache's byte accounting).
    pub fn heap_bytes(&self) -> usize {
        match self {
            AttrValue::Str(s) => s.capacity(),
            AttrValue::Tensor(t) => t.byte_len(),
            AttrValue::Func(s) => s.capacity(),
            AttrValue::ListType(l) => l.capacity() * std::mem::size_of::<DType>(),
            AttrValue::ListInt(l) => l.capacity() * 8,
            AttrValue::ListFloat(l) => l.capacity() * 4,
            AttrValue::ListBool(l) => l.capacity(),
            AttrValue::ListStr(l) => {
                l.capacity() * std::mem::size_of::<Vec<u8>>()
                    + l.iter().map(|s| s.capacity()).sum::<usize>()
            }
            AttrValue::ListShape(l) => {
                l.capacity() * std::mem::size_of::<ShapeAttr>()
                    + l.iter().flatten().map(|s| s.capacity() * 8).sum::<usize>()
            }
            AttrValue::Shape(Some(s)) => s.capacity() * 8,
            _ => 0,
        }
    }

    /// Short rendering for error messages.
    pub fn describe(&self) -> String {
        match self {
            AttrValue::Str(s) => format!("\"{}\"", String::from_utf8_lossy(s)),
            AttrValue::Tensor(t) => format!("<{} tensor {}>", t.dtype(), t.shape()),
            other => format!("{other:?}"),
        }
    }

    /// Parses TF AttrValue JSON (`{"type":"DT_FLOAT"}`, `{"i":"3"}`, `{"list":{"i":[..]}}`, ...).
    /// Int64s arrive as strings or numbers; `s` is base64. An empty `{"list":{}}` parses as an empty
    /// int list, which `coerce` turns into the declared list kind.
    pub fn from_json(v: &Value) -> Result<AttrValue> {
        let obj = v
            .as_object()
            .ok_or_else(|| invalid_argument(format!("attr value must be an object, got {v}")))?;
        if let Some(t) = obj.get("type") {
            return Ok(AttrValue::Type(parse_dtype(t)?));
        }
        if let Some(i) = obj.get("i") {
            return Ok(AttrValue::Int(parse_i64(i)?));
        }
        if let Some(f) = obj.get("f") {
            return Ok(AttrValue::Float(parse_f32(f)?));
        }
        if let Some(b) = obj.get("b") {
            return Ok(AttrValue::Bool(b.as_bool().ok_or_else(|| {
                invalid_argument(format!("attr 'b' must be a bool, got {b}"))
            })?));
        }
        if let Some(s) = obj.get("s") {
            return Ok(AttrValue::Str(parse_b64(s)?));
        }
        if let Some(s) = obj.get("shape") {
            return Ok(AttrValue::Shape(parse_shape(s)?));
        }
        if let Some(t) = obj.get("tensor") {
            return Ok(AttrValue::Tensor(parse_tensor_proto(t)?));
        }
        if let Some(f) = obj.get("func") {
            let name = f.get("name").and_then(Value::as_str).unwrap_or_default();
            return Ok(AttrValue::Func(name.to_string()));
        }
        if let Some(l) = obj.get("list") {
            return parse_list(l);
        }
        Err(invalid_argument(format!("unrecognized attr value {v}")))
    }
}

fn parse_list(l: &Value) -> Result<AttrValue> {
    let obj = l
        .as_object()
        .ok_or_else(|| invalid_argument(format!("attr list must be an object, got {l}")))?;
    let arr = |key: &str| -> Option<&Vec<Value>> { obj.get(key).and_then(Value::as_array) };
    if let Some(a) = arr("i") {
        return Ok(AttrValue::ListInt(
            a.iter().map(parse_i64).collect::<Result<_>>()?,
        ));
    }
    if let Some(a) = arr("f") {
        return Ok(AttrValue::ListFloat(
            a.iter().map(parse_f32).collect::<Result<_>>()?,
        ));
    }
    if let Some(a) = arr("b") {
        let v = a
            .iter()
            .map(|b| {
                b.as_bool()
                    .ok_or_else(|| invalid_argument(format!("list(bool) holds a non-bool {b}")))
            })
            .collect::<Result<_>>()?;
        return Ok(AttrValue::ListBool(v));
    }
    if let Some(a) = arr("s") {
        return Ok(AttrValue::ListStr(
            a.iter().map(parse_b64).collect::<Result<_>>()?,
        ));
    }
    if let Some(a) = arr("type") {
        return Ok(AttrValue::ListType(
            a.iter().map(parse_dtype).collect::<Result<_>>()?,
        ));
    }
    if let Some(a) = arr("shape") {
        return Ok(AttrValue::ListShape(
            a.iter().map(parse_shape).collect::<Result<_>>()?,
        ));
    }
    Ok(AttrValue::ListInt(Vec::new()))
}

pub(crate) fn parse_dtype(v: &Value) -> Result<DType> {
    let s = v
        .as_str()
        .ok_or_else(|| invalid_argument(format!("dtype must be a string, got {v}")))?;
    DType::parse(s)
}

/// Int64 as TF's JSON writes it: a decimal string (or a plain number).
pub(crate) fn parse_i64(v: &Value) -> Result<i64> {
    match v {
        Value::String(s) => s
            .parse::<i64>()
            .map_err(|_| invalid_argument(format!("'{s}' is not a valid int64"))),
        Value::Number(n) => n
            .as_i64()
            .ok_or_else(|| invalid_argument(format!("{n} is not a valid int64"))),
        other => Err(invalid_argument(format!("expected an int64, got {other}"))),
    }
}

fn parse_f32(v: &Value) -> Result<f32> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .map(|f| f as f32)
            .ok_or_else(|| invalid_argument(format!("{n} is not a float"))),
        // Protobuf JSON spells non-finite floats as strings.
        Value::String(s) => match s.as_str() {
            "NaN" => Ok(f32::NAN),
            "Infinity" => Ok(f32::INFINITY),
            "-Infinity" => Ok(f32::NEG_INFINITY),
            _ => s
                .parse::<f32>()
                .map_err(|_| invalid_argument(format!("'{s}' is not a valid float"))),
        },
        other => Err(invalid_argument(format!("expected a float, got {other}"))),
    }
}

fn parse_b64(v: &Value) -> Result<Vec<u8>> {
    let s = v
        .as_str()
        .ok_or_else(|| invalid_argument(format!("string attr must be base64 text, got {v}")))?;
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .map_err(|e| invalid_argument(format!("string attr '{s}' is not valid base64: {e}")))
}

pub(crate) fn parse_shape(v: &Value) -> Result<ShapeAttr> {
    if v.get("unknownRank").and_then(Value::as_bool) == Some(true) {
        return Ok(None);
    }
    let dims = match v.get("dim") {
        None => return Ok(Some(Vec::new())),
        Some(d) => d
            .as_array()
            .ok_or_else(|| invalid_argument(format!("shape 'dim' must be a list, got {d}")))?,
    };
    let mut out = Vec::with_capacity(dims.len());
    for d in dims {
        let size = match d.get("size") {
            Some(s) => parse_i64(s)?,
            None => 0,
        };
        if size < -1 {
            return Err(invalid_argument(format!(
                "shape has invalid dimension {size}"
            )));
        }
        out.push(size);
    }
    Ok(Some(out))
}

/// A TensorProto in JSON: `dtype`, `tensorShape`, and values in `tensorContent` (base64, little
/// endian) or a typed `*Val` list (a single value broadcasts, as in TF).
fn parse_tensor_proto(v: &Value) -> Result<Tensor> {
    let dtype = parse_dtype(v.get("dtype").unwrap_or(&Value::Null))?;
    let dims = match v.get("tensorShape") {
        Some(s) => parse_shape(s)?.unwrap_or_default(),
        None => Vec::new(),
    };
    let shape = crate::tensor::Shape::from_i64(&dims)?;
    let n = shape.num_elements();
    if let Some(content) = v.get("tensorContent") {
        let bytes = parse_b64(content)?;
        let data = crate::model::weights::decode_le(dtype, &bytes, n)?;
        return Tensor::new(shape, data);
    }
    let vals = |key: &str| v.get(key).and_then(Value::as_array);
    fn fill<T: crate::tensor::Element>(vals: Vec<T>, n: usize) -> Result<Vec<T>> {
        match vals.len() {
            len if len == n => Ok(vals),
            0 => crate::tensor::try_alloc(n),
            1 => {
                let mut out = crate::tensor::try_with_capacity(n)?;
                out.resize(n, vals[0]);
                Ok(out)
            }
            len => Err(invalid_argument(format!(
                "tensor attr has {len} values for {n} elements"
            ))),
        }
    }
    let data = match dtype {
        DType::Float32 => Data::F32(fill(
            vals("floatVal")
                .map(|a| a.iter().map(parse_f32).collect::<Result<Vec<_>>>())
                .transpose()?
                .unwrap_or_default(),
            n,
        )?),
        DType::Int32 => Data::I32(fill(
            vals("intVal")
                .map(|a| {
                    a.iter()
                        .map(|x| parse_i64(x).map(|i| i as i32))
                        .collect::<Result<Vec<_>>>()
                })
                .transpose()?
                .unwrap_or_default(),
            n,
        )?),
        DType::Int64 => Data::I64(fill(
            vals("int64Val")
                .map(|a| a.iter().map(parse_i64).collect::<Result<Vec<_>>>())
                .transpose()?
                .unwrap_or_default(),
            n,
        )?),
        DType::Bool => Data::Bool(fill(
            vals("boolVal")
                .map(|a| a.iter().map(|b| b.as_bool().unwrap_or(false)).collect())
                .unwrap_or_default(),
            n,
        )?),
        DType::Resource => return Err(invalid_argument("a tensor attr cannot hold a resource")),
    };
    Tensor::new(shape, data)
}

// Equality and hashing define cache-key identity: floats by bit pattern (so NaN attrs are stable),
// tensors by dtype, shape and contents.
impl PartialEq for AttrValue {
    fn eq(&self, other: &Self) -> bool {
        use AttrValue::*;
        match (self, other) {
            (Type(a), Type(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Float(a), Float(b)) => a.to_bits() == b.to_bits(),
            (Bool(a), Bool(b)) => a == b,
            (Str(a), Str(b)) => slices_eq(a, b),
            (Shape(Some(a)), Shape(Some(b))) => slices_eq(a, b),
            (Shape(a), Shape(b)) => a.is_none() && b.is_none(),
            (Tensor(a), Tensor(b)) => tensors_equal(a, b),
            (Func(a), Func(b)) => a == b,
            (ListType(a), ListType(b)) => a == b,
            (ListInt(a), ListInt(b)) => slices_eq(a, b),
            (ListFloat(a), ListFloat(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            (ListBool(a), ListBool(b)) => a == b,
            (ListStr(a), ListStr(b)) => a == b,
            (ListShape(a), ListShape(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for AttrValue {}

/// Slice equality that never calls `memcmp` for empty slices: glibc's AVX-512 `memcmp` still makes
/// a masked load for 0 bytes, and at the dangling address of an empty `Vec` that load costs a
/// fault-suppression assist (hundreds of cycles; it was a tenth of a native model load, whose cache
/// keys compare empty strings and lists).
fn slices_eq<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

fn tensors_equal(a: &Tensor, b: &Tensor) -> bool {
    if a.shares_buffer(b) {
        return a.shape() == b.shape();
    }
    a.shape() == b.shape()
        && match (a.data(), b.data()) {
            (Data::F32(x), Data::F32(y)) => {
                x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
            }
            (Data::I32(x), Data::I32(y)) => x == y,
            (Data::I64(x), Data::I64(y)) => x == y,
            (Data::Bool(x), Data::Bool(y)) => x == y,
            (Data::Resource(x), Data::Resource(y)) => x == y,
            _ => false,
        }
}

impl Hash for AttrValue {
    fn hash<H: Hasher>(&self, h: &mut H) {
        use AttrValue::*;
        std::mem::discriminant(self).hash(h);
        match self {
            Type(t) => t.hash(h),
            Int(i) => i.hash(h),
            Float(f) => f.to_bits().hash(h),
            Bool(b) => b.hash(h),
            Str(s) => s.hash(h),
            Shape(s) => s.hash(h),
            Tensor(t) => {
                t.dtype().hash(h);
                t.shape().hash(h);
                match t.data() {
                    Data::F32(v) => v.iter().for_each(|x| x.to_bits().hash(h)),
                    Data::I32(v) => v.hash(h),
                    Data::I64(v) => v.hash(h),
                    Data::Bool(v) => v.hash(h),
                    Data::Resource(r) => r.hash(h),
                }
            }
            Func(s) => s.hash(h),
            ListType(l) => l.hash(h),
            ListInt(l) => l.hash(h),
            ListFloat(l) => l.iter().for_each(|x| x.to_bits().hash(h)),
            ListBool(l) => l.hash(h),
            ListStr(l) => l.hash(h),
            ListShape(l) => l.hash(h),
        }
    }
}
