//! NumPy/TF broadcasting for elementwise binary kernels.
//!
//! The walk is planned once, without generics ([`Plan`]): size-1 dims are dropped and adjacent
//! dims with the same broadcast pattern merged, which leaves a sequence of rows, each a slice of
//! both operands where either side may be one repeated element. Only the row loop (three tight,
//! vectorizable loops) is generic, so every (op, dtype) instantiation stays small.

use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, Element, Shape, Tensor};

/// The broadcast of two shapes (aligned at the right; a dim of 1 stretches), or InvalidArgument.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let rank = a.len().max(b.len());
    (0..rank)
        .map(|i| {
            let (da, db) = (aligned_dim(a, i, rank), aligned_dim(b, i, rank));
            match (da, db) {
                (x, y) if x == y => Ok(x),
                (1, y) => Ok(y),
                (x, 1) => Ok(x),
                _ => Err(incompatible(a, b, i, da, db)),
            }
        })
        .collect()
}

/// Dim `i` of `dims` when right-aligned to `rank` dims (1 where `dims` has no such dim).
fn aligned_dim(dims: &[usize], i: usize, rank: usize) -> usize {
    (i + dims.len()).checked_sub(rank).map_or(1, |j| dims[j])
}

#[cold]
#[inline(never)]
fn incompatible(a: &[usize], b: &[usize], i: usize, da: usize, db: usize) -> crate::status::Status {
    invalid_argument(format!(
        "incompatible shapes {a:?} and {b:?} (dimension {i}: {da} vs {db})"
    ))
}

/// A broadcast walk of two operands: rows of `inner` output elements; in each row an operand
/// advances by one element (`step` 1) or repeats one element (`step` 0).
pub struct Plan {
    /// The output shape.
    pub shape: Shape,
    /// Merged outer dims (outermost first) and each operand's element stride along them.
    outer: Vec<(usize, usize, usize)>,
    inner: usize,
    step_a: usize,
    step_b: usize,
}

impl Plan {
    /// Plans `a (op) b`; InvalidArgument when the shapes do not broadcast.
    pub fn new(a: &[usize], b: &[usize]) -> Result<Plan> {
        let shape = Shape::new(broadcast_shapes(a, b)?)?;
        let out = shape.dims();
        let rank = out.len();
        // Merged dims, innermost first: (size, stride in a, stride in b).
        let mut dims: Vec<(usize, usize, usize)> = Vec::new();
        let (mut sa, mut sb) = (1usize, 1usize);
        for i in (0..rank).rev() {
            let (da, db) = (aligned_dim(a, i, rank), aligned_dim(b, i, rank));
            let d = out[i];
            if d == 1 {
                continue;
            }
            let (ta, tb) = (if da == 1 { 0 } else { sa }, if db == 1 { 0 } else { sb });
            match dims.last_mut() {
                // Same pattern as the dim inside it and contiguous with it: merge.
                Some(last)
                    if (ta == 0) == (last.1 == 0)
                        && (tb == 0) == (last.2 == 0)
                        && (ta == 0 || ta == last.0 * last.1)
                        && (tb == 0 || tb == last.0 * last.2) =>
                {
                    last.0 *= d;
                }
                _ => dims.push((d, ta, tb)),
            }
            sa *= da;
            sb *= db;
        }
        let (inner, step_a, step_b) = match dims.first() {
            Some(&(d, ta, tb)) => {
                dims.remove(0);
                (d, usize::from(ta != 0), usize::from(tb != 0))
            }
            None => (1, 1, 1),
        };
        dims.reverse();
        Ok(Plan {
            shape,
            outer: dims,
            inner,
            step_a,
            step_b,
        })
    }

    /// Calls `row(a_offset, b_offset)` for each row in output order. Not generic: the row
    /// callback is the only per-type code.
    #[inline(never)]
    pub fn for_each_row(&self, row: &mut dyn FnMut(usize, usize)) {
        if self.shape.num_elements() == 0 {
            return;
        }
        let rank = self.outer.len();
        let mut idx = vec![0usize; rank];
        let (mut oa, mut ob) = (0usize, 0usize);
        loop {
            row(oa, ob);
            let mut d = rank;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                let (n, ta, tb) = self.outer[d];
                idx[d] += 1;
                oa += ta;
                ob += tb;
                if idx[d] < n {
                    break;
                }
                oa -= ta * n;
                ob -= tb * n;
                idx[d] = 0;
            }
        }
    }

    /// Folds the innermost outer dim into the rows when along it `a` runs on contiguously and `b`
    /// repeats its row (`[1, 192, 192, 3] - [3]`: 36,864 rows of 3 become one of 110,592 against
    /// a row of 3 repeated), for rows shorter than `max_inner`: per-row overhead (the walk, a
    /// call) then dominates the row's work. Returns the lengths a folded row reads from a and b.
    /// (Only `b` repeating: the form of a per-channel normalisation, `x - mean`, `x * scale`; the
    /// mirror case would be one more loop per op in the .wasm.)
    fn fold_repeated(&mut self, max_inner: usize) -> Option<(usize, usize)> {
        let &(n, ta, tb) = self.outer.last()?;
        if self.inner >= max_inner || self.step_a != 1 || self.step_b != 1 {
            return None;
        }
        if tb != 0 || ta != self.inner {
            return None;
        }
        let long = n.checked_mul(self.inner)?;
        self.outer.pop();
        Some((long, self.inner))
    }

    /// Elements of `a` (`is_b` false) or `b` one row reads from its offset.
    fn span(&self, is_b: bool) -> usize {
        let step = if is_b { self.step_b } else { self.step_a };
        if step == 1 {
            self.inner
        } else {
            1
        }
    }
}

