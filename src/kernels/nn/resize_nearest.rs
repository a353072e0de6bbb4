//! ResizeNearestNeighbor with TF's CPU source-index rule (legacy or half-pixel scaler, optional
//! corner alignment, which rounds instead of flooring); any dtype, moved as pixel runs.

use super::resize::{resize_args, resize_scale, ResizeArgs};
use crate::kernels::array::assemble::assemble;
use crate::ops::def::ANY;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{resource_exhausted, Result};
use crate::tensor::{DType, Shape, Tensor, MAX_TENSOR_BYTES};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("ResizeNearestNeighbor", Simple(resize_nearest))
            .input("images", "T")
            .fixed_input("size", DType::Int32)
            .type_attr("T", ANY)
            .bool_attr("align_corners", false)
            .bool_attr("half_pixel_centers", false),
    );
}

/// Source index of every output coordinate along one axis.
pub(super) fn sources(input: usize, output: usize, align: bool, half: bool) -> Result<Vec<usize>> {
    let scale = resize_scale(input, output, align);
    let mut v = Vec::new();
    v.try_reserve_exact(output).map_err(|_| {
        resource_exhausted(format!(
            "ResizeNearestNeighbor: cannot allocate the index table for an output size of {output}"
        ))
    })?;
    v.extend((0..output).map(|o| {
        let s = if half {
            (o as f32 + 0.5) * scale
        } else {
            o as f32 * scale
        };
        let i = if align { s.round() } else { s.floor() } as i64;
        i.clamp(0, input as i64 - 1) as usize
    }));
    Ok(v)
}

fn resize_nearest(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let images = &i[0];
    let ResizeArgs {
        dims: [n, h, w, c],
        out: (oh, ow),
        align,
        half,
    } = resize_args(a, images, &i[1])?;
    let shape = Shape::new(vec![n, oh, ow, c])?;
    if shape.num_elements() == 0 {
        return Ok(crate::ops::one_output(assemble(
            &[],
            images.dtype(),
            shape,
            &mut |_| {},
        )?));
    }
    if shape
        .num_elements()
        .saturating_mul(images.dtype().size_of())
        > MAX_TENSOR_BYTES
    {
        return Err(resource_exhausted(format!(
            "ResizeNearestNeighbor: output {shape} is over the 2 GiB limit for one tensor"
        )));
    }
    let (ys, xs) = (sources(h, oh, align, half)?, sources(w, ow, align, half)?);
    Ok(crate::ops::one_output(assemble(
        &[images],
        images.dtype(),
        shape,
        &mut |emit| {
            for b in 0..n {
                for &y in &ys {
                    for &x in &xs {
                        emit(0, ((b * h + y) * w + x) * c, c, 1);
                    }
                }
            }
        },
    )?))
}
