//! ResizeBilinear with TF's CPU interpolation weights (legacy or half-pixel sampling, optional
//! corner alignment); any numeric input, float32 output.

use crate::kernels::nn::simd::{load_at, store_at, F4};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, resource_exhausted, Result};
use crate::tensor::{try_with_capacity, DType, Shape, Tensor, MAX_TENSOR_BYTES};
use core::ops::{Add, Mul, Sub};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("ResizeBilinear", Simple(resize_bilinear))
            .input("images", "T")
            .fixed_input("size", DType::Int32)
            .type_attr("T", crate::kernels::num::WITH_U8)
            .bool_attr("align_corners", false)
            .bool_attr("half_pixel_centers", false),
    );
}

/// Source position of one output coordinate: neighbours and the weight of the upper one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Lerp {
    pub lower: usize,
    pub upper: usize,
    pub frac: f32,
}

/// TF's `CalculateResizeScale`.
pub(super) fn resize_scale(input: usize, output: usize, align_corners: bool) -> f32 {
    if align_corners && output > 1 {
        (input - 1) as f32 / (output - 1) as f32
    } else {
        input as f32 / output as f32
    }
}

/// TF's `compute_interpolation_weights` with the half-pixel or legacy scaler; ResourceExhausted
/// rather than an abort when `output` entries cannot be allocated.
pub(super) fn weights(
    input: usize,
    output: usize,
    scale: f32,
    half_pixel: bool,
) -> Result<Vec<Lerp>> {
    let last = input.saturating_sub(1) as i64;
    let mut v = Vec::new();
    if output.saturating_mul(std::mem::size_of::<Lerp>()) > MAX_TENSOR_BYTES
        || v.try_reserve_exact(output).is_err()
    {
        return Err(resource_exhausted(format!(
            "ResizeBilinear: cannot allocate interpolation weights for an output size of {output}"
        )));
    }
    v.extend((0..output).map(|i| {
        let src = if half_pixel {
            (i as f32 + 0.5) * scale - 0.5
        } else {
            i as f32 * scale
        };
        let fl = src.floor();
        Lerp {
            lower: (fl as i64).clamp(0, last) as usize,
            upper: (src.ceil() as i64).clamp(0, last) as usize,
            frac: src - fl,
        }
    }));
    Ok(v)
}

/// The checked arguments of a resize op (TF's `ImageResizerState`, shared by ResizeBilinear and
/// ResizeNearestNeighbor): the NHWC input dims, the output size and the two sampling flags.
pub(super) struct ResizeArgs {
    pub dims: [usize; 4],
    pub out: (usize, usize),
    pub align: bool,
    pub half: bool,
}

/// Reads and checks a resize op's attrs, `images` and `size` as TF's CPU kernels do.
pub(super) fn resize_args(a: &NodeAttrs, images: &Tensor, size: &Tensor) -> Result<ResizeArgs> {
    let (align, half) = (a.bool("align_corners")?, a.bool("half_pixel_centers")?);
    if images.rank() != 4 {
        return Err(invalid_argument(format!(
            "input must be 4-dimensional, got shape {}",
            images.shape()
        )));
    }
    if size.rank() != 1 {
        return Err(invalid_argument(format!(
            "shape_t must be 1-dimensional, got shape {}",
            size.shape()
        )));
    }
    let sz = size.as_slice::<i32>()?;
    if sz.len() != 2 {
        return Err(invalid_argument(format!(
            "shape_t must have two elements, got {}",
            sz.len()
        )));
    }
    if half && align {
        return Err(invalid_argument(
            "If half_pixel_centers is True, align_corners must be False.",
        ));
    }
    let d = images.dims();
    let dims = [d[0], d[1], d[2], d[3]];
    if sz[0] <= 0 || sz[1] <= 0 {
        return Err(invalid_argument(format!(
            "output dimensions must be positive, got {sz:?}"
        )));
    }
    if dims[1] == 0 || dims[2] == 0 {
        return Err(invalid_argument(format!(
            "input image must be of non-zero size, got shape {}",
            images.shape()
        )));
    }
    Ok(ResizeArgs {
        dims,
        out: (sz[0] as usize, sz[1] as usize),
        align,
        half,
    })
}

fn resize_bilinear(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let images = &i[0];
    let ResizeArgs {
        dims: [n, h, w, c],
        out: (oh, ow),
        align,
        half,
    } = resize_args(a, images, &i[1])?;
    let shape = Shape::new(vec![n, oh, ow, c])?;
    if shape.num_elements() == 0 {
        return Ok(crate::ops::one_output(Tensor::from_vec(
            shape,
            Vec::<f32>::new(),
        )?));
    }
    // Integer input as f32 once: TF casts every sample to float before interpolating (float32
    // input is aliased, not copied).
    let images = crate::kernels::math::cast_tensor(images, DType::Float32)?;
    let xs = images.f32s()?;
    // The output first: its 2 GiB check comes before the weight tables are sized from it (one
    // entry per output row and column).
    let mut out = try_with_capacity::<f32>(shape.num_elements())?;
    let ys = weights(h, oh, resize_scale(h, oh, align), half)?;
    let xw = weights(w, ow, resize_scale(w, ow, align), half)?;
    if c < 4 {
        narrow(xs, [n, h, w, c], &ys, &xw, &mut out)?;
    } else {
        wide(xs, [n, h, w, c], &ys, &xw, &mut out)?;
    }
    Ok(crate::ops::one_output(Tensor::from_vec(shape, out)?))
}

