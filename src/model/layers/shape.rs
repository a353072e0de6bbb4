//! Static output shapes of a layer graph, from its input shapes, as Keras's `compute_output_shape`
//! gives them (`-1`: a dimension Keras does not know either; `None`: unknown rank). Only for
//! `model.outputs`: a shape this cannot work out is `None`, never an error. Written for size (it
//! runs once per load): shapes are edited in place, `?` gives up.

use super::bind::W;
use super::forward::deconv_len;
use super::kind::{Kind, Padding};
use super::rnn::{Cell, Merge, Rnn};

/// A shape; `-1` is an unknown dimension.
pub type Sh = Option<Vec<i64>>;

/// `f(a, b)` if both are known dims, else unknown.
fn known(a: i64, b: i64, f: fn(i64, i64) -> i64) -> i64 {
    if a < 0 || b < 0 {
        -1
    } else {
        f(a, b)
    }
}

fn prod(d: &[i64]) -> i64 {
    d.iter().fold(1, |a, &b| known(a, b, i64::saturating_mul))
}

fn axis(a: i64, rank: usize) -> Option<usize> {
    crate::tensor::Shape::normalize_axis(a, rank).ok()
}

impl Kind {
    /// This layer's output shapes for inputs of shapes `ins`; `w` gives a weight's shape.
    pub fn out_shapes(&self, ins: &[Sh], w: &dyn Fn(W) -> Vec<i64>) -> Vec<Sh> {
        match (self, ins) {
            (Kind::Model(g), _) => g.out_shapes(ins.to_vec(), w),
            (Kind::Rnn(r), [Some(x)]) => r.out_shapes(x),
            (Kind::Bidirectional { fwd, merge, .. }, [Some(x)]) => {
                let mut y = fwd.out_shapes(x).swap_remove(0);
                if let (Merge::Concat, Some(d)) = (merge, y.as_mut().and_then(|s| s.last_mut())) {
                    *d *= 2;
                }
                vec![y; 1 + usize::from(*merge == Merge::None)]
            }
            _ => vec![self.out_shape(ins, w)],
        }
    }

