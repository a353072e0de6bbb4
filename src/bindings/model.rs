//! `WasmModel`: a loaded TF.js graph model, tied to the context that loaded it (which disposes it
//! when it is itself disposed).

use super::cell::EpochCell;
use super::errors::{disposed_model, headroom, js, JsResult};
use super::state::{emit, gather, AnyModel, CtxState, ModelCell, WasmContext};
#[cfg(feature = "layers")]
use crate::model::layers::LayersModel;
use crate::model::weights::WeightSource;
use crate::model::{GraphModel, TensorInfo};
use crate::status::{invalid_argument, resource_exhausted, Result};
use crate::tensor::Tensor;
use js_sys::{Array, Uint8Array};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// `model.json` bytes as text, decoded as the JS `TextDecoder` would: a leading BOM dropped,
/// invalid sequences replaced by U+FFFD.
pub(crate) fn utf8(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // `from_utf8` checks ASCII a word at a time; the lossy decoder goes byte by byte.
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

thread_local! {
    /// `model.json` text written straight into wasm memory by the JS `TextEncoder.encodeInto`
    /// (`stageJson`), taken by the next `loadModelStaged`: saves encoding into a JS buffer and
    /// copying that in.
    static STAGED: EpochCell<Vec<u8>> = const { EpochCell::new(Vec::new()) };
}

/// A zeroed buffer of `len` bytes for the next `loadModelStaged`; returns its address (valid until
/// the next call into wasm that may allocate).
#[wasm_bindgen(js_name = stageJson)]
pub fn stage_json(len: u32) -> JsResult<u32> {
    headroom().map_err(js)?;
    STAGED.with(|b| {
        let mut b = b.borrow_mut();
        *b = Vec::new();
        b.try_reserve_exact(len as usize).map_err(|_| {
            js(resource_exhausted(format!(
                "out of memory for a model.json of {len} bytes"
            )))
        })?;
        b.resize(len as usize, 0);
        Ok(b.as_ptr() as usize as u32)
    })
}

/// The staged bytes, cut to the `len` written; the stage is left empty (its memory freed with the
/// returned buffer), so heap in use after a load does not depend on the model's size.
pub(crate) fn take_staged(len: u32) -> Vec<u8> {
    let mut b = STAGED.with(|b| std::mem::take(&mut *b.borrow_mut()));
    b.truncate(len as usize);
    b
}

/// Shard paths of a `model.json` (UTF-8 bytes, graph or layers format), in manifest order.
#[wasm_bindgen(js_name = weightPaths)]
pub fn weight_paths(model_json: &[u8]) -> JsResult<Array> {
    headroom().map_err(js)?;
    let text = utf8(model_json);
    let paths = GraphModel::weight_paths(&text);
    #[cfg(feature = "layers")]
    let paths = paths.or_else(|e| LayersModel::weight_paths(&text).map_err(|_| e));
    let paths = paths.map_err(js)?;
    Ok(paths.into_iter().map(JsValue::from).collect())
}

/// The weights stay in their JS ArrayBuffer; each weight is copied into wasm memory on its own
/// (one memcpy), so loading never holds a second whole copy in the wasm heap.
struct JsWeights<'a>(&'a Uint8Array);

impl WeightSource for JsWeights<'_> {
    fn byte_len(&self) -> usize {
        self.0.length() as usize
    }

    fn read_into(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        let end = offset
            .checked_add(dst.len())
            .filter(|&e| e <= self.byte_len())
            .ok_or_else(|| invalid_argument("weight read out of range"))?;
        self.0.subarray(offset as u32, end as u32).copy_to(dst);
        Ok(())
    }
}

