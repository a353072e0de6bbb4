//! Joining and splitting along an axis: ConcatV2, Pack, Unpack, Split, SplitV. Every one views its
//! tensors as [outer, axis, inner] and moves contiguous `axis * inner` runs.

use super::assemble::assemble;
use super::{int_scalar, int_vector};
use crate::ops::def::{ANY, INDEX};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{DType, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("ConcatV2", Simple(concat_v2))
            .strings_by_index()
            .inputs_n("values", "N", "T")
            .input("axis", "Tidx")
            .type_attr("T", ANY)
            .type_attr_default("Tidx", INDEX, DType::Int32),
    );
    reg.add(
        OpBuilder::new("Pack", Simple(pack))
            .strings_by_index()
            .inputs_n("values", "N", "T")
            .type_attr("T", ANY)
            .int_attr("axis", Some(0)),
    );
    reg.add(
        OpBuilder::new("Unpack", Simple(unpack))
            .strings_by_index()
            .input("value", "T")
            .int_attr("num", None)
            .type_attr("T", ANY)
            .int_attr("axis", Some(0)),
    );
    reg.add(
        OpBuilder::new("Split", Simple(split))
            .strings_by_index()
            .fixed_input("split_dim", DType::Int32)
            .input("value", "T")
            .int_attr("num_split", None)
            .type_attr("T", ANY),
    );
    reg.add(
        OpBuilder::new("SplitV", Simple(split_v))
            .strings_by_index()
            .input("value", "T")
            .input("size_splits", "Tlen")
            .fixed_input("split_dim", DType::Int32)
            .int_attr("num_split", None)
            .type_attr("T", ANY)
            .type_attr_default("Tlen", INDEX, DType::Int64),
    );
}

fn product(dims: &[usize]) -> usize {
    crate::kernels::num::prod(dims)
}

/// Concatenates `[outer, run_i]` blocks: for every outer index, each part's run in turn.
fn join(parts: &[&Tensor], runs: &[usize], outer: usize, shape: Shape) -> Result<Tensor> {
    assemble(parts, parts[0].dtype(), shape, &mut |emit| {
        for o in 0..outer {
            for (k, &r) in runs.iter().enumerate() {
                emit(k, o * r, r, 1);
            }
        }
    })
}

pub(super) fn concat_v2(
    a: &NodeAttrs,
    _: &mut KernelContext<'_>,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>> {
    let n = a.int("N")?;
    if n < 2 {
        return Err(invalid_argument(format!(
            "attr 'N' of ConcatV2 must be at least 2, got {n}"
        )));
    }
    let (values, axis_t) = inputs.split_at(inputs.len() - 1);
    let axis = int_scalar(&axis_t[0], "ConcatV2 input 'axis'", true)?;
    let first = &values[0];
    let rank = first.rank();
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(invalid_argument(format!(
            "ConcatV2: expected concatenating dimensions (input 'axis') in the range [{}, {r}), \
             but got {axis}",
            -r
        )));
    }
    let axis = if axis < 0 { axis + r } else { axis } as usize;
    let mut axis_total = 0usize;
    for (i, v) in values.iter().enumerate() {
        if v.rank() != rank {
            return Err(invalid_argument(format!(
                "ConcatV2: ranks of all input tensors should match: shape[0] = {} vs. shape[{i}] \
                 = {}",
                first.shape(),
                v.shape()
            )));
        }
        for j in 0..rank {
            if j != axis && v.dims()[j] != first.dims()[j] {
                return Err(invalid_argument(format!(
                    "ConcatV2: dimension {j} in both shapes must be equal: shape[0] = {} vs. \
                     shape[{i}] = {}",
                    first.shape(),
                    v.shape()
                )));
            }
        }
        axis_total += v.dims()[axis];
    }
    let mut dims = first.dims().to_vec();
    dims[axis] = axis_total;
    let shape = Shape::new(dims)?;
    // One non-empty input holds all the data: alias it.
    let mut nonempty = values.iter().filter(|v| v.num_elements() > 0);
    if let (Some(only), None) = (nonempty.next(), nonempty.next()) {
        if only.num_elements() == shape.num_elements() {
            return Ok(crate::ops::one_output(only.reshaped(shape)?));
        }
    }
    let outer = product(&first.dims()[..axis]);
    let inner = product(&first.dims()[axis + 1..]);
    let parts: Vec<&Tensor> = values.iter().collect();
    let runs: Vec<usize> = values.iter().map(|v| v.dims()[axis] * inner).collect();
    Ok(crate::ops::one_output(join(&parts, &runs, outer, shape)?))
}

