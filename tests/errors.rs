//! Bad input to `execute`: each case is a clear Status with the right code, the heap is back where
//! it was, and the context keeps working.
#![cfg(not(target_arch = "wasm32"))]

use eager_wasm::{AttrValue, Code, DType, EagerContext, Tensor};

type Attrs = Vec<(&'static str, AttrValue)>;
/// (what, op, inputs, attrs, expected code, text the message must contain)
type Case = (
    &'static str,
    &'static str,
    Vec<Tensor>,
    Attrs,
    Code,
    &'static str,
);

fn f32s(dims: &[usize]) -> Tensor {
    let n = dims.iter().product();
    Tensor::from_slice(dims, &vec![1f32; n]).unwrap()
}

fn i32s(dims: &[usize], v: &[i32]) -> Tensor {
    Tensor::from_slice(dims, v).unwrap()
}

/// ksize and strides `k` in H and W, and `padding`.
fn pool_attrs(k: i64, padding: &str) -> Attrs {
    vec![
        ("ksize", AttrValue::ListInt(vec![1, k, k, 1])),
        ("strides", AttrValue::ListInt(vec![1, k, k, 1])),
        ("padding", AttrValue::Str(padding.as_bytes().to_vec())),
    ]
}

#[test]
fn bad_execute_calls_fail_cleanly() {
    let mut ctx = EagerContext::default();
    let ok = |ctx: &mut EagerContext| {
        let out = ctx
            .execute("MatMul", &[f32s(&[2, 3]), f32s(&[3, 2])], Attrs::new())
            .unwrap();
        assert_eq!(out[0].f32s().unwrap(), &[3., 3., 3., 3.]);
    };
    ok(&mut ctx); // warm the caches the checks below reuse
    let cases: Vec<Case> = vec![
        (
            "unknown op",
            "MatMull",
            vec![],
            vec![],
            Code::NotFound,
            "not registered",
        ),
        (
            "inner dims",
            "MatMul",
            vec![f32s(&[2, 3]), f32s(&[2, 3])],
            vec![],
            Code::InvalidArgument,
            "MatMul",
        ),
        (
            "too few inputs",
            "MatMul",
            vec![f32s(&[2, 2])],
            vec![],
            Code::InvalidArgument,
            "expects 2 inputs",
        ),
        (
            "dtype mix",
            "AddV2",
            vec![f32s(&[2]), i32s(&[2], &[1, 2])],
            vec![],
            Code::InvalidArgument,
            "attr 'T'",
        ),
        (
            "unknown attr",
            "MatMul",
            vec![f32s(&[1, 1]), f32s(&[1, 1])],
            vec![("transpose_c", AttrValue::Bool(true))],
            Code::InvalidArgument,
            "no attr 'transpose_c'",
        ),
        (
            "attr kind",
            "MatMul",
            vec![f32s(&[1, 1]), f32s(&[1, 1])],
            vec![("transpose_a", AttrValue::Int(3))],
            Code::InvalidArgument,
            "must be bool",
        ),
        (
            "bad padding",
            "Conv2D",
            vec![f32s(&[1, 3, 3, 1]), f32s(&[1, 1, 1, 1])],
            vec![
                ("strides", AttrValue::ListInt(vec![1, 1, 1, 1])),
                ("padding", AttrValue::Str(b"FULL".to_vec())),
            ],
            Code::InvalidArgument,
            "one of",
        ),
        (
            "missing attr",
            "Conv2D",
            vec![f32s(&[1, 3, 3, 1]), f32s(&[1, 1, 1, 1])],
            vec![],
            Code::InvalidArgument,
            "requires attr",
        ),
        (
            "unsupported dtype",
            "MatMul",
            vec![
                Tensor::from_slice(&[1, 1], &[true]).unwrap(),
                Tensor::from_slice(&[1, 1], &[true]).unwrap(),
            ],
            vec![],
            Code::InvalidArgument,
            "does not support bool",
        ),
        (
            "reshape size",
            "Reshape",
            vec![f32s(&[6]), i32s(&[1], &[4])],
            vec![],
            Code::InvalidArgument,
            "Reshape",
        ),
        (
            "axis range",
            "ConcatV2",
            vec![f32s(&[2]), f32s(&[2]), i32s(&[], &[3])],
            vec![],
            Code::InvalidArgument,
            "ConcatV2",
        ),
        (
            "huge Fill",
            "Fill",
            vec![i32s(&[2], &[1_000_000, 1_000_000]), f32s(&[])],
            vec![],
            Code::ResourceExhausted,
            "cannot allocate",
        ),
        (
            // An output within the 2 GiB bound (400M floats, reserved, never written) whose row
            // weight table (24 bytes a row) is not: an error, not an allocation abort.
            "ResizeBilinear weight table",
            "ResizeBilinear",
            vec![f32s(&[1, 1, 1, 4]), i32s(&[2], &[100_000_000, 1])],
            vec![],
            Code::ResourceExhausted,
            "interpolation weights",
        ),
        (
            // TF's CPU kernel does not check grad against the computed output (it reads past it).
            "AvgPoolGrad grad shape",
            "AvgPoolGrad",
            vec![i32s(&[4], &[1, 4, 4, 1]), f32s(&[1, 3, 2, 1])],
            pool_attrs(2, "VALID"),
            Code::InvalidArgument,
            "Expected grad shape",
        ),
        (
            "AvgPoolGrad channels",
            "AvgPoolGrad",
            vec![i32s(&[4], &[1, 4, 4, 2]), f32s(&[1, 2, 2, 1])],
            pool_attrs(2, "VALID"),
            Code::InvalidArgument,
            "Expected grad shape",
        ),
        (
            "Conv2DBackpropFilter huge filter_sizes",
            "Conv2DBackpropFilter",
            vec![
                f32s(&[1, 4, 4, 1]),
                i32s(&[4], &[1 << 20, 1 << 20, 1, 1]),
                f32s(&[1, 4, 4, 1]),
            ],
            vec![
                ("strides", AttrValue::ListInt(vec![1, 1, 1, 1])),
                ("padding", AttrValue::Str(b"SAME".to_vec())),
            ],
            Code::ResourceExhausted,
            "",
        ),
        (
            "placeholder",
            "Placeholder",
            vec![],
            vec![("dtype", AttrValue::Type(DType::Float32))],
            Code::FailedPrecondition,
            "must be fed",
        ),
        (
            "uninitialized variable",
            "ReadVariableOp",
            vec![],
            vec![],
            Code::InvalidArgument,
            "expects 1 input",
        ),
    ];
    for (what, op, inputs, attrs, code, needle) in cases {
        // The first failure may cache the op's kernel (TF instantiates before it runs); the second
        // must leave the heap exactly where it found it.
        let _ = ctx.execute(op, &inputs, attrs.iter().cloned());
        let before = ctx.memory().heap_bytes;
        let err = ctx.execute(op, &inputs, attrs.iter().cloned()).unwrap_err();
        assert_eq!(err.code, code, "{what}: {err}");
        assert!(
            err.message.contains(needle),
            "{what}: '{err}' lacks '{needle}'"
        );
        drop(err);
        assert_eq!(
            ctx.memory().heap_bytes,
            before,
            "{what}: heap back where it was"
        );
        ok(&mut ctx);
    }
}

#[test]
fn resource_misuse_is_reported() {
    let mut ctx = EagerContext::default();
    let mut other = EagerContext::default();
    let handle = |ctx: &mut EagerContext| {
        ctx.execute(
            "VarHandleOp",
            &[],
            vec![
                ("shared_name", AttrValue::Str(b"v".to_vec())),
                ("dtype", AttrValue::Type(DType::Float32)),
                ("shape", AttrValue::Shape(Some(vec![2]))),
            ],
        )
        .unwrap()
        .remove(0)
    };
    let h = handle(&mut ctx);
    let read = |ctx: &mut EagerContext, h: &Tensor| {
        ctx.execute(
            "ReadVariableOp",
            std::slice::from_ref(h),
            vec![("dtype", AttrValue::Type(DType::Float32))],
        )
    };
    assert_eq!(
        read(&mut ctx, &h).unwrap_err().code,
        Code::FailedPrecondition,
        "uninitialized"
    );
    let wrong_shape = ctx.execute("AssignVariableOp", &[h.clone(), f32s(&[3])], Attrs::new());
    assert_eq!(wrong_shape.unwrap_err().code, Code::InvalidArgument);
    ctx.execute("AssignVariableOp", &[h.clone(), f32s(&[2])], Attrs::new())
        .unwrap();
    assert_eq!(read(&mut ctx, &h).unwrap()[0].f32s().unwrap(), &[1., 1.]);
    // The same name gives the same variable; another context's handle is rejected.
    let same = handle(&mut ctx);
    assert_eq!(read(&mut ctx, &same).unwrap()[0].f32s().unwrap(), &[1., 1.]);
    let e = read(&mut other, &h).unwrap_err();
    assert!(e.message.contains("another EagerContext"), "{e}");
    ctx.execute(
        "AssignAddVariableOp",
        &[h.clone(), f32s(&[2])],
        Attrs::new(),
    )
    .unwrap();
    assert_eq!(read(&mut ctx, &h).unwrap()[0].f32s().unwrap(), &[2., 2.]);
    ctx.execute("DestroyResourceOp", std::slice::from_ref(&h), Attrs::new())
        .unwrap();
    assert_eq!(read(&mut ctx, &h).unwrap_err().code, Code::NotFound);
    assert_eq!(ctx.memory().num_resources, 0);
}
