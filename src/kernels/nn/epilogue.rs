//! The epilogue of a contraction: `fused_ops`/`num_args` parsed into bias or batch norm, then an
//! activation or PReLU, applied to each finished output row while it is hot, with a whole-tensor
//! broadcasting fallback when an addend is neither per-channel nor output-shaped. The GEMM, conv,
//! depthwise and matmul kernels take one; `fused.rs` declares the ops that carry it.

use super::activation::{map_f32, Activation};
use super::simd::{prelu, prelu_row, BiasClamp};
use crate::kernels::broadcast::{binary_map, broadcast_shapes};
use crate::ops::NodeAttrs;
use crate::status::{invalid_argument, unimplemented, Result};
use crate::tensor::{try_with_capacity, Tensor};
use std::borrow::Cow;

/// The step before the activation.
#[derive(Debug, Clone, Copy)]
enum Pre {
    None,
    /// args[0].
    Bias,
    /// args[0..4]: scale, offset, mean, variance; epsilon.
    BatchNorm(f32),
}

#[derive(Debug, Clone, Copy)]
enum Post {
    Act(Activation),
    /// The last arg is alpha.
    Prelu,
}

/// A validated `fused_ops` pattern, parsed once when the kernel is instantiated.
#[derive(Debug, Clone, Copy)]
pub struct FusionSpec {
    pre: Pre,
    post: Post,
    num_args: usize,
}

impl FusionSpec {
    /// Validates `fused_ops` against `num_args`, TF's error classes: an unknown pattern is
    /// Unimplemented, a wrong argument count InvalidArgument.
    pub fn parse(a: &NodeAttrs) -> Result<FusionSpec> {
        let op = a.op();
        let ops = a.strings("fused_ops")?;
        let num_args = usize::try_from(a.int("num_args")?)
            .map_err(|_| invalid_argument(format!("{op}: num_args must be >= 0")))?;
        let alpha = a.float("leakyrelu_alpha")?;
        let eps = a.float("epsilon")?;
        let names: Vec<&str> = ops.iter().map(String::as_str).collect();
        let not_impl = || unimplemented(format!("{op}: fusion is not implemented: {names:?}"));
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
            [] => Post::Act(Activation::Identity),
            [p] if *p == "Prelu" => Post::Prelu,
            [p] => Post::Act(act_of(p).ok_or_else(not_impl)?),
            _ => return Err(not_impl()),
        };
        let total = pre + usize::from(matches!(post, Post::Prelu));
        if num_args != total {
            return Err(invalid_argument(format!(
                "{op}: fused {} needs {total} extra argument{}, got num_args={num_args}",
                names.join("+"),
                if total == 1 { "" } else { "s" }
            )));
        }
        let pre = match pre {
            1 => Pre::Bias,
            4 => {
                if eps.is_nan() {
                    return Err(invalid_argument(format!("{op}: epsilon is NaN")));
                }
                Pre::BatchNorm(eps)
            }
            _ => Pre::None,
        };
        Ok(FusionSpec {
            pre,
            post,
            num_args,
        })
    }
}

/// A fusion pattern with its argument tensors, for one call.
pub struct Fusion<'t> {
    spec: FusionSpec,
    args: &'t [Tensor],
}

