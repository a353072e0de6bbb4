//! Ops whose output shape depends on the values: Where, TopKV2, Unique, UniqueV2, ListDiff. The
//! selection is computed on dtype-agnostic keys or indices; values move through `assemble`.

use super::assemble::assemble;
use super::{int_scalar, int_vector};
use crate::hash::FastBuild;
use crate::kernels::num::{f32_key, i64_key, int_tensor, norm_axis, prod, widen, WITH_U8};
use crate::ops::def::{ANY, INDEX};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{DType, Shape, Tensor};
use std::collections::{HashMap, HashSet};

type Outputs = Result<Vec<Tensor>>;

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Where", Simple(where_op))
            .input("input", "T")
            .type_attr_default("T", ANY, DType::Bool),
    );
    reg.add(
        OpBuilder::new("TopKV2", Simple(top_k))
            .input("input", "T")
            .input("k", "Tk")
            .bool_attr("sorted", true)
            .type_attr("T", WITH_U8)
            .type_attr_default("Tk", INDEX, DType::Int32)
            .type_attr_default("index_type", INDEX, DType::Int32),
    );
    reg.add(
        OpBuilder::new("Unique", Simple(unique))
            .input("x", "T")
            .type_attr("T", ANY)
            .type_attr_default("out_idx", INDEX, DType::Int32),
    );
    reg.add(
        OpBuilder::new("UniqueV2", Simple(unique))
            .input("x", "T")
            .input("axis", "Taxis")
            .type_attr("T", ANY)
            .type_attr_default("Taxis", INDEX, DType::Int64)
            .type_attr_default("out_idx", INDEX, DType::Int32),
    );
    reg.add(
        OpBuilder::new("ListDiff", Simple(list_diff))
            .input("x", "T")
            .input("y", "T")
            .type_attr("T", ANY)
            .type_attr_default("out_idx", INDEX, DType::Int32),
    );
}

/// Hashable identity of every element: equal values give equal keys (0.0 and -0.0 too); NaN gives
/// None (never equal to anything, as in C++).
fn keys(t: &Tensor) -> Result<Vec<Option<u64>>> {
    Ok(match t.dtype() {
        DType::Float32 => t
            .f32s()?
            .iter()
            .map(|&v| (!v.is_nan()).then(|| (v + 0.0).to_bits() as u64))
            .collect(),
        // Integers and bools through int64 (one loop; the same keys: both sign-extend).
        DType::Int32 | DType::Int64 | DType::Bool | DType::UInt8 => {
            crate::kernels::math::cast_tensor(t, DType::Int64)?
                .as_slice::<i64>()?
                .iter()
                .map(|&v| Some(v as u64))
                .collect()
        }
        d => return Err(invalid_argument(format!("dtype {d} is not supported"))),
    })
}

fn where_op(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = &inputs[0];
    if x.rank() == 0 {
        return Err(invalid_argument("WhereOp : Unhandled input dimensions: 0"));
    }
    // Nonzero is Cast's `!= 0` (NaN counts as true, as in TF).
    let truth_t = crate::kernels::math::cast_tensor(x, DType::Bool)?;
    let truth = truth_t.as_slice::<bool>()?;
    let dims = x.dims();
    let rank = dims.len();
    let mut out = Vec::new();
    let mut coord = vec![0i64; rank];
    for &t in truth {
        if t {
            out.extend_from_slice(&coord);
        }
        // Row-major increment of the coordinate.
        for d in (0..rank).rev() {
            coord[d] += 1;
            if (coord[d] as usize) < dims[d] {
                break;
            }
            coord[d] = 0;
        }
    }
    let n = out.len() / rank;
    Ok(crate::ops::one_output(Tensor::from_slice(
        &[n, rank],
        &out,
    )?))
}

