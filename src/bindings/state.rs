//! What `WasmContext` (context.rs) and `WasmModel` (model.rs) share: the context state behind
//! `Rc`, the JS class both add methods to, output emission and input gathering through the scratch
//! buffer. Neither of the two modules imports the other.

use super::cell::EpochCell;
use super::errors::{busy_context, disposed_context};
use super::tensor::{dtype_code, with_io, with_table};
use crate::eager::EagerContext;
#[cfg(feature = "layers")]
use crate::model::layers::LayersModel;
use crate::model::{GraphModel, TensorInfo};
use crate::status::{invalid_argument, Result};
use crate::tensor::Tensor;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;

/// A loaded model, shared by its `WasmModel` and (weakly) by the context that disposes it.
pub(crate) type ModelCell = EpochCell<AnyModel>;

/// A graph or a layers model: the same API to JS.
pub(crate) enum AnyModel {
    Graph(GraphModel),
    #[cfg(feature = "layers")]
    Layers(LayersModel),
}

impl AnyModel {
    pub(crate) fn inputs(&self) -> &[TensorInfo] {
        match self {
            AnyModel::Graph(m) => m.inputs(),
            #[cfg(feature = "layers")]
            AnyModel::Layers(m) => m.inputs(),
        }
    }

    pub(crate) fn outputs(&self) -> &[TensorInfo] {
        match self {
            AnyModel::Graph(m) => m.outputs(),
            #[cfg(feature = "layers")]
            AnyModel::Layers(m) => m.outputs(),
        }
    }

    /// The graph model, if this is one (profile and execute need graph nodes).
    pub(crate) fn graph(&self) -> Option<&GraphModel> {
        match self {
            AnyModel::Graph(m) => Some(m),
            #[cfg(feature = "layers")]
            AnyModel::Layers(_) => None,
        }
    }

    pub(crate) fn is_disposed(&self) -> bool {
        match self {
            AnyModel::Graph(m) => m.is_disposed(),
            #[cfg(feature = "layers")]
            AnyModel::Layers(m) => m.is_disposed(),
        }
    }

    pub(crate) fn predict(
        &self,
        c: &mut crate::eager::EagerContext,
        feeds: Vec<(String, Tensor)>,
    ) -> Result<Vec<Tensor>> {
        match self {
            AnyModel::Graph(m) => m.predict(c, feeds),
            #[cfg(feature = "layers")]
            AnyModel::Layers(m) => m.predict(c, feeds),
        }
    }

    /// `predict` timed step by step: graph nodes, or a layers model's layer calls.
    pub(crate) fn profile(
        &self,
        c: &mut crate::eager::EagerContext,
        feeds: Vec<(String, Tensor)>,
        clock: &dyn Fn() -> f64,
    ) -> Result<crate::model::profile::Profile> {
        match self {
            AnyModel::Graph(m) => m.profile(c, feeds, clock),
            #[cfg(feature = "layers")]
            AnyModel::Layers(m) => m.profile(c, feeds, clock),
        }
    }

    /// TF.js's `execute` (named outputs, intermediate nodes included): graph models only; a
    /// layers model has no graph nodes to name.
    pub(crate) fn execute(
        &self,
        c: &mut crate::eager::EagerContext,
        feeds: Vec<(String, Tensor)>,
        outputs: &[String],
    ) -> Result<Vec<Tensor>> {
        match self {
            AnyModel::Graph(m) => m.execute(c, feeds, outputs),
            #[cfg(feature = "layers")]
            AnyModel::Layers(_) => Err(crate::status::unimplemented(
                "execute() with output names runs graph models; call predict() on a layers model",
            )),
        }
    }

    pub(crate) fn dispose(&mut self, c: &mut crate::eager::EagerContext) {
        match self {
            AnyModel::Graph(m) => m.dispose(c),
            #[cfg(feature = "layers")]
            AnyModel::Layers(m) => m.dispose(c),
        }
    }
}

/// A context as JS holds it. Its methods are in context.rs and (loading) model.rs.
#[wasm_bindgen(js_name = WasmContext)]
pub struct WasmContext {
    pub(crate) state: Rc<CtxState>,
}

/// What the context and its models share.
pub(crate) struct CtxState {
    pub id: u32,
    ctx: EpochCell<Option<EagerContext>>,
    /// Models loaded here, disposed with the context.
    models: EpochCell<Vec<Weak<ModelCell>>>,
}

impl CtxState {
    pub(crate) fn new(id: u32, ctx: EagerContext) -> Self {
        CtxState {
            id,
            ctx: EpochCell::new(Some(ctx)),
            models: EpochCell::new(Vec::new()),
        }
    }

    pub(crate) fn is_disposed(&self) -> bool {
        matches!(self.ctx.try_borrow_mut(), Some(c) if c.is_none())
    }

    /// Releases the context and its models (their variables); idempotent. The caller releases the
    /// context's tensors.
    pub(crate) fn dispose(&self) -> Result<()> {
        let ctx = {
            let mut b = self.ctx.try_borrow_mut().ok_or_else(busy_context)?;
            b.take()
        };
        let Some(mut ctx) = ctx else {
            return Ok(());
        };
        let models = std::mem::take(&mut *self.models.borrow_mut());
        for m in models.iter().filter_map(Weak::upgrade) {
            if let Some(mut m) = m.try_borrow_mut() {
                m.dispose(&mut ctx);
            }
        }
        Ok(())
    }

    /// Runs `f` on the live context: FailedPrecondition if disposed or re-entered from a callback.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut EagerContext) -> Result<R>) -> Result<R> {
        let mut b = self.ctx.try_borrow_mut().ok_or_else(busy_context)?;
        let c = b.as_mut().ok_or_else(disposed_context)?;
        // Lists whose handles JS disposed since the last call.
        c.release_unreferenced();
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
