//! TF AttrValue JSON, as the TF.js converter writes it (`{"type":"DT_FLOAT"}`, `{"i":"3"}`,
//! `{"list":{"i":[..]}}`, `{"tensor":{..}}`, ...), parsed straight from its text through serde
//! visitors: no `serde_json::Value` tree (it allocates per object, key and string, and a model load
//! reads a few hundred attrs), and one parser for every form, whose errors say what was wrong.
//!
//! Int64s arrive as strings or numbers; `s` is base64; non-finite floats are protobuf's names. When
//! an object holds several kinds, the first in `type, i, f, b, s, shape, tensor, func, list` wins.
//! An empty `{"list":{}}` is an empty int list, which `AttrValue::coerce` turns into the declared
//! list kind.

use crate::ops::{AttrValue, ShapeAttr};
use crate::status::{invalid_argument, Result};
use crate::tensor::{DType, Data, Element, Shape, Tensor, C64};
use base64::Engine;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// Starts the message of a serde error that stands for ResourceExhausted (a tensor value too large
/// to allocate), so that `from_text` reports that code rather than a malformed value.
const EXHAUSTED: &str = "ResourceExhausted: ";

/// Parses one attr value from its JSON text.
pub fn from_text(text: &str) -> Result<AttrValue> {
    serde_json::from_str::<AttrText>(text)
        .map(|a| a.0)
        .map_err(|e| {
            let m = e.to_string();
            match m.strip_prefix(EXHAUSTED) {
                Some(rest) => crate::status::resource_exhausted(rest.to_string()),
                None => invalid_argument(format!("invalid attr value: {m}")),
            }
        })
}

/// A shape (`{"dim": [...]}` or `{"unknownRank": true}`) from its JSON text.
pub fn shape_from_text(text: &str) -> Result<ShapeAttr> {
    serde_json::from_str::<ShapeText>(text)
        .map(|s| s.0)
        .map_err(|e| invalid_argument(format!("invalid shape: {e}")))
}

