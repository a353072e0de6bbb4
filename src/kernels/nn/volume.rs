//! 3-D (volumetric, NDHWC) Conv3D, MaxPool3D and AvgPool3D. The convolution is im2col in strips
//! with SGEMM; the pools are plain window loops (AvgPool3D averages the taps inside the volume,
//! as TF does for SAME padding). Rare in TF.js models: compact over fast.

use super::gemm::{sgemm, MatRef};
use super::window::{windowed_output, Dim1, Padding};
use crate::ops::def::FLOAT;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, unimplemented, Result};
use crate::tensor::{try_alloc, Shape, Tensor};

type Outputs = Result<Vec<Tensor>>;

/// Patch-buffer budget per GEMM strip, in floats (1 MiB).
const STRIP_FLOATS: usize = 1 << 18;

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Conv3D", Simple(conv3d))
            .input("input", "T")
            .input("filter", "T")
            .type_attr("T", FLOAT)
            .ints_attr("strides", None)
            .enum_attr("padding", &["SAME", "VALID"], None)
            .enum_attr("data_format", &["NDHWC", "NCDHW"], Some("NDHWC"))
            .ints_attr("dilations", Some(&[1, 1, 1, 1, 1])),
    );
    for name in ["MaxPool3D", "AvgPool3D"] {
        reg.add(
            OpBuilder::new(name, Simple(pool3d))
                .input("input", "T")
                .ints_attr("ksize", None)
                .ints_attr("strides", None)
                .enum_attr("padding", &["SAME", "VALID"], None)
                .enum_attr("data_format", &["NDHWC", "NCDHW"], Some("NDHWC"))
                .type_attr("T", FLOAT),
        );
    }
}

/// A 5-entry NDHWC attr (strides, ksize, dilations) as its 3 spatial values; 1 in batch/depth
/// (else Unimplemented, or InvalidArgument with `batch_depth_invalid`: TF's class differs by op).
pub(super) fn spatial3(a: &NodeAttrs, name: &str, batch_depth_invalid: bool) -> Result<[usize; 3]> {
    let v = a.ints(name)?;
    if v.len() != 5 {
        return Err(invalid_argument(format!(
            "{}: {name} must have 5 elements, got {}",
            a.op(),
            v.len()
        )));
    }
    if v[0] != 1 || v[4] != 1 {
        let msg = format!(
            "{}: {name} in the batch and depth dimensions must be 1, got {v:?}",
            a.op()
        );
        return Err(if batch_depth_invalid {
            invalid_argument(msg)
        } else {
            unimplemented(msg)
        });
    }
    let mut out = [0usize; 3];
    for k in 0..3 {
        out[k] = usize::try_from(v[k + 1])
            .ok()
            .filter(|&x| x > 0)
            .ok_or_else(|| invalid_argument(format!("{}: {name} must be positive", a.op())))?;
    }
    Ok(out)
}

/// The `padding` attr of a 3-D op, after checking data_format is NDHWC.
pub(super) fn padding(a: &NodeAttrs) -> Result<Padding> {
    if a.string("data_format")? != "NDHWC" {
        return Err(unimplemented(format!(
            "{}: only data_format NDHWC is supported",
            a.op()
        )));
    }
    Ok(if a.string("padding")? == "SAME" {
        Padding::Same
    } else {
        Padding::Valid
    })
}

pub(super) fn dims5(op: &str, what: &str, dims: &[usize]) -> Result<[usize; 5]> {
    <[usize; 5]>::try_from(dims).map_err(|_| {
        invalid_argument(format!(
            "{op}: {what} must be 5-dimensional, got shape {dims:?}"
        ))
    })
}

/// A window resolved against an input, over 3 spatial dims (2-D ops use a depth of 1): per dim
/// the input size, window, stride, dilation, output size and padding before.
#[derive(Debug, Clone, Copy)]
pub(super) struct Win3 {
    pub input: [usize; 3],
    pub window: [usize; 3],
    pub strides: [usize; 3],
    pub dil: [usize; 3],
    pub out: [usize; 3],
    pub pad: [usize; 3],
}

impl Win3 {
    /// SAME/VALID geometry of a 3-D window, as TF computes it.
    pub fn new(
        input: [usize; 3],
        window: [usize; 3],
        strides: [usize; 3],
        dil: [usize; 3],
        p: Padding,
    ) -> Result<Self> {
        let mut w = Win3 {
            input,
            window,
            strides,
            dil,
            out: [0; 3],
            pad: [0; 3],
        };
        for k in 0..3 {
            let d = windowed_output(input[k], window[k], strides[k], dil[k], p, (0, 0))?;
            (w.out[k], w.pad[k]) = (d.output, d.pad_before);
        }
        Ok(w)
    }

    /// A 2-D window (H, W from `windowed_2d`) with a unit depth dim in front.
    pub fn from_2d(d: &[Dim1; 2]) -> Self {
        let f = |g: fn(&Dim1) -> usize, unit: usize| [unit, g(&d[0]), g(&d[1])];
        Win3 {
            input: f(|d| d.input, 1),
            window: f(|d| d.window, 1),
            strides: f(|d| d.stride, 1),
            dil: f(|d| d.dilation, 1),
            out: f(|d| d.output, 1),
            pad: f(|d| d.pad_before, 0),
        }
    }

    /// Number of output positions.
    pub fn cells(&self) -> usize {
        self.out.iter().product()
    }

    /// Output position `q` (row-major) as (d, h, w).
    pub fn position(&self, q: usize) -> [usize; 3] {
        let [_, oh, ow] = self.out;
        [q / (oh * ow), (q / ow) % oh, q % ow]
    }

