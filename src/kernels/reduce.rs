//! Reductions (Sum, Mean, Max, Min, Prod, All, Any) and ArgMax/ArgMin.
//!
//! A reduction is planned once per call: dims of size 1 are dropped and runs of adjacent kept or
//! reduced dims are merged. When the reduced dims form one run, the input is an
//! (outer, reduce, inner) block walked with contiguous slices; otherwise a strided walk adds each
//! input element into its output slot, in input order (no transpose).

use super::math::{max_nan, min_nan};
use super::{two, unsupported};
use crate::ops::def::{INDEX, NUMERIC};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, DType, Element, Shape, Tensor};

type Outputs = Result<Vec<Tensor>>;

pub fn register(reg: &mut Registry) {
    const WITH_COMPLEX: &[DType] = &[DType::Float32, DType::Int32, DType::Int64, DType::Complex64];
    let numeric: [(&'static str, crate::ops::ComputeFn, &'static [DType]); 5] = [
        ("Sum", sum, WITH_COMPLEX),
        ("Mean", mean, WITH_COMPLEX),
        ("Max", max, NUMERIC),
        ("Min", min, NUMERIC),
        ("Prod", prod, NUMERIC),
    ];
    for (name, f, types) in numeric {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input("input", "T")
                .input("reduction_indices", "Tidx")
                .bool_attr("keep_dims", false)
                .type_attr("T", types)
                .type_attr_default("Tidx", INDEX, DType::Int32),
        );
    }
    for (name, f) in [("All", all as crate::ops::ComputeFn), ("Any", any)] {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .fixed_input("input", DType::Bool)
                .input("reduction_indices", "Tidx")
                .bool_attr("keep_dims", false)
                .type_attr_default("Tidx", INDEX, DType::Int32),
        );
    }
    for (name, f) in [
        ("ArgMax", arg_max as crate::ops::ComputeFn),
        ("ArgMin", arg_min),
    ] {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input("input", "T")
                .input("dimension", "Tidx")
                .type_attr("T", NUMERIC)
                .type_attr_default("Tidx", INDEX, DType::Int32)
                .type_attr_default("output_type", INDEX, DType::Int64),
        );
    }
}

/// The reduction axes held by `axes` (a scalar or a vector of int32/int64), normalized against
/// `rank` and sorted. Out-of-range and duplicate axes are InvalidArgument, as in TF.
pub fn reduce_axes(axes: &Tensor, rank: usize) -> Result<Vec<usize>> {
    if axes.rank() > 1 {
        return Err(invalid_argument(format!(
            "reduction_indices must be a scalar or a vector, got shape {}",
            axes.shape()
        )));
    }
    let mut seen = vec![false; rank];
    for a in axes.to_i64_vec()? {
        let r = rank as i64;
        if a < -r || a >= r {
            return Err(invalid_argument(format!(
                "Invalid reduction dimension ({a} for input with {rank} dimension(s)"
            )));
        }
        let ax = if a < 0 { a + r } else { a } as usize;
        if seen[ax] {
            return Err(invalid_argument(format!(
                "Invalid reduction arguments: Axes contains duplicate dimension: {ax}"
            )));
        }
        seen[ax] = true;
    }
    // Ascending, as the plan expects.
    Ok((0..rank).filter(|&i| seen[i]).collect())
}

/// How to walk an input for one reduction.
#[derive(Debug, Clone, PartialEq)]
enum Layout {
    /// Reduced elements of output `o` are `x[o / inner * reduce * inner + r * inner + o % inner]`.
    Block {
        outer: usize,
        reduce: usize,
        inner: usize,
    },
    /// Merged dims alternating kept/reduced (at least two reduced runs), with each dim's stride in
    /// the output (0 for reduced dims).
    Strided {
        dims: Vec<usize>,
        out_strides: Vec<usize>,
    },
}

