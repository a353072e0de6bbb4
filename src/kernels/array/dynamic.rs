//! Ops whose output shape depends on the values: Where, TopKV2, Unique, UniqueV2, ListDiff. The
//! selection is computed on dtype-agnostic keys or indices; values move through `assemble`.

use super::assemble::assemble;
use super::{int_scalar, int_vector};
use crate::hash::FastBuild;
use crate::kernels::num::{
    f32_key, i64_key, int_tensor, norm_axis, prod, sort_by_keys, widen, WITH_U8,
};
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
    // Sortable keys of the (widened) values; rows sorted descending, ties by lower index.
    // `sorted = false` (1 < k < n) gives TF's CPU order: its heap's (`unsorted_heap`).
    let heap_order = !a.bool("sorted")? && 1 < k && (k as usize) < n;
    let xw = &widen(x)?;
    let keys: Vec<u64> = match xw.dtype() {
        DType::Float32 => xw.f32s()?.iter().map(|&v| f32_key(v)).collect(),
        _ => xw.as_slice::<i64>()?.iter().map(|&v| i64_key(v)).collect(),
    };
    let mut picked = Vec::with_capacity(rows * k);
    let mut idx: Vec<usize> = Vec::with_capacity(n);
    for r in 0..rows {
        idx.clear();
        idx.extend(r * n..(r + 1) * n);
        if heap_order {
            picked.extend(unsorted_heap(&keys[r * n..(r + 1) * n], k).map(|c| r * n + c));
            continue;
        }
        sort_by_keys(&mut idx, &keys, true);
        picked.extend_from_slice(&idx[..k]);
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

/// The top `k` of `row` (1 < k < len) in the order TF's unsorted TopKV2 returns them: that of
/// gtl::TopN's heap (TF 2.18's, exactly k long), kept with libstdc++'s heap algorithms whose
/// "less" is "ranks higher" (larger, or equal at a lower index): the worst kept is the root.
fn unsorted_heap(row: &[u64], k: usize) -> impl Iterator<Item = usize> {
    let above = |a: usize, b: usize| row[a] > row[b] || (row[a] == row[b] && a < b);
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
    h.into_iter()
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
