//! Conv2D on thin inputs (the RGB stem of image models) without im2col. For each output row, the
//! kh input rows its windows read are interleaved column by column (`col[ix][ky][c]`, zeros in the
//! padding), so that every output pixel's receptive field is one contiguous run of kw columns, in
//! (kx, ky, c) order; the filter is packed in that order. Each MR x NR tile is then a single
//! unbroken product over the whole depth. im2col instead copies each input value kh*kw/stride^2
//! times, one short run per kernel row, which costs as much as the product when the depth is 3.

use super::epilogue::RowEpilogue;
use super::gemm::{block_rows, store_tile, tile_acc, whole_panels, MatRef, MR, NR, PAR_MIN_WORK};
use super::simd::F4;
use super::window::Dim1;
use crate::parallel;
use crate::status::{internal, Result};
use crate::tensor::try_alloc;

/// Deepest input this path takes (measured in Node against im2col + GEMM).
pub const THIN_DEPTH: usize = 4;

/// Appends to the empty `out` the NHWC convolution of `xs` (`n x h x w x ci`, ci <= 4) by the
/// HWIO `filter` (`kh x kw x ci x co`), undilated along x, with the epilogue applied.
pub fn conv_thin(
    xs: &[f32],
    filter: &[f32],
    [n, h, w, ci]: [usize; 4],
    [kh, kw, co]: [usize; 3],
    [dy, dx]: &[Dim1; 2],
    out: &mut Vec<f32>,
    epi: &RowEpilogue<'_>,
) -> Result<()> {
    let bad = || internal("conv_thin: index out of range");
    let (oh, ow, k, col) = (dy.output, dx.output, kh * kw * ci, kh * ci);
    let m = n * oh * ow;
    if !(1..=4).contains(&ci) || dx.dilation != 1 || filter.len() != k * co || !out.is_empty() {
        return Err(internal("conv_thin: operand shapes disagree"));
    }
    if m == 0 || co == 0 {
        return Ok(());
    }
    if k == 0 {
        return Err(internal("conv_thin: empty window"));
    }
    // The filter with its rows in (kx, ky, c) order, packed.
    let mut perm = try_alloc::<f32>(k * co)?;
    for (p, dst) in perm.chunks_exact_mut(ci * co).enumerate() {
        let (kx, ky) = (p / kh, p % kh);
        let at = (ky * kw + kx) * ci * co;
        dst.copy_from_slice(filter.get(at..at + ci * co).ok_or_else(bad)?);
    }
    let panels = whole_panels(&MatRef::new(&perm, k, co, false)?)?.into_owned();
    drop(perm);
    // Columns of the padded input the windows of one output row span; 4 floats of slack for the
    // 4-lane stores below.
    let wp = (ow - 1) * dx.stride + kw;
    // A row of zeros stands in for input rows in the padding.
    let zeros = try_alloc::<f32>(w * ci)?;
    let (left, right) = (dx.pad_before.min(wp), (dx.pad_before + w).min(wp));
    let scatter = match ci {
        1 => scatter::<1>,
        2 => scatter::<2>,
        3 => scatter::<3>,
        _ => scatter::<4>,
    };
    let row_len = dx.output * co;
    let fast = epi.fast;
    // Output rows are independent: with threads, blocks of them are tasks, each with its own
    // column buffer.
    let rows_total = n * oh;
    let work = (m * co).saturating_mul(k);
    let per_task = parallel::items_per_task(rows_total, work, PAR_MIN_WORK);
    let spare = out.spare_capacity_mut().get_mut(..m * co).ok_or_else(bad)?;
    parallel::for_each_chunk_mut(spare, per_task * row_len, |t, part| {
        let mut cols = try_alloc::<f32>(wp * col + 4)?;
        // The kernel rows' input rows.
        let mut srcs: Vec<&[f32]> = vec![&[]; kh];
        for (i, c) in part.chunks_exact_mut(row_len).enumerate() {
            let (bi, oy) = ((t * per_task + i) / oh, (t * per_task + i) % oh);
            for (ky, src) in srcs.iter_mut().enumerate() {
                let iy = (oy * dy.stride + ky * dy.dilation).checked_sub(dy.pad_before);
                let at = iy.filter(|&iy| iy < h).map(|iy| (bi * h + iy) * w * ci);
                *src = match at {
                    Some(at) => xs.get(at..at + w * ci).ok_or_else(bad)?,
                    None => &zeros,
                };
            }
            cols[..left * col].fill(0.0);
            cols[right * col..].fill(0.0);
            for (ky, src) in srcs.iter().enumerate() {
                let span = cols
                    .get_mut(left * col + ky * ci..right * col)
                    .unwrap_or(&mut []);
                scatter(span, col, src);
            }
            // Covering argument for the set_len below: ox steps over the row's pixels in MR-pixel
            // tiles, jp over every NR-channel panel, and `store_tile` writes each tile whole or
            // fails; the tasks' rows cover all `m` pixels.
            for ox in (0..ow).step_by(MR) {
                let mr = MR.min(ow - ox);
                // Tail pixels repeat the last one (computed, never stored).
                let mut rows: [&[f32]; MR] = [&[]; MR];
                for (r, a) in rows.iter_mut().enumerate() {
                    let at = (ox + r.min(mr - 1)) * dx.stride * col;
                    *a = cols.get(at..at + k).ok_or_else(bad)?;
                }
                let mut px = block_rows(c, co, (ox, mr))?;
                for jp in 0..co.div_ceil(NR) {
                    let panel = panels.get(jp * k * NR..(jp + 1) * k * NR).ok_or_else(bad)?;
                    let acc = tile_acc([[F4::splat(0.0); 2]; MR], &rows, panel);
                    let nr = NR.min(co - jp * NR);
                    store_tile(&mut px, mr, (jp * NR, nr), acc, &fast)?;
                }
            }
        }
        Ok(())
    })?;
    // SAFETY: every task returned Ok, so every one of the `m * co` elements of `spare`, the first
    // slots of the empty `out`'s spare capacity, was written (covering argument above).
    unsafe { out.set_len(m * co) };
    // The rest of the epilogue reads tensors, which stay on this thread.
    epi.apply_rest(out, co, 0);
    Ok(())
}

/// `dst[p * stride..][..C] = src[p * C..][..C]` for every pixel p of `src` (fixed-size moves: a
/// variable-length copy is an out-of-line call in V8).
fn scatter<const C: usize>(dst: &mut [f32], stride: usize, src: &[f32]) {
    for (d, s) in dst.chunks_mut(stride).zip(src.chunks_exact(C)) {
        if let (Some(d), Ok(s)) = (d.get_mut(..C), <&[f32; C]>::try_from(s)) {
            d.copy_from_slice(s);
        }
    }
}
