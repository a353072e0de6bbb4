//! Activations: the `Activation` enum fused kernels apply in place, and the standalone ops (Relu,
//! Relu6, Elu, LeakyRelu, Selu, Sigmoid, Tanh, Softplus, Softmax, LogSoftmax) with TF's formulas.

use super::simd::prelu;
use crate::kernels::vmath;
use crate::ops::def::FLOAT;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, DType, Element, Tensor};

pub(crate) const SELU_SCALE: f32 = 1.050_701;
pub(crate) const SELU_SCALE_ALPHA: f32 = 1.758_099_3;

/// An elementwise activation, as a fused epilogue names it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Activation {
    Identity,
    Relu,
    Relu6,
    Elu,
    LeakyRelu(f32),
    Selu,
    Sigmoid,
    Tanh,
    Softplus,
    /// x * sigmoid(x) (TF's oneDNN remapper names it `_MklSwish` in `fused_ops`): computed as the
    /// unfused `Sigmoid` then `Mul` would, so folding it changes no bit.
    Swish,
}

impl Activation {
    /// The activation a `fused_ops` entry names (Prelu is not elementwise; fused.rs handles it).
    pub fn from_fused_name(name: &str, leaky_alpha: f32) -> Option<Activation> {
        Some(match name {
            "Relu" => Activation::Relu,
            "Relu6" => Activation::Relu6,
            "Elu" => Activation::Elu,
            "LeakyRelu" => Activation::LeakyRelu(leaky_alpha),
            "Selu" => Activation::Selu,
            "Sigmoid" => Activation::Sigmoid,
            "Tanh" => Activation::Tanh,
            "Softplus" => Activation::Softplus,
            "Identity" => Activation::Identity,
            "_MklSwish" => Activation::Swish,
            _ => return None,
        })
    }

    #[inline(always)]
    pub fn scalar(self, x: f32) -> f32 {
        match self {
            Activation::Identity => x,
            Activation::Relu => relu(x),
            Activation::Relu6 => relu6(x),
            Activation::Elu => elu(x),
            Activation::LeakyRelu(a) => leaky_relu(x, a),
            Activation::Selu => selu(x),
            Activation::Sigmoid => sigmoid(x),
            Activation::Tanh => vmath::tanh(x),
            Activation::Softplus => softplus(x),
            Activation::Swish => x * sigmoid(x),
        }
    }

    /// Applies the activation in place; the match is hoisted so each loop is tight.
    pub fn apply(self, xs: &mut [f32]) {
        match self {
            Activation::Identity => {}
            Activation::Relu => xs.iter_mut().for_each(|x| *x = relu(*x)),
            Activation::Relu6 => xs.iter_mut().for_each(|x| *x = relu6(*x)),
            Activation::Elu => xs.iter_mut().for_each(|x| *x = elu(*x)),
            Activation::LeakyRelu(a) => xs.iter_mut().for_each(|x| *x = leaky_relu(*x, a)),
            Activation::Selu => xs.iter_mut().for_each(|x| *x = selu(*x)),
            Activation::Sigmoid => xs.iter_mut().for_each(|x| *x = sigmoid(*x)),
            Activation::Tanh => xs.iter_mut().for_each(|x| *x = vmath::tanh(*x)),
            Activation::Softplus => xs.iter_mut().for_each(|x| *x = softplus(*x)),
            Activation::Swish => xs.iter_mut().for_each(|x| *x *= sigmoid(*x)),
        }
    }

    /// The activation of `xs`: in a new buffer for the polynomial ones ([`Self::map_new`]; in
    /// place they measured no faster than [`Self::apply`]), else in place.
    pub fn apply_owned(self, mut xs: Vec<f32>) -> Result<Vec<f32>> {
        if matches!(
            self,
            Activation::Sigmoid | Activation::Tanh | Activation::Swish
        ) {
            return self.map_new(&xs);
        }
        self.apply(&mut xs);
        Ok(xs)
    }

