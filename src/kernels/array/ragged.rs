//! Ragged-tensor ops (TF's ragged_gather_op.cc, ragged_range_op.cc,
//! ragged_tensor_to_tensor_op.cc): RaggedGather, RaggedRange, RaggedTensorToTensor. Row partitions
//! are read as i64 and checked before any index into them is used; values move through
//! `assemble`, so nothing here is instantiated per value dtype. Where TF's kernel reads past a
//! malformed partition (splits pointing past the values), these return InvalidArgument instead.

use super::assemble::assemble;
use super::extra::broadcast_to;
use crate::kernels::num::{int_tensor, prod};
use crate::ops::def::{ANY, INDEX, NUMERIC};
use crate::ops::{AttrType, KernelContext, KernelFactory::Simple, NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result, Status};
use crate::tensor::{try_alloc, try_with_capacity, DType, Shape, Tensor};

type Outputs = Result<Vec<Tensor>>;

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("RaggedGather", Simple(ragged_gather))
            .inputs_n("params_nested_splits", "PARAMS_RAGGED_RANK", "Tsplits")
            .input("params_dense_values", "Tvalues")
            .input("indices", "Tindices")
            .type_attr("Tvalues", ANY)
            .type_attr("Tindices", INDEX)
            .type_attr_default("Tsplits", INDEX, DType::Int64)
            .int_attr("OUTPUT_RAGGED_RANK", None),
    );
    reg.add(
        OpBuilder::new("RaggedRange", Simple(ragged_range))
            .input("starts", "T")
            .input("limits", "T")
            .input("deltas", "T")
            .type_attr_default("T", NUMERIC, DType::Int32)
            .type_attr_default("Tsplits", INDEX, DType::Int64),
    );
    reg.add(
        OpBuilder::new("RaggedTensorToTensor", Simple(to_tensor))
            .input("shape", "Tshape")
            .input("values", "T")
            .input("default_value", "T")
            .inputs_n(
                "row_partition_tensors",
                "num_row_partition_tensors",
                "Tindex",
            )
            .type_attr("T", ANY)
            .type_attr("Tindex", INDEX)
            .type_attr("Tshape", INDEX)
            .attr("row_partition_types", AttrType::ListString, None),
    );
}

#[cold]
#[inline(never)]
fn bad(msg: &str) -> Status {
    invalid_argument(msg)
}

fn usize_of(x: i64) -> usize {
    usize::try_from(x).unwrap_or(usize::MAX)
}

// ---- RaggedGather -----------------------------------------------------------------------------

fn ragged_gather(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let n = i.len().saturating_sub(2);
    if n == 0 {
        return Err(bad("RaggedGather needs at least one params_nested_splits"));
    }
    let (values, indices_t) = (&i[n], &i[n + 1]);
    let splits_dtype = i[0].dtype();
    let mut splits = Vec::with_capacity(n);
    for s in &i[..n] {
        if s.rank() != 1 {
            return Err(bad("params_nested_splits must be vectors"));
        }
        splits.push(s.to_i64_vec()?);
    }
    let want = (indices_t.rank() + n) as i64 - 1;
    if a.int("OUTPUT_RAGGED_RANK")? != want {
        return Err(bad(
            "OUTPUT_RAGGED_RANK must be indices.rank - 1 + PARAMS_RAGGED_RANK",
        ));
    }
    let num_params = splits[0].len() as i64 - 1;
    let indices = indices_t.to_i64_vec()?;
    if let Some((k, &x)) = indices
        .iter()
        .enumerate()
        .find(|(_, &x)| x < 0 || x >= num_params)
    {
        return Err(invalid_argument(format!(
            "indices[{k}] = {x} is not in [0, {num_params})"
        )));
    }
    if values.rank() == 0 {
        return Err(bad("params.rank must be nonzero"));
    }
    let nvals = values.dims()[0];
    for (d, s) in splits.iter().enumerate() {
        // Each split indexes the next partition's rows (or the values): at most its row count.
        let rows = splits
            .get(d + 1)
            .map_or(nvals, |next| next.len().saturating_sub(1));
        check_splits(s, rows)?;
    }
    // Uniform splits for the outer dims of `indices`, then each gathered row's nested splits.
    let idims = indices_t.dims();
    let mut out: Vec<Vec<i64>> = vec![vec![0]; want as usize];
    let mut nrows = 1usize;
    for d in 0..idims.len().saturating_sub(1) {
        nrows *= idims[d];
        let len = idims[d + 1] as i64;
        out[d].extend((1..=nrows as i64).map(|r| r * len));
    }
    let inner = prod(&values.dims()[1..]);
    let mut slices: Vec<(usize, usize)> = Vec::new();
    let mut total = 0usize;
    let base = idims.len() as i64 - 1;
    for &x in &indices {
        let (mut start, mut limit) = (x as usize, x as usize + 1);
        for (d, s) in splits.iter().enumerate() {
            if let Ok(o) = usize::try_from(base + d as i64) {
                let delta = out[o].last().copied().unwrap_or(0) - s[start];
                out[o].extend(s[start + 1..=limit].iter().map(|&v| v + delta));
            }
            (start, limit) = (s[start] as usize, s[limit] as usize);
        }
        if limit > start {
            slices.push((start, limit));
            total += limit - start;
        }
    }
    let mut dims = values.dims().to_vec();
    dims[0] = total;
    let vals = assemble(&[values], values.dtype(), Shape::new(dims)?, &mut |emit| {
        for &(s, l) in &slices {
            emit(0, s * inner, (l - s) * inner, 1);
        }
    })?;
    let mut res = Vec::with_capacity(out.len() + 1);
    for s in &out {
        res.push(int_tensor(splits_dtype, &[s.len()], s)?);
    }
    res.push(vals);
    Ok(res)
}

