//! NumPy/TF broadcasting for elementwise binary kernels, with fast paths for the common layouts.

use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, Element, Shape, Tensor};

/// The broadcast of two shapes (aligned at the right; a dim of 1 stretches), or InvalidArgument.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for i in 0..rank {
        let da = if i + a.len() >= rank {
            a[i + a.len() - rank]
        } else {
            1
        };
        let db = if i + b.len() >= rank {
            b[i + b.len() - rank]
        } else {
            1
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(invalid_argument(format!(
                    "incompatible shapes {a:?} and {b:?} (dimension {i}: {da} vs {db})"
                )))
            }
        };
    }
    Ok(out)
}

/// Element strides of `dims` seen through the broadcast `out` shape (0 where broadcast).
fn broadcast_strides(dims: &[usize], out: &[usize]) -> Vec<usize> {
    let offset = out.len() - dims.len();
    let mut strides = vec![0; out.len()];
    let mut s = 1;
    for i in (0..dims.len()).rev() {
        strides[i + offset] = if dims[i] == 1 { 0 } else { s };
        s *= dims[i];
    }
    strides
}

/// Calls `f(a_index, b_index)` for every output element in row-major order.
fn for_each_broadcast(a: &[usize], b: &[usize], out: &[usize], mut f: impl FnMut(usize, usize)) {
    let rank = out.len();
    let n: usize = out.iter().product();
    if n == 0 {
        return;
    }
    if rank == 0 {
        f(0, 0);
        return;
    }
    let sa = broadcast_strides(a, out);
    let sb = broadcast_strides(b, out);
    let inner = out[rank - 1];
    let (ia, ib) = (sa[rank - 1], sb[rank - 1]);
    let mut idx = vec![0usize; rank];
    let (mut oa, mut ob) = (0usize, 0usize);
    let outer = n / inner;
    for _ in 0..outer {
        for k in 0..inner {
            f(oa + k * ia, ob + k * ib);
        }
        // Advance the odometer over all but the innermost dim.
        let mut d = rank - 1;
        while d > 0 {
            d -= 1;
            idx[d] += 1;
            oa += sa[d];
            ob += sb[d];
            if idx[d] < out[d] {
                break;
            }
            oa -= sa[d] * out[d];
            ob -= sb[d] * out[d];
            idx[d] = 0;
        }
    }
}

/// Elementwise `f(a, b)` with broadcasting.
pub fn binary_map<A: Element, B: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(A, B) -> O,
) -> Result<Tensor> {
    let (x, y) = (a.as_slice::<A>()?, b.as_slice::<B>()?);
    if a.dims() == b.dims() {
        let mut out = try_with_capacity::<O>(x.len())?;
        out.extend(x.iter().zip(y).map(|(&p, &q)| f(p, q)));
        return Tensor::from_vec(a.shape().clone(), out);
    }
    let dims = broadcast_shapes(a.dims(), b.dims())?;
    let shape = Shape::new(dims)?;
    let n = shape.num_elements();
    let mut out = try_with_capacity::<O>(n)?;
    if y.len() == 1 && shape.dims() == a.dims() {
        let q = y[0];
        out.extend(x.iter().map(|&p| f(p, q)));
    } else if x.len() == 1 && shape.dims() == b.dims() {
        let p = x[0];
        out.extend(y.iter().map(|&q| f(p, q)));
    } else if shape.dims() == a.dims()
        && !y.is_empty()
        && b.dims().last() == a.dims().last()
        && y.len() == *b.dims().last().unwrap_or(&0)
    {
        // Bias-like: `b` is one row repeated over `a`'s leading dims.
        for row in x.chunks_exact(y.len()) {
            out.extend(row.iter().zip(y).map(|(&p, &q)| f(p, q)));
        }
    } else {
        for_each_broadcast(a.dims(), b.dims(), shape.dims(), |i, j| {
            out.push(f(x[i], y[j]))
        });
    }
    Tensor::from_vec(shape, out)
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
}
