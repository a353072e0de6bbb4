//! ResizeBilinearGrad and ResizeNearestNeighborGrad as TF's CPU kernels compute them: each
//! gradient pixel is added back to the source pixels the forward resize read, found with the
//! forward ops' own coordinate mapping (`resize::weights`, `resize_nearest::sources`).

use super::resize::{resize_scale, weights};
use super::resize_nearest::sources;
use super::window::dims4;
use crate::kernels::num::{narrow, widen, Num};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_alloc, DType, Shape, Tensor};

type Outputs = Result<Vec<Tensor>>;

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("ResizeBilinearGrad", Simple(bilinear_grad))
            .fixed_input("grads", DType::Float32)
            .input("original_image", "T")
            .type_attr("T", crate::ops::def::FLOAT)
            .bool_attr("align_corners", false)
            .bool_attr("half_pixel_centers", false),
    );
    reg.add(
        OpBuilder::new("ResizeNearestNeighborGrad", Simple(nearest_grad))
            .input("grads", "T")
            .fixed_input("size", DType::Int32)
            .type_attr("T", &[DType::Float32, DType::Int32, DType::UInt8])
            .bool_attr("align_corners", false)
            .bool_attr("half_pixel_centers", false),
    );
}

fn bilinear_grad(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (g, original) = (&i[0], &i[1]);
    let (align, half) = (a.bool("align_corners")?, a.bool("half_pixel_centers")?);
    // TF's ImageResizerGradientState, in its order.
    if half && align {
        return Err(invalid_argument(
            "If half_pixel_centers is True, align_corners must be False.",
        ));
    }
    let [n, rh, rw, c] = dims4("ResizeBilinearGrad", "input_grad", g.dims())?;
    if rh == 0 || rw == 0 {
        return Err(invalid_argument("resized dimensions must be positive"));
    }
    let [_, h, w, _] = dims4("ResizeBilinearGrad", "original_image", original.dims())?;
    if h == 0 || w == 0 {
        return Err(invalid_argument("original dimensions must be positive"));
    }
    if h > i32::MAX as usize || w > i32::MAX as usize {
        return Err(invalid_argument(
            "original sizes must be between 0 and max int32",
        ));
    }
    // Batch and depth are the gradient's, as in TF.
    let shape = Shape::new(vec![n, h, w, c])?;
    let mut out = try_alloc::<f32>(shape.num_elements())?;
    if g.num_elements() == 0 {
        // No batch or depth: no weight tables (sized by the gradient's possibly huge rows).
        return Ok(crate::ops::one_output(Tensor::from_vec(shape, out)?));
    }
    let ys = weights(h, rh, resize_scale(h, rh, align), half)?;
    let xs = weights(w, rw, resize_scale(w, rw, align), half)?;
    let gv = g.f32s()?;
    let mut p = 0;
    for b in 0..n {
        for y in &ys {
            for x in &xs {
                let (iy, ix) = (1.0 - y.frac, 1.0 - x.frac);
                // TF's order per element: top-left, top-right, bottom-left, bottom-right.
                for (r, col, wy, wx) in [
                    (y.lower, x.lower, iy, ix),
                    (y.lower, x.upper, iy, x.frac),
                    (y.upper, x.lower, y.frac, ix),
                    (y.upper, x.upper, y.frac, x.frac),
                ] {
                    let o = ((b * h + r) * w + col) * c;
                    add_weighted(&mut out[o..o + c], &gv[p..p + c], wy, wx);
                }
                p += c;
            }
        }
    }
    Ok(crate::ops::one_output(Tensor::from_vec(shape, out)?))
}

/// `dst += src * wy * wx`, in TF's operation order. Out of line: one copy, not four unrolled.
#[inline(never)]
fn add_weighted(dst: &mut [f32], src: &[f32], wy: f32, wx: f32) {
    for (d, &v) in dst.iter_mut().zip(src) {
        *d += v * wy * wx;
    }
}

fn nearest_grad(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (g, size) = (&i[0], &i[1]);
    let (align, half) = (a.bool("align_corners")?, a.bool("half_pixel_centers")?);
    let [n, ih, iw, c] = dims4("ResizeNearestNeighborGrad", "input", g.dims())?;
    if size.rank() != 1 || size.num_elements() != 2 {
        return Err(invalid_argument(format!(
            "shape_t must be 1-dimensional with two elements, got shape {}",
            size.shape()
        )));
    }
    let sz = size.as_slice::<i32>()?;
    if sz[0] <= 0 || sz[1] <= 0 {
        return Err(invalid_argument("shape_t's elements must be positive"));
    }
    let (oh, ow) = (sz[0] as usize, sz[1] as usize);
    let shape = Shape::new(vec![n, oh, ow, c])?;
    if g.num_elements() == 0 {
        // Zeros, without index tables sized by the gradient's (possibly huge) other dims.
        return Ok(crate::ops::one_output(Tensor::zeros(g.dtype(), shape)?));
    }
    // Gradient row / column -> the source row / column the forward op read there.
    let (ys, xs) = (sources(oh, ih, align, half)?, sources(ow, iw, align, half)?);
    fn run<T: Num>(g: &Tensor, shape: Shape, ys: &[usize], xs: &[usize]) -> Result<Tensor> {
        let (oh, ow, c) = (shape.dims()[1], shape.dims()[2], shape.dims()[3]);
        let gv = g.as_slice::<T>()?;
        let mut out = try_alloc::<T>(shape.num_elements())?;
        let mut p = 0;
        for b in 0..shape.dims()[0] {
            for &y in ys {
                for &x in xs {
                    let o = ((b * oh + y) * ow + x) * c;
                    for (d, &v) in out[o..o + c].iter_mut().zip(&gv[p..p + c]) {
                        *d = d.add(v);
                    }
                    p += c;
                }
            }
        }
        Tensor::from_vec(shape, out)
    }
    let dtype = g.dtype();
    let g = &widen(g)?;
    let out = crate::with_num!(g.dtype(), "ResizeNearestNeighborGrad", T, {
        run::<T>(g, shape, &ys, &xs)
    })?;
    Ok(crate::ops::one_output(narrow(out, dtype)?))
}

// A row count past 32 bits exists only where usize has 64.
#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    use crate::{AttrValue, EagerContext, Tensor};

    /// An empty gradient with a huge row count: zeros at once, no index table of that size.
    #[test]
    fn empty_gradients_with_huge_dims_give_zeros() {
        let mut ctx = EagerContext::default();
        let g = Tensor::from_slice(&[0, 1 << 40, 3, 2], &[] as &[f32]).unwrap();
        let none = Vec::<(&str, AttrValue)>::new();
        let size = Tensor::from_slice(&[2], &[2i32, 2]).unwrap();
        let out = ctx
            .execute(
                "ResizeNearestNeighborGrad",
                &[g.clone(), size],
                none.clone(),
            )
            .unwrap();
        assert_eq!(out[0].dims(), &[0, 2, 2, 2]);
        let orig = Tensor::from_slice(&[1, 2, 2, 2], &[0f32; 8]).unwrap();
        let out = ctx.execute("ResizeBilinearGrad", &[g, orig], none).unwrap();
        assert_eq!(out[0].dims(), &[0, 2, 2, 2]);
    }
}
