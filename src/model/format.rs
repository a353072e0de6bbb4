//! `model.json` as the TF.js converter writes it (graph-model format), parsed with serde.
//! Only the fields this runtime reads; unknown fields are ignored.

use crate::ops::AttrValue;
use crate::status::Result;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// Implements `Deserialize` for a struct read from a JSON object, as `#[derive(Deserialize)]`
/// would (unknown keys skipped, a repeated key is an error, a missing field takes its default, or
/// is an error if marked `required`), minus derive's array form of a struct: model.json never uses
/// it, and it instantiated every field's parser a second time (9.5 KB of wasm).
/// A field `via W` is read as `W` (a one-field wrapper) and unwrapped.
macro_rules! from_object {
    ($name:ident $(<$l:lifetime>)?, $expecting:literal,
     { $($field:ident: $key:literal $(via $via:ident)? $(, $req:ident)?;)* }) => {
        impl<'de $(: $l, $l)?> Deserialize<'de> for $name $(<$l>)? {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                struct V<T>(std::marker::PhantomData<T>);
                impl<'de $(: $l, $l)?> Visitor<'de> for V<$name $(<$l>)?> {
                    type Value = $name $(<$l>)?;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_map<A: MapAccess<'de>>(
                        self,
                        mut m: A,
                    ) -> std::result::Result<Self::Value, A::Error> {
                        $(let mut $field = None;)*
                        while let Some(BorrowedStr(key)) = m.next_key()? {
                            match &*key {
                                $($key => {
                                    if $field.is_some() {
                                        return Err(de::Error::duplicate_field($key));
                                    }
                                    $field = Some(from_object!(@read m $($via)?));
                                })*
                                _ => skip(&mut m)?,
                            }
                        }
                        Ok($name {
                            $($field: from_object!(@finish $field $key $($req)?),)*
                        })
                    }
                }
                d.deserialize_map(V(std::marker::PhantomData))
            }
        }
    };
    (@read $m:ident) => { $m.next_value()? };
    (@read $m:ident $via:ident) => { $m.next_value::<$via>()?.0 };
    (@finish $f:ident $key:literal) => { $f.unwrap_or_default() };
    (@finish $f:ident $key:literal required) => {
        match $f {
            Some(v) => v,
            None => return Err(de::Error::missing_field($key)),
        }
    };
}

/// Skips an unknown key's value (one copy, not one per struct).
#[inline(never)]
fn skip<'de, A: MapAccess<'de>>(m: &mut A) -> std::result::Result<(), A::Error> {
    m.next_value::<de::IgnoredAny>().map(drop)
}

/// Borrows from the JSON text: node names, ops, inputs and attr texts are slices of it (owned only
/// when they contain escapes), so parsing allocates little beyond the node list.
#[derive(Debug)]
pub struct ModelJson<'a> {
    pub format: Option<String>,
    pub model_topology: Option<Topology<'a>>,
    pub weights_manifest: Option<Vec<ManifestGroup<'a>>>,
    pub signature: Option<Signature<'a>>,
    /// TF.js's initializer graph (hash tables made and filled) and its outputs' resource ids.
    pub model_initializer: Option<Topology<'a>>,
    pub initializer_signature: Option<Signature<'a>>,
}

from_object!(ModelJson<'a>, "struct ModelJson", {
    format: "format";
    model_topology: "modelTopology";
    weights_manifest: "weightsManifest";
    signature: "signature";
    model_initializer: "modelInitializer";
    initializer_signature: "initializerSignature";
});

#[derive(Debug)]
pub struct Topology<'a> {
    pub node: Vec<NodeDef<'a>>,
    pub library: Option<Library<'a>>,
}

from_object!(Topology<'a>, "struct Topology", {
    node: "node";
    library: "library";
});

/// The function library (control flow v2: While/If bodies, PartitionedCall targets).
#[derive(Debug)]
pub struct Library<'a> {
    pub function: Vec<FunctionDef<'a>>,
}

from_object!(Library<'a>, "struct Library", {
    function: "function";
});

#[derive(Debug)]
pub struct FunctionDef<'a> {
    pub signature: FunctionSignature<'a>,
    pub node_def: Vec<NodeDef<'a>>,
    /// Output arg name -> the body tensor it returns (`node:arg:index` or an input arg name).
    pub ret: Vec<(Cow<'a, str>, Cow<'a, str>)>,
}

