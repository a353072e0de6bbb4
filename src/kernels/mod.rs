//! Kernels: the `Kernel` trait, how kernels are made from attrs, and registration of every family.
//! Each family module declares its ops (definition + kernel) in a `register` function.

pub mod array;
pub mod broadcast;
pub mod math;
pub mod math_extra;
pub mod math_more;
pub mod nn;
pub mod num;
pub mod reduce;
pub mod resource;
pub mod space_batch;
pub mod tfjs_only;
pub mod vmath;

use crate::ops::{NodeAttrs, Registry};
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

pub fn register_all(reg: &mut Registry) {
    nn::register(reg);
    resource::register(reg);
    space_batch::register(reg);
    math::register(reg);
    reduce::register(reg);
    array::register(reg);
    math_extra::register(reg);
    math_more::register(reg);
    tfjs_only::register(reg);
}