/// TF's splits checks (non-empty, non-negative, sorted), with the last split at most `rows`.
fn check_splits(s: &[i64], rows: usize) -> Result<()> {
    match (s.first(), s.last()) {
        (None, _) | (_, None) => Err(bad("Ragged splits may not be empty")),
        (Some(&f), _) if f < 0 => Err(bad("Ragged splits must be non-negative")),
        (_, Some(&l)) if usize_of(l) > rows => Err(bad("Ragged splits must not point past values")),
        _ if s.windows(2).any(|w| w[0] > w[1]) => Err(bad("Ragged splits must be sorted")),
        _ => Ok(()),
    }
}

// ---- RaggedRange ------------------------------------------------------------------------------

fn ragged_range(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let mut nrows = None;
    for (t, name) in i.iter().zip(["starts", "limits", "deltas"]) {
        if t.rank() > 1 {
            return Err(bad(&format!("{name} must be a scalar or vector")));
        }
    }
    for t in i {
        if t.rank() == 1 {
            let n = t.dims()[0];
            if nrows.is_some_and(|m| m != n) {
                return Err(bad("starts, limits, and deltas must have the same shape"));
            }
            nrows = Some(n);
        }
    }
    let nrows = nrows.unwrap_or(1);
    let dtype = i[0].dtype();
    let at = |t: &Tensor, r: usize| if t.rank() == 0 { 0 } else { r };
    let mut splits = try_with_capacity::<i64>(nrows + 1)?;
    splits.push(0i64);
    let split_type = a.dtype("Tsplits")?;
    let values = if dtype == DType::Float32 {
        // float32 arithmetic as TF's kernel does it: ceil(|(limit - start) / delta|), value += delta.
        let v: Vec<&[f32]> = i
            .iter()
            .map(|t| t.as_slice::<f32>())
            .collect::<Result<_>>()?;
        let row = |r| (v[0][at(&i[0], r)], v[1][at(&i[1], r)], v[2][at(&i[2], r)]);
        for r in 0..nrows {
            let (s, l, d) = row(r);
            if d == 0.0 {
                return Err(bad("Requires delta != 0"));
            }
            let size = if (d > 0.0 && l < s) || (d < 0.0 && l > s) {
                0.0
            } else {
                ((l - s) / d).abs().ceil()
            };
            // NaN and infinities fail, as in TF.
            if size.is_nan() || size > i64::MAX as f32 {
                return Err(bad(
                    "Requires ((limit - start) / delta) <= 9223372036854775807",
                ));
            }
            push_split(&mut splits, size as i64)?;
        }
        check_total(split_type, splits[nrows])?;
        let mut out = try_with_capacity::<f32>(usize_of(splits[nrows]))?;
        for r in 0..nrows {
            let (mut x, _, d) = row(r);
            for _ in splits[r]..splits[r + 1] {
                out.push(x);
                x += d;
            }
        }
        Tensor::from_vec(Shape::from_dims(&[out.len()])?, out)?
    } else {
        let v: Vec<Vec<i64>> = i.iter().map(|t| t.to_i64_vec()).collect::<Result<_>>()?;
        let row = |r| (v[0][at(&i[0], r)], v[1][at(&i[1], r)], v[2][at(&i[2], r)]);
        for r in 0..nrows {
            let (s, l, d) = row(r);
            if d == 0 {
                return Err(bad("Requires delta != 0"));
            }
            let size = if (d > 0 && l < s) || (d < 0 && l > s) {
                0
            } else {
                // limit - start in the op's own type (int32 wraps as TF's kernel does).
                let diff = if dtype == DType::Int32 {
                    (l as i32).wrapping_sub(s as i32) as i64
                } else {
                    l.wrapping_sub(s)
                };
                let (n, m) = (diff.unsigned_abs(), d.unsigned_abs());
                i64::try_from(n.div_ceil(m)).unwrap_or(i64::MAX)
            };
            push_split(&mut splits, size)?;
        }
        check_total(split_type, splits[nrows])?;
        let mut out = try_with_capacity::<i64>(usize_of(splits[nrows]))?;
        for r in 0..nrows {
            let (mut x, _, d) = row(r);
            for _ in splits[r]..splits[r + 1] {
                out.push(x);
                x = x.wrapping_add(d);
            }
        }
        let t = Tensor::from_vec(Shape::from_dims(&[out.len()])?, out)?;
        crate::kernels::num::narrow(t, dtype)?
    };
    Ok(vec![int_tensor(split_type, &[nrows + 1], &splits)?, values])
}

