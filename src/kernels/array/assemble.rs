//! The dtype-agnostic copy engine behind the data-movement kernels (Concat, Split, Pack, Unpack,
//! Gather, Pad, MirrorPad, Tile, Slice, StridedSlice, Transpose, Space/BatchND, Select, Fill).
//!
//! A kernel describes its output as a sequence of runs, in output order, from a non-generic
//! planner; only [`assemble`]'s tiny copy loop is instantiated per element type. So the index
//! arithmetic of every op exists once in the binary, not once per dtype.

use crate::status::{internal, invalid_argument, Result};
use crate::tensor::{try_with_capacity, DType, Element, Shape, Tensor};

/// Source index naming the output itself (what was written so far), for repeats (Tile).
pub const OUT: usize = usize::MAX;

/// Receives runs: `(source, start, len, step)` appends `len` elements of `sources[source]` from
/// `start`, advancing by `step` elements (negative: backwards; 0: the one element repeated).
pub type Emit<'a> = dyn FnMut(usize, usize, usize, isize) + 'a;

/// Builds a tensor of `dtype` and `shape` from the runs `plan` emits over `sources` (all of
/// `dtype`). A run outside its source, or a total that does not fill `shape`, is an Internal
/// error (a planning bug), never a panic.
pub fn assemble(
    sources: &[&Tensor],
    dtype: DType,
    shape: Shape,
    plan: &mut dyn FnMut(&mut Emit<'_>),
) -> Result<Tensor> {
    let n = shape.num_elements();
    crate::with_dtype!(dtype, T, {
        let out = assemble_typed::<T>(sources, n, plan)?;
        Tensor::from_vec(shape, out)
    })
}

fn assemble_typed<T: Element>(
    sources: &[&Tensor],
    n: usize,
    plan: &mut dyn FnMut(&mut Emit<'_>),
) -> Result<Vec<T>> {
    let mut srcs: Vec<&[T]> = Vec::with_capacity(sources.len());
    for t in sources {
        srcs.push(t.as_slice::<T>()?);
    }
    let mut out = try_with_capacity::<T>(n)?;
    let mut ok = true;
    plan(&mut |k, start, len, step| {
        if ok && len > 0 {
            ok = copy_run(&mut out, &srcs, k, start, len, step).is_some();
        }
    });
    if !ok || out.len() != n {
        return Err(bad_plan(out.len(), n));
    }
    Ok(out)
}

#[cold]
#[inline(never)]
fn bad_plan(got: usize, n: usize) -> crate::status::Status {
    internal(format!(
        "copy plan out of bounds or incomplete ({got} of {n} elements)"
    ))
}

/// Appends one run to `out`; None when it reaches outside its source.
#[inline(always)]
fn copy_run<T: Copy>(
    out: &mut Vec<T>,
    srcs: &[&[T]],
    k: usize,
    start: usize,
    len: usize,
    step: isize,
) -> Option<()> {
    if k == OUT {
        if step != 1 || start.checked_add(len)? > out.len() {
            return None;
        }
        out.extend_from_within(start..start + len);
        return Some(());
    }
    let src = *srcs.get(k)?;
    let span = (len - 1).checked_mul(step.unsigned_abs())?;
    match step {
        1 => out.extend_from_slice(src.get(start..start.checked_add(len)?)?),
        0 => out.extend(std::iter::repeat_n(*src.get(start)?, len)),
        s if s > 0 => out.extend(
            src.get(start..=start.checked_add(span)?)?
                .iter()
                .step_by(s as usize),
        ),
        s => out.extend(
            src.get(start.checked_sub(span)?..=start)?
                .iter()
                .rev()
                .step_by(s.unsigned_abs()),
        ),
    }
    Some(())
}

/// A scalar zero of `dtype` (the fill source for padding).
pub fn zero_scalar(dtype: DType) -> Result<Tensor> {
    if dtype == DType::Resource {
        return Err(invalid_argument("this op does not accept resource tensors"));
    }
    Tensor::zeros(dtype, Shape::scalar())
}
