//! `WasmContext`'s JS-facing methods (the state it shares with its models is in state.rs). Inputs
//! and outputs are tensor handles in the shared scratch buffer; attrs are a plain object only when
//! non-empty.

use super::attrs;
use super::cell::EpochCell;
use super::errors::{headroom, js, not_an_object, JsResult};
use super::memory::{cache_stats, memory_report};
use super::state::{emit, gather, CtxState, WasmContext};
use super::tensor::{compact_table, string_tensor_from_js, tensor_from_js, with_table};
use crate::eager::kernel_cache::default_exclusions;
use crate::eager::{CacheOptions, ContextOptions, EagerContext, ResourceNaming};
use crate::ops::{AttrValue, OpDef};
use crate::status::{invalid_argument, Result};
use crate::tensor::Tensor;
use js_sys::{Array, Object, Reflect};
use std::borrow::Cow;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    static NEXT_CONTEXT: Cell<u32> = const { Cell::new(1) };
    /// Registered ops by id (sorted names), so the hot path passes a number, not a string.
    static OPS: Vec<&'static OpDef> = {
        let reg = crate::registry::registry();
        reg.names().into_iter().filter_map(|n| reg.get(n)).collect()
    };
    /// Reused input vector: no allocation per execute.
    static INPUTS: EpochCell<Vec<Tensor>> = const { EpochCell::new(Vec::new()) };
}

/// The id of a registered op (for `WasmContext.execute`), or NotFound.
#[wasm_bindgen(js_name = opId)]
pub fn op_id(name: &str) -> JsResult<u32> {
    let def = crate::registry::lookup(name).map_err(js)?;
    Ok(OPS.with(|o| {
        o.iter()
            .position(|d| std::ptr::eq(*d, def))
            .unwrap_or_default() as u32
    }))
}

/// Whether this is the relaxed-SIMD build (fused multiply-adds) rather than the plain SIMD128 one.
#[wasm_bindgen(js_name = relaxedSimdBuild)]
pub fn relaxed_simd_build() -> bool {
    cfg!(target_feature = "relaxed-simd")
}

/// Whether this build reads the layers (Keras) format (cargo feature `layers`).
#[wasm_bindgen(js_name = layersBuild)]
pub fn layers_build() -> bool {
    cfg!(feature = "layers")
}

/// Every registered op name, sorted.
#[wasm_bindgen(js_name = opNames)]
pub fn op_names() -> Array {
    OPS.with(|o| o.iter().map(|d| JsValue::from_str(d.name)).collect())
}

fn op_def(id: u32) -> Result<&'static OpDef> {
    OPS.with(|o| o.get(id as usize).copied())
        .ok_or_else(|| invalid_argument(format!("unknown op id {id}")))
}

