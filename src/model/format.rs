//! `model.json` as the TF.js converter writes it (graph-model format), parsed with serde.
//! Only the fields this runtime reads; unknown fields are ignored.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Borrows from the JSON text: node names, ops, inputs and attr texts are slices of it (owned only
/// when they contain escapes), so parsing allocates little beyond the node list.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelJson<'a> {
    #[serde(default)]
    pub format: Option<String>,
    #[serde(borrow)]
    pub model_topology: Option<Topology<'a>>,
    #[serde(borrow)]
    pub weights_manifest: Option<Vec<ManifestGroup<'a>>>,
    #[serde(default)]
    pub signature: Option<Signature>,
}

#[derive(Debug, Deserialize)]
pub struct Topology<'a> {
    #[serde(default, borrow)]
    pub node: Vec<NodeDef<'a>>,
    #[serde(default)]
    pub library: Option<Value>,
}

#[derive(Debug, Deserialize)]
pub struct NodeDef<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(borrow)]
    pub op: Cow<'a, str>,
    #[serde(default, borrow)]
    pub input: Vec<Cow<'a, str>>,
    /// Attr values as their JSON text (syntax checked by the parse), turned into a `Value` only when
    /// the loader reads one (`attr_json`): most attrs (`_output_shapes`, the `value` of Consts whose
    /// data comes from the weights, ...) are never read, and a `Value` tree costs an allocation per
    /// object, key and string.
    #[serde(default, borrow)]
    pub attr: BTreeMap<Cow<'a, str>, &'a RawValue>,
}

impl NodeDef<'_> {
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
pub struct ManifestGroup<'a> {
    pub paths: Vec<String>,
    #[serde(borrow)]
    pub weights: Vec<WeightSpec<'a>>,
}

#[derive(Debug, Deserialize)]
pub struct WeightSpec<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    pub shape: Vec<i64>,
    #[serde(borrow)]
    pub dtype: Cow<'a, str>,
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
