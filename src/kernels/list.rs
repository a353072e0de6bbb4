//! TensorList ops over the resource manager's lists. TF gives lists value semantics (a variant
//! tensor copied on write); here, as in TF.js, a list is one mutable object behind its handle and
//! the ops that "return a new list" return the same handle: the graphs the converter emits thread
//! a list through a loop and never read an old version after writing.

use super::array::assemble::assemble;
use super::array::{int_scalar, int_vector};
use crate::ops::def::{ANY, INDEX};
use crate::ops::{AttrDefault, AttrType, NodeAttrs, OpBuilder, Registry};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::resource::TensorList;
use crate::status::{invalid_argument, Result};
use crate::tensor::{DType, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    let handle = |name: &'static str, f: crate::ops::ComputeFn| {
        OpBuilder::new(name, Simple(f)).fixed_input("input_handle", DType::Resource)
    };
    reg.add(
        OpBuilder::new("TensorListReserve", Simple(reserve))
            .input("element_shape", "shape_type")
            .fixed_input("num_elements", DType::Int32)
            .type_attr("element_dtype", ANY)
            .type_attr("shape_type", INDEX)
            .stateful(),
    );
    reg.add(
        OpBuilder::new("EmptyTensorList", Simple(empty))
            .input("element_shape", "shape_type")
            .fixed_input("max_num_elements", DType::Int32)
            .type_attr("element_dtype", ANY)
            .type_attr("shape_type", INDEX)
            .stateful(),
    );
    reg.add(
        OpBuilder::new("TensorListFromTensor", Simple(from_tensor))
            .input("tensor", "element_dtype")
            .input("element_shape", "shape_type")
            .type_attr("element_dtype", ANY)
            .type_attr("shape_type", INDEX)
            .stateful(),
    );
    reg.add(
        handle("TensorListGetItem", get_item)
            .fixed_input("index", DType::Int32)
            .fixed_input("element_shape", DType::Int32)
            .type_attr("element_dtype", ANY)
            .stateful(),
    );
    reg.add(
        handle("TensorListSetItem", set_item)
            .fixed_input("index", DType::Int32)
            .input("item", "element_dtype")
            .type_attr("element_dtype", ANY)
            .bool_attr("resize_if_index_out_of_bounds", false)
            .stateful(),
    );
    reg.add(
        handle("TensorListStack", stack)
            .fixed_input("element_shape", DType::Int32)
            .type_attr("element_dtype", ANY)
            .int_attr("num_elements", Some(-1))
            .stateful(),
    );
    reg.add(
        handle("TensorListPushBack", push_back)
            .input("tensor", "element_dtype")
            .type_attr("element_dtype", ANY)
            .stateful(),
    );
    reg.add(
        handle("TensorListPopBack", pop_back)
            .fixed_input("element_shape", DType::Int32)
            .type_attr("element_dtype", ANY)
            .stateful(),
    );
    reg.add(handle("TensorListLength", length).stateful());
    reg.add(
        handle("TensorListElementShape", element_shape)
            .type_attr("shape_type", INDEX)
            .stateful(),
    );
    reg.add(
        handle("TensorListGather", gather)
            .fixed_input("indices", DType::Int32)
            .fixed_input("element_shape", DType::Int32)
            .type_attr("element_dtype", ANY)
            .stateful(),
    );
    reg.add(
        OpBuilder::new("TensorListScatter", Simple(scatter))
            .input("tensor", "element_dtype")
            .fixed_input("indices", DType::Int32)
            .input("element_shape", "shape_type")
            .type_attr("element_dtype", ANY)
            .type_attr("shape_type", INDEX)
            .stateful(),
    );
    reg.add(
        OpBuilder::new("TensorListScatterV2", Simple(scatter))
            .input("tensor", "element_dtype")
            .fixed_input("indices", DType::Int32)
            .input("element_shape", "shape_type")
            .fixed_input("num_elements", DType::Int32)
            .type_attr("element_dtype", ANY)
            .type_attr("shape_type", INDEX)
            .stateful(),
    );
    reg.add(
        OpBuilder::new("TensorListSplit", Simple(split))
            .input("tensor", "element_dtype")
            .input("element_shape", "shape_type")
            .input("lengths", "Tlen")
            .type_attr("element_dtype", ANY)
            .type_attr("shape_type", INDEX)
            .type_attr("Tlen", INDEX)
            .stateful(),
    );
    reg.add(
        handle("TensorListConcat", concat)
            .type_attr("element_dtype", ANY)
            .attr(
                "element_shape",
                AttrType::Shape,
                Some(AttrDefault::UnknownShape),
            )
            .stateful(),
    );
    reg.add(
        handle("TensorListConcatV2", concat)
            .input("element_shape", "shape_type")
            .input("leading_dims", "Tlen")
            .type_attr("element_dtype", ANY)
            .type_attr("shape_type", INDEX)
            // TF declares int64; the TF.js converter stores int64 constants as int32.
            .type_attr("Tlen", INDEX)
            .stateful(),
    );
    reg.add(
        handle("TensorListResize", resize)
            .fixed_input("size", DType::Int32)
            .stateful(),
    );
}