fn check_total(split_type: DType, total: i64) -> Result<()> {
    if split_type == DType::Int32 && total > i32::MAX as i64 {
        return Err(bad(
            "The total range size overflowed. Consider using int64 instead of int32 for \
             row_splits_dtype.",
        ));
    }
    Ok(())
}

fn push_split(splits: &mut Vec<i64>, size: i64) -> Result<()> {
    let last = splits.last().copied().unwrap_or(0);
    let next = last
        .checked_add(size)
        .ok_or_else(|| bad("The total range size overflowed"))?;
    splits.push(next);
    Ok(())
}

// ---- RaggedTensorToTensor ---------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Partition {
    RowSplits,
    ValueRowIds,
    FirstDimSize,
}

fn to_tensor(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (shape_t, values, default) = (&i[0], &i[1], &i[2]);
    let parts_t = &i[3..];
    let mut kinds = Vec::new();
    for s in a.strings("row_partition_types")? {
        kinds.push(match s.as_str() {
            "ROW_SPLITS" => Partition::RowSplits,
            "VALUE_ROWIDS" => Partition::ValueRowIds,
            "FIRST_DIM_SIZE" => Partition::FirstDimSize,
            _ => return Err(bad("Unknown string for partition info type")),
        });
    }
    if kinds.len() != parts_t.len() {
        return Err(bad(
            "row_partition_types must name one type per row partition tensor",
        ));
    }
    let parts: Vec<Vec<i64>> = parts_t
        .iter()
        .map(|t| t.to_i64_vec())
        .collect::<Result<_>>()?;
    let first = &parts[0];
    if first.is_empty() {
        return Err(bad(
            "Invalid first partition input. Tensor requires at least one element.",
        ));
    }
    let first_dim = match kinds[0] {
        Partition::FirstDimSize => first[0],
        Partition::RowSplits => first.len() as i64 - 1,
        Partition::ValueRowIds => {
            return Err(bad("Cannot handle VALUE_ROWIDS in first dimension."))
        }
    };
    // The partitions below the first dimension, outermost first.
    let skip = (kinds[0] == Partition::FirstDimSize) as usize;
    let (kinds, parts) = (&kinds[skip..], &parts[skip..]);
    if kinds.contains(&Partition::FirstDimSize) {
        return Err(bad("Cannot handle partition type FIRST_DIM_SIZE"));
    }
    let ragged_rank = kinds.len();
    let vd = values.dims();
    if vd.is_empty() {
        return Err(bad("values must have rank >= 1"));
    }
    check_default_shape(default.dims(), vd)?;
    let mut out = output_shape(shape_t, ragged_rank, vd)?;
    if out[0] < 0 {
        out[0] = first_dim;
    }
    if out[0] < 0 {
        return Err(bad("the first dimension size must be >= 0"));
    }
    for d in 1..=ragged_rank {
        if out[d] < 0 {
            out[d] = max_width(kinds[d - 1], &parts[d - 1]);
        }
    }
    let dims: Vec<usize> = out.iter().map(|&d| usize_of(d)).collect();
    let shape = Shape::new(dims)?;
    if shape.num_elements() == 0 {
        return Ok(crate::ops::one_output(Tensor::zeros(
            values.dtype(),
            shape,
        )?));
    }
    // mult[d]: output rows (of the values' element size) one step along dimension d spans.
    let mut mult = vec![1i64; ragged_rank + 1];
    for d in (0..ragged_rank).rev() {
        mult[d] = mult[d + 1] * out[d + 1];
    }
    // How many entries of level d's index each level reads (the last level: one per value row);
    // entries past that are counted, not stored, so a huge split cannot make a huge vector.
    let nvals = vd[0];
    let needed = |d: usize| match parts.get(d) {
        None => nvals,
        Some(p) if kinds[d] == Partition::RowSplits => p.len().saturating_sub(1),
        Some(p) => p.iter().max().map_or(0, |&m| usize_of(m.max(-1) + 1)),
    };
    // Output row of each entry of the current level (-1: cut off by the output shape).
    let first_len = usize_of(first_dim.max(0));
    let cap = first_len.min(needed(0));
    let mut index = try_alloc::<i64>(cap)?;
    for (r, x) in index.iter_mut().enumerate() {
        *x = if (r as i64) < out[0] {
            r as i64 * mult[0]
        } else {
            -1
        };
    }
    let mut len = first_len;
    for d in 0..ragged_rank {
        (index, len) = next_level(
            kinds[d],
            &parts[d],
            (&index, len),
            (mult[d + 1], out[d + 1]),
            needed(d + 1),
        )?;
    }
    if len > nvals {
        return Err(bad("row partitions point past the values"));
    }
    // Inverse map: the value row each output row takes, or -1 for the default.
    let es = prod(&vd[1..]);
    let rows = shape.num_elements() / es;
    let mut src = try_alloc::<i64>(rows)?;
    src.fill(-1);
    for (k, &o) in index.iter().enumerate() {
        if let Some(slot) = usize::try_from(o).ok().and_then(|o| src.get_mut(o)) {
            *slot = k as i64;
        }
    }
    let fill = if default.num_elements() == 1 {
        default.clone()
    } else {
        let elem: Vec<i64> = vd[1..].iter().map(|&d| d as i64).collect();
        let target = Tensor::from_slice(&[elem.len()], &elem)?;
        let b = broadcast_to(a, ctx, &[default.clone(), target])?;
        b.into_iter()
            .next()
            .ok_or_else(|| bad("broadcast failed"))?
    };
    let step = (fill.num_elements() != 1) as isize;
    let out = assemble(&[values, &fill], values.dtype(), shape, &mut |emit| {
        for &s in src.iter() {
            match usize::try_from(s) {
                Ok(s) => emit(0, s * es, es, 1),
                Err(_) => emit(1, 0, es, step),
            }
        }
    })?;
    Ok(crate::ops::one_output(out))
}