/// One row: `x` and `y` are equally long, or one of them is a single repeated element.
#[inline(always)]
fn row<A: Copy, B: Copy, O>(out: &mut Vec<O>, x: &[A], y: &[B], f: &impl Fn(A, B) -> O) {
    if x.len() == y.len() {
        out.extend(x.iter().zip(y).map(|(&p, &q)| f(p, q)));
    } else if let [q] = *y {
        out.extend(x.iter().map(|&p| f(p, q)));
    } else if let [p] = *x {
        out.extend(y.iter().map(|&q| f(p, q)));
    }
}

/// Rows shorter than this, repeated along a contiguous operand, are folded (`Plan::fold_repeated`).
const FOLD_INNER: usize = 64;
/// Elements of the tiled copy of a folded row (a multiple of the row; a few vectors' worth).
const TILE: usize = 256;

/// Elementwise `f(a, b)` with broadcasting.
pub fn binary_map<A: Element, B: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(A, B) -> O,
) -> Result<Tensor> {
    let (x, y) = (a.as_slice::<A>()?, b.as_slice::<B>()?);
    if a.dims() == b.dims() {
        let mut out = try_with_capacity::<O>(x.len())?;
        row(&mut out, x, y, &f);
        return Tensor::from_vec(a.shape().clone(), out);
    }
    planned(Plan::new(a.dims(), b.dims())?, x, y, &f)
}

/// [`binary_map`] that also walks short rows repeated against a contiguous operand (a
/// per-channel `[..., 3]` operand: an image normalised per channel) as long rows against a tiled
/// copy. For the float32 arithmetic that models run on whole images (Add, Sub, Mul, Div, ...);
/// each use instantiates one more loop, so comparisons and the rest keep `binary_map`.
pub fn binary_map_tiled<A: Element, B: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(A, B) -> O,
) -> Result<Tensor> {
    let mut plan = match a.dims() == b.dims() {
        true => None,
        false => Some(Plan::new(a.dims(), b.dims())?),
    };
    let Some((la, lb)) = plan.as_mut().and_then(|p| p.fold_repeated(FOLD_INNER)) else {
        return binary_map(a, b, f);
    };
    let plan = plan.ok_or_else(|| crate::status::internal("broadcast plan missing"))?;
    let (x, y) = (a.as_slice::<A>()?, b.as_slice::<B>()?);
    let mut out = try_with_capacity::<O>(plan.shape.num_elements())?;
    let reps = (TILE / lb.max(1)).max(1);
    let mut tile = try_with_capacity::<B>(lb * reps)?;
    plan.for_each_row(&mut |i, j| {
        // In range by construction; `get` keeps a planning bug from becoming a panic.
        let (Some(p), Some(q)) = (x.get(i..i + la), y.get(j..j + lb)) else {
            return;
        };
        // `a` in chunks of whole periods, each against as much of the tiled row of `b`.
        tile.clear();
        (0..reps).for_each(|_| tile.extend_from_slice(q));
        for c in p.chunks(tile.len().max(1)) {
            out.extend(c.iter().zip(&tile).map(|(&u, &v)| f(u, v)));
        }
    });
    Tensor::from_vec(plan.shape, out)
}

/// The broadcast walk of `plan` over `x` and `y`, applying `f`.
#[inline(always)]
fn planned<A: Element, B: Element, O: Element>(
    plan: Plan,
    x: &[A],
    y: &[B],
    f: &impl Fn(A, B) -> O,
) -> Result<Tensor> {
    let mut out = try_with_capacity::<O>(plan.shape.num_elements())?;
    let (la, lb) = (plan.span(false), plan.span(true));
    plan.for_each_row(&mut |i, j| {
        // In range by construction; `get` keeps a planning bug from becoming a panic.
        if let (Some(p), Some(q)) = (x.get(i..i + la), y.get(j..j + lb)) {
            row(&mut out, p, q, f);
        }
    });
    Tensor::from_vec(plan.shape, out)
}

