//! The forward pass of each layer `Kind`: TF ops through the context (`super::tf`), weights read
//! from their variables, Keras masks carried where Keras carries them.

use super::activation::Act;
use super::bind::W;
use super::kind::{ConvGeom, Kind, MergeOp, Norm, Padding};
use super::rnn;
use super::run::{Run, Val};
use super::tf::{self, binary, mul, reduce, reshape, scalar, unary};
use crate::ops::AttrValue;
use crate::status::{invalid_argument, unimplemented, Result};
use crate::tensor::{DType, Tensor};

fn padding_attr(p: Padding) -> AttrValue {
    AttrValue::Str(if p == Padding::Same {
        b"SAME".to_vec()
    } else {
        b"VALID".to_vec()
    })
}

/// 1-D input `[b, w, c]` as `[b, 1, w, c]`; causal padding applied.
fn to_2d(run: &mut Run, x: &Tensor, g: &ConvGeom) -> Result<Tensor> {
    if g.rank != 1 {
        check_rank(x, g.rank + 2)?;
        return Ok(x.clone());
    }
    check_rank(x, 3)?;
    let mut x = x.clone();
    if g.padding == Padding::Causal {
        let left = g.dilation[2] * (g.kernel[2] - 1);
        x = tf::pad(run.ctx, &x, &[(0, 0), (left, 0), (0, 0)])?;
    }
    tf::expand_dims(run.ctx, &x, 1)
}

fn from_2d(run: &mut Run, y: Tensor, g: &ConvGeom) -> Result<Tensor> {
    if g.rank != 1 {
        Ok(y)
    } else {
        tf::squeeze(run.ctx, &y, 1)
    }
}

/// A rank-1 kernel `[k, in, out]` as `[1, k, in, out]`.
fn kernel_2d(run: &mut Run, w: Tensor, g: &ConvGeom) -> Result<Tensor> {
    if g.rank != 1 {
        return Ok(w);
    }
    let mut d = tf::dims(&w);
    d.insert(0, 1);
    reshape(run.ctx, &w, &d)
}

fn check_rank(x: &Tensor, r: usize) -> Result<()> {
    if x.rank() != r {
        return Err(invalid_argument(format!(
            "expected a rank-{r} input, got shape {:?}",
            x.dims()
        )));
    }
    Ok(())
}

fn conv_attrs(g: &ConvGeom, with_dilation: bool) -> Vec<(&'static str, AttrValue)> {
    let mut a = vec![
        ("strides", AttrValue::ListInt(g.attr(g.strides))),
        ("padding", padding_attr(g.padding)),
    ];
    if with_dilation {
        a.push(("dilations", AttrValue::ListInt(g.attr(g.dilation))));
    }
    a
}

fn finish(run: &mut Run, y: Tensor, bias: Option<W>, act: Act) -> Result<Tensor> {
    let y = match bias {
        Some(b) => {
            let b = run.weight(b)?;
            tf::bias_add(run.ctx, &y, &b)?
        }
        None => y,
    };
    act.apply(run.ctx, y)
}

/// `axis` (possibly negative) of a rank-`rank` tensor, checked.
fn norm_axis(axis: i64, rank: usize) -> Result<usize> {
    crate::tensor::Shape::normalize_axis(axis, rank)
}

/// A parameter over the axes `axes` of a rank-`rank` input, reshaped to broadcast against it.
fn broadcast_param(run: &mut Run, p: Tensor, axes: &[usize], rank: usize) -> Result<Tensor> {
    if axes == [rank - 1] && p.rank() <= 1 {
        return Ok(p);
    }
    let mut shape = vec![1i64; rank];
    let pd = tf::dims(&p);
    if pd.len() != axes.len() {
        return Err(invalid_argument(format!(
            "a parameter of shape {pd:?} does not fit axes {axes:?}"
        )));
    }
    for (&a, &d) in axes.iter().zip(&pd) {
        shape[a] = d;
    }
    reshape(run.ctx, &p, &shape)
}

