//! `GraphModel::profile`: every executed node timed, with its outputs and kernel-cache use.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use eager_wasm::model::profile::Profile;
use eager_wasm::model::GraphModel;
use eager_wasm::{Code, EagerContext};
use serde_json::Value;
use std::collections::HashSet;
use std::time::Instant;

fn load(ctx: &mut EagerContext, name: &str) -> (GraphModel, common::Io, Value) {
    let m = common::MODEL_FIXTURES
        .iter()
        .find(|m| m.name == name)
        .unwrap();
    let model = GraphModel::load(ctx, m.json, m.weights, &mut |_, _| {}).unwrap();
    let (inputs, _) = common::reference(m.reference);
    (model, inputs, serde_json::from_str(m.json).unwrap())
}

fn profile(ctx: &mut EagerContext, model: &GraphModel, inputs: &common::Io) -> Profile {
    let start = Instant::now();
    let clock = || start.elapsed().as_secs_f64() * 1e3;
    model.profile(ctx, inputs.clone(), &clock).unwrap()
}

#[test]
fn profile_times_every_node_and_matches_predict() {
    for name in ["mobilenet", "zoo_blazeface", "zoo_unet"] {
        let mut ctx = EagerContext::default();
        let (model, inputs, json) = load(&mut ctx, name);
        let graph_nodes: Vec<(&str, &str)> = json["modelTopology"]["node"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| (n["name"].as_str().unwrap(), n["op"].as_str().unwrap()))
            .collect();
        let loaded = ctx.memory();
        let first = profile(&mut ctx, &model, &inputs);
        let second = profile(&mut ctx, &model, &inputs);
        // Kernels are cached and node keys kept by now: a third profile leaves nothing behind.
        let before = ctx.memory();
        drop(profile(&mut ctx, &model, &inputs));
        let after = ctx.memory();
        assert_eq!(after.num_tensors, before.num_tensors, "{name}");
        assert_eq!(after.heap_bytes, before.heap_bytes, "{name}");
        assert_eq!(after.num_tensors, loaded.num_tensors, "{name}");

        // Every node of these graphs feeds an output, so every one runs, once (unless fused).
        let names: HashSet<&str> = first.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(
            names.len(),
            first.nodes.len(),
            "{name}: a node profiled twice"
        );
        // The nodes the load-time fusion pass folded away do not run: a zero Pad (into the conv
        // after it), a conv whose bias add or activation took it in (the fused node keeps the
        // last name), and their constants. No other node may be missing.
        let folded = [
            "Pad",
            "Const",
            "BiasAdd",
            "Add",
            "AddV2",
            "Conv2D",
            "_FusedConv2D",
            "DepthwiseConv2dNative",
            "FusedDepthwiseConv2dNative",
            "MatMul",
            "_FusedMatMul",
        ];
        for (node, op) in &graph_nodes {
            assert!(
                names.contains(node) || folded.contains(op),
                "{name}: node {node} ({op}) did not run"
            );
        }
        let in_graph: HashSet<&str> = graph_nodes.iter().map(|(n, _)| *n).collect();
        assert!(
            names.is_subset(&in_graph),
            "{name}: profiled a node not in the graph"
        );
        for n in &first.nodes {
            assert!(n.ms >= 0.0 && n.ms.is_finite(), "{name}/{}", n.name);
            for o in &n.outputs {
                let dtype = eager_wasm::DType::parse(o.dtype).unwrap();
                assert_eq!(o.bytes, o.shape.iter().product::<usize>() * dtype.size_of());
            }
        }
        // By op: every node counted once, shares of the total.
        let by_op = first.by_op();
        let counted: usize = by_op.iter().map(|o| o.count).sum();
        assert_eq!(counted, first.nodes.len());
        let share: f64 = by_op.iter().map(|o| o.share).sum();
        assert!((share - 1.0).abs() < 1e-9, "{name}: shares sum to {share}");
        assert!(by_op.windows(2).all(|w| w[0].ms >= w[1].ms));
        assert!(first.total_ms <= first.wall_ms + 1e-9);

        // A fresh context makes each kernel on first use (a node whose kernel an earlier node made
        // hits); the second run finds them all.
        let cache = |p: &Profile, c: &str| p.nodes.iter().filter(|n| n.cache == Some(c)).count();
        assert!(cache(&first, "miss") > 0, "{name}");
        assert_eq!(cache(&second, "miss"), 0, "{name}");
        assert_eq!(
            cache(&second, "hit"),
            cache(&first, "hit") + cache(&first, "miss"),
            "{name}"
        );
        for (a, b) in first.nodes.iter().zip(&second.nodes) {
            assert_eq!((&a.name, a.op), (&b.name, b.op));
            assert_eq!(a.outputs, b.outputs);
            let kernel = |c: Option<&str>| c.is_some();
            assert_eq!(kernel(a.cache), kernel(b.cache), "{name}/{}", a.name);
        }
        let placeholders = first.nodes.iter().filter(|n| n.op == "Placeholder");
        assert!(placeholders.clone().count() == inputs.len());
        assert!(placeholders.clone().all(|n| n.cache.is_none()));
        let weights = first.nodes.iter().filter(|n| n.op == "ReadVariableOp");
        assert!(weights.clone().count() > 0);

        // The signature outputs' nodes made what predict returns.
        let got = model.predict(&mut ctx, inputs.clone()).unwrap();
        for (info, t) in model.outputs().iter().zip(&got) {
            let (node, k) = info.tensor_name.rsplit_once(':').unwrap();
            let k: usize = k.parse().unwrap();
            let n = first.nodes.iter().find(|n| n.name == node).unwrap();
            assert_eq!(n.outputs[k].shape, t.dims(), "{name}/{node}");
            assert_eq!(n.outputs[k].dtype, t.dtype().name());
        }
        drop(got);

        // Each op node's inputs and attrs are enough to run it alone: the inputs, fetched by the
        // names it reports, have the shapes it reports, and the op on them with its attrs makes
        // outputs of the shapes it made in the model.
        let mut alone = 0;
        for n in &first.nodes {
            let no_op = ["Placeholder", "Const", "ReadVariableOp"].contains(&n.op);
            assert_eq!(n.attrs.is_empty(), no_op, "{name}/{}: attrs", n.name);
            assert_eq!(n.inputs.is_empty(), no_op, "{name}/{}: inputs", n.name);
            if no_op {
                continue;
            }
            let from: Vec<String> = n.inputs.iter().map(|i| i.from.clone()).collect();
            let args = model.execute(&mut ctx, inputs.clone(), &from).unwrap();
            for (i, t) in n.inputs.iter().zip(&args) {
                assert_eq!((i.shape.as_slice(), i.dtype), (t.dims(), t.dtype().name()));
            }
            let outs = ctx.execute(n.op, &args, n.attrs.clone()).unwrap();
            let shapes: Vec<&[usize]> = outs.iter().map(|t| t.dims()).collect();
            let want: Vec<&[usize]> = n.outputs.iter().map(|o| o.shape.as_slice()).collect();
            assert_eq!(shapes, want, "{name}/{}", n.name);
            alone += 1;
        }
        assert!(alone > 0, "{name}");
        let mut model = model;
        model.dispose(&mut ctx);
        drop(inputs);
        let m = ctx.memory();
        assert_eq!((m.num_tensors, m.num_resources), (0, 0), "{name}");
    }
}