    /// Taps `lo..hi` of dim `k` that land inside the input for output `o`, and the (signed)
    /// input coordinate of tap 0. Clipped arithmetic, so a window far larger than the input costs
    /// nothing; i128 so that no padding or stride can overflow.
    fn taps_in(&self, k: usize, o: usize) -> (usize, usize, i128) {
        let (d, n) = (self.dil[k] as i128, self.input[k] as i128);
        let off = o as i128 * self.strides[k] as i128 - self.pad[k] as i128;
        let ceil = |v: i128| -((-v).div_euclid(d));
        let lo = ceil(-off).clamp(0, self.window[k] as i128);
        let hi = ceil(n - off).clamp(lo, self.window[k] as i128);
        (lo as usize, hi as usize, off)
    }

    /// Calls `f(tap index, input offset)` for every window tap inside the input, for output
    /// position `o`; offsets count `c` channels per input cell, taps are in row-major order.
    pub fn taps(&self, o: [usize; 3], c: usize, mut f: impl FnMut(usize, usize)) {
        let r = [0, 1, 2].map(|k| self.taps_in(k, o[k]));
        let at = |k: usize, t: usize| (r[k].2 + t as i128 * self.dil[k] as i128) as usize;
        for a in r[0].0..r[0].1 {
            let z = at(0, a);
            for b in r[1].0..r[1].1 {
                let y = at(1, b);
                for e in r[2].0..r[2].1 {
                    let x = at(2, e);
                    // Wrapping: a pool's window product may not fit (its tap index is unused).
                    let tap = (a.wrapping_mul(self.window[1]).wrapping_add(b))
                        .wrapping_mul(self.window[2])
                        .wrapping_add(e);
                    f(tap, ((z * self.input[1] + y) * self.input[2] + x) * c);
                }
            }
        }
    }
}

fn conv3d(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let p = padding(a)?;
    let strides = spatial3(a, "strides", false)?;
    let dil = spatial3(a, "dilations", false)?;
    if dil != [1, 1, 1] {
        // As TF's CPU kernel (TF.js has no dilated conv3d either).
        return Err(invalid_argument(
            "CPU implementation of Conv3D currently only supports dilated rates of 1.",
        ));
    }
    let [n, d, h, w, c] = dims5("Conv3D", "input", i[0].dims())?;
    let [kd, kh, kw, fc, co] = dims5("Conv3D", "filter", i[1].dims())?;
    if fc != c {
        return Err(invalid_argument(format!(
            "Conv3D: input depth must be equal to filter depth: {c} vs {fc}"
        )));
    }
    let g = Win3::new([d, h, w], [kd, kh, kw], strides, dil, p)?;
    let shape = Shape::new(vec![n, g.out[0], g.out[1], g.out[2], co])?;
    let mut out = try_alloc::<f32>(shape.num_elements())?;
    // Checked: with co = 0 the filter holds nothing, whatever its other dims say.
    let k = [kh, kw, c]
        .iter()
        .try_fold(kd, |a, &b| a.checked_mul(b))
        .ok_or_else(|| invalid_argument("Conv3D: filter too large"))?;
    let m = g.cells();
    if out.is_empty() || k == 0 {
        return Ok(crate::ops::one_output(Tensor::from_vec(shape, out)?));
    }
    let (x, f) = (i[0].f32s()?, i[1].f32s()?);
    let b = MatRef::new(f, k, co, false)?;
    let strip = (STRIP_FLOATS / k).clamp(1, m);
    let mut col = try_alloc::<f32>(strip * k)?;
    let vol = d * h * w * c;
    for img in 0..n {
        let src = &x[img * vol..(img + 1) * vol];
        for r0 in (0..m).step_by(strip) {
            let rows = strip.min(m - r0);
            let patches = &mut col[..rows * k];
            patches.fill(0.0);
            for r in 0..rows {
                let row = &mut patches[r * k..(r + 1) * k];
                g.taps(g.position(r0 + r), c, |t, at| {
                    row[t * c..(t + 1) * c].copy_from_slice(&src[at..at + c]);
                });
            }
            let dst = &mut out[(img * m + r0) * co..(img * m + r0 + rows) * co];
            sgemm(
                MatRef::new(patches, rows, k, false)?,
                b,
                dst,
                &mut |_, _, _| {},
            )?;
        }
    }
    Ok(crate::ops::one_output(Tensor::from_vec(shape, out)?))
}

fn pool3d(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let p = padding(a)?;
    let window = spatial3(a, "ksize", false)?;
    let strides = spatial3(a, "strides", false)?;
    let [n, d, h, w, c] = dims5(a.op(), "input", i[0].dims())?;
    let g = Win3::new([d, h, w], window, strides, [1, 1, 1], p)?;
    let shape = Shape::new(vec![n, g.out[0], g.out[1], g.out[2], c])?;
    let mut out = try_alloc::<f32>(shape.num_elements())?;
    let max = a.op() == "MaxPool3D";
    let x = i[0].f32s()?;
    let vol = d * h * w * c;
    let m = g.cells();
    for img in 0..n {
        let src = &x[img * vol..(img + 1) * vol];
        for q in 0..m {
            let o = (img * m + q) * c;
            let acc = &mut out[o..o + c];
            acc.fill(if max { f32::MIN } else { 0.0 });
            let mut count = 0usize;
            g.taps(g.position(q), c, |_, at| {
                count += 1;
                for (q, &v) in acc.iter_mut().zip(&src[at..at + c]) {
                    *q = if max { q.max(v) } else { *q + v };
                }
            });
            if !max && count > 0 {
                let inv = 1.0 / count as f32;
                acc.iter_mut().for_each(|q| *q *= inv);
            }
        }
    }
    Ok(crate::ops::one_output(Tensor::from_vec(shape, out)?))
}
