//! DepthwiseConv2dNative (NHWC, filter [kh, kw, in_c, multiplier]) as a direct kernel: for each
//! output pixel, accumulate every valid tap's channel vector times the tap's filter vector. The
//! channel loop is contiguous in input, filter and output, so it vectorizes.

use super::conv::Conv2dParams;
use super::epilogue::{with_output, Fusion, RowEpilogue};
use super::gemm::PAR_MIN_WORK;
use super::simd::{load_at, prelu_row, store_uninit_at, F4};
use super::window::{dims4, padding_attrs, Dim1};
use crate::ops::def::FLOAT;
use crate::ops::{Kernel, KernelContext, KernelFactory::Prepared};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::parallel;
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_alloc, Tensor};
use core::mem::MaybeUninit;

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("DepthwiseConv2dNative", Prepared(depthwise_op))
            .input("input", "T")
            .input("filter", "T")
            .type_attr("T", FLOAT)
            .ints_attr("strides", None)
            .with(|b| padding_attrs(b, &["NHWC", "NCHW"]))
            .ints_attr("dilations", Some(&[1, 1, 1, 1])),
    );
}

/// DepthwiseConv2dNative with its window attrs read once, at instantiation.
struct DepthwiseKernel(Conv2dParams);

impl Kernel for DepthwiseKernel {
    fn compute(&self, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
        Ok(crate::ops::one_output(depthwise(
            &i[0], &i[1], &self.0, None,
        )?))
    }
}

fn depthwise_op(a: &NodeAttrs) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(DepthwiseKernel(Conv2dParams::from_attrs(
        a, true, false,
    )?)))
}

/// Depthwise convolution of `x` by `filter`, optionally fused.
pub fn depthwise(
    x: &Tensor,
    filter: &Tensor,
    p: &Conv2dParams,
    fusion: Option<&Fusion<'_>>,
) -> Result<Tensor> {
    let op = "DepthwiseConv2dNative";
    let [n, h, w, ci] = dims4(op, "input", x.dims())?;
    let [kh, kw, fci, mult] = dims4(op, "filter", filter.dims())?;
    if ci != fci {
        return Err(invalid_argument(format!(
            "{op}: input and filter must have the same depth: {ci} vs {fci}"
        )));
    }
    let co = ci
        .checked_mul(mult)
        .ok_or_else(|| invalid_argument(format!("{op}: output depth overflows")))?;
    let [dy, dx] = p.window((h, w), (kh, kw))?;
    let (xs, fs) = (x.f32s()?, filter.f32s()?);
    let (oh, ow) = (dy.output, dx.output);
    with_output(vec![n, oh, ow, co], fusion, |out, epi| {
        let total = out.capacity();
        if co == 0 || total == 0 {
            return Ok(());
        }
        let geo = Geometry {
            n,
            h,
            w,
            c: ci,
            kh,
            kw,
            dy,
            dx,
        };
        if mult == 1 {
            let spare = out
                .spare_capacity_mut()
                .get_mut(..total)
                .ok_or_else(|| invalid_argument(format!("{op}: output out of range")))?;
            channels_simd(xs, fs, &geo, spare, epi)?;
            // SAFETY: `channels_simd` returned Ok, so it wrote all `total` elements of `spare`
            // (its contract), the first `total` slots of `out`'s capacity.
            unsafe { out.set_len(total) };
            // (The register paths take the bias and clamp; a PReLU follows on the finished rows.)
            if let Some(alpha) = epi.fast.alpha {
                for px in out.chunks_exact_mut(co) {
                    prelu_row(px, alpha);
                }
            }
            if let Some(rest) = epi.rest {
                for (row, px) in out.chunks_exact_mut(co).enumerate() {
                    rest.apply_row(row, 0, px);
                }
            }
            return Ok(());
        }
        out.resize(total, 0.0);
        for (row, px) in out.chunks_exact_mut(co).enumerate() {
            let (b, rem) = (row / (oh * ow), row % (oh * ow));
            let (oy, ox) = (rem / ow, rem % ow);
            for ky in 0..kh {
                let Some(iy) = (oy * dy.stride + ky * dy.dilation)
                    .checked_sub(dy.pad_before)
                    .filter(|&iy| iy < h)
                else {
                    continue;
                };
                for kx in 0..kw {
                    let Some(ix) = (ox * dx.stride + kx * dx.dilation)
                        .checked_sub(dx.pad_before)
                        .filter(|&ix| ix < w)
                    else {
                        continue;
                    };
                    let s = ((b * h + iy) * w + ix) * ci;
                    let t = (ky * kw + kx) * co;
                    let (Some(src), Some(taps)) = (xs.get(s..s + ci), fs.get(t..t + co)) else {
                        return Err(invalid_argument(format!("{op}: index out of range")));
                    };
                    for ((o, &v), f) in px
                        .chunks_exact_mut(mult)
                        .zip(src)
                        .zip(taps.chunks_exact(mult))
                    {
                        for (o, &f) in o.iter_mut().zip(f) {
                            *o += v * f;
                        }
                    }
                }
            }
            epi.row(row, 0, px);
        }
        Ok(())
    })
}