from_object!(FunctionDef<'a>, "struct FunctionDef", {
    signature: "signature", required;
    node_def: "nodeDef";
    ret: "ret" via StrEntries;
});

#[derive(Debug)]
pub struct FunctionSignature<'a> {
    pub name: Cow<'a, str>,
    pub input_arg: Vec<ArgDef<'a>>,
    pub output_arg: Vec<ArgDef<'a>>,
}

from_object!(FunctionSignature<'a>, "struct FunctionSignature", {
    name: "name" via BorrowedStr, required;
    input_arg: "inputArg";
    output_arg: "outputArg";
});

#[derive(Debug)]
pub struct ArgDef<'a> {
    pub name: Cow<'a, str>,
}

from_object!(ArgDef<'a>, "struct ArgDef", {
    name: "name" via BorrowedStr, required;
});

/// A `func` attr (`{"func": {"name": "..."}}`): the function it names.
pub fn func_name(raw: &RawValue) -> Result<Cow<'_, str>> {
    let f: FuncAttr = serde_json::from_str(raw.get()).map_err(|e| {
        crate::status::invalid_argument(format!("a function attr is malformed: {e}"))
    })?;
    Ok(f.func.name)
}

struct FuncAttr<'a> {
    func: FuncRef<'a>,
}

from_object!(FuncAttr<'a>, "struct FuncAttr", {
    func: "func", required;
});

struct FuncRef<'a> {
    name: Cow<'a, str>,
}

from_object!(FuncRef<'a>, "struct FuncRef", {
    name: "name" via BorrowedStr, required;
});

/// An object of strings, entries in order.
struct StrEntries<'a>(Vec<(Cow<'a, str>, Cow<'a, str>)>);

impl<'de> Deserialize<'de> for StrEntries<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StrEntries<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of strings")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(m.size_hint().unwrap_or(0));
                while let Some((BorrowedStr(k), BorrowedStr(v))) = m.next_entry()? {
                    out.push((k, v));
                }
                Ok(StrEntries(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Debug, Clone)]
pub struct NodeDef<'a> {
    pub name: Cow<'a, str>,
    pub op: Cow<'a, str>,
    pub input: Vec<Cow<'a, str>>,
    /// Attr values as their JSON text (syntax checked by the parse), parsed only when the loader
    /// reads one (`attr_value`): most attrs (`_output_shapes`, the `value` of Consts whose data
    /// comes from the weights, ...) are never read. A list, not a map: nodes have a handful of attrs
    /// and are read a few times each, so a scan beats building a tree per node.
    pub attr: Vec<(Cow<'a, str>, &'a RawValue)>,
}

from_object!(NodeDef<'a>, "struct NodeDef", {
    name: "name" via BorrowedStr, required;
    op: "op" via BorrowedStr, required;
    input: "input" via BorrowedStrs;
    attr: "attr" via AttrEntries;
});

impl<'a> NodeDef<'a> {
    /// The JSON text of attr `name`, if the node has it (of duplicate keys the last, as in a map).
    pub fn attr_raw(&self, name: &str) -> Option<&'a RawValue> {
        self.attr.iter().rev().find(|(k, _)| k == name).map(|e| e.1)
    }

    /// Attr `name` parsed, if the node has it.
    pub fn attr_value(&self, name: &str) -> Option<Result<AttrValue>> {
        self.attr_raw(name)
            .map(|raw| super::attr_json::from_text(raw.get()))
    }
}

/// A string that borrows from the JSON text unless it has escapes (serde's own `Cow<str>` always
/// copies when nested in a collection).
struct BorrowedStr<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for BorrowedStr<'de> {
    #[inline(never)]
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

/// A list of strings, each borrowed as `BorrowedStr` does.
struct BorrowedStrs<'a>(Vec<Cow<'a, str>>);

impl<'de> Deserialize<'de> for BorrowedStrs<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BorrowedStrs<'de>;
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
                Ok(BorrowedStrs(out))
            }
        }
        d.deserialize_seq(V)
    }
}

/// An object's entries in order, values kept as JSON text.
struct AttrEntries<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for AttrEntries<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AttrEntries<'de>;
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
                Ok(AttrEntries(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Debug)]
pub struct ManifestGroup<'a> {
    pub paths: Vec<String>,
    pub weights: Vec<WeightSpec<'a>>,
}

