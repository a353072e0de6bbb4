//! Lookup-table ops over the context's tables (`resource::table`): HashTable(V2) makes one,
//! InitializeTable(V2) / LookupTableImport(V2) fill it, LookupTableFind(V2) and
//! LookupTableSize(V2) read it. The v1 ops (TF's ref-typed string handles) take the same
//! resource handle here.

use crate::kernels::input;
use crate::ops::def::ANY;
use crate::ops::{KernelContext, KernelFactory::Simple, NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{DType, Data, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    for name in ["HashTable", "HashTableV2"] {
        reg.add(
            OpBuilder::new(name, Simple(hash_table))
                .string_attr("container", Some(""))
                .string_attr("shared_name", Some(""))
                .bool_attr("use_node_name_sharing", false)
                .type_attr("key_dtype", ANY)
                .type_attr("value_dtype", ANY)
                .stateful(),
        );
    }
    for name in [
        "InitializeTable",
        "InitializeTableV2",
        "LookupTableImport",
        "LookupTableImportV2",
    ] {
        reg.add(
            OpBuilder::new(name, Simple(initialize))
                .fixed_input("table_handle", DType::Resource)
                .input("keys", "Tkey")
                .input("values", "Tval")
                .type_attr("Tkey", ANY)
                .type_attr("Tval", ANY)
                .stateful(),
        );
    }
    for name in ["LookupTableFind", "LookupTableFindV2"] {
        reg.add(
            OpBuilder::new(name, Simple(find))
                .fixed_input("table_handle", DType::Resource)
                .input("keys", "Tin")
                .input("default_value", "Tout")
                .type_attr("Tin", ANY)
                .type_attr("Tout", ANY)
                .stateful(),
        );
    }
    for name in ["LookupTableSize", "LookupTableSizeV2"] {
        reg.add(
            OpBuilder::new(name, Simple(size))
                .fixed_input("table_handle", DType::Resource)
                .stateful(),
        );
    }
}

fn hash_table(a: &NodeAttrs, ctx: &mut KernelContext<'_>, _: &[Tensor]) -> Result<Vec<Tensor>> {
    let key = a.dtype("key_dtype")?;
    if !matches!(key, DType::String | DType::Int32 | DType::Int64) {
        return Err(invalid_argument(format!(
            "HashTable keys must be string, int32 or int64, got {key}"
        )));
    }
    let h = ctx.resources.table_handle(
        &a.str("container")?,
        &a.str("shared_name")?,
        key,
        a.dtype("value_dtype")?,
        ctx.scope,
    )?;
    Ok(crate::ops::one_output(Tensor::resource(h)))
}

fn initialize(
    a: &NodeAttrs,
    ctx: &mut KernelContext<'_>,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>> {
    let h = input(inputs, 0, "table_handle")?.resource_handle()?;
    let (keys, values) = (input(inputs, 1, "keys")?, input(inputs, 2, "values")?);
    let import = a.op().starts_with("LookupTableImport");
    ctx.resources.init_table(h, keys, values, import)?;
    Ok(vec![])
}

fn size(_: &NodeAttrs, ctx: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let t = ctx
        .resources
        .table(input(inputs, 0, "table_handle")?.resource_handle()?)?;
    Ok(crate::ops::one_output(Tensor::scalar(t.size() as i64)))
}

fn find(_: &NodeAttrs, ctx: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let t = ctx
        .resources
        .table(input(inputs, 0, "table_handle")?.resource_handle()?)?;
    let (keys, default) = (
        input(inputs, 1, "keys")?,
        input(inputs, 2, "default_value")?,
    );
    if default.dtype() != t.value_dtype {
        return Err(invalid_argument(format!(
            "Expected default value dtype {}, got {}",
            t.value_dtype,
            default.dtype()
        )));
    }
    if default.num_elements() != 1 {
        return Err(invalid_argument(format!(
            "Expected shape [] for default value, got {}",
            default.shape()
        )));
    }
    let (found, values) = t.find(keys)?;
    take(values, default, &found, keys.shape().clone()).map(crate::ops::one_output)
}

/// Element `i` of `values` for each `Some(i)`, the default's element for `None`.
fn take(
    values: Option<&Tensor>,
    default: &Tensor,
    at: &[Option<usize>],
    shape: Shape,
) -> Result<Tensor> {
    // A table never initialized has no values: every key gets the default.
    let values = values.unwrap_or(default);
    if let (Data::Str(v), Data::Str(d)) = (values.data(), default.data()) {
        let mut out = super::strings_with_capacity(at.len())?;
        out.extend(at.iter().map(|i| i.map_or(&d[0], |i| &v[i]).clone()));
        return Tensor::from_strings(shape, out);
    }
    crate::with_dtype!(values.dtype(), T, {
        let (v, d) = (values.as_slice::<T>()?, default.as_slice::<T>()?[0]);
        let mut out = crate::tensor::try_with_capacity::<T>(at.len())?;
        out.extend(at.iter().map(|i| i.map_or(d, |i| v[i])));
        Tensor::from_vec(shape, out)
    })
}
