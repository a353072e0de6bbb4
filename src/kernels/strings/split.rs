//! StringSplit (v1): each element of a string vector split on any byte of `delimiter` (or into
//! single bytes when it is empty), as a SparseTensor: indices [n, 2], values [n], shape [2].

use super::{scalar_str, strings_with_capacity};
use crate::kernels::two;
use crate::ops::{KernelContext, KernelFactory::Simple, NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, DType, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("StringSplit", Simple(string_split))
            .fixed_input("input", DType::String)
            .fixed_input("delimiter", DType::String)
            .bool_attr("skip_empty", true),
    );
}

/// The tokens of `s`, as TF's v1 Split: split at every byte of `delim`, empty tokens dropped with
/// `skip_empty`; an empty `s` has none, and an empty `delim` gives the bytes one by one.
fn tokens<'a>(s: &'a [u8], delim: &[u8], skip_empty: bool) -> Vec<&'a [u8]> {
    if delim.is_empty() || s.is_empty() {
        return s.chunks(1).collect();
    }
    s.split(|b| delim.contains(b))
        .filter(|t| !skip_empty || !t.is_empty())
        .collect()
}

fn string_split(
    a: &NodeAttrs,
    _: &mut KernelContext<'_>,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>> {
    let (x, d) = two(inputs, ["input", "delimiter"])?;
    if x.rank() != 1 {
        return Err(invalid_argument(format!(
            "input must be a vector, got shape: {}",
            x.shape()
        )));
    }
    let delim = scalar_str(d, "delimiter")?;
    let skip_empty = a.bool("skip_empty")?;
    let rows: Vec<Vec<&[u8]>> = x
        .strs()?
        .iter()
        .map(|s| tokens(s, delim, skip_empty))
        .collect();
    let n: usize = rows.iter().map(Vec::len).sum();
    let widest = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut indices = try_with_capacity::<i64>(n.saturating_mul(2))?;
    let mut values = strings_with_capacity(n)?;
    for (r, row) in rows.iter().enumerate() {
        for (c, t) in row.iter().enumerate() {
            indices.extend([r as i64, c as i64]);
            values.push(t.to_vec());
        }
    }
    Ok(vec![
        Tensor::from_vec(Shape::from_dims(&[n, 2])?, indices)?,
        Tensor::from_strings(Shape::from_dims(&[n])?, values)?,
        Tensor::from_slice(&[2], &[rows.len() as i64, widest as i64])?,
    ])
}
