//! More rare math ops of TF.js models: LowerBound/UpperBound, MatrixBandPart, EuclideanNorm,
//! Bincount/DenseBincount, FakeQuantWithMinMaxVars, LRN and LRNGrad. Plain loops, generic where
//! TF is.

use super::array::{assemble::assemble, gather_strided, int_scalar};
use super::num::{int_tensor, narrow, prod, widen, Num, WITH_U8};
use super::reduce::reduce_axes;
use crate::ops::def::{ANY, FLOAT, INDEX, NUMERIC};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_alloc, DType, Shape, Tensor};
use core::cmp::Ordering::Less;

type Outputs = Result<Vec<Tensor>>;

pub fn register(reg: &mut Registry) {
    for name in ["LowerBound", "UpperBound"] {
        reg.add(
            OpBuilder::new(name, Simple(bound))
                .input("sorted_inputs", "T")
                .input("values", "T")
                .type_attr("T", WITH_U8)
                .type_attr_default("out_type", INDEX, DType::Int32),
        );
    }
    reg.add(
        OpBuilder::new("MatrixBandPart", Simple(band_part))
            .input("input", "T")
            .input("num_lower", "Tindex")
            .input("num_upper", "Tindex")
            .type_attr("T", ANY)
            .type_attr_default("Tindex", INDEX, DType::Int64),
    );
    reg.add(
        OpBuilder::new("EuclideanNorm", Simple(euclidean_norm))
            .input("input", "T")
            .input("reduction_indices", "Tidx")
            .bool_attr("keep_dims", false)
            .type_attr("T", FLOAT)
            .type_attr_default("Tidx", INDEX, DType::Int32),
    );
    reg.add(
        OpBuilder::new("Bincount", Simple(bincount))
            .fixed_input("arr", DType::Int32)
            .fixed_input("size", DType::Int32)
            .input("weights", "T")
            .type_attr("T", NUMERIC),
    );
    reg.add(
        OpBuilder::new("DenseBincount", Simple(bincount))
            .input("input", "Tidx")
            .input("size", "Tidx")
            .input("weights", "T")
            .type_attr("Tidx", INDEX)
            .type_attr("T", NUMERIC)
            .bool_attr("binary_output", false),
    );
    reg.add(
        OpBuilder::new("FakeQuantWithMinMaxVars", Simple(fake_quant))
            .fixed_input("inputs", DType::Float32)
            .fixed_input("min", DType::Float32)
            .fixed_input("max", DType::Float32)
            .int_attr("num_bits", Some(8))
            .bool_attr("narrow_range", false),
    );
    reg.add(
        OpBuilder::new("LRN", Simple(lrn))
            .input("input", "T")
            .int_attr("depth_radius", Some(5))
            .float_attr("bias", 1.0)
            .float_attr("alpha", 1.0)
            .float_attr("beta", 0.5)
            .type_attr_default("T", FLOAT, DType::Float32),
    );
    reg.add(
        OpBuilder::new("LRNGrad", Simple(lrn_grad))
            .input("input_grads", "T")
            .input("input_image", "T")
            .input("output_image", "T")
            .int_attr("depth_radius", Some(5))
            .float_attr("bias", 1.0)
            .float_attr("alpha", 1.0)
            .float_attr("beta", 0.5)
            .type_attr_default("T", FLOAT, DType::Float32),
    );
}

