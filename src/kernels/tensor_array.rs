//! TensorArray (v3) ops, TF 1.x's loop accumulators, over the resource manager's lists. The `flow`
//! scalar TF threads through them only orders the ops; here it is a float 0 passed along.
//! `tensor_array_name` never names a shared array here, so the loader blanks it (it would make
//! every array's cache key distinct, like a unique `shared_name`).

use super::array::{int_scalar, int_vector};
use super::list::{
    check_item, count, cut, dims_i64, filled, index, indices_in, join, known, merge_shapes, rows,
};
use crate::ops::def::ANY;
use crate::ops::{AttrDefault, AttrType, NodeAttrs, OpBuilder, Registry};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::resource::TensorList;
use crate::status::{invalid_argument, Result};
use crate::tensor::{DType, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    let shape = |b: OpBuilder, name: &'static str| {
        b.attr(name, AttrType::Shape, Some(AttrDefault::UnknownShape))
    };
    reg.add(
        shape(
            OpBuilder::new("TensorArrayV3", Simple(create))
                .fixed_input("size", DType::Int32)
                .type_attr("dtype", ANY),
            "element_shape",
        )
        .bool_attr("dynamic_size", false)
        .bool_attr("clear_after_read", true)
        .bool_attr("identical_element_shapes", false)
        .string_attr("tensor_array_name", Some(""))
        .stateful(),
    );
    let handle = |name: &'static str, f: crate::ops::ComputeFn| {
        OpBuilder::new(name, Simple(f)).fixed_input("handle", DType::Resource)
    };
    reg.add(
        handle("TensorArrayWriteV3", write)
            .fixed_input("index", DType::Int32)
            .input("value", "T")
            .fixed_input("flow_in", DType::Float32)
            .type_attr("T", ANY)
            .stateful(),
    );
    reg.add(
        handle("TensorArrayReadV3", read)
            .fixed_input("index", DType::Int32)
            .fixed_input("flow_in", DType::Float32)
            .type_attr("dtype", ANY)
            .stateful(),
    );
    reg.add(
        shape(
            handle("TensorArrayGatherV3", gather)
                .fixed_input("indices", DType::Int32)
                .fixed_input("flow_in", DType::Float32)
                .type_attr("dtype", ANY),
            "element_shape",
        )
        .stateful(),
    );
    reg.add(
        handle("TensorArrayScatterV3", scatter)
            .fixed_input("indices", DType::Int32)
            .input("value", "T")
            .fixed_input("flow_in", DType::Float32)
            .type_attr("T", ANY)
            .stateful(),
    );
    reg.add(
        handle("TensorArraySizeV3", size)
            .fixed_input("flow_in", DType::Float32)
            .stateful(),
    );
    reg.add(
        handle("TensorArraySplitV3", split)
            .input("value", "T")
            .input("lengths", "Tlen")
            .fixed_input("flow_in", DType::Float32)
            .type_attr("T", ANY)
            // TF declares int64; the TF.js converter stores int64 constants as int32.
            .type_attr("Tlen", crate::ops::def::INDEX)
            .stateful(),
    );
    reg.add(
        shape(
            handle("TensorArrayConcatV3", concat)
                .fixed_input("flow_in", DType::Float32)
                .type_attr("dtype", ANY),
            "element_shape_except0",
        )
        .stateful(),
    );
    reg.add(handle("TensorArrayCloseV3", close).stateful());
}

type Out = Result<Vec<Tensor>>;

fn flow() -> Tensor {
    Tensor::scalar(0.0f32)
}

fn create(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let mut l = TensorList::new(
        a.dtype("dtype")?,
        a.shape("element_shape")?.clone(),
        count(&i[0], "size")?,
    )?;
    l.dynamic = a.bool("dynamic_size")?;
    l.clear_after_read = a.bool("clear_after_read")?;
    let h = ctx.resources.new_list(l, ctx.scope)?;
    Ok(vec![Tensor::resource(h), flow()])
}

