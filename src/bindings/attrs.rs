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

/// All attrs of a plain object, converted for `def`. The JS API encodes plain attrs
/// (`decode_encoded`), so this runs for what the encoding leaves out (tensor values, non-ASCII
/// strings) and for attrs that do not convert: kept out of line so that the split build can leave
/// it in the on-demand part.
#[inline(never)]
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

/// What `WasmContext::executeEncoded` returns when the encoded attrs did not convert (nothing ran).
pub const NOT_DECODED: u32 = u32::MAX;

/// Attrs as js/attrs-encode.js writes them: per attr, its name then its value. A name or string is
/// a u32 length and ASCII bytes; a value is a tag byte (0 false, 1 true, 2 number: f64, 3 string,
/// 4 null, 5 list: u32 count then values, nested at most twice), all little-endian. Converted for
/// `def` as `convert` converts the object (same values, same guesses for undeclared names), or
/// `None` if anything does not decode or convert: the caller then passes the object, and `convert`
/// reports what is wrong.
pub fn decode_encoded(def: &OpDef, bytes: &[u8]) -> Option<Vec<(Cow<'static, str>, AttrValue)>> {
    let mut r = Reader(bytes);
    let mut out = Vec::new();
    while !r.0.is_empty() {
        let name = r.str()?;
        let value = r.lit(0)?;
        out.push(match def.attrs.iter().find(|a| a.name.as_bytes() == name) {
            Some(spec) => (Cow::Borrowed(spec.name), value.convert(spec.ty)?),
            None => (
                Cow::Owned(String::from_utf8(name.to_vec()).ok()?),
                value.guess(),
            ),
        });
    }
    Some(out)
}

/// One decoded JS value.
enum Lit<'a> {
    Bool(bool),
    Num(f64),
    Str(&'a [u8]),
    Null,
    List(Vec<Lit<'a>>),
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn len(&mut self) -> Option<usize> {
        let b = self.take(4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    fn str(&mut self) -> Option<&'a [u8]> {
        let n = self.len()?;
        self.take(n)
    }

    fn lit(&mut self, depth: u32) -> Option<Lit<'a>> {
        Some(match self.take(1)?[0] {
            0 => Lit::Bool(false),
            1 => Lit::Bool(true),
            2 => {
                let b = self.take(8)?;
                Lit::Num(f64::from_le_bytes(b.try_into().ok()?))
            }
            3 => Lit::Str(self.str()?),
            4 => Lit::Null,
            5 if depth < 2 => {
                let n = self.len()?;
                // Every value takes at least a byte: a count beyond the rest is malformed.
                if n > self.0.len() {
                    return None;
                }
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.lit(depth + 1)?);
                }
                Lit::List(items)
            }
            _ => return None,
        })
    }
}

impl<'a> Lit<'a> {
    /// `int`: a whole number within JS's safe integers.
    fn int(&self) -> Option<i64> {
        match *self {
            Lit::Num(f) if f.fract() == 0.0 && f.abs() <= 9.007_199_254_740_991e15 => {
                Some(f as i64)
            }
            _ => None,
        }
    }

    fn num(&self) -> Option<f64> {
        match *self {
            Lit::Num(f) => Some(f),
            _ => None,
        }
    }

    fn bool(&self) -> Option<bool> {
        match *self {
            Lit::Bool(b) => Some(b),
            _ => None,
        }
    }

    fn bytes(&self) -> Option<Vec<u8>> {
        match *self {
            Lit::Str(s) => Some(s.to_vec()),
            _ => None,
        }
    }

    fn dtype(&self) -> Option<DType> {
        match *self {
            Lit::Str(s) => DType::parse(std::str::from_utf8(s).ok()?).ok(),
            _ => None,
        }
    }

    /// `shape`: null (unknown rank) or whole dims of at least -1.
    fn shape(&self) -> Option<ShapeAttr> {
        match self {
            Lit::Null => Some(None),
            Lit::List(dims) => {
                let dims = dims.iter().map(Lit::int).collect::<Option<Vec<i64>>>()?;
                dims.iter().all(|&d| d >= -1).then_some(Some(dims))
            }
            _ => None,
        }
    }

