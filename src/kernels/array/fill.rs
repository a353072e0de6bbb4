//! Tensors made from attrs or scalars: Fill, Range, Const.

use super::assemble::assemble;
use super::{int_vector, output};
use crate::ops::def::{ANY, INDEX};
use crate::ops::{AttrType, NodeAttrs, OpBuilder, Registry};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, DType, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Fill", Simple(fill))
            .strings_by_index()
            .input("dims", "index_type")
            .input("value", "T")
            .type_attr("T", ANY)
            .type_attr_default("index_type", INDEX, DType::Int32),
    );
    reg.add(
        OpBuilder::new("Range", Simple(range))
            .input("start", "Tidx")
            .input("limit", "Tidx")
            .input("delta", "Tidx")
            .type_attr_default(
                "Tidx",
                &[DType::Float32, DType::Int32, DType::Int64],
                DType::Int32,
            ),
    );
    reg.add(
        OpBuilder::new("Const", Simple(constant))
            .attr("value", AttrType::Tensor, None)
            .type_attr("dtype", ANY)
            .unique_key(),
    );
}

/// TF accepts a scalar or a one-element vector where it wants a scalar value (Fill, Range).
fn scalar_like(t: &Tensor, what: &str) -> Result<()> {
    if t.rank() == 0 || (t.rank() == 1 && t.dims()[0] == 1) {
        Ok(())
    } else {
        Err(invalid_argument(format!(
            "{what} must be a scalar, got shape {}",
            t.shape()
        )))
    }
}

fn fill(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let dims = int_vector(&inputs[0], "Fill input 'dims'")?;
    let value = &inputs[1];
    scalar_like(value, "Fill input 'value'")?;
    let shape = Shape::from_i64(&dims)?;
    let n = shape.num_elements();
    Ok(crate::ops::one_output(assemble(
        &[value],
        value.dtype(),
        shape,
        &mut |emit| emit(0, 0, n, 0),
    )?))
}

/// TF's sign checks on Range's scalars.
fn range_checks(start: f64, limit: f64, delta: f64) -> Result<()> {
    if delta == 0.0 {
        return Err(invalid_argument(format!(
            "Range: requires delta != 0, got {delta}"
        )));
    }
    // NaN bounds fail both checks, as in TF.
    if delta > 0.0 && start.partial_cmp(&limit).is_none_or(|o| o.is_gt()) {
        return Err(invalid_argument(format!(
            "Range: requires start <= limit when delta > 0: {start}/{limit}"
        )));
    }
    if delta < 0.0 && start.partial_cmp(&limit).is_none_or(|o| o.is_lt()) {
        return Err(invalid_argument(format!(
            "Range: requires start >= limit when delta < 0: {start}/{limit}"
        )));
    }
    Ok(())
}

/// A computed Range size as a dimension, or InvalidArgument when it cannot be one.
fn range_size(n: f64) -> Result<usize> {
    if n.is_finite() && n >= 0.0 && n <= crate::tensor::MAX_ELEMENTS as f64 {
        Ok(n as usize)
    } else {
        Err(invalid_argument(format!(
            "Range: requires ((limit - start) / delta) to be a representable size, got {n}"
        )))
    }
}

fn range(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    for (t, what) in inputs.iter().zip(["start", "limit", "delta"]) {
        scalar_like(t, &format!("Range input '{what}'"))?;
    }
    if a.dtype("Tidx")? == DType::Float32 {
        let v = |i: usize| inputs[i].f32s().map(|s| s[0]);
        let (start, limit, delta) = (v(0)?, v(1)?, v(2)?);
        range_checks(start as f64, limit as f64, delta as f64)?;
        // Float sizes are computed in float and values accumulated, as TF does.
        let n = range_size(((limit - start) / delta).abs().ceil() as f64)?;
        let mut out = try_with_capacity::<f32>(n)?;
        let mut val = start;
        for _ in 0..n {
            out.push(val);
            val += delta;
        }
        return Ok(crate::ops::one_output(output(Shape::new(vec![n])?, out)?));
    }
    let v = |i: usize| inputs[i].to_i64_vec().map(|s| s[0]);
    let (start, limit, delta) = (v(0)?, v(1)?, v(2)?);
    range_checks(start as f64, limit as f64, delta as f64)?;
    // Exact integer size: ceil(|limit - start| / |delta|).
    let span = (limit as i128 - start as i128).unsigned_abs();
    let n = range_size(span.div_ceil((delta as i128).unsigned_abs()) as f64)?;
    let shape = Shape::new(vec![n])?;
    let mut out = try_with_capacity::<i64>(n)?;
    out.extend((0..n as i64).map(|i| start.wrapping_add(i.wrapping_mul(delta))));
    // int32 as a cast of the int64 values (wrapping, as before): one loop for both.
    let out = output(shape, out)?;
    Ok(crate::ops::one_output(crate::kernels::math::cast_tensor(
        &out,
        inputs[0].dtype(),
    )?))
}

fn constant(a: &NodeAttrs, _: &mut KernelContext<'_>, _: &[Tensor]) -> Result<Vec<Tensor>> {
    let value = a.tensor("value")?;
    let dtype = a.dtype("dtype")?;
    if value.dtype() != dtype {
        return Err(invalid_argument(format!(
            "Const: type mismatch between attr 'value' ({}) and attr 'dtype' ({dtype})",
            value.dtype()
        )));
    }
    Ok(crate::ops::one_output(value.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_checks_follow_tf() {
        assert!(range_checks(0.0, 10.0, 3.0).is_ok());
        assert!(range_checks(10.0, 0.0, -3.0).is_ok());
        assert!(range_checks(0.0, 1.0, 0.0).is_err());
        assert!(range_checks(5.0, 1.0, 1.0).is_err());
        assert!(range_checks(1.0, 5.0, -1.0).is_err());
        assert!(range_checks(f64::NAN, 5.0, 1.0).is_err());
    }
}