#[wasm_bindgen(js_class = WasmContext)]
impl WasmContext {
    /// `options`: `{ cache: { maxEntries, maxBytes, exclude }, resourceNames }`, all optional.
    #[wasm_bindgen(constructor)]
    pub fn new(options: &JsValue) -> JsResult<WasmContext> {
        headroom().map_err(js)?;
        let options = parse_options(options).map_err(js)?;
        let id = NEXT_CONTEXT.with(|c| {
            let id = c.get();
            c.set(id.wrapping_add(1).max(1));
            id
        });
        Ok(WasmContext {
            state: Rc::new(CtxState::new(id, EagerContext::new(options))),
        })
    }

    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.state.id
    }

    #[wasm_bindgen(getter, js_name = isDisposed)]
    pub fn is_disposed(&self) -> bool {
        self.state.is_disposed()
    }

    /// Runs op `op` (an id from `opId`) on the `n_inputs` tensor handles in io; writes the output
    /// handles to io and returns their count. `attrs`: undefined or a plain object.
    pub fn execute(&self, op: u32, n_inputs: u32, attrs: &JsValue) -> JsResult<u32> {
        let attrs = (!attrs.is_undefined() && !attrs.is_null()).then_some(attrs);
        self.run(op, n_inputs, attrs)
    }

    /// `execute` without attrs: the common case skips passing a JS value across the boundary.
    #[wasm_bindgen(js_name = executeNoAttrs)]
    pub fn execute_no_attrs(&self, op: u32, n_inputs: u32) -> JsResult<u32> {
        self.run(op, n_inputs, None)
    }
    /// A tensor from a typed array and the `rank` dims in io (`complex`: a Float32Array of
    /// interleaved (re, im) pairs made complex64); returns its handle.
    pub fn tensor(&self, values: &JsValue, rank: u32, complex: bool) -> JsResult<f64> {
        self.state.with(|_| Ok(())).map_err(js)?;
        headroom().map_err(js)?;
        let t = tensor_from_js(values, rank, complex).map_err(js)?;
        with_table(|tb| tb.insert(self.state.id, t)).map_err(js)
    }

    /// A string tensor from its elements length-prefixed in `packed` (4-byte little-endian length,
    /// then the bytes) and the `rank` dims in io; returns its handle.
    #[wasm_bindgen(js_name = tensorStrings)]
    pub fn tensor_strings(&self, packed: &[u8], rank: u32) -> JsResult<f64> {
        self.state.with(|_| Ok(())).map_err(js)?;
        headroom().map_err(js)?;
        let t = string_tensor_from_js(packed, rank).map_err(js)?;
        with_table(|tb| tb.insert(self.state.id, t)).map_err(js)
    }

    pub fn memory(&self) -> JsResult<JsValue> {
        compact_table();
        self.state
            .with(|c| Ok(memory_report(&c.memory())))
            .map_err(js)
    }

    #[wasm_bindgen(js_name = cacheStats)]
    pub fn cache_stats(&self) -> JsResult<JsValue> {
        self.state
            .with(|c| Ok(cache_stats(&c.cache_stats())))
            .map_err(js)
    }

    /// Changes only the fields given; applies at once (evicts down to new bounds).
    #[wasm_bindgen(js_name = setCacheOptions)]
    pub fn set_cache_options(&self, options: &JsValue) -> JsResult<()> {
        // Read the options (JS) while the context is not borrowed: nothing JS does can leave it so.
        let base = self
            .state
            .with(|c| Ok(c.cache_options().clone()))
            .map_err(js)?;
        let o = parse_cache(options, base).map_err(js)?;
        self.state
            .with(|c| {
                c.set_cache_options(o);
                Ok(())
            })
            .map_err(js)
    }

    /// Current cache options as `{ maxEntries, maxBytes, exclude }` (Infinity when unbounded).
    #[wasm_bindgen(js_name = cacheOptions)]
    pub fn cache_options(&self) -> JsResult<JsValue> {
        self.state
            .with(|c| {
                let o = c.cache_options();
                let out = Object::new();
                let bound =
                    |b: Option<usize>| JsValue::from_f64(b.map_or(f64::INFINITY, |v| v as f64));
                let mut ex: Vec<&String> = o.exclude.iter().collect();
                crate::ops::sort_small(&mut ex, |a, b| a < b);
                let ex: Array = ex.into_iter().map(|s| JsValue::from_str(s)).collect();
                let _ = Reflect::set(&out, &"maxEntries".into(), &bound(o.max_entries));
                let _ = Reflect::set(&out, &"maxBytes".into(), &bound(o.max_bytes));
                let _ = Reflect::set(&out, &"exclude".into(), &ex);
                Ok(JsValue::from(out))
            })
            .map_err(js)
    }

    #[wasm_bindgen(js_name = clearCache)]
    pub fn clear_cache(&self) -> JsResult<()> {
        self.state
            .with(|c| {
                c.clear_cache();
                Ok(())
            })
            .map_err(js)
    }

    /// Clears the cache and its statistics (hits, misses, per-op figures).
    #[wasm_bindgen(js_name = resetCache)]
    pub fn reset_cache(&self) -> JsResult<()> {
        self.state
            .with(|c| {
                c.reset_cache();
                Ok(())
            })
            .map_err(js)
    }

    /// Releases the context: its models, its tensors, its cache and resources. Idempotent.
    pub fn dispose(&self) -> JsResult<()> {
        self.state.dispose().map_err(js)?;
        with_table(|t| t.release_context(self.state.id));
        Ok(())
    }
}

impl WasmContext {
    fn run(&self, op: u32, n_inputs: u32, attrs: Option<&JsValue>) -> JsResult<u32> {
        let def = op_def(op).map_err(js)?;
        headroom().map_err(js)?;
        let id = self.state.id;
        let mut inputs = INPUTS.with(|i| std::mem::take(&mut *i.borrow_mut()));
        let result = (|| {
            gather(id, n_inputs, &mut inputs)?;
            let attrs: Vec<(Cow<'static, str>, AttrValue)> = match attrs {
                None => Vec::new(),
                Some(a) => attrs::convert(def, a, id)?,
            };
            self.state.with(|c| c.execute_op(def, &inputs, attrs))
        })();
        inputs.clear();
        // Kept for the next call; a wider one (ConcatV2/Pack/AddN of many) gives its room back,
        // so that heap in use returns to where it was whatever the last call was.
        if inputs.capacity() > 4 {
            inputs.shrink_to(4);
        }
        INPUTS.with(|i| *i.borrow_mut() = inputs);
        emit(id, result.map_err(js)?).map_err(js)
    }
}