fn top_k(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = &inputs[0];
    if inputs[1].rank() != 0 {
        return Err(invalid_argument(format!(
            "k must be 0-D, got shape {}",
            inputs[1].shape()
        )));
    }
    let k = int_scalar(&inputs[1], "k", true)?;
    if k < 0 {
        return Err(invalid_argument(format!("Need k >= 0, got {k}")));
    }
    if x.rank() < 1 {
        return Err(invalid_argument(format!(
            "input must be >= 1-D, got shape {}",
            x.shape()
        )));
    }
    let d = x.dims();
    let n = d[d.len() - 1];
    if (n as u64) < k as u64 {
        return Err(invalid_argument(format!(
            "input must have at least k columns. Had {n}, needed {k}"
        )));
    }
    let k = k as usize;
    let rows = prod(&d[..d.len() - 1]);
    // Sortable keys of the (widened) values (-0.0 as 0.0: TF compares values, so they tie).
    let xw = &widen(x)?;
    let float = xw.dtype() == DType::Float32;
    let keys: Vec<u64> = match xw.dtype() {
        DType::Float32 => (xw.f32s()?.iter())
            .map(|&v| f32_key(if v == 0.0 { 0.0 } else { v }))
            .collect(),
        _ => xw.as_slice::<i64>()?.iter().map(|&v| i64_key(v)).collect(),
    };
    let sorted = a.bool("sorted")?;
    let mut picked = Vec::with_capacity(rows * k);
    let mut buf = Vec::new();
    for r in (0..rows).take_while(|_| k > 0) {
        let row = &keys[r * n..(r + 1) * n];
        // For 1 < k < n TF keeps a gtl::TopN heap: its order (`sorted = false`) is the heap's,
        // and a NaN (comparing equal to everything) lands where that heap puts it. Otherwise the
        // result is the k largest, ties by lower index, which a selection finds in O(n) (a NaN
        // row with k = 1 or k = n ranks NaNs by sign beyond the infinities, unlike TF, whose
        // order there depends on Eigen's vectorized max and on std::sort's internals).
        let nan = float && row.iter().any(|&q| !REAL.contains(&q));
        if 1 < k && k < n && (!sorted || nan) {
            picked.extend(heap_top(row, k, sorted, nan).into_iter().map(|c| r * n + c));
        } else {
            picked.extend(select_top(row, k, &mut buf).map(|c| r * n + c));
        }
    }
    let mut out_dims = d.to_vec();
    out_dims[d.len() - 1] = k;
    let shape = Shape::from_dims(&out_dims)?;
    let values = assemble(&[x], x.dtype(), shape, &mut |emit| {
        for &p in &picked {
            emit(0, p, 1, 1);
        }
    })?;
    let idx: Vec<i64> = picked.iter().map(|&p| (p % n.max(1)) as i64).collect();
    let indices = int_tensor(a.dtype("index_type")?, &out_dims, &idx)?;
    Ok(vec![values, indices])
}

/// The float32 keys from -inf to inf; the others are NaNs.
const REAL: std::ops::RangeInclusive<u64> = 0x7F_FFFF..=0xFF80_0000;

/// The top `k` of `row` (0 < k <= len), best first: larger key, then lower index. Candidates
/// gather in `buf`; whenever it fills, it is cut to its best k, whose worst key becomes the bar a
/// later index must beat strictly (an equal key at a higher index ranks lower).
fn select_top<'a>(
    row: &[u64],
    k: usize,
    buf: &'a mut Vec<(u64, usize)>,
) -> impl Iterator<Item = usize> + 'a {
    let cap = (2 * k).max(1024);
    // Entries are (!key, index): ascending tuple order is the output order.
    let cut = |buf: &mut Vec<(u64, usize)>| {
        buf.select_nth_unstable(k - 1);
        buf.truncate(k);
        buf[k - 1].0
    };
    buf.clear();
    let mut bar = u64::MAX;
    for (c, &q) in row.iter().enumerate() {
        if !q < bar || c < cap {
            if buf.len() == cap {
                bar = cut(buf);
                if !q >= bar {
                    continue;
                }
            }
            buf.push((!q, c));
        }
    }
    if buf.len() > k {
        cut(buf);
    }
    buf.sort_unstable();
    buf.iter().map(|&(_, c)| c)
}

/// The top `k` of `row` (1 < k < len) as TF's gtl::TopN (TF 2.18's, exactly k long) keeps them,
/// with libstdc++'s heap algorithms whose "less" is "ranks higher" (larger, or equal at a lower
/// index; a NaN compares equal to everything): the worst kept is the root. `sorted`: then
/// `Extract`'s `sort_heap`, else the heap's own order.
fn heap_top(row: &[u64], k: usize, sorted: bool, nan: bool) -> Vec<usize> {
    let above = |a: usize, b: usize| {
        let (p, q) = (row[a], row[b]);
        if p == q || nan && !(REAL.contains(&p) && REAL.contains(&q)) {
            a < b
        } else {
            p > q
        }
    };
    // The first k + 1 indices made a heap, the worst popped off.
    let mut h: Vec<usize> = (0..=k).collect();
    for parent in (0..=(k - 1) / 2).rev() {
        let v = h[parent];
        adjust_heap(&mut h, parent, k + 1, v, &above);
    }
    pop_heap(&mut h, &above);
    h.truncate(k);
    // Each better index replaces the root: popped to the back, overwritten, pushed up.
    for c in k + 1..row.len() {
        if above(c, h[0]) {
            pop_heap(&mut h, &above);
            h[k - 1] = c;
            push_heap(&mut h, k - 1, 0, c, &above);
        }
    }
    for len in (2..=k).rev().filter(|_| sorted) {
        pop_heap(&mut h[..len], &above);
    }
    h
}

type Less<'a> = &'a dyn Fn(usize, usize) -> bool;

