//! Sparse-tensor helpers TF.js models carry (feature columns, embeddings): SparseSegmentSum and
//! SparseSegmentMean, SparseReshape, SparseFillEmptyRows. Indices are int64 as in TF.

use super::assemble::assemble;
use super::int_vector;
use crate::kernels::num::{i64_key, narrow, prod, sort_by_keys, widen, Num};
use crate::ops::def::{ANY, FLOAT, INDEX, NUMERIC};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_alloc, DType, Shape, Tensor};

type Outputs = Result<Vec<Tensor>>;

pub fn register(reg: &mut Registry) {
    for (name, types) in [("SparseSegmentSum", NUMERIC), ("SparseSegmentMean", FLOAT)] {
        reg.add(
            OpBuilder::new(name, Simple(segment))
                .input("data", "T")
                .input("indices", "Tidx")
                .input("segment_ids", "Tsegmentids")
                .type_attr("T", types)
                .type_attr_default("Tidx", INDEX, DType::Int32)
                .type_attr_default("Tsegmentids", INDEX, DType::Int32)
                .bool_attr("sparse_gradient", false),
        );
    }
    reg.add(
        OpBuilder::new("SparseReshape", Simple(sparse_reshape))
            .fixed_input("input_indices", DType::Int64)
            .fixed_input("input_shape", DType::Int64)
            .fixed_input("new_shape", DType::Int64),
    );
    reg.add(
        OpBuilder::new("SparseFillEmptyRows", Simple(fill_empty_rows))
            .fixed_input("indices", DType::Int64)
            .input("values", "T")
            .fixed_input("dense_shape", DType::Int64)
            .input("default_value", "T")
            .type_attr("T", ANY),
    );
}

fn segment(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (data, indices, seg) = (&i[0], &i[1], &i[2]);
    if indices.rank() != 1 {
        return Err(invalid_argument("indices should be a vector."));
    }
    if seg.rank() != 1 {
        return Err(invalid_argument("segment_ids should be a vector."));
    }
    if indices.dims()[0] != seg.dims()[0] {
        return Err(invalid_argument(format!(
            "segment_ids and indices should have same size. segment_ids: {}, indices: {}",
            seg.dims()[0],
            indices.dims()[0]
        )));
    }
    if data.rank() < 1 {
        return Err(invalid_argument("Shape must be at least rank 1"));
    }
    let (idx, ids) = (indices.to_i64_vec()?, seg.to_i64_vec()?);
    let rows = data.dims()[0];
    let inner = prod(&data.dims()[1..]);
    // TF's checks in TF's order: the output's rows from the last id, then segment by segment
    // (ids growing, each id in range, then its indices in range).
    let out_rows = ids.last().map_or(0, |&l| l.saturating_add(1));
    if out_rows < 0 || (!ids.is_empty() && out_rows == 0) {
        return Err(invalid_argument("segment ids must be >= 0"));
    }
    let mut start = 0;
    while start < ids.len() {
        let id = ids[start];
        let end = ids[start..]
            .iter()
            .position(|&x| x != id)
            .map_or(ids.len(), |n| start + n);
        if end < ids.len() && ids[end] < id {
            return Err(invalid_argument("segment ids are not increasing"));
        }
        if id < 0 || id >= out_rows {
            return Err(invalid_argument(format!(
                "Segment id {id} out of range [0, {out_rows}), possibly because 'segment_ids' \
                 input is not sorted."
            )));
        }
        if let Some(k) = (start..end).find(|&k| idx[k] < 0 || idx[k] as u64 >= rows as u64) {
            return Err(invalid_argument(format!(
                "Bad: indices[{k}] == {} out of range [0, {rows})",
                idx[k]
            )));
        }
        start = end;
    }
    let mut dims = data.dims().to_vec();
    dims[0] = super::to_dim(out_rows, "segment count")?;
    let shape = Shape::new(dims)?;
    let mean = a.op() == "SparseSegmentMean";
    fn run<T: Num>(
        data: &Tensor,
        (idx, ids): (&[i64], &[i64]),
        inner: usize,
        shape: Shape,
        mean: bool,
    ) -> Result<Tensor> {
        let v = data.as_slice::<T>()?;
        let mut out = try_alloc::<T>(shape.num_elements())?;
        let mut counts = try_alloc::<i64>(shape.dims()[0])?;
        for (&r, &s) in idx.iter().zip(ids) {
            let (r, s) = (r as usize, s as usize);
            counts[s] += 1;
            let dst = &mut out[s * inner..(s + 1) * inner];
            for (d, &e) in dst.iter_mut().zip(&v[r * inner..(r + 1) * inner]) {
                *d = d.add(e);
            }
        }
        if mean {
            for (s, &n) in counts.iter().enumerate() {
                if n > 1 {
                    let inv = T::from_f64(1.0 / n as f64);
                    for d in &mut out[s * inner..(s + 1) * inner] {
                        *d = d.mul(inv);
                    }
                }
            }
        }
        Tensor::from_vec(shape, out)
    }
    let dtype = data.dtype();
    let data = &widen(data)?;
    let out = crate::with_num!(data.dtype(), a.op(), T, {
        run::<T>(data, (&idx, &ids), inner, shape, mean)
    })?;
    Ok(crate::ops::one_output(narrow(out, dtype)?))
}

