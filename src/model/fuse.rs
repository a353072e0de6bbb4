//! Load-time rewrites TF's grappler remapper makes where the converter did not: a bias add of a
//! constant folded into the Conv2D, DepthwiseConv2dNative or MatMul before it, an activation
//! (or the swish `x * sigmoid(x)`) appended to a fused contraction that has only its bias (or batch
//! norm), and a zero `Pad` folded into a VALID convolution as explicit padding (no padded copy). A
//! rewritten node keeps the name and place of the last node it replaces, so its consumers and the
//! signature read it as before; what it absorbed drops out of the plan. Each producer absorbed has
//! no other consumer, is no output and has no control edges, so what the graph computes is
//! unchanged.

use super::{LoadPlan, Plan};
use crate::hash::FastBuild;
use crate::kernels::nn::activation::Activation;
use crate::model::weights::{decode_le, read_weight, WeightSource};
use crate::ops::{AttrValue, OpDef};
use crate::tensor::{DType, Tensor};
use std::collections::HashMap;

type Attrs = Vec<(&'static str, u32)>;
/// A fused contraction's op name, its one pre-activation step, `num_args` and inputs.
type Contraction = (&'static str, &'static str, i64, Vec<(usize, usize)>);

/// Rewrites `plan` in place; a pattern that does not fully check out is left as it is.
pub(super) fn run<W: WeightSource + ?Sized>(plan: &mut LoadPlan<'_>, weights: &W) {
    if plan.loops {
        return;
    }
    let n = plan.nodes.len();
    let mut position = vec![usize::MAX; n];
    let mut uses = vec![0u32; n];
    for (p, &i) in plan.order.iter().enumerate() {
        position[i] = p;
        for &(s, _) in plan.edges.data(i) {
            uses[s] += 1;
        }
        for &s in plan.edges.control(i) {
            uses[s] += 1;
        }
    }
    for &(i, _) in &plan.output_refs {
        uses[i] += 1;
    }
    let mut r = Rewriter {
        first_value: plan.attr_values.len(),
        plan,
        position,
        uses,
        rewired: HashMap::default(),
    };
    for p in 0..r.plan.order.len() {
        let i = r.plan.order[p];
        let Some((def, _)) = r.op(i) else { continue };
        match def.name {
            "Conv2D" | "DepthwiseConv2dNative" | "_FusedConv2D" | "FusedDepthwiseConv2dNative" => {
                r.fold_pad(i, weights)
            }
            "BiasAdd" | "Add" | "AddV2" => r.fold_bias(i, def.name == "BiasAdd"),
            "Mul" => r.fold_swish(i),
            a if a == "Prelu" || Activation::from_fused_name(a, 0.0).is_some() => {
                r.fold_activation(i, a)
            }
            _ => {}
        }
    }
    if r.rewired.is_empty() {
        return;
    }
    let plan = r.plan;
    plan.edges = plan.edges.with_data(&r.rewired);
    // Drop what no output needs any more (the absorbed nodes, constants only they read).
    let mut needed = vec![false; n];
    let mut stack: Vec<usize> = plan.output_refs.iter().map(|&(i, _)| i).collect();
    while let Some(i) = stack.pop() {
        if !std::mem::replace(&mut needed[i], true) {
            stack.extend(plan.edges.data(i).iter().map(|&(s, _)| s));
            stack.extend_from_slice(plan.edges.control(i));
        }
    }
    let plans = std::mem::take(&mut plan.plans);
    (plan.order, plan.plans) = plan
        .order
        .iter()
        .zip(plans)
        .filter(|(&i, _)| needed[i])
        .map(|(&i, p)| (i, p))
        .unzip();
}

struct Rewriter<'p, 'm> {
    plan: &'p mut LoadPlan<'m>,
    /// Node -> its position in `plan.order` (MAX: not needed).
    position: Vec<usize>,
    /// Consumers (data and control) plus signature outputs reading each node.
    uses: Vec<u32>,
    /// Nodes whose data inputs changed.
    rewired: HashMap<usize, Vec<(usize, usize)>, FastBuild>,
    /// Attr values from here on were added by this pass (reused when equal).
    first_value: usize,
}

impl Rewriter<'_, '_> {
    #[inline(never)] // load-time code: one copy, not one per caller
    fn inputs(&self, i: usize) -> &[(usize, usize)] {
        self.rewired
            .get(&i)
            .map_or(self.plan.edges.data(i), Vec::as_slice)
    }

    #[inline(never)] // load-time code: one copy, not one per caller
    fn op(&self, i: usize) -> Option<(&'static OpDef, &Attrs)> {
        match self.plan.plans.get(self.position[i])? {
            Plan::Op(def, attrs) => Some((def, attrs)),
            _ => None,
        }
    }

    #[inline(never)] // load-time code: one copy, not one per caller
    fn attr(&self, i: usize, name: &str) -> Option<&AttrValue> {
        let (_, attrs) = self.op(i)?;
        let &(_, at) = attrs.iter().find(|(k, _)| *k == name)?;
        self.plan.attr_values.get(at as usize)
    }

    fn is_str(&self, i: usize, name: &str, want: &str) -> bool {
        matches!(self.attr(i, name), Some(AttrValue::Str(s)) if s == want.as_bytes())
    }

    /// Float32, channels last (absent attrs take those defaults).
    fn plain_layout(&self, i: usize) -> bool {
        let nhwc = self.attr(i, "data_format").is_none() || self.is_str(i, "data_format", "NHWC");
        let f32 = matches!(
            self.attr(i, "T"),
            None | Some(AttrValue::Type(DType::Float32))
        );
        nhwc && f32
    }

    /// The op node behind input `k` of `i` if `i` is its only use (output 0, no control edges).
    fn sole_producer(&self, i: usize, k: usize) -> Option<usize> {
        let &(s, out) = self.inputs(i).get(k)?;
        let only = out == 0 && self.uses[s] == 1 && self.plan.edges.control(s).is_empty();
        (only && self.op(s).is_some()).then_some(s)
    }

    /// The dtype and dims of a constant node.
    fn constant(&self, i: usize) -> Option<(DType, &[usize])> {
        match self.plan.plans.get(self.position[i])? {
            Plan::Weight(w) => self.plan.weights.get(*w).map(|s| (s.dtype, s.shape.dims())),
            Plan::Constant(t) => Some((t.dtype(), t.dims())),
            _ => None,
        }
    }

    /// A float32 constant of at most `rank` dims, all 1 but the last: one value per channel.
    fn is_channel_bias(&self, (b, out): (usize, usize), rank: usize) -> bool {
        matches!(self.constant(b), Some((DType::Float32, d))
            if out == 0 && d.len() <= rank && d.iter().rev().skip(1).all(|&x| x == 1))
    }

    /// The values of an integer constant (small: read from the weights now).
    fn const_ints<W: WeightSource + ?Sized>(&self, i: usize, weights: &W) -> Option<Vec<i64>> {
        match self.plan.plans.get(self.position[i])? {
            Plan::Constant(t) => t.to_i64_vec().ok(),
            Plan::Weight(w) => {
                let s = self.plan.weights.get(*w)?;
                if s.quant.is_some() || s.len > 64 {
                    return None;
                }
                let mut scratch = Vec::new();
                let bytes = read_weight(weights, s.offset, s.len, &mut scratch).ok()?;
                let data = decode_le(s.dtype, bytes, s.shape.num_elements()).ok()?;
                Tensor::new(s.shape.clone(), data).ok()?.to_i64_vec().ok()
            }
            _ => None,
        }
    }

    /// `Conv(Pad(x, zeros on H and W only))` with VALID padding -> `Conv(x)`, EXPLICIT padding.
    fn fold_pad<W: WeightSource + ?Sized>(&mut self, i: usize, weights: &W) {
        let ins = self.inputs(i);
        let Some(&(pad, 0)) = ins.first() else { return };
        let valid = self.is_str(i, "padding", "VALID") && self.plain_layout(i);
        let is_pad = matches!(self.op(pad), Some((d, _)) if d.name == "Pad");
        if !valid || !is_pad || !self.plan.edges.control(pad).is_empty() {
            return;
        }
        let pin = self.inputs(pad);
        let (Some(&x), Some(&(pads, 0))) = (pin.first(), pin.get(1)) else {
            return;
        };
        let Some(v) = self.const_ints(pads, weights) else {
            return;
        };
        let spatial_only = v.len() == 8 && v[..2] == [0, 0] && v[6..] == [0, 0];
        // Paddings the conv would reject stay a Pad (whose own checks then apply).
        let max = crate::kernels::nn::window::MAX_EXPLICIT_PADDING;
        if !spatial_only || v.iter().any(|&p| !(0..=max).contains(&p)) {
            return;
        }
        let mut new_inputs = ins.to_vec();
        new_inputs[0] = x;
        let explicit = AttrValue::ListInt(vec![0, 0, v[2], v[3], v[4], v[5], 0, 0]);
        let (padding, explicit) = (
            self.value(AttrValue::Str(b"EXPLICIT".to_vec())),
            self.value(explicit),
        );
        let Some(Plan::Op(_, attrs)) = self.plan.plans.get_mut(self.position[i]) else {
            return;
        };
        attrs.retain(|(k, _)| *k != "padding" && *k != "explicit_paddings");
        attrs.extend([("padding", padding), ("explicit_paddings", explicit)]);
        self.uses[pad] -= 1;
        self.uses[x.0] += 1;
        self.rewired.insert(i, new_inputs);
    }

    /// `Add(Contraction(..), bias)` (either order; BiasAdd: bias second) -> the fused op.
    fn fold_bias(&mut self, i: usize, bias_add: bool) {
        if bias_add && !self.plain_layout(i) {
            return;
        }
        for (c, b) in [(0, 1), (1, 0)]
            .into_iter()
            .take(if bias_add { 1 } else { 2 })
        {
            let (Some(src), Some(&bias)) = (self.sole_producer(i, c), self.inputs(i).get(b)) else {
                continue;
            };
            let Some((def, _)) = self.op(src) else {
                continue;
            };
            let (fused, rank) = match def.name {
                "Conv2D" => ("_FusedConv2D", 4),
                "DepthwiseConv2dNative" => ("FusedDepthwiseConv2dNative", 4),
                "MatMul" => ("_FusedMatMul", 2),
                _ => continue,
            };
            if self.is_channel_bias(bias, rank) && self.plain_layout(src) {
                let mut inputs = self.inputs(src).to_vec();
                inputs.push(bias);
                self.replace(i, src, fused, &["BiasAdd"], 1, None, inputs);
                return;
            }
        }
    }

    /// `Activation(Fused(.., [BiasAdd or FusedBatchNorm]))` -> `Fused(.., [.., Activation])`.
    fn fold_activation(&mut self, i: usize, act: &'static str) {
        let Some(src) = self.sole_producer(i, 0) else {
            return;
        };
        let Some((fused, pre, num_args, mut inputs)) = self.bias_only_contraction(src) else {
            return;
        };
        let prelu = act == "Prelu";
        if prelu {
            match self.inputs(i).get(1) {
                Some(&alpha) => inputs.push(alpha),
                None => return,
            }
        }
        let alpha = match self.attr(i, "alpha") {
            Some(&AttrValue::Float(a)) if act == "LeakyRelu" => Some(a),
            _ if act == "LeakyRelu" => Some(0.2),
            _ => None,
        };
        let num_args = num_args + i64::from(prelu);
        self.replace(i, src, fused, &[pre, act], num_args, alpha, inputs);
    }

    /// `Mul(x, Sigmoid(x))` (either order), x a fused contraction read by these two only ->
    /// the contraction with a `_MklSwish` activation, as TF's oneDNN remapper fuses it.
    fn fold_swish(&mut self, i: usize) {
        let &[a, b] = self.inputs(i) else { return };
        let Some(x) = self.swish_of(a, b).or_else(|| self.swish_of(b, a)) else {
            return;
        };
        if !self.plain_layout(i) {
            return;
        }
        if let Some((fused, pre, num_args, inputs)) = self.bias_only_contraction(x) {
            self.replace(i, x, fused, &[pre, "_MklSwish"], num_args, None, inputs);
        }
    }

    /// `x`'s node when `sig` is `Sigmoid(x)` read only here, and x is read by it and one other.
    #[inline(never)]
    fn swish_of(&self, x: (usize, usize), sig: (usize, usize)) -> Option<usize> {
        let is_sigmoid = matches!(self.op(sig.0), Some((d, _)) if d.name == "Sigmoid");
        let only = |n: usize, k| self.uses[n] == k && self.plan.edges.control(n).is_empty();
        let swish = is_sigmoid && (sig.1, x.1) == (0, 0) && only(sig.0, 1) && only(x.0, 2);
        (swish && self.inputs(sig.0) == [x]).then_some(x.0)
    }

    /// A fused contraction with only its bias (or batch norm) applied: its op, that step, its
    /// `num_args` and inputs.
    fn bias_only_contraction(&self, src: usize) -> Option<Contraction> {
        let (def, _) = self.op(src)?;
        let fused = matches!(
            def.name,
            "_FusedConv2D" | "_FusedMatMul" | "FusedDepthwiseConv2dNative"
        );
        let pre = match self.attr(src, "fused_ops") {
            Some(AttrValue::ListStr(ops)) if ops.len() == 1 => match ops[0].as_slice() {
                b"BiasAdd" => "BiasAdd",
                b"FusedBatchNorm" => "FusedBatchNorm",
                _ => return None,
            },
            _ => return None,
        };
        let Some(&AttrValue::Int(num_args)) = self.attr(src, "num_args") else {
            return None;
        };
        let inputs = self.inputs(src).to_vec();
        (fused && inputs.len() as i64 == 2 + num_args).then_some((def.name, pre, num_args, inputs))
    }

    /// Node `i` becomes op `fused` with `src`'s attrs, the given fusion attrs and `inputs`.
    #[allow(clippy::too_many_arguments)]
    fn replace(
        &mut self,
        i: usize,
        src: usize,
        fused: &str,
        ops: &[&str],
        num_args: i64,
        leaky_alpha: Option<f32>,
        inputs: Vec<(usize, usize)>,
    ) {
        let (Ok(def), Some((_, src_attrs))) = (crate::registry::lookup(fused), self.op(src)) else {
            return;
        };
        let replaced = ["fused_ops", "num_args", "leakyrelu_alpha"];
        let mut attrs: Attrs = src_attrs
            .iter()
            .filter(|(k, _)| !replaced.contains(k) && def.attrs.iter().any(|s| s.name == *k))
            .copied()
            .collect();
        let list = ops.iter().map(|o| o.as_bytes().to_vec()).collect();
        attrs.push(("fused_ops", self.value(AttrValue::ListStr(list))));
        attrs.push(("num_args", self.value(AttrValue::Int(num_args))));
        if let Some(a) = leaky_alpha {
            attrs.push(("leakyrelu_alpha", self.value(AttrValue::Float(a))));
        }
        self.plan.plans[self.position[i]] = Plan::Op(def, attrs);
        self.rewired.insert(i, inputs);
    }

    /// Position of `v` in the attr values (one added by this pass and equal to it, or new).
    fn value(&mut self, v: AttrValue) -> u32 {
        let values = &mut self.plan.attr_values;
        let same = |a: &AttrValue| match (a, &v) {
            (AttrValue::Str(a), AttrValue::Str(b)) => a == b,
            (AttrValue::Int(a), AttrValue::Int(b)) => a == b,
            (AttrValue::Float(a), AttrValue::Float(b)) => a.to_bits() == b.to_bits(),
            (AttrValue::ListInt(a), AttrValue::ListInt(b)) => a == b,
            (AttrValue::ListStr(a), AttrValue::ListStr(b)) => a == b,
            _ => false,
        };
        match values[self.first_value..].iter().position(same) {
            Some(k) => (self.first_value + k) as u32,
            None => {
                values.push(v);
                (values.len() - 1) as u32
            }
        }
    }
}
