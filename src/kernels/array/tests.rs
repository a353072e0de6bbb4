//! End-to-end checks through `EagerContext` for array ops and cases the TF fixtures do not cover
//! (aliasing, Const/Placeholder/NoOp, Range/Size/Rank, error classes).

use crate::ops::AttrValue;
use crate::status::Code;
use crate::tensor::{DType, Tensor};
use crate::EagerContext;

fn run(
    op: &str,
    inputs: &[Tensor],
    attrs: Vec<(&str, AttrValue)>,
) -> crate::status::Result<Vec<Tensor>> {
    EagerContext::default().execute(op, inputs, attrs)
}

fn t<T: crate::tensor::Element>(dims: &[usize], v: &[T]) -> Tensor {
    Tensor::from_slice(dims, v).unwrap()
}

#[test]
fn aliasing_ops_share_the_buffer() {
    let x = t(&[2, 3], &[1.0f32, 2., 3., 4., 5., 6.]);
    let r = run("Reshape", &[x.clone(), t(&[2], &[3i32, -1])], vec![]).unwrap();
    assert_eq!(r[0].dims(), &[3, 2]);
    assert!(r[0].shares_buffer(&x));
    for op in ["Identity", "StopGradient", "Snapshot"] {
        let y = run(op, std::slice::from_ref(&x), vec![]).unwrap();
        assert!(y[0].shares_buffer(&x), "{op}");
    }
    let e = run("ExpandDims", &[x.clone(), Tensor::scalar(-1i32)], vec![]).unwrap();
    assert_eq!(e[0].dims(), &[2, 3, 1]);
    assert!(e[0].shares_buffer(&x));
    let s = run("Squeeze", &[e[0].clone()], vec![]).unwrap();
    assert_eq!(s[0].dims(), &[2, 3]);
    let n = run("IdentityN", &[x.clone(), Tensor::scalar(true)], vec![]).unwrap();
    assert_eq!(n.len(), 2);
    assert!(n[0].shares_buffer(&x));
}

#[test]
fn const_placeholder_noop() {
    let v = t(&[2], &[7i32, 8]);
    let out = run(
        "Const",
        &[],
        vec![
            ("value", AttrValue::Tensor(v.clone())),
            ("dtype", AttrValue::Type(DType::Int32)),
        ],
    )
    .unwrap();
    assert!(out[0].shares_buffer(&v));
    let bad = run(
        "Const",
        &[],
        vec![
            ("value", AttrValue::Tensor(v)),
            ("dtype", AttrValue::Type(DType::Float32)),
        ],
    );
    assert_eq!(bad.unwrap_err().code, Code::InvalidArgument);
    let p = run(
        "Placeholder",
        &[],
        vec![("dtype", AttrValue::Type(DType::Float32))],
    );
    assert_eq!(p.unwrap_err().code, Code::FailedPrecondition);
    assert!(run("NoOp", &[], vec![]).unwrap().is_empty());
}

#[test]
fn range_size_rank() {
    let r = run(
        "Range",
        &[
            Tensor::scalar(1i32),
            Tensor::scalar(10i32),
            Tensor::scalar(3i32),
        ],
        vec![],
    )
    .unwrap();
    assert_eq!(r[0].as_slice::<i32>().unwrap(), &[1, 4, 7]);
    let r = run(
        "Range",
        &[
            Tensor::scalar(1.0f32),
            Tensor::scalar(0.0f32),
            Tensor::scalar(-0.25f32),
        ],
        vec![],
    )
    .unwrap();
    assert_eq!(r[0].f32s().unwrap(), &[1.0, 0.75, 0.5, 0.25]);
    let bad = run(
        "Range",
        &[
            Tensor::scalar(5i64),
            Tensor::scalar(1i64),
            Tensor::scalar(1i64),
        ],
        vec![],
    );
    assert_eq!(bad.unwrap_err().code, Code::InvalidArgument);
    let x = t(&[2, 0, 3], &[] as &[f32]);
    let s = run(
        "Size",
        std::slice::from_ref(&x),
        vec![("out_type", AttrValue::Type(DType::Int64))],
    )
    .unwrap();
    assert_eq!(s[0].as_slice::<i64>().unwrap(), &[0]);
    let r = run("Rank", &[x], vec![]).unwrap();
    assert_eq!(r[0].as_slice::<i32>().unwrap(), &[3]);
}

/// (op, inputs, attrs)
type Case = (&'static str, Vec<Tensor>, Vec<(&'static str, AttrValue)>);