pub(crate) fn load(
    state: &Rc<CtxState>,
    model_json: &str,
    weights: &Uint8Array,
    progress: &JsValue,
    layers: bool,
) -> Result<WasmModel> {
    // Parsing takes a few times the text's size, and the weights are copied in: refused up front
    // when that much cannot be had, rather than failing an allocation midway (an abort).
    let need = model_json
        .len()
        .saturating_mul(4)
        .saturating_add(weights.length() as usize);
    if !crate::memory::can_allocate(need) {
        return Err(resource_exhausted(format!(
            "out of memory: loading this model needs about {need} bytes of wasm memory; dispose \
             tensors or models to free some"
        )));
    }
    let source = JsWeights(weights);
    let callback = progress.dyn_ref::<js_sys::Function>();
    let mut last_pct = u32::MAX;
    let mut report = |done: usize, total: usize| {
        let Some(f) = callback else { return };
        let pct = if total == 0 {
            100
        } else {
            (done as f64 / total as f64 * 100.0) as u32
        };
        if pct != last_pct {
            last_pct = pct;
            // A throwing callback must not abort the load.
            let _ = f.call2(
                &JsValue::NULL,
                &JsValue::from_f64(done as f64),
                &JsValue::from_f64(total as f64),
            );
        }
    };
    let model = state.with(|c| {
        if layers {
            #[cfg(feature = "layers")]
            return LayersModel::load(c, model_json, &source, &mut report).map(AnyModel::Layers);
            #[cfg(not(feature = "layers"))]
            return Err(crate::status::failed_precondition(
                "this is eager-wasm's graph-model build; layers models need the build with the \
                 layers format: call init({ layers: true }) before creating the context",
            ));
        } else {
            GraphModel::load(c, model_json, &source, &mut report).map(AnyModel::Graph)
        }
    })?;
    let cell = Rc::new(EpochCell::new(model));
    state.add_model(&cell);
    Ok(WasmModel {
        state: state.clone(),
        model: cell,
    })
}

#[wasm_bindgen(js_class = WasmContext)]
impl WasmContext {
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
        let model_json = utf8(model_json);
        load(&self.state, &model_json, weights, progress, false).map_err(js)
    }

    /// `loadModel` for a TF.js layers model (`format: layers-model`, a Keras config).
    #[wasm_bindgen(js_name = loadLayersModel)]
    pub fn load_layers_model(
        &self,
        model_json: &[u8],
        weights: &js_sys::Uint8Array,
        progress: &JsValue,
    ) -> JsResult<WasmModel> {
        let model_json = utf8(model_json);
        load(&self.state, &model_json, weights, progress, true).map_err(js)
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
        let bytes = take_staged(len);
        let model_json = utf8(&bytes);
        load(&self.state, &model_json, weights, progress, false).map_err(js)
    }
}

