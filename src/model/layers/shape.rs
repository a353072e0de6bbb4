//! Static output shapes of a layer graph, from its input shapes, as Keras's `compute_output_shape`
//! gives them (`-1`: a dimension Keras does not know either; `None`: unknown rank). Only for
//! `model.outputs`: a shape this cannot work out is `None`, never an error.

use super::layer::{ConvGeom, Kind, MergeOp, Padding, W};
use super::rnn::Merge;

/// A shape; `-1` is an unknown dimension.
pub type Sh = Option<Vec<i64>>;

/// `a` op `b` on known dims, unknown otherwise.
fn known(a: i64, b: i64, f: impl Fn(i64, i64) -> i64) -> i64 {
    if a < 0 || b < 0 {
        -1
    } else {
        f(a, b)
    }
}

/// Output length of a window over `n` (conv and pool arithmetic; Keras's `conv_output_length`).
fn window(n: i64, k: i64, s: i64, d: i64, p: Padding) -> i64 {
    let k = (k - 1) * d + 1;
    match p {
        _ if n < 0 => -1,
        Padding::Same | Padding::Causal => (n + s - 1) / s,
        Padding::Valid if n < k => -1,
        Padding::Valid => (n - k) / s + 1,
    }
}

/// The spatial axes of a rank-`g.rank` input mapped through `f(n, axis in [d, h, w])`, channels
/// set to `c` (`-1`: kept).
fn spatial(x: &[i64], g: &ConvGeom, c: i64, f: impl Fn(i64, usize) -> i64) -> Sh {
    if x.len() != g.rank + 2 {
        return None;
    }
    let mut y = x.to_vec();
    for (i, n) in y[1..=g.rank].iter_mut().enumerate() {
        *n = f(*n, 3 - g.rank + i);
    }
    if c >= 0 {
        y[g.rank + 1] = c;
    }
    Some(y)
}

fn prod(d: &[i64]) -> i64 {
    d.iter().fold(1, |a, &b| known(a, b, |a, b| a * b))
}

fn axis(a: i64, rank: usize) -> Option<usize> {
    crate::tensor::Shape::normalize_axis(a, rank).ok()
}

/// Right-aligned broadcast of `shapes` (a known dim other than 1 wins).
fn broadcast(shapes: &[Sh]) -> Sh {
    let shapes: Vec<&Vec<i64>> = shapes.iter().map(Option::as_ref).collect::<Option<_>>()?;
    let r = shapes.iter().map(|s| s.len()).max()?;
    Some(
        (0..r)
            .map(|i| {
                let ds = shapes
                    .iter()
                    .filter_map(|s| (s.len() + i).checked_sub(r).map(|j| s[j]));
                let ds: Vec<i64> = ds.collect();
                ds.iter()
                    .copied()
                    .find(|&d| d >= 0 && d != 1)
                    .unwrap_or(if ds.iter().all(|&d| d == 1) { 1 } else { -1 })
            })
            .collect(),
    )
}