impl Kind {
    /// Runs the layer on `xs`; returns its outputs (and their masks).
    pub fn call(&self, run: &mut Run, xs: Vec<Val>) -> Result<Vec<Val>> {
        let one = |xs: &[Val]| -> Result<Tensor> {
            match xs {
                [v] => Ok(v.t.clone()),
                _ => Err(invalid_argument(format!(
                    "expected one input, got {}",
                    xs.len()
                ))),
            }
        };
        let mask_in = if xs.len() == 1 {
            xs[0].mask.clone()
        } else {
            None
        };
        // Layers that keep the shape of their input's leading axes keep its mask (Keras's
        // `supports_masking`); the rest drop it.
        let keep = |t: Tensor| -> Vec<Val> {
            vec![Val {
                t,
                mask: mask_in.clone(),
            }]
        };
        let drop = |t: Tensor| -> Vec<Val> { vec![Val { t, mask: None }] };
        Ok(match self {
            Kind::Input | Kind::Identity => xs,
            Kind::Activation(a) => keep(a.apply(run.ctx, one(&xs)?)?),
            Kind::Dense { kernel, bias, act } => {
                let x = one(&xs)?;
                let k = run.weight(*kernel)?;
                let y = if x.rank() == 2 {
                    tf::matmul(run.ctx, &x, &k)?
                } else {
                    // A dot over the last axis: flatten the leading axes, multiply, restore.
                    let mut d = tf::dims(&x);
                    let last = *d
                        .last()
                        .ok_or_else(|| invalid_argument("Dense on a scalar"))?;
                    let flat = reshape(run.ctx, &x, &[-1, last])?;
                    let y = tf::matmul(run.ctx, &flat, &k)?;
                    *d.last_mut().expect("rank >= 1") = k.dims()[1] as i64;
                    reshape(run.ctx, &y, &d)?
                };
                keep(finish(run, y, *bias, *act)?)
            }
            Kind::Conv {
                geom,
                kernel,
                bias,
                act,
            } => {
                let x = to_2d(run, &one(&xs)?, geom)?;
                let k = run.weight(*kernel)?;
                let k = kernel_2d(run, k, geom)?;
                let mut g = ConvGeom { ..*geom };
                if g.padding == Padding::Causal {
                    g.padding = Padding::Valid;
                }
                let name = if g.rank == 3 { "Conv3D" } else { "Conv2D" };
                let y = tf::op(run.ctx, name, &[x, k], conv_attrs(&g, true))?;
                let y = from_2d(run, y, geom)?;
                drop(finish(run, y, *bias, *act)?)
            }
            Kind::ConvTranspose {
                geom,
                kernel,
                bias,
                act,
                filters,
            } => {
                let x = one(&xs)?;
                check_rank(&x, 4)?;
                let d = x.dims();
                let (h, w) = (d[1] as i64, d[2] as i64);
                let sizes = tf::ints(&[
                    d[0] as i64,
                    deconv_len(h, 0, geom)?,
                    deconv_len(w, 1, geom)?,
                    *filters as i64,
                ])?;
                let k = run.weight(*kernel)?;
                let y = tf::op(
                    run.ctx,
                    "Conv2DBackpropInput",
                    &[sizes, k, x],
                    conv_attrs(geom, true),
                )?;
                drop(finish(run, y, *bias, *act)?)
            }
            Kind::Depthwise {
                geom,
                kernel,
                bias,
                act,
            } => {
                let x = to_2d(run, &one(&xs)?, geom)?;
                let k = run.weight(*kernel)?;
                let y = depthwise(run, x, k, geom)?;
                let y = from_2d(run, y, geom)?;
                drop(finish(run, y, *bias, *act)?)
            }
            Kind::Separable {
                geom,
                depthwise: dw,
                pointwise,
                bias,
                act,
            } => {
                let x = to_2d(run, &one(&xs)?, geom)?;
                let k = run.weight(*dw)?;
                let y = depthwise(run, x, k, geom)?;
                let p = run.weight(*pointwise)?;
                let p = kernel_2d(run, p, geom)?;
                let unit = ConvGeom {
                    rank: 2,
                    kernel: [1; 3],
                    strides: [1; 3],
                    dilation: [1; 3],
                    padding: Padding::Valid,
                    output_padding: None,
                };
                let y = tf::op(run.ctx, "Conv2D", &[y, p], conv_attrs(&unit, false))?;
                let y = from_2d(run, y, geom)?;
                drop(finish(run, y, *bias, *act)?)
            }
            Kind::BatchNorm {
                axis,
                eps,
                gamma,
                beta,
                mean,
                var,
            } => {
                let x = one(&xs)?;
                let a = norm_axis(*axis, x.rank())?;
                // y = x * inv + (beta - mean * inv), inv = gamma / sqrt(var + eps).
                let v = run.weight(*var)?;
                let ve = tf::add(run.ctx, &v, &scalar(*eps))?;
                let mut inv = unary(run.ctx, "Rsqrt", &ve)?;
                if let Some(g) = gamma {
                    let g = run.weight(*g)?;
                    inv = mul(run.ctx, &inv, &g)?;
                }
                let m = run.weight(*mean)?;
                let mi = mul(run.ctx, &m, &inv)?;
                let mut shift = unary(run.ctx, "Neg", &mi)?;
                if let Some(bt) = beta {
                    let bt = run.weight(*bt)?;
                    shift = tf::add(run.ctx, &shift, &bt)?;
                }
                let inv = broadcast_param(run, inv, &[a], x.rank())?;
                let shift = broadcast_param(run, shift, &[a], x.rank())?;
                let y = mul(run.ctx, &x, &inv)?;
                keep(tf::add(run.ctx, &y, &shift)?)
            }
            Kind::LayerNorm {
                axes,
                eps,
                gamma,
                beta,
            } => {
                let x = one(&xs)?;
                let r = x.rank();
                let mut ax = axes
                    .iter()
                    .map(|&a| norm_axis(a, r))
                    .collect::<Result<Vec<_>>>()?;
                ax.sort_unstable();
                let ax64: Vec<i64> = ax.iter().map(|&a| a as i64).collect();
                let mean = reduce(run.ctx, "Mean", &x, &ax64, true)?;
                let centered = binary(run.ctx, "Sub", &x, &mean)?;
                let sq = unary(run.ctx, "Square", &centered)?;
                let var = reduce(run.ctx, "Mean", &sq, &ax64, true)?;
                let ve = tf::add(run.ctx, &var, &scalar(*eps))?;
                let inv = unary(run.ctx, "Rsqrt", &ve)?;
                let mut y = mul(run.ctx, &centered, &inv)?;
                if let Some(g) = gamma {
                    let g = run.weight(*g)?;
                    let g = broadcast_param(run, g, &ax, r)?;
                    y = mul(run.ctx, &y, &g)?;
                }
                if let Some(bt) = beta {
                    let bt = run.weight(*bt)?;
                    let bt = broadcast_param(run, bt, &ax, r)?;
                    y = tf::add(run.ctx, &y, &bt)?;
                }
                keep(y)
            }
            Kind::Relu {
                max,
                slope,
                threshold,
            } => {
                let x = one(&xs)?;
                let y = if *slope == 0.0 && *threshold == 0.0 {
                    unary(run.ctx, "Relu", &x)?
                } else {
                    let th = scalar(*threshold);
                    let below = binary(run.ctx, "Less", &x, &th)?;
                    let shifted = binary(run.ctx, "Sub", &x, &th)?;
                    let neg = mul(run.ctx, &shifted, &scalar(*slope))?;
                    tf::select(run.ctx, &below, &neg, &x)?
                };
                let y = match max {
                    Some(m) => binary(run.ctx, "Minimum", &y, &scalar(*m))?,
                    None => y,
                };
                keep(y)
            }
            Kind::LeakyRelu(alpha) => keep(tf::op(
                run.ctx,
                "LeakyRelu",
                &[one(&xs)?],
                vec![("alpha", AttrValue::Float(*alpha))],
            )?),
            Kind::Prelu(alpha) => {
                let x = one(&xs)?;
                let a = run.weight(*alpha)?;
                let pos = unary(run.ctx, "Relu", &x)?;
                let neg = binary(run.ctx, "Minimum", &x, &scalar(0.0))?;
                let an = mul(run.ctx, &a, &neg)?;
                keep(tf::add(run.ctx, &pos, &an)?)
            }
            Kind::Elu(alpha) => {
                let x = one(&xs)?;
                let e = unary(run.ctx, "Elu", &x)?;
                if *alpha == 1.0 {
                    keep(e)
                } else {
                    let pos = binary(run.ctx, "Greater", &x, &scalar(0.0))?;
                    let neg = mul(run.ctx, &e, &scalar(*alpha))?;
                    keep(tf::select(run.ctx, &pos, &x, &neg)?)
                }
            }
            Kind::ThresholdedRelu(theta) => {
                let x = one(&xs)?;
                let above = binary(run.ctx, "Greater", &x, &scalar(*theta))?;
                let zero = tf::op(run.ctx, "ZerosLike", std::slice::from_ref(&x), vec![])?;
                keep(tf::select(run.ctx, &above, &x, &zero)?)
            }
            Kind::Softmax(axes) => {
                let x = one(&xs)?;
                let r = x.rank();
                let ax = axes
                    .iter()
                    .map(|&a| norm_axis(a, r).map(|a| a as i64))
                    .collect::<Result<Vec<_>>>()?;
                if ax == [r as i64 - 1] {
                    keep(unary(run.ctx, "Softmax", &x)?)
                } else {
                    // exp(x - max) / sum, over the given axes.
                    let m = reduce(run.ctx, "Max", &x, &ax, true)?;
                    let shifted = binary(run.ctx, "Sub", &x, &m)?;
                    let e = unary(run.ctx, "Exp", &shifted)?;
                    let s = reduce(run.ctx, "Sum", &e, &ax, true)?;
                    keep(binary(run.ctx, "RealDiv", &e, &s)?)
                }
            }
            Kind::Flatten => {
                let x = one(&xs)?;
                let b = *x
                    .dims()
                    .first()
                    .ok_or_else(|| invalid_argument("Flatten on a scalar"))?;
                drop(reshape(run.ctx, &x, &[b as i64, -1])?)
            }
            Kind::Reshape(target) => {
                let x = one(&xs)?;
                let mut s = vec![*x
                    .dims()
                    .first()
                    .ok_or_else(|| invalid_argument("Reshape on a scalar"))?
                    as i64];
                s.extend(target);
                drop(reshape(run.ctx, &x, &s)?)
            }
            Kind::Permute(dims) => {
                let x = one(&xs)?;
                check_rank(&x, dims.len() + 1)?;
                let mut perm = vec![0];
                perm.extend(dims);
                drop(tf::transpose(run.ctx, &x, &perm)?)
            }
            Kind::RepeatVector(n) => {
                let x = one(&xs)?;
                check_rank(&x, 2)?;
                let e = tf::expand_dims(run.ctx, &x, 1)?;
                drop(tf::tile(run.ctx, &e, &[1, *n, 1])?)
            }
            Kind::Merge(op) => merge(run, *op, xs)?,
            Kind::Concatenate(axis) => {
                if xs.is_empty() {
                    return Err(invalid_argument("Concatenate of no inputs"));
                }
                let ts: Vec<Tensor> = xs.iter().map(|v| v.t.clone()).collect();
                let mask = and_masks(run, &xs)?;
                vec![Val {
                    t: tf::concat(run.ctx, &ts, *axis)?,
                    mask,
                }]
            }
            Kind::Dot { axes, normalize } => drop(dot(run, &xs, *axes, *normalize)?),
            Kind::Pool { max, geom } => {
                let x = to_2d(run, &one(&xs)?, geom)?;
                let attrs = vec![
                    ("ksize", AttrValue::ListInt(geom.attr(geom.kernel))),
                    ("strides", AttrValue::ListInt(geom.attr(geom.strides))),
                    ("padding", padding_attr(geom.padding)),
                ];
                let name = match (*max, geom.rank) {
                    (true, 3) => "MaxPool3D",
                    (false, 3) => "AvgPool3D",
                    (true, _) => "MaxPool",
                    (false, _) => "AvgPool",
                };
                let y = tf::op(run.ctx, name, &[x], attrs)?;
                drop(from_2d(run, y, geom)?)
            }
            Kind::GlobalPool {
                max,
                rank,
                keepdims,
            } => {
                let x = one(&xs)?;
                check_rank(&x, rank + 2)?;
                let axes: Vec<i64> = (1..=*rank as i64).collect();
                drop(reduce(
                    run.ctx,
                    if *max { "Max" } else { "Mean" },
                    &x,
                    &axes,
                    *keepdims,
                )?)
            }
            Kind::ZeroPad(pads) => {
                let x = one(&xs)?;
                check_rank(&x, pads.len() + 2)?;
                let mut p = vec![(0, 0)];
                p.extend(pads);
                p.push((0, 0));
                drop(tf::pad(run.ctx, &x, &p)?)
            }
            Kind::Crop(crops) => {
                let x = one(&xs)?;
                check_rank(&x, crops.len() + 2)?;
                let d = tf::dims(&x);
                let mut begin = vec![0];
                let mut size = vec![-1];
                for (i, &(a, b)) in crops.iter().enumerate() {
                    let keep = d[i + 1] - a - b;
                    if keep < 0 {
                        return Err(invalid_argument(format!(
                            "cropping {:?} removes more than the input's {} elements on axis {}",
                            (a, b),
                            d[i + 1],
                            i + 1
                        )));
                    }
                    begin.push(a);
                    size.push(keep);
                }
                begin.push(0);
                size.push(-1);
                drop(tf::slice(run.ctx, &x, &begin, &size)?)
            }
            Kind::UpSample { size, bilinear } => drop(upsample(run, &one(&xs)?, size, *bilinear)?),
            Kind::Embedding { table, mask_zero } => {
                let x = one(&xs)?;
                let ids = tf::cast(run.ctx, &x, DType::Int32)?;
                let t = run.weight(*table)?;
                let y = tf::op(
                    run.ctx,
                    "GatherV2",
                    &[t, ids.clone(), Tensor::scalar(0i32)],
                    vec![],
                )?;
                let mask = if *mask_zero {
                    Some(binary(run.ctx, "NotEqual", &ids, &Tensor::scalar(0i32))?)
                } else {
                    None
                };
                vec![Val { t: y, mask }]
            }
            Kind::Rescaling { scale, offset } => {
                let x = tf::cast(run.ctx, &one(&xs)?, DType::Float32)?;
                let y = mul(run.ctx, &x, &scalar(*scale))?;
                drop(tf::add(run.ctx, &y, &scalar(*offset))?)
            }
            Kind::Normalization {
                axes,
                mean,
                var,
                invert,
            } => {
                let x = tf::cast(run.ctx, &one(&xs)?, DType::Float32)?;
                let r = x.rank();
                let ax = axes
                    .iter()
                    .map(|&a| norm_axis(a, r))
                    .collect::<Result<Vec<_>>>()?;
                let mut get = |n: &Norm| -> Result<Tensor> {
                    let t = match n {
                        Norm::Weight(w) => run.weight(*w)?,
                        Norm::Value(t) => t.clone(),
                    };
                    broadcast_param(run, t, &ax, r)
                };
                let m = get(mean)?;
                let v = get(var)?;
                // Keras 2: (x - mean) / max(sqrt(var), 1e-7); inverted: x * that + mean.
                let sqrt = unary(run.ctx, "Sqrt", &v)?;
                let sd = binary(run.ctx, "Maximum", &sqrt, &scalar(1e-7))?;
                drop(if *invert {
                    let xs = mul(run.ctx, &x, &sd)?;
                    tf::add(run.ctx, &xs, &m)?
                } else {
                    let centered = binary(run.ctx, "Sub", &x, &m)?;
                    binary(run.ctx, "RealDiv", &centered, &sd)?
                })
            }
            Kind::Masking(value) => {
                let x = one(&xs)?;
                let ne = binary(run.ctx, "NotEqual", &x, &scalar(*value))?;
                let any = reduce(run.ctx, "Any", &ne, &[-1], true)?;
                let keepf = tf::cast(run.ctx, &any, DType::Float32)?;
                let y = mul(run.ctx, &x, &keepf)?;
                let mask = tf::squeeze(run.ctx, &any, -1)?;
                vec![Val {
                    t: y,
                    mask: Some(mask),
                }]
            }
            Kind::NotEqual(c) => {
                let x = one(&xs)?;
                let c = tf::cast(run.ctx, &scalar(*c), x.dtype())?;
                drop(binary(run.ctx, "NotEqual", &x, &c)?)
            }
            Kind::Resizing([h, w]) => {
                let x = tf::cast(run.ctx, &one(&xs)?, DType::Float32)?;
                check_rank(&x, 4)?;
                let hw = tf::ints(&[*h, *w])?;
                drop(tf::op(
                    run.ctx,
                    "ResizeBilinear",
                    &[x, hw],
                    vec![("half_pixel_centers", AttrValue::Bool(true))],
                )?)
            }
            Kind::CenterCrop([h, w]) => {
                let x = tf::cast(run.ctx, &one(&xs)?, DType::Float32)?;
                check_rank(&x, 4)?;
                let d = tf::dims(&x);
                let (dh, dw) = (d[1] - h, d[2] - w);
                if dh < 0 || dw < 0 {
                    // Keras then resizes up instead (smart_resize): not implemented.
                    return Err(unimplemented(format!(
                        "CenterCrop to {h}x{w} of a smaller {}x{} input",
                        d[1], d[2]
                    )));
                }
                drop(tf::slice(
                    run.ctx,
                    &x,
                    &[0, dh / 2, dw / 2, 0],
                    &[-1, *h, *w, -1],
                )?)
            }
            Kind::Rnn(rnn) => {
                let x = one(&xs)?;
                rnn.call(run, &x, mask_in.as_ref())?
            }
            Kind::Bidirectional { fwd, bwd, merge } => {
                let x = one(&xs)?;
                rnn::bidirectional(run, fwd, bwd, *merge, &x, mask_in.as_ref())?
            }
            Kind::TimeDistributed(inner) => {
                let x = one(&xs)?;
                if x.rank() < 3 {
                    return Err(invalid_argument(format!(
                        "TimeDistributed needs an input of rank >= 3, got shape {:?}",
                        x.dims()
                    )));
                }
                let d = tf::dims(&x);
                let mut flat = vec![d[0] * d[1]];
                flat.extend(&d[2..]);
                let xf = reshape(run.ctx, &x, &flat)?;
                let ys = inner.call(run, vec![Val { t: xf, mask: None }])?;
                let y = one(&ys)?;
                if y.rank() == 0 {
                    return Err(invalid_argument(
                        "TimeDistributed: the inner layer gave a scalar",
                    ));
                }
                let mut s = vec![d[0], d[1]];
                s.extend(&tf::dims(&y)[1..]);
                keep(reshape(run.ctx, &y, &s)?)
            }
            Kind::Model(g) => g.run(run, xs, None)?,
        })
    }
}