    /// The activation of `src` in a new buffer, sixteen elements per step for the polynomial ones
    /// ([`vmath::map_into`]: 1.5x faster for sigmoid than `apply`'s loop).
    pub fn map_new(self, src: &[f32]) -> Result<Vec<f32>> {
        let mut out = try_with_capacity::<f32>(src.len())?;
        match self {
            Activation::Sigmoid => vmath::map_into(src, &mut out, sigmoid),
            Activation::Tanh => vmath::map_into(src, &mut out, vmath::tanh),
            Activation::Swish => vmath::map_into(src, &mut out, |x| x * sigmoid(x)),
            _ => {
                out.extend_from_slice(src);
                self.apply(&mut out);
            }
        }
        Ok(out)
    }
}

/// max(x, 0) with NaN passing through, like Eigen's cwiseMax.
#[inline(always)]
pub fn relu(x: f32) -> f32 {
    if x < 0.0 {
        0.0
    } else {
        x
    }
}

#[inline(always)]
pub fn relu6(x: f32) -> f32 {
    // clamp passes NaN through, like Eigen's cwiseMax/cwiseMin.
    x.clamp(0.0, 6.0)
}

#[inline(always)]
pub fn elu(x: f32) -> f32 {
    if x < 0.0 {
        x.exp_m1()
    } else {
        x
    }
}

/// TF selects rather than takes a max, since alpha may exceed 1.
#[inline(always)]
pub fn leaky_relu(x: f32, alpha: f32) -> f32 {
    if x > 0.0 {
        x
    } else {
        x * alpha
    }
}

#[inline(always)]
pub fn selu(x: f32) -> f32 {
    if x < 0.0 {
        SELU_SCALE_ALPHA * x.exp_m1()
    } else {
        SELU_SCALE * x
    }
}

pub use crate::kernels::vmath::sigmoid;

/// TF's softplus: x above -threshold, exp(x) below threshold, log(exp(x) + 1) between, where
/// threshold = log(f32::EPSILON) + 2.
#[inline(always)]
pub fn softplus(x: f32) -> f32 {
    const THRESHOLD: f32 = -13.942_385; // ln(1.1920929e-7) + 2
    if x > -THRESHOLD {
        x
    } else if x < THRESHOLD {
        x.exp()
    } else {
        (x.exp() + 1.0).ln()
    }
}

/// A new f32 tensor of `t`'s shape holding `f` of each element.
pub fn map_f32(t: &Tensor, f: impl Fn(f32) -> f32) -> Result<Tensor> {
    let x = t.f32s()?;
    let mut out = try_with_capacity::<f32>(x.len())?;
    out.extend(x.iter().map(|&v| f(v)));
    Tensor::from_vec(t.shape().clone(), out)
}

fn map_typed<T: Element>(t: &Tensor, f: impl Fn(T) -> T) -> Result<Tensor> {
    let x = t.as_slice::<T>()?;
    let mut out = try_with_capacity::<T>(x.len())?;
    out.extend(x.iter().map(|&v| f(v)));
    Tensor::from_vec(t.shape().clone(), out)
}

const REAL: &[DType] = &[DType::Float32, DType::Int32, DType::Int64];

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Relu", Simple(relu_op))
            .input("features", "T")
            .type_attr("T", REAL),
    );
    reg.add(
        OpBuilder::new("Relu6", Simple(relu6_op))
            .input("features", "T")
            .type_attr("T", REAL),
    );
    reg.add(
        OpBuilder::new("LeakyRelu", Simple(leaky_op))
            .input("features", "T")
            .float_attr("alpha", 0.2)
            .type_attr_default("T", FLOAT, DType::Float32),
    );
    let unary: [(&'static str, &'static str, crate::ops::ComputeFn); 6] = [
        ("Elu", "features", elu_op),
        ("Selu", "features", selu_op),
        ("Softplus", "features", softplus_op),
        ("Sigmoid", "x", sigmoid_op),
        ("Tanh", "x", tanh_op),
        ("Softmax", "logits", softmax_op),
    ];
    for (name, input, f) in unary {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input(input, "T")
                .type_attr("T", FLOAT),
        );
    }
    // The converter's PReLU (TF.js op): x where x >= 0, alpha * x elsewhere; alpha broadcasts.
    reg.add(
        OpBuilder::new("Prelu", Simple(prelu_op))
            .input("x", "T")
            .input("alpha", "T")
            .type_attr("T", FLOAT),
    );
    reg.add(
        OpBuilder::new("LogSoftmax", Simple(log_softmax_op))
            .input("logits", "T")
            .type_attr("T", FLOAT),
    );
}

