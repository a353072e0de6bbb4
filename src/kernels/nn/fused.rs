//! The converter's fused contractions (_FusedConv2D, _FusedMatMul, FusedDepthwiseConv2dNative):
//! parsing `fused_ops`/`num_args` into an epilogue (bias or batch norm, then an activation or
//! PReLU) applied to each finished output row while it is hot, with a whole-tensor broadcasting
//! fallback when an addend is neither per-channel nor output-shaped.

use super::activation::{map_f32, Activation};
use super::{conv, depthwise, matmul};
use crate::kernels::broadcast::{binary_map, broadcast_shapes};
use crate::kernels::{KernelContext, KernelFactory::Simple};
use crate::ops::def::FLOAT;
use crate::ops::{AttrDefault, AttrType, NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, unimplemented, Result};
use crate::tensor::{try_alloc, DType, Tensor};

/// The step before the activation. (One per fused kernel: the size difference between variants is
/// irrelevant.)
#[allow(clippy::large_enum_variant)]
enum Pre {
    None,
    Bias(Tensor),
    /// scale, offset, mean, variance.
    BatchNorm([Tensor; 4], f32),
}

enum Post {
    Act(Activation),
    Prelu(Tensor),
}

/// A validated `fused_ops` pattern with its argument tensors.
pub struct Fusion {
    pre: Pre,
    post: Post,
}

impl Fusion {
    /// Validates `fused_ops` against `num_args` and the given `args`, TF's error classes: an
    /// unknown pattern is Unimplemented, a wrong argument count InvalidArgument.
    pub fn parse(a: &NodeAttrs, args: &[Tensor]) -> Result<Fusion> {
        let op = a.op();
        let ops = a.strings("fused_ops")?;
        let num_args = usize::try_from(a.int("num_args")?)
            .map_err(|_| invalid_argument(format!("{op}: num_args must be >= 0")))?;
        if num_args != args.len() {
            return Err(invalid_argument(format!(
                "{op}: num_args is {num_args} but {} args were given",
                args.len()
            )));
        }
        let alpha = a.float("leakyrelu_alpha")?;
        let eps = a.float("epsilon")?;
        let names: Vec<&str> = ops.iter().map(String::as_str).collect();
        let not_impl = || unimplemented(format!("{op}: fusion is not implemented: {names:?}"));
        let want = |n: usize, what: &str| -> Result<()> {
            if num_args != n {
                return Err(invalid_argument(format!(
                    "{op}: fused {what} needs {n} extra argument{}, got num_args={num_args}",
                    if n == 1 { "" } else { "s" }
                )));
            }
            Ok(())
        };
        let act_of = |name: &str| Activation::from_fused_name(name, alpha);
        let (pre, rest) = match names.split_first() {
            None => {
                return Err(invalid_argument(format!(
                    "{op}: fused_ops must name at least one op"
                )))
            }
            Some((&"BiasAdd", rest)) => (1usize, rest),
            Some((&"FusedBatchNorm", rest)) => (4, rest),
            Some(_) => (0, &names[..]),
        };
        let post = match rest {
            [] => Some(Post::Act(Activation::Identity)),
            [p] if *p == "Prelu" => None,
            [p] => Some(Post::Act(act_of(p).ok_or_else(not_impl)?)),
            _ => return Err(not_impl()),
        };
        let total = pre + usize::from(post.is_none());
        let what = names.join("+");
        want(total, &what)?;
        let pre = match pre {
            1 => Pre::Bias(args[0].clone()),
            4 => {
                if names.first() == Some(&"FusedBatchNorm") && eps.is_nan() {
                    return Err(invalid_argument(format!("{op}: epsilon is NaN")));
                }
                Pre::BatchNorm(
                    [
                        args[0].clone(),
                        args[1].clone(),
                        args[2].clone(),
                        args[3].clone(),
                    ],
                    eps,
                )
            }
            _ => Pre::None,
        };
        let post = match post {
            Some(p) => p,
            None => Post::Prelu(args[total - 1].clone()),
        };
        Ok(Fusion { pre, post })
    }