/// Keras's `deconv_output_length` of a Conv2DTranspose over `n` along axis `i` (0: height).
pub fn deconv_len(n: i64, i: usize, geom: &ConvGeom) -> Result<i64> {
    let (s, k, d) = (
        geom.strides[i + 1],
        geom.kernel[i + 1],
        geom.dilation[i + 1],
    );
    let k = k + (k - 1) * (d - 1);
    let same = match geom.padding {
        Padding::Same => true,
        Padding::Valid => false,
        Padding::Causal => return Err(invalid_argument("Conv2DTranspose has no causal padding")),
    };
    Ok(match geom.output_padding {
        None if same => n * s,
        None => n * s + (k - s).max(0),
        Some(p) => (n - 1) * s + k - if same { k / 2 * 2 } else { 0 } + p[i],
    })
}

fn depthwise(run: &mut Run, x: Tensor, k: Tensor, g: &ConvGeom) -> Result<Tensor> {
    let mut g2 = ConvGeom { ..*g };
    if g2.padding == Padding::Causal {
        g2.padding = Padding::Valid;
    }
    let k = kernel_2d(run, k, g)?;
    tf::op(
        run.ctx,
        "DepthwiseConv2dNative",
        &[x, k],
        conv_attrs(&g2, true),
    )
}

