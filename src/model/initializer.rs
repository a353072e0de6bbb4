//! TF.js's model initializer (`modelInitializer`: the graph the converter splits off to make and
//! fill hash tables), merged into the main graph: its nodes are added under a prefix, and each
//! resource input of the signature whose `resourceId` an initializer output carries becomes an
//! Identity of that output. The initializer's nodes then run with the nodes that need a table: the
//! named table is found again, and refilling it from the same weight buffers is a no-op
//! (`ResourceManager::init_table`).

use super::format::ModelJson;
use crate::status::{invalid_argument, Result};
use std::borrow::Cow;

/// Prefix of the initializer's node names: a control character, so no converter name clashes.
const PREFIX: &str = "\u{1}init/";

/// The weight a node's name reads: an initializer Const's is its name in the initializer.
pub(super) fn weight_name(node: &str) -> &str {
    node.strip_prefix(PREFIX).unwrap_or(node)
}

pub(super) fn merge(m: &mut ModelJson<'_>) -> Result<()> {
    let Some(init) = m.model_initializer.take() else {
        return Ok(());
    };
    let outputs = m
        .initializer_signature
        .take()
        .map(|s| s.outputs)
        .unwrap_or_default();
    let Some(topo) = m.model_topology.as_mut() else {
        return Ok(());
    };
    let prefixed = |s: &str| -> Cow<'static, str> {
        match s.strip_prefix('^') {
            Some(rest) => format!("^{PREFIX}{rest}").into(),
            None => format!("{PREFIX}{s}").into(),
        }
    };
    for mut n in init.node {
        n.name = prefixed(&n.name);
        n.input = n.input.iter().map(|i| prefixed(i)).collect();
        topo.node.push(n);
    }
    let Some(sig) = m.signature.as_mut() else {
        return Ok(());
    };
    let mut err = None;
    sig.inputs.retain(|(_, t)| {
        let Some(id) = t.resource_id else {
            return true;
        };
        let Some((_, src)) = outputs.iter().find(|(_, o)| o.resource_id == Some(id)) else {
            return true;
        };
        let node = t.name.split(':').next().unwrap_or_default();
        match topo
            .node
            .iter_mut()
            .find(|n| n.name == node && n.op == "Placeholder")
        {
            Some(n) => {
                n.op = "Identity".into();
                n.input = vec![prefixed(&src.name)];
                n.attr.clear();
            }
            None => {
                err = Some(invalid_argument(format!(
                    "resource input '{}' names no Placeholder",
                    t.name
                )))
            }
        }
        false
    });
    err.map_or(Ok(()), Err)
}
