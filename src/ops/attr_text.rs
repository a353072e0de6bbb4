//! AttrValue JSON text straight to `AttrValue`, without a `serde_json::Value` tree in between (a
//! `Value` allocates per object, key and string, and a model load reads a few hundred attrs).
//!
//! The fast path takes the well-formed shapes the converter writes and gives up on anything else;
//! `from_text` then takes `AttrValue::from_json`'s path, which yields the exact result or error it
//! always did. So the fast path only has to agree with `from_json` where it succeeds (a test checks
//! that on every attr of every fixture model).

use super::attr::{AttrValue, ShapeAttr};
use crate::status::Result;
use crate::tensor::DType;
use base64::Engine;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// Parses one attr value from its JSON text (as `AttrValue::from_json` would parse it as a `Value`).
pub fn from_text(text: &str) -> Result<AttrValue> {
    if let Ok(Fast(v)) = serde_json::from_str::<Fast>(text) {
        return Ok(v);
    }
    // Text that is not JSON at all reads as `null`, which `from_json` reports as a non-object.
    let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    AttrValue::from_json(&v)
}

/// A shape (`{"dim": [...]}` or `{"unknownRank": true}`) from its JSON text, as `parse_shape` would
/// parse it as a `Value`.
pub fn shape_from_text(text: &str) -> Result<ShapeAttr> {
    if let Ok(ShapeText(s)) = serde_json::from_str::<ShapeText>(text) {
        return Ok(s);
    }
    let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    super::attr::parse_shape(&v)
}

/// The fast path gives up with this; the message is never shown.
fn give_up<E: de::Error>() -> E {
    E::custom("")
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
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

/// Implements `Deserialize` for a one-field wrapper through a visitor with the given methods.
macro_rules! scalar {
    ($name:ident($ty:ty), $($method:item),+ $(,)?) => {
        struct $name($ty);
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<$name, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str(stringify!($name))
                    }
                    $($method)*
                }
                d.deserialize_any(V)
            }
        }
    };
}

scalar!(
    TypeText(DType),
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<TypeText, E> {
        DType::parse(s).map(TypeText).map_err(|_| give_up())
    }
);

// Int64: a decimal string (as TF writes it) or a number that fits.
scalar!(
    I64Text(i64),
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<I64Text, E> {
        s.parse().map(I64Text).map_err(|_| give_up())
    },
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<I64Text, E> {
        Ok(I64Text(v))
    },
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<I64Text, E> {
        i64::try_from(v).map(I64Text).map_err(|_| give_up())
    }
);

// Float: a number (through f64, as `Value::as_f64` then `as f32`), or protobuf's non-finite names.
scalar!(
    F32Text(f32),
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<F32Text, E> {
        Ok(F32Text(v as f32))
    },
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<F32Text, E> {
        Ok(F32Text(v as f64 as f32))
    },
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<F32Text, E> {
        Ok(F32Text(v as f64 as f32))
    },
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<F32Text, E> {
        Ok(F32Text(match s {
            "NaN" => f32::NAN,
            "Infinity" => f32::INFINITY,
            "-Infinity" => f32::NEG_INFINITY,
            _ => s.parse().map_err(|_| give_up())?,
        }))
    }
);

scalar!(
    BoolText(bool),
    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<BoolText, E> {
        Ok(BoolText(v))
    }
);

scalar!(
    B64Text(Vec<u8>),
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<B64Text, E> {
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .map(B64Text)
            .map_err(|_| give_up())
    }
);

/// `{"dim": [{"size": "3"}, ...]}` or `{"unknownRank": true}`.
struct ShapeText(ShapeAttr);

impl<'de> Deserialize<'de> for ShapeText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<ShapeText, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ShapeText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a shape")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<ShapeText, A::Error> {
                let mut unknown_rank = false;
                let mut dims = Vec::new();
                while let Some(k) = m.next_key::<Key>()? {
                    match k {
                        Key::UnknownRank => unknown_rank = m.next_value::<BoolText>()?.0,
                        Key::Dim => dims = m.next_value::<Vec<DimText>>()?,
                        _ => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                if unknown_rank {
                    return Ok(ShapeText(None));
                }
                let dims: Vec<i64> = dims.into_iter().map(|d| d.0).collect();
                if dims.iter().any(|&d| d < -1) {
                    return Err(give_up());
                }
                Ok(ShapeText(Some(dims)))
            }
        }
        d.deserialize_map(V)
    }
}

