//! complex64: the ops that build and take apart complex tensors (Complex, Real, Imag, ComplexAbs,
//! Conj, Angle), and the view of a complex tensor as float32 (re, im) pairs that lets float kernels
//! (Sum, Mean) serve it. The element arithmetic is in complex_elem.rs.

use super::broadcast::binary_map_fn;
use super::complex_elem::abs;
use super::input;
use super::math::unary_map_fn;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::Result;
use crate::tensor::{try_with_capacity, DType, Shape, Tensor, C64};

type Outputs = Result<Vec<Tensor>>;

const COMPLEX: &[DType] = &[DType::Complex64];
const FLOAT: &[DType] = &[DType::Float32];

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Complex", Simple(complex))
            .input("real", "T")
            .input("imag", "T")
            .type_attr_default("T", FLOAT, DType::Float32)
            .type_attr_default("Tout", COMPLEX, DType::Complex64),
    );
    let parts: [(&'static str, &'static str, crate::ops::ComputeFn); 4] = [
        ("Real", "input", real),
        ("Imag", "input", imag),
        ("ComplexAbs", "x", complex_abs),
        ("Angle", "input", angle),
    ];
    for (name, arg, f) in parts {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input(arg, "T")
                .type_attr_default("T", COMPLEX, DType::Complex64)
                .type_attr_default("Tout", FLOAT, DType::Float32),
        );
    }
    reg.add(
        OpBuilder::new("Conj", Simple(conj))
            .input("input", "T")
            .type_attr_default("T", COMPLEX, DType::Complex64),
    );
}

// ---------------------------------------------------------------------------------------------
// Kernels

fn complex(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (re, im) = super::two(inputs, ["real", "imag"])?;
    Ok(crate::ops::one_output(binary_map_fn(re, im, C64::new)?))
}

fn real(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = input(inputs, 0, "input")?;
    Ok(crate::ops::one_output(unary_map_fn(x, |c: C64| c.re)?))
}

fn imag(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = input(inputs, 0, "input")?;
    Ok(crate::ops::one_output(unary_map_fn(x, |c: C64| c.im)?))
}

fn complex_abs(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = input(inputs, 0, "x")?;
    Ok(crate::ops::one_output(unary_map_fn(x, abs)?))
}

fn angle(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = input(inputs, 0, "input")?;
    Ok(crate::ops::one_output(unary_map_fn(x, |c: C64| {
        c.im.atan2(c.re)
    })?))
}

fn conj(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = input(inputs, 0, "input")?;
    Ok(crate::ops::one_output(unary_map_fn(x, |c: C64| {
        C64::new(c.re, -c.im)
    })?))
}

// ---------------------------------------------------------------------------------------------
// complex64 as float32 pairs

/// A complex64 tensor of shape `[..dims]` as the float32 tensor `[..dims, 2]` of its (re, im)
/// pairs (a copy).
pub(crate) fn to_pairs(t: &Tensor) -> Result<Tensor> {
    let v = t.as_slice::<C64>()?;
    let mut out = try_with_capacity::<f32>(v.len().saturating_mul(2))?;
    out.extend(v.iter().flat_map(|c| [c.re, c.im]));
    let mut dims = t.dims().to_vec();
    dims.push(2);
    Tensor::from_vec(Shape::new(dims)?, out)
}

/// The inverse of [`to_pairs`]: a float32 `[..dims, 2]` tensor as complex64 `[..dims]`.
pub(crate) fn from_pairs(t: &Tensor) -> Result<Tensor> {
    let v = t.f32s()?;
    let dims = t.dims();
    let Some((&2, outer)) = dims.split_last() else {
        return Err(crate::status::internal(
            "complex pairs without a last dim of 2",
        ));
    };
    let mut out = try_with_capacity::<C64>(v.len() / 2)?;
    out.extend(v.chunks_exact(2).map(|p| C64::new(p[0], p[1])));
    Tensor::from_vec(Shape::new(outer.to_vec())?, out)
}