    /// Binds the fusion to an output shape (channels last).
    pub fn prepare<'f>(&'f self, out_dims: &[usize]) -> Result<Prepared<'f>> {
        let n = out_dims.last().copied().unwrap_or(1);
        let bind = |t: &'f Tensor, what: &str| Operand::bind(t, out_dims, n, what);
        let pre = match &self.pre {
            Pre::None => PreOp::None,
            Pre::Bias(b) => PreOp::Add(bind(b, "bias")?),
            Pre::BatchNorm([scale, offset, mean, var], eps) => {
                let get = |t: &Tensor, what: &str| -> Result<Vec<f32>> {
                    let v = t.f32s()?;
                    if v.len() != n {
                        return Err(invalid_argument(format!(
                            "FusedBatchNorm {what} must have {n} elements (the output depth), \
                             got shape {}",
                            t.shape()
                        )));
                    }
                    Ok(v.to_vec())
                };
                let (s, o, m, v) = (
                    get(scale, "scale")?,
                    get(offset, "offset")?,
                    get(mean, "mean")?,
                    get(var, "variance")?,
                );
                // TF: scaling = rsqrt(variance + epsilon) * scale; y = (x - mean) * scaling + offset.
                let factor: Vec<f32> = v
                    .iter()
                    .zip(&s)
                    .map(|(&v, &s)| (1.0 / (v + eps).sqrt()) * s)
                    .collect();
                PreOp::Norm {
                    factor,
                    offset: o,
                    mean: m,
                }
            }
        };
        let post = match &self.post {
            Post::Act(a) => PostOp::Act(*a),
            Post::Prelu(alpha) => PostOp::Prelu(bind(alpha, "prelu alpha")?),
        };
        let broadcasts = |o: &Operand<'_>| matches!(o, Operand::Broadcast);
        let row_local = !matches!(&pre, PreOp::Add(o) if broadcasts(o))
            && !matches!(&post, PostOp::Prelu(o) if broadcasts(o));
        Ok(Prepared {
            fusion: self,
            n,
            pre,
            post,
            row_local,
        })
    }
}

/// An addend (bias or PReLU alpha) seen from the output.
enum Operand<'t> {
    /// One value per output channel (a 1-D bias, or any shape of leading 1s).
    Channel(Vec<f32>),
    /// Exactly the output's layout.
    Same(&'t [f32]),
    /// Anything else that broadcasts: applied to the whole tensor afterwards.
    Broadcast,
}

impl<'t> Operand<'t> {
    fn bind(t: &'t Tensor, out: &[usize], n: usize, what: &str) -> Result<Operand<'t>> {
        let v = t.f32s()?;
        if t.rank() <= out.len() && t.dims().iter().rev().skip(1).all(|&d| d == 1) {
            match t.dims().last() {
                None | Some(1) => return Ok(Operand::Channel(vec![v[0]; n])),
                Some(&d) if d == n => return Ok(Operand::Channel(v.to_vec())),
                _ => {}
            }
        }
        let b = broadcast_shapes(out, t.dims())
            .map_err(|e| e.context(format!("{what} does not broadcast to the output")))?;
        if b == out && t.num_elements() == out.iter().product::<usize>() {
            return Ok(Operand::Same(v));
        }
        Ok(Operand::Broadcast)
    }

    #[inline(always)]
    fn slice(&self, n: usize, row: usize, col0: usize, len: usize) -> &[f32] {
        let s = match self {
            Operand::Channel(c) => c.get(col0..col0 + len),
            Operand::Same(d) => d.get(row * n + col0..row * n + col0 + len),
            Operand::Broadcast => None,
        };
        s.unwrap_or(&[])
    }
}

enum PreOp<'t> {
    None,
    Add(Operand<'t>),
    Norm {
        factor: Vec<f32>,
        offset: Vec<f32>,
        mean: Vec<f32>,
    },
}

enum PostOp<'t> {
    Act(Activation),
    Prelu(Operand<'t>),
}

/// A fusion bound to one output shape.
pub struct Prepared<'f> {
    fusion: &'f Fusion,
    n: usize,
    pre: PreOp<'f>,
    post: PostOp<'f>,
    row_local: bool,
}