/// Where a write to `k` goes: in range, or past the end of a dynamic array (which grows).
fn slot(l: &mut TensorList, k: &Tensor, op: &str) -> Result<usize> {
    let k = int_scalar(k, "index", false)?;
    let k = usize::try_from(k).map_err(|_| invalid_argument(format!("{op}: index {k} < 0")))?;
    if k >= l.items.len() {
        if !l.dynamic {
            return Err(invalid_argument(format!(
                "{op}: index {k} out of range for a TensorArray of size {} (not dynamic_size)",
                l.items.len()
            )));
        }
        l.resize(k + 1)?;
    }
    Ok(k)
}

fn put(l: &mut TensorList, k: usize, v: Tensor, op: &str) -> Result<()> {
    check_item(l, &v, op)?;
    if l.is_cleared(k) {
        return Err(invalid_argument(format!(
            "{op}: Could not write to TensorArray index {k} because it has already been read"
        )));
    }
    if l.items[k].is_some() {
        return Err(invalid_argument(format!(
            "{op}: element {k} of the TensorArray was already written (TensorArrays are write-once)"
        )));
    }
    l.items[k] = Some(v);
    Ok(())
}

fn write(_: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list_mut(i[0].resource_handle()?)?;
    let k = slot(l, &i[1], "TensorArrayWriteV3")?;
    put(l, k, i[2].clone(), "TensorArrayWriteV3")?;
    Ok(crate::ops::one_output(flow()))
}

fn check_dtype(l: &TensorList, a: &NodeAttrs) -> Result<()> {
    let want = a.dtype("dtype")?;
    if l.dtype != want {
        return Err(invalid_argument(format!(
            "TensorArray holds {}, op reads {want}",
            l.dtype
        )));
    }
    Ok(())
}

/// Element dims for unset elements: the array's shape, or any written element's.
fn element_dims(l: &TensorList, given: &Option<Vec<i64>>, op: &str) -> Result<Vec<usize>> {
    let mut s = merge_shapes(&l.element_shape, given)?;
    if let Some(t) = l.items.iter().flatten().next() {
        s = merge_shapes(&s, &dims_i64(t))?;
    }
    known(&s).ok_or_else(|| {
        invalid_argument(format!(
            "{op}: element shape {s:?} is not fully defined and no element was written"
        ))
    })
}

fn read(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list_mut(i[0].resource_handle()?)?;
    check_dtype(l, a)?;
    let k = index(&i[1], l.items.len(), "TensorArrayReadV3")?;
    check_not_cleared(l, k, "TensorArrayReadV3")?;
    let v = match &l.items[k] {
        Some(t) => t.clone(),
        None => Tensor::zeros(
            l.dtype,
            Shape::new(element_dims(l, &None, "TensorArrayReadV3")?)?,
        )?,
    };
    if l.clear_after_read && l.items[k].is_some() {
        l.clear(k)?;
    }
    Ok(crate::ops::one_output(v))
}

/// TF's error for a second read of an element a `clear_after_read` read emptied.
fn check_not_cleared(l: &TensorList, k: usize, op: &str) -> Result<()> {
    if l.is_cleared(k) {
        return Err(invalid_argument(format!(
            "{op}: Could not read index {k} twice because it was cleared after a previous read \
             (perhaps try setting clear_after_read = false?)"
        )));
    }
    Ok(())
}

