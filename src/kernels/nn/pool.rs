//! MaxPool and AvgPool over NHWC windows. Padded cells never contribute: MaxPool ignores them and
//! AvgPool divides by the number of real cells in each window, as TF's CPU kernels do.

use super::gemm::PAR_MIN_WORK;
use super::window::{dims4, padding_attr, padding_attrs, require_nhwc, windowed_2d, Dim1};
use crate::ops::def::FLOAT;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::parallel;
use crate::status::{invalid_argument, unimplemented, Result};
use crate::tensor::{try_alloc, DType, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("MaxPool", Simple(max_pool))
            .input("input", "T")
            .type_attr_default("T", FLOAT, DType::Float32)
            .ints_attr("ksize", None)
            .ints_attr("strides", None)
            .with(|b| padding_attrs(b, &["NHWC", "NCHW", "NCHW_VECT_C"])),
    );
    reg.add(
        OpBuilder::new("AvgPool", Simple(avg_pool))
            .input("value", "T")
            .ints_attr("ksize", None)
            .ints_attr("strides", None)
            .enum_attr("padding", &["SAME", "VALID"], None)
            .enum_attr("data_format", &["NHWC", "NCHW"], Some("NHWC"))
            .type_attr("T", FLOAT),
    );
}

/// A pool's window attrs checked as TF's PoolParameters does, resolved against the input `x`
/// (its dims).
pub(super) fn geometry(
    a: &NodeAttrs,
    x: &[usize],
    has_explicit: bool,
) -> Result<([usize; 4], [Dim1; 2])> {
    require_nhwc(a)?;
    let op = a.op();
    let (ksize, strides) = (a.ints("ksize")?, a.ints("strides")?);
    for (name, v) in [("ksize", ksize), ("strides", strides)] {
        if v.len() != 4 {
            return Err(invalid_argument(format!(
                "{op}: Sliding window {name} field must specify 4 dimensions, got {}",
                v.len()
            )));
        }
        if let Some(d) = v.iter().position(|&e| e <= 0) {
            return Err(invalid_argument(format!(
                "{op}: Sliding window {name} for dimension {d} was {}",
                v[d]
            )));
        }
    }
    if ksize[0] != 1 || strides[0] != 1 {
        return Err(unimplemented(format!(
            "{op}: Pooling is not yet supported on the batch dimension."
        )));
    }
    if ksize[3] != 1 || strides[3] != 1 {
        return Err(unimplemented(format!(
            "{op}: pooling over the depth dimension is not supported"
        )));
    }
    let dims = dims4(op, "input", x)?;
    let u = |v: i64| usize::try_from(v).map_err(|_| invalid_argument(format!("{op}: too large")));
    let win = windowed_2d(
        (dims[1], dims[2]),
        (u(ksize[1])?, u(ksize[2])?),
        (u(strides[1])?, u(strides[2])?),
        (1, 1),
        padding_attr(a, has_explicit)?,
    )?;
    Ok((dims, win))
}

/// Input rows `lo..hi` of a window (clipped to the input) along one dim for output `o`.
#[inline]
fn span(d: &Dim1, o: usize) -> (usize, usize) {
    let start = o * d.stride;
    let lo = start.saturating_sub(d.pad_before);
    let hi = (start + d.window).saturating_sub(d.pad_before).min(d.input);
    (lo, hi.max(lo))
}

/// Channels per register block: four f32x4 accumulators.
const BLOCK: usize = 16;

/// Runs `reduce(acc, input)` over every valid cell of each window, then `finish(acc, cell_count)`,
/// a block of channels at a time: the block's accumulators stay in registers across the window's
/// cells instead of the output row being read and written once per cell.
fn pool(
    x: &Tensor,
    [n, h, w, c]: [usize; 4],
    [dy, dx]: [Dim1; 2],
    init: f32,
    reduce: impl Fn(&mut [f32], &[f32]) + Sync,
    finish: impl Fn(&mut [f32], usize) + Sync,
) -> Result<Tensor> {
    let xs = x.f32s()?;
    let (oh, ow) = (dy.output, dx.output);
    let shape = Shape::new(vec![n, oh, ow, c])?;
    let mut out = try_alloc::<f32>(shape.num_elements())?;
    if c == 0 || ow == 0 {
        return Tensor::from_vec(shape, out);
    }
    let bad = || invalid_argument("pool index out of range");
    // Output rows are independent: with threads, blocks of them are tasks.
    let rows = n * oh;
    let work = out
        .len()
        .saturating_mul(dy.window.min(h) * dx.window.min(w));
    let per_task = parallel::items_per_task(rows, work, PAR_MIN_WORK);
    parallel::for_each_chunk_mut(&mut out, per_task * ow * c, |t, part| {
        // Input offsets of the valid cells of one window (clipped to the input, so at most h * w
        // of them, however large the window attr).
        let mut cells = Vec::new();
        for (i, row) in part.chunks_exact_mut(ow * c).enumerate() {
            let (b, oy) = ((t * per_task + i) / oh, (t * per_task + i) % oh);
            let (y0, y1) = span(&dy, oy);
            for (ox, px) in row.chunks_exact_mut(c).enumerate() {
                let (x0, x1) = span(&dx, ox);
                cells.clear();
                for iy in y0..y1 {
                    cells.extend((x0..x1).map(|ix| ((b * h + iy) * w + ix) * c));
                }
                // Blocks of 16 channels, then 8, 4 and single ones: every block fixed-size, so
                // unrolled and kept in registers, with no variable-length fill or copy (each a
                // `memory.fill`/`memory.copy` call in wasm, dearer than the block's work).
                let mut k = 0;
                while k < c {
                    let step = match c - k {
                        r if r >= BLOCK => {
                            pool_block::<BLOCK>(xs, &cells, k, init, &reduce, &finish, px)
                        }
                        r if r >= 8 => pool_block::<8>(xs, &cells, k, init, &reduce, &finish, px),
                        r if r >= 4 => pool_block::<4>(xs, &cells, k, init, &reduce, &finish, px),
                        _ => pool_block::<1>(xs, &cells, k, init, &reduce, &finish, px),
                    };
                    k += step.ok_or_else(bad)?;
                }
            }
        }
        Ok(())
    })?;
    Tensor::from_vec(shape, out)
}

