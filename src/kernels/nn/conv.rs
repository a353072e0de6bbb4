//! Conv2D (NHWC, HWIO filter) as im2col + SGEMM; a 1x1 stride-1 unpadded convolution is a GEMM
//! straight on the input, inputs of up to 4 channels take `conv_thin`. im2col runs in row strips
//! so the patch buffer stays bounded.

use super::conv_thin::{conv_thin, THIN_DEPTH};
use super::epilogue::RowEpilogue;
use super::epilogue::{with_output, Fusion};
use super::gemm::{gemm_into, gemm_slice, weight_ref, whole_panels, MatRef, PAR_MIN_WORK};
use super::simd::{copy_run, zero_run};
use super::window::{
    dims4, padding_attr, padding_attrs, require_nhwc, spatial_pair, windowed_2d, Dim1, Padding,
};
use crate::ops::def::FLOAT;
use crate::ops::{Kernel, KernelContext, KernelFactory::Prepared};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::parallel;
use crate::status::{internal, invalid_argument, unimplemented, Result};
use crate::tensor::{try_alloc, Tensor};

/// Patch-buffer budget per strip, in floats (1 MiB).
const STRIP_FLOATS: usize = 1 << 18;

/// Validated window attrs of a 2-D convolution.
#[derive(Debug, Clone, Copy)]
pub struct Conv2dParams {
    pub strides: (usize, usize),
    pub dilations: (usize, usize),
    pub padding: Padding,
}

impl Conv2dParams {
    /// Reads strides, dilations, padding (+ explicit_paddings when `has_explicit`) and checks
    /// data_format. `conv2d` selects Conv2D's error classes; otherwise depthwise rules apply.
    pub fn from_attrs(a: &NodeAttrs, has_explicit: bool, conv2d: bool) -> Result<Self> {
        require_nhwc(a)?;
        let strides = spatial_pair(a, "strides", conv2d)?;
        let dilations = spatial_pair(a, "dilations", conv2d)?;
        if !conv2d && strides.0 != strides.1 {
            return Err(invalid_argument(format!(
                "{}: Current implementation only supports equal length strides in the row and \
                 column dimensions, got {strides:?}",
                a.op()
            )));
        }
        Ok(Conv2dParams {
            strides,
            dilations,
            padding: padding_attr(a, has_explicit)?,
        })
    }

    /// Output geometry for an input of spatial size `hw` and a `khw` filter.
    pub fn window(&self, hw: (usize, usize), khw: (usize, usize)) -> Result<[Dim1; 2]> {
        windowed_2d(hw, khw, self.strides, self.dilations, self.padding)
    }
}

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Conv2D", Prepared(conv2d_op))
            .input("input", "T")
            .input("filter", "T")
            .type_attr("T", FLOAT)
            .ints_attr("strides", None)
            .bool_attr("use_cudnn_on_gpu", true)
            .with(|b| padding_attrs(b, &["NHWC", "NCHW"]))
            .ints_attr("dilations", Some(&[1, 1, 1, 1])),
    );
}

/// Conv2D with its window attrs read once, at instantiation.
struct Conv2dKernel(Conv2dParams);

impl Kernel for Conv2dKernel {
    fn compute(&self, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
        Ok(crate::ops::one_output(conv2d(&i[0], &i[1], &self.0, None)?))
    }
}

fn conv2d_op(a: &NodeAttrs) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(Conv2dKernel(Conv2dParams::from_attrs(
        a, true, true,
    )?)))
}