/// Map keys this module reads; everything else is skipped.
enum Key {
    Type,
    I,
    F,
    B,
    S,
    Shape,
    Tensor,
    Func,
    List,
    UnknownRank,
    Dim,
    Size,
    Dtype,
    TensorShape,
    TensorContent,
    FloatVal,
    IntVal,
    DoubleVal,
    Int64Val,
    BoolVal,
    ScomplexVal,
    StringVal,
    Name,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Key, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Key, E> {
                Ok(match s {
                    "type" => Key::Type,
                    "i" => Key::I,
                    "f" => Key::F,
                    "b" => Key::B,
                    "s" => Key::S,
                    "shape" => Key::Shape,
                    "tensor" => Key::Tensor,
                    "func" => Key::Func,
                    "list" => Key::List,
                    "unknownRank" => Key::UnknownRank,
                    "dim" => Key::Dim,
                    "size" => Key::Size,
                    "dtype" => Key::Dtype,
                    "tensorShape" => Key::TensorShape,
                    "tensorContent" => Key::TensorContent,
                    "floatVal" => Key::FloatVal,
                    "intVal" => Key::IntVal,
                    "doubleVal" => Key::DoubleVal,
                    "int64Val" => Key::Int64Val,
                    "boolVal" => Key::BoolVal,
                    "scomplexVal" => Key::ScomplexVal,
                    "stringVal" => Key::StringVal,
                    "name" => Key::Name,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

/// Implements `Deserialize` for a one-field wrapper through a visitor with the given methods;
/// `$expecting` completes serde's "invalid type: ..., expected ..." messages. `$de` is the
/// `Deserializer` method: `deserialize_any` for values of several JSON types, else the one for the
/// only type accepted (much less code than `deserialize_any` per visitor, same errors).
macro_rules! scalar {
    ($name:ident($ty:ty), $de:ident, $expecting:literal, $($method:item),+ $(,)?) => {
        struct $name($ty);
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<$name, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    $($method)*
                }
                d.$de(V)
            }
        }
    };
}

/// A dtype name as a model declares it: float64 is float32 here, as in TF.js, which reads every
/// `DT_DOUBLE` (attrs, Consts, signatures) as float32. The flag says the name was float64.
pub fn model_dtype(s: &str) -> Result<(DType, bool)> {
    match s {
        "DT_DOUBLE" | "float64" | "double" => Ok((DType::Float32, true)),
        other => DType::parse(other).map(|d| (d, false)),
    }
}

scalar!(
    TypeText(DType),
    deserialize_str,
    "a dtype name",
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<TypeText, E> {
        model_dtype(s)
            .map(|(d, _)| TypeText(d))
            .map_err(|e| E::custom(e.into_message()))
    }
);

// A tensor's dtype, remembering a float64 one (its `tensorContent` holds 8-byte values).
scalar!(
    TensorTypeText((DType, bool)),
    deserialize_str,
    "a dtype name",
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<TensorTypeText, E> {
        model_dtype(s)
            .map(TensorTypeText)
            .map_err(|e| E::custom(e.into_message()))
    }
);

/// Which of the two number kinds `NumVisitor` reads.
#[derive(Clone, Copy)]
enum NumKind {
    /// A decimal string (as TF writes int64s) or an integer that fits.
    Int64,
    /// A number (rounded through f64), or a string: protobuf's non-finite names or a number.
    Float,
}

/// What `NumVisitor` read: the field of the requested kind.
#[derive(Default)]
struct Num {
    int: i64,
    float: f32,
}

/// Int64s and floats accept numbers and strings, so they need `deserialize_any`: one visitor for
/// both, told which kind it reads, instantiates serde_json's any-value dispatch once, not twice.
struct NumVisitor(NumKind);

impl Visitor<'_> for NumVisitor {
    type Value = Num;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self.0 {
            NumKind::Int64 => "an int64 (a decimal string or an integer)",
            NumKind::Float => "a float",
        })
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Num, E> {
        Ok(match self.0 {
            NumKind::Int64 => Num { int: v, float: 0.0 },
            NumKind::Float => Num {
                int: 0,
                float: v as f64 as f32,
            },
        })
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Num, E> {
        match self.0 {
            NumKind::Int64 => i64::try_from(v)
                .map(|int| Num { int, float: 0.0 })
                .map_err(|_| E::custom(format_args!("{v} is not a valid int64"))),
            NumKind::Float => Ok(Num {
                int: 0,
                float: v as f64 as f32,
            }),
        }
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Num, E> {
        match self.0 {
            NumKind::Int64 => Err(E::invalid_type(de::Unexpected::Float(v), &self)),
            NumKind::Float => Ok(Num {
                int: 0,
                float: v as f32,
            }),
        }
    }
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Num, E> {
        let float = match (self.0, s) {
            (NumKind::Int64, _) => {
                return s
                    .parse()
                    .map(|int| Num { int, float: 0.0 })
                    .map_err(|_| E::custom(format_args!("'{s}' is not a valid int64")));
            }
            (NumKind::Float, "NaN") => f32::NAN,
            (NumKind::Float, "Infinity") => f32::INFINITY,
            (NumKind::Float, "-Infinity") => f32::NEG_INFINITY,
            // serde_json's number parser, not `str::parse`: that one would link core's float
            // parser and its 10 KB table into the wasm for this rare form.
            (NumKind::Float, _) => serde_json::from_str::<f64>(s)
                .map_err(|_| E::custom(format_args!("'{s}' is not a valid float")))?
                as f32,
        };
        Ok(Num { int: 0, float })
    }
}

struct I64Text(i64);

impl<'de> Deserialize<'de> for I64Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<I64Text, D::Error> {
        d.deserialize_any(NumVisitor(NumKind::Int64))
            .map(|n| I64Text(n.int))
    }
}

struct F32Text(f32);

