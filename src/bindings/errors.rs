//! Status -> JS: every failure crosses the boundary as a plain object `{ __eagerError: true, code,
//! message }`, which the JS wrapper turns into a thrown `EagerError` (so `instanceof` works against
//! the class the package exports, and the wasm module needs no import of it).

use crate::status::{failed_precondition, invalid_argument, Status};
use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;

pub type JsResult<T> = std::result::Result<T, JsValue>;

/// The structured error the wrapper recognises.
pub fn to_js(status: Status) -> JsValue {
    let o = Object::new();
    // Reflect::set on a fresh plain object cannot fail; ignore the Ok(true).
    let _ = Reflect::set(&o, &"__eagerError".into(), &JsValue::TRUE);
    let _ = Reflect::set(&o, &"code".into(), &status.code.name().into());
    let _ = Reflect::set(&o, &"message".into(), &status.into_message().into());
    o.into()
}

/// `?`-friendly conversion: `core_call().map_err(js)?`.
pub fn js(status: Status) -> JsValue {
    to_js(status)
}

/// Refuses a call that allocates when memory is too full for it to finish safely (see
/// `memory::ensure_headroom`): ResourceExhausted instead of an abort midway.
pub fn headroom() -> crate::status::Result<()> {
    if crate::memory::ensure_headroom() {
        Ok(())
    } else {
        Err(crate::status::resource_exhausted(
            "out of memory: the wasm memory is full; dispose tensors or models to free some",
        ))
    }
}

pub fn disposed_context() -> Status {
    failed_precondition("this EagerContext has been disposed; create a new one")
}

pub fn busy_context() -> Status {
    failed_precondition(
        "this EagerContext is busy (called again from inside one of its own callbacks, e.g. \
         onProgress); call it after the running operation returns",
    )
}

pub fn disposed_model() -> Status {
    failed_precondition("this model has been disposed; load it again")
}

/// A short description of a JS value for error messages (error path only).
pub fn describe(v: &JsValue) -> String {
    if let Some(b) = v.as_bool() {
        format!("boolean {b}")
    } else if let Some(n) = v.as_f64() {
        format!("number {n}")
    } else if let Some(s) = v.as_string() {
        let short: String = s.chars().take(40).collect();
        format!("string \"{short}\"")
    } else if v.is_null() {
        "null".to_string()
    } else if v.is_undefined() {
        "undefined".to_string()
    } else if js_sys::Array::is_array(v) {
        "an array".to_string()
    } else if v.is_bigint() {
        "a bigint".to_string()
    } else {
        format!("{} value", v.js_typeof().as_string().unwrap_or_default())
    }
}

pub fn not_an_object(what: &str, v: &JsValue) -> Status {
    invalid_argument(format!("{what} must be an object, got {}", describe(v)))
}