/// TF's ValidateDefaultValueShape: default_value broadcasts to the values' trailing dims.
fn check_default_shape(dv: &[usize], vd: &[usize]) -> Result<()> {
    let ok = dv.len() < vd.len()
        && dv
            .iter()
            .zip(&vd[vd.len() - dv.len()..])
            .all(|(&d, &v)| d == 1 || d == v);
    if ok {
        return Ok(());
    }
    Err(bad(
        "default_value.shape and rt_input.flat_values.shape are incompatible",
    ))
}

/// The `shape` input combined with the values' inner dims (-1: not known yet), as TF's
/// CombineRaggedTensorToTensorShapes.
fn output_shape(shape_t: &Tensor, ragged_rank: usize, vd: &[usize]) -> Result<Vec<i64>> {
    let rank = ragged_rank + vd.len();
    let given = shape_t.to_i64_vec()?;
    let mut out =
        match shape_t.rank() {
            0 if given == [-1] => vec![-1; rank],
            0 => return Err(bad(
                "The only valid scalar shape tensor is the fully unknown shape specified as -1.",
            )),
            1 => given,
            _ => return Err(bad("shape must be a scalar or vector")),
        };
    if out.iter().any(|&d| d < -1) {
        return Err(bad("shape dimensions must be >= -1"));
    }
    if out.len() != rank {
        return Err(bad(
            "rt_input.shape and shape are incompatible: their ranks differ",
        ));
    }
    for (k, &v) in vd.iter().enumerate().skip(1) {
        let o = &mut out[ragged_rank + k];
        if *o < 0 {
            *o = v as i64;
        } else if *o != v as i64 {
            return Err(bad("rt_input.shape and shape are incompatible"));
        }
    }
    Ok(out)
}