fn sparse_reshape(_: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (ind, old_t, new_t) = (&i[0], &i[1], &i[2]);
    if ind.rank() != 2 {
        return Err(invalid_argument(format!(
            "Input indices should be a matrix but received shape {}",
            ind.shape()
        )));
    }
    let old = int_vector(old_t, "Input shape")?;
    let mut new = int_vector(new_t, "Target shape")?;
    let (n, r) = (ind.dims()[0], ind.dims()[1]);
    if r != old.len() {
        return Err(invalid_argument(format!(
            "Input shape should be a vector with {r} entries, got {}",
            old.len()
        )));
    }
    let dense: i64 = old
        .iter()
        .try_fold(1i64, |a, &d| a.checked_mul(d))
        .unwrap_or(-1);
    let mut unknown = None;
    let mut product = 1i64;
    for (k, &d) in new.iter().enumerate() {
        if d == -1 {
            if unknown.is_some() {
                return Err(invalid_argument(format!(
                    "only one output dimension may be -1, not both {} and {k}",
                    unknown.unwrap_or(0)
                )));
            }
            unknown = Some(k);
        } else if d < 0 {
            return Err(invalid_argument(format!(
                "size {k} must be non-negative, not {d}"
            )));
        } else {
            product = product.saturating_mul(d);
        }
    }
    if let Some(k) = unknown {
        if product == 0 {
            return Err(invalid_argument(
                "reshape cannot infer the missing input size for an empty tensor unless all \
                 specified input sizes are non-zero",
            ));
        }
        if dense % product != 0 {
            return Err(invalid_argument(format!(
                "Input to reshape is a SparseTensor with {dense} dense values, but the requested \
                 shape requires a multiple of {product}"
            )));
        }
        new[k] = dense / product;
    } else if product != dense {
        return Err(invalid_argument(format!(
            "Input to reshape is a tensor with {dense} dense values, but the requested shape has \
             {product}"
        )));
    }
    let idx = ind.as_slice::<i64>()?;
    let stride = |dims: &[i64]| {
        let mut s = vec![1i64; dims.len()];
        for k in (0..dims.len().saturating_sub(1)).rev() {
            s[k] = s[k + 1].wrapping_mul(dims[k + 1]);
        }
        s
    };
    let (so, sn) = (stride(&old), stride(&new));
    let len = n
        .checked_mul(new.len())
        .ok_or_else(|| invalid_argument("SparseReshape: output indices too large"))?;
    let mut out = try_alloc::<i64>(len)?;
    for row in 0..n {
        // Wrapping: indices are not checked against the shape (as in TF), only never panic.
        let flat = (0..r).fold(0i64, |a, k| {
            a.wrapping_add(idx[row * r + k].wrapping_mul(so[k]))
        });
        let mut rem = flat;
        for k in 0..new.len() {
            out[row * new.len() + k] = rem.checked_div(sn[k]).unwrap_or(0);
            rem = rem.checked_rem(sn[k]).unwrap_or(rem);
        }
    }
    Ok(vec![
        Tensor::from_vec(Shape::from_dims(&[n, new.len()])?, out)?,
        Tensor::from_slice(&[new.len()], &new)?,
    ])
}

