//! Attr values (TF's AttrValue) and their kinds; `model::attr_json` parses them from model.json.

use crate::tensor::{DType, Data, Tensor};
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

    /// Short rendering for error messages: the value as a graph would write it (`3`, `0.5`,
    /// `float32`, `[1, -1]`, `"SAME"`). Not `Debug`: the derived `Debug` of every variant (tensors
    /// included) and float `Debug` were linked into the wasm for these messages only (7 KB).
    pub fn describe(&self) -> String {
        // Not generic: one copy for every list kind.
        fn list(items: &mut dyn Iterator<Item = String>) -> String {
            let items: Vec<String> = items.collect();
            format!("[{}]", items.join(", "))
        }
        fn string(s: &[u8]) -> String {
            format!("\"{}\"", String::from_utf8_lossy(s))
        }
        fn shape(s: &ShapeAttr) -> String {
            match s {
                Some(dims) => format!("shape {dims:?}"),
                None => "shape of unknown rank".to_string(),
            }
        }
        match self {
            AttrValue::Type(t) => t.to_string(),
            AttrValue::Int(i) => i.to_string(),
            AttrValue::Float(f) => f.to_string(),
            AttrValue::Bool(b) => b.to_string(),
            AttrValue::Str(s) => string(s),
            AttrValue::Shape(s) => shape(s),
            AttrValue::Tensor(t) => format!("<{} tensor {}>", t.dtype(), t.shape()),
            AttrValue::Func(name) => format!("function '{name}'"),
            AttrValue::ListType(l) => list(&mut l.iter().map(|t| t.to_string())),
            AttrValue::ListInt(l) => format!("{l:?}"),
            AttrValue::ListFloat(l) => list(&mut l.iter().map(|f| f.to_string())),
            AttrValue::ListBool(l) => list(&mut l.iter().map(|b| b.to_string())),
            AttrValue::ListStr(l) => list(&mut l.iter().map(|s| string(s))),
            AttrValue::ListShape(l) => list(&mut l.iter().map(shape)),
        }
    }
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
            (Tensor(a), Tensor(b)) => a.bitwise_eq(b),
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
                    Data::U8(v) => v.hash(h),
                    Data::C64(v) => v
                        .iter()
                        .for_each(|c| (c.re.to_bits(), c.im.to_bits()).hash(h)),
                    Data::Resource(r) => r.hash(h),
                    Data::Str(v) => v.hash(h),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_writes_values_as_a_graph_would() {
        let cases = [
            (AttrValue::Int(3), "3"),
            (AttrValue::Float(0.5), "0.5"),
            (AttrValue::Type(DType::Int64), "int64"),
            (AttrValue::Str(b"SAME".to_vec()), "\"SAME\""),
            (AttrValue::Shape(Some(vec![1, -1])), "shape [1, -1]"),
            (AttrValue::Shape(None), "shape of unknown rank"),
            (AttrValue::ListFloat(vec![1.5, -2.0]), "[1.5, -2]"),
            (AttrValue::ListStr(vec![b"a".to_vec()]), "[\"a\"]"),
            (AttrValue::ListShape(vec![None]), "[shape of unknown rank]"),
        ];
        for (v, want) in cases {
            assert_eq!(v.describe(), want);
        }
    }
}