type Out = Result<Vec<Tensor>>;

/// An `element_shape` input: a scalar -1 for an unknown rank, else dims with -1 for unknown ones.
pub(crate) fn shape_arg(t: &Tensor) -> Result<Option<Vec<i64>>> {
    if t.rank() == 0 {
        return match int_scalar(t, "element_shape", true)? {
            -1 => Ok(None),
            v => Err(invalid_argument(format!(
                "element_shape must be -1 (unknown rank) or a vector, got scalar {v}"
            ))),
        };
    }
    let dims = int_vector(t, "element_shape")?;
    if dims.iter().any(|&d| d < -1) {
        return Err(invalid_argument(format!(
            "element_shape {dims:?} has a dim below -1"
        )));
    }
    Ok(Some(dims))
}

/// TF's MergeWith of two partial shapes: known dims must agree; the result knows what either does.
pub(crate) fn merge_shapes(a: &Option<Vec<i64>>, b: &Option<Vec<i64>>) -> Result<Option<Vec<i64>>> {
    match (a, b) {
        (None, x) | (x, None) => Ok(x.clone()),
        (Some(a), Some(b)) => {
            let clash =
                || invalid_argument(format!("element shapes {a:?} and {b:?} are incompatible"));
            if a.len() != b.len() {
                return Err(clash());
            }
            a.iter()
                .zip(b)
                .map(|(&x, &y)| match (x, y) {
                    (-1, v) | (v, -1) => Ok(v),
                    (x, y) if x == y => Ok(x),
                    _ => Err(clash()),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some)
        }
    }
}

/// Out of line: the collect loop was expanded at each of its 18 (inlined) callers.
#[inline(never)]
pub(super) fn dims_i64(t: &Tensor) -> Option<Vec<i64>> {
    Some(t.dims().iter().map(|&d| d as i64).collect())
}

/// Fully known dims of a partial shape.
pub(super) fn known(shape: &Option<Vec<i64>>) -> Option<Vec<usize>> {
    shape
        .as_ref()?
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect()
}

pub(super) fn check_item(l: &TensorList, t: &Tensor, op: &str) -> Result<()> {
    if t.dtype() != l.dtype {
        return Err(invalid_argument(format!(
            "{op}: list holds {}, item is {}",
            l.dtype,
            t.dtype()
        )));
    }
    merge_shapes(&l.element_shape, &dims_i64(t))
        .map_err(|e| invalid_argument(format!("{op}: item shape {}: {}", t.shape(), e.message)))?;
    Ok(())
}

pub(super) fn index(t: &Tensor, len: usize, op: &str) -> Result<usize> {
    let i = int_scalar(t, "index", false)?;
    usize::try_from(i).ok().filter(|&i| i < len).ok_or_else(|| {
        invalid_argument(format!("{op}: index {i} out of range for a list of {len}"))
    })
}

/// The element shape for reading unset slots or stacking an empty list: what the list knows
/// merged with what the op says; it must be fully known.
fn element_dims(l: &TensorList, given: &Tensor, op: &str) -> Result<Vec<usize>> {
    let merged = merge_shapes(&l.element_shape, &shape_arg(given)?)?;
    // Set items also tell the shape.
    let merged = match l.items.iter().flatten().next() {
        Some(t) => merge_shapes(&merged, &dims_i64(t))?,
        None => merged,
    };
    known(&merged).ok_or_else(|| {
        invalid_argument(format!(
            "{op}: element shape {merged:?} is not fully defined, so unset elements cannot be read"
        ))
    })
}

/// The list's items with unset ones as zeros of `dims`.
/// The `indices` tensor as positions in `l`, each checked in range (InvalidArgument naming `op`).
pub(super) fn indices_in(l: &TensorList, indices: &Tensor, op: &str) -> Result<Vec<usize>> {
    int_vector(indices, "indices")?
        .into_iter()
        .map(|k| {
            usize::try_from(k)
                .ok()
                .filter(|&k| k < l.items.len())
                .ok_or_else(|| invalid_argument(format!("{op}: index {k} out of range")))
        })
        .collect()
}

pub(super) fn filled(l: &TensorList, picks: &[usize], dims: &[usize]) -> Result<Vec<Tensor>> {
    let zero = Tensor::zeros(l.dtype, Shape::new(dims.to_vec())?)?;
    Ok(picks
        .iter()
        .map(|&i| l.items[i].clone().unwrap_or_else(|| zero.clone()))
        .collect())
}

/// Items of equal shape `dims` joined along a new (or, with `concat`, their first) axis.
pub(super) fn join(items: &[Tensor], dtype: DType, dims: &[usize], concat: bool) -> Result<Tensor> {
    let mut out_dims = Vec::with_capacity(dims.len() + 1);
    if concat {
        let mut first = 0usize;
        for t in items {
            if t.rank() == 0 || t.dims()[1..] != dims[1..] {
                return Err(invalid_argument(format!(
                    "concat: element of shape {} does not match {dims:?} past its first dim",
                    t.shape()
                )));
            }
            first += t.dims()[0];
        }
        out_dims.push(first);
        out_dims.extend_from_slice(&dims[1..]);
    } else {
        for t in items {
            if t.dims() != dims {
                return Err(invalid_argument(format!(
                    "stack: element of shape {} differs from {dims:?}",
                    t.shape()
                )));
            }
        }
        out_dims.push(items.len());
        out_dims.extend_from_slice(dims);
    }
    let refs: Vec<&Tensor> = items.iter().collect();
    assemble(&refs, dtype, Shape::new(out_dims)?, &mut |emit| {
        for (k, t) in items.iter().enumerate() {
            emit(k, 0, t.num_elements(), 1);
        }
    })
}

/// `x` cut along its first axis into pieces of `sizes` rows (each keeping the axis unless `drop`).
pub(super) fn cut(x: &Tensor, sizes: &[usize], drop: bool) -> Result<Vec<Tensor>> {
    let inner: usize = crate::kernels::num::prod(&x.dims()[1..]);
    let mut out = Vec::with_capacity(sizes.len());
    let mut start = 0;
    for &s in sizes {
        let mut d = x.dims().to_vec();
        if drop {
            d.remove(0);
        } else {
            d[0] = s;
        }
        let begin = start * inner;
        out.push(assemble(&[x], x.dtype(), Shape::new(d)?, &mut |emit| {
            emit(0, begin, s * inner, 1)
        })?);
        start += s;
    }
    Ok(out)
}

fn handle_out(ctx: &mut KernelContext<'_>, l: TensorList) -> Out {
    let h = ctx.resources.new_list(l, ctx.scope)?;
    Ok(crate::ops::one_output(Tensor::resource(h)))
}

pub(super) fn count(t: &Tensor, what: &str) -> Result<usize> {
    let n = int_scalar(t, what, false)?;
    usize::try_from(n).map_err(|_| invalid_argument(format!("{what} must be >= 0, got {n}")))
}

fn reserve(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = TensorList::new(
        a.dtype("element_dtype")?,
        shape_arg(&i[0])?,
        count(&i[1], "num_elements")?,
    )?;
    handle_out(ctx, l)
}

fn empty(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let mut l = TensorList::new(a.dtype("element_dtype")?, shape_arg(&i[0])?, 0)?;
    let max = int_scalar(&i[1], "max_num_elements", false)?;
    l.max_len = usize::try_from(max).ok();
    handle_out(ctx, l)
}

pub(super) fn rows(x: &Tensor, op: &str) -> Result<usize> {
    x.dims().first().copied().ok_or_else(|| {
        invalid_argument(format!(
            "{op}: tensor must have at least one dim, got a scalar"
        ))
    })
}

fn from_tensor(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let x = &i[0];
    let n = rows(x, "TensorListFromTensor")?;
    let shape = merge_shapes(
        &shape_arg(&i[1])?,
        &Some(dims_i64(x).unwrap_or_default()[1..].to_vec()),
    )?;
    let mut l = TensorList::new(a.dtype("element_dtype")?, shape, 0)?;
    l.resize(n)?;
    for (slot, t) in l.items.iter_mut().zip(cut(x, &vec![1; n], true)?) {
        *slot = Some(t);
    }
    handle_out(ctx, l)
}

fn get_item(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list(i[0].resource_handle()?)?;
    check_dtype(l, a)?;
    let k = index(&i[1], l.items.len(), "TensorListGetItem")?;
    match &l.items[k] {
        Some(t) => Ok(crate::ops::one_output(t.clone())),
        None => {
            let dims = element_dims(l, &i[2], "TensorListGetItem")?;
            Ok(crate::ops::one_output(Tensor::zeros(
                l.dtype,
                Shape::new(dims)?,
            )?))
        }
    }
}

fn check_dtype(l: &TensorList, a: &NodeAttrs) -> Result<()> {
    let want = a.dtype("element_dtype")?;
    if l.dtype != want {
        return Err(invalid_argument(format!(
            "list holds {}, op expects element_dtype {want}",
            l.dtype
        )));
    }
    Ok(())
}

fn set_item(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list_mut(i[0].resource_handle()?)?;
    check_item(l, &i[2], "TensorListSetItem")?;
    let len = l.items.len();
    let k = if a.bool("resize_if_index_out_of_bounds")? {
        let k = count(&i[1], "index")?;
        if k >= len {
            l.resize(k + 1)?;
        }
        k
    } else {
        index(&i[1], len, "TensorListSetItem")?
    };
    l.items[k] = Some(i[2].clone());
    Ok(crate::ops::one_output(i[0].clone()))
}

fn stack(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list(i[0].resource_handle()?)?;
    check_dtype(l, a)?;
    let n = a.int("num_elements")?;
    if n != -1 && n as usize != l.items.len() {
        return Err(invalid_argument(format!(
            "TensorListStack: list has {} elements, num_elements is {n}",
            l.items.len()
        )));
    }
    let dims = element_dims(l, &i[1], "TensorListStack")?;
    let all: Vec<usize> = (0..l.items.len()).collect();
    let items = filled(l, &all, &dims)?;
    Ok(crate::ops::one_output(join(&items, l.dtype, &dims, false)?))
}

fn gather(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list(i[0].resource_handle()?)?;
    check_dtype(l, a)?;
    let picks = indices_in(l, &i[1], "TensorListGather")?;
    let dims = element_dims(l, &i[2], "TensorListGather")?;
    let items = filled(l, &picks, &dims)?;
    Ok(crate::ops::one_output(join(&items, l.dtype, &dims, false)?))
}

fn push_back(_: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list_mut(i[0].resource_handle()?)?;
    check_item(l, &i[1], "TensorListPushBack")?;
    let n = l.items.len();
    l.resize(n + 1)?;
    l.items[n] = Some(i[1].clone());
    Ok(crate::ops::one_output(i[0].clone()))
}

fn pop_back(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list(i[0].resource_handle()?)?;
    check_dtype(l, a)?;
    let Some(last) = l.items.last() else {
        return Err(invalid_argument("TensorListPopBack on an empty list"));
    };
    let t = match last {
        Some(t) => t.clone(),
        None => Tensor::zeros(
            l.dtype,
            Shape::new(element_dims(l, &i[1], "TensorListPopBack")?)?,
        )?,
    };
    let l = ctx.resources.list_mut(i[0].resource_handle()?)?;
    l.items.pop();
    Ok(vec![i[0].clone(), t])
}

fn length(_: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list(i[0].resource_handle()?)?;
    Ok(crate::ops::one_output(Tensor::scalar(l.items.len() as i32)))
}

fn element_shape(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list(i[0].resource_handle()?)?;
    let v: Vec<i64> = match &l.element_shape {
        None => vec![-1],
        Some(d) => d.clone(),
    };
    let scalar = l.element_shape.is_none();
    let dims: &[usize] = if scalar { &[] } else { &[v.len()] };
    Ok(crate::ops::one_output(match a.dtype("shape_type")? {
        DType::Int64 => Tensor::from_slice(dims, &v)?,
        _ => Tensor::from_slice(dims, &v.iter().map(|&d| d as i32).collect::<Vec<_>>())?,
    }))
}

fn scatter(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let x = &i[0];
    let n = rows(x, "TensorListScatter")?;
    let indices = int_vector(&i[1], "indices")?;
    if indices.len() != n {
        return Err(invalid_argument(format!(
            "TensorListScatter: {} indices for {n} rows",
            indices.len()
        )));
    }
    let shape = merge_shapes(
        &shape_arg(&i[2])?,
        &Some(dims_i64(x).unwrap_or_default()[1..].to_vec()),
    )?;
    let min_len = match i.get(3) {
        Some(t) => int_scalar(t, "num_elements", false)?,
        None => -1,
    };
    let mut len = usize::try_from(min_len).unwrap_or(0);
    for &k in &indices {
        let k = usize::try_from(k)
            .map_err(|_| invalid_argument(format!("TensorListScatter: negative index {k}")))?;
        len = len.max(k + 1);
    }
    let mut l = TensorList::new(a.dtype("element_dtype")?, shape, len)?;
    for (&k, t) in indices.iter().zip(cut(x, &vec![1; n], true)?) {
        l.items[k as usize] = Some(t);
    }
    handle_out(ctx, l)
}

fn split(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let x = &i[0];
    let n = rows(x, "TensorListSplit")?;
    let lengths = int_vector(&i[2], "lengths")?
        .into_iter()
        .map(|v| usize::try_from(v).map_err(|_| invalid_argument("lengths must be >= 0")))
        .collect::<Result<Vec<_>>>()?;
    if lengths.iter().sum::<usize>() != n {
        return Err(invalid_argument(format!(
            "TensorListSplit: lengths sum to {}, tensor has {n} rows",
            lengths.iter().sum::<usize>()
        )));
    }
    let mut rest = dims_i64(x).unwrap_or_default();
    rest[0] = -1;
    let shape = merge_shapes(&shape_arg(&i[1])?, &Some(rest))?;
    let mut l = TensorList::new(a.dtype("element_dtype")?, shape, 0)?;
    l.resize(lengths.len())?;
    for (slot, t) in l.items.iter_mut().zip(cut(x, &lengths, false)?) {
        *slot = Some(t);
    }
    handle_out(ctx, l)
}

fn concat(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list(i[0].resource_handle()?)?;
    check_dtype(l, a)?;
    let given = match i.get(1) {
        Some(t) => shape_arg(t)?,
        None => a.shape("element_shape")?.clone(),
    };
    let shape = merge_shapes(&l.element_shape, &given)?;
    // Unset elements need the full shape (with a known first dim) to become zeros.
    let zero_dims = known(&shape);
    let mut items = Vec::with_capacity(l.items.len());
    for t in &l.items {
        match (t, &zero_dims) {
            (Some(t), _) => items.push(t.clone()),
            (None, Some(d)) => items.push(Tensor::zeros(l.dtype, Shape::new(d.clone())?)?),
            (None, None) => {
                return Err(invalid_argument(
                    "TensorListConcat: an element is unset and the element shape is not known",
                ))
            }
        }
    }
    let lengths: Vec<i64> = items
        .iter()
        .map(|t| t.dims().first().map_or(0, |&d| d as i64))
        .collect();
    // An empty list needs every dim but the first.
    let rest = shape
        .as_ref()
        .filter(|d| !d.is_empty())
        .and_then(|d| known(&Some(d[1..].to_vec())));
    let dims = match (items.first(), rest) {
        (Some(t), _) => t.dims().to_vec(),
        (None, Some(mut d)) => {
            d.insert(0, 0);
            d
        }
        _ => {
            return Err(invalid_argument(
                "TensorListConcat: empty list with an element shape that is not known",
            ))
        }
    };
    let out = join(&items, l.dtype, &dims, true)?;
    Ok(vec![out, Tensor::from_slice(&[lengths.len()], &lengths)?])
}

fn resize(_: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let n = count(&i[1], "size")?;
    ctx.resources.list_mut(i[0].resource_handle()?)?.resize(n)?;
    Ok(crate::ops::one_output(i[0].clone()))
}