/// [`binary_map`] through a function pointer: one instantiation per element-type triple, shared
/// by every op that uses it (for dtypes and ops whose speed matters less than code size). Equal
/// shapes take the planned walk too (one row), so the row loops are instantiated once, not twice.
#[inline(never)]
pub fn binary_map_fn<A: Element, B: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    f: fn(A, B) -> O,
) -> Result<Tensor> {
    let (x, y) = (a.as_slice::<A>()?, b.as_slice::<B>()?);
    planned(Plan::new(a.dims(), b.dims())?, x, y, &f)
}

/// Element strides of `dims` as seen from the broadcast shape `out` (0 on stretched dims).
pub(crate) fn stretched_strides(dims: &[usize], out: &[usize]) -> Vec<usize> {
    let offset = out.len() - dims.len();
    let mut strides = vec![0; out.len()];
    let mut s = 1;
    for i in (0..dims.len()).rev() {
        strides[i + offset] = if dims[i] == 1 { 0 } else { s };
        s *= dims[i];
    }
    strides
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_broadcast_like_numpy() {
        assert_eq!(
            broadcast_shapes(&[2, 1, 3], &[4, 1]).unwrap(),
            vec![2, 4, 3]
        );
        assert_eq!(broadcast_shapes(&[], &[5]).unwrap(), vec![5]);
        assert_eq!(broadcast_shapes(&[0, 3], &[1, 3]).unwrap(), vec![0, 3]);
        assert!(broadcast_shapes(&[2, 3], &[3, 2]).is_err());
    }

    #[test]
    fn general_broadcast_matches_manual() {
        let a = Tensor::from_slice(&[2, 1, 3], &[1f32, 2., 3., 4., 5., 6.]).unwrap();
        let b = Tensor::from_slice(&[2, 1], &[10f32, 20.]).unwrap();
        let c = binary_map(&a, &b, |x: f32, y: f32| x + y).unwrap();
        assert_eq!(c.dims(), &[2, 2, 3]);
        assert_eq!(
            c.f32s().unwrap(),
            &[11., 12., 13., 21., 22., 23., 14., 15., 16., 24., 25., 26.]
        );
    }

    /// Every broadcast layout against a naive index computation.
    #[test]
    fn planned_rows_match_naive_broadcast() {
        let shapes: &[(&[usize], &[usize])] = &[
            (&[2, 3, 4], &[4]),
            (&[2, 3, 4], &[3, 1]),
            (&[2, 1, 4], &[1, 3, 1]),
            (&[1], &[2, 3]),
            (&[2, 3], &[]),
            (&[], &[]),
            (&[1, 1], &[1]),
            (&[3, 1, 2, 1], &[1, 4, 2, 5]),
            (&[2, 0, 3], &[1, 3]),
            (&[5, 1, 1, 3], &[5, 2, 2, 3]),
            (&[1, 2, 1, 2], &[2, 1, 2, 1]),
            // Folded rows: a short row repeated along a contiguous operand, over one or more
            // outer dims, longer and shorter than the tile.
            (&[1, 19, 23, 3], &[3]),
            (&[2, 1, 1, 5], &[2, 7, 11, 5]),
            (&[4, 100, 1], &[1]),
            (&[3, 200, 2], &[3, 1, 2]),
            (&[2, 90, 63], &[63]),
        ];
        for &(da, db) in shapes {
            let na: usize = crate::kernels::num::prod(da);
            let nb: usize = crate::kernels::num::prod(db);
            let va: Vec<f32> = (0..na).map(|i| i as f32).collect();
            let vb: Vec<f32> = (0..nb).map(|i| 1000.0 * i as f32).collect();
            let a = Tensor::from_slice(da, &va).unwrap();
            let b = Tensor::from_slice(db, &vb).unwrap();
            for (x, y) in [(&a, &b), (&b, &a)] {
                let got = binary_map(x, y, |p: f32, q: f32| p + 2.0 * q).unwrap();
                let tiled = binary_map_tiled(x, y, |p: f32, q: f32| p + 2.0 * q).unwrap();
                assert_eq!(tiled.f32s().unwrap(), got.f32s().unwrap());
                let out = broadcast_shapes(x.dims(), y.dims()).unwrap();
                assert_eq!(got.dims(), &out[..]);
                let (sx, sy) = (
                    super::stretched_strides(x.dims(), &out),
                    super::stretched_strides(y.dims(), &out),
                );
                let n: usize = crate::kernels::num::prod(&out);
                let (px, py) = (x.f32s().unwrap(), y.f32s().unwrap());
                let want: Vec<f32> = (0..n)
                    .map(|mut k| {
                        let (mut i, mut j) = (0, 0);
                        for d in (0..out.len()).rev() {
                            let c = k % out[d];
                            k /= out[d];
                            i += c * sx[d];
                            j += c * sy[d];
                        }
                        px[i] + 2.0 * py[j]
                    })
                    .collect();
                assert_eq!(
                    got.f32s().unwrap(),
                    &want[..],
                    "{:?} with {:?}",
                    x.dims(),
                    y.dims()
                );
            }
        }
    }
}
