//! Array ops (TF's array_ops.cc family): shape manipulation, concat/split, slicing, gather,
//! pad/tile, fill/range/const and the identity family. Shared input readers and the strided copy
//! live here and in `strided`.

pub mod assemble;
mod concat;
mod diag;
mod dynamic;
mod extra;
mod fill;
mod gather;
mod gather_nd;
mod identity;
mod pad;
mod ragged;
mod shape_ops;
mod slice;
mod sparse;
pub mod strided;
mod transpose;

pub use gather::gather;
pub use shape_ops::reshape_target;
pub use slice::{strided_spec, SliceMasks, StridedSpec};
pub use strided::{for_each_base, gather_strided};
pub use transpose::{normalize_perm, transpose};

use crate::ops::Registry;
use crate::status::{invalid_argument, Result};
use crate::tensor::{Element, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    shape_ops::register(reg);
    concat::register(reg);
    slice::register(reg);
    transpose::register(reg);
    gather::register(reg);
    pad::register(reg);
    fill::register(reg);
    identity::register(reg);
    gather_nd::register(reg);
    diag::register(reg);
    dynamic::register(reg);
    extra::register(reg);
    sparse::register(reg);
    ragged::register(reg);
}

/// Reads a 1-D int32/int64 input (shape, begin, perm...) as i64s; `what` names it in errors.
pub fn int_vector(t: &Tensor, what: &str) -> Result<Vec<i64>> {
    if t.rank() != 1 {
        return Err(invalid_argument(format!(
            "{what} must be a 1-D tensor, got shape {}",
            t.shape()
        )));
    }
    t.to_i64_vec()
        .map_err(|e| invalid_argument(format!("{what}: {}", e.message)))
}

/// Reads an int32/int64 input holding exactly one value (an axis); with `scalar_only`, it must
/// also be rank 0, as TF requires for ConcatV2's and GatherV2's axis.
pub fn int_scalar(t: &Tensor, what: &str, scalar_only: bool) -> Result<i64> {
    let ok = if scalar_only {
        t.rank() == 0
    } else {
        t.num_elements() == 1
    };
    if !ok {
        return Err(invalid_argument(format!(
            "{what} must be {}, got shape {}",
            if scalar_only {
                "a scalar"
            } else {
                "a tensor with a single value"
            },
            t.shape()
        )));
    }
    let v = t
        .to_i64_vec()
        .map_err(|e| invalid_argument(format!("{what}: {}", e.message)))?;
    v.first()
        .copied()
        .ok_or_else(|| invalid_argument(format!("{what} is empty")))
}

/// Reads a `[rank, 2]` paddings matrix (Pad, PadV2, MirrorPad) as (before, after) pairs.
pub fn paddings(t: &Tensor, rank: usize) -> Result<Vec<(usize, usize)>> {
    if t.rank() != 2 || t.dims()[1] != 2 {
        return Err(invalid_argument(format!(
            "paddings must be a matrix with 2 columns, got shape {}",
            t.shape()
        )));
    }
    if t.dims()[0] != rank {
        return Err(invalid_argument(format!(
            "the first dimension of paddings must be the rank of the input ({rank}), got paddings \
             of shape {}",
            t.shape()
        )));
    }
    let v = t.to_i64_vec()?;
    v.chunks_exact(2)
        .map(|p| {
            if p[0] < 0 || p[1] < 0 {
                return Err(invalid_argument(format!(
                    "paddings must be non-negative, got {} {}",
                    p[0], p[1]
                )));
            }
            let conv = |x: i64| {
                usize::try_from(x)
                    .map_err(|_| invalid_argument(format!("padding {x} is too large")))
            };
            Ok((conv(p[0])?, conv(p[1])?))
        })
        .collect()
}

/// Wraps a freshly computed buffer as a tensor of `shape`.
pub(crate) fn output<T: Element>(shape: Shape, v: Vec<T>) -> Result<Tensor> {
    Tensor::from_vec(shape, v)
}

/// A non-negative i64 as a dimension size, or InvalidArgument naming `what`.
pub(crate) fn to_dim(x: i64, what: &str) -> Result<usize> {
    if x < 0 {
        return Err(invalid_argument(format!("{what} must be >= 0, got {x}")));
    }
    usize::try_from(x).map_err(|_| invalid_argument(format!("{what} {x} is too large")))
}

#[cfg(test)]
mod tests;