impl<'t> Fusion<'t> {
    pub fn bind(op: &str, spec: FusionSpec, args: &'t [Tensor]) -> Result<Fusion<'t>> {
        if spec.num_args != args.len() {
            return Err(invalid_argument(format!(
                "{op}: num_args is {} but {} args were given",
                spec.num_args,
                args.len()
            )));
        }
        Ok(Fusion { spec, args })
    }

    /// Binds the fusion to an output shape (channels last).
    pub fn prepare(&self, out_dims: &[usize]) -> Result<Bound<'t>> {
        let n = out_dims.last().copied().unwrap_or(1);
        let bind = |t: &'t Tensor, what: &str| Operand::bind(t, out_dims, n, what);
        let args = self.args;
        let pre = match self.spec.pre {
            Pre::None => PreOp::None,
            Pre::Bias => PreOp::Add(bind(&args[0], "bias")?),
            Pre::BatchNorm(eps) => {
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
                    get(&args[0], "scale")?,
                    get(&args[1], "offset")?,
                    get(&args[2], "mean")?,
                    get(&args[3], "variance")?,
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
        let post = match self.spec.post {
            Post::Act(a) => PostOp::Act(a),
            Post::Prelu => PostOp::Prelu(bind(&args[args.len() - 1], "prelu alpha")?),
        };
        let broadcasts = |o: &Operand<'_>| matches!(o, Operand::Broadcast);
        let row_local = !matches!(&pre, PreOp::Add(o) if broadcasts(o))
            && !matches!(&post, PostOp::Prelu(o) if broadcasts(o));
        Ok(Bound {
            spec: self.spec,
            args,
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
    Channel(Cow<'t, [f32]>),
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
                None | Some(1) => return Ok(Operand::Channel(Cow::Owned(vec![v[0]; n]))),
                Some(&d) if d == n => return Ok(Operand::Channel(Cow::Borrowed(v))),
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
pub struct Bound<'f> {
    spec: FusionSpec,
    args: &'f [Tensor],
    n: usize,
    pre: PreOp<'f>,
    post: PostOp<'f>,
    row_local: bool,
}

impl Bound<'_> {
    /// The whole epilogue as a bias + clamp or bias + per-channel PReLU that kernels apply in
    /// registers, when it is one.
    pub fn bias_clamp(&self) -> Option<BiasClamp<'_>> {
        if !self.row_local {
            return None;
        }
        let bias = self.register_bias()?;
        let (inf, mut alpha) = (f32::INFINITY, None);
        let (lo, hi) = match &self.post {
            PostOp::Act(Activation::Identity) => (-inf, inf),
            PostOp::Act(Activation::Relu) => (0.0, inf),
            PostOp::Act(Activation::Relu6) => (0.0, 6.0),
            PostOp::Prelu(Operand::Channel(a)) if a.len() == self.n => {
                alpha = Some(&a[..]);
                (-inf, inf)
            }
            _ => return None,
        };
        Some(BiasClamp {
            bias,
            lo,
            hi,
            alpha,
        })
    }

    /// The pre-op as a bias kernels can add in registers: `Some(None)` for none, `Some(bias)` for
    /// one value per output channel, `None` for anything else.
    fn register_bias(&self) -> Option<Option<&[f32]>> {
        match &self.pre {
            PreOp::None => Some(None),
            PreOp::Add(Operand::Channel(c)) if c.len() == self.n => Some(Some(&c[..])),
            _ => None,
        }
    }

    /// A per-channel bias (or none) then an activation that is no clamp (sigmoid, swish, ...), as
    /// two steps: the bias for kernels to add in registers, the activation for [`with_output`] to
    /// run over the whole output at once, rather than row by row behind the bias.
    fn bias_then_act(&self) -> Option<(BiasClamp<'_>, Activation)> {
        let PostOp::Act(act) = self.post else {
            return None;
        };
        let bias = self.register_bias()?;
        let fast = BiasClamp {
            bias,
            ..BiasClamp::NONE
        };
        Some((fast, act))
    }

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
            PostOp::Prelu(al) => prelu_row(seg, al.slice(n, row, col0, len)),
        }
    }

    /// Completes the fusion on the whole output when `apply_row` could not (a broadcasting
    /// addend); the result may be larger than `out` if the addend broadcasts it up.
    pub fn finish(&self, out: Tensor) -> Result<Tensor> {
        if self.row_local {
            return Ok(out);
        }
        let mut t = out;
        match self.spec.pre {
            Pre::None => {}
            Pre::Bias => t = binary_map(&t, &self.args[0], |x: f32, y: f32| x + y)?,
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
        Ok(match self.spec.post {
            Post::Act(a) => map_f32(&t, |x| a.scalar(x))?,
            Post::Prelu => binary_map(&t, &self.args[self.args.len() - 1], prelu)?,
        })
    }
}

/// The epilogue a kernel body is handed: `fast` (bias + clamp) to apply where it can, in
/// registers, and `rest`, what is left per finished row.
pub struct RowEpilogue<'a> {
    pub fast: BiasClamp<'a>,
    pub rest: Option<&'a Bound<'a>>,
}

impl RowEpilogue<'_> {
    /// Everything, on a finished row segment (for kernels that do not apply `fast` themselves).
    pub fn row(&self, row: usize, col0: usize, seg: &mut [f32]) {
        self.fast.apply(col0, seg);
        if let Some(p) = self.rest {
            p.apply_row(row, col0, seg);
        }
    }

    /// The rest alone, on whole rows of `n` columns from row `row0` on, whose `fast` part is done:
    /// what a parallel kernel runs on its calling thread once the tasks are over (the rest reads
    /// tensors, which stay on the thread that owns them).
    pub fn apply_rest(&self, rows: &mut [f32], n: usize, row0: usize) {
        if let Some(p) = self.rest {
            for (i, row) in rows.chunks_exact_mut(n.max(1)).enumerate() {
                p.apply_row(row0 + i, 0, row);
            }
        }
    }
}

/// Allocates an output of `dims` (capacity only: `body` must fill it to its full length), runs
/// `body` with the fusion's epilogue, and finishes.
pub fn with_output(
    dims: Vec<usize>,
    fusion: Option<&Fusion<'_>>,
    body: impl FnOnce(&mut Vec<f32>, &RowEpilogue<'_>) -> Result<()>,
) -> Result<Tensor> {
    let shape = crate::tensor::Shape::new(dims)?;
    let len = shape.num_elements();
    let mut out = try_with_capacity::<f32>(len)?;
    let prepared = fusion.map(|f| f.prepare(shape.dims())).transpose()?;
    let mut after = None;
    let epi = match &prepared {
        None => RowEpilogue {
            fast: BiasClamp::NONE,
            rest: None,
        },
        Some(p) => match (p.bias_clamp(), p.bias_then_act()) {
            (Some(fast), _) => RowEpilogue { fast, rest: None },
            (None, Some((fast, act))) => {
                after = Some(act);
                RowEpilogue { fast, rest: None }
            }
            (None, None) => RowEpilogue {
                fast: BiasClamp::NONE,
                rest: Some(p),
            },
        },
    };
    body(&mut out, &epi)?;
    if out.len() != len {
        return Err(crate::status::internal("kernel left its output short"));
    }
    if let Some(act) = after {
        out = act.apply_owned(out)?;
    }
    let t = Tensor::from_vec(shape, out)?;
    match &prepared {
        Some(p) => p.finish(t),
        None => Ok(t),
    }
}
