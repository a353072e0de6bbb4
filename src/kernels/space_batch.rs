//! SpaceToBatchND and BatchToSpaceND: the converter emits them around depthwise convolutions with
//! dilation (TF's atrous rewrite).

use crate::kernels::array::assemble::{assemble, zero_scalar};
use crate::ops::def::{ANY, INDEX};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{Shape, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("SpaceToBatchND", Simple(space_to_batch))
            .input("input", "T")
            .input("block_shape", "Tblock_shape")
            .input("paddings", "Tpaddings")
            .type_attr("T", ANY)
            .type_attr_default("Tblock_shape", INDEX, crate::DType::Int32)
            .type_attr_default("Tpaddings", INDEX, crate::DType::Int32),
    );
    reg.add(
        OpBuilder::new("BatchToSpaceND", Simple(batch_to_space))
            .input("input", "T")
            .input("block_shape", "Tblock_shape")
            .input("crops", "Tcrops")
            .type_attr("T", ANY)
            .type_attr_default("Tblock_shape", INDEX, crate::DType::Int32)
            .type_attr_default("Tcrops", INDEX, crate::DType::Int32),
    );
}

/// Block sizes, and per spatial dim the (before, after) paddings or crops.
type BlockSpec = (Vec<usize>, Vec<(usize, usize)>);

/// Validated block sizes and per-spatial-dim (before, after) amounts.
fn block_and_pairs(
    input: &Tensor,
    block: &Tensor,
    pairs: &Tensor,
    what: &str,
) -> Result<BlockSpec> {
    let b = block.to_i64_vec()?;
    let m = b.len();
    if block.rank() != 1 || m == 0 {
        return Err(invalid_argument("block_shape must be a non-empty vector"));
    }
    if input.rank() < m + 1 {
        return Err(invalid_argument(format!(
            "input of rank {} has fewer than {} spatial dims after the batch dim",
            input.rank(),
            m
        )));
    }
    if pairs.dims() != [m, 2] {
        return Err(invalid_argument(format!(
            "{what} must have shape [{m}, 2], got {}",
            pairs.shape()
        )));
    }
    let p = pairs.to_i64_vec()?;
    let block: Vec<usize> = b
        .iter()
        .map(|&x| usize::try_from(x).ok().filter(|&x| x >= 1))
        .collect::<Option<_>>()
        .ok_or_else(|| invalid_argument(format!("block_shape must be positive, got {b:?}")))?;
    let pairs: Vec<(usize, usize)> = p
        .chunks_exact(2)
        .map(|c| Some((usize::try_from(c[0]).ok()?, usize::try_from(c[1]).ok()?)))
        .collect::<Option<_>>()
        .ok_or_else(|| invalid_argument(format!("{what} must be non-negative, got {p:?}")))?;
    Ok((block, pairs))
}

/// Row-major decomposition of `i` over `dims`.
fn unravel(mut i: usize, dims: &[usize], out: &mut [usize]) {
    for d in (0..dims.len()).rev() {
        out[d] = i % dims[d];
        i /= dims[d];
    }
}

fn space_to_batch(
    _: &NodeAttrs,
    _: &mut KernelContext<'_>,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>> {
    let x = &inputs[0];
    let (block, pads) = block_and_pairs(x, &inputs[1], &inputs[2], "paddings")?;
    let m = block.len();
    let dims = x.dims();
    let batch = dims[0];
    let mut out_dims = vec![batch
        .checked_mul(crate::kernels::num::prod(&block))
        .ok_or_else(|| invalid_argument("block too large"))?];
    for i in 0..m {
        let padded = dims[i + 1]
            .checked_add(pads[i].0 + pads[i].1)
            .ok_or_else(|| invalid_argument("paddings too large"))?;
        if padded % block[i] != 0 {
            return Err(invalid_argument(format!(
                "padded spatial dim {i} ({padded}) is not divisible by block size {}",
                block[i]
            )));
        }
        out_dims.push(padded / block[i]);
    }
    out_dims.extend_from_slice(&dims[m + 1..]);
    let shape = Shape::new(out_dims)?;
    let inner: usize = crate::kernels::num::prod(&dims[m + 1..]);
    let zero = zero_scalar(x.dtype())?;
    let od = shape.dims().to_vec();
    Ok(crate::ops::one_output(assemble(
        &[x, &zero],
        x.dtype(),
        shape,
        &mut |emit| {
            let mut offs = vec![0; m];
            let mut pos = vec![0; m];
            for ob in 0..od[0] {
                let b = ob % batch;
                unravel(ob / batch, &block, &mut offs);
                let spatial: usize = crate::kernels::num::prod(&od[1..=m]);
                for s in 0..spatial {
                    unravel(s, &od[1..=m], &mut pos);
                    // Input coordinate per spatial dim, or None inside the zero padding.
                    let mut idx = b;
                    let mut inside = true;
                    for i in 0..m {
                        let p = pos[i] * block[i] + offs[i];
                        if p < pads[i].0 || p - pads[i].0 >= dims[i + 1] {
                            inside = false;
                            break;
                        }
                        idx = idx * dims[i + 1] + (p - pads[i].0);
                    }
                    if inside {
                        emit(0, idx * inner, inner, 1);
                    } else {
                        emit(1, 0, inner, 0);
                    }
                }
            }
        },
    )?))
}