/// Input and window geometry of a multiplier-1 depthwise convolution.
struct Geometry {
    n: usize,
    h: usize,
    w: usize,
    c: usize,
    kh: usize,
    kw: usize,
    dy: Dim1,
    dx: Dim1,
}

/// Multiplier 1. Each output row: the pixels whose window lies inside the input horizontally go
/// through `interior` when the filter is 3x3 or 5x5 and the depth a multiple of 4 below
/// `WIDE_DEPTH`, else through `blocks` over one tap list for the row; border pixels through
/// `pixel`. On `Ok`, every element of `out` (`n * oh * ow * c`) has been written: each row's
/// pixels `0..ow` are split into the prefix, interior and suffix ranges, which together cover
/// `0..ow`, and each visited pixel is written in full (`blocks`' and `interior`'s contracts).
fn channels_simd(
    xs: &[f32],
    fs: &[f32],
    g: &Geometry,
    out: &mut [MaybeUninit<f32>],
    epi: &RowEpilogue<'_>,
) -> Result<()> {
    let c = g.c;
    let (oh, ow) = (g.dy.output, g.dx.output);
    if out.len() != g.n * oh * ow * c {
        return Err(invalid_argument("depthwise: output size mismatch"));
    }
    let fast = epi.fast;
    let bias: &[f32] = match fast.bias {
        Some(b) if b.len() == c => b,
        Some(_) => return Err(bad()),
        None => &[],
    };
    let ep = Epilogue {
        bias,
        lo: fast.lo,
        hi: fast.hi,
    };
    // Output columns whose horizontal window lies inside the input: `ox * stride >= pad_before`
    // and `ox * stride + (kw - 1) * dilation - pad_before < w`.
    let (x_lo, x_hi) = {
        let (sx, span) = (g.dx.stride.max(1), (g.kw.max(1) - 1) * g.dx.dilation);
        let hi = (g.w + g.dx.pad_before)
            .checked_sub(span)
            .map_or(0, |lim| lim.div_ceil(sx).min(ow));
        (g.dx.pad_before.div_ceil(sx).min(hi), hi)
    };
    // Square 3x3 and 5x5 filters (the sizes mobile detectors use) get the register-blocked
    // interior path; other sizes go through `pixel` only.
    let fast_k = match (g.kh, g.kw) {
        (3, 3) | (5, 5) if c % 4 == 0 && x_lo < x_hi => g.kh,
        _ => 0,
    };
    // Wide depths run pixel by pixel, each pixel's channels in one contiguous sweep over a tap
    // list shared by the row, instead of channel block by channel block (Node, 128 channels:
    // 3x3 stride 2 1.28x, 5x5 stride 2 1.39x, 5x5 stride 1 1.26x faster; on 32 channels 0.75x).
    let wide = c >= WIDE_DEPTH;
    // Windows hanging over the top or bottom padding read this zero row in place of the rows
    // outside, so border output rows take the interior path too (only border columns go through
    // `pixel`).
    let overhang = oh.checked_sub(1).is_some_and(|last| {
        last * g.dy.stride + (g.kh.max(1) - 1) * g.dy.dilation >= g.h + g.dy.pad_before
    });
    let zero_row = if fast_k != 0 && !wide && (g.dy.pad_before > 0 || overhang) {
        try_alloc::<f32>(g.w * c)?
    } else {
        Vec::new()
    };
    let row_len = ow * c;
    let one_row = |row: usize, orow: &mut [MaybeUninit<f32>], taps: &mut Vec<(usize, usize)>| {
        let (b, oy) = (row / oh.max(1), row % oh.max(1));
        let (mut lo, mut hi) = (ow, ow);
        let done = match if wide { 0 } else { fast_k } {
            3 => input_rows::<3>(xs, g, b, oy, &zero_row)
                .map(|rows| interior::<3>(rows, fs, g, (x_lo, x_hi), orow, &ep))
                .transpose()?,
            5 => input_rows::<5>(xs, g, b, oy, &zero_row)
                .map(|rows| interior::<5>(rows, fs, g, (x_lo, x_hi), orow, &ep))
                .transpose()?,
            _ => None,
        };
        if done.is_some() {
            (lo, hi) = (x_lo, x_hi);
        } else if x_lo < x_hi {
            // Interior columns share one tap list: offsets from the window's first column.
            window_taps(g, (b, oy, 0), true, taps);
            let shift = |ox: usize| (ox * g.dx.stride - g.dx.pad_before) * c;
            let last = shift(x_hi - 1) + c;
            if taps
                .iter()
                .any(|&(s, t)| s + last > xs.len() || t + c > fs.len())
            {
                return Err(bad());
            }
            let mut ox = x_lo;
            if c % 8 == 0 {
                // Two pixels at a time: each filter load serves both.
                while ox + 2 <= x_hi {
                    let px = orow.get_mut(ox * c..(ox + 2) * c).ok_or_else(bad)?;
                    blocks_pair(xs, fs, taps, [shift(ox), shift(ox + 1)], px, &ep);
                    ox += 2;
                }
            }
            for ox in ox..x_hi {
                let px = orow.get_mut(ox * c..(ox + 1) * c).ok_or_else(bad)?;
                blocks(xs, fs, taps, shift(ox), px, &ep);
            }
            (lo, hi) = (x_lo, x_hi);
        }
        for ox in (0..lo).chain(hi..ow) {
            let px = orow.get_mut(ox * c..(ox + 1) * c).ok_or_else(bad)?;
            pixel(xs, fs, g, (b, oy, ox), px, &ep, taps)?;
        }
        Ok(())
    };
    // Output rows are independent: with threads, blocks of them are tasks (each row computed as on
    // one thread).
    let rows = g.n * oh;
    let work = out.len().saturating_mul(g.kh * g.kw);
    let per_task = parallel::items_per_task(rows, work, PAR_MIN_WORK);
    parallel::for_each_chunk_mut(out, per_task * row_len.max(1), |t, part| {
        let mut taps: Vec<(usize, usize)> = Vec::with_capacity(g.kh * g.kw);
        for (i, orow) in part.chunks_exact_mut(row_len.max(1)).enumerate() {
            one_row(t * per_task + i, orow, &mut taps)?;
        }
        Ok(())
    })
}