fn merge(run: &mut Run, op: MergeOp, xs: Vec<Val>) -> Result<Vec<Val>> {
    if xs.len() < 2 && op != MergeOp::Average || xs.is_empty() {
        return Err(invalid_argument(format!(
            "a merge layer needs 2 or more inputs, got {}",
            xs.len()
        )));
    }
    if op == MergeOp::Subtract && xs.len() != 2 {
        return Err(invalid_argument("Subtract takes exactly 2 inputs"));
    }
    let mask = and_masks(run, &xs)?;
    let name = match op {
        MergeOp::Add | MergeOp::Average => "AddV2",
        MergeOp::Subtract => "Sub",
        MergeOp::Multiply => "Mul",
        MergeOp::Maximum => "Maximum",
        MergeOp::Minimum => "Minimum",
    };
    let mut acc = xs[0].t.clone();
    for v in &xs[1..] {
        acc = binary(run.ctx, name, &acc, &v.t)?;
    }
    if op == MergeOp::Average {
        acc = mul(run.ctx, &acc, &scalar(1.0 / xs.len() as f32))?;
    }
    Ok(vec![Val { t: acc, mask }])
}

/// Keras merges masks by AND (a missing mask is all true).
fn and_masks(run: &mut Run, xs: &[Val]) -> Result<Option<Tensor>> {
    let mut out: Option<Tensor> = None;
    for m in xs.iter().filter_map(|v| v.mask.as_ref()) {
        out = Some(match out {
            None => m.clone(),
            Some(o) => binary(run.ctx, "LogicalAnd", &o, m)?,
        });
    }
    Ok(out)
}

