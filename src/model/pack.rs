//! Weights packed once: each weight a convolution or matrix product takes as its B operand is
//! marked at load, and the first product that would pack it into GEMM panels (one with at least a
//! micro-tile of rows) packs it once and attaches the panels to the weight's buffer, as TF.js's
//! wasm backend creates an XNNPACK operator (packed filter included) on a filter's first use and
//! keys it to the filter tensor. The panels live and die with that buffer: a model's dispose or a
//! variable's destroy frees them, an assign leaves them behind with the old value (the new value
//! runs unpacked). Kernels check that panels fit the product before using them, so nothing here
//! can change a result. Packing on first use instead of at load: a load stays as fast as before
//! (MobileNetV2 at 224: packing at load added 10 ms to a 20 ms load), and a weight only products
//! of fewer rows read (a classifier head at batch 1) costs no second copy.

use super::{LoadedGraph, NodeKind};
use crate::eager::EagerContext;
use crate::tensor::{DType, Tensor};

/// Marks the B operand of every node that has one; returns how many weights it marked.
pub(crate) fn mark_weights(ctx: &EagerContext, g: &LoadedGraph) -> usize {
    let mut marked = 0;
    for node in &g.nodes {
        let NodeKind::Op { def, .. } = &node.kind else {
            continue;
        };
        if !matches!(
            def.name,
            "Conv2D" | "_FusedConv2D" | "Conv2DBackpropInput" | "MatMul" | "_FusedMatMul"
        ) {
            continue;
        }
        let Some(&(src, 0)) = g.inputs[node.inputs.clone()].get(1) else {
            continue;
        };
        if let Some(w) = weight(ctx, &g.nodes[src].kind) {
            w.mark_packable();
            marked += 1;
        }
    }
    marked
}

/// The float value of a weight node (a restored variable or an inline constant).
fn weight(ctx: &EagerContext, kind: &NodeKind) -> Option<Tensor> {
    let t = match kind {
        NodeKind::Variable { handle, .. } => {
            let h = handle.resource_handle().ok()?;
            ctx.resources().variable(h).ok()?.value.clone()?
        }
        NodeKind::Constant(t) => t.clone(),
        _ => return None,
    };
    (t.dtype() == DType::Float32).then_some(t)
}