impl Prepared<'_> {
    /// The per-row epilogue: everything, when every operand is row-local; nothing otherwise
    /// (`finish` then does the work on the whole tensor).
    pub fn apply_row(&self, row: usize, col0: usize, seg: &mut [f32]) {
        if !self.row_local {
            return;
        }
        let (n, len) = (self.n, seg.len());
        match &self.pre {
            PreOp::None => {}
            PreOp::Add(b) => {
                for (x, &y) in seg.iter_mut().zip(b.slice(n, row, col0, len)) {
                    *x += y;
                }
            }
            PreOp::Norm {
                factor,
                offset,
                mean,
            } => {
                let r = col0..col0 + len;
                if let (Some(f), Some(o), Some(m)) =
                    (factor.get(r.clone()), offset.get(r.clone()), mean.get(r))
                {
                    for (((x, &f), &o), &m) in seg.iter_mut().zip(f).zip(o).zip(m) {
                        *x = (*x - m) * f + o;
                    }
                }
            }
        }
        match &self.post {
            PostOp::Act(a) => a.apply(seg),
            PostOp::Prelu(al) => {
                for (x, &a) in seg.iter_mut().zip(al.slice(n, row, col0, len)) {
                    if *x < 0.0 {
                        *x *= a;
                    }
                }
            }
        }
    }

    /// Completes the fusion on the whole output when `apply_row` could not (a broadcasting
    /// addend); the result may be larger than `out` if the addend broadcasts it up.
    pub fn finish(&self, out: Tensor) -> Result<Tensor> {
        if self.row_local {
            return Ok(out);
        }
        let mut t = out;
        match &self.fusion.pre {
            Pre::None => {}
            Pre::Bias(b) => t = binary_map(&t, b, |x: f32, y: f32| x + y)?,
            Pre::BatchNorm(..) => {
                // Batch norm operands are per-channel, so rows are independent; reuse them.
                if let PreOp::Norm {
                    factor,
                    offset,
                    mean,
                } = &self.pre
                {
                    let mut v = t.f32s()?.to_vec();
                    for row in v.chunks_exact_mut(self.n.max(1)) {
                        for (((x, &f), &o), &m) in row.iter_mut().zip(factor).zip(offset).zip(mean)
                        {
                            *x = (*x - m) * f + o;
                        }
                    }
                    t = Tensor::from_vec(t.shape().clone(), v)?;
                }
            }
        }
        Ok(match &self.fusion.post {
            Post::Act(a) => {
                let a = *a;
                map_f32(&t, |x| a.scalar(x))?
            }
            Post::Prelu(alpha) => {
                binary_map(&t, alpha, |x: f32, a: f32| if x < 0.0 { x * a } else { x })?
            }
        })
    }
}