fn bad() -> crate::status::Status {
    invalid_argument("DepthwiseConv2dNative: index out of range")
}

/// The fused `clamp(x + bias, lo, hi)` of the multiplier-1 path (`bias` empty for none).
struct Epilogue<'a> {
    bias: &'a [f32],
    lo: f32,
    hi: f32,
}

/// Four channels of a finished sum: the bias comes after the taps, as in the unfused graph
/// (conv, then BiasAdd), so fusing does not change a bit.
#[inline(always)]
fn finish(acc: F4, bias: Option<F4>, lo: F4, hi: F4) -> F4 {
    match bias {
        Some(b) => (acc + b).clamp(lo, hi),
        None => acc.clamp(lo, hi),
    }
}

/// The taps of output pixel `(b, oy, ox)`'s window that lie inside the input, as (input offset,
/// filter offset) pairs. `row`: every column of the rows inside, offsets from the window's first
/// column (shared by a row's interior pixels). Not checked against the slices.
fn window_taps(
    g: &Geometry,
    (b, oy, ox): (usize, usize, usize),
    row: bool,
    taps: &mut Vec<(usize, usize)>,
) {
    taps.clear();
    for ky in 0..g.kh {
        let Some(iy) = (oy * g.dy.stride + ky * g.dy.dilation)
            .checked_sub(g.dy.pad_before)
            .filter(|&iy| iy < g.h)
        else {
            continue;
        };
        for kx in 0..g.kw {
            let ix = match row {
                true => Some(kx * g.dx.dilation),
                false => (ox * g.dx.stride + kx * g.dx.dilation).checked_sub(g.dx.pad_before),
            };
            let Some(ix) = ix.filter(|&ix| row || ix < g.w) else {
                continue;
            };
            taps.push((((b * g.h + iy) * g.w + ix) * g.c, (ky * g.kw + kx) * g.c));
        }
    }
}