impl<'de> Deserialize<'de> for F32Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<F32Text, D::Error> {
        d.deserialize_any(NumVisitor(NumKind::Float))
            .map(|n| F32Text(n.float))
    }
}

scalar!(
    BoolText(bool),
    deserialize_bool,
    "a bool",
    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<BoolText, E> {
        Ok(BoolText(v))
    }
);

scalar!(
    B64Text(Vec<u8>),
    deserialize_str,
    "a base64 string",
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<B64Text, E> {
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .map(B64Text)
            .map_err(|e| E::custom(format_args!("string '{s}' is not valid base64: {e}")))
    }
);

scalar!(
    StrText(String),
    deserialize_str,
    "a string",
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<StrText, E> {
        Ok(StrText(s.to_string()))
    }
);

/// Implements `Deserialize` for a JSON object read key by key: `$fold` sees each key and the map,
/// `$finish` makes the value from what was read.
macro_rules! object {
    ($name:ident, $expecting:literal, $state:ty, |$st:ident, $key:ident, $m:ident| $fold:block,
     |$fin:ident| $finish:expr) => {
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<$name, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_map<A: MapAccess<'de>>(
                        self,
                        mut $m: A,
                    ) -> std::result::Result<$name, A::Error> {
                        let mut $st = <$state>::default();
                        while let Some($key) = $m.next_key::<Key>()? {
                            $fold
                        }
                        let $fin = $st;
                        $finish.map_err(de::Error::custom)
                    }
                }
                d.deserialize_map(V)
            }
        }
    };
}

fn skip<'de, A: MapAccess<'de>>(m: &mut A) -> std::result::Result<(), A::Error> {
    m.next_value::<IgnoredAny>().map(drop)
}

/// `{"dim": [{"size": "3"}, ...]}` or `{"unknownRank": true}`.
struct ShapeText(ShapeAttr);

object!(
    ShapeText,
    "a shape",
    (bool, Vec<DimText>),
    |st, k, m| {
        match k {
            Key::UnknownRank => st.0 = m.next_value::<BoolText>()?.0,
            Key::Dim => st.1 = m.next_value()?,
            _ => skip(&mut m)?,
        }
    },
    |st| {
        let (unknown_rank, dims) = st;
        match dims.iter().find(|d| d.0 < -1) {
            _ if unknown_rank => Ok(ShapeText(None)),
            Some(d) => Err(format!("shape has invalid dimension {}", d.0)),
            None => Ok(ShapeText(Some(dims.into_iter().map(|d| d.0).collect()))),
        }
    }
);

/// `{"size": "3"}`; a missing size is 0, as in the proto.
struct DimText(i64);

object!(
    DimText,
    "a dim",
    i64,
    |st, k, m| {
        match k {
            Key::Size => st = m.next_value::<I64Text>()?.0,
            _ => skip(&mut m)?,
        }
    },
    |st| Ok::<_, String>(DimText(st))
);

/// A JSON array of `W`s as a `Vec<T>`.
struct ListOf<W, T>(Vec<T>, std::marker::PhantomData<W>);

impl<'de, W: Deserialize<'de> + Inner<T>, T> Deserialize<'de> for ListOf<W, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<W, T>(std::marker::PhantomData<(W, T)>);
        impl<'de, W: Deserialize<'de> + Inner<T>, T> Visitor<'de> for V<W, T> {
            type Value = ListOf<W, T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut s: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(s.size_hint().unwrap_or(0));
                while let Some(w) = s.next_element::<W>()? {
                    out.push(w.inner());
                }
                Ok(ListOf(out, std::marker::PhantomData))
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}

trait Inner<T> {
    fn inner(self) -> T;
}

macro_rules! inner {
    ($($w:ident => $t:ty),*) => {
        $(impl Inner<$t> for $w {
            fn inner(self) -> $t {
                self.0
            }
        })*
    };
}

inner!(TypeText => DType, I64Text => i64, F32Text => f32, BoolText => bool,
        B64Text => Vec<u8>, ShapeText => ShapeAttr);