fn pack(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let first = &inputs[0];
    let rank = first.rank() as i64;
    let axis = a.int("axis")?;
    if axis < -rank - 1 || axis > rank {
        return Err(invalid_argument(format!(
            "Pack: attr 'axis' = {axis} not in [{}, {})",
            -rank - 1,
            rank + 1
        )));
    }
    let axis = if axis < 0 { axis + rank + 1 } else { axis } as usize;
    for (i, v) in inputs.iter().enumerate() {
        if v.shape() != first.shape() {
            return Err(invalid_argument(format!(
                "Pack: shapes of all inputs must match: values[0].shape = {} != values[{i}].shape \
                 = {}",
                first.shape(),
                v.shape()
            )));
        }
    }
    let mut dims = first.dims().to_vec();
    dims.insert(axis, inputs.len());
    let shape = Shape::new(dims)?;
    if inputs.len() == 1 {
        return Ok(crate::ops::one_output(first.reshaped(shape)?));
    }
    let outer = product(&first.dims()[..axis]);
    let inner = product(&first.dims()[axis..]);
    let parts: Vec<&Tensor> = inputs.iter().collect();
    Ok(crate::ops::one_output(join(
        &parts,
        &vec![inner; parts.len()],
        outer,
        shape,
    )?))
}

/// Cuts `x` along `axis` into pieces of `sizes` (which sum to the axis length); with `drop_axis`
/// the axis is removed from each piece's shape (Unpack).
/// Most outputs one Split/SplitV/Unpack may produce. Far above real models; it stops a zero-size
/// dimension split a billion ways from exhausting memory on tensor headers alone.
const MAX_OUTPUTS: usize = 1 << 16;

fn check_output_count(op: &str, n: usize) -> Result<()> {
    if n > MAX_OUTPUTS {
        return Err(crate::status::resource_exhausted(format!(
            "{op} would produce {n} outputs (at most {MAX_OUTPUTS} supported)"
        )));
    }
    Ok(())
}

fn cut(x: &Tensor, axis: usize, sizes: &[usize], drop_axis: bool) -> Result<Vec<Tensor>> {
    let dims = x.dims();
    let outer = product(&dims[..axis]);
    let mid = dims[axis];
    let inner = product(&dims[axis + 1..]);
    let mut outs = Vec::with_capacity(sizes.len());
    let mut start = 0usize;
    for &s in sizes {
        let mut d = dims.to_vec();
        if drop_axis {
            d.remove(axis);
        } else {
            d[axis] = s;
        }
        let shape = Shape::new(d)?;
        let run = s * inner;
        outs.push(assemble(&[x], x.dtype(), shape, &mut |emit| {
            for o in 0..outer {
                emit(0, (o * mid + start) * inner, run, 1);
            }
        })?);
        start += s;
    }
    Ok(outs)
}

fn unpack(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let x = &inputs[0];
    let rank = x.rank() as i64;
    let num = a.int("num")?;
    if num < 0 {
        return Err(invalid_argument(format!(
            "attr 'num' of Unpack must be >= 0, got {num}"
        )));
    }
    let axis = a.int("axis")?;
    if axis < -rank || axis >= rank {
        return Err(invalid_argument(format!(
            "Unpack: attr 'axis' = {axis} not in [{}, {rank})",
            -rank
        )));
    }
    let axis = if axis < 0 { axis + rank } else { axis } as usize;
    let n = x.dims()[axis];
    check_output_count("Unpack", n)?;
    if n as i64 != num {
        return Err(invalid_argument(format!(
            "Unpack: input shape axis {axis} must equal {num} (attr 'num'), got shape {}",
            x.shape()
        )));
    }
    cut(x, axis, &vec![1; n], true)
}