    fn out_shape(&self, ins: &[Sh], w: &dyn Fn(W) -> Vec<i64>) -> Sh {
        let all: Vec<&Vec<i64>> = ins.iter().map(Option::as_ref).collect::<Option<_>>()?;
        // Config dims are below 1e15, but products of them are not: past 2^40 is past any tensor.
        if all.iter().flat_map(|s| s.iter()).any(|&d| d > 1 << 40) {
            return None;
        }
        let mut y = (*all.first()?).clone();
        let r = y.len();
        let b = *y.first()?;
        let last = |k: W| *w(k).last().unwrap_or(&-1);
        match self {
            Kind::Dense { kernel, .. } => *y.last_mut()? = last(*kernel),
            Kind::Embedding { table, .. } => y.push(last(*table)),
            Kind::Conv { geom, .. }
            | Kind::Depthwise { geom, .. }
            | Kind::Separable { geom, .. }
            | Kind::ConvTranspose { geom, .. }
            | Kind::Pool { geom, .. } => {
                if r != geom.rank + 2 {
                    return None;
                }
                y[r - 1] = match self {
                    Kind::Conv { kernel, .. } => last(*kernel),
                    Kind::Separable { pointwise, .. } => last(*pointwise),
                    Kind::Depthwise { kernel, .. } => {
                        known(y[r - 1], last(*kernel), i64::saturating_mul)
                    }
                    Kind::ConvTranspose { filters, .. } => *filters as i64,
                    _ => y[r - 1],
                };
                let pool = matches!(self, Kind::Pool { .. });
                for i in 0..geom.rank {
                    let a = 3 - geom.rank + i;
                    let n = y[i + 1];
                    let (s, d) = (geom.strides[a], if pool { 1 } else { geom.dilation[a] });
                    let k = (geom.kernel[a] - 1) * d + 1;
                    y[i + 1] = if n < 0 {
                        -1
                    } else if let Kind::ConvTranspose { .. } = self {
                        deconv_len(n, a - 1, geom).ok()?
                    } else if geom.padding != Padding::Valid {
                        (n + s - 1) / s
                    } else if n >= k {
                        (n - k) / s + 1
                    } else {
                        return None;
                    };
                }
            }
            Kind::GlobalPool { rank, keepdims, .. } => {
                if r != rank + 2 {
                    return None;
                }
                let c = y[r - 1];
                y = if *keepdims { vec![1; r] } else { vec![1, 1] };
                y[0] = b;
                *y.last_mut()? = c;
            }
            Kind::Flatten => y = vec![b, prod(&y[1..])],
            Kind::Reshape(t) => {
                let rest = prod(&t.iter().copied().filter(|&d| d != -1).collect::<Vec<_>>());
                let fill = known(prod(&y[1..]), rest, |n, r| if r > 0 { n / r } else { -1 });
                y = vec![b];
                y.extend(t.iter().map(|&d| if d == -1 { fill } else { d }));
            }
            Kind::Permute(dims) => {
                let x = y.clone();
                for (i, &d) in dims.iter().enumerate() {
                    *y.get_mut(i + 1)? = *x.get(d as usize)?;
                }
            }
            Kind::RepeatVector(n) => y.insert(1, *n),
            Kind::Merge(_) => {
                // Right-aligned broadcast: a known dim other than 1 wins.
                y = vec![1; all.iter().map(|s| s.len()).max()?];
                let n = y.len();
                for s in &all {
                    for (i, &d) in s.iter().enumerate() {
                        let o = &mut y[n - s.len() + i];
                        if *o == 1 || (*o < 0 && d > 1) {
                            *o = d;
                        }
                    }
                }
            }
            Kind::Concatenate(a) => {
                let a = axis(*a, r)?;
                y[a] = all[1..].iter().try_fold(y[a], |s, d| {
                    d.get(a).map(|&d| known(s, d, i64::saturating_add))
                })?;
            }
            Kind::Dot { axes, .. } => {
                // [batch] + each input's free axes; [batch, 1] when none is left.
                y = vec![b];
                for (s, &ax) in all.get(..2)?.iter().zip(axes) {
                    let ax = axis(ax, s.len())?;
                    y.extend(
                        s.iter()
                            .enumerate()
                            .skip(1)
                            .filter(|&(i, _)| i != ax)
                            .map(|p| p.1),
                    );
                }
                if y.len() == 1 {
                    y.push(1);
                }
            }
            Kind::ZeroPad(p) | Kind::Crop(p) => {
                let sign = if let Kind::Crop(_) = self { -1 } else { 1 };
                for (i, &(lo, hi)) in p.iter().enumerate() {
                    let n = y.get_mut(i + 1)?;
                    *n = if *n < 0 { -1 } else { *n + sign * (lo + hi) };
                }
            }
            Kind::UpSample { size, .. } => {
                for (i, &s) in size.iter().enumerate() {
                    let n = y.get_mut(i + 1)?;
                    *n = known(*n, s, i64::saturating_mul);
                }
            }
            Kind::Resizing([h, w]) | Kind::CenterCrop([h, w]) if r == 4 => (y[1], y[2]) = (*h, *w),
            Kind::TimeDistributed(inner) if r >= 3 => {
                let mut xi = vec![-1];
                xi.extend(&y[2..]);
                let yi = inner.out_shape(&[Some(xi)], w)?;
                y.truncate(2);
                y.extend(yi.get(1..)?);
            }
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
            | Kind::NotEqual(_) => {}
            _ => return None,
        }
        Some(y)
    }
}

impl Rnn {
    /// Output shapes for an input of shape `x` (`[batch, time, features]`).
    pub fn out_shapes(&self, x: &[i64]) -> Vec<Sh> {
        let [b, t, _] = x else {
            return vec![None];
        };
        let (b, u) = (*b, self.units as i64);
        let mut out = vec![Some(if self.return_sequences() {
            vec![b, *t, u]
        } else {
            vec![b, u]
        })];
        if self.return_state {
            let n = if self.cell == Cell::Lstm { 2 } else { 1 };
            out.extend(std::iter::repeat_n(Some(vec![b, u]), n));
        }
        out
    }
}