from_object!(ManifestGroup<'a>, "struct ManifestGroup", {
    paths: "paths", required;
    weights: "weights", required;
});

#[derive(Debug)]
pub struct WeightSpec<'a> {
    pub name: Cow<'a, str>,
    pub shape: Vec<i64>,
    pub dtype: Cow<'a, str>,
    pub quantization: Option<Quantization>,
}

from_object!(WeightSpec<'a>, "struct WeightSpec", {
    name: "name" via BorrowedStr, required;
    shape: "shape", required;
    dtype: "dtype" via BorrowedStr, required;
    quantization: "quantization";
});

#[derive(Debug)]
pub struct Quantization {
    pub dtype: String,
    pub min: Option<f64>,
    pub scale: Option<f64>,
    pub original_dtype: Option<String>,
}

from_object!(Quantization, "struct Quantization", {
    dtype: "dtype", required;
    min: "min";
    scale: "scale";
    original_dtype: "original_dtype";
});

#[derive(Debug, Default)]
pub struct Signature<'a> {
    /// Sorted by key, as a `BTreeMap` would be (and, as in one, of duplicate keys the last).
    pub inputs: Vec<(String, SignatureTensor<'a>)>,
    pub outputs: Vec<(String, SignatureTensor<'a>)>,
}

from_object!(Signature<'a>, "struct Signature", {
    inputs: "inputs" via SortedEntries;
    outputs: "outputs" via SortedEntries;
});

/// An object's entries sorted by key: a `BTreeMap`'s order and duplicate handling without its code
/// (a signature has a few entries, so inserting into a sorted `Vec` is cheap).
struct SortedEntries<'a>(Vec<(String, SignatureTensor<'a>)>);

impl<'de: 'a, 'a> Deserialize<'de> for SortedEntries<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<SignatureTensor<'a>>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = SortedEntries<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut out: Vec<(String, SignatureTensor<'a>)> = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, SignatureTensor<'a>>()? {
                    match out.binary_search_by(|e| e.0.cmp(&k)) {
                        Ok(i) => out[i].1 = v,
                        Err(i) => out.insert(i, (k, v)),
                    }
                }
                Ok(SortedEntries(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

#[derive(Debug)]
pub struct SignatureTensor<'a> {
    pub name: String,
    pub dtype: Option<String>,
    /// JSON text, parsed by the loader (a `Value` tree would cost an allocation per dim).
    pub tensor_shape: Option<&'a RawValue>,
    /// A resource input or initializer output: the id that pairs them.
    pub resource_id: Option<i64>,
}

from_object!(SignatureTensor<'a>, "struct SignatureTensor", {
    name: "name", required;
    dtype: "dtype";
    tensor_shape: "tensorShape";
    resource_id: "resourceId";
});

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> std::result::Result<ModelJson<'_>, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn objects_read_as_derive_would() {
        // Escaped keys match, unknown keys are skipped, missing optional fields take defaults.
        let m = parse(r#"{"x":[1],"model\u0054opology":{"node":[{"name":"a","op":"Const"}]}}"#)
            .unwrap();
        let nodes = &m.model_topology.unwrap().node;
        assert_eq!((&*nodes[0].name, nodes[0].input.len()), ("a", 0));
        assert!(m.weights_manifest.is_none() && m.signature.is_none());

        let err = parse(r#"{"modelTopology":{"node":[{"op":"Const"}]}}"#).unwrap_err();
        assert!(err.contains("missing field `name`"), "{err}");
        let err = parse(r#"{"format":"a","format":"b"}"#).unwrap_err();
        assert!(err.contains("duplicate field `format`"), "{err}");
        let m = parse(r#"{"signature":{"inputs":{"b":{"name":"b:0"},"a":{"name":"a:0"},"b":{"name":"c:0"}}}}"#)
            .unwrap();
        let keys: Vec<_> = m
            .signature
            .unwrap()
            .inputs
            .into_iter()
            .map(|(k, t)| (k, t.name))
            .collect();
        assert_eq!(
            keys,
            [("a".into(), "a:0".into()), ("b".into(), "c:0".into())]
        );
        let err = parse(r#"["graph-model"]"#).unwrap_err();
        assert!(err.contains("expected struct ModelJson"), "{err}");
    }
}
