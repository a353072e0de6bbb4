//! Load and predict times of every fixture model (native, release): median of repeated runs.
//! `cargo run --release --example model_times`

use eager_wasm::model::GraphModel;
use eager_wasm::{EagerContext, Tensor};
use serde_json::Value;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/models");
    let mut names: Vec<String> = std::fs::read_dir(root)
        .expect("fixtures")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("model.json").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    println!(
        "{:<18} {:>12} {:>12} {:>12}",
        "model", "weights", "load (us)", "predict (us)"
    );
    for name in names {
        let dir = format!("{root}/{name}");
        let json = std::fs::read_to_string(format!("{dir}/model.json")).unwrap();
        let mut weights = Vec::new();
        for p in GraphModel::weight_paths(&json).unwrap() {
            weights.extend(std::fs::read(format!("{dir}/{p}")).unwrap());
        }
        let reference: Value = serde_json::from_str(
            &std::fs::read_to_string(format!("{dir}/reference.json")).unwrap(),
        )
        .unwrap();
        let feeds: Vec<(String, Tensor)> = reference["inputs"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| {
                let dims: Vec<usize> = v["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_u64().unwrap() as usize)
                    .collect();
                let data: Vec<f32> = v["data"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap() as f32)
                    .collect();
                (k.clone(), Tensor::from_slice(&dims, &data).unwrap())
            })
            .collect();
        let mut ctx = EagerContext::default();
        let (mut loads, mut predicts) = (Vec::new(), Vec::new());
        for _ in 0..50 {
            let t = Instant::now();
            let mut m = GraphModel::load(&mut ctx, &json, &weights, &mut |_, _| {}).unwrap();
            loads.push(t.elapsed().as_secs_f64() * 1e6);
            for _ in 0..4 {
                let t = Instant::now();
                drop(m.predict(&mut ctx, feeds.clone()).unwrap());
                predicts.push(t.elapsed().as_secs_f64() * 1e6);
            }
            m.dispose(&mut ctx);
        }
        println!(
            "{name:<18} {:>12} {:>12.1} {:>12.1}",
            weights.len(),
            median(loads),
            median(predicts)
        );
    }
}
