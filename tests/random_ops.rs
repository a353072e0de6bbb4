//! TF's stateful random ops against TF 2.18's CPU kernels (tests/fixtures/ops/random/cases.json,
//! from tools/gen_random_cases.py): every call of a seeded kernel bit for bit, the 1st, 2nd and
//! 3rd call of the same cached kernel included; unseeded kernels checked statistically. Native
//! and as wasm under Node (`cargo test --target wasm32-unknown-unknown --test random_ops`), where
//! the unseeded kernels draw their seeds from `crypto.getRandomValues`.

use eager_wasm::model::GraphModel;
use eager_wasm::tensor::{Data, Shape};
use eager_wasm::{AttrValue, DType, EagerContext, Tensor};
use serde_json::Value;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const CASES: &str = include_str!("fixtures/ops/random/cases.json");

/// A fixture tensor, int64 read exactly (values beyond 2^53 occur).
fn tensor(v: &Value) -> Tensor {
    let dims: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let data = v["data"].as_array().unwrap();
    let float = |x: &Value| match x {
        Value::String(s) if s == "-Infinity" => f32::NEG_INFINITY,
        Value::String(s) if s == "Infinity" => f32::INFINITY,
        x => x.as_f64().unwrap() as f32,
    };
    let d = match v["dtype"].as_str().unwrap() {
        "float32" => Data::F32(data.iter().map(float).collect()),
        "int32" => Data::I32(data.iter().map(|x| x.as_i64().unwrap() as i32).collect()),
        "int64" => Data::I64(data.iter().map(|x| x.as_i64().unwrap()).collect()),
        other => panic!("dtype {other}"),
    };
    Tensor::new(Shape::new(dims).unwrap(), d).unwrap()
}

fn attrs(case: &Value) -> Vec<(String, AttrValue)> {
    case["attrs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let a = eager_wasm::model::attr_json::from_text(&v.to_string()).unwrap();
            (k.clone(), a)
        })
        .collect()
}

/// Same dtype, shape and bits.
fn same(got: &Tensor, want: &Tensor) -> Result<(), String> {
    if got.dtype() != want.dtype() || got.dims() != want.dims() {
        return Err(format!(
            "{} {} != expected {} {}",
            got.dtype(),
            got.shape(),
            want.dtype(),
            want.shape()
        ));
    }
    let bits = |t: &Tensor| -> Vec<i64> {
        match t.data() {
            Data::F32(v) => v.iter().map(|x| i64::from(x.to_bits())).collect(),
            Data::I32(v) => v.iter().map(|&x| i64::from(x)).collect(),
            Data::I64(v) => v.clone(),
            _ => panic!("unexpected dtype"),
        }
    };
    let (g, w) = (bits(got), bits(want));
    match g.iter().zip(&w).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(i) => Err(format!(
            "element {i} of {}: {:?} != TF's {:?} ({} of {} differ)",
            got.num_elements(),
            value(got, i),
            value(want, i),
            g.iter().zip(&w).filter(|(a, b)| a != b).count(),
            g.len()
        )),
    }
}

fn value(t: &Tensor, i: usize) -> String {
    match t.data() {
        Data::F32(v) => format!("{:e}", v[i]),
        Data::I32(v) => v[i].to_string(),
        Data::I64(v) => v[i].to_string(),
        _ => String::new(),
    }
}