type Inputs<'a> = &'a [Tensor];

fn relu_op(_: &NodeAttrs, _: &mut KernelContext<'_>, i: Inputs<'_>) -> Result<Vec<Tensor>> {
    Ok(crate::ops::one_output(match i[0].dtype() {
        DType::Int32 => map_typed::<i32>(&i[0], |x| x.max(0))?,
        DType::Int64 => map_typed::<i64>(&i[0], |x| x.max(0))?,
        _ => map_f32(&i[0], relu)?,
    }))
}

fn relu6_op(_: &NodeAttrs, _: &mut KernelContext<'_>, i: Inputs<'_>) -> Result<Vec<Tensor>> {
    Ok(crate::ops::one_output(match i[0].dtype() {
        DType::Int32 => map_typed::<i32>(&i[0], |x| x.clamp(0, 6))?,
        DType::Int64 => map_typed::<i64>(&i[0], |x| x.clamp(0, 6))?,
        _ => map_f32(&i[0], relu6)?,
    }))
}

fn leaky_op(a: &NodeAttrs, _: &mut KernelContext<'_>, i: Inputs<'_>) -> Result<Vec<Tensor>> {
    let alpha = a.float("alpha")?;
    Ok(crate::ops::one_output(map_f32(&i[0], |x| {
        leaky_relu(x, alpha)
    })?))
}

fn elu_op(_: &NodeAttrs, _: &mut KernelContext<'_>, i: Inputs<'_>) -> Result<Vec<Tensor>> {
    Ok(crate::ops::one_output(map_f32(&i[0], elu)?))
}

fn selu_op(_: &NodeAttrs, _: &mut KernelContext<'_>, i: Inputs<'_>) -> Result<Vec<Tensor>> {
    Ok(crate::ops::one_output(map_f32(&i[0], selu)?))
}

fn softplus_op(_: &NodeAttrs, _: &mut KernelContext<'_>, i: Inputs<'_>) -> Result<Vec<Tensor>> {
    Ok(crate::ops::one_output(map_f32(&i[0], softplus)?))
}

/// `act` of a float32 tensor, into a new one ([`Activation::map_new`]).
fn activation_of(act: Activation, x: &Tensor) -> Result<Vec<Tensor>> {
    let y = act.map_new(x.f32s()?)?;
    Ok(crate::ops::one_output(Tensor::from_vec(
        x.shape().clone(),
        y,
    )?))
}

fn sigmoid_op(_: &NodeAttrs, _: &mut KernelContext<'_>, i: Inputs<'_>) -> Result<Vec<Tensor>> {
    activation_of(Activation::Sigmoid, &i[0])
}

fn tanh_op(_: &NodeAttrs, _: &mut KernelContext<'_>, i: Inputs<'_>) -> Result<Vec<Tensor>> {
    activation_of(Activation::Tanh, &i[0])
}

