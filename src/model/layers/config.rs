//! The layers-format `model.json` (`format: layers-model`): the Keras model config under
//! `modelTopology` (as `tensorflowjs_converter --input_format keras` writes it, under
//! `model_config`, or at top level as TF.js's `model.save()` does) and the weights manifest.
//! Layer configs are heterogeneous and read field by field, so they stay JSON trees (`json::Value`),
//! read through `Cfg`, which turns every missing or mistyped field into a typed error naming the
//! layer.

use super::json::Value;
use crate::model::format::ManifestGroup;
use crate::status::{invalid_argument, Result, Status};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct LayersJson<'a> {
    #[serde(default)]
    pub format: Option<String>,
    #[serde(rename = "modelTopology", default)]
    pub model_topology: Option<Value>,
    #[serde(rename = "weightsManifest", borrow, default)]
    pub weights_manifest: Option<Vec<ManifestGroup<'a>>>,
}

pub fn parse(model_json: &str) -> Result<LayersJson<'_>> {
    let m: LayersJson = serde_json::from_str(model_json).map_err(|e| {
        invalid_argument(format!("model.json is not a valid TF.js layers model: {e}"))
    })?;
    if let Some(f) = &m.format {
        if f != "layers-model" {
            return Err(invalid_argument(format!(
                "model.json has format '{f}'; loadLayersModel reads 'layers-model' \
                 (use loadGraphModel for graph models)"
            )));
        }
    }
    if m.model_topology.is_none() {
        return Err(invalid_argument("model.json has no 'modelTopology'"));
    }
    Ok(m)
}

/// The model's `{class_name, config}`: `modelTopology.model_config` (converter) or
/// `modelTopology` itself (TF.js `model.save()`).
pub fn model_config(topology: &Value) -> Result<&Value> {
    let t = topology
        .as_object()
        .ok_or_else(|| invalid_argument("modelTopology must be an object"))?;
    Ok(t.get("model_config").unwrap_or(topology))
}

/// One layer's `config` object, with its layer name for error messages.
#[derive(Clone, Copy)]
pub struct Cfg<'a> {
    pub map: Option<&'a super::json::Object>,
    pub layer: &'a str,
}

