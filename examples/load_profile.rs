//! Loads and disposes one fixture model in a loop, for a profiler.
//! `cargo run --release --example load_profile -- mobilenet 20000`

use eager_wasm::model::GraphModel;
use eager_wasm::EagerContext;

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "mobilenet".into());
    let n: usize = args.next().map(|s| s.parse().unwrap()).unwrap_or(20_000);
    let dir = format!(
        "{}/tests/fixtures/models/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let json = std::fs::read_to_string(format!("{dir}/model.json")).unwrap();
    let mut weights = Vec::new();
    for p in GraphModel::weight_paths(&json).unwrap() {
        weights.extend(std::fs::read(format!("{dir}/{p}")).unwrap());
    }
    let mut ctx = EagerContext::default();
    let t = std::time::Instant::now();
    for _ in 0..n {
        let mut m = GraphModel::load(&mut ctx, &json, &weights, &mut |_, _| {}).unwrap();
        m.dispose(&mut ctx);
    }
    println!(
        "{:.1} us per load+dispose",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}
