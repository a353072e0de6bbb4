//! The memory report and cache statistics as plain JS objects, with the field names of the JS API.

use crate::eager::{AttrStats, CacheStats, OpCacheStats};
use crate::memory::MemoryReport;
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsValue;

fn set(o: &Object, k: &str, v: impl Into<JsValue>) {
    set_value(o, k, v.into());
}

/// Out of line: inlined, each of the ~30 property sets repeated the string and reference
/// handling (these reports are not on a hot path).
#[inline(never)]
fn set_value(o: &Object, k: &str, v: JsValue) {
    // Setting a data property on a fresh plain object cannot fail.
    let _ = Reflect::set(o, &JsValue::from_str(k), &v);
}

fn num(n: usize) -> JsValue {
    JsValue::from_f64(n as f64)
}

fn num64(n: u64) -> JsValue {
    JsValue::from_f64(n as f64)
}

pub fn memory_report(m: &MemoryReport) -> JsValue {
    let o = Object::new();
    set(&o, "heapBytes", num(m.heap_bytes));
    set(&o, "heapPeakBytes", num(m.heap_peak_bytes));
    set(&o, "wasmMemoryBytes", num64(m.wasm_memory_bytes));
    set(&o, "numTensors", num(m.num_tensors));
    set(&o, "tensorBytes", num(m.tensor_bytes));
    set(&o, "numResources", num(m.num_resources));
    set(&o, "resourceBytes", num(m.resource_bytes));
    set(&o, "cacheEntries", num(m.cache_entries));
    set(&o, "cacheBytes", num(m.cache_bytes));
    set(&o, "numPacked", num(m.num_packed));
    set(&o, "packedBytes", num(m.packed_bytes));
    o.into()
}

fn op_stats(s: &OpCacheStats) -> JsValue {
    let o = Object::new();
    set(&o, "entries", num(s.entries));
    set(&o, "bytes", num(s.bytes));
    set(&o, "hits", num64(s.hits));
    set(&o, "misses", num64(s.misses));
    set(&o, "evictions", num64(s.evictions));
    set(&o, "bypassed", num64(s.bypassed));
    set(&o, "distinctKeys", num64(s.distinct_keys));
    set(&o, "distinctExact", s.distinct_exact);
    let attrs = Object::new();
    for a in &s.attrs {
        set(&attrs, a.name, attr_stats(a));
    }
    set(&o, "attrs", attrs);
    set(&o, "attrBytes", num(s.attr_bytes));
    o.into()
}

#[inline(never)]
fn attr_stats(a: &AttrStats) -> JsValue {
    let o = Object::new();
    set(&o, "distinctValues", num64(a.distinct_values));
    set(&o, "distinctExact", a.distinct_exact);
    set(&o, "variesPerCall", a.varies_per_call);
    set(
        &o,
        "examples",
        strings(&mut a.examples.iter().map(String::as_str)),
    );
    o.into()
}

/// Not generic: one copy for every caller.
fn strings(items: &mut dyn Iterator<Item = &str>) -> Array {
    let a = Array::new();
    for s in items {
        a.push(&JsValue::from_str(s));
    }
    a
}

pub fn cache_stats(s: &CacheStats) -> JsValue {
    let o = Object::new();
    set(&o, "entries", num(s.entries));
    set(&o, "bytes", num(s.bytes));
    set(&o, "hits", num64(s.hits));
    set(&o, "misses", num64(s.misses));
    set(&o, "evictions", num64(s.evictions));
    set(&o, "bypassed", num64(s.bypassed));
    set(&o, "attrBytes", num(s.attr_bytes));
    let by_op = Object::new();
    for (op, st) in &s.by_op {
        set(&by_op, op, op_stats(st));
    }
    set(&o, "byOp", by_op);
    let warnings = Array::new();
    for w in &s.warnings {
        let wo = Object::new();
        set(&wo, "op", w.op.as_str());
        set(&wo, "message", w.message.as_str());
        set(&wo, "attrs", strings(&mut w.attrs.iter().copied()));
        warnings.push(&wo);
    }
    set(&o, "warnings", warnings);
    o.into()
}