/// NHWC Conv2D of `x` by the HWIO `filter`, optionally fused.
pub fn conv2d(
    x: &Tensor,
    filter: &Tensor,
    p: &Conv2dParams,
    fusion: Option<&Fusion<'_>>,
) -> Result<Tensor> {
    let [n, h, w, ci] = dims4("Conv2D", "input", x.dims())?;
    let [kh, kw, fci, co] = dims4("Conv2D", "filter", filter.dims())?;
    if fci == 0 {
        return Err(invalid_argument(format!(
            "Conv2D: filter depth must be strictly positive, got filter shape {}",
            filter.shape()
        )));
    }
    if ci % fci != 0 {
        return Err(invalid_argument(format!(
            "Conv2D: input depth must be evenly divisible by filter depth: {ci} vs {fci}"
        )));
    }
    if ci != fci {
        return Err(unimplemented(format!(
            "Conv2D: grouped convolutions are not supported (input depth {ci}, filter depth {fci})"
        )));
    }
    let [dy, dx] = p.window((h, w), (kh, kw))?;
    let xs = x.f32s()?;
    let dims = vec![n, dy.output, dx.output, co];
    let m = n * dy.output * dx.output;
    let k = kh
        .checked_mul(kw)
        .and_then(|v| v.checked_mul(ci))
        .ok_or_else(|| invalid_argument("Conv2D: filter too large"))?;
    let pointwise = kh == 1
        && kw == 1
        && p.strides == (1, 1)
        && (dy.output, dx.output) == (h, w)
        && dy.pad_before == 0
        && dx.pad_before == 0;
    with_output(dims, fusion, |out, epi| {
        if !pointwise && ci <= THIN_DEPTH && dx.dilation == 1 {
            let (xd, fd) = ([n, h, w, ci], [kh, kw, co]);
            return conv_thin(xs, filter.f32s()?, xd, fd, &[dy, dx], out, epi);
        }
        let b = weight_ref(filter, k, co, false, m)?;
        if pointwise {
            // 1x1: the NHWC input already is the [pixels, channels] matrix.
            return gemm_into(MatRef::new(xs, m, ci, false)?, b, out, epi, 0);
        }
        let rows_per_strip = (STRIP_FLOATS / k.max(1)).clamp(1, m.max(1));
        let strips = m.div_ceil(rows_per_strip);
        let work = m.saturating_mul(k).saturating_mul(co);
        let tasks = parallel::tasks_for(work, PAR_MIN_WORK).min(strips);
        if tasks > 1 {
            // Whole strips per task (the strips a single thread would cut, so each is computed
            // as it would be there), against the filter packed once.
            let panels = whole_panels(&b)?;
            let b = b.with_panels(&panels);
            let task_rows = strips.div_ceil(tasks) * rows_per_strip;
            let len = m * co;
            let spare = out
                .spare_capacity_mut()
                .get_mut(..len)
                .ok_or_else(|| internal("Conv2D: output buffer too small"))?;
            let fast = epi.fast;
            parallel::for_each_chunk_mut(spare, task_rows * co, |t, c| {
                let fast = RowEpilogue { fast, rest: None };
                let first = t * task_rows;
                let rows_here = c.len() / co.max(1);
                let mut col = try_alloc::<f32>(rows_per_strip.min(rows_here) * k)?;
                for s0 in (0..rows_here).step_by(rows_per_strip) {
                    let rows = rows_per_strip.min(rows_here - s0);
                    let patches = &mut col[..rows * k];
                    im2col(xs, (h, w, ci), (kh, kw), &dy, &dx, first + s0, patches);
                    let a = MatRef::new(patches, rows, k, false)?;
                    let dst = c
                        .get_mut(s0 * co..(s0 + rows) * co)
                        .ok_or_else(|| internal("Conv2D: strip out of range"))?;
                    gemm_slice(a, b, dst, &fast, first + s0)?;
                }
                Ok(())
            })?;
            // SAFETY: every task returned Ok, so `gemm_slice` wrote each of its strips, and the
            // tasks' strips cover all `len` slots of the empty output (its capacity is `len`).
            unsafe { out.set_len(len) };
            epi.apply_rest(out, co, 0);
            return Ok(());
        }
        let mut col = try_alloc::<f32>(rows_per_strip * k)?;
        for r0 in (0..m).step_by(rows_per_strip) {
            let rows = rows_per_strip.min(m - r0);
            let patches = &mut col[..rows * k];
            im2col(xs, (h, w, ci), (kh, kw), &dy, &dx, r0, patches);
            gemm_into(MatRef::new(patches, rows, k, false)?, b, out, epi, r0)?;
        }
        Ok(())
    })
}

