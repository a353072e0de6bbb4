//! String tensors beyond the single-op TF cases: lookup tables (HashTableV2 and friends; their
//! semantics as TF's HashTable), string memory accounting, and Const string values from model.json
//! attrs.
#![cfg(not(target_arch = "wasm32"))]

use eager_wasm::{AttrValue, Code, DType, EagerContext, Shape, Tensor};

type Attrs = Vec<(&'static str, AttrValue)>;

fn strs(v: &[&str]) -> Tensor {
    Tensor::from_strings(
        Shape::from_dims(&[v.len()]).unwrap(),
        v.iter().map(|s| s.as_bytes().to_vec()).collect(),
    )
    .unwrap()
}

fn table(ctx: &mut EagerContext, key: DType, value: DType, name: &str) -> Tensor {
    let attrs: Attrs = vec![
        ("key_dtype", AttrValue::Type(key)),
        ("value_dtype", AttrValue::Type(value)),
        ("shared_name", AttrValue::Str(name.as_bytes().to_vec())),
    ];
    ctx.execute("HashTableV2", &[], attrs).unwrap()[0].clone()
}

fn run(ctx: &mut EagerContext, op: &str, inputs: &[Tensor]) -> eager_wasm::Result<Vec<Tensor>> {
    ctx.execute(op, inputs, Vec::<(&str, AttrValue)>::new())
}

#[test]
fn string_to_int64_table() {
    let mut ctx = EagerContext::default();
    let t = table(&mut ctx, DType::String, DType::Int64, "vocab");
    let before = ctx.memory().resource_bytes;
    let keys = strs(&["the", "cat", "sat"]);
    let values = Tensor::from_slice(&[3], &[1i64, 2, 3]).unwrap();
    run(
        &mut ctx,
        "InitializeTableV2",
        &[t.clone(), keys.clone(), values.clone()],
    )
    .unwrap();
    // The keys' bytes (3 + 3 + 3) and the values' (3 * 8) are the table's.
    assert_eq!(ctx.memory().resource_bytes - before, 9 + 24);
    // Same data again: a no-op; different data: FailedPrecondition, as TF's HashTable.
    run(
        &mut ctx,
        "InitializeTableV2",
        &[t.clone(), keys.clone(), values.clone()],
    )
    .unwrap();
    let other = Tensor::from_slice(&[3], &[1i64, 2, 4]).unwrap();
    let e = run(
        &mut ctx,
        "InitializeTableV2",
        &[t.clone(), keys.clone(), other],
    )
    .unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
    let size = run(&mut ctx, "LookupTableSizeV2", std::slice::from_ref(&t)).unwrap();
    assert_eq!(size[0].as_slice::<i64>().unwrap(), &[3]);
    let q = Tensor::from_strings(
        Shape::from_dims(&[2, 2]).unwrap(),
        vec![
            b"cat".to_vec(),
            b"dog".to_vec(),
            b"the".to_vec(),
            b"".to_vec(),
        ],
    )
    .unwrap();
    let out = run(
        &mut ctx,
        "LookupTableFindV2",
        &[t.clone(), q.clone(), Tensor::scalar(-1i64)],
    )
    .unwrap();
    assert_eq!(out[0].dims(), &[2, 2]);
    assert_eq!(out[0].as_slice::<i64>().unwrap(), &[2, -1, 1, -1]);
    // Wrong key dtype, wrong default dtype, non-scalar default: InvalidArgument.
    let bad_keys = Tensor::from_slice(&[1], &[1i64]).unwrap();
    for inputs in [
        [t.clone(), bad_keys, Tensor::scalar(-1i64)],
        [t.clone(), q.clone(), Tensor::scalar(-1i32)],
        [t.clone(), q, Tensor::from_slice(&[2], &[0i64, 0]).unwrap()],
    ] {
        let e = run(&mut ctx, "LookupTableFindV2", &inputs).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument, "{e:?}");
    }
    // The named table is found again by name.
    let again = table(&mut ctx, DType::String, DType::Int64, "vocab");
    let size = run(&mut ctx, "LookupTableSizeV2", &[again]).unwrap();
    assert_eq!(size[0].as_slice::<i64>().unwrap(), &[3]);
}

