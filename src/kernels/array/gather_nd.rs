//! N-d indexing: GatherNd, ScatterNd, TensorScatterUpdate, SparseToDense. Each index row names a
//! slice of the outer dims; slices are contiguous runs of the inner dims.

use super::assemble::assemble;
use super::int_vector;
use crate::kernels::num::{narrow, prod, sort_by_keys, widen, Num};
use crate::ops::def::{ANY, INDEX, NUMERIC};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_alloc, Shape, Tensor};

type Outputs = Result<Vec<Tensor>>;

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("GatherNd", Simple(gather_nd))
            .strings_by_index()
            .input("params", "Tparams")
            .input("indices", "Tindices")
            .type_attr("Tparams", ANY)
            .type_attr("Tindices", INDEX)
            .string_attr("bad_indices_policy", Some("")),
    );
    reg.add(
        OpBuilder::new("ScatterNd", Simple(scatter_nd))
            .input("indices", "Tindices")
            .input("updates", "T")
            .input("shape", "Tindices")
            .type_attr("T", NUMERIC)
            .type_attr("Tindices", INDEX)
            .string_attr("bad_indices_policy", Some("")),
    );
    reg.add(
        OpBuilder::new("TensorScatterUpdate", Simple(tensor_scatter_update))
            .input("tensor", "T")
            .input("indices", "Tindices")
            .input("updates", "T")
            .type_attr("T", ANY)
            .type_attr("Tindices", INDEX)
            .string_attr("bad_indices_policy", Some("")),
    );
    reg.add(
        OpBuilder::new("SparseToDense", Simple(sparse_to_dense))
            .strings_by_index()
            .input("sparse_indices", "Tindices")
            .input("output_shape", "Tindices")
            .input("sparse_values", "T")
            .input("default_value", "T")
            .bool_attr("validate_indices", true)
            .type_attr("T", ANY)
            .type_attr("Tindices", INDEX),
    );
}

/// Offsets (in slices of `dims[depth..]`) of every index row of `idx` (rows of `depth` values),
/// or InvalidArgument in TF's words when a row falls outside `dims[..depth]`.
fn slice_offsets(idx: &[i64], depth: usize, dims: &[usize], what: &str) -> Result<Vec<usize>> {
    let rows = idx.len().checked_div(depth).unwrap_or(0);
    let mut out = Vec::with_capacity(rows);
    for r in 0..rows {
        let row = &idx[r * depth..(r + 1) * depth];
        let mut off = 0usize;
        for (k, &v) in row.iter().enumerate() {
            if v < 0 || v as u64 >= dims[k] as u64 {
                let s: Vec<String> = row.iter().map(i64::to_string).collect();
                return Err(invalid_argument(format!(
                    "indices[{r}] = [{}] does not index into {what} {:?}",
                    s.join(", "),
                    dims
                )));
            }
            off = off * dims[k] + v as usize;
        }
        out.push(off);
    }
    Ok(out)
}

fn gather_nd(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (params, indices) = (&inputs[0], &inputs[1]);
    if params.rank() < 1 {
        return Err(invalid_argument(format!(
            "params must be at least a vector, got shape {}",
            params.shape()
        )));
    }
    if indices.rank() < 1 {
        return Err(invalid_argument(format!(
            "indices must be at least a vector, got shape {}",
            indices.shape()
        )));
    }
    let id = indices.dims();
    let depth = id[id.len() - 1];
    let pd = params.dims();
    if depth > pd.len() {
        return Err(invalid_argument(format!(
            "index innermost dimension length must be <= params rank; saw: {depth} vs. {}",
            pd.len()
        )));
    }
    let mut out_dims = id[..id.len() - 1].to_vec();
    out_dims.extend_from_slice(&pd[depth..]);
    let shape = Shape::new(out_dims)?;
    let n = prod(&id[..id.len() - 1]);
    let slice = prod(&pd[depth..]);
    if n > 0 && params.num_elements() == 0 {
        return Err(invalid_argument(
            "Requested more than 0 entries, but params is empty.",
        ));
    }
    if depth == 0 {
        // Every (empty) index names all of params.
        let plan = &mut |emit: &mut super::assemble::Emit<'_>| {
            for _ in 0..n {
                emit(0, 0, slice, 1);
            }
        };
        return Ok(crate::ops::one_output(assemble(
            &[params],
            params.dtype(),
            shape,
            plan,
        )?));
    }
    let offs = slice_offsets(&indices.to_i64_vec()?, depth, &pd[..depth], "param shape")?;
    Ok(crate::ops::one_output(assemble(
        &[params],
        params.dtype(),
        shape,
        &mut |emit| {
            for &o in &offs {
                emit(0, o * slice, slice, 1);
            }
        },
    )?))
}