/// `{"size": "3"}`; a missing size is 0, as in the proto.
struct DimText(i64);

impl<'de> Deserialize<'de> for DimText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<DimText, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DimText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a dim")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<DimText, A::Error> {
                let mut size = 0;
                while let Some(k) = m.next_key::<Key>()? {
                    match k {
                        Key::Size => size = m.next_value::<I64Text>()?.0,
                        _ => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(DimText(size))
            }
        }
        d.deserialize_map(V)
    }
}

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

/// `{"list": {...}}`: the first present kind in `from_json`'s order; no kind is an empty int list.
struct ListText(AttrValue);

impl<'de> Deserialize<'de> for ListText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<ListText, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ListText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list attr")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<ListText, A::Error> {
                let (mut i, mut f, mut b, mut s, mut t, mut sh) =
                    (None, None, None, None, None, None);
                while let Some(k) = m.next_key::<Key>()? {
                    match k {
                        Key::I => i = Some(m.next_value::<ListOf<I64Text, i64>>()?.0),
                        Key::F => f = Some(m.next_value::<ListOf<F32Text, f32>>()?.0),
                        Key::B => b = Some(m.next_value::<ListOf<BoolText, bool>>()?.0),
                        Key::S => s = Some(m.next_value::<ListOf<B64Text, Vec<u8>>>()?.0),
                        Key::Type => t = Some(m.next_value::<ListOf<TypeText, DType>>()?.0),
                        Key::Shape => sh = Some(m.next_value::<ListOf<ShapeText, ShapeAttr>>()?.0),
                        _ => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(ListText(if let Some(v) = i {
                    AttrValue::ListInt(v)
                } else if let Some(v) = f {
                    AttrValue::ListFloat(v)
                } else if let Some(v) = b {
                    AttrValue::ListBool(v)
                } else if let Some(v) = s {
                    AttrValue::ListStr(v)
                } else if let Some(v) = t {
                    AttrValue::ListType(v)
                } else if let Some(v) = sh {
                    AttrValue::ListShape(v)
                } else {
                    AttrValue::ListInt(Vec::new())
                }))
            }
        }
        d.deserialize_map(V)
    }
}

/// A whole attr value. Tensors and funcs (rare: inline constants) give up to the `Value` path.
struct Fast(AttrValue);