fn out_of_range() -> crate::status::Status {
    // The message copied inline (a `String`, not a `&str`): with the copy out of line, LLVM
    // compiled the narrow per-pixel loop 1.5x slower.
    invalid_argument(String::from("ResizeBilinear index out of range"))
}

/// TF's interpolation step, for one value or four lanes.
#[inline(always)]
fn lerp<T>(a: T, b: T, t: T) -> T
where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T>,
{
    a + (b - a) * t
}

/// Calls `pixel(top, bottom, y, x)` for every output pixel in order (batch, row, column), with
/// the two source rows of the output row sliced once per row: no divisions or index arithmetic
/// per pixel beyond the column offsets.
fn for_each_pixel(
    xs: &[f32],
    [n, h, w, c]: [usize; 4],
    ys: &[Lerp],
    xw: &[Lerp],
    mut pixel: impl FnMut(&[f32], &[f32], &Lerp, &Lerp) -> Result<()>,
) -> Result<()> {
    let row_len = w * c;
    for b in 0..n {
        let row = |iy: usize| {
            let s = (b * h + iy) * row_len;
            xs.get(s..s + row_len).ok_or_else(out_of_range)
        };
        for y in ys {
            let (top, bottom) = (row(y.lower)?, row(y.upper)?);
            for x in xw {
                pixel(top, bottom, y, x)?;
            }
        }
    }
    Ok(())
}

/// 4+ channels: each pixel a loop over its channels, vectorized, appended to `out` (which has the
/// capacity): no zeroing pass over the (often large) output.
fn wide(xs: &[f32], dims: [usize; 4], ys: &[Lerp], xw: &[Lerp], out: &mut Vec<f32>) -> Result<()> {
    let c = dims[3];
    for_each_pixel(xs, dims, ys, xw, |top, bottom, y, x| {
        let (lo, hi) = (x.lower * c, x.upper * c);
        let (Some(tl), Some(tr), Some(bl), Some(br)) = (
            top.get(lo..lo + c),
            top.get(hi..hi + c),
            bottom.get(lo..lo + c),
            bottom.get(hi..hi + c),
        ) else {
            return Err(out_of_range());
        };
        // Zipped, not indexed: no bounds checks, so the channel loop vectorizes.
        let corners = tl.iter().zip(tr).zip(bl.iter().zip(br));
        out.extend(corners.map(|((&tl, &tr), (&bl, &br))| {
            lerp(lerp(tl, tr, x.frac), lerp(bl, br, x.frac), y.frac)
        }));
        Ok(())
    })
}

/// Images of 1-3 channels (camera frames, masks), where a channel loop per pixel is mostly
/// overhead: each pixel is one 4-lane computation over its channels and whatever follows them,
/// stored in place, the extra lanes overwritten by the next pixel. Pixels whose 4 lanes would
/// run past a row or the output take the scalar loop. `out` (empty, with the output's capacity)
/// is zero-filled first, as the stores go in place.
fn narrow(
    xs: &[f32],
    dims: [usize; 4],
    ys: &[Lerp],
    xw: &[Lerp],
    out: &mut Vec<f32>,
) -> Result<()> {
    let [n, _, _, c] = dims;
    out.resize(n * ys.len() * xw.len() * c, 0.0);
    let mut p = 0;
    for_each_pixel(xs, dims, ys, xw, |top, bottom, y, x| {
        let (lo, hi) = (x.lower * c, x.upper * c);
        let vector = match (
            load_at(top, lo),
            load_at(top, hi),
            load_at(bottom, lo),
            load_at(bottom, hi),
        ) {
            (Some(tl), Some(tr), Some(bl), Some(br)) => {
                let (fx, fy) = (F4::splat(x.frac), F4::splat(y.frac));
                store_at(out, p, lerp(lerp(tl, tr, fx), lerp(bl, br, fx), fy))
            }
            _ => false,
        };
        if !vector {
            for ch in 0..c {
                let at = |s: &[f32], i: usize| s.get(i + ch).copied().ok_or_else(out_of_range);
                let v = lerp(
                    lerp(at(top, lo)?, at(top, hi)?, x.frac),
                    lerp(at(bottom, lo)?, at(bottom, hi)?, x.frac),
                    y.frac,
                );
                *out.get_mut(p + ch).ok_or_else(out_of_range)? = v;
            }
        }
        p += c;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_pixel_weights() {
        // 2 -> 4 with half-pixel centers: sources -0.25, 0.25, 0.75, 1.25.
        let w = weights(2, 4, resize_scale(2, 4, false), true).unwrap();
        assert_eq!((w[0].lower, w[0].upper, w[0].frac), (0, 0, 0.75));
        assert_eq!((w[1].lower, w[1].upper, w[1].frac), (0, 1, 0.25));
        assert_eq!((w[3].lower, w[3].upper), (1, 1));
        let w = weights(3, 5, resize_scale(3, 5, true), false).unwrap();
        assert_eq!((w[4].lower, w[4].upper, w[4].frac), (2, 2, 0.0));
    }
}
