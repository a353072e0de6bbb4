//! Weights packed once, at load: each weight a convolution or matrix product takes as its B
//! operand gets the GEMM panels its kernel would otherwise pack on every call, attached to the
//! weight's buffer (as TF.js's wasm backend keys its XNNPACK operators, packed filter included, to
//! the weight tensor). The panels live and die with that buffer: a model's dispose or a variable's
//! destroy frees them, an assign leaves them behind with the old value. Kernels check that the
//! panels fit the product before using them, so nothing here can change a result.

use super::{LoadedGraph, NodeKind};
use crate::eager::EagerContext;
use crate::kernels::nn::gemm::pack_weight;
use crate::ops::AttrValue;
use crate::tensor::{DType, Tensor};

/// Packs the B operand of every node that has one; returns how many weights it packed. A weight
/// that cannot be packed (out of memory, say) is left as it is: kernels run it unpacked.
pub(crate) fn pack_weights(ctx: &EagerContext, g: &LoadedGraph) -> usize {
    let mut packed = 0;
    for node in &g.nodes {
        let NodeKind::Op { def, attrs, .. } = &node.kind else {
            continue;
        };
        let Some(&(src, 0)) = g.inputs[node.inputs.clone()].get(1) else {
            continue;
        };
        let Some(w) = weight(ctx, &g.nodes[src].kind) else {
            continue;
        };
        let d = w.dims();
        let flag = |name: &str| {
            attrs.iter().any(|&(k, v)| {
                k == name && matches!(g.attr_values.get(v as usize), Some(AttrValue::Bool(true)))
            })
        };
        // The B operand op(w) each kernel forms: rows (depth) x cols, and whether w is stored
        // transposed.
        let taps = |kh: usize, kw: usize, ci: usize| kh.checked_mul(kw)?.checked_mul(ci);
        let view = match (def.name, d) {
            ("Conv2D" | "_FusedConv2D", &[kh, kw, ci, co]) => match taps(kh, kw, ci) {
                Some(k) => (k, co, false),
                None => continue,
            },
            ("Conv2DBackpropInput", &[kh, kw, ci, co]) => match taps(kh, kw, ci) {
                Some(k) => (co, k, true),
                None => continue,
            },
            ("MatMul" | "_FusedMatMul", &[r, c]) if flag("transpose_b") => (c, r, true),
            ("MatMul" | "_FusedMatMul", &[r, c]) => (r, c, false),
            _ => continue,
        };
        if matches!(pack_weight(&w, view.0, view.1, view.2), Ok(true)) {
            packed += 1;
        }
    }
    packed
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