/// The longest row a partition describes (TF counts VALUE_ROWIDS runs of equal consecutive ids).
fn max_width(kind: Partition, p: &[i64]) -> i64 {
    if kind == Partition::RowSplits {
        return p
            .windows(2)
            .map(|w| w[1].wrapping_sub(w[0]))
            .max()
            .unwrap_or(0)
            .max(0);
    }
    let (mut best, mut run) = (0i64, 0i64);
    for (k, &x) in p.iter().enumerate() {
        run = if k > 0 && p[k - 1] == x { run + 1 } else { 1 };
        best = best.max(run);
    }
    best
}

/// One level down: the output row of each entry of the partition's child level, from the parent
/// level's (`parent.0` stored entries of `parent.1`); stores at most `cap` entries.
fn next_level(
    kind: Partition,
    p: &[i64],
    parent: (&[i64], usize),
    (mult, size): (i64, i64),
    cap: usize,
) -> Result<(Vec<i64>, usize)> {
    let (pidx, plen) = parent;
    let mut res = Vec::new();
    let push = |res: &mut Vec<i64>, x: i64| {
        if res.len() < cap {
            res.try_reserve(1).map_err(|_| bad("out of memory"))?;
            res.push(x);
        }
        Ok::<(), Status>(())
    };
    if kind == Partition::RowSplits {
        let rows = p.len().saturating_sub(1);
        if rows > plen {
            return Err(bad("Row partition size is greater than output size"));
        }
        let mut len = 0u64;
        for r in 0..rows {
            let row = p[r + 1].wrapping_sub(p[r]);
            if row <= 0 {
                continue;
            }
            len = len.saturating_add(row as u64);
            let at = pidx.get(r).copied().unwrap_or(-1);
            // Entries past `cap` are only counted.
            let keep = (row as u64).min(cap.saturating_sub(res.len()) as u64) as i64;
            for j in 0..keep {
                let x = if at >= 0 && j < size {
                    at + j * mult
                } else {
                    -1
                };
                push(&mut res, x)?;
            }
        }
        if p.last().is_some_and(|&l| l < 0 || l as u64 != len) {
            return Err(bad("Invalid row split size."));
        }
        return Ok((res, usize::try_from(len).unwrap_or(usize::MAX)));
    }
    let (mut col, mut cur) = (0i64, -1i64);
    for (k, &id) in p.iter().enumerate() {
        if id < 0 || usize_of(id) >= plen {
            return Err(bad(
                "a value_rowid is negative or not less than the row count",
            ));
        }
        if k > 0 && id == p[k - 1] {
            if cur >= 0 {
                col += 1;
                cur = if col < size { cur + mult } else { -1 };
            }
        } else {
            col = 0;
            cur = pidx.get(id as usize).copied().unwrap_or(-1);
        }
        if k >= cap {
            continue;
        }
        push(&mut res, cur)?;
    }
    Ok((res, p.len()))
}

#[cfg(test)]
mod tests {
    //! Malformed inputs TF's kernels crash on or read past (so no TF fixture can hold them), and
    //! attrs TF's graph construction already rejects: each must be a typed error, not a panic.

    use crate::ops::AttrValue;
    use crate::status::Code;
    use crate::tensor::Tensor;
    use crate::EagerContext;

    fn t(v: &[i64]) -> Tensor {
        Tensor::from_slice(&[v.len()], v).unwrap()
    }

    fn to_tensor(parts: &[Tensor], types: &[&str], nvals: usize) -> Option<Code> {
        to_tensor_shaped(Tensor::scalar(-1i32), parts, types, nvals)
    }

    fn to_tensor_shaped(
        shape: Tensor,
        parts: &[Tensor],
        types: &[&str],
        nvals: usize,
    ) -> Option<Code> {
        let mut inputs = vec![
            shape,
            Tensor::from_slice(&[nvals], &vec![1.0f32; nvals]).unwrap(),
            Tensor::scalar(0.0f32),
        ];
        inputs.extend_from_slice(parts);
        let types = types.iter().map(|s| s.as_bytes().to_vec()).collect();
        let r = EagerContext::default().execute(
            "RaggedTensorToTensor",
            &inputs,
            vec![("row_partition_types", AttrValue::ListStr(types))],
        );
        r.err().map(|e| e.code)
    }