fn list<'de, A: MapAccess<'de>, W: Deserialize<'de> + Inner<T>, T>(
    m: &mut A,
) -> std::result::Result<Option<Vec<T>>, A::Error> {
    Ok(Some(m.next_value::<ListOf<W, T>>()?.0))
}

/// `{"list": {...}}`: the first present kind in the order below; no kind is an empty int list.
struct ListText(AttrValue);

#[derive(Default)]
struct ListState {
    i: Option<Vec<i64>>,
    f: Option<Vec<f32>>,
    b: Option<Vec<bool>>,
    s: Option<Vec<Vec<u8>>>,
    t: Option<Vec<DType>>,
    sh: Option<Vec<ShapeAttr>>,
}

object!(
    ListText,
    "a list attr",
    ListState,
    |st, k, m| {
        match k {
            Key::I => st.i = list::<_, I64Text, _>(&mut m)?,
            Key::F => st.f = list::<_, F32Text, _>(&mut m)?,
            Key::B => st.b = list::<_, BoolText, _>(&mut m)?,
            Key::S => st.s = list::<_, B64Text, _>(&mut m)?,
            Key::Type => st.t = list::<_, TypeText, _>(&mut m)?,
            Key::Shape => st.sh = list::<_, ShapeText, _>(&mut m)?,
            _ => skip(&mut m)?,
        }
    },
    |st| Ok::<_, String>(ListText(if let Some(v) = st.i {
        AttrValue::ListInt(v)
    } else if let Some(v) = st.f {
        AttrValue::ListFloat(v)
    } else if let Some(v) = st.b {
        AttrValue::ListBool(v)
    } else if let Some(v) = st.s {
        AttrValue::ListStr(v)
    } else if let Some(v) = st.t {
        AttrValue::ListType(v)
    } else if let Some(v) = st.sh {
        AttrValue::ListShape(v)
    } else {
        AttrValue::ListInt(Vec::new())
    }))
);

/// `{"name": "f"}`; a missing name is empty.
struct FuncText(String);

object!(
    FuncText,
    "a function",
    String,
    |st, k, m| {
        match k {
            Key::Name => st = m.next_value::<StrText>()?.0,
            _ => skip(&mut m)?,
        }
    },
    |st| Ok::<_, String>(FuncText(st))
);

/// A TensorProto: `dtype`, `tensorShape`, and values in `tensorContent` (base64, little endian) or
/// a typed `*Val` list (a single value broadcasts, as in TF).
struct TensorText(Tensor);

#[derive(Default)]
struct TensorState {
    dtype: Option<DType>,
    /// Declared float64: `tensorContent` holds f64s, narrowed to f32.
    double: bool,
    shape: ShapeAttr,
    content: Option<Vec<u8>>,
    floats: Vec<f32>,
    ints: Vec<i64>,
    int64s: Vec<i64>,
    bools: Vec<bool>,
    /// complex64 values as (real, imaginary) pairs, flattened (TF's `scomplex_val`).
    complex: Vec<f32>,
    strings: Vec<Vec<u8>>,
}

object!(
    TensorText,
    "a tensor",
    TensorState,
    |st, k, m| {
        match k {
            Key::Dtype => {
                let (dtype, double) = m.next_value::<TensorTypeText>()?.0;
                (st.dtype, st.double) = (Some(dtype), double);
            }
            Key::TensorShape => st.shape = m.next_value::<ShapeText>()?.0,
            Key::TensorContent => st.content = Some(m.next_value::<B64Text>()?.0),
            Key::FloatVal | Key::DoubleVal => st.floats = m.next_value::<ListOf<F32Text, f32>>()?.0,
            Key::IntVal => st.ints = m.next_value::<ListOf<I64Text, i64>>()?.0,
            Key::Int64Val => st.int64s = m.next_value::<ListOf<I64Text, i64>>()?.0,
            Key::BoolVal => st.bools = m.next_value::<ListOf<BoolText, bool>>()?.0,
            Key::ScomplexVal => st.complex = m.next_value::<ListOf<F32Text, f32>>()?.0,
            Key::StringVal => st.strings = m.next_value::<ListOf<B64Text, Vec<u8>>>()?.0,
            _ => skip(&mut m)?,
        }
    },
    |st| tensor_from_proto(st).map(TensorText).map_err(|e| {
        if e.code == crate::status::Code::ResourceExhausted {
            format!("{EXHAUSTED}{}", e.into_message())
        } else {
            e.into_message()
        }
    })
);

