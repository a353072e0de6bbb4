//! `WasmContext`: one `EagerContext` behind `Rc<RefCell<..>>` (shared with the models it loads), and
//! its JS-facing methods. Inputs and outputs are tensor handles in the shared scratch buffer; attrs
//! are a plain object only when non-empty.

use super::attrs;
use super::errors::{busy_context, disposed_context, js, not_an_object, JsResult};
use super::memory::{cache_stats, memory_report};
use super::model::{ModelCell, WasmModel};
use super::tensor::{dtype_code, tensor_from_js, with_io, with_table};
use crate::eager::kernel_cache::default_exclusions;
use crate::eager::{CacheOptions, ContextOptions, EagerContext, ResourceNaming};
use crate::ops::{self, AttrValue, OpDef};
use crate::status::{invalid_argument, Result};
use crate::tensor::Tensor;
use js_sys::{Array, Object, Reflect};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    static NEXT_CONTEXT: Cell<u32> = const { Cell::new(1) };
    /// Registered ops by id (sorted names), so the hot path passes a number, not a string.
    static OPS: Vec<&'static OpDef> = {
        let reg = ops::registry();
        reg.names().into_iter().filter_map(|n| reg.get(n)).collect()
    };
    /// Reused input vector: no allocation per execute.
    static INPUTS: RefCell<Vec<Tensor>> = const { RefCell::new(Vec::new()) };
}

/// The id of a registered op (for `WasmContext.execute`), or NotFound.
#[wasm_bindgen(js_name = opId)]
pub fn op_id(name: &str) -> JsResult<u32> {
    let def = ops::lookup(name).map_err(js)?;
    Ok(OPS.with(|o| {
        o.iter()
            .position(|d| std::ptr::eq(*d, def))
            .unwrap_or_default() as u32
    }))
}

/// Every registered op name, sorted.
/// Whether this is the relaxed-SIMD build (fused multiply-adds) rather than the plain SIMD128 one.
#[wasm_bindgen(js_name = relaxedSimdBuild)]
pub fn relaxed_simd_build() -> bool {
    cfg!(target_feature = "relaxed-simd")
}

#[wasm_bindgen(js_name = opNames)]
pub fn op_names() -> Array {
    OPS.with(|o| o.iter().map(|d| JsValue::from_str(d.name)).collect())
}

fn op_def(id: u32) -> Result<&'static OpDef> {
    OPS.with(|o| o.get(id as usize).copied())
        .ok_or_else(|| invalid_argument(format!("unknown op id {id}")))
}

/// What the context and its models share.
pub(crate) struct CtxState {
    pub id: u32,
    ctx: RefCell<Option<EagerContext>>,
    /// Models loaded here, disposed with the context.
    models: RefCell<Vec<Weak<ModelCell>>>,
}

impl CtxState {
    /// Runs `f` on the live context: FailedPrecondition if disposed or re-entered from a callback.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut EagerContext) -> Result<R>) -> Result<R> {
        let mut b = self.ctx.try_borrow_mut().map_err(|_| busy_context())?;
        let c = b.as_mut().ok_or_else(disposed_context)?;
        f(c)
    }

    pub(crate) fn add_model(&self, m: &Rc<ModelCell>) {
        let mut models = self.models.borrow_mut();
        models.retain(|w| w.strong_count() > 0);
        models.push(Rc::downgrade(m));
    }

    pub(crate) fn remove_model(&self, m: &Rc<ModelCell>) {
        let mut models = self.models.borrow_mut();
        let target = Rc::downgrade(m);
        models.retain(|w| w.strong_count() > 0 && !w.ptr_eq(&target));
        if models.is_empty() {
            *models = Vec::new();
        }
    }
}

/// Puts output tensors into the table (owned by context `ctx`) and describes them in io as records
/// `[handle, dtype code, rank, dims...]`; returns the number of f64s written.
pub(crate) fn emit(ctx: u32, outputs: Vec<Tensor>) -> Result<u32> {
    let len: usize = outputs.iter().map(|t| 3 + t.rank()).sum();
    with_table(|t| {
        with_io(|io| {
            if io.len() < len {
                io.resize(len, 0.0);
            }
            let mut pos = 0;
            for (made, o) in outputs.iter().enumerate() {
                let h = match t.insert(ctx, o.clone()) {
                    Ok(h) => h,
                    Err(e) => {
                        // Undo: nothing of this call stays allocated.
                        let mut p = 0;
                        for o in outputs.iter().take(made) {
                            t.release(io[p]);
                            p += 3 + o.rank();
                        }
                        return Err(e);
                    }
                };
                io[pos] = h;
                io[pos + 1] = f64::from(dtype_code(o.dtype()));
                io[pos + 2] = o.rank() as f64;
                for (d, &v) in io[pos + 3..].iter_mut().zip(o.dims()) {
                    *d = v as f64;
                }
                pos += 3 + o.rank();
            }
            Ok(len as u32)
        })
    })
}