/// A validated reduction of one input shape over some axes.
#[derive(Debug, Clone)]
pub struct ReducePlan {
    /// The output shape (reduced dims dropped, or kept as 1 with keep_dims).
    pub out_shape: Shape,
    /// Input elements folded into each output element.
    pub count: usize,
    layout: Layout,
}

impl ReducePlan {
    pub fn new(dims: &[usize], axes: &[usize], keep_dims: bool) -> Result<ReducePlan> {
        let mut reduced = vec![false; dims.len()];
        for &a in axes {
            if a >= dims.len() {
                return Err(invalid_argument(format!(
                    "reduction axis {a} is out of range for rank {}",
                    dims.len()
                )));
            }
            reduced[a] = true;
        }
        let mut out_dims = Vec::with_capacity(dims.len());
        let mut count = 1usize;
        for (&d, &r) in dims.iter().zip(&reduced) {
            if r {
                count = count.saturating_mul(d);
                if keep_dims {
                    out_dims.push(1);
                }
            } else {
                out_dims.push(d);
            }
        }
        // Merge runs, ignoring dims of 1 (they belong to either side).
        let mut runs: Vec<(usize, bool)> = Vec::new();
        for (&d, &r) in dims.iter().zip(&reduced) {
            if d == 1 {
                continue;
            }
            match runs.last_mut() {
                Some((size, red)) if *red == r => *size = size.saturating_mul(d),
                _ => runs.push((d, r)),
            }
        }
        let reduced_runs = runs.iter().filter(|r| r.1).count();
        let layout = if reduced_runs <= 1 {
            let at = runs.iter().position(|r| r.1).unwrap_or(runs.len());
            let prod = |rs: &[(usize, bool)]| rs.iter().map(|r| r.0).product::<usize>();
            Layout::Block {
                outer: prod(&runs[..at]),
                reduce: runs.get(at).map_or(1, |r| r.0),
                inner: prod(runs.get(at + 1..).unwrap_or(&[])),
            }
        } else {
            let mut out_strides = vec![0; runs.len()];
            let mut s = 1usize;
            for (i, &(d, r)) in runs.iter().enumerate().rev() {
                if !r {
                    out_strides[i] = s;
                    s = s.saturating_mul(d);
                }
            }
            Layout::Strided {
                dims: runs.iter().map(|r| r.0).collect(),
                out_strides,
            }
        };
        Ok(ReducePlan {
            out_shape: Shape::new(out_dims)?,
            count,
            layout,
        })
    }