fn prelu_op(_: &NodeAttrs, _: &mut KernelContext<'_>, i: Inputs<'_>) -> Result<Vec<Tensor>> {
    let (x, alpha) = (&i[0], &i[1]);
    // One alpha per channel (Keras' PReLU with its spatial axes shared, after a residual add that
    // kept it from folding into a conv): a plain loop, where the general broadcast walk steps
    // row by row, ~5x slower for short rows.
    let c = alpha.num_elements();
    let per_channel = c > 0
        && x.dims().last() == Some(&c)
        && alpha.dims().len() <= x.dims().len()
        && alpha.dims().iter().rev().skip(1).all(|&d| d == 1);
    if per_channel {
        let (xs, al) = (x.f32s()?, alpha.f32s()?);
        // Alpha repeated to a run of at least 256 values, so that each step is a long loop.
        let tiled = al.repeat((256 / c).max(1));
        let mut out = try_with_capacity::<f32>(xs.len())?;
        for r in xs.chunks(tiled.len()) {
            out.extend(r.iter().zip(&tiled).map(|(&x, &a)| prelu(x, a)));
        }
        return Ok(crate::ops::one_output(Tensor::from_vec(
            x.shape().clone(),
            out,
        )?));
    }
    Ok(crate::ops::one_output(
        crate::kernels::broadcast::binary_map(&i[0], &i[1], prelu)?,
    ))
}

fn softmax_op(_: &NodeAttrs, _: &mut KernelContext<'_>, i: Inputs<'_>) -> Result<Vec<Tensor>> {
    Ok(crate::ops::one_output(softmax(&i[0], false)?))
}

fn log_softmax_op(_: &NodeAttrs, _: &mut KernelContext<'_>, i: Inputs<'_>) -> Result<Vec<Tensor>> {
    Ok(crate::ops::one_output(softmax(&i[0], true)?))
}