#[test]
fn profile_errors_are_typed_and_leak_nothing() {
    let mut ctx = EagerContext::default();
    let (mut model, inputs, _) = load(&mut ctx, "mlp");
    let clock = || 0.0;
    let before = ctx.memory();
    let e = model.profile(&mut ctx, vec![], &clock).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    assert_eq!(ctx.memory().num_tensors, before.num_tensors);
    // A clock that stands still: zero times, shares of a zero total are zero.
    let p = model.profile(&mut ctx, inputs.clone(), &clock).unwrap();
    assert!(p.nodes.iter().all(|n| n.ms == 0.0));
    assert!(p.by_op().iter().all(|o| o.share == 0.0));
    model.dispose(&mut ctx);
    let e = model.profile(&mut ctx, inputs, &clock).unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition, "{e}");
}

/// The runs of op `op` over the whole profile (loop iterations counted).
fn runs(p: &Profile, op: &str) -> Vec<usize> {
    p.nodes
        .iter()
        .filter(|n| n.op == op)
        .map(|n| n.count)
        .collect()
}

#[test]
fn profile_follows_loops_and_branches_in_both_lowerings() {
    for suffix in ["", "_v2"] {
        let mut ctx = EagerContext::default();
        let name = |m: &str| format!("{m}{suffix}");

        // A GRU over 5 steps: its loop condition is evaluated 6 times, each body node runs 5
        // times and is one entry, the nodes around the loop once.
        let (mut gru, inputs, _) = load(&mut ctx, &name("gru"));
        let loaded = ctx.memory();
        let first = profile(&mut ctx, &gru, &inputs);
        let second = profile(&mut ctx, &gru, &inputs);
        let before = ctx.memory();
        drop(profile(&mut ctx, &gru, &inputs));
        let after = ctx.memory();
        assert_eq!(after.heap_bytes, before.heap_bytes, "{suffix}");
        assert_eq!(after.num_tensors, loaded.num_tensors, "{suffix}");
        let names: HashSet<&str> = first.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(
            names.len(),
            first.nodes.len(),
            "{suffix}: a node listed twice"
        );
        assert_eq!(runs(&first, "LoopCond"), [6], "{suffix}");
        assert_eq!(runs(&first, "Tanh"), [5], "{suffix}");
        assert!(!runs(&first, "Exit").is_empty());
        assert!(runs(&first, "Exit").iter().all(|&c| c == 1), "{suffix}");
        assert!(runs(&first, "Enter").iter().all(|&c| c == 1), "{suffix}");
        assert!(runs(&first, "NextIteration").iter().all(|&c| c == 5));
        assert!(runs(&first, "Merge").iter().all(|&c| c == 6));
        assert!(runs(&first, "Placeholder") == [1]);
        for n in &first.nodes {
            assert!(n.ms >= 0.0 && n.ms.is_finite(), "{}", n.name);
            for o in &n.outputs {
                let dtype = eager_wasm::DType::parse(o.dtype).unwrap();
                assert_eq!(o.bytes, o.shape.iter().product::<usize>() * dtype.size_of());
            }
            // A kernel node reports a lookup, a control-flow node none; each passes its value.
            let flow = [
                "Enter",
                "Merge",
                "Switch",
                "LoopCond",
                "NextIteration",
                "Exit",
            ];
            assert_eq!(
                flow.contains(&n.op),
                n.cache.is_none() && n.op != "Placeholder"
            );
            assert!(!n.outputs.is_empty(), "{}", n.name);
        }
        // The loop body's matmul, with its shape in the last step: [batch 2, 3 gates x 8 units].
        let matmul = first.nodes.iter().find(|n| n.op == "MatMul").unwrap();
        assert_eq!(
            (matmul.count, &matmul.outputs[0].shape[..]),
            (5, &[2, 24][..])
        );
        // By op: every run counted once.
        let by_op = first.by_op();
        let counted: usize = by_op.iter().map(|o| o.count).sum();
        assert_eq!(counted, first.nodes.iter().map(|n| n.count).sum::<usize>());
        assert_eq!(by_op.iter().find(|o| o.op == "Tanh").unwrap().count, 5);
        assert!(first.total_ms <= first.wall_ms + 1e-9);
        // A miss in any iteration shows (the first); the second profile finds every kernel.
        assert_eq!(
            first.nodes.iter().find(|n| n.op == "Tanh").unwrap().cache,
            Some("miss")
        );
        assert!(second.nodes.iter().all(|n| n.cache != Some("miss")));
        assert_eq!(
            second
                .nodes
                .iter()
                .map(|n| (&n.name, n.count))
                .collect::<Vec<_>>(),
            first
                .nodes
                .iter()
                .map(|n| (&n.name, n.count))
                .collect::<Vec<_>>()
        );
        // What predict returns is what the output node made.
        let got = gru.predict(&mut ctx, inputs.clone()).unwrap();
        let (node, _) = gru.outputs()[0].tensor_name.rsplit_once(':').unwrap();
        let out = first.nodes.iter().find(|n| n.name == node).unwrap();
        assert_eq!(out.outputs[0].shape, got[0].dims());
        drop(got);
        gru.dispose(&mut ctx);
        drop(inputs);

        // Nested loops with a cond inside: the outer loop runs 4 times, the inner one i + 1
        // times in outer step i (10 runs, 14 condition checks), its `then` branch 6 of them
        // (even j), its `else` branch (the only Sub) 4; untaken runs are not counted.
        let (mut nested, inputs, _) = load(&mut ctx, &name("nested_loop"));
        let p = profile(&mut ctx, &nested, &inputs);
        let mut loop_conds = runs(&p, "LoopCond");
        loop_conds.sort();
        assert_eq!(loop_conds, [5, 14], "{suffix}");
        assert_eq!(runs(&p, "FloorMod"), [10], "{suffix}");
        assert_eq!(runs(&p, "Sub"), [4], "{suffix}");
        let mut muls = runs(&p, "Mul");
        muls.sort();
        assert_eq!(muls, [4, 6], "{suffix}");
        nested.dispose(&mut ctx);
        drop(inputs);

        // A data-dependent trip count: the condition ran once more than the `steps` TF returned.
        let (mut dynamic, inputs, _) = load(&mut ctx, &name("dynamic_loop"));
        let m = common::MODEL_FIXTURES
            .iter()
            .find(|m| m.name == name("dynamic_loop"))
            .unwrap();
        let (_, outputs) = common::reference(m.reference);
        let steps = outputs.iter().find(|(k, _)| k == "steps").unwrap();
        let steps = steps.1.as_slice::<i32>().unwrap()[0] as usize;
        assert!(steps > 1);
        let p = profile(&mut ctx, &dynamic, &inputs);
        assert_eq!(runs(&p, "LoopCond"), [steps + 1], "{suffix}");
        dynamic.dispose(&mut ctx);
        drop((inputs, outputs));

        // A cond: only the branch taken is in the profile.
        for (model, taken, untaken) in [("cond", "Relu", "Tanh"), ("cond_false", "Tanh", "Relu")] {
            let (mut m, inputs, _) = load(&mut ctx, &name(model));
            let p = profile(&mut ctx, &m, &inputs);
            assert_eq!(runs(&p, taken), [1], "{model}{suffix}");
            assert_eq!(runs(&p, untaken), [0; 0], "{model}{suffix}");
            m.dispose(&mut ctx);
        }
        // Everything the models and their profiles made is gone.
        let m = ctx.memory();
        assert_eq!((m.num_tensors, m.num_resources), (0, 0), "{suffix}");
    }
}