/// One output pixel from the taps inside the input. On `Ok`, all `c` elements of `px` have been
/// written (`blocks`).
fn pixel(
    xs: &[f32],
    fs: &[f32],
    g: &Geometry,
    at: (usize, usize, usize),
    px: &mut [MaybeUninit<f32>],
    ep: &Epilogue<'_>,
    taps: &mut Vec<(usize, usize)>,
) -> Result<()> {
    let c = g.c;
    window_taps(g, at, false, taps);
    // `blocks` relies on this check.
    if px.len() != c
        || taps
            .iter()
            .any(|&(s, t)| s + c > xs.len() || t + c > fs.len())
    {
        return Err(bad());
    }
    blocks(xs, fs, taps, 0, px, ep);
    Ok(())
}

/// All `c = px.len()` channels of one pixel over `taps` (input offsets moved by `shift`), 16 (then
/// 8, 4, 1) channels at a time in registers; every tap `(s, t)` must have `s + shift + c <=
/// xs.len()` and `t + c <= fs.len()`. Writes every element of `px` (blocks of 16, 8 and 4, then
/// single channels, cover `0..c`).
fn blocks(
    xs: &[f32],
    fs: &[f32],
    taps: &[(usize, usize)],
    shift: usize,
    px: &mut [MaybeUninit<f32>],
    ep: &Epilogue<'_>,
) {
    let c = px.len();
    let mut c0 = 0;
    while c0 + 16 <= c {
        block::<4>(xs, fs, taps, (shift, c0), px, ep);
        c0 += 16;
    }
    if c0 + 8 <= c {
        block::<2>(xs, fs, taps, (shift, c0), px, ep);
        c0 += 8;
    }
    if c0 + 4 <= c {
        block::<1>(xs, fs, taps, (shift, c0), px, ep);
        c0 += 4;
    }
    for (ch, o) in px.iter_mut().enumerate().skip(c0) {
        let mut acc = 0.0;
        for &(s, t) in taps {
            let x = xs.get(s + shift + ch).copied().unwrap_or(0.0);
            acc += x * fs.get(t + ch).copied().unwrap_or(0.0);
        }
        if let Some(&b) = ep.bias.get(ch) {
            acc += b;
        }
        let v = if acc < ep.lo { ep.lo } else { acc };
        o.write(if ep.hi < v { ep.hi } else { v });
    }
}

/// Channels `c0..c0 + 4 * V` of one pixel over its `taps`, within `blocks`' contract
/// (`c0 + 4 * V <= c`).
#[inline(always)]
fn block<const V: usize>(
    xs: &[f32],
    fs: &[f32],
    taps: &[(usize, usize)],
    (shift, c0): (usize, usize),
    px: &mut [MaybeUninit<f32>],
    ep: &Epilogue<'_>,
) {
    let mut acc = [F4::splat(0.0); V];
    for &(s, t) in taps {
        let (s, t) = (s + shift + c0, t + c0);
        for (v, a) in acc.iter_mut().enumerate() {
            // SAFETY: `c0 + 4 * v + 4 <= c`, `s + shift + c <= xs.len()` and `t + c <= fs.len()`
            // (`blocks`' contract), so both reads lie inside their slices.
            let (x, f) = unsafe { (load_in(xs, s + 4 * v), load_in(fs, t + 4 * v)) };
            *a = x.mul_add(f, *a);
        }
    }
    let (lo, hi) = (F4::splat(ep.lo), F4::splat(ep.hi));
    for (v, a) in acc.into_iter().enumerate() {
        let at = c0 + 4 * v;
        store_uninit_at(px, at, finish(a, load_at(ep.bias, at), lo, hi));
    }
}

/// Two adjacent pixels (`px`: both, `2 * c` elements; `shifts`: their input offsets, each within
/// `blocks`' contract) in blocks of 8 channels, `c % 8 == 0`; the same sums as `blocks`, bit for
/// bit. Writes every element of `px`.
fn blocks_pair(
    xs: &[f32],
    fs: &[f32],
    taps: &[(usize, usize)],
    shifts: [usize; 2],
    px: &mut [MaybeUninit<f32>],
    ep: &Epilogue<'_>,
) {
    let c = px.len() / 2;
    let (p0, p1) = px.split_at_mut(c);
    let (lo, hi) = (F4::splat(ep.lo), F4::splat(ep.hi));
    for c0 in (0..c - c % 8).step_by(8) {
        let mut acc = [[F4::splat(0.0); 2]; 2];
        for &(s, t) in taps {
            for v in 0..2 {
                // SAFETY: `c0 + 4 * v + 4 <= c`, and for either shift `s + shift + c <=
                // xs.len()`, `t + c <= fs.len()` (`blocks`' contract).
                let f = unsafe { load_in(fs, t + c0 + 4 * v) };
                for (a, &sh) in acc.iter_mut().zip(&shifts) {
                    a[v] = unsafe { load_in(xs, s + sh + c0 + 4 * v) }.mul_add(f, a[v]);
                }
            }
        }
        for (a, p) in acc.into_iter().zip([&mut *p0, &mut *p1]) {
            for (v, a) in a.into_iter().enumerate() {
                let at = c0 + 4 * v;
                store_uninit_at(p, at, finish(a, load_at(ep.bias, at), lo, hi));
            }
        }
    }
}