fn split(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let x = &inputs[1];
    let rank = x.rank() as i64;
    let num = a.int("num_split")?;
    let dim = int_scalar(&inputs[0], "Split input 'split_dim'", false)?;
    if dim < -rank || dim >= rank {
        return Err(invalid_argument(format!(
            "Split: -{rank} <= split_dim < {rank} not satisfied by input 'split_dim' = {dim}"
        )));
    }
    if num <= 0 {
        return Err(invalid_argument(format!(
            "Split: number of ways to split (attr 'num_split') should be > 0, but got {num}"
        )));
    }
    let axis = if dim < 0 { dim + rank } else { dim } as usize;
    if num == 1 {
        return Ok(crate::ops::one_output(x.clone()));
    }
    let len = x.dims()[axis];
    let num = usize::try_from(num).map_err(|_| invalid_argument("num_split is too large"))?;
    check_output_count("Split", num)?;
    if len % num != 0 {
        return Err(invalid_argument(format!(
            "Split: number of ways to split should evenly divide the split dimension, but got \
             split_dim {axis} (size = {len}) and num_split {num}"
        )));
    }
    cut(x, axis, &vec![len / num; num], false)
}

fn split_v(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let x = &inputs[0];
    let rank = x.rank() as i64;
    let num = a.int("num_split")?;
    let dim = int_scalar(&inputs[2], "SplitV input 'split_dim'", false)?;
    let sizes_t = &inputs[1];
    if sizes_t.rank() != 1 || sizes_t.num_elements() as i64 != num {
        return Err(invalid_argument(format!(
            "SplitV: input 'size_splits' must be 1-D with num_split = {num} elements, got shape {}",
            sizes_t.shape()
        )));
    }
    check_output_count("SplitV", sizes_t.num_elements())?;
    let mut sizes = int_vector(sizes_t, "SplitV input 'size_splits'")?;
    if num <= 0 {
        return Err(invalid_argument(format!(
            "SplitV: number of ways to split (attr 'num_split') should be > 0, but got {num}"
        )));
    }
    if dim < -rank || dim >= rank {
        return Err(invalid_argument(format!(
            "SplitV: -input rank(-{rank}) <= split_dim < input rank ({rank}) is required, but \
             input 'split_dim' is {dim}"
        )));
    }
    let axis = if dim < 0 { dim + rank } else { dim } as usize;
    let len = x.dims()[axis] as i64;
    if num == 1 {
        if sizes[0] != len {
            return Err(invalid_argument(format!(
                "SplitV: if there is only one output, it must have the same size as the input. \
                 Input size: {len} output size: {}",
                sizes[0]
            )));
        }
        return Ok(crate::ops::one_output(x.clone()));
    }
    let mut neg_one: Option<usize> = None;
    let mut determined: i64 = 0;
    for (d, &s) in sizes.iter().enumerate() {
        if s == -1 {
            if neg_one.is_some() {
                return Err(invalid_argument(
                    "SplitV: there can only be one -1 in input 'size_splits'",
                ));
            }
            neg_one = Some(d);
        } else {
            determined = determined.saturating_add(s);
        }
    }
    let fits = match neg_one {
        None => determined == len,
        Some(_) => determined <= len,
    };
    if !fits {
        return Err(invalid_argument(format!(
            "SplitV: determined shape must either match input shape along split_dim exactly if \
             fully specified, or be less than the size of the input along split_dim if not fully \
             specified. Got: {determined}"
        )));
    }
    if let Some(d) = neg_one {
        sizes[d] = len - determined;
    }
    let mut out_sizes = Vec::with_capacity(sizes.len());
    for (i, &s) in sizes.iter().enumerate() {
        if s < 0 {
            return Err(invalid_argument(format!(
                "SplitV: split size at index {i} must be >= 0. Got: {s}"
            )));
        }
        out_sizes.push(s as usize);
    }
    // Negative sizes could make the sum match with parts out of range; all are >= 0 now, so
    // their sum is exactly the axis length.
    if out_sizes.iter().sum::<usize>() != len as usize {
        return Err(invalid_argument(
            "SplitV: split sizes do not sum to the axis length",
        ));
    }
    cut(x, axis, &out_sizes, false)
}
