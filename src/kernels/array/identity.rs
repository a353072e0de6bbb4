//! Ops that pass tensors through (aliasing, never copying) or produce nothing: Identity,
//! IdentityN, StopGradient, Snapshot, NoOp, and Placeholder (which must be fed, never run).

use crate::ops::def::ANY;
use crate::ops::{AttrDefault, AttrType, NodeAttrs, OpBuilder, Registry};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::status::{failed_precondition, Result};
use crate::tensor::Tensor;

pub fn register(reg: &mut Registry) {
    for name in ["Identity", "StopGradient", "Snapshot"] {
        reg.add(
            OpBuilder::new(name, Simple(pass_through))
                .input("input", "T")
                .type_attr("T", ANY),
        );
    }
    reg.add(OpBuilder::new("IdentityN", Simple(pass_through)).inputs_typed("input", "T"));
    reg.add(OpBuilder::new("NoOp", Simple(no_op)));
    reg.add(
        OpBuilder::new("Placeholder", Simple(placeholder))
            .type_attr("dtype", ANY)
            .attr("shape", AttrType::Shape, Some(AttrDefault::UnknownShape)),
    );
}

fn pass_through(
    _: &NodeAttrs,
    _: &mut KernelContext<'_>,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>> {
    Ok(inputs.to_vec())
}

fn no_op(_: &NodeAttrs, _: &mut KernelContext<'_>, _: &[Tensor]) -> Result<Vec<Tensor>> {
    Ok(Vec::new())
}

fn placeholder(a: &NodeAttrs, _: &mut KernelContext<'_>, _: &[Tensor]) -> Result<Vec<Tensor>> {
    Err(failed_precondition(format!(
        "Placeholder must be fed: a Placeholder of dtype {} has no value to produce",
        a.dtype("dtype")?
    )))
}