#[wasm_bindgen]
extern "C" {
    /// The profiler's clock (browsers and Node both have `performance`).
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

#[wasm_bindgen(js_name = WasmModel)]
pub struct WasmModel {
    state: Rc<CtxState>,
    model: Rc<ModelCell>,
}

#[wasm_bindgen(js_class = WasmModel)]
impl WasmModel {
    /// `{"inputs": [...], "outputs": [...]}`, each `[{ name, tensorName, dtype, shape }]` (shape
    /// null for unknown rank, -1 for unknown dims; inputs that may be left unfed add
    /// `optional: true`): one JSON string for JS to parse, instead of a JS property set per field.
    #[wasm_bindgen(js_name = infoJson)]
    pub fn info_json(&self) -> String {
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Info<'a> {
            name: &'a str,
            tensor_name: &'a str,
            dtype: &'static str,
            shape: &'a Option<Vec<i64>>,
            /// A PlaceholderWithDefault input: may be left unfed (only written when true).
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            optional: bool,
        }
        #[derive(serde::Serialize)]
        struct Infos<'a> {
            inputs: Vec<Info<'a>>,
            outputs: Vec<Info<'a>>,
        }
        fn list(infos: &[TensorInfo], optional: impl Fn(usize) -> bool) -> Vec<Info<'_>> {
            infos
                .iter()
                .enumerate()
                .map(|(k, i)| Info {
                    name: &i.name,
                    tensor_name: &i.tensor_name,
                    dtype: i.dtype.name(),
                    shape: &i.shape,
                    optional: optional(k),
                })
                .collect()
        }
        let m = self.model.borrow_mut();
        let infos = Infos {
            inputs: list(m.inputs(), |k| {
                m.graph().is_some_and(|g| g.input_is_optional(k))
            }),
            outputs: list(m.outputs(), |_| false),
        };
        // Plain data: serializing cannot fail.
        serde_json::to_string(&infos).unwrap_or_default()
    }

    #[wasm_bindgen(getter, js_name = isDisposed)]
    pub fn is_disposed(&self) -> bool {
        self.model.try_borrow_mut().is_some_and(|m| m.is_disposed())
    }

    /// Runs the model on the `names.length` tensor handles in io, fed by name (`x` or `x:0`);
    /// writes the output handles (in `outputs()` order) to io and returns their count.
    pub fn predict(&self, names: &Array) -> JsResult<u32> {
        self.run(names, None)
    }

    /// `predict`, returning the tensors named in `outputs` (signature keys, `node:k` or node
    /// names; intermediate nodes included) instead of the signature outputs.
    pub fn execute(&self, names: &Array, outputs: &Array) -> JsResult<u32> {
        let outputs = outputs
            .iter()
            .map(|o| {
                o.as_string()
                    .ok_or_else(|| invalid_argument("execute output names must be strings"))
            })
            .collect::<Result<Vec<_>>>()
            .map_err(js)?;
        self.run(names, Some(&outputs))
    }

    fn run(&self, names: &Array, outputs: Option<&[String]>) -> JsResult<u32> {
        headroom().map_err(js)?;
        let id = self.state.id;
        let run = || -> Result<Vec<Tensor>> {
            let m = self.model.borrow_mut();
            if m.is_disposed() {
                return Err(disposed_model());
            }
            let feeds = feeds(id, names)?;
            self.state.with(|c| match outputs {
                None => m.predict(c, feeds),
                Some(o) => m.execute(c, feeds, o),
            })
        };
        let outputs = run().map_err(js)?;
        emit(id, outputs).map_err(js)
    }

    /// `predict` with every node timed by `performance.now()` (the outputs are disposed). Returns
    /// `[json, ms, wallMs, attrs]`: `json` is `[{name, op, count, outputs, inputs, cache}]` per
    /// node (`inputs`: `{from, dtype, shape, bytes}`), `ms` a Float64Array of their times (numbers:
    /// no float formatting in wasm), `attrs` one plain object per node, the attrs its kernel ran
    /// with in the form `ctx.execute` takes (tensor and function attrs left out); JS sums by op
    /// type. A layers model reports one step per layer call.
    pub fn profile(&self, names: &Array) -> JsResult<Array> {
        #[derive(serde::Serialize)]
        struct Node<'a> {
            name: &'a str,
            op: &'a str,
            count: usize,
            outputs: &'a [crate::model::profile::OutputProfile],
            inputs: &'a [crate::model::profile::InputProfile],
            cache: Option<&'a str>,
        }
        headroom().map_err(js)?;
        let id = self.state.id;
        let run = || -> Result<Array> {
            let m = self.model.borrow_mut();
            if m.is_disposed() {
                return Err(disposed_model());
            }
            let feeds = feeds(id, names)?;
            let p = self.state.with(|c| m.profile(c, feeds, &performance_now))?;
            let nodes: Vec<Node> = p
                .nodes
                .iter()
                .map(|n| Node {
                    name: &n.name,
                    op: n.op,
                    count: n.count,
                    outputs: &n.outputs,
                    inputs: &n.inputs,
                    cache: n.cache,
                })
                .collect();
            let ms: Vec<f64> = p.nodes.iter().map(|n| n.ms).collect();
            let attrs: Array = p.nodes.iter().map(|n| attrs_js(&n.attrs)).collect();
            let out = Array::of3(
                // Plain data: serializing cannot fail.
                &JsValue::from(serde_json::to_string(&nodes).unwrap_or_default()),
                &js_sys::Float64Array::from(&ms[..]),
                &JsValue::from_f64(p.wall_ms),
            );
            out.push(&attrs);
            Ok(out)
        };
        run().map_err(js)
    }

    /// Releases every variable and tensor the model holds. Idempotent.
    pub fn dispose(&self) -> JsResult<()> {
        if self.model.borrow_mut().is_disposed() {
            return Ok(());
        }
        match self.state.with(|c| {
            self.model.borrow_mut().dispose(c);
            Ok(())
        }) {
            Ok(()) => {}
            // Context already disposed: it disposed its models first; nothing left to release.
            Err(_) if self.state_is_disposed() => {}
            Err(e) => return Err(js(e)),
        }
        self.state.remove_model(&self.model);
        Ok(())
    }
}

