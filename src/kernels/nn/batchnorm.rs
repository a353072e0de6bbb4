//! Inference batch norm (FusedBatchNorm, V2, V3) and bias addition (BiasAdd, BiasAddV1).

use crate::ops::def::{FLOAT, NUMERIC};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_alloc, try_with_capacity, DType, Element, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    for (name, split_u, formats) in [
        ("FusedBatchNorm", false, &["NHWC", "NCHW"][..]),
        ("FusedBatchNormV2", true, &["NHWC", "NCHW"][..]),
        (
            "FusedBatchNormV3",
            true,
            &["NHWC", "NCHW", "NDHWC", "NCDHW"][..],
        ),
    ] {
        let u = if split_u { "U" } else { "T" };
        let mut b = OpBuilder::new(name, Simple(fused_batch_norm))
            .input("x", "T")
            .input("scale", u)
            .input("offset", u)
            .input("mean", u)
            .input("variance", u)
            .type_attr("T", FLOAT);
        if split_u {
            b = b.type_attr("U", FLOAT);
        }
        reg.add(
            b.float_attr("epsilon", 0.0001)
                .float_attr("exponential_avg_factor", 1.0)
                .enum_attr("data_format", formats, Some("NHWC"))
                .bool_attr("is_training", true),
        );
    }
    reg.add(
        OpBuilder::new("BiasAdd", Simple(bias_add))
            .type_attr("T", NUMERIC)
            .input("value", "T")
            .input("bias", "T")
            .enum_attr("data_format", &["NHWC", "NCHW"], Some("NHWC")),
    );
    reg.add(
        OpBuilder::new("BiasAddV1", Simple(bias_add))
            .type_attr("T", NUMERIC)
            .input("value", "T")
            .input("bias", "T"),
    );
}

/// Batch norm over the channel axis (last for NHWC/NDHWC, 1 for NCHW/NCDHW):
/// y = (x - mean) * (rsqrt(variance + epsilon) * scale) + offset. Inference uses the given
/// population statistics and passes them through as the other outputs; training computes the
/// batch statistics and reports them as TF does (Bessel-corrected batch_variance, biased variance
/// in reserve_space_2, blended with the inputs when exponential_avg_factor != 1).
fn fused_batch_norm(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let op = a.op();
    let training = a.bool("is_training")?;
    let format = a.string("data_format")?;
    let x = &i[0];
    let rank = format.len();
    if x.rank() != rank {
        return Err(invalid_argument(format!(
            "{op}: input must be {rank}-dimensional, got shape {}",
            x.shape()
        )));
    }
    let dims = x.dims();
    // Layout as (outer, channels, inner): x[(o * c + ch) * inner + k].
    let (outer, c, inner) = if format.ends_with('C') {
        (
            crate::kernels::num::prod(&dims[..rank - 1]),
            dims[rank - 1],
            1,
        )
    } else {
        (dims[0], dims[1], crate::kernels::num::prod(&dims[2..]))
    };
    let names = ["scale", "offset", "mean", "variance"];
    let factor_avg = a.float("exponential_avg_factor")?;
    let stats_needed = !training || factor_avg != 1.0;
    let mut params: Vec<&[f32]> = Vec::with_capacity(4);
    for (idx, (t, name)) in i[1..5].iter().zip(names).enumerate() {
        if t.rank() != 1 {
            return Err(invalid_argument(format!(
                "{op}: {name} must be 1-dimensional, got shape {}",
                t.shape()
            )));
        }
        if (idx < 2 || stats_needed) && t.num_elements() != c {
            return Err(invalid_argument(format!(
                "{op}: {name} must have the same number of elements as the channels of x, got {} \
                 and {c}",
                t.num_elements()
            )));
        }
        params.push(t.f32s()?);
    }
    let (scale, offset) = (params[0], params[1]);
    let eps = a.float("epsilon")?;
    let xs = x.f32s()?;
    let at = |o: usize, ch: usize| (o * c + ch) * inner;
    let (mean, var): (Vec<f32>, Vec<f32>) = if training {
        // Per-channel batch moments, accumulated in f64.
        let count = (outer * inner) as f64;
        let mut m = vec![0f64; c];
        let mut v = vec![0f64; c];
        for o in 0..outer {
            for (ch, mc) in m.iter_mut().enumerate() {
                *mc += xs[at(o, ch)..at(o, ch) + inner]
                    .iter()
                    .map(|&e| e as f64)
                    .sum::<f64>();
            }
        }
        m.iter_mut().for_each(|e| *e /= count);
        for o in 0..outer {
            for (ch, vc) in v.iter_mut().enumerate() {
                *vc += xs[at(o, ch)..at(o, ch) + inner]
                    .iter()
                    .map(|&e| (e as f64 - m[ch]).powi(2))
                    .sum::<f64>();
            }
        }
        v.iter_mut().for_each(|e| *e /= count);
        (
            m.iter().map(|&e| e as f32).collect(),
            v.iter().map(|&e| e as f32).collect(),
        )
    } else {
        (params[2].to_vec(), params[3].to_vec())
    };
    let factor: Vec<f32> = var
        .iter()
        .zip(scale)
        .map(|(&v, &s)| (1.0 / (v + eps).sqrt()) * s)
        .collect();
    let mut y = try_alloc::<f32>(xs.len())?;
    for o in 0..outer {
        for ch in 0..c {
            let r = at(o, ch)..at(o, ch) + inner;
            let (f, off, m) = (factor[ch], offset[ch], mean[ch]);
            for (d, &v) in y[r.clone()].iter_mut().zip(&xs[r]) {
                *d = (v - m) * f + off;
            }
        }
    }
    let vec_t = |v: Vec<f32>| Tensor::from_vec(Shape::new(vec![v.len()])?, v);
    let mut out = vec![Tensor::from_vec(x.shape().clone(), y)?];
    if xs.is_empty() {
        // TF reports NaN statistics for an empty batch.
        let nan = vec_t(vec![f32::NAN; c])?;
        out.extend([nan.clone(), nan, i[3].clone(), i[4].clone()]);
    } else if training {
        let n = outer * inner;
        let adjust = if n > 1 {
            n as f32 / (n - 1) as f32
        } else {
            1.0
        };
        let unbiased: Vec<f32> = var.iter().map(|&v| v * adjust).collect();
        let blend = |new: &[f32], old: &[f32]| -> Vec<f32> {
            if factor_avg == 1.0 {
                new.to_vec()
            } else {
                new.iter()
                    .zip(old)
                    .map(|(&nw, &od)| (1.0 - factor_avg) * od + factor_avg * nw)
                    .collect()
            }
        };
        out.push(vec_t(blend(&mean, params[2]))?);
        out.push(vec_t(blend(&unbiased, params[3]))?);
        out.push(vec_t(mean)?);
        out.push(vec_t(var)?);
    } else {
        out.extend([i[3].clone(), i[4].clone(), i[3].clone(), i[4].clone()]);
    }
    if op == "FusedBatchNormV3" {
        out.push(Tensor::scalar(0f32));
    }
    Ok(out)
}