#[test]
fn rejects_bad_inputs_without_panicking() {
    let x = t(&[2, 2], &[1.0f32, 2., 3., 4.]);
    let idx = |v: &[i32]| t(&[v.len()], v);
    let cases: Vec<Case> = vec![
        ("Reshape", vec![x.clone(), idx(&[3, -1])], vec![]),
        ("ExpandDims", vec![x.clone(), Tensor::scalar(4i32)], vec![]),
        (
            "ConcatV2",
            vec![x.clone(), x.clone(), Tensor::scalar(2i32)],
            vec![],
        ),
        ("ConcatV2", vec![x.clone(), Tensor::scalar(0i32)], vec![]),
        (
            "Pack",
            vec![x.clone(), x.clone()],
            vec![("axis", AttrValue::Int(4))],
        ),
        ("Unpack", vec![x.clone()], vec![("num", AttrValue::Int(3))]),
        (
            "Split",
            vec![Tensor::scalar(5i32), x.clone()],
            vec![("num_split", AttrValue::Int(2))],
        ),
        (
            "SplitV",
            vec![x.clone(), idx(&[-1, -1]), Tensor::scalar(0i32)],
            vec![("num_split", AttrValue::Int(2))],
        ),
        (
            "SplitV",
            vec![x.clone(), idx(&[-1]), Tensor::scalar(0i32)],
            vec![("num_split", AttrValue::Int(1))],
        ),
        (
            "StridedSlice",
            vec![x.clone(), idx(&[0]), idx(&[1]), idx(&[0])],
            vec![],
        ),
        ("Slice", vec![x.clone(), idx(&[0, 0]), idx(&[3, 1])], vec![]),
        ("Transpose", vec![x.clone(), idx(&[0, 0])], vec![]),
        ("Fill", vec![idx(&[-1]), Tensor::scalar(1.0f32)], vec![]),
        ("Tile", vec![x.clone(), idx(&[1, -1])], vec![]),
        ("Tile", vec![x.clone(), idx(&[1])], vec![]),
        (
            "Pad",
            vec![x.clone(), t(&[2, 2], &[0i32, 0, -1, 0])],
            vec![],
        ),
        (
            "PadV2",
            vec![x.clone(), t(&[2, 2], &[0i32; 4]), t(&[1], &[0.0f32])],
            vec![],
        ),
        (
            "MirrorPad",
            vec![x.clone(), t(&[2, 2], &[0i32, 0, 0, 3])],
            vec![("mode", AttrValue::Str(b"SYMMETRIC".to_vec()))],
        ),
        (
            "GatherV2",
            vec![x.clone(), idx(&[-1]), Tensor::scalar(0i32)],
            vec![],
        ),
        (
            "GatherV2",
            vec![x.clone(), idx(&[0]), Tensor::scalar(2i32)],
            vec![],
        ),
        (
            "GatherV2",
            vec![x.clone(), t(&[2, 1], &[0i32, 1]), Tensor::scalar(0i32)],
            vec![("batch_dims", AttrValue::Int(1))],
        ),
    ];
    for (op, inputs, attrs) in cases {
        let e = run(op, &inputs, attrs).expect_err(op);
        assert_eq!(e.code, Code::InvalidArgument, "{op}: {e}");
    }
}

#[test]
fn gather_batch_dims_and_empty_inner() {
    // params [2, 3], indices [2, 2], batch_dims 1, axis 1: out[b, j] = params[b, idx[b, j]].
    let p = t(&[2, 3], &[1i64, 2, 3, 4, 5, 6]);
    let i = t(&[2, 2], &[2i32, 0, 1, 1]);
    let y = run(
        "GatherV2",
        &[p, i, Tensor::scalar(1i32)],
        vec![("batch_dims", AttrValue::Int(1))],
    )
    .unwrap();
    assert_eq!(y[0].dims(), &[2, 2]);
    assert_eq!(y[0].as_slice::<i64>().unwrap(), &[3, 1, 5, 5]);
    // Out-of-range indices are not checked when there is nothing to copy (as in TF).
    let p = t(&[2, 0], &[] as &[f32]);
    let y = run(
        "GatherV2",
        &[p, t(&[1], &[9i32]), Tensor::scalar(0i32)],
        vec![],
    )
    .unwrap();
    assert_eq!(y[0].dims(), &[1, 0]);
}

