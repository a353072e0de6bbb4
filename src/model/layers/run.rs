//! What a forward pass carries: `Val`, a value between layers, and `Run`, the context and the
//! model's variables the layers read their weights from.

use crate::eager::EagerContext;
use crate::ops::{self, AttrValue};
use crate::status::Result;
use crate::tensor::{DType, Tensor};

/// A value between layers: a tensor and its Keras mask (`[batch, time]` bool), if any.
#[derive(Clone)]
pub(crate) struct Val {
    pub t: Tensor,
    pub mask: Option<Tensor>,
}

/// What a forward pass needs besides its inputs: the context, and the model's variables.
pub(crate) struct Run<'a> {
    pub ctx: &'a mut EagerContext,
    pub(super) vars: &'a [(Tensor, DType)],
    pub(super) read: &'static ops::OpDef,
}

impl Run<'_> {
    /// The current value of weight `w` (ReadVariableOp, as a restored TF model reads it).
    #[inline(never)]
    pub fn weight(&mut self, w: usize) -> Result<Tensor> {
        let (handle, dtype) = &self.vars[w];
        self.ctx
            .execute_op(
                self.read,
                std::slice::from_ref(handle),
                [("dtype", AttrValue::Type(*dtype))],
            )?
            .pop()
            .ok_or_else(|| crate::status::internal("ReadVariableOp returned no value"))
    }
}