/// Gathers the tensors behind io[0..n] (checked: live, of context `ctx`) into `out`.
pub(crate) fn gather(ctx: u32, n: u32, out: &mut Vec<Tensor>) -> Result<()> {
    with_io(|io| {
        let n = n as usize;
        if n > io.len() {
            return Err(invalid_argument(format!(
                "{n} inputs exceed the scratch buffer"
            )));
        }
        with_table(|t| {
            for &h in &io[..n] {
                out.push(t.get(h, ctx)?.clone());
            }
            Ok(())
        })
    })
}

#[wasm_bindgen(js_name = WasmContext)]
pub struct WasmContext {
    state: Rc<CtxState>,
}

#[wasm_bindgen(js_class = WasmContext)]
impl WasmContext {
    /// `options`: `{ cache: { maxEntries, maxBytes, exclude }, resourceNames }`, all optional.
    #[wasm_bindgen(constructor)]
    pub fn new(options: &JsValue) -> JsResult<WasmContext> {
        let options = parse_options(options).map_err(js)?;
        let id = NEXT_CONTEXT.with(|c| {
            let id = c.get();
            c.set(id.wrapping_add(1).max(1));
            id
        });
        Ok(WasmContext {
            state: Rc::new(CtxState {
                id,
                ctx: RefCell::new(Some(EagerContext::new(options))),
                models: RefCell::new(Vec::new()),
            }),
        })
    }

    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.state.id
    }

    #[wasm_bindgen(getter, js_name = isDisposed)]
    pub fn is_disposed(&self) -> bool {
        matches!(self.state.ctx.try_borrow(), Ok(c) if c.is_none())
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
    /// A tensor from a typed array and the `rank` dims in io; returns its handle.
    pub fn tensor(&self, values: &JsValue, rank: u32) -> JsResult<f64> {
        self.state.with(|_| Ok(())).map_err(js)?;
        let t = tensor_from_js(values, rank).map_err(js)?;
        with_table(|tb| tb.insert(self.state.id, t)).map_err(js)
    }

    pub fn memory(&self) -> JsResult<JsValue> {
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
        self.state
            .with(|c| {
                let o = parse_cache(options, c.cache_options().clone())?;
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
        let ctx = {
            let mut b = self
                .state
                .ctx
                .try_borrow_mut()
                .map_err(|_| js(busy_context()))?;
            b.take()
        };
        let Some(mut ctx) = ctx else {
            return Ok(());
        };
        let models = std::mem::take(&mut *self.state.models.borrow_mut());
        for m in models.iter().filter_map(Weak::upgrade) {
            if let Ok(mut m) = m.try_borrow_mut() {
                m.dispose(&mut ctx);
            }
        }
        with_table(|t| t.release_context(self.state.id));
        drop(ctx);
        Ok(())
    }

    /// Loads a TF.js graph model from its `model.json` text (UTF-8 bytes: the JS side encodes with
    /// the engine's native TextEncoder, much faster than a JS loop over the string) and all weight
    /// shards concatenated in manifest order. `progress(doneBytes, totalBytes)` is called as weights
    /// are restored.
    #[wasm_bindgen(js_name = loadModel)]
    pub fn load_model(
        &self,
        model_json: &[u8],
        weights: &js_sys::Uint8Array,
        progress: &JsValue,
    ) -> JsResult<WasmModel> {
        let model_json = super::model::utf8(model_json);
        super::model::load(&self.state, &model_json, weights, progress, false).map_err(js)
    }

    /// `loadModel` for a TF.js layers model (`format: layers-model`, a Keras config).
    #[wasm_bindgen(js_name = loadLayersModel)]
    pub fn load_layers_model(
        &self,
        model_json: &[u8],
        weights: &js_sys::Uint8Array,
        progress: &JsValue,
    ) -> JsResult<WasmModel> {
        let model_json = super::model::utf8(model_json);
        super::model::load(&self.state, &model_json, weights, progress, true).map_err(js)
    }

    /// `loadModel` with the `model.json` text already in wasm memory: the first `len` bytes of
    /// the buffer of the last `stageJson`.
    #[wasm_bindgen(js_name = loadModelStaged)]
    pub fn load_model_staged(
        &self,
        len: u32,
        weights: &js_sys::Uint8Array,
        progress: &JsValue,
    ) -> JsResult<WasmModel> {
        let bytes = super::model::take_staged(len);
        let model_json = super::model::utf8(&bytes);
        super::model::load(&self.state, &model_json, weights, progress, false).map_err(js)
    }
}

impl WasmContext {
    fn run(&self, op: u32, n_inputs: u32, attrs: Option<&JsValue>) -> JsResult<u32> {
        let def = op_def(op).map_err(js)?;
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
    check_keys(v, "EagerContext", &["cache", "resourceNames"])?;
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
    Ok(ContextOptions {
        cache,
        resource_naming,
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
            ops::lookup(&name).map_err(|_| {
                invalid_argument(format!("cache.exclude: op '{name}' is not registered"))
            })?;
            set.insert(name);
        }
        base.exclude = set;
    }
    Ok(base)
}