impl Kind {
    /// This layer's output shapes for inputs of shapes `ins`; `w` gives a weight's shape.
    pub fn out_shapes(&self, ins: &[Sh], w: &dyn Fn(W) -> Vec<i64>) -> Vec<Sh> {
        let x = match ins {
            [Some(x)] => x.clone(),
            _ => match self {
                Kind::Merge(_) | Kind::Concatenate(_) | Kind::Dot { .. } | Kind::Model(_) => {
                    Vec::new()
                }
                _ => return vec![None],
            },
        };
        let last = |c: i64| -> Sh {
            let mut y = x.clone();
            *y.last_mut()? = c;
            Some(y)
        };
        let one = match self {
            Kind::Dense { kernel, .. } => last(w(*kernel)[1]),
            Kind::Conv { geom, kernel, .. } => {
                spatial(&x, geom, *w(*kernel).last().unwrap_or(&-1), |n, i| {
                    window(
                        n,
                        geom.kernel[i],
                        geom.strides[i],
                        geom.dilation[i],
                        geom.padding,
                    )
                })
            }
            Kind::Depthwise { geom, kernel, .. } => {
                let k = w(*kernel);
                let c = known(
                    x.last().copied().unwrap_or(-1),
                    *k.last().unwrap_or(&-1),
                    |a, b| a * b,
                );
                spatial(&x, geom, c, |n, i| {
                    window(
                        n,
                        geom.kernel[i],
                        geom.strides[i],
                        geom.dilation[i],
                        geom.padding,
                    )
                })
            }
            Kind::Separable {
                geom, pointwise, ..
            } => spatial(&x, geom, *w(*pointwise).last().unwrap_or(&-1), |n, i| {
                window(
                    n,
                    geom.kernel[i],
                    geom.strides[i],
                    geom.dilation[i],
                    geom.padding,
                )
            }),
            Kind::ConvTranspose { geom, filters, .. } => {
                spatial(&x, geom, *filters as i64, |n, i| {
                    if n < 0 {
                        -1
                    } else {
                        super::forward::deconv_len(n, i - 1, geom).unwrap_or(-1)
                    }
                })
            }
            Kind::Pool { geom, .. } => spatial(&x, geom, -1, |n, i| {
                window(n, geom.kernel[i], geom.strides[i], 1, geom.padding)
            }),
            Kind::GlobalPool { rank, keepdims, .. } => {
                if x.len() != rank + 2 {
                    None
                } else if *keepdims {
                    let mut y = vec![1; x.len()];
                    y[0] = x[0];
                    y[rank + 1] = x[rank + 1];
                    Some(y)
                } else {
                    Some(vec![x[0], x[rank + 1]])
                }
            }
            Kind::Flatten => x.first().map(|&b| vec![b, prod(&x[1..])]),
            Kind::Reshape(t) => {
                let n = prod(&x[1..]);
                let rest = prod(&t.iter().copied().filter(|&d| d != -1).collect::<Vec<_>>());
                let fill = known(n, rest, |n, r| if r > 0 { n / r } else { -1 });
                let mut y = vec![*x.first().unwrap_or(&-1)];
                y.extend(t.iter().map(|&d| if d == -1 { fill } else { d }));
                Some(y)
            }
            Kind::Permute(dims) if x.len() == dims.len() + 1 => {
                let mut y = vec![x[0]];
                y.extend(dims.iter().map(|&d| x[d as usize]));
                Some(y)
            }
            Kind::RepeatVector(n) if x.len() == 2 => Some(vec![x[0], *n, x[1]]),
            Kind::Merge(op) if *op != MergeOp::Subtract || ins.len() == 2 => broadcast(ins),
            Kind::Concatenate(a) => {
                let all: Vec<&Vec<i64>> = ins
                    .iter()
                    .map(Option::as_ref)
                    .collect::<Option<_>>()
                    .unwrap_or_default();
                let first = all.first().copied();
                first.and_then(|f| {
                    let a = axis(*a, f.len())?;
                    let mut y = f.clone();
                    y[a] = all
                        .iter()
                        .fold(0, |s, d| known(s, *d.get(a).unwrap_or(&-1), |s, d| s + d));
                    Some(y)
                })
            }
            Kind::Dot { axes, .. } => match ins {
                [Some(a), Some(b)] if a.len() >= 2 && b.len() >= 2 => {
                    let rest = |s: &Vec<i64>, ax: i64| -> Option<Vec<i64>> {
                        let ax = axis(ax, s.len())?;
                        Some(
                            s.iter()
                                .enumerate()
                                .skip(1)
                                .filter(|&(i, _)| i != ax)
                                .map(|(_, &d)| d)
                                .collect(),
                        )
                    };
                    let (ra, rb) = (rest(a, axes[0]), rest(b, axes[1]));
                    ra.zip(rb).map(|(ra, rb)| {
                        let mut y = vec![a[0]];
                        y.extend(ra);
                        y.extend(rb);
                        if y.len() == 1 {
                            y.push(1);
                        }
                        y
                    })
                }
                _ => None,
            },
            Kind::ZeroPad(p) | Kind::Crop(p) if x.len() == p.len() + 2 => {
                let sign = if matches!(self, Kind::Crop(_)) { -1 } else { 1 };
                let mut y = x.clone();
                for (i, &(a, b)) in p.iter().enumerate() {
                    y[i + 1] = known(y[i + 1], 0, |n, _| n + sign * (a + b));
                }
                Some(y)
            }
            Kind::UpSample { size, .. } if x.len() == size.len() + 2 => {
                let mut y = x.clone();
                for (i, &s) in size.iter().enumerate() {
                    y[i + 1] = known(y[i + 1], s, |n, s| n * s);
                }
                Some(y)
            }
            Kind::Embedding { table, .. } => {
                let mut y = x.clone();
                y.push(w(*table)[1]);
                Some(y)
            }
            Kind::Resizing([h, w]) | Kind::CenterCrop([h, w]) if x.len() == 4 => {
                Some(vec![x[0], *h, *w, x[3]])
            }
            Kind::Rnn(r) => return r.out_shapes(&x),
            Kind::Bidirectional { fwd, merge, .. } => {
                let mut y = fwd.out_shapes(&x);
                y.truncate(1);
                return match merge {
                    Merge::None => vec![y[0].clone(), y[0].clone()],
                    Merge::Concat => vec![y[0].as_ref().and_then(|s| {
                        let mut s = s.clone();
                        let l = s.last_mut()?;
                        *l *= 2;
                        Some(s)
                    })],
                    _ => y,
                };
            }
            Kind::TimeDistributed(inner) if x.len() >= 3 => {
                let mut xi = vec![-1];
                xi.extend(&x[2..]);
                inner.out_shapes(&[Some(xi)], w)[0].as_ref().map(|y| {
                    let mut s = vec![x[0], x[1]];
                    s.extend(&y[1..]);
                    s
                })
            }
            Kind::Model(g) => return g.out_shapes(ins.to_vec(), w),
            Kind::Input
            | Kind::Identity
            | Kind::Activation(_)
            | Kind::BatchNorm { .. }
            | Kind::LayerNorm { .. }
            | Kind::Relu { .. }
            | Kind::LeakyRelu(_)
            | Kind::Prelu(_)
            | Kind::Elu(_)
            | Kind::ThresholdedRelu(_)
            | Kind::Softmax(_)
            | Kind::Rescaling { .. }
            | Kind::Normalization { .. }
            | Kind::Masking(_)
            | Kind::NotEqual(_) => Some(x),
            _ => None,
        };
        vec![one]
    }
}
