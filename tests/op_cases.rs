//! Every single-op case TF produced (tests/fixtures/ops/*.json, from tools/gen_op_cases.py) run
//! through `EagerContext::execute`, compared with TF's outputs, or TF's error class.
//! `OP_CASES=<file stem>` restricts the run to one fixture file.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use eager_wasm::EagerContext;

#[test]
fn ops_match_tensorflow() {
    let dir = common::fixtures().join("ops");
    let only = std::env::var("OP_CASES").ok();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().to_string())
        .collect();
    on_disk.sort();
    let embedded: Vec<String> = common::OP_FIXTURES
        .iter()
        .map(|(s, _)| s.to_string())
        .collect();
    assert_eq!(
        on_disk, embedded,
        "tests/common OP_FIXTURES must list every fixture file"
    );
    let mut ctx = EagerContext::default();
    let (mut passed, mut failures) = (0, Vec::new());
    for (stem, json) in common::OP_FIXTURES {
        if only.as_deref().is_some_and(|o| o != *stem) {
            continue;
        }
        let (p, fails) = common::run_op_file(&mut ctx, stem, json);
        passed += p;
        failures.extend(fails);
    }
    println!("{passed} op cases match TF");
    assert!(
        failures.is_empty(),
        "{} op cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