fn bound(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (sorted, values) = (&i[0], &i[1]);
    if sorted.rank() != 2 || values.rank() != 2 {
        return Err(invalid_argument(format!(
            "sorted_inputs and values must be 2-D, got shapes {} and {}",
            sorted.shape(),
            values.shape()
        )));
    }
    if sorted.dims()[0] != values.dims()[0] {
        return Err(invalid_argument(
            "Leading dim_size of both tensors must match.",
        ));
    }
    let (n, m) = (sorted.dims()[1], values.dims()[1]);
    let upper = a.op() == "UpperBound";
    fn run<T: Num>(s: &Tensor, v: &Tensor, n: usize, m: usize, upper: bool) -> Result<Vec<i64>> {
        let (s, v) = (s.as_slice::<T>()?, v.as_slice::<T>()?);
        let mut out = Vec::with_capacity(v.len());
        for r in 0..v.len().checked_div(m).unwrap_or(0) {
            let row = &s[r * n..(r + 1) * n];
            for &x in &v[r * m..(r + 1) * m] {
                // One search for both bounds (non-short-circuit, so no copy per bound): C++'s
                // lower_bound (e < x) and upper_bound (!(x < e): a NaN value goes last).
                let k = row.partition_point(|&e| {
                    (!upper & (e < x)) | (upper & (x.partial_cmp(&e) != Some(Less)))
                });
                out.push(k as i64);
            }
        }
        Ok(out)
    }
    let (sorted, values) = (&widen(sorted)?, &widen(values)?);
    let idx = crate::with_num!(sorted.dtype(), a.op(), T, {
        run::<T>(sorted, values, n, m, upper)
    })?;
    Ok(crate::ops::one_output(int_tensor(
        a.dtype("out_type")?,
        values.dims(),
        &idx,
    )?))
}

fn band_part(_: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let x = &i[0];
    if x.rank() < 2 {
        return Err(invalid_argument(format!(
            "input must be at least 2-dim, received shape: {}",
            x.shape()
        )));
    }
    let d = x.dims();
    let (m, n) = (d[d.len() - 2], d[d.len() - 1]);
    let mut bands = [0i64; 2];
    for (k, (what, limit)) in [("num_lower", m), ("num_upper", n)].into_iter().enumerate() {
        if i[1 + k].rank() != 0 {
            return Err(invalid_argument(format!(
                "{what} must be scalar, got shape {}",
                i[1 + k].shape()
            )));
        }
        let v = int_scalar(&i[1 + k], what, true)?;
        if v > limit as i64 {
            return Err(invalid_argument(format!(
                "{what} must be negative or less or equal to number of {} ({limit}) got: {v}",
                if k == 0 { "rows" } else { "columns" }
            )));
        }
        bands[k] = v;
    }
    let [lo, up] = bands;
    let zero = Tensor::zeros(x.dtype(), Shape::scalar())?;
    // Source 0 is the input, source 1 a zero repeated.
    Ok(crate::ops::one_output(assemble(
        &[x, &zero],
        x.dtype(),
        x.shape().clone(),
        &mut |emit| {
            for b in 0..prod(&d[..d.len() - 2]) {
                for r in 0..m {
                    for c in 0..n {
                        let (r, c) = (r as i64, c as i64);
                        let keep = (lo < 0 || r - c <= lo) && (up < 0 || c - r <= up);
                        let at = (b * m + r as usize) * n + c as usize;
                        if keep {
                            emit(0, at, 1, 1);
                        } else {
                            emit(1, 0, 1, 0);
                        }
                    }
                }
            }
        },
    )?))
}

fn euclidean_norm(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let x = &i[0];
    let axes = reduce_axes(&i[1], x.rank())?;
    let d = x.dims();
    let kept: Vec<usize> = (0..d.len()).filter(|k| !axes.contains(k)).collect();
    let order: Vec<usize> = kept.iter().chain(&axes).copied().collect();
    let mut own = vec![0isize; d.len()];
    let mut acc = 1isize;
    for k in (0..d.len()).rev() {
        own[k] = acc;
        acc *= d[k] as isize;
    }
    let view: Vec<usize> = order.iter().map(|&k| d[k]).collect();
    let strides: Vec<isize> = order.iter().map(|&k| own[k]).collect();
    let t = gather_strided(x, 0, &view, &strides, Shape::new(view.clone())?)?;
    let rows: usize = kept.iter().map(|&k| d[k]).product();
    let len: usize = axes.iter().map(|&k| d[k]).product();
    let v = t.f32s()?;
    let mut out = try_alloc::<f32>(rows)?;
    if len > 0 {
        for (o, row) in out.iter_mut().zip(v.chunks_exact(len)) {
            *o = row.iter().map(|&e| e * e).sum::<f32>().sqrt();
        }
    }
    let dims: Vec<usize> = if a.bool("keep_dims")? {
        (0..d.len())
            .map(|k| if axes.contains(&k) { 1 } else { d[k] })
            .collect()
    } else {
        kept.iter().map(|&k| d[k]).collect()
    };
    Ok(crate::ops::one_output(Tensor::from_vec(
        Shape::new(dims)?,
        out,
    )?))
}