/// The `K` input rows output row `oy` of image `b` reads, `zero` for those in the padding (none
/// if `zero` is too short for a row).
fn input_rows<'x, const K: usize>(
    xs: &'x [f32],
    g: &Geometry,
    b: usize,
    oy: usize,
    zero: &'x [f32],
) -> Option<[&'x [f32]; K]> {
    let mut rows: [&[f32]; K] = [&[]; K];
    let len = g.w * g.c;
    for (ky, r) in rows.iter_mut().enumerate() {
        let iy = (oy * g.dy.stride + ky * g.dy.dilation).checked_sub(g.dy.pad_before);
        *r = match iy.filter(|&iy| iy < g.h) {
            Some(iy) => xs.get((b * g.h + iy) * len..(b * g.h + iy + 1) * len)?,
            None => zero.get(..len)?,
        };
    }
    Some(rows)
}

/// One tap of a pixel's chain of K * K multiply-adds in the thin loops below. For 5x5 and larger
/// the chain's latency bounds the loop, so even the relaxed-SIMD build multiplies and adds
/// separately: the multiplies leave the chain, whose step is then an add (3 cycles) instead of a
/// fused multiply-add (4-5); fused, 5x5 [1,128,128,16] ran 1.6x slower than in the plain build.
/// 3x3's shorter chains are bound by throughput, where the fused form is 7% faster.
#[inline(always)]
fn tap<const K: usize>(x: F4, w: F4, acc: F4) -> F4 {
    if K > 3 {
        x * w + acc
    } else {
        x.mul_add(w, acc)
    }
}

