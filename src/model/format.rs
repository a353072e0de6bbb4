//! `model.json` as the TF.js converter writes it (graph-model format), parsed with serde.
//! Only the fields this runtime reads; unknown fields are ignored.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelJson {
    #[serde(default)]
    pub format: Option<String>,
    pub model_topology: Option<Topology>,
    pub weights_manifest: Option<Vec<ManifestGroup>>,
    #[serde(default)]
    pub signature: Option<Signature>,
}

#[derive(Debug, Deserialize)]
pub struct Topology {
    #[serde(default)]
    pub node: Vec<NodeDef>,
    #[serde(default)]
    pub library: Option<Value>,
}

#[derive(Debug, Deserialize)]
pub struct NodeDef {
    pub name: String,
    pub op: String,
    #[serde(default)]
    pub input: Vec<String>,
    #[serde(default)]
    pub attr: BTreeMap<String, Value>,
}

#[derive(Debug, Deserialize)]
pub struct ManifestGroup {
    pub paths: Vec<String>,
    pub weights: Vec<WeightSpec>,
}

#[derive(Debug, Deserialize)]
pub struct WeightSpec {
    pub name: String,
    pub shape: Vec<i64>,
    pub dtype: String,
    #[serde(default)]
    pub quantization: Option<Quantization>,
}

#[derive(Debug, Deserialize)]
pub struct Quantization {
    pub dtype: String,
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub scale: Option<f64>,
    #[serde(default)]
    pub original_dtype: Option<String>,
}

#[derive(Debug, Deserialize, Default)]
pub struct Signature {
    #[serde(default)]
    pub inputs: BTreeMap<String, SignatureTensor>,
    #[serde(default)]
    pub outputs: BTreeMap<String, SignatureTensor>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignatureTensor {
    pub name: String,
    #[serde(default)]
    pub dtype: Option<String>,
    #[serde(default)]
    pub tensor_shape: Option<Value>,
}