    fn list<T>(&self, f: impl Fn(&Lit<'a>) -> Option<T>) -> Option<Vec<T>> {
        match self {
            Lit::List(items) => items.iter().map(f).collect(),
            _ => None,
        }
    }

    fn convert(&self, ty: AttrType) -> Option<AttrValue> {
        Some(match ty {
            AttrType::Type => AttrValue::Type(self.dtype()?),
            AttrType::Int => AttrValue::Int(self.int()?),
            AttrType::Float => AttrValue::Float(self.num()? as f32),
            AttrType::Bool => AttrValue::Bool(self.bool()?),
            AttrType::String => AttrValue::Str(self.bytes()?),
            AttrType::Func => AttrValue::Func(String::from_utf8(self.bytes()?).ok()?),
            AttrType::Shape => AttrValue::Shape(self.shape()?),
            // Tensors are never encoded: they go as the object.
            AttrType::Tensor => return None,
            AttrType::ListType => AttrValue::ListType(self.list(Lit::dtype)?),
            AttrType::ListInt => AttrValue::ListInt(self.list(Lit::int)?),
            AttrType::ListFloat => AttrValue::ListFloat(self.list(|x| Some(x.num()? as f32))?),
            AttrType::ListBool => AttrValue::ListBool(self.list(Lit::bool)?),
            AttrType::ListString => AttrValue::ListStr(self.list(Lit::bytes)?),
            AttrType::ListShape => AttrValue::ListShape(self.list(Lit::shape)?),
        })
    }

    /// `guess`, for names the op does not declare.
    fn guess(&self) -> AttrValue {
        match *self {
            Lit::Bool(b) => AttrValue::Bool(b),
            Lit::Num(f) => AttrValue::Float(f as f32),
            Lit::Str(s) => AttrValue::Str(s.to_vec()),
            Lit::Null | Lit::List(_) => AttrValue::ListInt(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn text(out: &mut Vec<u8>, s: &str) {
        out.extend((s.len() as u32).to_le_bytes());
        out.extend(s.as_bytes());
    }

    fn num(out: &mut Vec<u8>, x: f64) {
        out.push(2);
        out.extend(x.to_le_bytes());
    }

    fn conv2d() -> &'static OpDef {
        crate::registry::registry().get("Conv2D").unwrap()
    }

    fn strides(out: &mut Vec<u8>, dims: &[f64]) {
        text(out, "strides");
        out.push(5);
        out.extend((dims.len() as u32).to_le_bytes());
        for &d in dims {
            num(out, d);
        }
    }

    #[wasm_bindgen_test]
    fn encoded_attrs_convert_as_the_op_declares() {
        let mut b = Vec::new();
        strides(&mut b, &[1.0, 2.0, 2.0, 1.0]);
        text(&mut b, "padding");
        b.push(3);
        text(&mut b, "SAME");
        text(&mut b, "use_cudnn_on_gpu");
        b.push(1);
        text(&mut b, "not_declared");
        num(&mut b, 0.5);
        let got = decode_encoded(conv2d(), &b).unwrap();
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_ref()).collect();
        assert_eq!(
            names,
            ["strides", "padding", "use_cudnn_on_gpu", "not_declared"]
        );
        assert!(matches!(&got[0].1, AttrValue::ListInt(v) if v == &[1, 2, 2, 1]));
        assert!(matches!(&got[1].1, AttrValue::Str(v) if v == b"SAME"));
        assert!(matches!(got[2].1, AttrValue::Bool(true)));
        assert!(matches!(got[3].1, AttrValue::Float(f) if f == 0.5));
        // Every prefix decodes or is refused; none panics.
        for n in 0..b.len() {
            let _ = decode_encoded(conv2d(), &b[..n]);
        }
    }

    #[wasm_bindgen_test]
    fn values_that_do_not_convert_are_left_to_the_object_path() {
        let refused = |b: Vec<u8>| assert!(decode_encoded(conv2d(), &b).is_none());
        // A fraction where an integer is declared, and a NaN.
        let mut b = Vec::new();
        strides(&mut b, &[1.0, 1.5, 1.0, 1.0]);
        refused(b);
        let mut b = Vec::new();
        strides(&mut b, &[1.0, f64::NAN, 1.0, 1.0]);
        refused(b);
        // A string where a list is declared; an unknown tag; a count beyond the bytes.
        let mut b = Vec::new();
        text(&mut b, "strides");
        b.push(3);
        text(&mut b, "1");
        refused(b);
        let mut b = Vec::new();
        text(&mut b, "padding");
        b.push(9);
        refused(b);
        let mut b = Vec::new();
        text(&mut b, "strides");
        b.push(5);
        b.extend(u32::MAX.to_le_bytes());
        refused(b);
        // Lists nested three deep.
        let mut b = Vec::new();
        text(&mut b, "strides");
        for _ in 0..3 {
            b.push(5);
            b.extend(1u32.to_le_bytes());
        }
        num(&mut b, 1.0);
        refused(b);
    }
}