impl<'a> Cfg<'a> {
    pub fn new(config: &'a Value, layer: &'a str) -> Result<Cfg<'a>> {
        let map = match config {
            Value::Object(m) => Some(m),
            Value::Null => None,
            _ => {
                return Err(invalid_argument(format!(
                    "layer '{layer}': config must be an object"
                )))
            }
        };
        Ok(Cfg { map, layer })
    }

    pub fn err(&self, msg: impl std::fmt::Display) -> Status {
        invalid_argument(format!("layer '{}': {msg}", self.layer))
    }

    /// The field, `None` if absent or null.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map?.get(key).filter(|v| !v.is_null())
    }

    pub fn int(&self, key: &str) -> Result<i64> {
        self.opt_int(key)?
            .ok_or_else(|| self.err(format!("config has no '{key}'")))
    }

    pub fn opt_int(&self, key: &str) -> Result<Option<i64>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => as_int(v)
                .map(Some)
                .ok_or_else(|| self.err(format!("'{key}' must be an integer, got {}", kind(v)))),
        }
    }

    /// A positive integer (units, filters, sizes): bounded, so shapes built from it can't overflow.
    pub fn count(&self, key: &str) -> Result<usize> {
        let v = self.int(key)?;
        const MAX: i64 = 1 << 24;
        if v < 1 {
            return Err(self.err(format!("'{key}' must be a positive integer, got {v}")));
        }
        if v > MAX {
            return Err(self.err(format!("'{key}' {v} exceeds the limit of {MAX}")));
        }
        Ok(v as usize)
    }

    pub fn float(&self, key: &str, default: f64) -> Result<f64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .ok_or_else(|| self.err(format!("'{key}' must be a number, got {}", kind(v)))),
        }
    }

    pub fn opt_float(&self, key: &str) -> Result<Option<f64>> {
        self.get(key).map(|_| self.float(key, 0.0)).transpose()
    }

    pub fn bool(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_bool()
                .ok_or_else(|| self.err(format!("'{key}' must be true or false, got {}", kind(v)))),
        }
    }

    pub fn str(&self, key: &str, default: &'a str) -> Result<&'a str> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_str()
                .ok_or_else(|| self.err(format!("'{key}' must be a string, got {}", kind(v)))),
        }
    }

    /// An int or a list of ints, as `n` values (an int repeats). Keras writes `kernel_size: [3, 3]`
    /// but TF.js and hand-written configs may give `3`.
    pub fn ints(&self, key: &str, n: usize, default: Option<i64>) -> Result<Vec<i64>> {
        match self.get(key) {
            None => default
                .map(|d| vec![d; n])
                .ok_or_else(|| self.err(format!("config has no '{key}'"))),
            Some(v) => {
                let list = int_list(v).ok_or_else(|| {
                    self.err(format!("'{key}' must be integers, got {}", kind(v)))
                })?;
                match list.len() {
                    1 => Ok(vec![list[0]; n]),
                    l if l == n => Ok(list),
                    l => Err(self.err(format!("'{key}' has {l} values, expected {n}"))),
                }
            }
        }
    }

    /// A list of ints of any length (`Reshape.target_shape`, `Permute.dims`, axes), or an int.
    pub fn int_vec(&self, key: &str) -> Result<Option<Vec<i64>>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => int_list(v)
                .map(Some)
                .ok_or_else(|| self.err(format!("'{key}' must be integers, got {}", kind(v)))),
        }
    }

    /// Per-axis `(before, after)` pairs for `n` axes from an int, a pair or one pair per axis (the
    /// shapes `ZeroPadding*` and `Cropping*` accept).
    pub fn pairs(&self, key: &str, n: usize) -> Result<Vec<(i64, i64)>> {
        let bad = || self.err(format!("'{key}' must be an int, a pair or {n} pairs"));
        let v = self
            .get(key)
            .ok_or_else(|| self.err(format!("config has no '{key}'")))?;
        let out = if let Some(i) = as_int(v) {
            vec![(i, i); n]
        } else {
            let a = v.as_array().ok_or_else(bad)?;
            if a.iter().all(|e| as_int(e).is_some()) {
                let ints: Vec<i64> = a.iter().filter_map(as_int).collect();
                match (n, ints.len()) {
                    (1, 2) => vec![(ints[0], ints[1])],
                    (_, l) if l == n => ints.iter().map(|&i| (i, i)).collect(),
                    _ => return Err(bad()),
                }
            } else {
                let mut out = Vec::new();
                for e in a {
                    let p = if let Some(i) = as_int(e) {
                        (i, i)
                    } else {
                        let p = int_list(e).filter(|p| p.len() == 2).ok_or_else(bad)?;
                        (p[0], p[1])
                    };
                    out.push(p);
                }
                if out.len() != n {
                    return Err(bad());
                }
                out
            }
        };
        const MAX: i64 = 1 << 20;
        if out.iter().any(|&(a, b)| a < 0 || b < 0) {
            return Err(self.err(format!("'{key}' values must be non-negative")));
        }
        if let Some(&(a, b)) = out.iter().find(|&&(a, b)| a > MAX || b > MAX) {
            return Err(self.err(format!(
                "'{key}' value {} exceeds the limit of {MAX}",
                a.max(b)
            )));
        }
        Ok(out)
    }

    /// A nested layer's `{class_name, config}` (`Bidirectional.layer`, `TimeDistributed.layer`).
    pub fn object(&self, key: &str) -> Result<&'a Value> {
        self.get(key)
            .filter(|v| v.is_object())
            .ok_or_else(|| self.err(format!("config has no object '{key}'")))
    }
}

/// What a JSON value is, for error messages (printing the value itself would pull serde_json's
/// serializer into the .wasm).
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A whole number (ints are read as f64: exact up to 2^53, far beyond any config value).
pub fn as_int(v: &Value) -> Option<i64> {
    v.as_f64()
        .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
        .map(|f| f as i64)
}

fn int_list(v: &Value) -> Option<Vec<i64>> {
    if let Some(i) = as_int(v) {
        return Some(vec![i]);
    }
    v.as_array()?.iter().map(as_int).collect()
}

/// `class_name` and `config` of a `{class_name, config}` object.
pub fn class_and_config(v: &Value) -> Result<(&str, &Value)> {
    let class = v
        .get("class_name")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid_argument("layer config without 'class_name'"))?;
    const NULL: &Value = &Value::Null;
    Ok((class, v.get("config").unwrap_or(NULL)))
}