/// The `names.length` tensor handles in io, paired with their feed names.
fn feeds(id: u32, names: &Array) -> Result<Vec<(String, Tensor)>> {
    let mut tensors = Vec::with_capacity(names.length() as usize);
    gather(id, names.length(), &mut tensors)?;
    names
        .iter()
        .zip(tensors)
        .map(|(n, t)| {
            n.as_string()
                .map(|n| (n, t))
                .ok_or_else(|| invalid_argument("predict feed names must be strings"))
        })
        .collect()
}

impl WasmModel {
    fn state_is_disposed(&self) -> bool {
        self.state.with(|_| Ok(())).is_err() && self.model.borrow_mut().is_disposed()
    }
}

/// A node's attrs as a plain object `ctx.execute` accepts (the inverse of `attrs::convert`):
/// dtypes by name, strings as text, shapes as arrays (null: unknown rank). Tensor and function
/// attrs are left out.
fn attrs_js(attrs: &[(&'static str, crate::ops::AttrValue)]) -> JsValue {
    use crate::ops::AttrValue as A;
    let text = |s: &[u8]| JsValue::from(String::from_utf8_lossy(s).as_ref());
    let shape = |s: &crate::ops::ShapeAttr| match s {
        Some(d) => d
            .iter()
            .map(|&v| JsValue::from_f64(v as f64))
            .collect::<Array>()
            .into(),
        None => JsValue::NULL,
    };
    let o = js_sys::Object::new();
    for (k, v) in attrs {
        let v: JsValue = match v {
            A::Type(t) => t.name().into(),
            A::Int(i) => JsValue::from_f64(*i as f64),
            A::Float(f) => JsValue::from_f64(f64::from(*f)),
            A::Bool(b) => JsValue::from_bool(*b),
            A::Str(s) => text(s),
            A::Shape(s) => shape(s),
            A::Tensor(_) | A::Func(_) => continue,
            A::ListType(l) => l
                .iter()
                .map(|t| JsValue::from(t.name()))
                .collect::<Array>()
                .into(),
            A::ListInt(l) => l
                .iter()
                .map(|&i| JsValue::from_f64(i as f64))
                .collect::<Array>()
                .into(),
            A::ListFloat(l) => l
                .iter()
                .map(|&f| JsValue::from_f64(f64::from(f)))
                .collect::<Array>()
                .into(),
            A::ListBool(l) => l
                .iter()
                .map(|&b| JsValue::from_bool(b))
                .collect::<Array>()
                .into(),
            A::ListStr(l) => l.iter().map(|s| text(s)).collect::<Array>().into(),
            A::ListShape(l) => l.iter().map(shape).collect::<Array>().into(),
        };
        // A fresh plain object: setting a string key cannot fail.
        let _ = js_sys::Reflect::set(&o, &JsValue::from(*k), &v);
    }
    o.into()
}