#[test]
fn seeded_kernels_match_tensorflow_call_after_call() {
    let cases: Value = serde_json::from_str(CASES).unwrap();
    let (mut passed, mut failures) = (0, Vec::new());
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let op = case["op"].as_str().unwrap();
        let inputs: Vec<Tensor> = case["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(tensor)
            .collect();
        let attrs = attrs(case);
        // A fresh context: a fresh kernel, as the generator clears TF's kernel cache per case.
        let mut ctx = EagerContext::default();
        if let Some(code) = case["error"].as_str() {
            match ctx.execute(op, &inputs, attrs.clone()) {
                Err(e) if e.code.name() == code => passed += 1,
                other => failures.push(format!("{name}: expected {code}, got {other:?}")),
            }
            continue;
        }
        for (k, want) in case["calls"].as_array().unwrap().iter().enumerate() {
            // Other inputs per call, where given: the same kernel (TF's cache keys on attrs and
            // input dtypes) continues its stream.
            let inputs: Vec<Tensor> = match case.get("call_inputs") {
                Some(c) => c[k].as_array().unwrap().iter().map(tensor).collect(),
                None => inputs.clone(),
            };
            let got = ctx.execute(op, &inputs, attrs.clone());
            let r = got
                .map_err(|e| e.to_string())
                .and_then(|g| same(&g[0], &tensor(&want[0])));
            match r {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("{name} call {}: {e}", k + 1)),
            }
        }
    }
    println!("{passed} random op calls match TF");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn case(name: &str) -> Value {
    let cases: Value = serde_json::from_str(CASES).unwrap();
    cases
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap()
        .clone()
}

/// A graph model's node keeps its kernel across runs, as a TF graph's does: its 1st, 2nd and 3rd
/// run give TF's 1st, 2nd and 3rd call, with a fed shape and with a Const one (not folded).
#[test]
fn a_graph_node_advances_across_runs() {
    let json = r#"{"format":"graph-model","modelTopology":{"node":[
        {"name":"shape","op":"Placeholder","attr":{"dtype":{"type":"DT_INT32"},"shape":{"shape":{"dim":[{"size":"1"}]}}}},
        {"name":"y","op":"RandomUniform","input":["shape"],"attr":{"seed":{"i":"7"},"seed2":{"i":"3"},
            "dtype":{"type":"DT_FLOAT"},"T":{"type":"DT_INT32"}}},
        {"name":"c","op":"Const","attr":{"dtype":{"type":"DT_INT32"},"value":{"tensor":{"dtype":"DT_INT32",
            "tensorShape":{"dim":[{"size":"2"}]},"intVal":[2,3]}}}},
        {"name":"z","op":"RandomUniform","input":["c"],"attr":{"seed":{"i":"1"},"seed2":{"i":"0"},
            "dtype":{"type":"DT_FLOAT"},"T":{"type":"DT_INT32"}}}]},
        "weightsManifest":[{"paths":[],"weights":[]}],
        "signature":{"inputs":{"shape":{"name":"shape:0","dtype":"DT_INT32"}},
                     "outputs":{"y":{"name":"y:0","dtype":"DT_FLOAT"},"z":{"name":"z:0","dtype":"DT_FLOAT"}}}}"#;
    let (y, z) = (case("uniform_5_seed_7_3"), case("uniform_2x3_seed_1_0"));
    let mut ctx = EagerContext::default();
    let m = GraphModel::load(&mut ctx, json, &[][..], &mut |_, _| {}).unwrap();
    let names: Vec<String> = m.outputs().iter().map(|o| o.name.clone()).collect();
    for k in 0..3 {
        let feeds = vec![(
            "shape".to_string(),
            Tensor::from_slice(&[1], &[5i32]).unwrap(),
        )];
        let got = m.predict(&mut ctx, feeds).unwrap();
        assert_eq!(got.len(), 2);
        for (name, t) in names.iter().zip(&got) {
            let want = if name == "y" { &y } else { &z };
            same(t, &tensor(&want["calls"][k][0]))
                .unwrap_or_else(|e| panic!("{name} run {k}: {e}"));
        }
    }
}

fn run(
    ctx: &mut EagerContext,
    op: &str,
    inputs: &[Tensor],
    attrs: Vec<(&str, AttrValue)>,
) -> Tensor {
    ctx.execute(op, inputs, attrs).unwrap().remove(0)
}

fn shape(n: i32) -> Tensor {
    Tensor::from_slice(&[1], &[n]).unwrap()
}

