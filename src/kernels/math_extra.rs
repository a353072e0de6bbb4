//! The rarer elementwise and scan ops TF.js models use: inverse trig and hyperbolic functions,
//! IsNan/IsInf/IsFinite, Atan2, Mod, DivNoNan, ClipByValue, BitwiseAnd, Cumsum/Cumprod. Compact
//! loops through function pointers: none of these is hot in a model.

use super::array::int_scalar;
use super::broadcast::binary_map_fn;
use super::math::unary_map_fn;
use super::num::{narrow, norm_axis, prod, widen, Num, WITH_U8};
use crate::ops::def::{FLOAT, INDEX, NUMERIC};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, DType, Tensor};

type Outputs = Result<Vec<Tensor>>;

const INTS: &[DType] = &[DType::Int32, DType::Int64];

pub fn register(reg: &mut Registry) {
    for name in [
        "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cosh", "Sinh", "Tan", "Expm1",
    ] {
        reg.add(
            OpBuilder::new(name, Simple(unary_float))
                .input("x", "T")
                .type_attr("T", FLOAT),
        );
    }
    for name in ["IsNan", "IsInf", "IsFinite"] {
        reg.add(
            OpBuilder::new(name, Simple(classify))
                .input("x", "T")
                .type_attr("T", FLOAT),
        );
    }
    let binary: [(&'static str, crate::ops::ComputeFn, &'static [DType]); 4] = [
        ("Atan2", atan2, FLOAT),
        ("Mod", modulo, NUMERIC),
        ("DivNoNan", div_no_nan, FLOAT),
        ("BitwiseAnd", bitwise_and, INTS),
    ];
    for (name, f, types) in binary {
        let (x, y) = if name == "Atan2" {
            ("y", "x")
        } else {
            ("x", "y")
        };
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input(x, "T")
                .input(y, "T")
                .type_attr("T", types),
        );
    }
    reg.add(
        OpBuilder::new("ClipByValue", Simple(clip_by_value))
            .input("t", "T")
            .input("clip_value_min", "T")
            .input("clip_value_max", "T")
            .type_attr("T", WITH_U8),
    );
    for name in ["Cumsum", "Cumprod"] {
        reg.add(
            OpBuilder::new(name, Simple(scan))
                .input("x", "T")
                .input("axis", "Tidx")
                .bool_attr("exclusive", false)
                .bool_attr("reverse", false)
                .type_attr("T", NUMERIC)
                .type_attr_default("Tidx", INDEX, DType::Int32),
        );
    }
}

fn unary_float(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let f: fn(f32) -> f32 = match a.op() {
        "Acos" => f32::acos,
        "Acosh" => f32::acosh,
        "Asin" => f32::asin,
        "Asinh" => f32::asinh,
        "Atan" => f32::atan,
        "Atanh" => f32::atanh,
        "Cosh" => f32::cosh,
        "Sinh" => f32::sinh,
        "Tan" => f32::tan,
        _ => f32::exp_m1,
    };
    Ok(crate::ops::one_output(unary_map_fn(&inputs[0], f)?))
}

fn classify(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let f: fn(f32) -> bool = match a.op() {
        "IsNan" => f32::is_nan,
        "IsInf" => f32::is_infinite,
        _ => f32::is_finite,
    };
    Ok(crate::ops::one_output(unary_map_fn(&inputs[0], f)?))
}

fn atan2(_: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    Ok(crate::ops::one_output(binary_map_fn(
        &i[0],
        &i[1],
        f32::atan2,
    )?))
}

fn div_no_nan(_: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    Ok(crate::ops::one_output(binary_map_fn(
        &i[0],
        &i[1],
        |x: f32, y: f32| {
            if y == 0.0 {
                0.0
            } else {
                x / y
            }
        },
    )?))
}

/// Any zero in an integer divisor is TF's "Integer division by zero" (checked up front).
fn check_int_divisor(y: &Tensor) -> Result<()> {
    crate::kernels::math::check_zero_divisor(true, y)
}

/// Truncated remainder (C's `%` / `fmod`): the result has the sign of the dividend.
fn modulo(_: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (x, y) = (&i[0], &i[1]);
    check_int_divisor(y)?;
    Ok(crate::ops::one_output(match x.dtype() {
        DType::Float32 => binary_map_fn(x, y, |a: f32, b: f32| a % b)?,
        DType::Int32 => binary_map_fn(x, y, |a: i32, b: i32| a.wrapping_rem(b))?,
        _ => binary_map_fn(x, y, |a: i64, b: i64| a.wrapping_rem(b))?,
    }))
}

