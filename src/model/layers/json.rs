//! A minimal JSON tree for Keras configs: objects as entry lists (a few keys each, scanned), numbers
//! as f64 (config numbers are small ints and floats). Smaller in the .wasm than
//! `serde_json::Value`, whose `BTreeMap` code this runtime has no other use for.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(Object),
}

/// Object entries in document order; of repeated keys the last counts, as in a map.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object(Vec<(String, Value)>);

impl Object {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|e| &e.1)
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|e| &e.0)
    }
}

impl Value {
    /// Field `key` of an object (`None` for anything else).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(o) => o.get(key),
            _ => None,
        }
    }

    /// Element `i` of an array.
    pub fn at(&self, i: usize) -> Option<&Value> {
        self.as_array()?.get(i)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v as f64))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v as f64))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Number(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = s.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(e) = m.next_entry::<String, Value>()? {
            out.push(e);
        }
        Ok(Value::Object(Object(out)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_json_as_serde_json_would() {
        let v: Value =
            serde_json::from_str(r#"{"a":[1,-2,2.5,null,true,"s"],"b":{"c":1},"a":3}"#).unwrap();
        assert_eq!(
            v.get("a"),
            Some(&Value::Number(3.0)),
            "the last of repeated keys"
        );
        assert_eq!(
            v.get("b").and_then(|b| b.get("c")),
            Some(&Value::Number(1.0))
        );
        let w: Value = serde_json::from_str(r#"[1,-2,2.5,null,true,"s",{}]"#).unwrap();
        let a = w.as_array().unwrap();
        assert_eq!(a[1].as_f64(), Some(-2.0));
        assert!(a[3].is_null() && a[4].as_bool() == Some(true) && a[5].is_string());
        assert!(a[6].is_object() && w.get("x").is_none());
        assert!(serde_json::from_str::<Value>("[1,").is_err());
    }
}
