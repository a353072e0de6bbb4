//! `model.json` as the TF.js converter writes it (graph-model format), parsed with serde.
//! Only the fields this runtime reads; unknown fields are ignored.

use crate::ops::AttrValue;
use crate::status::Result;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

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
    #[serde(default, borrow)]
    pub signature: Option<Signature<'a>>,
}

#[derive(Debug, Deserialize)]
pub struct Topology<'a> {
    #[serde(default, borrow)]
    pub node: Vec<NodeDef<'a>>,
    #[serde(default)]
    pub library: Option<Library>,
}

/// The function library (control flow v2): only whether it holds functions matters.
#[derive(Debug, Deserialize)]
pub struct Library {
    #[serde(default)]
    pub function: Vec<serde::de::IgnoredAny>,
}

#[derive(Debug, Deserialize)]
pub struct NodeDef<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(borrow)]
    pub op: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "borrowed_strs")]
    pub input: Vec<Cow<'a, str>>,
    /// Attr values as their JSON text (syntax checked by the parse), parsed only when the loader
    /// reads one (`attr_value`): most attrs (`_output_shapes`, the `value` of Consts whose data
    /// comes from the weights, ...) are never read. A list, not a map: nodes have a handful of attrs
    /// and are read a few times each, so a scan beats building a tree per node.
    #[serde(default, borrow, deserialize_with = "attr_entries")]
    pub attr: Vec<(Cow<'a, str>, &'a RawValue)>,
}

impl<'a> NodeDef<'a> {
    /// The JSON text of attr `name`, if the node has it (of duplicate keys the last, as in a map).
    pub fn attr_raw(&self, name: &str) -> Option<&'a RawValue> {
        self.attr.iter().rev().find(|(k, _)| k == name).map(|e| e.1)
    }

    /// Attr `name` parsed, if the node has it.
    pub fn attr_value(&self, name: &str) -> Option<Result<AttrValue>> {
        self.attr_raw(name)
            .map(|raw| crate::ops::attr_text::from_text(raw.get()))
    }
}

/// A string that borrows from the JSON text unless it has escapes (serde's own `Cow<str>` always
/// copies when nested in a collection).
struct BorrowedStr<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for BorrowedStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BorrowedStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(
                self,
                s: &'de str,
            ) -> std::result::Result<Self::Value, E> {
                Ok(BorrowedStr(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Self::Value, E> {
                Ok(BorrowedStr(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

fn borrowed_strs<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Vec<Cow<'de, str>>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<Cow<'de, str>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_seq<A: SeqAccess<'de>>(
            self,
            mut s: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(s.size_hint().unwrap_or(0));
            while let Some(BorrowedStr(v)) = s.next_element()? {
                out.push(v);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(V)
}

fn attr_entries<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Vec<(Cow<'de, str>, &'de RawValue)>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<(Cow<'de, str>, &'de RawValue)>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a map")
        }
        fn visit_map<A: MapAccess<'de>>(
            self,
            mut m: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(m.size_hint().unwrap_or(0));
            while let Some((BorrowedStr(k), v)) = m.next_entry()? {
                out.push((k, v));
            }
            Ok(out)
        }
    }
    d.deserialize_map(V)
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
pub struct Signature<'a> {
    #[serde(default, borrow)]
    pub inputs: BTreeMap<String, SignatureTensor<'a>>,
    #[serde(default, borrow)]
    pub outputs: BTreeMap<String, SignatureTensor<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignatureTensor<'a> {
    pub name: String,
    #[serde(default)]
    pub dtype: Option<String>,
    /// JSON text, parsed by the loader (a `Value` tree would cost an allocation per dim).
    #[serde(default, borrow)]
    pub tensor_shape: Option<&'a RawValue>,
}
