//! Which op names of tfjs-converter 4.22's op list (tests/fixtures/tfjs_converter_ops.txt, from
//! tools/tfjs_op_list.py) eager-wasm does not register. Prints them by family; fails if one is
//! missing that is not listed below with the reason it is out of scope, or if one listed here has
//! become registered (so the list stays exact).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

/// Unregistered on purpose, by family of the converter's op list: (family, why, names).
const NOT_REGISTERED: &[(&str, &str, &[&str])] = &[
    (
        "control",
        "control flow: run by the model executor itself (src/model/flow.rs, functions.rs), not kernels",
        &[
            "Enter",
            "Exit",
            "If",
            "LoopCond",
            "Merge",
            "NextIteration",
            "StatelessIf",
            "StatelessWhile",
            "Switch",
            "While",
        ],
    ),
    (
        "tfdf",
        "TensorFlow Decision Forests inference: a separate runtime",
        &[
            "SimpleMLCreateModelResource",
            "SimpleMLInferenceOpWithHandle",
            "SimpleMLLoadModelFromPathWithHandle",
        ],
    ),
];

#[test]
fn tfjs_converter_ops_are_registered_or_out_of_scope() {
    let list = include_str!("fixtures/tfjs_converter_ops.txt");
    let registered = eager_wasm::registry::registry().names();
    let mut missing: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut total = 0;
    for line in list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (family, name) = line.split_once(' ').expect("'<family> <name>' lines");
        total += 1;
        if !registered.contains(&name) {
            missing.entry(family).or_default().push(name);
        }
    }
    let n_missing: usize = missing.values().map(Vec::len).sum();
    println!(
        "tfjs-converter op names: {total}; registered: {}; not registered: {n_missing}",
        total - n_missing
    );
    for (family, names) in &missing {
        println!("  {family}: {}", names.join(" "));
    }
    let allowed: Vec<&str> = NOT_REGISTERED
        .iter()
        .flat_map(|(_, _, n)| n.iter().copied())
        .collect();
    let unexplained: Vec<&str> = missing
        .values()
        .flatten()
        .copied()
        .filter(|n| !allowed.contains(n))
        .collect();
    assert!(
        unexplained.is_empty(),
        "not registered and not listed as out of scope: {unexplained:?}"
    );
    let stale: Vec<&str> = allowed
        .iter()
        .copied()
        .filter(|n| registered.contains(n))
        .collect();
    assert!(
        stale.is_empty(),
        "listed as unregistered but registered: {stale:?}"
    );
}