/// Bincount (1-D int32 `arr`) and DenseBincount (1-D or 2-D, optionally binary).
fn bincount(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (arr, weights) = (&i[0], &i[2]);
    let dense = a.op() == "DenseBincount";
    let binary = dense && a.bool("binary_output")?;
    if i[1].rank() != 0 {
        return Err(invalid_argument(format!(
            "Shape must be rank 0 but is rank {} for size",
            i[1].rank()
        )));
    }
    let size = int_scalar(&i[1], "size", true)?;
    if size < 0 {
        return Err(invalid_argument(format!(
            "size ({size}) must be non-negative"
        )));
    }
    let size = size as usize;
    let rank = arr.rank();
    if dense && rank > 2 {
        return Err(invalid_argument(format!(
            "Shape must be at most rank 2 but is rank {rank}"
        )));
    }
    if weights.num_elements() > 0 && weights.shape() != arr.shape() {
        return Err(invalid_argument(format!(
            "Incompatible shapes: {} vs. {}",
            arr.shape(),
            weights.shape()
        )));
    }
    let idx = arr.to_i64_vec()?;
    if let Some(&neg) = idx.iter().find(|&&v| v < 0) {
        return Err(invalid_argument(format!(
            "Input arr must be non-negative! (found {neg})"
        )));
    }
    let (rows, cols) = if dense && rank == 2 {
        (arr.dims()[0], arr.dims()[1])
    } else {
        (1, idx.len())
    };
    Shape::from_dims(&[rows, size])?;
    fn run<T: Num>(
        idx: &[i64],
        w: &Tensor,
        (rows, cols, size): (usize, usize, usize),
        binary: bool,
    ) -> Result<Vec<T>> {
        let ws = w.as_slice::<T>()?;
        let mut out = try_alloc::<T>(rows * size)?;
        for r in 0..rows {
            for c in 0..cols {
                let k = r * cols + c;
                let v = idx[k] as usize;
                if v >= size {
                    continue;
                }
                let slot = &mut out[r * size + v];
                *slot = if binary {
                    T::ONE
                } else if ws.is_empty() {
                    slot.add(T::ONE)
                } else {
                    slot.add(ws[k])
                };
            }
        }
        Ok(out)
    }
    let dims = if dense && rank == 2 {
        vec![rows, size]
    } else {
        vec![size]
    };
    let dtype = weights.dtype();
    let weights = &widen(weights)?;
    let out = crate::with_num!(weights.dtype(), a.op(), T, {
        Tensor::from_vec(
            Shape::new(dims)?,
            run::<T>(&idx, weights, (rows, cols, size), binary)?,
        )
    })?;
    Ok(crate::ops::one_output(narrow(out, dtype)?))
}

fn fake_quant(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let bits = a.int("num_bits")?;
    if !(2..=16).contains(&bits) {
        return Err(invalid_argument(format!(
            "num_bits is out of range, expected between 2 and 16, was: {bits}"
        )));
    }
    for (t, n) in [(&i[1], "min"), (&i[2], "max")] {
        if t.rank() != 0 {
            return Err(invalid_argument(format!(
                "`{n}` must be rank 0 but is rank {}",
                t.rank()
            )));
        }
    }
    let (min, max) = (i[1].f32s()?[0], i[2].f32s()?[0]);
    if min > max {
        return Err(invalid_argument(format!(
            "min has to be smaller or equal to max, got min: {min}, max: {max}"
        )));
    }
    let quant_min = if a.bool("narrow_range")? { 1.0f32 } else { 0.0 };
    let quant_max = ((1i64 << bits) - 1) as f32;
    // TF's Nudge: the zero point is rounded to an integer and the range shifted to match.
    let scale = (max - min) / (quant_max - quant_min);
    let zero_from_min = quant_min - min / scale;
    let zero = if zero_from_min < quant_min {
        quant_min
    } else if zero_from_min > quant_max {
        quant_max
    } else {
        zero_from_min.round()
    };
    let (lo, hi) = ((quant_min - zero) * scale, (quant_max - zero) * scale);
    let inv = 1.0 / scale;
    Ok(vec![super::math::unary_map::<f32, f32>(&i[0], |x| {
        // max-then-min, not f32::clamp: NaN bounds (found by fuzzing) must not panic.
        let c = x.max(lo).min(hi);
        ((c - lo) * inv + 0.5).floor() * scale + lo
    })?])
}