/// Output pixels `x_lo..x_hi` of one output row of a KxK filter, all of whose taps lie inside
/// the input (`rows`: the K input rows, `w * c` each). Channel blocks of 4 outside, pixels
/// inside, so that the block's K*K filter vectors and its bias stay in registers (or at least in
/// L1). On `Ok`, the `c` elements of each of these pixels in `orow` have been written
/// (`c % 4 == 0`: the blocks cover `0..c`).
fn interior<const K: usize>(
    rows: [&[f32]; K],
    fs: &[f32],
    g: &Geometry,
    (x_lo, x_hi): (usize, usize),
    orow: &mut [MaybeUninit<f32>],
    ep: &Epilogue<'_>,
) -> Result<()> {
    let c = g.c;
    let (sx, pad) = (g.dx.stride, g.dx.pad_before);
    let step = g.dx.dilation * c;
    if K == 0 || c % 4 != 0 || orow.len() < x_hi * c || fs.len() < K * K * c {
        return Err(bad());
    }
    // The largest input element any tap reads, plus one: the last channel of the last column of
    // pixel `x_hi - 1`'s window. Every load below reads `at..at + 4` with `at + 4 <= end`.
    let end = x_hi
        .checked_sub(1)
        .and_then(|v| v.checked_mul(sx))
        .and_then(|v| v.checked_sub(pad))
        .and_then(|v| v.checked_mul(c))
        .and_then(|v| v.checked_add(step.checked_mul(K - 1)?.checked_add(c)?));
    if x_lo * sx < pad || end.is_none_or(|e| rows.iter().any(|r| r.len() < e)) {
        return Err(bad());
    }
    let (lo, hi) = (F4::splat(ep.lo), F4::splat(ep.hi));
    for c0 in (0..c).step_by(4) {
        let w: [[F4; K]; K] = core::array::from_fn(|ky| {
            core::array::from_fn(|kx| load_at(fs, (ky * K + kx) * c + c0).unwrap_or(F4::splat(0.0)))
        });
        let (zero, b) = (F4::splat(0.0), load_at(ep.bias, c0));
        let mut ox = x_lo;
        if sx == 1 && step == c && K + 3 <= QUAD_COLS {
            // Stride 1, dilation 1: four adjacent pixels read K + 3 input columns per row, each
            // loaded once. Four sums in flight: one pixel's taps are a chain of dependent adds
            // (K * K of them, each waiting on the last), which bounded the pair loop below.
            while ox + 4 <= x_hi {
                let base = (ox - pad) * c + c0;
                let mut acc = [zero; 4];
                for (r, w) in rows.iter().zip(w.iter()) {
                    // SAFETY: `x_lo * sx >= pad` (checked), so `base` does not wrap; with `sx == 1`,
                    // `step == c` and `ox + 3 < x_hi`, the last load ends at `base + (K + 2) * c
                    // + 4 = (ox + 3 - pad) * c + (K - 1) * step + c0 + 4 <= ((x_hi - 1) * sx -
                    // pad) * c + (K - 1) * step + c = end` (`c0 + 4 <= c`), and `end <= r.len()`.
                    let x: [F4; QUAD_COLS] = core::array::from_fn(|j| match j < K + 3 {
                        true => unsafe { load_in(r, base + j * c) },
                        false => zero,
                    });
                    for (j, &wj) in w.iter().enumerate() {
                        for (p, a) in acc.iter_mut().enumerate() {
                            *a = tap::<K>(x[j + p], wj, *a);
                        }
                    }
                }
                for (p, a) in acc.into_iter().enumerate() {
                    store_uninit_at(orow, (ox + p) * c + c0, finish(a, b, lo, hi));
                }
                ox += 4;
            }
        }
        if sx == 1 && step == c {
            // Stride 1, dilation 1: pixels `ox` and `ox + 1` share K - 1 of their K input columns
            // per row, so load the row's K + 1 columns once for both.
            while ox + 2 <= x_hi {
                let base = (ox - pad) * c + c0;
                let (mut a0, mut a1) = (zero, zero);
                for (r, w) in rows.iter().zip(w.iter()) {
                    // SAFETY: `x_lo * sx >= pad` (checked), so `base` does not wrap; with `sx == 1`,
                    // `step == c` and `ox + 1 < x_hi`, `base + K * c + 4 = (ox + 1 - pad) * c +
                    // (K - 1) * step + c0 + 4 <= ((x_hi - 1) * sx - pad) * c + (K - 1) * step + c
                    // = end` (`c0 + 4 <= c`), and `end <= r.len()` (checked).
                    let x: [F4; K] = core::array::from_fn(|j| unsafe { load_in(r, base + j * c) });
                    let xk = unsafe { load_in(r, base + K * c) };
                    for j in 0..K {
                        a0 = tap::<K>(x[j], w[j], a0);
                    }
                    for j in 1..K {
                        a1 = tap::<K>(x[j], w[j - 1], a1);
                    }
                    a1 = tap::<K>(xk, w[K - 1], a1);
                }
                store_uninit_at(orow, ox * c + c0, finish(a0, b, lo, hi));
                store_uninit_at(orow, (ox + 1) * c + c0, finish(a1, b, lo, hi));
                ox += 2;
            }
        }
        // Any stride or dilation, 5x5: four pixels' sums in flight, each reading its own window
        // (Node, stride 2 on [1,128,128,16]: 1.2x faster; for 3x3 it measured 1.3x slower).
        while K == 5 && ox + 4 <= x_hi {
            let mut acc = [zero; 4];
            for (r, w) in rows.iter().zip(w.iter()) {
                for (j, &wj) in w.iter().enumerate() {
                    for (p, a) in acc.iter_mut().enumerate() {
                        let base = ((ox + p) * sx - pad) * c + c0;
                        // SAFETY: as in the pixel loop below, for pixel `ox + p < x_hi`.
                        *a = tap::<K>(unsafe { load_in(r, base + j * step) }, wj, *a);
                    }
                }
            }
            for (p, a) in acc.into_iter().enumerate() {
                store_uninit_at(orow, (ox + p) * c + c0, finish(a, b, lo, hi));
            }
            ox += 4;
        }
        for ox in ox..x_hi {
            let base = (ox * sx - pad) * c + c0;
            let mut acc = zero;
            for (r, w) in rows.iter().zip(w.iter()) {
                for (j, &wj) in w.iter().enumerate() {
                    // SAFETY: `x_lo * sx >= pad` (checked), so `base` does not wrap; with
                    // `ox < x_hi`, `j < K` and `c0 + 4 <= c`, `base + j * step + 4 <=
                    // ((x_hi - 1) * sx - pad) * c + (K - 1) * step + c = end <= r.len()` (checked).
                    acc = tap::<K>(unsafe { load_in(r, base + j * step) }, wj, acc);
                }
            }
            store_uninit_at(orow, ox * c + c0, finish(acc, b, lo, hi));
        }
    }
    Ok(())
}