fn bitwise_and(_: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (x, y) = (&i[0], &i[1]);
    Ok(crate::ops::one_output(match x.dtype() {
        DType::Int32 => binary_map_fn(x, y, |a: i32, b: i32| a & b)?,
        _ => binary_map_fn(x, y, |a: i64, b: i64| a & b)?,
    }))
}

/// TF's ClipByValue: the bounds are scalars or have `t`'s shape (no other broadcasting).
fn clip_by_value(_: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (t, lo, hi) = (&i[0], &i[1], &i[2]);
    for b in [lo, hi] {
        if b.rank() != 0 && b.shape() != t.shape() {
            return Err(invalid_argument(format!(
                "clip_value_min and clip_value_max must be either scalars or have the same shape \
                 as t: t shape {}, clip_value_min shape {}, clip_value_max shape {}",
                t.shape(),
                lo.shape(),
                hi.shape()
            )));
        }
    }
    fn clip<T: Num>(t: &Tensor, lo: &Tensor, hi: &Tensor) -> Result<Tensor> {
        let (x, l, h) = (t.as_slice::<T>()?, lo.as_slice::<T>()?, hi.as_slice::<T>()?);
        let pick = |s: &[T], k: usize| if s.len() == 1 { s[0] } else { s[k] };
        let mut out = try_with_capacity::<T>(x.len())?;
        for (k, &v) in x.iter().enumerate() {
            // min(max(v, lo), hi), as Eigen's cwiseMax then cwiseMin.
            let lv = pick(l, k);
            let v = if v < lv { lv } else { v };
            let hv = pick(h, k);
            out.push(if hv < v { hv } else { v });
        }
        Tensor::from_vec(t.shape().clone(), out)
    }
    let dtype = t.dtype();
    let (t, lo, hi) = (&widen(t)?, &widen(lo)?, &widen(hi)?);
    let out = crate::with_num!(t.dtype(), "ClipByValue", T, { clip::<T>(t, lo, hi) })?;
    Ok(crate::ops::one_output(narrow(out, dtype)?))
}

/// Cumsum / Cumprod along `axis`, optionally exclusive (shifted by one) and/or reversed.
fn scan(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let x = &i[0];
    if i[1].rank() != 0 {
        return Err(invalid_argument(format!(
            "ScanOp: axis must be a scalar, not {}",
            i[1].shape()
        )));
    }
    let axis = int_scalar(&i[1], "axis", true)?;
    let r = x.rank() as i64;
    if axis < -r || axis >= r {
        return Err(invalid_argument(format!(
            "ScanOp: Expected scan axis in the range [{}, {r}), but got {axis}",
            -r
        )));
    }
    let axis = norm_axis(axis, x.rank(), "ScanOp")?;
    let d = x.dims();
    let (outer, len, inner) = (prod(&d[..axis]), d[axis], prod(&d[axis + 1..]));
    let (exclusive, reverse) = (a.bool("exclusive")?, a.bool("reverse")?);
    let product = a.op() == "Cumprod";
    fn run<T: Num>(
        x: &Tensor,
        (outer, len, inner): (usize, usize, usize),
        exclusive: bool,
        reverse: bool,
        product: bool,
    ) -> Result<Tensor> {
        let v = x.as_slice::<T>()?;
        let mut out = crate::tensor::try_alloc::<T>(v.len())?;
        let (f, init): (fn(T, T) -> T, T) = if product {
            (T::mul, T::ONE)
        } else {
            (T::add, T::ZERO)
        };
        // Flags as data (a signed step, an index), so the loop is not copied per combination.
        let (first, step) = if reverse {
            ((len.max(1) - 1) * inner, inner.wrapping_neg())
        } else {
            (0, inner)
        };
        let pick = usize::from(exclusive);
        for o in 0..outer {
            for n in 0..inner {
                let mut acc = init;
                let mut at = o * len * inner + n + first;
                for _ in 0..len {
                    let next = f(acc, v[at]);
                    out[at] = [next, acc][pick];
                    acc = next;
                    at = at.wrapping_add(step);
                }
            }
        }
        Tensor::from_vec(x.shape().clone(), out)
    }
    let geo = (outer, len, inner);
    let dtype = x.dtype();
    let x = &widen(x)?;
    let out = crate::with_num!(x.dtype(), a.op(), T, {
        run::<T>(x, geo, exclusive, reverse, product)
    })?;
    Ok(crate::ops::one_output(narrow(out, dtype)?))
}