/// Sum of `f(v)` over `row` in 8 running partial sums: vectorizable, unlike one sequential f32
/// sum (and `f` vectorizes with it).
fn lane_sum(row: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    let mut acc = [0f32; 8];
    let chunks = row.chunks_exact(8);
    let tail: f32 = chunks.remainder().iter().map(|&v| f(v)).sum();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a += f(v);
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// Softmax (or log-softmax) over the last axis, shifted by the row max for stability.
pub fn softmax(t: &Tensor, log: bool) -> Result<Tensor> {
    if t.rank() < 1 {
        return Err(invalid_argument(format!(
            "logits must have >= 1 dimension, got {}",
            t.shape()
        )));
    }
    let x = t.f32s()?;
    let mut out = try_with_capacity::<f32>(x.len())?;
    let depth = t.dims()[t.rank() - 1];
    if depth > 0 {
        for row in x.chunks_exact(depth) {
            // The row max, unless the row holds a NaN: then exp may see positive arguments, but
            // the sum below is NaN and so is every output, as in TF.
            let max = crate::kernels::reduce::max_fast(row);
            if log {
                let ls = lane_sum(row, |v| vmath::exp_nonpositive(v - max)).ln();
                out.extend(row.iter().map(|&v| v - max - ls));
            } else {
                let start = out.len();
                vmath::map_into(row, &mut out, |v| vmath::exp_nonpositive(v - max));
                let e = &mut out[start..];
                // Times the reciprocal of the sum, as TF (Eigen) does: a multiply, not a division,
                // per element.
                let inv = 1.0 / lane_sum(e, |v| v);
                e.iter_mut().for_each(|v| *v *= inv);
            }
        }
    }
    Tensor::from_vec(t.shape().clone(), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| match i % 7 {
                0 => -0.0,
                3 => f32::NAN,
                5 => 90.0 - i as f32,
                _ => (i as f32 * 0.37).sin() * 12.0,
            })
            .collect()
    }

    #[test]
    fn map_new_is_apply_bit_for_bit_at_every_tail_length() {
        for act in [Activation::Sigmoid, Activation::Tanh, Activation::Swish] {
            for n in 0..40 {
                let x = values(n);
                let mut want = x.clone();
                act.apply(&mut want);
                let got = act.map_new(&x).unwrap();
                // Bits, except that a NaN is any NaN (IEEE leaves the sign of an arithmetic NaN
                // to the operand order, which the compiler may swap in a product).
                let bits = |v: &[f32]| {
                    v.iter()
                        .map(|f| if f.is_nan() { u32::MAX } else { f.to_bits() })
                        .collect::<Vec<_>>()
                };
                assert_eq!(bits(&got), bits(&want), "{act:?} over {n}");
                assert_eq!(bits(&act.apply_owned(x).unwrap()), bits(&want));
            }
        }
    }

    #[test]
    fn per_channel_prelu_is_the_broadcast_one() {
        let mut ctx = crate::EagerContext::default();
        for (xd, ad) in [
            (vec![2, 3, 5], vec![5]),
            (vec![2, 3, 5], vec![1, 1, 5]),
            (vec![3, 5], vec![1, 1, 5]),
            (vec![2, 3, 5], vec![3, 1]),
            (vec![5], vec![1]),
            (vec![70, 5], vec![5]),
            (vec![3, 300], vec![300]),
            (vec![0, 5], vec![5]),
        ] {
            let x = Tensor::from_slice(&xd, &values(xd.iter().product())).unwrap();
            let a =
                Tensor::from_slice(&ad, &values(ad.iter().product::<usize>() + 3)[3..]).unwrap();
            let want =
                crate::kernels::broadcast::binary_map(
                    &x,
                    &a,
                    |x: f32, a: f32| {
                        if x < 0.0 {
                            a * x
                        } else {
                            x
                        }
                    },
                )
                .unwrap();
            let got = ctx
                .execute("Prelu", &[x, a], Vec::<(&str, _)>::new())
                .unwrap();
            assert_eq!(got[0].dims(), want.dims(), "{xd:?} by {ad:?}");
            let bits = |t: &Tensor| {
                t.f32s()
                    .unwrap()
                    .iter()
                    .map(|f| f.to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&got[0]), bits(&want), "{xd:?} by {ad:?}");
        }
    }

    #[test]
    fn sigmoid_tails_are_relatively_accurate() {
        let want = (-30f64).exp() / (1.0 + (-30f64).exp());
        assert!(((sigmoid(-30.0) as f64 - want) / want).abs() < 1e-6);
        assert_eq!(sigmoid(0.0), 0.5);
        assert_eq!(sigmoid(100.0), 1.0);
    }

    #[test]
    fn softplus_thresholds() {
        assert_eq!(softplus(20.0), 20.0);
        assert!((softplus(0.0) - std::f32::consts::LN_2).abs() < 1e-7);
        assert_eq!(softplus(-20.0), (-20f32).exp());
    }

    #[test]
    fn a_nan_makes_its_softmax_row_nan_as_in_tf() {
        // TF 2.18 (CPU): softmax and log-softmax of [1, NaN, 0.5] are NaN throughout. The NaN in
        // the middle of a lane once made the row max 0.5, and exp saw a positive argument (the
        // fuzzer's find).
        let t = Tensor::from_slice(&[2, 3], &[1f32, f32::NAN, 0.5, 1.0, 2.0, 3.0]).unwrap();
        for log in [false, true] {
            let s = softmax(&t, log).unwrap();
            let v = s.f32s().unwrap();
            assert!(v[..3].iter().all(|x| x.is_nan()), "log {log}: {v:?}");
            assert!(v[3..].iter().all(|x| x.is_finite()), "log {log}: {v:?}");
        }
    }

    #[test]
    fn softmax_rows_sum_to_one() {
        let t = Tensor::from_slice(&[2, 3], &[1f32, 2., 3., 1000., 1000., 1000.]).unwrap();
        let s = softmax(&t, false).unwrap();
        let v = s.f32s().unwrap();
        assert!((v[0..3].iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!((v[3] - 1.0 / 3.0).abs() < 1e-6);
        let l = softmax(&t, true).unwrap();
        assert!((l.f32s().unwrap()[2] - v[2].ln()).abs() < 1e-6);
    }
}
