//! Conv2DBackpropInput (the transposed convolution of Keras' Conv2DTranspose), NHWC: per image,
//! a GEMM of out_backprop by the transposed filter gives every patch's contribution, which col2im
//! adds into the input-shaped output. Strided, dilated and SAME/VALID/EXPLICIT padded.

use super::conv::Conv2dParams;
use super::gemm::{sgemm, weight_ref, MatRef};
use super::window::{dims4, windowed_output, Padding};
use crate::ops::def::FLOAT;
use crate::ops::{Kernel, KernelContext, KernelFactory::Prepared};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_alloc, DType, Shape, Tensor};

/// Column-buffer budget per GEMM strip, in floats (1 MiB).
const STRIP_FLOATS: usize = 1 << 18;

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Conv2DBackpropInput", Prepared(prepare))
            .fixed_input("input_sizes", DType::Int32)
            .input("filter", "T")
            .input("out_backprop", "T")
            .type_attr("T", FLOAT)
            .ints_attr("strides", None)
            .bool_attr("use_cudnn_on_gpu", true)
            .enum_attr("padding", &["SAME", "VALID", "EXPLICIT"], None)
            .ints_attr("explicit_paddings", Some(&[]))
            .enum_attr("data_format", &["NHWC", "NCHW"], Some("NHWC"))
            .ints_attr("dilations", Some(&[1, 1, 1, 1])),
    );
}

struct BackpropInput(Conv2dParams);

fn prepare(a: &NodeAttrs) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(BackpropInput(Conv2dParams::from_attrs(
        a, true, true,
    )?)))
}

impl Kernel for BackpropInput {
    fn compute(&self, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
        Ok(crate::ops::one_output(conv2d_backprop_input(
            &i[0], &i[1], &i[2], &self.0,
        )?))
    }
}

const OP: &str = "Conv2DBackpropInput";

pub fn conv2d_backprop_input(
    sizes: &Tensor,
    filter: &Tensor,
    dy: &Tensor,
    p: &Conv2dParams,
) -> Result<Tensor> {
    if sizes.rank() != 1 {
        return Err(invalid_argument(format!(
            "{OP}: input_sizes input must be 1-dim, not {}",
            sizes.rank()
        )));
    }
    let [kh, kw, fci, co] = dims4(OP, "filter", filter.dims())?;
    let [n, oh, ow, dco] = dims4(OP, "out_backprop", dy.dims())?;
    let s = sizes.as_slice::<i32>()?;
    let dims: [i32; 4] = match *s {
        [a, b, c, d] => [a, b, c, d],
        // Spatial sizes only: batch from out_backprop, depth from the filter.
        [h, w] => [n as i32, h, w, fci as i32],
        _ => {
            return Err(invalid_argument(format!(
                "{OP}: input_sizes must have 4 or 2 elements, got {}",
                s.len()
            )))
        }
    };
    if dims.iter().any(|&d| d < 0) {
        return Err(invalid_argument(format!(
            "{OP}: input_sizes must be non-negative, got {dims:?}"
        )));
    }
    let [ib, h, w, ci] = dims.map(|d| d as usize);
    if ib != n {
        return Err(invalid_argument(format!(
            "{OP}: input and out_backprop must have the same batch size, input batch: {ib} \
             outbackprop batch: {n}"
        )));
    }
    if ci != fci {
        return Err(invalid_argument(format!(
            "{OP}: input depth must be equal to filter depth: {ci} vs {fci}"
        )));
    }
    if dco != co {
        return Err(invalid_argument(format!(
            "{OP}: filter and out_backprop must have the same out_depth: {co} vs {dco}"
        )));
    }
    let explicit = |k: usize| match p.padding {
        Padding::Explicit(e) => e[k],
        _ => (0, 0),
    };
    let mut geo = [(0usize, 0usize); 2];
    for (k, (inp, win, got)) in [(h, kh, oh), (w, kw, ow)].into_iter().enumerate() {
        let (st, dil) = if k == 0 {
            (p.strides.0, p.dilations.0)
        } else {
            (p.strides.1, p.dilations.1)
        };
        let d = windowed_output(inp, win, st, dil, p.padding, explicit(k))?;
        if d.output != got {
            return Err(invalid_argument(format!(
                "{OP}: Size of out_backprop doesn't match computed: actual = {got}, computed = {} \
                 spatial_dim: {} input: {inp} filter: {win} output: {got} stride: {st} dilation: \
                 {dil}",
                d.output,
                k + 1
            )));
        }
        geo[k] = (d.pad_before, st);
    }
    let shape = Shape::new(vec![n, h, w, ci])?;
    let mut out = try_alloc::<f32>(shape.num_elements())?;
    // Checked: with co = 0 the filter holds nothing, whatever its other dims say.
    let k = kh
        .checked_mul(kw)
        .and_then(|v| v.checked_mul(ci))
        .ok_or_else(|| invalid_argument(format!("{OP}: filter too large")))?;
    let m = oh * ow;
    if out.is_empty() || m == 0 || k == 0 || co == 0 {
        return Tensor::from_vec(shape, out);
    }
    let g = dy.f32s()?;
    // B = filter^T: [co, kh*kw*ci] read from the HWIO filter ([kh*kw*ci, co] row-major).
    let b = weight_ref(filter, co, k, true, m)?;
    let strip = (STRIP_FLOATS / k).clamp(1, m);
    let mut col = try_alloc::<f32>(strip * k)?;
    let ((pt, sh), (pl, sw)) = (geo[0], geo[1]);
    let (dh, dw) = p.dilations;
    for img in 0..n {
        let dst = &mut out[img * h * w * ci..(img + 1) * h * w * ci];
        for r0 in (0..m).step_by(strip) {
            let rows = strip.min(m - r0);
            let src = &g[(img * m + r0) * co..(img * m + r0 + rows) * co];
            let c = &mut col[..rows * k];
            sgemm(MatRef::new(src, rows, co, false)?, b, c, &mut |_, _, _| {})?;
            for r in 0..rows {
                let (y, x) = ((r0 + r) / ow, (r0 + r) % ow);
                for ky in 0..kh {
                    let iy = (y * sh + ky * dh) as isize - pt as isize;
                    if iy < 0 || iy as usize >= h {
                        continue;
                    }
                    for kx in 0..kw {
                        let ix = (x * sw + kx * dw) as isize - pl as isize;
                        if ix < 0 || ix as usize >= w {
                            continue;
                        }
                        let o = (iy as usize * w + ix as usize) * ci;
                        let from = r * k + (ky * kw + kx) * ci;
                        for (d, &v) in dst[o..o + ci].iter_mut().zip(&c[from..from + ci]) {
                            *d += v;
                        }
                    }
                }
            }
        }
    }
    Tensor::from_vec(shape, out)
}