/// Keras 2 `batch_dot` for rank-2 and rank-3 inputs, with optional L2 normalization first.
fn dot(run: &mut Run, xs: &[Val], axes: [i64; 2], normalize: bool) -> Result<Tensor> {
    let [a, b] = xs else {
        return Err(invalid_argument(format!(
            "Dot takes 2 inputs, got {}",
            xs.len()
        )));
    };
    let (mut x, mut y) = (a.t.clone(), b.t.clone());
    let (rx, ry) = (x.rank(), y.rank());
    if !(2..=3).contains(&rx) || !(2..=3).contains(&ry) {
        return Err(unimplemented(format!(
            "Dot of inputs of rank {rx} and {ry} (only 2 and 3)"
        )));
    }
    let ax = norm_axis(axes[0], rx)?;
    let ay = norm_axis(axes[1], ry)?;
    if ax == 0 || ay == 0 {
        return Err(invalid_argument("Dot over the batch axis"));
    }
    if normalize {
        x = l2_normalize(run, &x, ax)?;
        y = l2_normalize(run, &y, ay)?;
    }
    // x to [b, m, k] (contracted axis last), y to [b, k, n] (contracted axis in the middle).
    let x3 = if rx == 2 {
        tf::expand_dims(run.ctx, &x, 1)?
    } else if ax == 1 {
        tf::transpose(run.ctx, &x, &[0, 2, 1])?
    } else {
        x
    };
    let y3 = if ry == 2 {
        tf::expand_dims(run.ctx, &y, 2)?
    } else if ay == 2 {
        tf::transpose(run.ctx, &y, &[0, 2, 1])?
    } else {
        y
    };
    let mut z = binary(run.ctx, "BatchMatMulV2", &x3, &y3)?;
    // Drop the axes the rank-2 inputs gained; Keras keeps one axis for a [b] result: [b, 1].
    if ry == 2 {
        z = tf::squeeze(run.ctx, &z, 2)?;
    }
    if rx == 2 && ry != 2 {
        z = tf::squeeze(run.ctx, &z, 1)?;
    }
    Ok(z)
}

