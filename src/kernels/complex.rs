//! complex64: the ops that build and take apart complex tensors (Complex, Real, Imag, ComplexAbs,
//! Conj, Angle), the element arithmetic the generic math kernels use on complex64 (one shared,
//! function-pointer loop per shape of op, apart from the float32 fast paths), and the view of a
//! complex tensor as float32 (re, im) pairs that lets float kernels (Sum, Mean) serve it.

use super::broadcast::binary_map_fn;
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
// Element arithmetic (function pointers for `binary_map_fn`/`unary_map_fn`)

pub(crate) fn add(a: C64, b: C64) -> C64 {
    C64::new(a.re + b.re, a.im + b.im)
}

pub(crate) fn sub(a: C64, b: C64) -> C64 {
    C64::new(a.re - b.re, a.im - b.im)
}

pub(crate) fn mul(a: C64, b: C64) -> C64 {
    C64::new(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
}

pub(crate) fn neg(a: C64) -> C64 {
    C64::new(-a.re, -a.im)
}

/// `a / b` in double precision (no overflow or underflow in |b|^2 for any float32 `b`), rounded
/// once; a NaN+NaNi result is mended as C99 Annex G says (libgcc's `__divsc3`, what TF's
/// scalar path gives): a zero divisor gives a signed infinity, an infinite operand infinities or
/// zeros.
pub(crate) fn div(a: C64, b: C64) -> C64 {
    let (p, q) = (f64::from(a.re), f64::from(a.im));
    let (mut c, mut d) = (f64::from(b.re), f64::from(b.im));
    let den = c * c + d * d;
    let (mut x, mut y) = ((p * c + q * d) / den, (q * c - p * d) / den);
    if x.is_nan() && y.is_nan() {
        let finite = |u: f64, v: f64| u.is_finite() && v.is_finite();
        let unit = |u: f64| (if u.is_infinite() { 1.0f64 } else { 0.0 }).copysign(u);
        if den == 0.0 && (!p.is_nan() || !q.is_nan()) {
            let inf = f64::INFINITY.copysign(c);
            (x, y) = (inf * p, inf * q);
        } else if (p.is_infinite() || q.is_infinite()) && finite(c, d) {
            let (p, q) = (unit(p), unit(q));
            (x, y) = (
                f64::INFINITY * (p * c + q * d),
                f64::INFINITY * (q * c - p * d),
            );
        } else if (c.is_infinite() || d.is_infinite()) && finite(p, q) {
            (c, d) = (unit(c), unit(d));
            (x, y) = (0.0 * (p * c + q * d), 0.0 * (q * c - p * d));
        }
    }
    C64::new(x as f32, y as f32)
}

/// |a| (TF's `std::abs`, a hypot): in f64, where no float32's square overflows or underflows
/// (and `sqrt` is one instruction, not libm's hypot).
fn abs(a: C64) -> f32 {
    let (re, im) = (f64::from(a.re), f64::from(a.im));
    (re * re + im * im).sqrt() as f32
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