fn get(o: &JsValue, k: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}

fn check_keys(o: &JsValue, what: &str, known: &[&str]) -> Result<()> {
    for k in Object::keys(o.unchecked_ref::<Object>()).iter() {
        let k = k.as_string().unwrap_or_default();
        if !known.contains(&k.as_str()) {
            return Err(invalid_argument(format!(
                "unknown {what} option '{k}' (known: {})",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

fn parse_options(v: &JsValue) -> Result<ContextOptions> {
    if v.is_undefined() || v.is_null() {
        return Ok(ContextOptions::default());
    }
    if !v.is_object() {
        return Err(not_an_object("EagerContext options", v));
    }
    check_keys(
        v,
        "EagerContext",
        &["cache", "resourceNames", "maxLoopIterations", "packWeights"],
    )?;
    let cache = get(v, "cache");
    let cache = if cache.is_undefined() {
        CacheOptions::default()
    } else {
        parse_cache(&cache, CacheOptions::default())?
    };
    let naming = get(v, "resourceNames");
    let resource_naming =
        if naming.is_undefined() {
            ResourceNaming::default()
        } else {
            ResourceNaming::parse(&naming.as_string().ok_or_else(|| {
                invalid_argument("resourceNames must be 'unique' or 'anonymous'")
            })?)?
        };
    let max_loop_iterations = match get(v, "maxLoopIterations") {
        m if m.is_undefined() => crate::eager::DEFAULT_MAX_LOOP_ITERATIONS,
        m => match m.as_f64() {
            Some(f) if f >= 1.0 && f.fract() == 0.0 && f <= 2f64.powi(53) => f as u64,
            _ => {
                return Err(invalid_argument(format!(
                    "maxLoopIterations must be a positive integer, got {}",
                    super::errors::describe(&m)
                )))
            }
        },
    };
    let pack_weights = match get(v, "packWeights") {
        p if p.is_undefined() => true,
        p => p
            .as_bool()
            .ok_or_else(|| invalid_argument("packWeights must be a boolean"))?,
    };
    Ok(ContextOptions {
        cache,
        resource_naming,
        max_loop_iterations,
        pack_weights,
    })
}

/// A bound: a non-negative integer, or Infinity/null for none.
fn parse_bound(v: &JsValue, name: &str) -> Result<Option<usize>> {
    if v.is_null() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(f) if f == f64::INFINITY => Ok(None),
        Some(f) if f >= 0.0 && f.fract() == 0.0 && f <= usize::MAX as f64 => Ok(Some(f as usize)),
        _ => Err(invalid_argument(format!(
            "cache.{name} must be a non-negative integer or Infinity, got {}",
            super::errors::describe(v)
        ))),
    }
}

/// Applies the fields of `v` over `base`. `exclude` lists op names never cached; ops whose cache key
/// is unique by nature stay excluded whatever the list says.
fn parse_cache(v: &JsValue, mut base: CacheOptions) -> Result<CacheOptions> {
    if !v.is_object() {
        return Err(not_an_object("cache options", v));
    }
    check_keys(v, "cache", &["maxEntries", "maxBytes", "exclude"])?;
    let me = get(v, "maxEntries");
    if !me.is_undefined() {
        base.max_entries = parse_bound(&me, "maxEntries")?;
    }
    let mb = get(v, "maxBytes");
    if !mb.is_undefined() {
        base.max_bytes = parse_bound(&mb, "maxBytes")?;
    }
    let ex = get(v, "exclude");
    if !ex.is_undefined() {
        let arr = ex
            .dyn_ref::<Array>()
            .ok_or_else(|| invalid_argument("cache.exclude must be an array of op names"))?;
        let mut set = default_exclusions();
        for name in arr.iter() {
            let name = name
                .as_string()
                .ok_or_else(|| invalid_argument("cache.exclude must hold op names (strings)"))?;
            crate::registry::lookup(&name).map_err(|_| {
                invalid_argument(format!("cache.exclude: op '{name}' is not registered"))
            })?;
            set.insert(name);
        }
        base.exclude = set;
    }
    Ok(base)
}
