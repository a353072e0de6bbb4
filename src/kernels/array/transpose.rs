//! Transpose: validated like TF (negative perm entries wrap), aliased when only size-1 dims move,
//! otherwise a strided copy (coalesced dims; tiled when the innermost dims swap).

use super::{gather_strided, int_vector};
use crate::ops::def::{ANY, INDEX};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{DType, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Transpose", Simple(transpose_op))
            .strings_by_index()
            .input("x", "T")
            .input("perm", "Tperm")
            .type_attr("T", ANY)
            .type_attr_default("Tperm", INDEX, DType::Int32),
    );
}

/// Checks `perm` is a permutation of the dims of a rank-`rank` tensor (negative entries count
/// from the end) and returns it normalized.
pub fn normalize_perm(perm: &[i64], rank: usize) -> Result<Vec<usize>> {
    if perm.len() != rank {
        return Err(invalid_argument(format!(
            "Transpose expects a vector of size {rank} (input 'perm'), but it has size {}",
            perm.len()
        )));
    }
    let r = rank as i64;
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(rank);
    for &p in perm {
        let d = if p < 0 { p + r } else { p };
        if d < 0 || d >= r {
            return Err(invalid_argument(format!(
                "Transpose: {d} is out of range [0 .. {rank}) (input 'perm')"
            )));
        }
        seen[d as usize] = true;
        out.push(d as usize);
    }
    if let Some(missing) = seen.iter().position(|&s| !s) {
        return Err(invalid_argument(format!(
            "Transpose: {missing} is missing from input 'perm' {out:?}"
        )));
    }
    Ok(out)
}

/// Transposes `x` by a normalized permutation (usable by other kernels, e.g. NCHW<->NHWC).
pub fn transpose(x: &Tensor, perm: &[usize]) -> Result<Tensor> {
    let dims = x.dims();
    let out_dims: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
    let shape = Shape::new(out_dims.clone())?;
    // If the non-1 dims keep their order, the memory layout is unchanged.
    let moved: Vec<usize> = perm.iter().copied().filter(|&p| dims[p] != 1).collect();
    if moved.windows(2).all(|w| w[0] < w[1]) {
        return x.reshaped(shape);
    }
    let in_strides = x.shape().strides();
    let strides: Vec<isize> = perm.iter().map(|&p| in_strides[p] as isize).collect();
    gather_strided(x, 0, &out_dims, &strides, shape)
}

fn transpose_op(
    _: &NodeAttrs,
    _: &mut KernelContext<'_>,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>> {
    let perm = int_vector(&inputs[1], "Transpose input 'perm'")?;
    let perm = normalize_perm(&perm, inputs[0].rank())?;
    Ok(crate::ops::one_output(transpose(&inputs[0], &perm)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposes_3d() {
        let x = Tensor::from_slice(&[2, 3, 4], &(0..24).collect::<Vec<i32>>()).unwrap();
        let y = transpose(&x, &[2, 0, 1]).unwrap();
        assert_eq!(y.dims(), &[4, 2, 3]);
        let v = y.as_slice::<i32>().unwrap();
        // y[k, i, j] = x[i, j, k]
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    assert_eq!(v[k * 6 + i * 3 + j], (i * 12 + j * 4 + k) as i32);
                }
            }
        }
        let z = transpose(&x, &[0, 1, 2]).unwrap();
        assert!(z.shares_buffer(&x));
        assert!(normalize_perm(&[0, 0, 1], 3).is_err());
        assert_eq!(normalize_perm(&[-1, 0, 1], 3).unwrap(), vec![2, 0, 1]);
    }
}