    /// Folds `x` (laid out as the planned input shape) with `f`, starting every output at `init`;
    /// contiguous rows (reducing the last axes) with `fold_row`, which must agree with `f`.
    pub fn run<T: Element>(
        &self,
        x: &[T],
        init: T,
        f: impl Fn(T, T) -> T,
        fold_row: impl Fn(&[T]) -> T,
    ) -> Result<Vec<T>> {
        let n = self.out_shape.num_elements();
        let mut out = try_with_capacity::<T>(n)?;
        out.resize(n, init);
        if x.is_empty() {
            return Ok(out);
        }
        match &self.layout {
            Layout::Block { reduce, inner, .. } => {
                let (reduce, inner) = (*reduce, *inner);
                if inner == 1 {
                    for (o, block) in out.iter_mut().zip(x.chunks_exact(reduce)) {
                        *o = fold_row(block);
                    }
                } else {
                    for (o_row, block) in out
                        .chunks_exact_mut(inner)
                        .zip(x.chunks_exact(reduce * inner))
                    {
                        for row in block.chunks_exact(inner) {
                            for (o, &v) in o_row.iter_mut().zip(row) {
                                *o = f(*o, v);
                            }
                        }
                    }
                }
            }
            Layout::Strided { dims, out_strides } => {
                let last = dims.len() - 1;
                let (inner, is) = (dims[last], out_strides[last]);
                let mut idx = vec![0usize; last];
                let mut base = 0usize;
                for row in x.chunks_exact(inner) {
                    for (k, &v) in row.iter().enumerate() {
                        if let Some(o) = out.get_mut(base + k * is) {
                            *o = f(*o, v);
                        }
                    }
                    // Odometer over the outer dims.
                    for d in (0..last).rev() {
                        idx[d] += 1;
                        base += out_strides[d];
                        if idx[d] < dims[d] {
                            break;
                        }
                        base -= out_strides[d] * dims[d];
                        idx[d] = 0;
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The max of a row (-inf if empty) when it holds no NaN; some element of it otherwise. The
/// condition folds into one compare (unordered or greater) and a select per element, which
/// vectorizes, unlike a fold that keeps a NaN once seen (two compares and an or): 4x faster.
/// Softmax shifts rows by it (a row with a NaN comes out NaN whatever the shift).
pub(crate) fn max_fast(row: &[f32]) -> f32 {
    fold_lanes(row, f32::NEG_INFINITY, &|p, q| {
        if p.is_nan() || q > p || q.is_nan() {
            q
        } else {
            p
        }
    })
}

/// [`max_fast`] for the min.
fn min_fast(row: &[f32]) -> f32 {
    fold_lanes(row, f32::INFINITY, &|p, q| {
        if p.is_nan() || q < p || q.is_nan() {
            q
        } else {
            p
        }
    })
}

/// Max of a row (-inf if empty), NaN if it holds one, as TF's Max: the fast fold, checked by a
/// sum (NaN only with a NaN, or +inf and -inf, in the row; then the row is scanned).
fn max_f32(row: &[f32]) -> f32 {
    exact_if_nan(row, max_fast(row))
}

/// Min of a row (+inf if empty), NaN if it holds one (as [`max_f32`]).
fn min_f32(row: &[f32]) -> f32 {
    exact_if_nan(row, min_fast(row))
}

fn exact_if_nan(row: &[f32], m: f32) -> f32 {
    if fold_lanes(row, 0.0, &add_f32).is_nan() && row.iter().any(|v| v.is_nan()) {
        f32::NAN
    } else {
        m
    }
}

/// A fold over eight interleaved accumulators: lets the compiler vectorize the loop and, for
/// float sums, keeps rounding error lower than one running sum.
fn fold_lanes<T: Copy>(s: &[T], init: T, f: &impl Fn(T, T) -> T) -> T {
    let mut acc = [init; 8];
    let chunks = s.chunks_exact(8);
    let rem = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a = f(*a, v);
        }
    }
    let mut r = init;
    for a in acc {
        r = f(r, a);
    }
    for &v in rem {
        r = f(r, v);
    }
    r
}

/// The plan for a reduction kernel call, or None when no axis is reduced (output = input).
fn plan_for(a: &NodeAttrs, x: &Tensor, axes: &Tensor) -> Result<Option<ReducePlan>> {
    let axes = reduce_axes(axes, x.rank())?;
    if axes.is_empty() {
        return Ok(None);
    }
    Ok(Some(ReducePlan::new(
        x.dims(),
        &axes,
        a.bool("keep_dims")?,
    )?))
}

/// Runs a reduction: `$init` and `$f` per dtype, `$fin` applied to each output (Mean's divide).
fn reduce_with<T: Element>(
    a: &NodeAttrs,
    inputs: &[Tensor],
    init: T,
    f: impl Fn(T, T) -> T,
    finish: Option<&dyn Fn(T, usize) -> T>,
) -> Outputs {
    reduce_rows(a, inputs, init, &f, |row| fold_lanes(row, init, &f), finish)
}

/// [`reduce_with`] with its own fold of a contiguous row (Max and Min: see [`max_f32`]).
fn reduce_rows<T: Element>(
    a: &NodeAttrs,
    inputs: &[Tensor],
    init: T,
    f: impl Fn(T, T) -> T,
    fold_row: impl Fn(&[T]) -> T,
    finish: Option<&dyn Fn(T, usize) -> T>,
) -> Outputs {
    let (x, axes) = two(inputs, ["input", "axis"])?;
    let Some(plan) = plan_for(a, x, axes)? else {
        return Ok(crate::ops::one_output(x.clone()));
    };
    if plan.count == 1 && finish.is_none() {
        // Every output is one input element: a reshape, as TF copies in this case.
        return Ok(crate::ops::one_output(x.reshaped(plan.out_shape)?));
    }
    let mut out = plan.run(x.as_slice::<T>()?, init, f, fold_row)?;
    if let Some(fin) = finish {
        for v in &mut out {
            *v = fin(*v, plan.count);
        }
    }
    Ok(crate::ops::one_output(Tensor::from_vec(
        plan.out_shape,
        out,
    )?))
}

fn dtype_of(inputs: &[Tensor]) -> Result<DType> {
    inputs
        .first()
        .map(Tensor::dtype)
        .ok_or_else(|| invalid_argument("missing input 'input'"))
}

/// [`reduce_with`] through a function pointer: one instantiation per dtype, shared by every
/// reduction that is not on a hot float path (integer dtypes, Prod, All/Any).
#[inline(never)]
fn reduce_fn<T: Element>(
    a: &NodeAttrs,
    inputs: &[Tensor],
    init: T,
    f: fn(T, T) -> T,
    finish: Option<&dyn Fn(T, usize) -> T>,
) -> Outputs {
    reduce_with(a, inputs, init, f, finish)
}

fn add_f32(p: f32, q: f32) -> f32 {
    p + q
}

/// Sum and Mean of complex64: `f`, the float32 kernel, over the (re, im) pairs on the same axes.
fn complex_via_pairs(
    a: &NodeAttrs,
    ctx: &mut KernelContext<'_>,
    inputs: &[Tensor],
    f: crate::ops::ComputeFn,
) -> Outputs {
    let (x, axes) = two(inputs, ["input", "axis"])?;
    // Normalized first: a negative axis must not name the pairs' extra dim.
    let axes: Vec<i64> = reduce_axes(axes, x.rank())?
        .into_iter()
        .map(|ax| ax as i64)
        .collect();
    let pairs = [
        super::complex::to_pairs(x)?,
        Tensor::from_slice(&[axes.len()], &axes)?,
    ];
    f(a, ctx, &pairs)?
        .iter()
        .map(super::complex::from_pairs)
        .collect()
}

fn sum(a: &NodeAttrs, ctx: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    match dtype_of(inputs)? {
        DType::Complex64 => complex_via_pairs(a, ctx, inputs, sum),
        DType::Float32 => reduce_with(a, inputs, 0f32, add_f32, None),
        DType::Int32 => reduce_via_i64(a, inputs, 0, i64::wrapping_add, None),
        DType::Int64 => reduce_fn(a, inputs, 0i64, i64::wrapping_add, None),
        d => Err(unsupported(d)),
    }
}

/// An int32 or bool reduction computed on int64 (sharing int64's instantiation) and narrowed
/// back: `init` is the narrow type's own, and wrapping sums/products and orderings agree modulo
/// 2^32 (bool: false < true, so All is a Min and Any a Max).
fn reduce_via_i64(
    a: &NodeAttrs,
    inputs: &[Tensor],
    init: i64,
    f: fn(i64, i64) -> i64,
    finish: Option<&dyn Fn(i64, usize) -> i64>,
) -> Outputs {
    let (x, axes) = two(inputs, ["input", "axis"])?;
    let wide = [
        crate::kernels::math::cast_tensor(x, DType::Int64)?,
        axes.clone(),
    ];
    reduce_fn(a, &wide, init, f, finish)?
        .into_iter()
        .map(|t| crate::kernels::num::narrow(t, x.dtype()))
        .collect()
}

fn prod(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    match dtype_of(inputs)? {
        DType::Float32 => reduce_fn(a, inputs, 1f32, |p, q| p * q, None),
        DType::Int32 => reduce_via_i64(a, inputs, 1, i64::wrapping_mul, None),
        DType::Int64 => reduce_fn(a, inputs, 1i64, i64::wrapping_mul, None),
        d => Err(unsupported(d)),
    }
}

/// Mean is the sum divided by the count (integer division for ints; 0/0 is NaN for floats and 0
/// for ints, where TF has no defined answer).
fn mean(a: &NodeAttrs, ctx: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    fn int_mean(s: i64, n: usize) -> i64 {
        i64::try_from(n).map_or(0, |n| s.checked_div(n).unwrap_or(0))
    }
    match dtype_of(inputs)? {
        DType::Complex64 => complex_via_pairs(a, ctx, inputs, mean),
        DType::Float32 => reduce_with(
            a,
            inputs,
            0f32,
            add_f32,
            Some(&|s: f32, n: usize| s / n as f32),
        ),
        // The int32 sum wraps at 32 bits before the division, as int32 arithmetic would.
        DType::Int32 => reduce_via_i64(
            a,
            inputs,
            0,
            i64::wrapping_add,
            Some(&|s: i64, n: usize| int_mean(s as i32 as i64, n)),
        ),
        DType::Int64 => reduce_fn(a, inputs, 0i64, i64::wrapping_add, Some(&int_mean)),
        d => Err(unsupported(d)),
    }
}

/// Max/Min propagate NaN, as TF's reducers do.
fn max(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    match dtype_of(inputs)? {
        DType::Float32 => reduce_rows(a, inputs, f32::NEG_INFINITY, max_nan, max_f32, None),
        DType::Int32 => reduce_via_i64(a, inputs, i32::MIN.into(), i64::max, None),
        DType::Int64 => reduce_fn(a, inputs, i64::MIN, i64::max, None),
        d => Err(unsupported(d)),
    }
}

fn min(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    match dtype_of(inputs)? {
        DType::Float32 => reduce_rows(a, inputs, f32::INFINITY, min_nan, min_f32, None),
        DType::Int32 => reduce_via_i64(a, inputs, i32::MAX.into(), i64::min, None),
        DType::Int64 => reduce_fn(a, inputs, i64::MAX, i64::min, None),
        d => Err(unsupported(d)),
    }
}

fn all(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    reduce_via_i64(a, inputs, 1, i64::min, None)
}

fn any(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    reduce_via_i64(a, inputs, 0, i64::max, None)
}

// ---------------------------------------------------------------------------------------------
// ArgMax / ArgMin

/// Index of the best element along `axis` for every (outer, inner) position, as TF's (Eigen's)
/// arg reducers pick it: the running best starts at `init` (the type's lowest value for ArgMax,
/// its highest for ArgMin) with index 0, and an element replaces it only if `better` (strictly).
/// So the first of equal extremes wins, NaN never does, and a row with nothing better than
/// `init` (all NaN, say) gives 0.
fn arg_reduce<T: Element>(
    x: &[T],
    (outer, reduce, inner): (usize, usize, usize),
    init: T,
    better: fn(T, T) -> bool,
) -> Result<Vec<i64>> {
    let n = outer.saturating_mul(inner);
    let mut idx = try_with_capacity::<i64>(n)?;
    if x.is_empty() || reduce == 0 {
        idx.resize(n, 0);
        return Ok(idx);
    }
    if inner == 1 {
        for block in x.chunks_exact(reduce) {
            let (mut best, mut at) = (init, 0usize);
            for (i, &v) in block.iter().enumerate() {
                if better(v, best) {
                    (best, at) = (v, i);
                }
            }
            idx.push(at as i64);
        }
    } else {
        let mut best = try_with_capacity::<T>(inner)?;
        for block in x.chunks_exact(reduce * inner) {
            best.clear();
            best.resize(inner, init);
            let start = idx.len();
            idx.resize(start + inner, 0);
            let slots = &mut idx[start..];
            for (r, row) in block.chunks_exact(inner).enumerate() {
                for ((b, i), &v) in best.iter_mut().zip(slots.iter_mut()).zip(row) {
                    if better(v, *b) {
                        *b = v;
                        *i = r as i64;
                    }
                }
            }
        }
    }
    Ok(idx)
}

fn arg_kernel(a: &NodeAttrs, inputs: &[Tensor], is_max: bool) -> Outputs {
    let (x, dim) = two(inputs, ["input", "axis"])?;
    if dim.rank() != 0 {
        return Err(invalid_argument(format!(
            "dim must be a scalar, but received tensor of shape: {}",
            dim.shape()
        )));
    }
    let d = dim.to_i64_vec()?.first().copied().unwrap_or(0);
    let rank = x.rank() as i64;
    if d < -rank || d >= rank {
        return Err(invalid_argument(format!(
            "Expected dimension in the range [{}, {rank}), but got {d}",
            -rank
        )));
    }
    let axis = if d < 0 { d + rank } else { d } as usize;
    let dims = x.dims();
    if dims[axis] == 0 {
        return Err(invalid_argument(format!(
            "Reduction axis {d} is empty in shape {}",
            x.shape()
        )));
    }
    let outer: usize = crate::kernels::num::prod(&dims[..axis]);
    let inner: usize = crate::kernels::num::prod(&dims[axis + 1..]);
    let reduce = dims[axis];
    let geometry = (outer, reduce, inner);
    let idx = match x.dtype() {
        // Along the last axis (the common case: class scores): a vectorized max (or min) that
        // skips NaN, from the same starting value as `arg_reduce`, then the first element equal
        // to it; the same answer, where a compare-and-branch per element does not vectorize.
        DType::Float32 if inner == 1 => {
            let mut idx = try_with_capacity::<i64>(outer)?;
            for row in x.f32s()?.chunks_exact(reduce) {
                let (m, found) = if is_max {
                    let m = fold_lanes(row, f32::MIN, &|p, q| if q > p { q } else { p });
                    (m, m > f32::MIN)
                } else {
                    let m = fold_lanes(row, f32::MAX, &|p, q| if q < p { q } else { p });
                    (m, m < f32::MAX)
                };
                let at = if found {
                    row.iter().position(|&v| v == m)
                } else {
                    None
                };
                idx.push(at.unwrap_or(0) as i64);
            }
            idx
        }
        DType::Float32 => {
            let s = x.f32s()?;
            if is_max {
                arg_reduce(s, geometry, f32::MIN, |v, b| v > b)?
            } else {
                arg_reduce(s, geometry, f32::MAX, |v, b| v < b)?
            }
        }
        DType::Int32 => {
            let s = x.as_slice::<i32>()?;
            if is_max {
                arg_reduce(s, geometry, i32::MIN, |v, b| v > b)?
            } else {
                arg_reduce(s, geometry, i32::MAX, |v, b| v < b)?
            }
        }
        DType::Int64 => {
            let s = x.as_slice::<i64>()?;
            if is_max {
                arg_reduce(s, geometry, i64::MIN, |v, b| v > b)?
            } else {
                arg_reduce(s, geometry, i64::MAX, |v, b| v < b)?
            }
        }
        t => return Err(unsupported(t)),
    };
    let mut out_dims = dims.to_vec();
    out_dims.remove(axis);
    let shape = Shape::new(out_dims)?;
    let out = match a.dtype("output_type")? {
        DType::Int64 => Tensor::from_vec(shape, idx)?,
        DType::Int32 => {
            let mut v = try_with_capacity::<i32>(idx.len())?;
            v.extend(idx.iter().map(|&i| i as i32));
            Tensor::from_vec(shape, v)?
        }
        t => return Err(unsupported(t)),
    };
    Ok(crate::ops::one_output(out))
}

fn arg_max(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    arg_kernel(a, inputs, true)
}

fn arg_min(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    arg_kernel(a, inputs, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduce_sum(dims: &[usize], axes: &[usize], keep: bool) -> (Vec<usize>, Vec<i64>) {
        let n: usize = crate::kernels::num::prod(dims);
        let x: Vec<i64> = (0..n as i64).collect();
        let plan = ReducePlan::new(dims, axes, keep).unwrap();
        let out = plan.run(&x, 0, |a, b| a + b, |r| r.iter().sum()).unwrap();
        (plan.out_shape.dims().to_vec(), out)
    }

    /// Sum by brute force over multi-indices.
    fn naive(dims: &[usize], axes: &[usize]) -> Vec<i64> {
        let n: usize = crate::kernels::num::prod(dims);
        let out_dims: Vec<usize> = (0..dims.len())
            .filter(|d| !axes.contains(d))
            .map(|d| dims[d])
            .collect();
        let mut out = vec![0i64; crate::kernels::num::prod(&out_dims)];
        for flat in 0..n {
            let mut rem = flat;
            let mut mi = vec![0; dims.len()];
            for d in (0..dims.len()).rev() {
                mi[d] = rem % dims[d];
                rem /= dims[d];
            }
            let mut o = 0;
            for d in 0..dims.len() {
                if !axes.contains(&d) {
                    o = o * dims[d] + mi[d];
                }
            }
            out[o] += flat as i64;
        }
        out
    }

    #[test]
    fn plans_match_brute_force() {
        let cases: &[(&[usize], &[usize])] = &[
            (&[2, 3, 4], &[0]),
            (&[2, 3, 4], &[1]),
            (&[2, 3, 4], &[2]),
            (&[2, 3, 4], &[0, 2]),
            (&[2, 3, 4], &[0, 1, 2]),
            (&[2, 1, 3, 1, 4], &[1, 2]),
            (&[2, 3, 4, 5], &[1, 3]),
            (&[2, 3, 4, 5], &[0, 2]),
            (&[3, 1, 2], &[1]),
            (&[5], &[0]),
        ];
        for (dims, axes) in cases {
            let (shape, got) = reduce_sum(dims, axes, false);
            assert_eq!(got, naive(dims, axes), "{dims:?} {axes:?}");
            assert_eq!(shape.iter().product::<usize>(), got.len());
        }
        assert_eq!(reduce_sum(&[2, 3, 4], &[0, 2], true).0, vec![1, 3, 1]);
    }

    #[test]
    fn strided_layout_is_used_for_split_axes() {
        let plan = ReducePlan::new(&[2, 3, 4, 5], &[1, 3], false).unwrap();
        assert!(matches!(plan.layout, Layout::Strided { .. }));
        let plan = ReducePlan::new(&[2, 3, 1, 5], &[1, 2], false).unwrap();
        assert!(matches!(
            plan.layout,
            Layout::Block {
                outer: 2,
                reduce: 3,
                inner: 5
            }
        ));
    }

    #[test]
    fn empty_reductions_give_the_identity() {
        let plan = ReducePlan::new(&[0, 3], &[0], false).unwrap();
        assert_eq!(
            plan.run::<f32>(&[], 0.0, |a, b| a + b, |r| r.iter().sum())
                .unwrap(),
            vec![0.0; 3]
        );
    }

    #[test]
    fn axes_are_validated() {
        let t = Tensor::from_slice(&[2], &[0i32, -3]).unwrap();
        assert!(reduce_axes(&t, 3).is_err());
        let t = Tensor::from_slice(&[2], &[2i32, -1]).unwrap();
        assert!(reduce_axes(&t, 3).is_err());
        assert!(reduce_axes(&Tensor::scalar(3i64), 3).is_err());
        assert_eq!(reduce_axes(&Tensor::scalar(-1i64), 3).unwrap(), vec![2]);
    }

    /// ArgMax and ArgMin of `row` along the last axis (the vectorized path) and along axis 0 of
    /// its transpose (the general one); both must agree.
    fn arg_extremes(row: &[f32]) -> (i64, i64) {
        let mut ctx = crate::EagerContext::default();
        let mut run = |op: &str, x: Tensor, axis: i32| {
            let no_attrs: Vec<(&str, crate::ops::AttrValue)> = vec![];
            let out = ctx
                .execute(op, &[x, Tensor::scalar(axis)], no_attrs)
                .unwrap();
            out[0].as_slice::<i64>().unwrap().to_vec()
        };
        let rows = Tensor::from_slice(&[2, row.len()], &[row, row].concat()).unwrap();
        let cols: Vec<f32> = row.iter().flat_map(|&v| [v, v]).collect();
        let cols = Tensor::from_slice(&[row.len(), 2], &cols).unwrap();
        let last = (run("ArgMax", rows.clone(), 1), run("ArgMin", rows, 1));
        let first = (run("ArgMax", cols.clone(), 0), run("ArgMin", cols, 0));
        assert_eq!(last, first, "paths disagree on {row:?}");
        assert!(last.0[0] == last.0[1] && last.1[0] == last.1[1]);
        (last.0[0], last.1[0])
    }

    #[test]
    fn arg_extremes_take_the_first_tie_and_skip_nan_as_tf_does() {
        // 19 elements: two 8-lane chunks and a tail; ties at 3, 12 and 17.
        let mut row: Vec<f32> = (0..19).map(|i| (i % 5) as f32 * 0.5).collect();
        row[3] = 9.0;
        row[12] = 9.0;
        row[17] = 9.0;
        row[6] = -4.0;
        row[16] = -4.0;
        assert_eq!(arg_extremes(&row), (3, 6));
        row[14] = f32::NAN;
        row[18] = f32::NAN;
        row[0] = f32::NAN;
        assert_eq!(arg_extremes(&row), (3, 6));
        // TensorFlow 2.18 (CPU) on each row: NaN never wins, and a row with nothing beyond the
        // type's lowest (highest) value gives 0.
        let (nan, inf) = (f32::NAN, f32::INFINITY);
        let cases: [(&[f32], (i64, i64)); 7] = [
            (&[nan, -inf], (0, 1)),
            (&[-inf, nan], (0, 0)),
            (&[nan, nan, 1.0], (2, 2)),
            (&[nan, inf], (1, 0)),
            (&[2.0, inf, nan, inf], (1, 0)),
            (&[nan, -3e38], (1, 1)),
            (&[f32::MIN, nan, f32::MIN], (0, 0)),
        ];
        for (row, want) in cases {
            assert_eq!(arg_extremes(row), want, "{row:?}");
        }
    }

    #[test]
    fn max_and_min_propagate_nan_from_any_position() {
        for len in [1, 3, 8, 9, 17, 24] {
            for at in 0..len {
                let mut row: Vec<f32> = (0..len).map(|i| i as f32 - 4.0).collect();
                row[at] = f32::NAN;
                assert!(max_f32(&row).is_nan(), "len {len}, NaN at {at}");
                assert!(min_f32(&row).is_nan(), "len {len}, NaN at {at}");
                let x = Tensor::from_slice(&[1, len], &row).unwrap();
                let mut ctx = crate::EagerContext::default();
                for op in ["Max", "Min"] {
                    let no_attrs: Vec<(&str, crate::ops::AttrValue)> = vec![];
                    let out = ctx
                        .execute(op, &[x.clone(), Tensor::scalar(1i32)], no_attrs)
                        .unwrap();
                    assert!(
                        out[0].f32s().unwrap()[0].is_nan(),
                        "{op}, len {len}, NaN at {at}"
                    );
                }
            }
        }
    }

    #[test]
    fn arg_reduce_takes_first_extreme() {
        let x = [1, 5, 5, 2, 9, 0];
        assert_eq!(
            arg_reduce(&x, (2, 3, 1), i32::MIN, |v, b| v > b).unwrap(),
            vec![1, 1]
        );
        assert_eq!(
            arg_reduce(&x, (1, 2, 3), i32::MIN, |v, b| v > b).unwrap(),
            vec![1, 1, 0]
        );
    }
}