impl<'de> Deserialize<'de> for Fast {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Fast, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Fast;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an attr value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> std::result::Result<Fast, A::Error> {
                let (mut ty, mut i, mut f, mut b, mut s, mut shape, mut list) =
                    (None, None, None, None, None, None, None);
                let mut slow = false;
                // Duplicate keys: the last wins, as in a `Value` map.
                while let Some(k) = m.next_key::<Key>()? {
                    match k {
                        Key::Type => ty = Some(m.next_value::<TypeText>()?.0),
                        Key::I => i = Some(m.next_value::<I64Text>()?.0),
                        Key::F => f = Some(m.next_value::<F32Text>()?.0),
                        Key::B => b = Some(m.next_value::<BoolText>()?.0),
                        Key::S => s = Some(m.next_value::<B64Text>()?.0),
                        Key::Shape => shape = Some(m.next_value::<ShapeText>()?.0),
                        Key::List => list = Some(m.next_value::<ListText>()?.0),
                        Key::Tensor | Key::Func => {
                            m.next_value::<IgnoredAny>()?;
                            slow = true;
                        }
                        _ => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                // `from_json`'s order of precedence.
                Ok(Fast(if let Some(v) = ty {
                    AttrValue::Type(v)
                } else if let Some(v) = i {
                    AttrValue::Int(v)
                } else if let Some(v) = f {
                    AttrValue::Float(v)
                } else if let Some(v) = b {
                    AttrValue::Bool(v)
                } else if let Some(v) = s {
                    AttrValue::Str(v)
                } else if let Some(v) = shape {
                    AttrValue::Shape(v)
                } else if slow {
                    return Err(give_up());
                } else if let Some(v) = list {
                    v
                } else {
                    return Err(give_up());
                }))
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(text: &str) {
        let v: Value = serde_json::from_str(text).unwrap();
        let slow = AttrValue::from_json(&v);
        let fast = from_text(text);
        match (slow, fast) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
            (a, b) => panic!("{text}: {a:?} vs {b:?}"),
        }
    }

    #[test]
    fn agrees_with_the_value_path() {
        for t in [
            r#"{"type":"DT_FLOAT"}"#,
            r#"{"type":"DT_HALF"}"#,
            r#"{"i":"3"}"#,
            r#"{"i":-7}"#,
            r#"{"i":18446744073709551615}"#,
            r#"{"i":"x"}"#,
            r#"{"i":1.5}"#,
            r#"{"f":0.1}"#,
            r#"{"f":3}"#,
            r#"{"f":"NaN"}"#,
            r#"{"f":"-Infinity"}"#,
            r#"{"f":"1e3"}"#,
            r#"{"b":true}"#,
            r#"{"b":"yes"}"#,
            r#"{"s":"TkhXQw=="}"#,
            r#"{"s":"!!"}"#,
            r#"{"shape":{"dim":[{"size":"-1"},{"size":"3"},{}]}}"#,
            r#"{"shape":{"unknownRank":true,"dim":5}}"#,
            r#"{"shape":{"dim":[{"size":"-2"}]}}"#,
            r#"{"shape":{}}"#,
            r#"{"shape":7}"#,
            r#"{"list":{}}"#,
            r#"{"list":{"i":["1","2"],"f":[1.0]}}"#,
            r#"{"list":{"i":"notalist","f":[1.0]}}"#,
            r#"{"list":{"s":["U0FNRQ==","VkFMSUQ="]}}"#,
            r#"{"list":{"type":["DT_FLOAT","DT_INT32"]}}"#,
            r#"{"list":{"shape":[{"dim":[{"size":"2"}]},{"unknownRank":true}]}}"#,
            r#"{"list":{"b":[true,false]}}"#,
            r#"{"list":{"func":[]}}"#,
            r#"{"list":5}"#,
            r#"{"type":"DT_INT32","i":"x"}"#,
            r#"{"i":"1","i":"2"}"#,
            r#"{"t\u0079pe":"DT_BOOL"}"#,
            r#"{"func":{"name":"f"}}"#,
            r#"{"tensor":{"dtype":"DT_INT32","tensorShape":{"dim":[{"size":"2"}]},"intVal":[3]}}"#,
            r#"{"tensor":{"dtype":"DT_INT32"},"type":"DT_FLOAT"}"#,
            r#"{"other":1}"#,
            r#"{}"#,
            r#"[1]"#,
            r#""DT_FLOAT""#,
            r#"null"#,
        ] {
            same(t);
        }
    }

    #[test]
    fn shapes_agree_with_the_value_path() {
        for t in [
            r#"{"dim":[{"size":"-1"},{"size":"32"}]}"#,
            r#"{"unknownRank":true}"#,
            r#"{}"#,
            r#"{"dim":[{"size":"-5"}]}"#,
            r#"{"dim":"x"}"#,
            r#"7"#,
        ] {
            let v: Value = serde_json::from_str(t).unwrap();
            let slow = crate::ops::attr::parse_shape(&v).map_err(|e| e.to_string());
            assert_eq!(shape_from_text(t).map_err(|e| e.to_string()), slow, "{t}");
        }
    }

    #[test]
    fn agrees_on_every_fixture_attr() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/models");
        let mut seen = 0;
        for dir in std::fs::read_dir(root).unwrap().flatten() {
            let Ok(text) = std::fs::read_to_string(dir.path().join("model.json")) else {
                continue;
            };
            let m: Value = serde_json::from_str(&text).unwrap();
            for n in m["modelTopology"]["node"].as_array().unwrap() {
                for v in n["attr"].as_object().into_iter().flat_map(|a| a.values()) {
                    let text = v.to_string();
                    same(&text);
                    // Only tensors and funcs should need the slow path.
                    if v.get("tensor").is_none() && v.get("func").is_none() {
                        assert!(serde_json::from_str::<Fast>(&text).is_ok(), "{text}");
                    }
                    seen += 1;
                }
            }
        }
        assert!(seen > 100, "only {seen} attrs");
    }
}