fn fill_empty_rows(_: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (ind, values, shape_t, default) = (&i[0], &i[1], &i[2], &i[3]);
    if shape_t.rank() != 1 {
        return Err(invalid_argument(format!(
            "dense_shape must be a vector, saw: {}",
            shape_t.shape()
        )));
    }
    if ind.rank() != 2 {
        return Err(invalid_argument(format!(
            "indices must be a matrix, saw: {}",
            ind.shape()
        )));
    }
    if values.rank() != 1 {
        return Err(invalid_argument(format!(
            "values must be a vector, saw: {}",
            values.shape()
        )));
    }
    if default.rank() != 0 {
        return Err(invalid_argument(format!(
            "default_value must be a scalar, saw: {}",
            default.shape()
        )));
    }
    let dense = shape_t.as_slice::<i64>()?;
    let (n, r) = (ind.dims()[0], ind.dims()[1]);
    if values.dims()[0] != n {
        return Err(invalid_argument(format!(
            "The length of `values` ({}) must match the first dimension of `indices` ({n}).",
            values.dims()[0]
        )));
    }
    if dense.len() != r {
        return Err(invalid_argument(format!(
            "The length of `dense_shape` ({}) must match the second dimension of `indices` ({r}).",
            dense.len()
        )));
    }
    let rows = match dense.first() {
        Some(&d) if d >= 0 => d as usize,
        _ => {
            return Err(invalid_argument(
                "Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] > 0",
            ))
        }
    };
    if rows == 0 && n > 0 {
        return Err(invalid_argument(format!(
            "Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = {n}"
        )));
    }
    let idx = ind.as_slice::<i64>()?;
    // Sized by dense_shape[0] (any int64): allocated fallibly, before anything else is.
    let mut empty = try_alloc::<bool>(rows)?;
    empty.fill(true);
    for k in 0..n {
        let row = idx[k * r];
        if row < 0 || row as usize >= rows {
            return Err(invalid_argument(format!(
                "indices({k}, 0) is invalid: {row} >= {rows}"
            )));
        }
        empty[row as usize] = false;
    }
    // Entries grouped by row, input order within a row; an empty row gets the default.
    let mut order: Vec<usize> = (0..n).collect();
    let row_keys: Vec<u64> = (0..n).map(|k| i64_key(idx[k * r])).collect();
    sort_by_keys(&mut order, &row_keys, false);
    let total = n + empty.iter().filter(|&&e| e).count();
    let len = total
        .checked_mul(r)
        .ok_or_else(|| invalid_argument("SparseFillEmptyRows: output indices too large"))?;
    let mut out_idx = try_alloc::<i64>(len)?;
    let mut reverse = try_alloc::<i64>(n)?;
    let mut picks: Vec<Option<usize>> = Vec::with_capacity(total);
    let (mut o, mut next) = (0, 0);
    for (row, &is_empty) in empty.iter().enumerate() {
        if is_empty {
            out_idx[o * r] = row as i64;
            picks.push(None);
            o += 1;
            continue;
        }
        while next < n && idx[order[next] * r] as usize == row {
            let k = order[next];
            out_idx[o * r..(o + 1) * r].copy_from_slice(&idx[k * r..(k + 1) * r]);
            reverse[k] = o as i64;
            picks.push(Some(k));
            o += 1;
            next += 1;
        }
    }
    let out_values = assemble(
        &[values, default],
        values.dtype(),
        Shape::from_dims(&[total])?,
        &mut |emit| {
            for p in &picks {
                match p {
                    Some(k) => emit(0, *k, 1, 1),
                    None => emit(1, 0, 1, 1),
                }
            }
        },
    )?;
    Ok(vec![
        Tensor::from_vec(Shape::from_dims(&[total, r])?, out_idx)?,
        out_values,
        Tensor::from_vec(Shape::from_dims(&[rows])?, empty)?,
        Tensor::from_vec(Shape::from_dims(&[n])?, reverse)?,
    ])
}
