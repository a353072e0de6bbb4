//! Weights packed once (src/model/pack.rs, `gemm::pack_weight`): the packed path gives the
//! unpacked path's bits, the kernel really reads the panels (and ignores ones that do not fit),
//! a model's weights are packed on their first product that packs, the cache key does not change,
//! memory() has a row for the copies and returns to the byte after dispose, and a variable's
//! assign or destroy frees its copy.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::random_tensor as tensor;

use eager_wasm::kernels::nn::gemm::{pack_weight, panel_layout, NR};
use eager_wasm::model::GraphModel;
use eager_wasm::tensor::Packed;
use eager_wasm::{AttrValue, ContextOptions, EagerContext, Tensor};

/// A copy in a buffer of its own (so with no packed panels).
fn copy(t: &Tensor) -> Tensor {
    Tensor::from_slice(t.dims(), t.f32s().unwrap()).unwrap()
}

fn ints(v: &[i64]) -> AttrValue {
    AttrValue::ListInt(v.to_vec())
}

fn s(v: &str) -> AttrValue {
    AttrValue::Str(v.as_bytes().to_vec())
}

/// One product case: op, its inputs with the weight at `w`, attrs, and the weight's B view.
struct Case {
    op: &'static str,
    inputs: Vec<Tensor>,
    w: usize,
    attrs: Vec<(&'static str, AttrValue)>,
    view: (usize, usize, bool),
}

fn conv(x: &[usize], f: &[usize], stride: i64, padding: &str) -> Case {
    Case {
        op: "Conv2D",
        inputs: vec![tensor(x, 1), tensor(f, 2)],
        w: 1,
        attrs: vec![
            ("strides", ints(&[1, stride, stride, 1])),
            ("padding", s(padding)),
        ],
        view: (f[0] * f[1] * f[2], f[3], false),
    }
}

fn matmul(m: usize, k: usize, n: usize, tb: bool) -> Case {
    let b = if tb { [n, k] } else { [k, n] };
    Case {
        op: "MatMul",
        inputs: vec![tensor(&[m, k], 3), tensor(&b, 4)],
        w: 1,
        attrs: vec![("transpose_b", AttrValue::Bool(tb))],
        view: (k, n, tb),
    }
}

/// Every GEMM path a weight reaches: the direct one (1x1 and im2col convs), the blocked one
/// (depth past 640, several depth slices and column blocks), the few-rows one, a transposed B,
/// the fused epilogue and the transposed convolution.
fn cases() -> Vec<Case> {
    let mut fused = conv(&[1, 9, 7, 12], &[1, 1, 12, 20], 1, "VALID");
    fused.op = "_FusedConv2D";
    fused.inputs.push(tensor(&[20], 5));
    fused.attrs.extend([
        ("num_args", AttrValue::Int(1)),
        (
            "fused_ops",
            AttrValue::ListStr(vec![b"BiasAdd".to_vec(), b"Relu6".to_vec()]),
        ),
    ]);
    let transposed = Case {
        op: "Conv2DBackpropInput",
        inputs: vec![
            Tensor::from_slice(&[4], &[1i32, 10, 12, 6]).unwrap(),
            tensor(&[3, 3, 6, 10], 6),
            tensor(&[1, 5, 6, 10], 7),
        ],
        w: 1,
        attrs: vec![("strides", ints(&[1, 2, 2, 1])), ("padding", s("SAME"))],
        view: (10, 3 * 3 * 6, true),
    };
    vec![
        conv(&[1, 9, 7, 12], &[1, 1, 12, 20], 1, "VALID"),
        conv(&[2, 11, 10, 16], &[3, 3, 16, 24], 2, "SAME"),
        conv(&[1, 6, 6, 80], &[3, 3, 80, 9], 1, "SAME"),
        conv(&[1, 1, 1, 32], &[1, 1, 32, 40], 1, "VALID"),
        fused,
        transposed,
        matmul(3, 50, 70, false),
        matmul(37, 50, 70, false),
        matmul(9, 30, 600, false),
        matmul(5, 700, 530, false),
        matmul(37, 50, 70, true),
        matmul(2, 50, 70, true),
    ]
}

/// Rows of the case's GEMM (given its output): output pixels of a convolution, pixels of
/// out_backprop per image for a transposed one, rows of A for a matmul.
fn product_rows(c: &Case, out: &Tensor) -> usize {
    match c.op {
        "MatMul" => c.inputs[0].dims()[0],
        "Conv2DBackpropInput" => c.inputs[2].dims()[1..3].iter().product(),
        _ => out.dims()[..3].iter().product(),
    }
}

fn run(ctx: &mut EagerContext, c: &Case, w: &Tensor) -> Tensor {
    let mut inputs = c.inputs.clone();
    inputs[c.w] = w.clone();
    let attrs = c.attrs.iter().map(|(k, v)| (*k, v.clone()));
    ctx.execute(c.op, &inputs, attrs).unwrap().remove(0)
}

fn bits(t: &Tensor) -> Vec<u32> {
    t.f32s().unwrap().iter().map(|v| v.to_bits()).collect()
}

#[test]
fn packed_weights_give_the_unpacked_bits() {
    let mut ctx = EagerContext::default();
    for c in cases() {
        let w = &c.inputs[c.w];
        let plain = run(&mut ctx, &c, &copy(w));
        let (rows, cols, t) = c.view;
        assert!(pack_weight(w, rows, cols, t).unwrap(), "{}", c.op);
        assert!(!pack_weight(w, rows, cols, t).unwrap(), "packed twice");
        let packed = run(&mut ctx, &c, w);
        let name = format!("{} {:?} view {:?}", c.op, w.dims(), c.view);
        assert_eq!(packed.dims(), plain.dims(), "{name}");
        assert_eq!(bits(&packed), bits(&plain), "{name}");
    }
}

#[test]
fn kernels_read_the_panels_and_ignore_ones_that_do_not_fit() {
    let mut ctx = EagerContext::default();
    for c in cases() {
        let w = &c.inputs[c.w];
        let (rows, cols, t) = c.view;
        let want = run(&mut ctx, &c, w);
        let zeros = |len: usize| Packed::new(panel_layout(rows, cols, t), vec![0.0; len]);
        let len = cols.div_ceil(NR) * NR * rows;
        // Zero panels of the right size: the product is zero, so they are what was read.
        let zeroed = copy(w);
        assert!(zeroed.attach_packed(zeros(len)));
        let got = run(&mut ctx, &c, &zeroed);
        if product_rows(&c, &want) < 4 {
            // Fewer rows than a micro-tile: B is read as it is, panels or not.
            assert_eq!(bits(&got), bits(&want), "{}", c.op);
            continue;
        }
        if c.op != "_FusedConv2D" {
            assert!(got.f32s().unwrap().iter().all(|&v| v == 0.0), "{}", c.op);
        }
        assert_ne!(bits(&got), bits(&want), "{}: panels not read", c.op);
        // Panels of another size or layout: not used.
        for other in [
            zeros(len - NR),
            Packed::new(panel_layout(cols, rows, t), vec![0.0; len]),
            Packed::new(panel_layout(rows, cols, !t), vec![0.0; len]),
        ] {
            let w2 = copy(w);
            assert!(w2.attach_packed(other));
            assert_eq!(bits(&run(&mut ctx, &c, &w2)), bits(&want), "{}", c.op);
        }
    }
}

#[test]
fn marked_weights_pack_on_their_first_product_of_a_micro_tile_of_rows() {
    let mut ctx = EagerContext::default();
    for c in cases() {
        let w = copy(&c.inputs[c.w]);
        let want = run(&mut ctx, &c, &w);
        assert!(
            w.packed().is_none(),
            "{}: unmarked weights are never packed",
            c.op
        );
        w.mark_packable();
        let got = run(&mut ctx, &c, &w);
        assert_eq!(bits(&got), bits(&want), "{}", c.op);
        let rows = product_rows(&c, &want);
        assert_eq!(w.packed().is_some(), rows >= 4, "{} with {rows} rows", c.op);
    }
}

#[test]
fn one_cache_entry_serves_packed_and_unpacked_weights() {
    let mut ctx = EagerContext::default();
    let c = conv(&[1, 9, 7, 12], &[1, 1, 12, 20], 1, "VALID");
    let w = &c.inputs[1];
    run(&mut ctx, &c, &copy(w));
    let (rows, cols, t) = c.view;
    pack_weight(w, rows, cols, t).unwrap();
    run(&mut ctx, &c, w);
    let stats = ctx.cache_stats();
    let conv = common::op_stats(&stats, "Conv2D");
    assert_eq!((conv.entries, conv.misses, conv.hits), (1, 1, 1));
}

fn fixture(name: &str) -> (String, Vec<u8>, String) {
    let dir = common::fixtures().join("models").join(name);
    (
        std::fs::read_to_string(dir.join("model.json")).unwrap(),
        std::fs::read(dir.join("group1-shard1of1.bin")).unwrap(),
        std::fs::read_to_string(dir.join("reference.json")).unwrap(),
    )
}

fn context(pack_weights: bool) -> EagerContext {
    EagerContext::new(ContextOptions {
        pack_weights,
        ..Default::default()
    })
}

/// Loads, predicts the reference inputs, disposes: the outputs (heap until dropped), and
/// memory() after the load and after the predict.
fn cycle(
    ctx: &mut EagerContext,
    (json, weights, reference): &(String, Vec<u8>, String),
) -> (Vec<Tensor>, [eager_wasm::MemoryReport; 2]) {
    let mut model = GraphModel::load(ctx, json, &weights[..], &mut |_, _| {}).unwrap();
    let loaded = ctx.memory();
    let (inputs, _) = common::reference(reference);
    let out = model.predict(ctx, inputs).unwrap();
    let ran = ctx.memory();
    model.dispose(ctx);
    (out, [loaded, ran])
}

#[test]
fn models_run_packed_with_the_same_bits_and_their_own_memory_row() {
    // Convolutions; transposed convolutions; convolutions and a fused matmul on a batch of 2,
    // which never packs (fewer rows than a micro-tile: its kernel reads the weight as it is).
    // Each opens with a conv on at most 4 channels, which reads its filter as it is (`conv_thin`
    // reorders it per call): one product fewer.
    for (name, products) in [("zoo_blazeface", 17), ("zoo_unet", 17), ("cnn", 1)] {
        let f = fixture(name);
        let mut plain_ctx = context(false);
        let (plain, [_, m]) = cycle(&mut plain_ctx, &f);
        assert_eq!((m.num_packed, m.packed_bytes), (0, 0), "{name}");

        let mut ctx = context(true);
        let (packed, _) = cycle(&mut ctx, &f);
        for (p, u) in packed.iter().zip(&plain) {
            assert_eq!(bits(p), bits(u), "{name}: packed vs unpacked");
        }
        drop(packed);
        // Kernels instantiated by the first cycle: the heap compares exactly now.
        let before = ctx.memory();
        assert_eq!((before.num_packed, before.packed_bytes), (0, 0), "{name}");
        let [loaded, ran] = cycle(&mut ctx, &f).1;
        let after = ctx.memory();
        assert_eq!(
            loaded.num_packed, 0,
            "{name}: packed on first use, not at load"
        );
        let loaded = ran;
        assert_eq!(
            loaded.num_packed, products,
            "{name}: one copy per product weight"
        );
        assert!(loaded.packed_bytes > 0, "{name}");
        assert!(
            loaded.heap_bytes >= before.heap_bytes + loaded.resource_bytes + loaded.packed_bytes,
            "{name}: packed copies are heap"
        );
        assert_eq!((after.num_packed, after.packed_bytes), (0, 0), "{name}");
        assert_eq!(
            after.heap_bytes, before.heap_bytes,
            "{name}: heap to the byte"
        );
        assert_eq!(after.num_tensors, before.num_tensors, "{name}");
    }
}

fn variable(ctx: &mut EagerContext, value: &Tensor) -> Tensor {
    let h = ctx
        .execute(
            "VarHandleOp",
            &[],
            [
                ("shared_name", s(eager_wasm::resource::ANONYMOUS_NAME)),
                ("dtype", AttrValue::Type(eager_wasm::DType::Float32)),
                ("shape", AttrValue::Shape(Some(vec![1, 1, 12, 20]))),
            ],
        )
        .unwrap()
        .remove(0);
    assign(ctx, &h, value);
    h
}

fn assign(ctx: &mut EagerContext, h: &Tensor, value: &Tensor) {
    let none: [(&str, AttrValue); 0] = [];
    ctx.execute("AssignVariableOp", &[h.clone(), value.clone()], none)
        .unwrap();
}

fn read(ctx: &mut EagerContext, h: &Tensor) -> Tensor {
    let dtype = [("dtype", AttrValue::Type(eager_wasm::DType::Float32))];
    ctx.execute("ReadVariableOp", std::slice::from_ref(h), dtype)
        .unwrap()
        .remove(0)
}

#[test]
fn assigning_or_destroying_a_variable_frees_its_packed_copy() {
    let mut ctx = EagerContext::default();
    let c = conv(&[1, 9, 7, 12], &[1, 1, 12, 20], 1, "VALID");
    let (rows, cols, t) = c.view;
    let before = ctx.memory();
    let h = variable(&mut ctx, &copy(&c.inputs[1]));
    let old = read(&mut ctx, &h);
    assert!(pack_weight(&old, rows, cols, t).unwrap());
    let again = read(&mut ctx, &h);
    let old_out = run(&mut ctx, &c, &again);
    drop(again);
    assert_eq!(ctx.memory().num_packed, before.num_packed + 1);
    assert!(
        read(&mut ctx, &h).packed().is_some(),
        "reads share the copy"
    );
    drop(old);

    let new_value = tensor(&[1, 1, 12, 20], 99);
    assign(&mut ctx, &h, &copy(&new_value));
    let m = ctx.memory();
    assert_eq!(
        (m.num_packed, m.packed_bytes),
        (before.num_packed, before.packed_bytes),
        "the old value's copy went with it"
    );
    let fresh = read(&mut ctx, &h);
    assert!(fresh.packed().is_none(), "the new value is not packed");
    let new_out = run(&mut ctx, &c, &fresh);
    assert_eq!(bits(&new_out), bits(&run(&mut ctx, &c, &new_value)));
    assert_ne!(bits(&new_out), bits(&old_out));

    assert!(pack_weight(&fresh, rows, cols, t).unwrap());
    drop(fresh);
    assert_eq!(ctx.memory().num_packed, before.num_packed + 1);
    let none: [(&str, AttrValue); 0] = [];
    ctx.execute("DestroyResourceOp", &[h], none).unwrap();
    let m = ctx.memory();
    assert_eq!((m.num_packed, m.packed_bytes), (before.num_packed, 0));
}