fn tensor_from_proto(st: TensorState) -> Result<Tensor> {
    let dtype = st
        .dtype
        .ok_or_else(|| invalid_argument("tensor attr has no dtype"))?;
    let shape = Shape::from_i64(&st.shape.unwrap_or_default())?;
    let n = shape.num_elements();
    if let Some(bytes) = st.content {
        let data = if st.double {
            super::weights::decode_f64_as_f32(&bytes, n)?
        } else {
            super::weights::decode_le(dtype, &bytes, n)?
        };
        return Tensor::new(shape, data);
    }
    fn fill<T: Element>(vals: Vec<T>, n: usize) -> Result<Vec<T>> {
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
        DType::Float32 => Data::F32(fill(st.floats, n)?),
        // TF's intVal holds int32s; wider values wrap, as a proto int32 field would.
        DType::Int32 => Data::I32(fill(st.ints.into_iter().map(|i| i as i32).collect(), n)?),
        DType::Int64 => Data::I64(fill(st.int64s, n)?),
        DType::Bool => Data::Bool(fill(st.bools, n)?),
        // uint8 values travel in intVal, like int32.
        DType::UInt8 => Data::U8(fill(st.ints.into_iter().map(|i| i as u8).collect(), n)?),
        DType::Complex64 => {
            if st.complex.len() % 2 != 0 {
                return Err(invalid_argument(
                    "a complex64 tensor attr's scomplexVal holds an odd number of floats",
                ));
            }
            let pairs = st.complex.chunks_exact(2).map(|p| C64::new(p[0], p[1]));
            Data::C64(fill(pairs.collect(), n)?)
        }
        // stringVal: base64 bytes per element, one repeated as the numeric lists are.
        DType::String => Data::Str(match st.strings.len() {
            len if len == n => st.strings,
            0 => crate::tensor::try_alloc_strings(n)?,
            1 => {
                let mut out = crate::tensor::try_alloc_strings(0)?;
                out.try_reserve_exact(n).map_err(|_| {
                    crate::status::resource_exhausted(format!("out of memory for {n} strings"))
                })?;
                out.resize(n, st.strings[0].clone());
                out
            }
            len => {
                return Err(invalid_argument(format!(
                    "tensor attr has {len} values for {n} elements"
                )))
            }
        }),
        DType::Resource => return Err(invalid_argument("a tensor attr cannot hold a resource")),
    };
    Tensor::new(shape, data)
}

/// A whole attr value.
struct AttrText(AttrValue);

#[derive(Default)]
struct AttrState {
    ty: Option<DType>,
    i: Option<i64>,
    f: Option<f32>,
    b: Option<bool>,
    s: Option<Vec<u8>>,
    shape: Option<ShapeAttr>,
    tensor: Option<Tensor>,
    func: Option<String>,
    list: Option<AttrValue>,
}

