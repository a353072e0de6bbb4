//! Ops that only change or report a shape: Reshape, Squeeze, ExpandDims alias their input's
//! buffer; Shape, Size, Rank, ToBool describe it.

use super::{int_scalar, int_vector};
use crate::ops::def::{ANY, INDEX};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{DType, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Reshape", Simple(reshape))
            .input("tensor", "T")
            .input("shape", "Tshape")
            .type_attr("T", ANY)
            .type_attr_default("Tshape", INDEX, DType::Int32),
    );
    reg.add(
        OpBuilder::new("Squeeze", Simple(squeeze))
            .input("input", "T")
            .type_attr("T", ANY)
            .ints_attr("squeeze_dims", Some(&[])),
    );
    reg.add(
        OpBuilder::new("ExpandDims", Simple(expand_dims))
            .input("input", "T")
            .input("dim", "Tdim")
            .type_attr("T", ANY)
            .type_attr_default("Tdim", INDEX, DType::Int32),
    );
    for (name, f) in [("Shape", shape as crate::ops::ComputeFn), ("Size", size)] {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input("input", "T")
                .type_attr("T", ANY)
                .type_attr_default("out_type", INDEX, DType::Int32),
        );
    }
    reg.add(
        OpBuilder::new("Rank", Simple(rank))
            .input("input", "T")
            .type_attr("T", ANY),
    );
    reg.add(
        OpBuilder::new("ToBool", Simple(to_bool))
            .input("input", "T")
            .type_attr("T", ANY),
    );
}

/// The shape Reshape produces from `sizes` (one may be -1) for `input`, as TF's ReshapeOp infers
/// it: zero-sized requested dims do not enter the product, so a -1 can still be inferred.
pub fn reshape_target(input: &Shape, sizes: &[i64]) -> Result<Shape> {
    let mut dims = Vec::with_capacity(sizes.len());
    let mut unknown: Option<usize> = None;
    let mut product: u128 = 1;
    let mut sizes_has_zero = false;
    for (d, &s) in sizes.iter().enumerate() {
        match s {
            -1 => {
                if let Some(u) = unknown {
                    return Err(invalid_argument(format!(
                        "only one input size may be -1, not both {u} and {d}"
                    )));
                }
                unknown = Some(d);
                dims.push(1usize);
            }
            s if s < 0 => {
                return Err(invalid_argument(format!(
                    "size {d} must be non-negative, not {s}"
                )))
            }
            0 => {
                sizes_has_zero = true;
                dims.push(0);
            }
            s => {
                product = product.saturating_mul(s as u128);
                if product > crate::tensor::MAX_ELEMENTS as u128 {
                    return Err(invalid_argument(format!(
                        "requested shape {sizes:?} has too many elements"
                    )));
                }
                dims.push(s as usize);
            }
        }
    }
    if let Some(u) = unknown {
        let mut in_elems: u128 = 1;
        let mut input_has_zero = false;
        for &d in input.dims() {
            if d > 0 || !sizes_has_zero {
                in_elems *= d as u128;
            } else {
                input_has_zero = true;
            }
        }
        let missing = in_elems / product;
        if !input_has_zero && product * missing != in_elems {
            return Err(invalid_argument(format!(
                "input to reshape is a tensor with {in_elems} values, but the requested shape \
                 requires a multiple of {product}"
            )));
        }
        dims[u] = usize::try_from(missing)
            .map_err(|_| invalid_argument("inferred dimension is too large"))?;
    }
    let shape = Shape::new(dims)?;
    if shape.num_elements() != input.num_elements() {
        return Err(invalid_argument(format!(
            "input to reshape is a tensor with {} values, but the requested shape has {}",
            input.num_elements(),
            shape.num_elements()
        )));
    }
    Ok(shape)
}

fn reshape(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let sizes_t = &inputs[1];
    // TF still accepts a scalar as a one-element shape (legacy).
    let sizes = if sizes_t.rank() == 0 {
        sizes_t.to_i64_vec()?
    } else {
        int_vector(sizes_t, "Reshape input 'shape'")?
    };
    let shape = reshape_target(inputs[0].shape(), &sizes)?;
    Ok(crate::ops::one_output(inputs[0].reshaped(shape)?))
}

