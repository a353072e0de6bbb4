//! Every single-op case TF produced (tests/fixtures/ops/*.json, from tools/gen_op_cases.py) run
//! through `EagerContext::execute`, compared with TF's outputs, or TF's error class.
//! `OP_CASES=<file stem>` restricts the run to one fixture file.

mod common;

use eager_wasm::{AttrValue, EagerContext};
use serde_json::Value;

const ATOL: f32 = 1e-5;
const RTOL: f32 = 1e-4;

fn run_case(ctx: &mut EagerContext, case: &Value) -> Result<(), String> {
    let op = case["op"].as_str().ok_or("case without op")?;
    let inputs: Vec<_> = case["inputs"]
        .as_array()
        .map(|a| a.iter().map(common::tensor_from_json).collect())
        .unwrap_or_default();
    let attrs: Vec<(String, AttrValue)> = case["attrs"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        AttrValue::from_json(v).expect("fixture attr parses"),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let result = ctx.execute(op, &inputs, attrs);
    if let Some(code) = case.get("error").and_then(Value::as_str) {
        return match result {
            Err(e) if e.code.name() == code => Ok(()),
            Err(e) => Err(format!("expected {code}, got {e}")),
            Ok(_) => Err(format!("expected {code}, got success")),
        };
    }
    let got = result.map_err(|e| e.to_string())?;
    let want = case["outputs"].as_array().ok_or("case without outputs")?;
    if got.len() != want.len() {
        return Err(format!("{} outputs, expected {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        common::compare(g, &common::tensor_from_json(w), ATOL, RTOL)
            .map_err(|e| format!("output {i}: {e}"))?;
    }
    Ok(())
}

#[test]
fn ops_match_tensorflow() {
    let dir = common::fixtures().join("ops");
    let only = std::env::var("OP_CASES").ok();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| only.as_deref().is_none_or(|o| p.file_stem().unwrap() == o))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no op fixtures found in {}",
        dir.display()
    );
    let mut ctx = EagerContext::default();
    let (mut passed, mut failures) = (0, Vec::new());
    for f in files {
        let cases: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        for case in cases.as_array().unwrap() {
            let name = case["name"].as_str().unwrap_or("?");
            match run_case(&mut ctx, case) {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!(
                    "{}/{name} ({}): {e}",
                    f.file_stem().unwrap().to_string_lossy(),
                    case["op"]
                )),
            }
        }
    }
    println!("{passed} op cases match TF");
    assert!(
        failures.is_empty(),
        "{} op cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