/// Allocates an output, runs `body` with the fused epilogue as its row callback, and finishes.
pub fn run_fused(
    fusion: &Fusion,
    out_dims: Vec<usize>,
    body: impl FnOnce(&mut [f32], super::gemm::Epilogue<'_>) -> Result<()>,
) -> Result<Tensor> {
    let shape = crate::tensor::Shape::new(out_dims)?;
    let prepared = fusion.prepare(shape.dims())?;
    let mut out = try_alloc::<f32>(shape.num_elements())?;
    body(&mut out, &mut |r, c, seg| prepared.apply_row(r, c, seg))?;
    prepared.finish(Tensor::from_vec(shape, out)?)
}

fn fused_common(b: OpBuilder) -> OpBuilder {
    b.attr(
        "fused_ops",
        AttrType::ListString,
        Some(AttrDefault::EmptyList),
    )
    .float_attr("epsilon", 0.0001)
    .float_attr("leakyrelu_alpha", 0.2)
}

pub fn register(reg: &mut Registry) {
    let conv = OpBuilder::new("_FusedConv2D", Simple(fused_conv2d))
        .input("input", "T")
        .input("filter", "T")
        .inputs_n_min("args", "num_args", "T", 0)
        .type_attr("T", FLOAT)
        // Newer TF declares the args' types separately and host args; accepted for models that
        // carry them, validated in the kernel.
        .attr("TArgs", AttrType::ListType, Some(AttrDefault::EmptyList))
        .int_attr("num_host_args", Some(0))
        .ints_attr("strides", None)
        .enum_attr("padding", &["SAME", "VALID", "EXPLICIT"], None)
        .ints_attr("explicit_paddings", Some(&[]))
        .enum_attr(
            "data_format",
            &["NHWC", "NCHW", "NCHW_VECT_C"],
            Some("NHWC"),
        )
        .enum_attr(
            "filter_format",
            &["HWIO", "OIHW", "OIHW_VECT_I"],
            Some("HWIO"),
        )
        .ints_attr("dilations", Some(&[1, 1, 1, 1]))
        .bool_attr("use_cudnn_on_gpu", true);
    reg.add(fused_common(conv));
    let mm = OpBuilder::new("_FusedMatMul", Simple(fused_matmul))
        .input("a", "T")
        .input("b", "T")
        .inputs_n_min("args", "num_args", "T", 0)
        .bool_attr("transpose_a", false)
        .bool_attr("transpose_b", false)
        .type_attr("T", FLOAT);
    reg.add(fused_common(mm));
    let dw = OpBuilder::new("FusedDepthwiseConv2dNative", Simple(fused_depthwise))
        .input("input", "T")
        .input("filter", "T")
        .inputs_n_min("args", "num_args", "T", 0)
        .type_attr("T", FLOAT)
        .ints_attr("strides", None)
        .enum_attr("padding", &["SAME", "VALID", "EXPLICIT"], None)
        .ints_attr("explicit_paddings", Some(&[]))
        .enum_attr("data_format", &["NHWC", "NCHW"], Some("NHWC"))
        .ints_attr("dilations", Some(&[1, 1, 1, 1]));
    reg.add(fused_common(dw));
}

fn split_args<'t>(
    op: &str,
    inputs: &'t [Tensor],
) -> Result<(&'t Tensor, &'t Tensor, &'t [Tensor])> {
    match inputs {
        [x, w, args @ ..] => Ok((x, w, args)),
        _ => Err(invalid_argument(format!("{op} needs at least 2 inputs"))),
    }
}

fn fused_conv2d(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let (x, w, args) = split_args(a.op(), i)?;
    let types = match a.get("TArgs")? {
        crate::ops::AttrValue::ListType(t) => t.clone(),
        _ => Vec::new(),
    };
    if !types.is_empty()
        && (types.len() != args.len() || types.iter().any(|&t| t != DType::Float32))
    {
        return Err(invalid_argument(format!(
            "_FusedConv2D: TArgs {types:?} does not match the {} float32 args",
            args.len()
        )));
    }
    if a.int("num_host_args")? != 0 {
        return Err(unimplemented("_FusedConv2D: host args are not supported"));
    }
    if a.string("filter_format")? != "HWIO" {
        return Err(unimplemented(
            "_FusedConv2D: only filter_format HWIO is supported",
        ));
    }
    let fusion = Fusion::parse(a, args)?;
    let params = conv::Conv2dParams::from_attrs(a, true, true)?;
    Ok(vec![conv::conv2d(x, w, &params, Some(&fusion))?])
}

fn fused_matmul(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let (x, w, args) = split_args(a.op(), i)?;
    let fusion = Fusion::parse(a, args)?;
    Ok(vec![matmul::matmul_f32(
        x,
        w,
        a.bool("transpose_a")?,
        a.bool("transpose_b")?,
        Some(&fusion),
    )?])
}

fn fused_depthwise(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let (x, w, args) = split_args(a.op(), i)?;
    let fusion = Fusion::parse(a, args)?;
    let params = conv::Conv2dParams::from_attrs(a, true, false)?;
    Ok(vec![depthwise::depthwise(x, w, &params, Some(&fusion))?])
}