/// Input columns the four-pixel stride-1 interior loop holds per row (K + 3, for K up to 5).
const QUAD_COLS: usize = 8;

/// Depths from which a row's interior pixels run pixel by pixel (see `channels_simd`).
const WIDE_DEPTH: usize = 64;

/// Four lanes of `s` from `at`, without a bounds check.
///
/// # Safety
/// `at + 4 <= s.len()` (without overflow).
#[inline(always)]
unsafe fn load_in(s: &[f32], at: usize) -> F4 {
    debug_assert!(at.checked_add(4).is_some_and(|e| e <= s.len()));
    // SAFETY: by the caller's contract `at..at + 4` lies inside `s`, so the pointer is in bounds
    // and points to 4 initialized f32s borrowed shared for `s`'s lifetime; `[f32; 4]` has the
    // alignment of `f32`.
    F4::load(unsafe { &*s.as_ptr().add(at).cast::<[f32; 4]>() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::nn::window::Padding;

    #[test]
    fn multiplier_and_same_padding() {
        // 1x3x3x2 input, 2x2 filter, multiplier 2, SAME stride 1: pad_before 0, after 1.
        let x: Vec<f32> = (1..=18).map(|v| v as f32).collect();
        let f: Vec<f32> = (0..16).map(|v| (v % 5) as f32 - 2.0).collect();
        let xt = Tensor::from_slice(&[1, 3, 3, 2], &x).unwrap();
        let ft = Tensor::from_slice(&[2, 2, 2, 2], &f).unwrap();
        let p = Conv2dParams {
            strides: (1, 1),
            dilations: (1, 1),
            padding: Padding::Same,
        };
        let out = depthwise(&xt, &ft, &p, None).unwrap();
        assert_eq!(out.dims(), &[1, 3, 3, 4]);
        let o = out.f32s().unwrap();
        // Output (0,0), channel 0, q 1: taps (0,0),(0,1),(1,0),(1,1) on input channel 0.
        let xin = |y: usize, xx: usize, c: usize| x[(y * 3 + xx) * 2 + c];
        let fw = |ky: usize, kx: usize, c: usize, q: usize| f[((ky * 2 + kx) * 2 + c) * 2 + q];
        let want = xin(0, 0, 0) * fw(0, 0, 0, 1)
            + xin(0, 1, 0) * fw(0, 1, 0, 1)
            + xin(1, 0, 0) * fw(1, 0, 0, 1)
            + xin(1, 1, 0) * fw(1, 1, 0, 1);
        assert_eq!(o[1], want);
        // Bottom-right pixel, channel 1, q 0: only tap (0,0) is inside.
        assert_eq!(o[(8 * 4) + 2], xin(2, 2, 1) * fw(0, 0, 1, 0));
    }

    /// The multiplier-1 SIMD path (channel blocks of 8, 4 and single tails; borders; strides; the
    /// 3x3 and 5x5 interior paths and the generic 4x4) against a direct scalar sum, with and without
    /// a fused bias + Relu6.
    #[test]
    fn channels_simd_matches_direct() {
        check_channels_simd();
    }

    #[cfg(target_arch = "wasm32")]
    #[wasm_bindgen_test::wasm_bindgen_test]
    fn wasm_channels_simd_matches_direct() {
        check_channels_simd();
    }

    fn check_channels_simd() {
        use crate::kernels::nn::epilogue::{Fusion, FusionSpec};
        use crate::ops::{resolve_attrs, AttrValue};
        use crate::registry::lookup;
        // (depth, stride, dilation, padding, width): depths that are and are not multiples of 4
        // (the 3x3 interior path), odd and even interior widths, dilation, explicit padding.
        for &(c, stride, dil, padding, w) in &[
            (13usize, 1usize, 1usize, Padding::Same, 6usize),
            (8, 2, 1, Padding::Same, 6),
            (4, 1, 1, Padding::Valid, 6),
            (3, 2, 1, Padding::Valid, 6),
            (12, 1, 1, Padding::Same, 7),
            (8, 1, 1, Padding::Same, 6),
            (16, 1, 1, Padding::Valid, 9),
            (8, 1, 2, Padding::Same, 9),
            (4, 2, 2, Padding::Valid, 9),
            (8, 1, 1, Padding::Explicit([(0, 2), (2, 1)]), 7),
            (4, 2, 1, Padding::Explicit([(1, 1), (1, 0)]), 8),
            // Thin depths at stride 2 and 3 (channel blocks outside), odd and even widths.
            (24, 2, 1, Padding::Same, 10),
            (16, 2, 1, Padding::Valid, 11),
            (8, 2, 1, Padding::Explicit([(1, 2), (0, 1)]), 9),
            (8, 3, 1, Padding::Same, 12),
            // Wide depths (pixel by pixel: blocks of 16, 8 and 4; pairs of pixels when the depth
            // is a multiple of 8), stride 1 and 2.
            (64, 2, 1, Padding::Same, 9),
            (80, 1, 1, Padding::Same, 8),
            (68, 2, 1, Padding::Valid, 8),
            (72, 2, 2, Padding::Explicit([(2, 1), (1, 2)]), 9),
        ] {
            for k in [3usize, 5, 4, 7, 1, 2] {
                let (n, h, w) = (2, 2 * k - 1, w + k - 3);
                let x: Vec<f32> = (0..n * h * w * c)
                    .map(|i| ((i * 7) % 11) as f32 - 5.0)
                    .collect();
                let f: Vec<f32> = (0..k * k * c)
                    .map(|i| ((i * 5) % 7) as f32 * 0.5 - 1.5)
                    .collect();
                let bias: Vec<f32> = (0..c).map(|i| i as f32 - 4.0).collect();
                let xt = Tensor::from_slice(&[n, h, w, c], &x).unwrap();
                let ft = Tensor::from_slice(&[k, k, c, 1], &f).unwrap();
                let bt = Tensor::from_slice(&[c], &bias).unwrap();
                let p = Conv2dParams {
                    strides: (stride, stride),
                    dilations: (dil, dil),
                    padding,
                };
                let [dy, dx] = p.window((h, w), (k, k)).unwrap();
                let mut want = vec![0f32; n * dy.output * dx.output * c];
                for b in 0..n {
                    for oy in 0..dy.output {
                        for ox in 0..dx.output {
                            for ch in 0..c {
                                let mut s = 0f32;
                                for ky in 0..k {
                                    for kx in 0..k {
                                        let iy = (oy * stride + ky * dil) as isize
                                            - dy.pad_before as isize;
                                        let ix = (ox * stride + kx * dil) as isize
                                            - dx.pad_before as isize;
                                        if iy < 0 || ix < 0 || iy >= h as isize || ix >= w as isize
                                        {
                                            continue;
                                        }
                                        let (iy, ix) = (iy as usize, ix as usize);
                                        s += x[((b * h + iy) * w + ix) * c + ch]
                                            * f[(ky * k + kx) * c + ch];
                                    }
                                }
                                want[((b * dy.output + oy) * dx.output + ox) * c + ch] = s;
                            }
                        }
                    }
                }
                let got = depthwise(&xt, &ft, &p, None).unwrap();
                assert_eq!(got.dims(), &[n, dy.output, dx.output, c]);
                for (a, b) in got.f32s().unwrap().iter().zip(&want) {
                    assert!(
                        (a - b).abs() < 1e-4,
                        "k={k} c={c} s={stride} d={dil} {padding:?} w={w}: {a} vs {b}"
                    );
                }
                let def = lookup("FusedDepthwiseConv2dNative").unwrap();
                let attrs = resolve_attrs(
                    def,
                    &[xt.clone(), ft.clone(), bt.clone()],
                    [
                        (
                            "fused_ops",
                            AttrValue::ListStr(vec![b"BiasAdd".to_vec(), b"Relu6".to_vec()]),
                        ),
                        ("num_args", AttrValue::Int(1)),
                        ("T", AttrValue::Type(crate::tensor::DType::Float32)),
                        ("strides", AttrValue::ListInt(vec![1, 1, 1, 1])),
                        ("padding", AttrValue::Str(b"SAME".to_vec())),
                    ],
                )
                .unwrap();
                let spec = FusionSpec::parse(&attrs).unwrap();
                let args = [bt];
                let fusion = Fusion::bind("test", spec, &args).unwrap();
                let got = depthwise(&xt, &ft, &p, Some(&fusion)).unwrap();
                for (i, (a, b)) in got.f32s().unwrap().iter().zip(&want).enumerate() {
                    let b = (b + bias[i % c]).clamp(0.0, 6.0);
                    assert!(
                        (a - b).abs() < 1e-4,
                        "fused k={k} c={c} s={stride} d={dil} {padding:?} w={w}: {a} vs {b}"
                    );
                }
            }
        }
    }
}