    #[test]
    fn to_tensor_rejects_malformed_partitions() {
        let ia = Some(Code::InvalidArgument);
        // Splits pointing past the values (TF reads past the buffer).
        assert_eq!(to_tensor(&[t(&[0, 2, 5])], &["ROW_SPLITS"], 3), ia);
        // A huge split: an error, without a vector of that size (a typed one also when the
        // output it implies is too large to allocate).
        assert_eq!(
            to_tensor_shaped(t(&[-1, 2]), &[t(&[0, 1 << 50])], &["ROW_SPLITS"], 3),
            ia
        );
        assert!(to_tensor(&[t(&[0, 1 << 50])], &["ROW_SPLITS"], 3).is_some());
        // Entries the next level never reads are counted, not stored (TF stores them all).
        let parts = [t(&[0, 1 << 50]), t(&[0, 1])];
        assert_eq!(
            to_tensor_shaped(t(&[-1, 2, -1]), &parts, &["ROW_SPLITS"; 2], 1),
            None
        );
        assert_eq!(
            to_tensor(&[t(&[0, 2, 3])], &["ROW_SPLITS", "ROW_SPLITS"], 3),
            ia
        );
        assert_eq!(to_tensor(&[t(&[0, 0, 1])], &["VALUE_ROWIDS"], 3), ia);
        assert_eq!(to_tensor(&[t(&[0, 2, 3])], &["FOO"], 3), ia);
        assert_eq!(to_tensor(&[t(&[])], &["ROW_SPLITS"], 3), ia);
        assert_eq!(
            to_tensor(
                &[t(&[3]), t(&[3])],
                &["FIRST_DIM_SIZE", "FIRST_DIM_SIZE"],
                3
            ),
            ia
        );
        // Row ids naming rows past a huge first dimension, and a valid huge first dimension
        // with an output too large to allocate.
        assert_eq!(
            to_tensor(
                &[t(&[2]), t(&[0, 9])],
                &["FIRST_DIM_SIZE", "VALUE_ROWIDS"],
                2
            ),
            ia
        );
        assert_ne!(
            to_tensor(
                &[t(&[1 << 40]), t(&[0, 0])],
                &["FIRST_DIM_SIZE", "VALUE_ROWIDS"],
                2
            ),
            None
        );
        // Sanity: a well-formed one succeeds.
        assert_eq!(to_tensor(&[t(&[0, 2, 3])], &["ROW_SPLITS"], 3), None);
    }

    #[test]
    fn gather_rejects_bad_rank_attr_and_nested_splits() {
        let run = |splits: Vec<Tensor>, idx: &[i64], out_rank: i64| {
            let mut inputs = splits;
            inputs.push(Tensor::from_slice(&[6], &[1.0f32; 6]).unwrap());
            inputs.push(t(idx));
            EagerContext::default()
                .execute(
                    "RaggedGather",
                    &inputs,
                    vec![("OUTPUT_RAGGED_RANK", AttrValue::Int(out_rank))],
                )
                .map(|o| o.len())
                .map_err(|e| e.code)
        };
        let ia = Err(Code::InvalidArgument);
        assert_eq!(run(vec![t(&[0, 2, 6])], &[1], 2), ia);
        // The outer splits name a row the inner splits do not have (TF reads past them).
        assert_eq!(run(vec![t(&[0, 2, 5]), t(&[0, 1, 1, 6, 6])], &[1], 2), ia);
        assert_eq!(
            run(vec![t(&[0, 2, 4]), t(&[0, 1, 1, 6, 6])], &[1, 0], 2),
            Ok(3)
        );
        assert_eq!(run(vec![t(&[0, 2, 4]), t(&[])], &[0], 2), ia);
    }

    #[test]
    fn range_rejects_non_finite_and_huge() {
        let run = |s: Tensor, l: Tensor, d: Tensor| {
            EagerContext::default()
                .execute::<&str>("RaggedRange", &[s, l, d], vec![])
                .err()
                .map(|e| e.code)
        };
        let f = Tensor::scalar::<f32>;
        for lim in [f32::NAN, f32::INFINITY] {
            assert_eq!(run(f(0.), f(lim), f(1.)), Some(Code::InvalidArgument));
        }
        let i = Tensor::scalar::<i64>;
        assert_eq!(run(i(0), i(1 << 40), i(1)), Some(Code::ResourceExhausted));
        assert_eq!(run(i(0), i(i64::MAX), i(1)), Some(Code::ResourceExhausted));
        assert_eq!(
            run(t(&[0, 0]), i(i64::MAX), i(1)),
            Some(Code::InvalidArgument)
        );
    }
}
