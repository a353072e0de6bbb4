//! `model.json` as the TF.js converter writes it (graph-model format), parsed with serde.
//! Only the fields this runtime reads; unknown fields are ignored.

use serde::Deserialize;
use serde_json::value::RawValue;
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
    /// Attr values as their JSON text (syntax checked by the parse), turned into a `Value` only when
    /// the loader reads one (`attr_json`): most attrs (`_output_shapes`, the `value` of Consts whose
    /// data comes from the weights, ...) are never read, and a `Value` tree costs an allocation per
    /// object, key and string.
    #[serde(default)]
    pub attr: BTreeMap<String, Box<RawValue>>,
}

impl NodeDef {
    /// Attr `name` as a JSON value, if the node has it.
    pub fn attr_json(&self, name: &str) -> Option<Value> {
        // The text was parsed once already, so this cannot fail; `Null` would be reported by
        // `AttrValue::from_json` as an unrecognized value.
        self.attr
            .get(name)
            .map(|raw| serde_json::from_str(raw.get()).unwrap_or(Value::Null))
    }
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