/// libstdc++'s `__push_heap`: `v` moved up from `hole` towards `top`.
#[inline(never)]
fn push_heap(h: &mut [usize], mut hole: usize, top: usize, v: usize, less: Less) {
    while hole > top && less(h[(hole - 1) / 2], v) {
        h[hole] = h[(hole - 1) / 2];
        hole = (hole - 1) / 2;
    }
    h[hole] = v;
}

/// libstdc++'s `__adjust_heap`: the hole at `hole` down to a leaf, then `v` pushed up from there.
#[inline(never)]
fn adjust_heap(h: &mut [usize], mut hole: usize, len: usize, v: usize, less: Less) {
    let (top, mut child) = (hole, hole);
    while child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if less(h[child], h[child - 1]) {
            child -= 1;
        }
        h[hole] = h[child];
        hole = child;
    }
    if len % 2 == 0 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        h[hole] = h[child - 1];
        hole = child - 1;
    }
    push_heap(h, hole, top, v, less);
}

/// libstdc++'s `pop_heap`: the root to the back, the heap one shorter.
fn pop_heap(h: &mut [usize], less: Less) {
    let last = h.len() - 1;
    let root = h[0];
    let v = std::mem::replace(&mut h[last], root);
    adjust_heap(h, 0, last, v, less);
}

fn unique(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = &inputs[0];
    let axis = match inputs.get(1) {
        None => None,
        Some(t) => {
            if t.rank() != 1 {
                return Err(invalid_argument("axis expects a 1D vector."));
            }
            let v = int_vector(t, "axis")?;
            if v.len() > 1 {
                return Err(invalid_argument(
                    "axis does not support input tensors larger than 1 elements.",
                ));
            }
            match v.first() {
                None => None,
                Some(&ax) => Some(norm_axis(ax, x.rank(), "UniqueV2").map_err(|_| {
                    invalid_argument(format!(
                        "axis has to be between [{}, {})",
                        -(x.rank() as i64),
                        x.rank()
                    ))
                })?),
            }
        }
    };
    let axis = match axis {
        Some(ax) => ax,
        None => {
            if x.rank() != 1 {
                return Err(invalid_argument(format!(
                    "unique expects a 1D vector, got shape {}",
                    x.shape()
                )));
            }
            0
        }
    };
    let d = x.dims();
    let (outer, len, inner) = (prod(&d[..axis]), d[axis], prod(&d[axis + 1..]));
    let ks = keys(x)?;
    // A slice along `axis` is its elements' keys over every outer and inner index.
    let slice_key = |k: usize| -> Option<Vec<u64>> {
        let mut v = Vec::with_capacity(outer * inner);
        for o in 0..outer {
            for i in 0..inner {
                v.push(ks[(o * len + k) * inner + i]?);
            }
        }
        Some(v)
    };
    let mut seen: HashMap<Vec<u64>, usize, FastBuild> = HashMap::with_hasher(FastBuild);
    let mut firsts: Vec<usize> = Vec::new();
    let mut idx = Vec::with_capacity(len);
    for k in 0..len {
        let slot = match slice_key(k) {
            Some(key) => *seen.entry(key).or_insert_with(|| {
                firsts.push(k);
                firsts.len() - 1
            }),
            None => {
                firsts.push(k);
                firsts.len() - 1
            }
        };
        idx.push(slot as i64);
    }
    let mut out_dims = d.to_vec();
    out_dims[axis] = firsts.len();
    let y = assemble(&[x], x.dtype(), Shape::new(out_dims)?, &mut |emit| {
        for o in 0..outer {
            for &k in &firsts {
                emit(0, (o * len + k) * inner, inner, 1);
            }
        }
    })?;
    Ok(vec![y, int_tensor(a.dtype("out_idx")?, &[len], &idx)?])
}

fn list_diff(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (x, y) = (&inputs[0], &inputs[1]);
    for (t, n) in [(x, "x"), (y, "y")] {
        if t.rank() != 1 {
            return Err(invalid_argument(format!(
                "{n} should be a 1D vector, got shape {}",
                t.shape()
            )));
        }
    }
    let mut remove: HashSet<u64, FastBuild> = HashSet::with_hasher(FastBuild);
    remove.extend(keys(y)?.into_iter().flatten());
    let kept: Vec<usize> = keys(x)?
        .iter()
        .enumerate()
        .filter(|(_, k)| k.is_none_or(|k| !remove.contains(&k)))
        .map(|(i, _)| i)
        .collect();
    let out = assemble(
        &[x],
        x.dtype(),
        Shape::from_dims(&[kept.len()])?,
        &mut |emit| {
            for &i in &kept {
                emit(0, i, 1, 1);
            }
        },
    )?;
    let idx: Vec<i64> = kept.iter().map(|&i| i as i64).collect();
    Ok(vec![
        out,
        int_tensor(a.dtype("out_idx")?, &[kept.len()], &idx)?,
    ])
}