fn batch_to_space(
    _: &NodeAttrs,
    _: &mut KernelContext<'_>,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>> {
    let x = &inputs[0];
    let (block, crops) = block_and_pairs(x, &inputs[1], &inputs[2], "crops")?;
    let m = block.len();
    let dims = x.dims();
    let prod: usize = crate::kernels::num::prod(&block);
    if dims[0] % prod != 0 {
        return Err(invalid_argument(format!(
            "input batch {} is not divisible by the block size product {prod}",
            dims[0]
        )));
    }
    let batch = dims[0] / prod;
    let mut out_dims = vec![batch];
    for i in 0..m {
        let full = dims[i + 1]
            .checked_mul(block[i])
            .ok_or_else(|| invalid_argument("block too large"))?;
        let kept = full.checked_sub(crops[i].0 + crops[i].1).ok_or_else(|| {
            invalid_argument(format!("crops of spatial dim {i} exceed its size {full}"))
        })?;
        out_dims.push(kept);
    }
    out_dims.extend_from_slice(&dims[m + 1..]);
    let shape = Shape::new(out_dims)?;
    let inner: usize = crate::kernels::num::prod(&dims[m + 1..]);
    let od = shape.dims().to_vec();
    Ok(crate::ops::one_output(assemble(
        &[x],
        x.dtype(),
        shape,
        &mut |emit| {
            let spatial: usize = crate::kernels::num::prod(&od[1..=m]);
            let mut pos = vec![0; m];
            for b in 0..batch {
                for s in 0..spatial {
                    unravel(s, &od[1..=m], &mut pos);
                    let mut block_idx = 0;
                    let mut in_spatial = 0;
                    for i in 0..m {
                        let u = pos[i] + crops[i].0;
                        block_idx = block_idx * block[i] + u % block[i];
                        in_spatial = in_spatial * dims[i + 1] + u / block[i];
                    }
                    let in_b = block_idx * batch + b;
                    let in_spatial_total: usize = crate::kernels::num::prod(&dims[1..=m]);
                    let idx = in_b * in_spatial_total + in_spatial;
                    emit(0, idx * inner, inner, 1);
                }
            }
        },
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EagerContext;

    #[test]
    fn round_trip_matches_tf_example() {
        // TF docs: x [1, 2, 2, 1] = [[[[1], [2]], [[3], [4]]]], block [2, 2] -> [4, 1, 1, 1].
        let mut ctx = EagerContext::default();
        let x = Tensor::from_slice(&[1, 2, 2, 1], &[1f32, 2., 3., 4.]).unwrap();
        let block = Tensor::from_slice(&[2], &[2i32, 2]).unwrap();
        let zero = Tensor::from_slice(&[2, 2], &[0i32; 4]).unwrap();
        let none: [(&str, crate::AttrValue); 0] = [];
        let y = ctx
            .execute(
                "SpaceToBatchND",
                &[x.clone(), block.clone(), zero.clone()],
                none.clone(),
            )
            .unwrap()
            .remove(0);
        assert_eq!(y.dims(), &[4, 1, 1, 1]);
        assert_eq!(y.f32s().unwrap(), &[1., 2., 3., 4.]);
        let z = ctx
            .execute("BatchToSpaceND", &[y, block, zero], none)
            .unwrap()
            .remove(0);
        assert_eq!(z.dims(), x.dims());
        assert_eq!(z.f32s().unwrap(), x.f32s().unwrap());
    }
}
