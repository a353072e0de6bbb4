//! Diag (a tensor of shape `d` onto the diagonal of one of shape `d + d`) and DiagPart (back).

use super::assemble::{assemble, zero_scalar};
use super::gather_strided;
use crate::kernels::num::prod;
use crate::ops::def::NUMERIC;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{Shape, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Diag", Simple(diag))
            .input("diagonal", "T")
            .type_attr("T", NUMERIC),
    );
    reg.add(
        OpBuilder::new("DiagPart", Simple(diag_part))
            .input("input", "T")
            .type_attr("T", NUMERIC),
    );
}

fn diag(_: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let x = &i[0];
    if x.rank() == 0 {
        return Err(invalid_argument("Input must be at least rank 1, got 0"));
    }
    let shape = Shape::from_dims(&[x.dims(), x.dims()].concat())?;
    let n = x.num_elements();
    let zero = zero_scalar(x.dtype())?;
    // Row k: k zeros, x[k], then n - 1 - k zeros (source 1 is the zero, repeated).
    Ok(crate::ops::one_output(assemble(
        &[x, &zero],
        x.dtype(),
        shape,
        &mut |emit| {
            for k in 0..n {
                emit(1, 0, k, 0);
                emit(0, k, 1, 1);
                emit(1, 0, n - 1 - k, 0);
            }
        },
    )?))
}

fn diag_part(_: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let x = &i[0];
    let (d, k) = (x.dims(), x.rank() / 2);
    if x.rank() % 2 != 0 {
        return Err(invalid_argument(format!(
            "The rank of the tensor should be even and positive, got shape {}",
            x.shape()
        )));
    }
    if let Some(j) = (0..k).find(|&j| d[j] != d[j + k]) {
        return Err(invalid_argument(format!(
            "Invalid shape {}: dimensions {j} and {} do not match.",
            x.shape(),
            j + k
        )));
    }
    // Element k of the diagonal sits at k * (n + 1) of the flattened n x n matrix.
    let n = prod(&d[..k]);
    let dims = if k == 0 { vec![] } else { vec![n] };
    let strides = if k == 0 { vec![] } else { vec![n as isize + 1] };
    Ok(crate::ops::one_output(gather_strided(
        x,
        0,
        &dims,
        &strides,
        Shape::from_dims(&d[..k])?,
    )?))
}