/// Fills `patches` (rows x kh*kw*ci) with the receptive fields of output rows `r0..`, zeros where
/// the window hangs over the padding.
fn im2col(
    xs: &[f32],
    (h, w, ci): (usize, usize, usize),
    (kh, kw): (usize, usize),
    dy: &Dim1,
    dx: &Dim1,
    r0: usize,
    patches: &mut [f32],
) {
    let k = kh * kw * ci;
    if k == 0 {
        return;
    }
    let (oh, ow) = (dy.output, dx.output);
    if oh == 0 || ow == 0 {
        return;
    }
    // The first row's pixel, then stepped along: no divisions per row.
    let (mut b, rem) = (r0 / (oh * ow), r0 % (oh * ow));
    let (mut oy, mut ox) = (rem / ow, rem % ow);
    let run = kw * ci;
    for patch in patches.chunks_exact_mut(k) {
        for (ky, prow) in patch.chunks_exact_mut(run).enumerate() {
            let iy = (oy * dy.stride + ky * dy.dilation)
                .checked_sub(dy.pad_before)
                .filter(|&iy| iy < h);
            let Some(iy) = iy else {
                zero_run(prow);
                continue;
            };
            let row = (b * h + iy) * w;
            // The window row inside the input and undilated: one contiguous run of kw * ci.
            let ix0 = (ox * dx.stride).checked_sub(dx.pad_before);
            if let Some(src) = ix0
                .filter(|&ix0| dx.dilation == 1 && ix0 + kw <= w)
                .and_then(|ix0| xs.get((row + ix0) * ci..(row + ix0) * ci + run))
            {
                copy_run(prow, src);
                continue;
            }
            for (kx, dst) in prow.chunks_exact_mut(ci).enumerate() {
                let ix = (ox * dx.stride + kx * dx.dilation)
                    .checked_sub(dx.pad_before)
                    .filter(|&ix| ix < w);
                match ix.and_then(|ix| xs.get((row + ix) * ci..(row + ix + 1) * ci)) {
                    Some(s) => copy_run(dst, s),
                    None => zero_run(dst),
                }
            }
        }
        ox += 1;
        if ox == ow {
            ox = 0;
            oy += 1;
            if oy == oh {
                oy = 0;
                b += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct NHWC convolution for checking im2col indexing.
    #[allow(clippy::too_many_arguments)]
    fn direct(
        x: &[f32],
        (n, h, w, ci): (usize, usize, usize, usize),
        f: &[f32],
        (kh, kw, co): (usize, usize, usize),
        dy: &Dim1,
        dx: &Dim1,
    ) -> Vec<f32> {
        let (oh, ow) = (dy.output, dx.output);
        let mut out = vec![0f32; n * oh * ow * co];
        for b in 0..n {
            for oy in 0..oh {
                for ox in 0..ow {
                    for o in 0..co {
                        let mut s = 0f32;
                        for ky in 0..kh {
                            for kx in 0..kw {
                                let iy = (oy * dy.stride + ky * dy.dilation) as isize
                                    - dy.pad_before as isize;
                                let ix = (ox * dx.stride + kx * dx.dilation) as isize
                                    - dx.pad_before as isize;
                                if iy < 0 || ix < 0 || iy >= h as isize || ix >= w as isize {
                                    continue;
                                }
                                for c in 0..ci {
                                    s += x[((b * h + iy as usize) * w + ix as usize) * ci + c]
                                        * f[((ky * kw + kx) * ci + c) * co + o];
                                }
                            }
                        }
                        out[((b * oh + oy) * ow + ox) * co + o] = s;
                    }
                }
            }
        }
        out
    }

    /// The thin-input path (`conv_thin`) over kernel sizes, strides, paddings, dilations, depths
    /// 1-4, batch 2 and output depths around the 8-channel panels, with a bias + Relu6 epilogue.
    #[test]
    fn thin_inputs_match_direct() {
        use super::super::epilogue::RowEpilogue;
        use super::super::simd::BiasClamp;
        let geoms = [
            ((3, 3), (2, 2), (1, 1), Padding::Same),
            ((5, 5), (2, 2), (1, 1), Padding::Same),
            ((7, 7), (2, 2), (1, 1), Padding::Same),
            ((1, 1), (2, 2), (1, 1), Padding::Valid),
            ((2, 3), (1, 3), (1, 1), Padding::Valid),
            ((3, 2), (3, 1), (2, 1), Padding::Explicit([(2, 1), (0, 3)])),
            ((3, 3), (1, 1), (3, 1), Padding::Same),
            ((4, 4), (1, 1), (1, 1), Padding::Explicit([(0, 0), (5, 5)])),
        ];
        for (g, &((kh, kw), strides, dilations, padding)) in geoms.iter().enumerate() {
            for ci in 1..=4 {
                let (n, h, w, co) = (2, 9, 11, [1, 8, 13, 17][(g + ci) % 4]);
                let x: Vec<f32> = (0..n * h * w * ci)
                    .map(|i| ((i * 7 + g) % 19) as f32 * 0.25 - 2.0)
                    .collect();
                let f: Vec<f32> = (0..kh * kw * ci * co)
                    .map(|i| ((i * 5 + ci) % 11) as f32 * 0.2 - 1.0)
                    .collect();
                let bias: Vec<f32> = (0..co).map(|j| j as f32 * 0.3 - 2.0).collect();
                let p = Conv2dParams {
                    strides,
                    dilations,
                    padding,
                };
                let [dy, dx] = p.window((h, w), (kh, kw)).unwrap();
                let m = n * dy.output * dx.output;
                let epi = RowEpilogue {
                    fast: BiasClamp {
                        bias: Some(&bias),
                        lo: 0.0,
                        hi: 6.0,
                        alpha: None,
                    },
                    rest: None,
                };
                let mut out = Vec::with_capacity(m * co);
                let (xd, fd) = ([n, h, w, ci], [kh, kw, co]);
                conv_thin(&x, &f, xd, fd, &[dy, dx], &mut out, &epi).unwrap();
                let want = direct(&x, (n, h, w, ci), &f, (kh, kw, co), &dy, &dx);
                assert_eq!(out.len(), want.len());
                for (i, (a, b)) in out.iter().zip(&want).enumerate() {
                    let b = (b + bias[i % co]).clamp(0.0, 6.0);
                    assert!(
                        (a - b).abs() < 1e-4,
                        "{g} ci={ci} co={co} at {i}: {a} vs {b}"
                    );
                }
            }
        }
        // A window larger than the input: an empty output, not an error.
        let p = Conv2dParams {
            strides: (1, 1),
            dilations: (1, 1),
            padding: Padding::Valid,
        };
        let xt = Tensor::from_slice(&[1, 4, 4, 2], &[1.0; 32]).unwrap();
        let ft = Tensor::from_slice(&[5, 5, 2, 3], &[1.0; 150]).unwrap();
        assert_eq!(conv2d(&xt, &ft, &p, None).unwrap().dims(), &[1, 0, 0, 3]);
    }

    #[test]
    fn im2col_gemm_matches_direct() {
        let cases = [
            (Padding::Same, (2, 2), (1, 1)),
            (Padding::Valid, (1, 1), (2, 2)),
            (Padding::Explicit([(1, 2), (0, 3)]), (2, 1), (1, 2)),
            (Padding::Same, (1, 1), (1, 1)),
        ];
        let (n, h, w, ci, kh, kw, co) = (2, 7, 6, 3, 3, 2, 5);
        let x: Vec<f32> = (0..n * h * w * ci).map(|i| (i % 13) as f32 - 6.0).collect();
        let f: Vec<f32> = (0..kh * kw * ci * co)
            .map(|i| (i % 7) as f32 * 0.5 - 1.0)
            .collect();
        for (padding, strides, dilations) in cases {
            let p = Conv2dParams {
                strides,
                dilations,
                padding,
            };
            let xt = Tensor::from_slice(&[n, h, w, ci], &x).unwrap();
            let ft = Tensor::from_slice(&[kh, kw, ci, co], &f).unwrap();
            let got = conv2d(&xt, &ft, &p, None).unwrap();
            let [dy, dx] = p.window((h, w), (kh, kw)).unwrap();
            let want = direct(&x, (n, h, w, ci), &f, (kh, kw, co), &dy, &dx);
            assert_eq!(got.dims(), &[n, dy.output, dx.output, co]);
            for (a, b) in got.f32s().unwrap().iter().zip(&want) {
                assert!((a - b).abs() < 1e-3, "{padding:?}: {a} vs {b}");
            }
        }
    }
}
