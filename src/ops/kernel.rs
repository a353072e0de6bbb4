//! The kernel interface: what an op's definition instantiates (`KernelFactory`), the instantiated
//! `Kernel` the cache holds, and what a running kernel may touch (`KernelContext`). It sits in
//! `ops` so that definitions can name their factory without knowing any kernel family.

use super::NodeAttrs;
use crate::resource::{ResourceManager, ScopeId};
use crate::status::Result;
use crate::tensor::Tensor;

/// What a running kernel may touch beside its inputs.
pub struct KernelContext<'a> {
    pub resources: &'a mut ResourceManager,
    /// The scope new resources belong to (the model being loaded, or the context root).
    pub scope: ScopeId,
}

/// An instantiated kernel: made once per distinct cache key, run many times.
pub trait Kernel {
    fn compute(&self, ctx: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>>;
}

/// A kernel body that reads its attrs at run time (cheap: attrs are few and already typed).
pub type ComputeFn = fn(&NodeAttrs, &mut KernelContext<'_>, &[Tensor]) -> Result<Vec<Tensor>>;

/// A kernel that prepares state from its attrs once, at instantiation.
pub type PrepareFn = fn(&NodeAttrs) -> Result<Box<dyn Kernel>>;

#[derive(Clone, Copy)]
pub enum KernelFactory {
    Simple(ComputeFn),
    Prepared(PrepareFn),
}

impl KernelFactory {
    pub fn instantiate(self, attrs: &NodeAttrs) -> Result<Box<dyn Kernel>> {
        if attrs.def.flags.strings_by_index {
            if let Some(as_ids) = attrs.strings_as_int32() {
                return Ok(super::by_index::wrap(self.instantiate(&as_ids)?));
            }
        }
        match self {
            KernelFactory::Simple(f) => Ok(Box::new(SimpleKernel {
                attrs: attrs.clone(),
                f,
            })),
            KernelFactory::Prepared(p) => p(attrs),
        }
    }
}

struct SimpleKernel {
    attrs: NodeAttrs,
    f: ComputeFn,
}

impl Kernel for SimpleKernel {
    fn compute(&self, ctx: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        (self.f)(&self.attrs, ctx, inputs)
    }
}