fn mean_var(v: &[f32]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().map(|&x| f64::from(x)).sum::<f64>() / n;
    (
        m,
        v.iter().map(|&x| (f64::from(x) - m).powi(2)).sum::<f64>() / n,
    )
}

/// seed = seed2 = 0: random seeds per kernel. With 100k samples the mean's standard error is
/// ~0.001 (uniform) to 0.003 (normal): the bounds are over 5 of them.
#[test]
fn unseeded_kernels_are_random_and_well_distributed() {
    const N: i32 = 100_000;
    let float = |op: &str| {
        let mut ctx = EagerContext::default();
        let a = vec![("dtype", AttrValue::Type(DType::Float32))];
        run(&mut ctx, op, &[shape(N)], a).f32s().unwrap().to_vec()
    };
    let (u, u2) = (float("RandomUniform"), float("RandomUniform"));
    assert_ne!(u, u2, "two unseeded kernels gave the same values");
    assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)));
    let (m, v) = mean_var(&u);
    assert!(
        (m - 0.5).abs() < 0.006 && (v - 1.0 / 12.0).abs() < 0.003,
        "{m} {v}"
    );
    let n = float("RandomStandardNormal");
    assert_ne!(n, float("RandomStandardNormal"));
    let (m, v) = mean_var(&n);
    assert!(m.abs() < 0.02 && (v - 1.0).abs() < 0.03, "{m} {v}");
    let t = float("TruncatedNormal");
    assert!(t.iter().all(|x| x.abs() < 2.0));
    // Variance of a standard normal truncated to (-2, 2).
    let (m, v) = mean_var(&t);
    assert!(m.abs() < 0.02 && (v - 0.774).abs() < 0.02, "{m} {v}");

    let mut ctx = EagerContext::default();
    let (lo, hi) = (Tensor::scalar(-3i64), Tensor::scalar(5i64));
    let a = vec![("Tout", AttrValue::Type(DType::Int64))];
    let ints = run(&mut ctx, "RandomUniformInt", &[shape(N), lo, hi], a);
    let mut counts = [0usize; 8];
    for &x in ints.as_slice::<i64>().unwrap() {
        assert!((-3..5).contains(&x));
        counts[(x + 3) as usize] += 1;
    }
    // Each of 8 values ~12500 times (sd ~105).
    assert!(
        counts.iter().all(|&c| c.abs_diff(12_500) < 600),
        "{counts:?}"
    );

    let logits = Tensor::from_slice(&[1, 3], &[0.0f32, 1.0f32.ln(), 2.0f32.ln()]).unwrap();
    let s = run(
        &mut ctx,
        "Multinomial",
        &[logits, Tensor::scalar(N)],
        vec![],
    );
    let mut counts = [0usize; 3];
    for &x in s.as_slice::<i64>().unwrap() {
        counts[x as usize] += 1;
    }
    // Probabilities 1/4, 1/4, 1/2.
    let want = [N as usize / 4, N as usize / 4, N as usize / 2];
    assert!(
        counts.iter().zip(want).all(|(&c, w)| c.abs_diff(w) < 900),
        "{counts:?}"
    );
}

/// A call that fails validation does not advance the generator (TF checks before reserving).
#[test]
fn a_failed_call_leaves_the_stream_where_it_was() {
    let c = case("uniform_int_int32_5_-5_9");
    let mut ctx = EagerContext::default();
    let a = attrs(&c);
    let ok: Vec<Tensor> = c["inputs"].as_array().unwrap().iter().map(tensor).collect();
    let bad = [ok[0].clone(), Tensor::scalar(9i32), Tensor::scalar(9i32)];
    assert!(ctx.execute("RandomUniformInt", &bad, a.clone()).is_err());
    let got = ctx.execute("RandomUniformInt", &ok, a).unwrap();
    same(&got[0], &tensor(&c["calls"][0][0])).unwrap();
}
