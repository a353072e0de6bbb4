//! TF.js layers-format models (tests/fixtures/layers, from tools/gen_layers_models.py): Keras
//! configs read into layer graphs, weights restored as resource variables, each layer run as TF
//! ops, compared with Keras's outputs.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{check_layers_model, LAYERS_FIXTURES};
use eager_wasm::EagerContext;

fn check(name: &str) {
    let f = LAYERS_FIXTURES
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no fixture {name}"));
    let mut ctx = EagerContext::default();
    check_layers_model(&mut ctx, f).unwrap_or_else(|e| panic!("{name}: {e}"));
}

macro_rules! layers_tests {
    ($($test:ident: $name:literal,)*) => {$(
        #[test]
        fn $test() {
            check($name);
        }
    )*};
}

layers_tests! {
    sequential_mlp_and_dropout_family_match_keras: "seq_mlp",
    activations_match_keras: "activations",
    conv2d_family_matches_keras: "conv2d",
    conv1d_family_matches_keras: "conv1d",
    merge_shared_and_nested_models_match_keras: "merge",
    simple_rnn_lstm_gru_match_keras: "rnn",
    bidirectional_time_distributed_masking_match_keras: "rnn_wrappers",
    embedding_with_mask_matches_keras: "embedding",
    rescaling_and_normalization_match_keras: "preprocess",
    teachable_machine_style_model_matches_keras: "teachable",
}
