//! Convolution gradients other than Conv2DBackpropInput (conv_transpose.rs): Conv2DBackpropFilter,
//! DepthwiseConv2dNativeBackpropInput / Filter and Conv3DBackpropInputV2 / FilterV2, NHWC/NDHWC.
//! One direct loop serves them all: each output cell's gradient meets every window tap inside the
//! input, and input channel `ci` meets its output channels (all of them, or its own `multiplier`
//! ones for depthwise) through filter row (tap, ci). Compact over fast: these are training-only ops.

use super::conv::Conv2dParams;
use super::volume::{padding, spatial3, Win3};
use super::window::{padding_attrs, require_channels_last_grad, spatial_pair, windowed_2d};
use crate::ops::def::{FLOAT, INDEX};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_alloc, DType, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    let sizes = |b: OpBuilder, filter_grad: bool, ty: Option<&'static str>| {
        let sized = |b: OpBuilder, name| match ty {
            Some(t) => b.input(name, t),
            None => b.fixed_input(name, DType::Int32),
        };
        let b = if filter_grad {
            sized(b.input("input", "T"), "filter_sizes")
        } else {
            sized(b, "input_sizes").input("filter", "T")
        };
        b.input("out_backprop", "T")
            .type_attr("T", FLOAT)
            .ints_attr("strides", None)
    };
    for (name, filter_grad) in [
        ("Conv2DBackpropFilter", true),
        ("DepthwiseConv2dNativeBackpropInput", false),
        ("DepthwiseConv2dNativeBackpropFilter", true),
    ] {
        let b = sizes(OpBuilder::new(name, Simple(conv_grad)), filter_grad, None);
        let b = if name.starts_with("Conv") {
            b.bool_attr("use_cudnn_on_gpu", true)
        } else {
            b
        };
        reg.add(
            b.with(|b| padding_attrs(b, &["NHWC", "NCHW"]))
                .ints_attr("dilations", Some(&[1, 1, 1, 1])),
        );
    }
    for (name, filter_grad) in [
        ("Conv3DBackpropInputV2", false),
        ("Conv3DBackpropFilterV2", true),
    ] {
        let shape_ty = (!filter_grad).then_some("Tshape");
        let b = sizes(
            OpBuilder::new(name, Simple(conv_grad)),
            filter_grad,
            shape_ty,
        )
        .enum_attr("padding", &["SAME", "VALID"], None)
        .enum_attr("data_format", &["NDHWC", "NCDHW"], Some("NDHWC"))
        .ints_attr("dilations", Some(&[1, 1, 1, 1, 1]));
        reg.add(if filter_grad {
            b
        } else {
            b.type_attr_default("Tshape", INDEX, DType::Int32)
        });
    }
}

/// A shape given as a 1-D int tensor (input_sizes, filter_sizes) of `rank` non-negative values.
fn size_input(op: &str, what: &str, t: &Tensor, rank: usize) -> Result<Shape> {
    if t.rank() != 1 {
        return Err(invalid_argument(format!(
            "{op}: {what} input must be 1-dim, not {}",
            t.rank()
        )));
    }
    let v = t.to_i64_vec()?;
    if v.len() != rank {
        return Err(invalid_argument(format!(
            "{op}: {what} must have {rank} elements, got {v:?}"
        )));
    }
    Shape::from_i64(&v)
}

/// (first dim, spatial dims with a leading 1 for 2-D, last dim) of a rank-4 or rank-5 shape.
fn split(d: &[usize]) -> (usize, [usize; 3], usize) {
    let sp = &d[1..d.len() - 1];
    let mut s = [1; 3];
    s[3 - sp.len()..].copy_from_slice(sp);
    (d[0], s, d[d.len() - 1])
}

