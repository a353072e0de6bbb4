//! The strided copy behind Slice, StridedSlice, Transpose: reads a view (offset, dims, signed
//! element strides) of a row-major buffer into a new contiguous buffer. Dims are coalesced first,
//! so a slice that keeps whole rows copies them as single runs.

use super::assemble::assemble;
use crate::status::{internal, Result};
use crate::tensor::{try_alloc, DType, Element, Shape, Tensor};

/// Block edge for the cache-friendly 2-D transpose path.
const TILE: usize = 16;

/// Returns a tensor of `shape` with `out[i0, .., ik] = x[offset + sum(i_d * strides[d])]` in
/// row-major order over `dims` (which has `shape`'s element count). Strides may be negative
/// (reversed slices) or zero (broadcast reads). Every address the view touches must lie in `x`;
/// this is checked once up front (Internal error otherwise).
pub fn gather_strided(
    x: &Tensor,
    offset: isize,
    dims: &[usize],
    strides: &[isize],
    shape: Shape,
) -> Result<Tensor> {
    if dims.len() != strides.len() {
        return Err(internal(
            "gather_strided: dims and strides differ in length",
        ));
    }
    let total = dims
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| internal("gather_strided: element count overflows"))?;
    if total == 0 {
        return assemble(&[], x.dtype(), shape, &mut |_| {});
    }
    let (dims, strides) = coalesce(dims, strides);
    check_bounds(x.num_elements(), offset, &dims, &strides)?;
    let k = dims.len();
    if k == 0 {
        return assemble(&[x], x.dtype(), shape, &mut |emit| {
            emit(0, offset as usize, 1, 1)
        });
    }
    let (n, s) = (dims[k - 1], strides[k - 1]);
    if s != 1 && k >= 2 && strides[k - 2] == 1 && dims[k - 2] >= TILE && n >= TILE {
        // Tiled for the common dtypes only; int64 and bool take the run copy below (same result).
        match x.dtype() {
            DType::Float32 => {
                let out = transpose_tiled(x.f32s()?, offset, &dims, &strides, total)?;
                return Tensor::from_vec(shape, out);
            }
            DType::Int32 => {
                let out = transpose_tiled(x.as_slice::<i32>()?, offset, &dims, &strides, total)?;
                return Tensor::from_vec(shape, out);
            }
            _ => {}
        }
    }
    assemble(&[x], x.dtype(), shape, &mut |emit| {
        for_each_base(offset, &dims[..k - 1], &strides[..k - 1], |b| {
            emit(0, b as usize, n, s)
        })
    })
}

/// Drops size-1 dims and merges neighbours that are contiguous in `src`.
fn coalesce(dims: &[usize], strides: &[isize]) -> (Vec<usize>, Vec<isize>) {
    let mut d: Vec<usize> = Vec::with_capacity(dims.len());
    let mut s: Vec<isize> = Vec::with_capacity(dims.len());
    for (&dim, &st) in dims.iter().zip(strides) {
        if dim == 1 {
            continue;
        }
        if let Some(&ps) = s.last() {
            // The previous dim steps exactly over one run of this one: merge them.
            if ps == st * dim as isize {
                let last = d.len() - 1;
                d[last] *= dim;
                s[last] = st;
                continue;
            }
        }
        d.push(dim);
        s.push(st);
    }
    (d, s)
}

/// Verifies the lowest and highest address of the view are inside `len` elements.
fn check_bounds(len: usize, offset: isize, dims: &[usize], strides: &[isize]) -> Result<()> {
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&d, &s) in dims.iter().zip(strides) {
        let span = (d as i128 - 1) * s as i128;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    if lo < 0 || hi >= len as i128 {
        return Err(internal(format!(
            "strided view [{lo}, {hi}] exceeds a buffer of {len} elements"
        )));
    }
    Ok(())
}

/// Calls `f(base)` for every index of `dims` in row-major order, where `base` is the source
/// address of that index (an odometer: no division per step).
pub fn for_each_base(offset: isize, dims: &[usize], strides: &[isize], mut f: impl FnMut(isize)) {
    if dims.contains(&0) {
        return;
    }
    let r = dims.len();
    let mut idx = vec![0usize; r];
    let mut base = offset;
    loop {
        f(base);
        let mut d = r;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            base += strides[d];
            if idx[d] < dims[d] {
                break;
            }
            base -= strides[d] * dims[d] as isize;
            idx[d] = 0;
        }
    }
}

/// The last two dims are a transpose (the source is contiguous along the second-to-last): copy
/// in square tiles so both reads and writes stay within a few cache lines.
fn transpose_tiled<T: Element>(
    src: &[T],
    offset: isize,
    dims: &[usize],
    strides: &[isize],
    total: usize,
) -> Result<Vec<T>> {
    let k = dims.len();
    let (a, b) = (dims[k - 2], dims[k - 1]);
    let sb = strides[k - 1];
    let mut out = try_alloc::<T>(total)?;
    let mut o = 0usize;
    for_each_base(offset, &dims[..k - 2], &strides[..k - 2], |base| {
        let block = &mut out[o..o + a * b];
        for i0 in (0..a).step_by(TILE) {
            let i1 = (i0 + TILE).min(a);
            for j0 in (0..b).step_by(TILE) {
                let j1 = (j0 + TILE).min(b);
                for j in j0..j1 {
                    let col = base + j as isize * sb;
                    for i in i0..i1 {
                        block[i * b + j] = src[(col + i as isize) as usize];
                    }
                }
            }
        }
        o += a * b;
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(src: &Tensor, offset: isize, dims: &[usize], strides: &[isize]) -> Result<Vec<i32>> {
        let shape = Shape::from_dims(dims)?;
        Ok(gather_strided(src, offset, dims, strides, shape)?
            .as_slice::<i32>()?
            .to_vec())
    }

    #[test]
    fn slices_reverses_and_transposes() {
        let v: Vec<i32> = (0..12).collect(); // [3, 4]
        let src = Tensor::from_slice(&[12], &v).unwrap();
        assert_eq!(view(&src, 5, &[2, 2], &[4, 1]).unwrap(), vec![5, 6, 9, 10]);
        assert_eq!(
            view(&src, 11, &[3, 4], &[-4, -1]).unwrap(),
            (0..12).rev().collect::<Vec<_>>()
        );
        assert_eq!(
            view(&src, 0, &[4, 3], &[1, 4]).unwrap(),
            vec![0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
        );
        assert_eq!(view(&src, 0, &[0, 3], &[1, 4]).unwrap(), Vec::<i32>::new());
        assert_eq!(
            view(&src, 2, &[3, 2], &[0, 3]).unwrap(),
            vec![2, 5, 2, 5, 2, 5]
        );
        assert!(view(&src, 10, &[2], &[4]).is_err());
    }

    #[test]
    fn tiled_transpose_matches_naive() {
        let (r, c) = (37usize, 21usize);
        let v: Vec<i32> = (0..(r * c) as i32).collect();
        let src = Tensor::from_slice(&[r * c], &v).unwrap();
        let got = view(&src, 0, &[c, r], &[1, c as isize]).unwrap();
        for i in 0..c {
            for j in 0..r {
                assert_eq!(got[i * r + j], v[j * c + i]);
            }
        }
    }
}