/// The checks ScatterNd and TensorScatterUpdate share (TF's `PrepareAndValidateInputs`):
/// returns (slice offsets, slice size).
fn scatter_plan(out: &[usize], indices: &Tensor, updates: &Tensor) -> Result<(Vec<usize>, usize)> {
    if out.is_empty() {
        return Err(invalid_argument(
            "Output must be at least 1-D, got shape: []",
        ));
    }
    let numel = prod(out);
    if numel == 0 && (indices.num_elements() > 0 || updates.num_elements() > 0) {
        return Err(invalid_argument(format!(
            "Indices and updates specified for empty output. indices shape: {}",
            indices.shape()
        )));
    }
    let (id, ud) = (indices.dims(), updates.dims());
    if ud.is_empty() {
        return Err(invalid_argument(
            "Updates shape must have rank at least one. Found:[]",
        ));
    }
    if id.is_empty() {
        return Err(invalid_argument(format!(
            "indices must be at least 1-D, got shape {}",
            indices.shape()
        )));
    }
    let batch_dim = id.len() - 1;
    let slice_dim = id[batch_dim];
    let matches = slice_dim <= out.len()
        && ud.len() == batch_dim + out.len() - slice_dim
        && ud[..batch_dim] == id[..batch_dim]
        && ud[batch_dim..] == out[slice_dim..];
    if !matches {
        return Err(invalid_argument(format!(
            "Dimensions [0,{batch_dim}) of indices[shape={}] must match dimensions [0,{batch_dim}) \
             of updates[shape={}], and updates.shape[{batch_dim}:] must be \
             shape[{slice_dim}:] of the output {out:?}",
            indices.shape(),
            updates.shape()
        )));
    }
    let slice = prod(&out[slice_dim..]);
    let offs = slice_offsets(
        &indices.to_i64_vec()?,
        slice_dim,
        &out[..slice_dim],
        "shape",
    )?;
    Ok((offs, slice))
}

fn scatter_nd(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (indices, updates) = (&inputs[0], &inputs[1]);
    if inputs[2].rank() != 1 {
        return Err(invalid_argument("Shape must be a vector"));
    }
    let dims: Vec<usize> = int_vector(&inputs[2], "shape")?
        .into_iter()
        .map(|d| super::to_dim(d, "shape dimension"))
        .collect::<Result<_>>()?;
    // Validates the element count before anything is sized from it.
    Shape::from_dims(&dims)?;
    let (offs, slice) = scatter_plan(&dims, indices, updates)?;
    fn run<T: Num>(u: &Tensor, dims: Vec<usize>, offs: &[usize], slice: usize) -> Result<Tensor> {
        let src = u.as_slice::<T>()?;
        let mut out = try_alloc::<T>(prod(&dims))?;
        for (k, &o) in offs.iter().enumerate() {
            let (dst, s) = (&mut out[o * slice..(o + 1) * slice], &src[k * slice..]);
            for (d, &v) in dst.iter_mut().zip(s) {
                *d = d.add(v);
            }
        }
        Tensor::from_vec(Shape::new(dims)?, out)
    }
    let dtype = updates.dtype();
    let updates = &widen(updates)?;
    let out = crate::with_num!(updates.dtype(), "ScatterNd", T, {
        run::<T>(updates, dims, &offs, slice)
    })?;
    Ok(crate::ops::one_output(narrow(out, dtype)?))
}

fn tensor_scatter_update(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (tensor, indices, updates) = (&inputs[0], &inputs[1], &inputs[2]);
    let (offs, slice) = scatter_plan(tensor.dims(), indices, updates)?;
    let numel = tensor.num_elements();
    Ok(crate::ops::one_output(overlay(
        tensor,
        updates,
        &offs,
        slice,
        numel,
        tensor.shape().clone(),
        false,
    )?))
}