/// Channels `k..k + B` of one output pixel `px` from the window `cells`; returns `B`, or None if
/// an index is out of range.
#[inline(always)]
fn pool_block<const B: usize>(
    xs: &[f32],
    cells: &[usize],
    k: usize,
    init: f32,
    reduce: &impl Fn(&mut [f32], &[f32]),
    finish: &impl Fn(&mut [f32], usize),
    px: &mut [f32],
) -> Option<usize> {
    let mut acc = [init; B];
    for &s in cells {
        reduce(&mut acc, xs.get(s + k..s + k + B)?);
    }
    finish(&mut acc, cells.len());
    px.get_mut(k..k + B)?.copy_from_slice(&acc);
    Some(B)
}

fn max_pool(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let (dims, win) = geometry(a, i[0].dims(), true)?;
    Ok(crate::ops::one_output(pool(
        &i[0],
        dims,
        win,
        f32::NEG_INFINITY,
        max_step,
        |_, _| {},
    )?))
}

/// MaxPool's window step for [`pool`]: a select, not a conditional store, so that it vectorizes
/// (f32x4.pmax in wasm): 12-20x faster. NaN inputs are skipped either way (`m < NaN` is false).
#[inline(always)]
fn max_step(acc: &mut [f32], src: &[f32]) {
    for (m, &v) in acc.iter_mut().zip(src) {
        *m = if *m < v { v } else { *m };
    }
}

fn avg_pool(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let (dims, win) = geometry(a, i[0].dims(), false)?;
    let t = pool(
        &i[0],
        dims,
        win,
        0.0,
        |acc, src| {
            for (s, &v) in acc.iter_mut().zip(src) {
                *s += v;
            }
        },
        |acc, count| {
            if count > 0 {
                let inv = count as f32;
                acc.iter_mut().for_each(|s| *s /= inv);
            }
        },
    )?;
    Ok(crate::ops::one_output(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::nn::window::{windowed_output, Padding};

    #[test]
    fn max_pool_skips_nan_and_padding() {
        // 1x2x3x1, 2x2 window, stride 1, SAME: windows clipped at the right and bottom edges.
        let x = Tensor::from_slice(&[1, 2, 3, 1], &[1f32, f32::NAN, -3., -4., 5., -6.]).unwrap();
        let dy = windowed_output(2, 2, 1, 1, Padding::Same, (0, 0)).unwrap();
        let dx = windowed_output(3, 2, 1, 1, Padding::Same, (0, 0)).unwrap();
        let t = pool(
            &x,
            [1, 2, 3, 1],
            [dy, dx],
            f32::NEG_INFINITY,
            max_step,
            |_, _| {},
        )
        .unwrap();
        assert_eq!(t.f32s().unwrap(), &[5., 5., -3., 5., 5., -6.]);
    }

    #[test]
    fn avg_same_counts_real_cells() {
        // 1x3x3x1, 2x2 window, stride 2, SAME: out 2x2, pad 0 before / 1 after.
        let x = Tensor::from_slice(&[1, 3, 3, 1], &[1f32, 2., 3., 4., 5., 6., 7., 8., 9.]).unwrap();
        let dy = windowed_output(3, 2, 2, 1, Padding::Same, (0, 0)).unwrap();
        let t = pool(
            &x,
            [1, 3, 3, 1],
            [dy, dy],
            0.0,
            |a, s| a[0] += s[0],
            |a, n| a[0] /= n as f32,
        )
        .unwrap();
        assert_eq!(t.f32s().unwrap(), &[3.0, 4.5, 7.5, 9.0]);
    }
}