fn squeeze(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let x = &inputs[0];
    let rank = x.rank();
    let mut marked = vec![false; rank];
    for &d in a.ints("squeeze_dims")? {
        if d < -(rank as i64) || d >= rank as i64 {
            return Err(invalid_argument(format!(
                "Squeeze: tried to squeeze dim index {d} (attr 'squeeze_dims') for a tensor with \
                 {rank} dimensions"
            )));
        }
        marked[Shape::normalize_axis(d, rank)?] = true;
    }
    let any_marked = marked.iter().any(|&m| m);
    let mut dims = Vec::with_capacity(rank);
    for (i, &d) in x.dims().iter().enumerate() {
        if marked[i] && d != 1 {
            return Err(invalid_argument(format!(
                "Squeeze: can not squeeze dim[{i}], expected a dimension of 1, got {d}"
            )));
        }
        if d == 1 && (!any_marked || marked[i]) {
            continue;
        }
        dims.push(d);
    }
    Ok(crate::ops::one_output(x.reshaped(Shape::new(dims)?)?))
}

fn expand_dims(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let x = &inputs[0];
    let rank = x.rank() as i64;
    let dim = int_scalar(&inputs[1], "ExpandDims input 'dim'", false)?;
    if dim < -1 - rank || dim > rank {
        return Err(invalid_argument(format!(
            "ExpandDims: tried to expand dim index {dim} for a tensor with {rank} dimensions"
        )));
    }
    let at = if dim < 0 { dim + rank + 1 } else { dim } as usize;
    let mut dims = x.dims().to_vec();
    dims.insert(at, 1);
    Ok(crate::ops::one_output(x.reshaped(Shape::new(dims)?)?))
}

/// An i64 vector as a tensor of `dtype` (int32 or int64), failing when a value does not fit.
fn int_output(dtype: DType, dims: &[usize], v: &[i64], what: &str) -> Result<Tensor> {
    match dtype {
        DType::Int32 => {
            let mut out = crate::tensor::try_with_capacity::<i32>(v.len())?;
            for &x in v {
                out.push(i32::try_from(x).map_err(|_| {
                    invalid_argument(format!(
                        "{what} {x} is larger than an int32 output (out_type) can hold"
                    ))
                })?);
            }
            Tensor::from_vec(Shape::from_dims(dims)?, out)
        }
        DType::Int64 => Tensor::from_slice(dims, v),
        other => Err(invalid_argument(format!(
            "out_type must be int32 or int64, got {other}"
        ))),
    }
}

fn shape(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let dims: Vec<i64> = inputs[0].dims().iter().map(|&d| d as i64).collect();
    Ok(crate::ops::one_output(int_output(
        a.dtype("out_type")?,
        &[dims.len()],
        &dims,
        "dimension",
    )?))
}

fn size(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let n = inputs[0].num_elements() as i64;
    Ok(crate::ops::one_output(int_output(
        a.dtype("out_type")?,
        &[],
        &[n],
        "number of elements",
    )?))
}

/// An `If` predicate as TF reads one: a scalar is its value cast to bool (non-zero), any other
/// tensor is whether it has elements.
fn to_bool(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let x = &inputs[0];
    Ok(crate::ops::one_output(if x.rank() == 0 {
        crate::kernels::math::cast_tensor(x, DType::Bool)?
    } else {
        Tensor::scalar(x.num_elements() > 0)
    }))
}

fn rank(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    Ok(crate::ops::one_output(Tensor::scalar(
        inputs[0].rank() as i32
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(d: &[usize]) -> Shape {
        Shape::from_dims(d).unwrap()
    }

    #[test]
    fn infers_minus_one() {
        assert_eq!(reshape_target(&s(&[2, 3]), &[-1]).unwrap().dims(), &[6]);
        assert_eq!(
            reshape_target(&s(&[2, 3]), &[3, -1]).unwrap().dims(),
            &[3, 2]
        );
        assert_eq!(
            reshape_target(&s(&[0, 4]), &[-1, 0]).unwrap().dims(),
            &[4, 0]
        );
        assert_eq!(reshape_target(&s(&[0]), &[-1]).unwrap().dims(), &[0]);
        assert!(reshape_target(&s(&[2, 3]), &[4, -1]).is_err());
        assert!(reshape_target(&s(&[2, 3]), &[0, -1]).is_err());
        assert!(reshape_target(&s(&[2, 3]), &[-1, -1]).is_err());
        assert!(reshape_target(&s(&[2, 3]), &[-2, 3]).is_err());
    }
}