fn gather(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list_mut(i[0].resource_handle()?)?;
    check_dtype(l, a)?;
    let picks = indices_in(l, &i[1], "TensorArrayGatherV3")?;
    for (n, &k) in picks.iter().enumerate() {
        check_not_cleared(l, k, "TensorArrayGatherV3")?;
        // A second pick of a written element reads it after the first cleared it.
        if l.clear_after_read && l.items[k].is_some() && picks[..n].contains(&k) {
            return Err(invalid_argument(format!(
                "TensorArrayGatherV3: Could not read index {k} twice because it was cleared \
                 after a previous read (perhaps try setting clear_after_read = false?)"
            )));
        }
    }
    let dims = element_dims(l, a.shape("element_shape")?, "TensorArrayGatherV3")?;
    let items = filled(l, &picks, &dims)?;
    let out = join(&items, l.dtype, &dims, false)?;
    // TF reads each element in turn: written ones are cleared.
    if l.clear_after_read {
        for &k in &picks {
            if l.items[k].is_some() {
                l.clear(k)?;
            }
        }
    }
    Ok(crate::ops::one_output(out))
}

fn scatter(_: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let x = &i[2];
    let n = rows(x, "TensorArrayScatterV3")?;
    let indices = int_vector(&i[1], "indices")?;
    if indices.len() != n {
        return Err(invalid_argument(format!(
            "TensorArrayScatterV3: {} indices for {n} rows",
            indices.len()
        )));
    }
    let parts = cut(x, &vec![1; n], true)?;
    let l = ctx.resources.list_mut(i[0].resource_handle()?)?;
    for (k, v) in indices.iter().zip(parts) {
        let k = slot(l, &Tensor::scalar(*k as i32), "TensorArrayScatterV3")?;
        put(l, k, v, "TensorArrayScatterV3")?;
    }
    Ok(crate::ops::one_output(flow()))
}

fn size(_: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list(i[0].resource_handle()?)?;
    Ok(crate::ops::one_output(Tensor::scalar(l.items.len() as i32)))
}

fn split(_: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let x = &i[1];
    let n = rows(x, "TensorArraySplitV3")?;
    let lengths = int_vector(&i[2], "lengths")?
        .into_iter()
        .map(|v| usize::try_from(v).map_err(|_| invalid_argument("lengths must be >= 0")))
        .collect::<Result<Vec<_>>>()?;
    if lengths.iter().sum::<usize>() != n {
        return Err(invalid_argument(format!(
            "TensorArraySplitV3: lengths sum to {}, value has {n} rows",
            lengths.iter().sum::<usize>()
        )));
    }
    let parts = cut(x, &lengths, false)?;
    let l = ctx.resources.list_mut(i[0].resource_handle()?)?;
    if lengths.len() > l.items.len() {
        if !l.dynamic {
            return Err(invalid_argument(format!(
                "TensorArraySplitV3: {} pieces for a TensorArray of size {}",
                lengths.len(),
                l.items.len()
            )));
        }
        l.resize(lengths.len())?;
    }
    for (k, v) in parts.into_iter().enumerate() {
        put(l, k, v, "TensorArraySplitV3")?;
    }
    Ok(crate::ops::one_output(flow()))
}

fn concat(a: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    let l = ctx.resources.list(i[0].resource_handle()?)?;
    check_dtype(l, a)?;
    let items: Vec<Tensor> = l
        .items
        .iter()
        .map(|t| {
            t.clone().ok_or_else(|| {
                invalid_argument("TensorArrayConcatV3: an element was never written")
            })
        })
        .collect::<Result<_>>()?;
    let lengths: Vec<i64> = items
        .iter()
        .map(|t| t.dims().first().map_or(0, |&d| d as i64))
        .collect();
    let dims = match items.first() {
        Some(t) => t.dims().to_vec(),
        None => {
            let rest = known(a.shape("element_shape_except0")?).ok_or_else(|| {
                invalid_argument("TensorArrayConcatV3: empty array with an unknown element shape")
            })?;
            std::iter::once(0).chain(rest).collect()
        }
    };
    let value = join(&items, l.dtype, &dims, true)?;
    Ok(vec![value, Tensor::from_slice(&[lengths.len()], &lengths)?])
}

fn close(_: &NodeAttrs, ctx: &mut KernelContext<'_>, i: &[Tensor]) -> Out {
    ctx.resources.destroy_list(i[0].resource_handle()?)?;
    Ok(vec![])
}
