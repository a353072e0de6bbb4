//! TensorArrays and tensor lists made by eager ops: TF's read semantics (`clear_after_read`), and
//! their resources released with the last tensor that names them.
#![cfg(not(target_arch = "wasm32"))]

use eager_wasm::{AttrValue, Code, DType, EagerContext, Tensor};

type Attrs = Vec<(&'static str, AttrValue)>;

fn array(ctx: &mut EagerContext, size: i32, clear_after_read: bool) -> Tensor {
    let attrs: Attrs = vec![
        ("dtype", AttrValue::Type(DType::Float32)),
        ("clear_after_read", AttrValue::Bool(clear_after_read)),
    ];
    let out = ctx
        .execute("TensorArrayV3", &[Tensor::scalar(size)], attrs)
        .unwrap();
    out[0].clone()
}

fn write(ctx: &mut EagerContext, ta: &Tensor, k: i32, v: &[f32]) -> eager_wasm::Result<()> {
    let value = Tensor::from_slice(&[v.len()], v).unwrap();
    ctx.execute(
        "TensorArrayWriteV3",
        &[ta.clone(), Tensor::scalar(k), value, Tensor::scalar(0f32)],
        Vec::<(&str, AttrValue)>::new(),
    )
    .map(|_| ())
}

fn read(ctx: &mut EagerContext, ta: &Tensor, k: i32) -> eager_wasm::Result<Vec<f32>> {
    let attrs: Attrs = vec![("dtype", AttrValue::Type(DType::Float32))];
    let out = ctx.execute(
        "TensorArrayReadV3",
        &[ta.clone(), Tensor::scalar(k), Tensor::scalar(0f32)],
        attrs,
    )?;
    Ok(out[0].f32s()?.to_vec())
}

#[test]
fn a_cleared_element_cannot_be_read_twice_as_in_tf() {
    let mut ctx = EagerContext::default();
    let ta = array(&mut ctx, 2, true);
    write(&mut ctx, &ta, 0, &[1.0, 2.0]).unwrap();
    assert_eq!(read(&mut ctx, &ta, 0).unwrap(), [1.0, 2.0]);
    let e = read(&mut ctx, &ta, 0).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message
            .contains("Could not read index 0 twice because it was cleared"),
        "{}",
        e.message
    );
    // Nor written again: TF refuses a write after a read.
    let e = write(&mut ctx, &ta, 0, &[3.0, 4.0]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("already been read"), "{}", e.message);
    // A gather of a cleared element fails too; one of a written element clears it.
    write(&mut ctx, &ta, 1, &[5.0, 6.0]).unwrap();
    let gather = |ctx: &mut EagerContext, picks: &[i32]| {
        let attrs: Attrs = vec![("dtype", AttrValue::Type(DType::Float32))];
        let idx = Tensor::from_slice(&[picks.len()], picks).unwrap();
        ctx.execute(
            "TensorArrayGatherV3",
            &[ta.clone(), idx, Tensor::scalar(0f32)],
            attrs,
        )
    };
    assert!(gather(&mut ctx, &[0]).is_err());
    let g = gather(&mut ctx, &[1]).unwrap();
    assert_eq!(g[0].f32s().unwrap(), [5.0, 6.0]);
    assert_eq!(
        gather(&mut ctx, &[1]).unwrap_err().code,
        Code::InvalidArgument
    );
}

#[test]
fn without_clear_after_read_an_element_reads_again() {
    let mut ctx = EagerContext::default();
    let ta = array(&mut ctx, 1, false);
    write(&mut ctx, &ta, 0, &[7.0]).unwrap();
    for _ in 0..3 {
        assert_eq!(read(&mut ctx, &ta, 0).unwrap(), [7.0]);
    }
}

fn from_tensor(ctx: &mut EagerContext) -> Tensor {
    let x = Tensor::from_slice(&[16, 4], &[1.5f32; 64]).unwrap();
    let shape = Tensor::from_slice(&[1], &[4i32]).unwrap();
    let out = ctx
        .execute(
            "TensorListFromTensor",
            &[x, shape],
            Vec::<(&str, AttrValue)>::new(),
        )
        .unwrap();
    out[0].clone()
}

#[test]
fn a_list_is_released_with_its_last_handle() {
    let mut ctx = EagerContext::default();
    // Warm the kernel cache, so that the figures compare like with like.
    let l = from_tensor(&mut ctx);
    let none = Vec::<(&str, AttrValue)>::new();
    drop(ctx.execute("TensorListLength", &[l], none).unwrap());
    let ta = array(&mut ctx, 4, true);
    write(&mut ctx, &ta, 0, &[1.0]).unwrap();
    drop(ta);
    ctx.release_unreferenced();
    let before = ctx.memory();
    let kept = from_tensor(&mut ctx);
    let alias = kept.clone();
    for _ in 0..1000 {
        let l = from_tensor(&mut ctx);
        let ta = array(&mut ctx, 4, true);
        write(&mut ctx, &ta, 0, &[1.0]).unwrap();
        drop((l, ta));
    }
    ctx.release_unreferenced();
    let after = ctx.memory();
    assert_eq!(after.num_resources, before.num_resources + 1);
    // The kept list's 16 items (its handle, a resource tensor, is not counted as a tensor).
    assert_eq!(after.num_tensors, before.num_tensors + 16);
    // A list stays while any tensor names it.
    drop(kept);
    assert_eq!(ctx.release_unreferenced(), 0);
    let none = Vec::<(&str, AttrValue)>::new();
    let n = ctx
        .execute("TensorListLength", std::slice::from_ref(&alias), none)
        .unwrap();
    assert_eq!(n[0].as_slice::<i32>().unwrap(), [16]);
    drop((n, alias));
    assert_eq!(ctx.release_unreferenced(), 1);
    let end = ctx.memory();
    assert_eq!(end.num_resources, before.num_resources);
    assert_eq!(end.num_tensors, before.num_tensors);
    assert_eq!(end.heap_bytes, before.heap_bytes);
}
