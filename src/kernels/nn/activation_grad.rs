//! The elementwise activation gradients of TF (ReluGrad ... SoftsignGrad, and the cwise
//! SigmoidGrad, TanhGrad, RsqrtGrad, SqrtGrad, ReciprocalGrad/InvGrad) with TF's CPU formulas:
//! one table and one kernel, since training-side ops are rare.

use super::activation::{SELU_SCALE, SELU_SCALE_ALPHA};
use crate::kernels::num::{narrow, widen};
use crate::ops::def::{FLOAT, NUMERIC};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, DType, Tensor};

/// `f(first input, second input, alpha)` for one element.
type Grad = fn(f32, f32, f32) -> f32;

/// TF's mul_no_nan of the sqrt/rsqrt/reciprocal gradients: a zero gradient gives 0 whatever `y`.
fn no_nan(dy: f32, v: impl Fn() -> f32) -> f32 {
    if dy == 0.0 {
        0.0
    } else {
        v()
    }
}

/// (op, input names, formula). Ops whose first input is `y` are TF's cwise gradients (equal
/// element counts suffice, the output takes `y`'s shape); the others require equal shapes.
const GRADS: [(&str, [&str; 2], Grad); 13] = [
    // A product with the mask, as TF: an infinite gradient at a cut feature is NaN.
    ("ReluGrad", ["gradients", "features"], |g, f, _| {
        g * (f > 0.0) as u8 as f32
    }),
    ("Relu6Grad", ["gradients", "features"], |g, f, _| {
        g * (f > 0.0 && f < 6.0) as u8 as f32
    }),
    ("LeakyReluGrad", ["gradients", "features"], |g, f, a| {
        if f > 0.0 {
            g
        } else {
            g * a
        }
    }),
    ("EluGrad", ["gradients", "outputs"], |g, y, _| {
        if y < 0.0 {
            (y + 1.0) * g
        } else {
            g
        }
    }),
    ("SeluGrad", ["gradients", "outputs"], |g, y, _| {
        if y < 0.0 {
            g * (y + SELU_SCALE_ALPHA)
        } else {
            g * SELU_SCALE
        }
    }),
    ("SoftplusGrad", ["gradients", "features"], |g, f, _| {
        g / ((-f).exp() + 1.0)
    }),
    ("SoftsignGrad", ["gradients", "features"], |g, f, _| {
        let d = f.abs() + 1.0;
        g / (d * d)
    }),
    ("SigmoidGrad", ["y", "dy"], |y, dy, _| dy * y * (1.0 - y)),
    ("TanhGrad", ["y", "dy"], |y, dy, _| dy * (1.0 - y * y)),
    ("RsqrtGrad", ["y", "dy"], |y, dy, _| {
        no_nan(dy, || -0.5 * (dy * y) * (y * y))
    }),
    ("SqrtGrad", ["y", "dy"], |y, dy, _| {
        no_nan(dy, || 0.5 * dy / y)
    }),
    ("ReciprocalGrad", ["y", "dy"], |y, dy, _| {
        no_nan(dy, || -y * y * dy)
    }),
    ("InvGrad", ["y", "dy"], |y, dy, _| {
        no_nan(dy, || -y * y * dy)
    }),
];

pub fn register(reg: &mut Registry) {
    for (name, [a, b], _) in GRADS {
        // ReluGrad and Relu6Grad take integers too, as TF's (and this runtime's Relu/Relu6).
        let types = if name.starts_with("Relu") {
            NUMERIC
        } else {
            FLOAT
        };
        let mut op = OpBuilder::new(name, Simple(grad))
            .input(a, "T")
            .input(b, "T")
            .type_attr("T", types);
        if name == "LeakyReluGrad" {
            op = op.float_attr("alpha", 0.2);
        }
        reg.add(op);
    }
}

fn grad(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let Some(&(name, names, f)) = GRADS.iter().find(|g| g.0 == a.op()) else {
        return Err(invalid_argument(format!(
            "{}: not an activation gradient",
            a.op()
        )));
    };
    let (x, y) = crate::kernels::two(i, names)?;
    let cwise = names[0] == "y";
    if (cwise && x.num_elements() != y.num_elements()) || (!cwise && x.shape() != y.shape()) {
        return Err(invalid_argument(format!(
            "{name}: the two inputs must have the same {}, got {} and {}",
            if cwise { "number of elements" } else { "shape" },
            x.shape(),
            y.shape()
        )));
    }
    if x.dtype() != DType::Float32 {
        // Integer ReluGrad / Relu6Grad: the gradient where the feature is in (0, 6) or (0, max).
        let hi = if name == "Relu6Grad" { 5 } else { i64::MAX };
        let (g, ft) = (widen(x)?, widen(y)?);
        let (gs, fs) = (g.as_slice::<i64>()?, ft.as_slice::<i64>()?);
        let mut out = try_with_capacity::<i64>(gs.len())?;
        out.extend(
            gs.iter()
                .zip(fs)
                .map(|(&g, &f)| if f > 0 && f <= hi { g } else { 0 }),
        );
        return Ok(crate::ops::one_output(narrow(
            Tensor::from_vec(x.shape().clone(), out)?,
            x.dtype(),
        )?));
    }
    let alpha = if name == "LeakyReluGrad" {
        a.float("alpha")?
    } else {
        0.0
    };
    let (xs, ys) = (x.f32s()?, y.f32s()?);
    let mut out = try_with_capacity::<f32>(xs.len())?;
    out.extend(xs.iter().zip(ys).map(|(&p, &q)| f(p, q, alpha)));
    Ok(crate::ops::one_output(Tensor::from_vec(
        x.shape().clone(),
        out,
    )?))
}
