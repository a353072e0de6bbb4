//! Resource-variable ops, over the context's `ResourceManager`.

use crate::ops::def::ANY;
use crate::ops::{AttrType, NodeAttrs, OpBuilder, Registry};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::status::Result;
use crate::tensor::{DType, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("VarHandleOp", Simple(var_handle))
            .string_attr("container", Some(""))
            .string_attr("shared_name", Some(""))
            .attr(
                "debug_name",
                AttrType::String,
                Some(crate::ops::AttrDefault::Str("")),
            )
            .type_attr("dtype", ANY)
            .attr("shape", AttrType::Shape, None)
            .attr(
                "allowed_devices",
                AttrType::ListString,
                Some(crate::ops::AttrDefault::EmptyList),
            )
            .stateful(),
    );
    reg.add(
        OpBuilder::new("AssignVariableOp", Simple(assign))
            .fixed_input("resource", DType::Resource)
            .input("value", "dtype")
            .type_attr("dtype", ANY)
            .bool_attr("validate_shape", false)
            .stateful(),
    );
    reg.add(
        OpBuilder::new("ReadVariableOp", Simple(read))
            .fixed_input("resource", DType::Resource)
            .type_attr("dtype", ANY)
            .stateful(),
    );
    for (name, f) in [
        ("AssignAddVariableOp", assign_add as crate::ops::ComputeFn),
        ("AssignSubVariableOp", assign_sub),
    ] {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .fixed_input("resource", DType::Resource)
                .input("value", "dtype")
                .type_attr("dtype", crate::ops::def::NUMERIC)
                .stateful(),
        );
    }
    reg.add(
        OpBuilder::new("VarIsInitializedOp", Simple(is_initialized))
            .fixed_input("resource", DType::Resource)
            .stateful(),
    );
    reg.add(
        OpBuilder::new("DestroyResourceOp", Simple(destroy))
            .fixed_input("resource", DType::Resource)
            .bool_attr("ignore_lookup_error", true)
            .stateful(),
    );
}

fn var_handle(a: &NodeAttrs, ctx: &mut KernelContext<'_>, _: &[Tensor]) -> Result<Vec<Tensor>> {
    let shape = a.shape("shape")?.clone();
    let h = ctx.resources.var_handle(
        &a.str("container")?,
        &a.str("shared_name")?,
        a.dtype("dtype")?,
        shape,
        ctx.scope,
    )?;
    Ok(crate::ops::one_output(Tensor::resource(h)))
}

fn assign(_: &NodeAttrs, ctx: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    ctx.resources
        .assign(inputs[0].resource_handle()?, inputs[1].clone())?;
    Ok(vec![])
}

fn read(a: &NodeAttrs, ctx: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    Ok(crate::ops::one_output(
        ctx.resources
            .read(inputs[0].resource_handle()?, a.dtype("dtype")?)?,
    ))
}

fn update(
    a: &NodeAttrs,
    ctx: &mut KernelContext<'_>,
    inputs: &[Tensor],
    sign: f32,
) -> Result<Vec<Tensor>> {
    let h = inputs[0].resource_handle()?;
    let old = ctx.resources.read(h, a.dtype("dtype")?)?;
    crate::ensure!(
        old.shape() == inputs[1].shape(),
        "update of shape {} does not match the variable's shape {}",
        inputs[1].shape(),
        old.shape()
    );
    // The kernels AddV2 and Sub run (dtypes were checked by this op's definition and by `read`).
    let f: crate::ops::ComputeFn = if sign > 0.0 {
        super::math::add
    } else {
        super::math::sub
    };
    let mut out = f(a, ctx, &[old, inputs[1].clone()])?;
    let new = out
        .pop()
        .ok_or_else(|| crate::status::internal("update produced no value"))?;
    ctx.resources.assign(h, new)?;
    Ok(vec![])
}

fn assign_add(
    a: &NodeAttrs,
    ctx: &mut KernelContext<'_>,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>> {
    update(a, ctx, inputs, 1.0)
}

fn assign_sub(
    a: &NodeAttrs,
    ctx: &mut KernelContext<'_>,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>> {
    update(a, ctx, inputs, -1.0)
}

fn is_initialized(
    _: &NodeAttrs,
    ctx: &mut KernelContext<'_>,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>> {
    let v = ctx.resources.variable(inputs[0].resource_handle()?)?;
    Ok(crate::ops::one_output(Tensor::scalar(v.value.is_some())))
}

fn destroy(a: &NodeAttrs, ctx: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    match ctx.resources.destroy(inputs[0].resource_handle()?) {
        Err(e) if e.code == crate::status::Code::NotFound && a.bool("ignore_lookup_error")? => {
            Ok(vec![])
        }
        Err(e) => Err(e),
        Ok(()) => Ok(vec![]),
    }
}