fn conv_grad(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let op = a.op();
    let depthwise = op.starts_with("Depthwise");
    let d3 = op.starts_with("Conv3D");
    let filter_grad = op.contains("Filter");
    let rank = if d3 { 5 } else { 4 };
    if !depthwise {
        // (Depthwise: Conv2dParams' Unimplemented, as TF's CPU kernel.)
        require_channels_last_grad(a)?;
    }
    let (strides, dil, pad) = if d3 {
        let dil = spatial3(a, "dilations", true)?;
        if dil != [1, 1, 1] {
            // As TF's CPU kernel and the forward Conv3D here.
            return Err(invalid_argument(format!(
                "{op}: Current CPU implementation does not yet support dilation rates larger than 1."
            )));
        }
        (spatial3(a, "strides", true)?, dil, padding(a)?)
    } else {
        if !depthwise {
            // TF's class here is InvalidArgument (Conv2dParams' Conv2D rule: Unimplemented).
            spatial_pair(a, "strides", false)?;
            spatial_pair(a, "dilations", false)?;
        }
        let p = Conv2dParams::from_attrs(a, true, !depthwise)?;
        let ((sh, sw), (dh, dw)) = (p.strides, p.dilations);
        ([1, sh, sw], [1, dh, dw], p.padding)
    };
    let (what, sized) = if filter_grad {
        ("filter_sizes", 1)
    } else {
        ("input_sizes", 0)
    };
    let given = size_input(op, what, &i[sized], rank)?;
    for (k, name) in [
        (1 - sized, ["input", "filter"][1 - sized]),
        (2, "out_backprop"),
    ] {
        if i[k].rank() != rank {
            return Err(invalid_argument(format!(
                "{op}: {name} must be {rank}-dimensional, got shape {}",
                i[k].shape()
            )));
        }
    }
    let (x_dims, f_dims) = if filter_grad {
        (i[0].dims(), given.dims())
    } else {
        (given.dims(), i[1].dims())
    };
    let (n, input, c) = split(x_dims);
    let (fc, fo) = (f_dims[rank - 2], f_dims[rank - 1]);
    let mut window = [1; 3];
    window[5 - rank..].copy_from_slice(&f_dims[..rank - 2]);
    let (dn, got, co) = split(i[2].dims());
    if n != dn {
        return Err(invalid_argument(format!(
            "{op}: input and out_backprop must have the same batch size, input batch: {n} \
             outbackprop batch: {dn}"
        )));
    }
    if c != fc {
        return Err(invalid_argument(format!(
            "{op}: input depth must be equal to filter depth: {c} vs {fc}"
        )));
    }
    let want_co = if depthwise {
        c.checked_mul(fo)
    } else {
        Some(fo)
    };
    if want_co != Some(co) {
        return Err(invalid_argument(format!(
            "{op}: out_backprop depth {co} does not match the filter's output depth"
        )));
    }
    let win = if d3 {
        Win3::new(input, window, strides, dil, pad)?
    } else {
        let d = windowed_2d(
            (input[1], input[2]),
            (window[1], window[2]),
            (strides[1], strides[2]),
            (dil[1], dil[2]),
            pad,
        )?;
        Win3::from_2d(&d)
    };
    if win.out != got {
        return Err(invalid_argument(format!(
            "{op}: Size of out_backprop doesn't match computed: actual = {got:?}, computed = {:?}",
            win.out
        )));
    }
    let shape = Shape::new(if filter_grad { f_dims } else { x_dims }.to_vec())?;
    let mut out = try_alloc::<f32>(shape.num_elements())?;
    let src = i[1 - sized].f32s()?;
    accumulate(
        &win,
        [n, c, fo, co],
        depthwise,
        filter_grad,
        src,
        i[2].f32s()?,
        &mut out,
    );
    Ok(crate::ops::one_output(Tensor::from_vec(shape, out)?))
}

/// The shared loop. `src` is the input (filter gradient, into `out` shaped as the filter) or the
/// filter (input gradient, into `out` shaped as the input); `g` is out_backprop. Shapes checked.
fn accumulate(
    w: &Win3,
    [n, c, fo, co]: [usize; 4],
    depthwise: bool,
    filter_grad: bool,
    src: &[f32],
    g: &[f32],
    out: &mut [f32],
) {
    if c == 0 || fo == 0 || out.is_empty() {
        return;
    }
    let (m, vol) = (w.cells(), w.input.iter().product::<usize>() * c);
    for img in 0..n {
        for q in 0..m {
            let gy = &g[(img * m + q) * co..][..co];
            w.taps(w.position(q), c, |t, at| {
                let at = img * vol + at;
                for ci in 0..c {
                    let gs = &gy[if depthwise { ci * fo } else { 0 }..][..fo];
                    let f = (t * c + ci) * fo;
                    if filter_grad {
                        let xv = src[at + ci];
                        for (d, &v) in out[f..f + fo].iter_mut().zip(gs) {
                            *d += xv * v;
                        }
                    } else {
                        let dot = src[f..f + fo].iter().zip(gs).map(|(&p, &q)| p * q);
                        out[at + ci] += dot.sum::<f32>();
                    }
                }
            });
        }
    }
}
