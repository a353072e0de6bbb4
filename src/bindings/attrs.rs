//! JS attr values -> `AttrValue`, guided by the kind the op declares for each attr
//! (`crate::registry::lookup(op).attrs`), so `{ transpose_b: true }` and `{ strides: [1, 2, 2, 1] }` need no
//! type annotations. Undeclared names are passed through with a best guess, and the core reports
//! them (with the op's real attr list).

use super::errors::{describe, not_an_object};
use super::tensor::with_table;
use crate::ops::{AttrType, AttrValue, OpDef, ShapeAttr};
use crate::status::{invalid_argument, Result, Status};
use crate::tensor::DType;
use js_sys::{Array, Object, Reflect, Uint8Array};
use std::borrow::Cow;
use wasm_bindgen::{JsCast, JsValue};

/// All attrs of a plain object, converted for `def`.
pub fn convert(
    def: &OpDef,
    attrs: &JsValue,
    ctx: u32,
) -> Result<Vec<(Cow<'static, str>, AttrValue)>> {
    if !attrs.is_object() || Array::is_array(attrs) {
        return Err(not_an_object("attrs", attrs));
    }
    let keys = Object::keys(attrs.unchecked_ref::<Object>());
    let mut out = Vec::with_capacity(keys.length() as usize);
    for key in keys.iter() {
        let name = key.as_string().unwrap_or_default();
        let value = Reflect::get(attrs, &key).unwrap_or(JsValue::UNDEFINED);
        if value.is_undefined() {
            continue; // `{ x: undefined }` means "not set", as everywhere in JS
        }
        // Declared names are passed on as the op's own `&'static str` (no allocation).
        let (name, v) = match def.attrs.iter().find(|a| a.name == name) {
            Some(spec) => (
                Cow::Borrowed(spec.name),
                convert_value(&value, spec.ty, ctx)
                    .map_err(|e| wrong(def, &name, spec.ty, &value, e))?,
            ),
            None => {
                let v = guess(&value);
                (Cow::Owned(name), v)
            }
        };
        out.push((name, v));
    }
    Ok(out)
}

fn wrong(def: &OpDef, name: &str, ty: AttrType, value: &JsValue, e: Option<Status>) -> Status {
    match e {
        Some(s) => s.context(format!("attr '{name}' of op {}", def.name)),
        None => invalid_argument(format!(
            "attr '{name}' of op {} must be {}, got {}",
            def.name,
            expected(ty),
            describe(value)
        )),
    }
}

fn expected(ty: AttrType) -> &'static str {
    match ty {
        AttrType::Type => "a dtype name ('float32', 'int32', 'int64', 'bool')",
        AttrType::Int => "an integer",
        AttrType::Float => "a number",
        AttrType::Bool => "a boolean",
        AttrType::String => "a string",
        AttrType::Shape => "a shape (array of integers, -1 for unknown; null for unknown rank)",
        AttrType::Tensor => "a Tensor",
        AttrType::Func => "a function name (string)",
        AttrType::ListType => "an array of dtype names",
        AttrType::ListInt => "an array of integers",
        AttrType::ListFloat => "an array of numbers",
        AttrType::ListBool => "an array of booleans",
        AttrType::ListString => "an array of strings",
        AttrType::ListShape => "an array of shapes",
    }
}

/// `Err(None)`: the value has the wrong JS type (the caller phrases it); `Err(Some)`: a specific error.
type Conv<T> = std::result::Result<T, Option<Status>>;

fn int(v: &JsValue) -> Conv<i64> {
    if let Some(f) = v.as_f64() {
        if f.fract() == 0.0 && f.abs() <= 9.007_199_254_740_991e15 {
            return Ok(f as i64);
        }
        return Err(None);
    }
    if v.is_bigint() {
        return i64::try_from(v.clone()).map_err(|_| None);
    }
    Err(None)
}

fn string(v: &JsValue) -> Conv<Vec<u8>> {
    if let Some(s) = v.as_string() {
        return Ok(s.into_bytes());
    }
    if let Some(a) = v.dyn_ref::<Uint8Array>() {
        return Ok(a.to_vec());
    }
    Err(None)
}

fn dtype(v: &JsValue) -> Conv<DType> {
    let s = v.as_string().ok_or(None)?;
    DType::parse(&s).map_err(Some)
}

fn shape(v: &JsValue) -> Conv<ShapeAttr> {
    if v.is_null() {
        return Ok(None);
    }
    let a = v.dyn_ref::<Array>().ok_or(None)?;
    let dims = a.iter().map(|d| int(&d)).collect::<Conv<Vec<i64>>>()?;
    if let Some(d) = dims.iter().find(|&&d| d < -1) {
        return Err(Some(invalid_argument(format!(
            "shape has invalid dimension {d}"
        ))));
    }
    Ok(Some(dims))
}

fn list<T>(v: &JsValue, f: impl Fn(&JsValue) -> Conv<T>) -> Conv<Vec<T>> {
    let a = v.dyn_ref::<Array>().ok_or(None)?;
    a.iter().map(|x| f(&x)).collect()
}

fn convert_value(v: &JsValue, ty: AttrType, ctx: u32) -> Conv<AttrValue> {
    Ok(match ty {
        AttrType::Type => AttrValue::Type(dtype(v)?),
        AttrType::Int => AttrValue::Int(int(v)?),
        AttrType::Float => AttrValue::Float(v.as_f64().ok_or(None)? as f32),
        AttrType::Bool => AttrValue::Bool(v.as_bool().ok_or(None)?),
        AttrType::String => AttrValue::Str(string(v)?),
        AttrType::Func => AttrValue::Func(v.as_string().ok_or(None)?),
        AttrType::Shape => AttrValue::Shape(shape(v)?),
        AttrType::Tensor => {
            // A Tensor of the JS wrapper: its `handle` names a slot of this context.
            if !v.is_object() {
                return Err(None);
            }
            let h = Reflect::get(v, &"handle".into())
                .ok()
                .and_then(|h| h.as_f64())
                .ok_or(None)?;
            AttrValue::Tensor(with_table(|t| t.get(h, ctx).cloned()).map_err(Some)?)
        }
        AttrType::ListType => AttrValue::ListType(list(v, dtype)?),
        AttrType::ListInt => AttrValue::ListInt(list(v, int)?),
        AttrType::ListFloat => {
            AttrValue::ListFloat(list(v, |x| x.as_f64().map(|f| f as f32).ok_or(None))?)
        }
        AttrType::ListBool => AttrValue::ListBool(list(v, |x| x.as_bool().ok_or(None))?),
        AttrType::ListString => AttrValue::ListStr(list(v, string)?),
        AttrType::ListShape => AttrValue::ListShape(list(v, shape)?),
    })
}

/// For attrs the op does not declare: a plausible value, so the core's "no attr" error is reported.
fn guess(v: &JsValue) -> AttrValue {
    if let Some(b) = v.as_bool() {
        AttrValue::Bool(b)
    } else if let Some(f) = v.as_f64() {
        AttrValue::Float(f as f32)
    } else if let Some(s) = v.as_string() {
        AttrValue::Str(s.into_bytes())
    } else {
        AttrValue::ListInt(Vec::new())
    }
}