fn l2_normalize(run: &mut Run, x: &Tensor, axis: usize) -> Result<Tensor> {
    let x2 = unary(run.ctx, "Square", x)?;
    let sq = reduce(run.ctx, "Sum", &x2, &[axis as i64], true)?;
    let sq = binary(run.ctx, "Maximum", &sq, &scalar(1e-12))?;
    let inv = unary(run.ctx, "Rsqrt", &sq)?;
    mul(run.ctx, x, &inv)
}

/// Nearest: each element repeated `size[i]` times along spatial axis i (reshape, tile, reshape);
/// bilinear: `ResizeBilinear` with half-pixel centers (`tf.image.resize`).
fn upsample(run: &mut Run, x: &Tensor, size: &[i64], bilinear: bool) -> Result<Tensor> {
    check_rank(x, size.len() + 2)?;
    let d = tf::dims(x);
    if bilinear {
        let hw = Tensor::from_slice(&[2], &[(d[1] * size[0]) as i32, (d[2] * size[1]) as i32])?;
        return tf::op(
            run.ctx,
            "ResizeBilinear",
            &[x.clone(), hw],
            vec![("half_pixel_centers", AttrValue::Bool(true))],
        );
    }
    let mut expanded = vec![d[0]];
    let mut mult = vec![1];
    let mut out = vec![d[0]];
    for (i, &s) in size.iter().enumerate() {
        expanded.extend([d[i + 1], 1]);
        mult.extend([1, s]);
        out.push(d[i + 1] * s);
    }
    let c = *d.last().expect("rank checked");
    expanded.push(c);
    mult.push(1);
    out.push(c);
    let e = reshape(run.ctx, x, &expanded)?;
    let t = tf::tile(run.ctx, &e, &mult)?;
    reshape(run.ctx, &t, &out)
}
