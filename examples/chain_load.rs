//! Load time of a chain of N Identity nodes (x -> n1 -> ... -> nN), to check that loading is
//! linear in the graph's size. `cargo run --release --example chain_load -- 100000 400000 1000000`

use eager_wasm::model::GraphModel;
use eager_wasm::EagerContext;
use std::fmt::Write;

fn chain(n: usize) -> String {
    let mut nodes =
        String::from(r#"{"name":"x","op":"Placeholder","attr":{"dtype":{"type":"DT_FLOAT"}}}"#);
    for i in 1..=n {
        let prev = if i == 1 {
            "x".to_string()
        } else {
            format!("n{}", i - 1)
        };
        let _ = write!(
            nodes,
            r#",{{"name":"n{i}","op":"Identity","input":["{prev}"],"attr":{{"T":{{"type":"DT_FLOAT"}}}}}}"#
        );
    }
    format!(
        r#"{{"format":"graph-model","modelTopology":{{"node":[{nodes}]}},
        "signature":{{"inputs":{{"x":{{"name":"x:0","dtype":"DT_FLOAT"}}}},
        "outputs":{{"y":{{"name":"n{n}:0","dtype":"DT_FLOAT"}}}}}},"weightsManifest":[]}}"#
    )
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|s| s.parse().expect("a node count"))
        .collect();
    for n in sizes {
        let json = chain(n);
        let mut ctx = EagerContext::default();
        let t = std::time::Instant::now();
        let mut m = GraphModel::load(&mut ctx, &json, &[][..], &mut |_, _| {}).unwrap();
        let load = t.elapsed().as_secs_f64();
        let x = eager_wasm::Tensor::scalar(1.0f32);
        let t = std::time::Instant::now();
        let out = m.predict(&mut ctx, vec![("x".to_string(), x)]).unwrap();
        let run = t.elapsed().as_secs_f64();
        assert_eq!(out.len(), 1);
        m.dispose(&mut ctx);
        println!(
            "{n} nodes: load {load:.2} s, predict {run:.2} s ({} MB of JSON)",
            json.len() >> 20
        );
    }
}