fn lrn(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let x = &i[0];
    if x.rank() != 4 {
        return Err(invalid_argument(format!(
            "in must be 4-dimensional, got shape {}",
            x.shape()
        )));
    }
    let r = a.int("depth_radius")?;
    if r < 0 {
        return Err(invalid_argument(format!(
            "depth_radius = {r} must be non-negative"
        )));
    }
    let (bias, alpha, beta) = (a.float("bias")?, a.float("alpha")?, a.float("beta")?);
    let c = x.dims()[3];
    let r = (r as usize).min(c);
    let v = x.f32s()?;
    let mut out = try_alloc::<f32>(v.len())?;
    if c > 0 {
        for (px, o) in v.chunks_exact(c).zip(out.chunks_exact_mut(c)) {
            for d in 0..c {
                let lo = d.saturating_sub(r);
                let hi = (d + r).min(c - 1);
                let s: f32 = px[lo..=hi].iter().map(|&e| e * e).sum();
                o[d] = px[d] / (bias + alpha * s).powf(beta);
            }
        }
    }
    Ok(crate::ops::one_output(Tensor::from_vec(
        x.shape().clone(),
        out,
    )?))
}

/// TF's CPU LRNGrad: for each depth `j` with a non-zero gradient, the window norm is recomputed
/// from the input and `d out_j / d in_k` spread over the window.
fn lrn_grad(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (g, x, y) = (&i[0], &i[1], &i[2]);
    let r = a.int("depth_radius")?;
    if !(0..i32::MAX as i64).contains(&r) {
        return Err(invalid_argument(format!(
            "depth_radius = {r} larger than int max"
        )));
    }
    if g.rank() != 4 || x.rank() != 4 {
        return Err(invalid_argument("inputs must be 4-dimensional"));
    }
    if x.shape() != g.shape() || y.shape() != g.shape() {
        return Err(invalid_argument(
            "input_grads, input_image, and out_image should have the same shape",
        ));
    }
    let (bias, alpha, beta) = (a.float("bias")?, a.float("alpha")?, a.float("beta")?);
    let ab2 = -2.0 * alpha * beta;
    let (c, r) = (g.dims()[3], r as usize);
    let (gv, xv, yv) = (g.f32s()?, x.f32s()?, y.f32s()?);
    let mut out = try_alloc::<f32>(gv.len())?;
    for p in (0..gv.len()).step_by(c.max(1)) {
        let (xs, o) = (&xv[p..p + c], &mut out[p..p + c]);
        for j in 0..c {
            let gs = gv[p + j];
            if gs == 0.0 {
                continue;
            }
            let (lo, hi) = (j.saturating_sub(r), j.saturating_add(r).min(c - 1));
            let norm = alpha * xs[lo..=hi].iter().map(|&e| e * e).sum::<f32>() + bias;
            let pow = norm.powf(-beta);
            let act = ab2 * yv[p + j];
            for k in lo..=hi {
                let d = xs[k] * act / norm + if k == j { pow } else { 0.0 };
                o[k] += d * gs;
            }
        }
    }
    Ok(crate::ops::one_output(Tensor::from_vec(
        g.shape().clone(),
        out,
    )?))
}

#[cfg(test)]
mod tests {
    use crate::{AttrValue, EagerContext, Tensor};

    /// Found by fuzzing: NaN bounds made `f32::clamp` panic in FakeQuantWithMinMaxVars.
    #[test]
    fn fake_quant_with_nan_bounds_does_not_panic() {
        let mut ctx = EagerContext::default();
        let x = Tensor::from_slice(&[3], &[0.5f32, -1.0, 2.0]).unwrap();
        let nan = Tensor::scalar(f32::NAN);
        let out = ctx
            .execute(
                "FakeQuantWithMinMaxVars",
                &[x, nan.clone(), nan],
                Vec::<(&str, AttrValue)>::new(),
            )
            .unwrap();
        assert!(out[0].f32s().unwrap().iter().all(|v| v.is_nan()));
    }
}