fn bias_add(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let (x, b) = (&i[0], &i[1]);
    let nchw = a.op() == "BiasAdd" && a.string("data_format")? == "NCHW";
    if x.rank() < 2 {
        return Err(invalid_argument(format!(
            "Input tensor must be at least 2D: {}",
            x.shape()
        )));
    }
    if b.rank() != 1 {
        return Err(invalid_argument(format!(
            "Biases must be 1D: {}",
            b.shape()
        )));
    }
    // NCHW puts channels at dim 1 (the third-to-last of a 4-D tensor); NHWC at the last dim.
    let axis = if nchw { 1 } else { x.rank() - 1 };
    let c = x.dims()[axis];
    if b.num_elements() != c {
        return Err(invalid_argument(format!(
            "Must provide as many biases as the channel dimension of the input tensor: {} vs. {}",
            b.shape(),
            x.shape()
        )));
    }
    let inner: usize = crate::kernels::num::prod(&x.dims()[axis + 1..]);
    Ok(crate::ops::one_output(match x.dtype() {
        DType::Float32 => add_bias::<f32>(x, b, inner, |p, q| p + q)?,
        DType::Int32 => add_bias::<i32>(x, b, inner, i32::wrapping_add)?,
        _ => add_bias::<i64>(x, b, inner, i64::wrapping_add)?,
    }))
}

/// Adds `bias[ch]` where each channel value covers `inner` consecutive elements.
fn add_bias<T: Element>(
    x: &Tensor,
    b: &Tensor,
    inner: usize,
    add: impl Fn(T, T) -> T,
) -> Result<Tensor> {
    let (xs, bs) = (x.as_slice::<T>()?, b.as_slice::<T>()?);
    let mut out = try_with_capacity::<T>(xs.len())?;
    let block = inner * bs.len();
    if block > 0 {
        for chunk in xs.chunks_exact(block) {
            for (seg, &bv) in chunk.chunks_exact(inner).zip(bs) {
                out.extend(seg.iter().map(|&v| add(v, bv)));
            }
        }
    }
    Tensor::from_vec(x.shape().clone(), out)
}
