//! Thin helpers that run one TF op through the context: the forward pass of every layer is made of
//! these, so each op goes through `EagerContext::execute` and its kernel cache. Each is kept out of
//! line (`inline(never)`): layers call them from hundreds of places, and inlining the dispatch path
//! into each would multiply the .wasm's model code several times over for no measurable speed.

use crate::eager::EagerContext;
use crate::ops::AttrValue;
use crate::status::{internal, Result};
use crate::tensor::Tensor;

/// All outputs of `op`.
#[inline(never)]
pub fn exec(
    ctx: &mut EagerContext,
    name: &str,
    inputs: &[Tensor],
    attrs: Vec<(&str, AttrValue)>,
) -> Result<Vec<Tensor>> {
    ctx.execute(name, inputs, attrs)
}

/// The first output of `op`.
#[inline(never)]
pub fn op(
    ctx: &mut EagerContext,
    name: &str,
    inputs: &[Tensor],
    attrs: Vec<(&str, AttrValue)>,
) -> Result<Tensor> {
    exec(ctx, name, inputs, attrs)?
        .into_iter()
        .next()
        .ok_or_else(|| internal(format!("{name} returned no output")))
}

#[inline(never)]
pub fn unary(ctx: &mut EagerContext, name: &str, x: &Tensor) -> Result<Tensor> {
    op(ctx, name, std::slice::from_ref(x), vec![])
}

#[inline(never)]
pub fn binary(ctx: &mut EagerContext, name: &str, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    op(ctx, name, &[a.clone(), b.clone()], vec![])
}

#[inline(never)]
pub fn add(ctx: &mut EagerContext, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(ctx, "AddV2", a, b)
}

#[inline(never)]
pub fn mul(ctx: &mut EagerContext, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(ctx, "Mul", a, b)
}

/// An int32 vector (shapes, axes, permutations, paddings as the ops take them).
#[inline(never)]
pub fn ints(v: &[i64]) -> Result<Tensor> {
    let v: Vec<i32> = v
        .iter()
        .map(|&d| {
            i32::try_from(d).map_err(|_| {
                crate::status::invalid_argument(format!("value {d} does not fit in int32"))
            })
        })
        .collect::<Result<_>>()?;
    Tensor::from_slice(&[v.len()], &v)
}

#[inline(never)]
pub fn scalar(v: f32) -> Tensor {
    Tensor::scalar(v)
}

#[inline(never)]
pub fn reshape(ctx: &mut EagerContext, x: &Tensor, shape: &[i64]) -> Result<Tensor> {
    op(ctx, "Reshape", &[x.clone(), ints(shape)?], vec![])
}

#[inline(never)]
pub fn transpose(ctx: &mut EagerContext, x: &Tensor, perm: &[i64]) -> Result<Tensor> {
    op(ctx, "Transpose", &[x.clone(), ints(perm)?], vec![])
}

#[inline(never)]
pub fn expand_dims(ctx: &mut EagerContext, x: &Tensor, axis: i32) -> Result<Tensor> {
    op(
        ctx,
        "ExpandDims",
        &[x.clone(), Tensor::scalar(axis)],
        vec![],
    )
}

#[inline(never)]
pub fn squeeze(ctx: &mut EagerContext, x: &Tensor, axis: i64) -> Result<Tensor> {
    op(
        ctx,
        "Squeeze",
        std::slice::from_ref(x),
        vec![("squeeze_dims", AttrValue::ListInt(vec![axis]))],
    )
}

/// `Sum`/`Mean`/`Max`/`Min`/`Any` over `axes`.
#[inline(never)]
pub fn reduce(
    ctx: &mut EagerContext,
    name: &str,
    x: &Tensor,
    axes: &[i64],
    keep_dims: bool,
) -> Result<Tensor> {
    op(
        ctx,
        name,
        &[x.clone(), ints(axes)?],
        vec![("keep_dims", AttrValue::Bool(keep_dims))],
    )
}

#[inline(never)]
pub fn concat(ctx: &mut EagerContext, xs: &[Tensor], axis: i64) -> Result<Tensor> {
    let mut inputs = xs.to_vec();
    inputs.push(Tensor::scalar(axis as i32));
    op(ctx, "ConcatV2", &inputs, vec![])
}

#[inline(never)]
pub fn matmul(ctx: &mut EagerContext, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(ctx, "MatMul", a, b)
}

#[inline(never)]
pub fn bias_add(ctx: &mut EagerContext, x: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(ctx, "BiasAdd", x, b)
}

#[inline(never)]
pub fn slice(ctx: &mut EagerContext, x: &Tensor, begin: &[i64], size: &[i64]) -> Result<Tensor> {
    op(
        ctx,
        "Slice",
        &[x.clone(), ints(begin)?, ints(size)?],
        vec![],
    )
}

#[inline(never)]
pub fn tile(ctx: &mut EagerContext, x: &Tensor, multiples: &[i64]) -> Result<Tensor> {
    op(ctx, "Tile", &[x.clone(), ints(multiples)?], vec![])
}

/// Zero padding, `pads[i] = (before, after)` for axis i.
#[inline(never)]
pub fn pad(ctx: &mut EagerContext, x: &Tensor, pads: &[(i64, i64)]) -> Result<Tensor> {
    let flat: Vec<i32> = pads
        .iter()
        .flat_map(|&(a, b)| [a as i32, b as i32])
        .collect();
    let p = Tensor::from_slice(&[pads.len(), 2], &flat)?;
    op(ctx, "Pad", &[x.clone(), p], vec![])
}

/// `cond ? a : b`, broadcasting.
#[inline(never)]
pub fn select(ctx: &mut EagerContext, cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    op(
        ctx,
        "SelectV2",
        &[cond.clone(), a.clone(), b.clone()],
        vec![],
    )
}

#[inline(never)]
pub fn cast(ctx: &mut EagerContext, x: &Tensor, to: crate::tensor::DType) -> Result<Tensor> {
    if x.dtype() == to {
        return Ok(x.clone());
    }
    op(
        ctx,
        "Cast",
        std::slice::from_ref(x),
        vec![("DstT", AttrValue::Type(to))],
    )
}

/// Splits `x` along `axis` into its `n` slices (axis removed).
#[inline(never)]
pub fn unpack(ctx: &mut EagerContext, x: &Tensor, axis: i64) -> Result<Vec<Tensor>> {
    let n = x.dims().get(axis as usize).copied().unwrap_or(0);
    exec(
        ctx,
        "Unpack",
        std::slice::from_ref(x),
        vec![
            ("num", AttrValue::Int(n as i64)),
            ("axis", AttrValue::Int(axis)),
        ],
    )
}

#[inline(never)]
pub fn stack(ctx: &mut EagerContext, xs: &[Tensor], axis: i64) -> Result<Tensor> {
    op(ctx, "Pack", xs, vec![("axis", AttrValue::Int(axis))])
}

/// Dims of `x` as i64 (for building target shapes at run time).
#[inline(never)]
pub fn dims(x: &Tensor) -> Vec<i64> {
    x.dims().iter().map(|&d| d as i64).collect()
}
