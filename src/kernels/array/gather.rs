//! GatherV2 with batch_dims: params viewed as [batch, outer, limit, inner], indices as
//! [batch, n]; output rows are contiguous `inner` runs of params.

use super::assemble::assemble;
use super::int_scalar;
use crate::ops::def::{ANY, INDEX};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{Shape, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("GatherV2", Simple(gather_v2))
            .strings_by_index()
            .input("params", "Tparams")
            .input("indices", "Tindices")
            .input("axis", "Taxis")
            .int_attr("batch_dims", Some(0))
            .type_attr("Tparams", ANY)
            .type_attr("Tindices", INDEX)
            .type_attr("Taxis", INDEX),
    );
}

/// TF's multi-index rendering of flat position `i` in `dims`, e.g. `[1,0]`.
fn index_string(dims: &[usize], mut i: usize) -> String {
    let mut parts = vec![0usize; dims.len()];
    for d in (0..dims.len()).rev() {
        if dims[d] > 0 {
            parts[d] = i % dims[d];
            i /= dims[d];
        }
    }
    let s: Vec<String> = parts.iter().map(usize::to_string).collect();
    format!("[{}]", s.join(","))
}

/// Gathers slices of `params` along `axis` at `indices` (both normalized by the caller against
/// TF's rules), with the first `batch_dims` dims of both as batch dims.
pub fn gather(params: &Tensor, indices: &Tensor, axis: usize, batch_dims: usize) -> Result<Tensor> {
    let pd = params.dims();
    let id = indices.dims();
    let mut out_dims = Vec::with_capacity(pd.len() + id.len());
    out_dims.extend_from_slice(&pd[..axis]);
    out_dims.extend_from_slice(&id[batch_dims..]);
    out_dims.extend_from_slice(&pd[axis + 1..]);
    let shape = Shape::new(out_dims)?;
    let batch: usize = crate::kernels::num::prod(&pd[..batch_dims]);
    let outer: usize = crate::kernels::num::prod(&pd[batch_dims..axis]);
    let limit = pd[axis];
    let inner: usize = crate::kernels::num::prod(&pd[axis + 1..]);
    let n: usize = crate::kernels::num::prod(&id[batch_dims..]);
    // TF checks indices only when there is something to copy.
    if shape.num_elements() == 0 {
        return assemble(&[], params.dtype(), shape, &mut |_| {});
    }
    let idx = indices.to_i64_vec()?;
    for (i, &v) in idx.iter().enumerate() {
        if v < 0 || v as u64 >= limit as u64 {
            return Err(invalid_argument(format!(
                "GatherV2: indices{} = {v} is not in [0, {limit})",
                index_string(id, i)
            )));
        }
    }
    assemble(&[params], params.dtype(), shape, &mut |emit| {
        for b in 0..batch {
            let rows = &idx[b * n..(b + 1) * n];
            for o in 0..outer {
                let base = (b * outer + o) * limit;
                for &i in rows {
                    emit(0, (base + i as usize) * inner, inner, 1);
                }
            }
        }
    })
}

fn gather_v2(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let (params, indices) = (&inputs[0], &inputs[1]);
    let prank = params.rank() as i64;
    let irank = indices.rank() as i64;
    if prank < 1 {
        return Err(invalid_argument(
            "GatherV2: input 'params' must be at least 1 dimensional",
        ));
    }
    let axis = int_scalar(&inputs[2], "GatherV2 input 'axis'", true)?;
    if axis < -prank || axis >= prank {
        return Err(invalid_argument(format!(
            "GatherV2: expected input 'axis' in the range [{}, {prank}), but got {axis}",
            -prank
        )));
    }
    let axis = if axis < 0 { axis + prank } else { axis };
    let mut batch_dims = a.int("batch_dims")?;
    if batch_dims != 0 {
        if batch_dims < -irank || batch_dims > irank {
            return Err(invalid_argument(format!(
                "GatherV2: expected attr 'batch_dims' in the range [{}, {irank}], but got \
                 {batch_dims}",
                -irank
            )));
        }
        if batch_dims < 0 {
            batch_dims += irank;
        }
        if batch_dims >= prank {
            return Err(invalid_argument(format!(
                "GatherV2: batch_dims ({batch_dims}) must be less than rank(params) ({prank})"
            )));
        }
        if axis < batch_dims {
            return Err(invalid_argument(format!(
                "GatherV2: batch_dims ({batch_dims}) must be less than or equal to axis ({axis})"
            )));
        }
        for i in 0..batch_dims as usize {
            if params.dims()[i] != indices.dims()[i] {
                return Err(invalid_argument(format!(
                    "GatherV2: params.shape[{i}]: {} should be equal to indices.shape[{i}]: {}",
                    params.dims()[i],
                    indices.dims()[i]
                )));
            }
        }
    }
    Ok(crate::ops::one_output(gather(
        params,
        indices,
        axis as usize,
        batch_dims as usize,
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathers_with_batch_dims() {
        // params [1, 2, 2], indices [1, 3] = [[1, 0, 1]], axis 2, batch_dims 1 (tfjs test).
        let p = Tensor::from_slice(&[1, 2, 2], &[1.0f32, 2., 3., 4.]).unwrap();
        let i = Tensor::from_slice(&[1, 3], &[1i32, 0, 1]).unwrap();
        let y = gather(&p, &i, 2, 1).unwrap();
        assert_eq!(y.dims(), &[1, 2, 3]);
        assert_eq!(y.f32s().unwrap(), &[2., 1., 2., 4., 3., 4.]);
        let bad = Tensor::from_slice(&[2], &[0i32, 2]).unwrap();
        let p2 = Tensor::from_slice(&[2], &[1.0f32, 2.]).unwrap();
        let e = gather(&p2, &bad, 0, 0).unwrap_err();
        assert!(e.message.contains("indices[1] = 2"), "{}", e.message);
    }
}