/// Random specs over small shapes: every op must return Ok or an error, never panic.
#[test]
fn random_specs_never_panic() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = |lo: i64, hi: i64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        lo + (seed % (hi - lo + 1) as u64) as i64
    };
    let mut ctx = EagerContext::default();
    for _ in 0..3000 {
        let rank = rnd(0, 3) as usize;
        let dims: Vec<usize> = (0..rank).map(|_| rnd(0, 3) as usize).collect();
        let n: usize = dims.iter().product();
        let x = t(&dims, &(0..n as i32).collect::<Vec<_>>());
        let k = rnd(0, 4) as usize;
        let v = |r: &mut dyn FnMut(i64, i64) -> i64, lo, hi| -> Tensor {
            let d: Vec<i32> = (0..k).map(|_| r(lo, hi) as i32).collect();
            t(&[k], &d)
        };
        let (b, e, s) = (v(&mut rnd, -5, 5), v(&mut rnd, -5, 5), v(&mut rnd, -2, 2));
        let mask = |r: &mut dyn FnMut(i64, i64) -> i64| AttrValue::Int(r(0, 15));
        let attrs = vec![
            ("begin_mask", mask(&mut rnd)),
            ("end_mask", mask(&mut rnd)),
            ("ellipsis_mask", mask(&mut rnd)),
            ("new_axis_mask", mask(&mut rnd)),
            ("shrink_axis_mask", mask(&mut rnd)),
        ];
        let _ = ctx.execute("StridedSlice", &[x.clone(), b.clone(), e.clone(), s], attrs);
        let _ = ctx.execute(
            "Slice",
            &[x.clone(), b.clone(), e.clone()],
            Vec::<(&str, AttrValue)>::new(),
        );
        let _ = ctx.execute(
            "Tile",
            &[x.clone(), b.clone()],
            Vec::<(&str, AttrValue)>::new(),
        );
        let _ = ctx.execute(
            "Transpose",
            &[x.clone(), b.clone()],
            Vec::<(&str, AttrValue)>::new(),
        );
        let _ = ctx.execute(
            "Reshape",
            &[x.clone(), b.clone()],
            Vec::<(&str, AttrValue)>::new(),
        );
        let _ = ctx.execute(
            "Fill",
            &[e.clone(), Tensor::scalar(1i32)],
            Vec::<(&str, AttrValue)>::new(),
        );
        let _ = ctx.execute(
            "GatherV2",
            &[x.clone(), e.clone(), Tensor::scalar(rnd(-3, 3) as i32)],
            vec![("batch_dims", AttrValue::Int(rnd(-2, 2)))],
        );
        let _ = ctx.execute(
            "SplitV",
            &[x.clone(), b.clone(), Tensor::scalar(rnd(-3, 3) as i32)],
            vec![("num_split", AttrValue::Int(k as i64))],
        );
        let pads = t(
            &[rank, 2],
            &(0..rank * 2).map(|_| rnd(-1, 3) as i32).collect::<Vec<_>>(),
        );
        let _ = ctx.execute(
            "Pad",
            &[x.clone(), pads.clone()],
            Vec::<(&str, AttrValue)>::new(),
        );
        for mode in ["REFLECT", "SYMMETRIC"] {
            let _ = ctx.execute(
                "MirrorPad",
                &[x.clone(), pads.clone()],
                vec![("mode", AttrValue::Str(mode.as_bytes().to_vec()))],
            );
        }
    }
}

/// TF's words and check order where TF.js's suite matches them (the fixtures check the class only).
#[test]
fn sparse_and_ragged_errors_in_tf_words() {
    let data = t(&[4, 2], &[0.0f32; 8]);
    let v = |x: &[i32]| t(&[x.len()], x);
    let msg = |op: &str, inputs: Vec<Tensor>| run(op, &inputs, vec![]).unwrap_err().message.clone();
    let seg = |ids: &[i32]| {
        msg(
            "SparseSegmentSum",
            vec![data.clone(), v(&[0, 1, 2, 3]), v(ids)],
        )
    };
    let sorted = "possibly because 'segment_ids' input is not sorted.";
    assert!(seg(&[0, 1, 2, 0]).contains(&format!("Segment id 1 out of range [0, 1), {sorted}")));
    assert!(seg(&[-1, 0, 1, 1]).contains(&format!("Segment id -1 out of range [0, 2), {sorted}")));
    assert!(seg(&[0, 0, 0, -1]).ends_with("segment ids must be >= 0"));
    assert!(seg(&[0, 2, 1, 3]).ends_with("segment ids are not increasing"));
    let i64v = |x: &[i64]| t(&[x.len()], x);
    let ind = t(&[1, 3], &[0i64, 0, 0]);
    let reshape = msg("SparseReshape", vec![ind, i64v(&[2, 3, 4]), i64v(&[-1, 0])]);
    assert!(reshape.contains("unless all specified input sizes are non-zero"));
    let col = t(&[2, 1], &[0i32, 1]);
    for (k, name) in ["starts", "limits", "deltas"].into_iter().enumerate() {
        let mut ins = vec![v(&[0, 1]), v(&[2, 3]), v(&[1, 1])];
        ins[k] = col.clone();
        // Ranks are checked before lengths, as in TF.
        ins[(k + 1) % 3] = v(&[1, 2, 3]);
        assert!(msg("RaggedRange", ins).ends_with(&format!("{name} must be a scalar or vector")));
    }
}