/// `base` (source 1: the tensor, or a scalar default when `base_is_scalar`) with the slices
/// `offs[k]` (in slices of `slice` elements) replaced by slice `k` of `over` (source 0; a scalar
/// `over` fills every slice); a later duplicate offset wins. Dtype-agnostic: runs for `assemble`.
fn overlay(
    base: &Tensor,
    over: &Tensor,
    offs: &[usize],
    slice: usize,
    numel: usize,
    shape: Shape,
    base_is_scalar: bool,
) -> Result<Tensor> {
    let mut order: Vec<usize> = (0..offs.len()).collect();
    let keys: Vec<u64> = offs.iter().map(|&o| o as u64).collect();
    sort_by_keys(&mut order, &keys, false);
    let over_scalar = over.num_elements() == 1 && offs.len() != 1;
    assemble(&[over, base], base.dtype(), shape, &mut |emit| {
        let mut at = 0;
        let base_run = |emit: &mut super::assemble::Emit<'_>, from: usize, to: usize| {
            if to > from {
                if base_is_scalar {
                    emit(1, 0, to - from, 0);
                } else {
                    emit(1, from, to - from, 1);
                }
            }
        };
        for (n, &k) in order.iter().enumerate() {
            let o = offs[k] * slice;
            // Of equal offsets only the last (in input order) is written.
            if order.get(n + 1).is_some_and(|&k2| offs[k2] == offs[k]) {
                continue;
            }
            base_run(emit, at, o);
            if over_scalar {
                emit(0, 0, slice, 0);
            } else {
                emit(0, k * slice, slice, 1);
            }
            at = o + slice;
        }
        base_run(emit, at, numel);
    })
}

fn sparse_to_dense(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (idx_t, shape_t, values, default) = (&inputs[0], &inputs[1], &inputs[2], &inputs[3]);
    if idx_t.rank() > 2 {
        return Err(invalid_argument(format!(
            "sparse_indices should be a scalar, vector, or matrix, got shape {}",
            idx_t.shape()
        )));
    }
    let num = if idx_t.rank() > 0 { idx_t.dims()[0] } else { 1 };
    let depth = if idx_t.rank() > 1 { idx_t.dims()[1] } else { 1 };
    if shape_t.rank() != 1 {
        return Err(invalid_argument(format!(
            "output_shape should be a vector, got shape {}",
            shape_t.shape()
        )));
    }
    if values.rank() > 1 || (values.rank() == 1 && values.dims()[0] != num) {
        return Err(invalid_argument(format!(
            "sparse_values has incorrect shape {}, should be [] or [{num}]",
            values.shape()
        )));
    }
    if default.rank() != 0 {
        return Err(invalid_argument(format!(
            "default_value should be a scalar, got shape {}",
            default.shape()
        )));
    }
    let out_dims: Vec<usize> = int_vector(shape_t, "output_shape")?
        .into_iter()
        .map(|d| super::to_dim(d, "output_shape dimension"))
        .collect::<Result<_>>()?;
    Shape::from_dims(&out_dims)?;
    if out_dims.len() != depth {
        return Err(invalid_argument(format!(
            "output_shape has incorrect number of elements: {} should be: {depth}",
            out_dims.len()
        )));
    }
    let idx = idx_t.to_i64_vec()?;
    if a.bool("validate_indices")? {
        for r in 0..num {
            let row = &idx[r * depth..(r + 1) * depth];
            let text = || {
                let s: Vec<String> = row.iter().map(i64::to_string).collect();
                format!("indices[{r}] = [{}]", s.join(","))
            };
            if row
                .iter()
                .zip(&out_dims)
                .any(|(&v, &d)| v < 0 || v as u64 >= d as u64)
            {
                return Err(invalid_argument(format!(
                    "{} is out of bounds: need 0 <= index < {out_dims:?}",
                    text()
                )));
            }
            if r > 0 {
                let prev = &idx[(r - 1) * depth..r * depth];
                match prev.cmp(row) {
                    std::cmp::Ordering::Equal => {
                        return Err(invalid_argument(format!("{} is repeated", text())))
                    }
                    std::cmp::Ordering::Greater => {
                        return Err(invalid_argument(format!("{} is out of order", text())))
                    }
                    _ => {}
                }
            }
        }
    }
    let offs = slice_offsets(&idx, depth, &out_dims, "output shape")
        .map_err(|_| invalid_argument("Indices are not valid (out of bounds)."))?;
    let shape = Shape::new(out_dims)?;
    let numel = shape.num_elements();
    Ok(crate::ops::one_output(overlay(
        default, values, &offs, 1, numel, shape, true,
    )?))
}