#[test]
fn int64_to_string_table_and_duplicates() {
    let mut ctx = EagerContext::default();
    let t = table(&mut ctx, DType::Int64, DType::String, "");
    let keys = Tensor::from_slice(&[3], &[7i64, 9, 7]).unwrap();
    // A key given twice with two values: FailedPrecondition.
    let e = run(
        &mut ctx,
        "InitializeTableV2",
        &[t.clone(), keys.clone(), strs(&["a", "b", "c"])],
    )
    .unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
    // Keys and values of different shapes: InvalidArgument.
    let e = run(
        &mut ctx,
        "InitializeTableV2",
        &[t.clone(), keys.clone(), strs(&["a", "b"])],
    )
    .unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    run(
        &mut ctx,
        "InitializeTableV2",
        &[t.clone(), keys, strs(&["seven", "nine", "seven"])],
    )
    .unwrap();
    let q = Tensor::from_slice(&[3], &[9i64, 8, 7]).unwrap();
    let out = run(
        &mut ctx,
        "LookupTableFindV2",
        &[
            t.clone(),
            q,
            Tensor::from_strings(Shape::scalar(), vec![b"?".to_vec()]).unwrap(),
        ],
    )
    .unwrap();
    assert_eq!(
        out[0].strs().unwrap(),
        &[b"nine".to_vec(), b"?".to_vec(), b"seven".to_vec()]
    );
    let size = run(&mut ctx, "LookupTableSizeV2", std::slice::from_ref(&t)).unwrap();
    assert_eq!(size[0].as_slice::<i64>().unwrap(), &[2]);
    // Import replaces the contents.
    let k2 = Tensor::from_slice(&[1], &[1i64]).unwrap();
    run(
        &mut ctx,
        "LookupTableImportV2",
        &[t.clone(), k2, strs(&["one"])],
    )
    .unwrap();
    let size = run(&mut ctx, "LookupTableSizeV2", &[t]).unwrap();
    assert_eq!(size[0].as_slice::<i64>().unwrap(), &[1]);
}

#[test]
fn string_tensors_count_their_bytes() {
    let ctx = EagerContext::default();
    let (n0, b0) = (ctx.memory().num_tensors, ctx.memory().tensor_bytes);
    let t = strs(&["ab", "", "cde"]);
    assert_eq!(t.byte_len(), 5);
    assert_eq!(ctx.memory().num_tensors, n0 + 1);
    assert_eq!(ctx.memory().tensor_bytes, b0 + 5);
    drop(t);
    assert_eq!(ctx.memory().tensor_bytes, b0);
}

/// The converted strings_vocab model (tests/fixtures/models): its modelInitializer's table is made
/// and filled on the first run, reused after, counted as a resource and released with the model.
#[test]
fn model_initializer_table_lives_with_the_model() {
    use eager_wasm::model::GraphModel;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/models/strings_vocab");
    let json = std::fs::read_to_string(dir.join("model.json")).unwrap();
    let weights = std::fs::read(dir.join("group1-shard1of1.bin")).unwrap();
    let mut ctx = EagerContext::default();
    let before = ctx.memory();
    let mut m = GraphModel::load(&mut ctx, &json, &weights, &mut |_, _| {}).unwrap();
    // The resource input the initializer feeds is not a model input.
    assert_eq!(m.inputs().len(), 1);
    let feed = || vec![("text".to_string(), strs(&["the mat", "cat?"]))];
    let ids = |out: &[Tensor]| {
        let k = m
            .outputs()
            .iter()
            .position(|o| o.tensor_name == "Identity_3:0")
            .unwrap();
        out[k].as_slice::<i64>().unwrap().to_vec()
    };
    let first = m.predict(&mut ctx, feed()).unwrap();
    let tables = ctx.memory();
    let second = m.predict(&mut ctx, feed()).unwrap();
    assert_eq!(ids(&first), vec![1, 5, 2]);
    assert_eq!(ids(&second), vec![1, 5, 2]);
    // Refilling from the same weights made nothing new.
    assert_eq!(ctx.memory().num_resources, tables.num_resources);
    assert_eq!(ctx.memory().resource_bytes, tables.resource_bytes);
    drop((first, second));
    m.dispose(&mut ctx);
    let after = ctx.memory();
    assert_eq!(after.num_resources, before.num_resources);
    assert_eq!(after.resource_bytes, before.resource_bytes);
    assert_eq!(after.tensor_bytes, before.tensor_bytes);
}