// Duplicate keys: the last wins.
object!(
    AttrText,
    "an attr value object",
    AttrState,
    |st, k, m| {
        match k {
            Key::Type => st.ty = Some(m.next_value::<TypeText>()?.0),
            Key::I => st.i = Some(m.next_value::<I64Text>()?.0),
            Key::F => st.f = Some(m.next_value::<F32Text>()?.0),
            Key::B => st.b = Some(m.next_value::<BoolText>()?.0),
            Key::S => st.s = Some(m.next_value::<B64Text>()?.0),
            Key::Shape => st.shape = Some(m.next_value::<ShapeText>()?.0),
            Key::Tensor => st.tensor = Some(m.next_value::<TensorText>()?.0),
            Key::Func => st.func = Some(m.next_value::<FuncText>()?.0),
            Key::List => st.list = Some(m.next_value::<ListText>()?.0),
            _ => skip(&mut m)?,
        }
    },
    |st| {
        let v = st
            .ty
            .map(AttrValue::Type)
            .or(st.i.map(AttrValue::Int))
            .or(st.f.map(AttrValue::Float))
            .or(st.b.map(AttrValue::Bool))
            .or(st.s.map(AttrValue::Str))
            .or(st.shape.map(AttrValue::Shape))
            .or(st.tensor.map(AttrValue::Tensor))
            .or(st.func.map(AttrValue::Func))
            .or(st.list);
        v.map(AttrText)
            .ok_or("no known kind (type, i, f, b, s, shape, tensor, func or list)")
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> AttrValue {
        from_text(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// Fails with InvalidArgument, and the message mentions `what`.
    fn fails(text: &str, what: &str) {
        let e = from_text(text).expect_err(text);
        assert_eq!(e.code, crate::status::Code::InvalidArgument, "{text}");
        assert!(e.message.contains(what), "{text}: {}", e.message);
    }

    #[test]
    fn scalars() {
        use AttrValue::*;
        assert_eq!(ok(r#"{"type":"DT_FLOAT"}"#), Type(DType::Float32));
        assert_eq!(ok(r#"{"type":"DT_DOUBLE"}"#), Type(DType::Float32));
        assert_eq!(
            ok(r#"{"list":{"type":["DT_DOUBLE","DT_INT32"]}}"#),
            AttrValue::ListType(vec![DType::Float32, DType::Int32])
        );
        assert_eq!(ok(r#"{"i":"3"}"#), Int(3));
        assert_eq!(ok(r#"{"i":-7}"#), Int(-7));
        assert_eq!(ok(r#"{"f":0.1}"#), Float(0.1));
        assert_eq!(ok(r#"{"f":3}"#), Float(3.0));
        assert_eq!(ok(r#"{"f":"1e3"}"#), Float(1000.0));
        assert_eq!(ok(r#"{"f":"-Infinity"}"#), Float(f32::NEG_INFINITY));
        assert!(matches!(ok(r#"{"f":"NaN"}"#), Float(f) if f.is_nan()));
        assert_eq!(ok(r#"{"b":true}"#), Bool(true));
        assert_eq!(ok(r#"{"s":"TkhXQw=="}"#), Str(b"NHWC".to_vec()));
        assert_eq!(ok(r#"{"func":{"name":"f"}}"#), Func("f".into()));
        assert_eq!(ok(r#"{"func":{}}"#), Func(String::new()));
        // Escaped keys are still keys; the last of duplicate keys wins; kinds have an order.
        assert_eq!(ok(r#"{"t\u0079pe":"DT_BOOL"}"#), Type(DType::Bool));
        assert_eq!(ok(r#"{"i":"1","i":"2"}"#), Int(2));
        assert_eq!(ok(r#"{"other":1,"b":false,"i":"4"}"#), Int(4));
    }

    #[test]
    fn shapes_and_lists() {
        use AttrValue::*;
        let shape = |t: &str| match ok(t) {
            Shape(s) => s,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            shape(r#"{"shape":{"dim":[{"size":"-1"},{"size":"3"},{}]}}"#),
            Some(vec![-1, 3, 0])
        );
        assert_eq!(shape(r#"{"shape":{"unknownRank":true,"dim":[]}}"#), None);
        assert_eq!(shape(r#"{"shape":{}}"#), Some(vec![]));
        assert_eq!(ok(r#"{"list":{}}"#), ListInt(vec![]));
        assert_eq!(
            ok(r#"{"list":{"i":["1","2"],"f":[1.0]}}"#),
            ListInt(vec![1, 2])
        );
        assert_eq!(ok(r#"{"list":{"f":[1.5]}}"#), ListFloat(vec![1.5]));
        assert_eq!(
            ok(r#"{"list":{"b":[true,false]}}"#),
            ListBool(vec![true, false])
        );
        assert_eq!(
            ok(r#"{"list":{"s":["U0FNRQ==","VkFMSUQ="]}}"#),
            ListStr(vec![b"SAME".to_vec(), b"VALID".to_vec()])
        );
        assert_eq!(
            ok(r#"{"list":{"type":["DT_FLOAT","DT_INT32"]}}"#),
            ListType(vec![DType::Float32, DType::Int32])
        );
        assert_eq!(
            ok(r#"{"list":{"shape":[{"dim":[{"size":"2"}]},{"unknownRank":true}]}}"#),
            ListShape(vec![Some(vec![2]), None])
        );
        assert_eq!(ok(r#"{"list":{"func":[]}}"#), ListInt(vec![]));
        assert_eq!(
            shape_from_text(r#"{"dim":[{"size":"-1"},{"size":"32"}]}"#).unwrap(),
            Some(vec![-1, 32])
        );
        assert_eq!(shape_from_text(r#"{"unknownRank":true}"#).unwrap(), None);
        assert!(shape_from_text(r#"{"dim":[{"size":"-5"}]}"#).is_err());
        assert!(shape_from_text(r#"{"dim":"x"}"#).is_err());
        assert!(shape_from_text("7").is_err());
    }

    #[test]
    fn tensors() {
        let t = |text: &str| match ok(text) {
            AttrValue::Tensor(t) => t,
            other => panic!("{other:?}"),
        };
        // A single value broadcasts; no values are zeros.
        let a = t(
            r#"{"tensor":{"dtype":"DT_INT32","tensorShape":{"dim":[{"size":"2"}]},"intVal":[3]}}"#,
        );
        assert_eq!(
            (a.dims(), a.as_slice::<i32>().unwrap()),
            (&[2usize][..], &[3, 3][..])
        );
        let b = t(
            r#"{"tensor":{"dtype":"DT_FLOAT","tensorShape":{"dim":[{"size":"2"}]},"floatVal":[1.5,"NaN"]}}"#,
        );
        assert_eq!(b.f32s().unwrap()[0], 1.5);
        assert!(b.f32s().unwrap()[1].is_nan());
        let c = t(r#"{"tensor":{"dtype":"DT_INT64","tensorShape":{"dim":[{"size":"3"}]}}}"#);
        assert_eq!(c.to_i64_vec().unwrap(), vec![0, 0, 0]);
        // 2 little-endian int32s, base64.
        let d = t(
            r#"{"tensor":{"dtype":"DT_INT32","tensorShape":{"dim":[{"size":"2"}]},"tensorContent":"AQAAAP////8="}}"#,
        );
        assert_eq!(d.as_slice::<i32>().unwrap(), &[1, -1]);
        let e = t(r#"{"tensor":{"dtype":"DT_BOOL","boolVal":[true]}}"#);
        assert_eq!(
            (e.dims(), e.as_slice::<bool>().unwrap()),
            (&[][..], &[true][..])
        );
        // float64 is float32 (as in TF.js): 8-byte tensorContent and doubleVal narrowed.
        let f = t(
            r#"{"tensor":{"dtype":"DT_DOUBLE","tensorShape":{"dim":[{"size":"2"}]},"tensorContent":"mpmZmZmZuT8AAAAAAAAEwA=="}}"#,
        );
        assert_eq!(f.f32s().unwrap(), &[0.1f64 as f32, -2.5]);
        let g = t(r#"{"tensor":{"dtype":"DT_DOUBLE","doubleVal":[0.1]}}"#);
        assert_eq!((g.dims(), g.f32s().unwrap()), (&[][..], &[0.1f32][..]));
        // complex64: interleaved (re, im) float32s in tensorContent, pairs in scomplexVal (one
        // pair broadcasts); an odd count is refused.
        let z = t(
            r#"{"tensor":{"dtype":"DT_COMPLEX64","tensorShape":{"dim":[{"size":"2"}]},"tensorContent":"AADAPwAAAMAAAAAAAABAQA=="}}"#,
        );
        assert_eq!(
            z.as_slice::<C64>().unwrap(),
            &[C64::new(1.5, -2.0), C64::new(0.0, 3.0)]
        );
        let z = t(
            r#"{"tensor":{"dtype":"DT_COMPLEX64","tensorShape":{"dim":[{"size":"3"}]},"scomplexVal":[1,-1]}}"#,
        );
        assert_eq!(z.as_slice::<C64>().unwrap(), &[C64::new(1.0, -1.0); 3]);
        assert!(from_text(r#"{"tensor":{"dtype":"DT_COMPLEX64","scomplexVal":[1]}}"#).is_err());
        // `type` comes before `tensor`.
        assert_eq!(
            ok(r#"{"tensor":{"dtype":"DT_INT32"},"type":"DT_FLOAT"}"#),
            AttrValue::Type(DType::Float32)
        );
    }

    #[test]
    fn malformed_values_say_what_is_wrong() {
        fails(r#"{"type":"DT_HALF"}"#, "unsupported dtype 'DT_HALF'");
        fails(r#"{"i":"x"}"#, "'x' is not a valid int64");
        fails(r#"{"i":18446744073709551615}"#, "not a valid int64");
        fails(r#"{"i":1.5}"#, "expected an int64");
        fails(r#"{"f":"fast"}"#, "'fast' is not a valid float");
        fails(r#"{"b":"yes"}"#, "expected a bool");
        fails(r#"{"s":"!!"}"#, "not valid base64");
        fails(
            r#"{"shape":{"dim":[{"size":"-2"}]}}"#,
            "invalid dimension -2",
        );
        fails(r#"{"shape":7}"#, "expected a shape");
        fails(r#"{"list":{"i":"notalist"}}"#, "expected a list");
        fails(r#"{"list":5}"#, "expected a list attr");
        fails(r#"{"tensor":{"tensorShape":{}}}"#, "no dtype");
        fails(
            r#"{"tensor":{"dtype":"DT_INT32","tensorShape":{"dim":[{"size":"3"}]},"intVal":[1,2]}}"#,
            "2 values for 3 elements",
        );
        fails(
            r#"{"tensor":{"dtype":"DT_INT32","tensorContent":"AQAAAAEAAAA="}}"#,
            "8 bytes given for 1",
        );
        fails(
            r#"{"tensor":{"dtype":"DT_RESOURCE"}}"#,
            "cannot hold a resource",
        );
        fails(r#"{"other":1}"#, "no known kind");
        fails(r#"{}"#, "no known kind");
        fails(r#"[1]"#, "expected an attr value object");
        fails(r#""DT_FLOAT""#, "expected an attr value object");
        fails("null", "expected an attr value object");
        fails("{\"i\":", "EOF");
    }

    #[test]
    fn parses_every_fixture_attr() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/models");
        let (mut seen, mut tensors) = (0, 0);
        for dir in std::fs::read_dir(root).unwrap().flatten() {
            let Ok(text) = std::fs::read_to_string(dir.path().join("model.json")) else {
                continue;
            };
            let m: serde_json::Value = serde_json::from_str(&text).unwrap();
            for n in m["modelTopology"]["node"].as_array().unwrap() {
                for v in n["attr"].as_object().into_iter().flat_map(|a| a.values()) {
                    let parsed = ok(&v.to_string());
                    tensors += matches!(parsed, AttrValue::Tensor(_)) as usize;
                    seen += 1;
                }
            }
        }
        assert!(seen > 100 && tensors > 0, "{seen} attrs, {tensors} tensors");
    }
}
