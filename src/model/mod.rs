//! TF.js graph models: manifest, weights, graph, executor.

pub mod weights;
