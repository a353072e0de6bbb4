//! model.json + weights to a `GraphModel`: validate everything that can be checked before any
//! allocation, then restore weights as resource variables inside the model's own scope.

use super::flow::{Flow, FlowOp};
use super::format::{ManifestGroup, ModelJson, NodeDef, SignatureTensor};
use super::functions::{self, Expanded};
use super::graph::{execution_order, index_nodes, parse_input, resolve_edges, Edges};
use super::weights::{decode_weight, dequantize, read_weight, stored_size, WeightSource};
use super::{GraphModel, KeyMemo, LoadedGraph, Node, NodeKind, TensorInfo};
use crate::eager::cache_key::CPU_DEVICE;
use crate::eager::{CacheKey, EagerContext};
use crate::hash::FastBuild;
use crate::ops::{self, AttrType, AttrValue};
use crate::resource::ScopeId;
use crate::status::{invalid_argument, unimplemented, Result, Status};
use crate::tensor::{DType, Shape, Tensor};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;

#[path = "fuse.rs"]
mod fuse;

pub fn parse(model_json: &str) -> Result<ModelJson<'_>> {
    let m: ModelJson = serde_json::from_str(model_json)
        .map_err(|e| invalid_argument(format!("model.json is not a valid TF.js model: {e}")))?;
    if let Some(f) = &m.format {
        if f != "graph-model" {
            return Err(invalid_argument(format!(
                "model.json has format '{f}'; only 'graph-model' (tensorflowjs_converter \
                 --output_format=tfjs_graph_model) is supported"
            )));
        }
    }
    if m.model_topology.is_none() {
        return Err(invalid_argument("model.json has no 'modelTopology'"));
    }
    if m.weights_manifest.is_none() {
        return Err(invalid_argument("model.json has no 'weightsManifest'"));
    }
    Ok(m)
}

/// One manifest weight, validated, with where its bytes are.
pub(super) struct WeightSlot<'a> {
    pub name: &'a str,
    dtype: DType,
    pub shape: Shape,
    offset: usize,
    len: usize,
    quant: Option<&'a super::format::Quantization>,
    /// Read by a Const node of dtype int64 although the manifest stores int32 (the TF.js converter
    /// writes int64 weights as int32): restored widened to int64.
    int64: bool,
}

/// Validates the manifest against the bytes available (shared with layers models).
pub(super) fn plan_weights<'g, W: WeightSource + ?Sized>(
    groups: &'g [ManifestGroup<'_>],
    weights: &W,
) -> Result<Vec<WeightSlot<'g>>> {
    let available = weights.byte_len();
    let mut slots = Vec::new();
    let mut offset = 0usize;
    for w in groups.iter().flat_map(|g| &g.weights) {
        let dtype =
            DType::parse(&w.dtype).map_err(|e| e.context(format!("weight '{}'", w.name)))?;
        if dtype == DType::Resource {
            return Err(invalid_argument(format!(
                "weight '{}' has dtype resource",
                w.name
            )));
        }
        let shape =
            Shape::from_i64(&w.shape).map_err(|e| e.context(format!("weight '{}'", w.name)))?;
        let quant = w.quantization.as_ref();
        let elem = stored_size(dtype, quant.map(|q| q.dtype.as_str()))
            .map_err(|e| e.context(format!("weight '{}'", w.name)))?;
        let len = if dtype == DType::String {
            string_weight_len(weights, offset, shape.num_elements())
                .map_err(|e| e.context(format!("weight '{}'", w.name)))?
        } else {
            shape.num_elements().checked_mul(elem)
        };
        let len = len
            .filter(|&l| l <= crate::tensor::MAX_TENSOR_BYTES)
            .ok_or_else(|| {
                crate::status::resource_exhausted(format!(
                    "weight '{}' of shape {:?} is too large to allocate",
                    w.name, w.shape
                ))
            })?;
        slots.push(WeightSlot {
            name: &w.name,
            dtype,
            shape,
            offset,
            len,
            quant,
            int64: false,
        });
        offset = offset.checked_add(len).ok_or_else(|| {
            crate::status::resource_exhausted("weights manifest describes too many bytes")
        })?;
    }
    if offset != available {
        return Err(invalid_argument(format!(
            "weight data is {available} bytes but the manifest describes {offset} bytes \
             (a shard is missing, short or too long)"
        )));
    }
    Ok(slots)
}

/// The bytes of a string weight of `n` elements at `offset` (each a 4-byte little-endian length
/// and its bytes, as TF.js writes them), read from the lengths; None past the data.
fn string_weight_len<W: WeightSource + ?Sized>(
    weights: &W,
    offset: usize,
    n: usize,
) -> Result<Option<usize>> {
    let available = weights.byte_len();
    let mut pos = offset;
    for _ in 0..n {
        let Some(end) = pos.checked_add(4).filter(|&e| e <= available) else {
            return Err(invalid_argument("string weight data ends early"));
        };
        let mut len = [0u8; 4];
        weights.read_into(pos, &mut len)?;
        pos = end;
        pos = match pos.checked_add(u32::from_le_bytes(len) as usize) {
            Some(p) if p <= available => p,
            _ => return Err(invalid_argument("string weight data ends early")),
        };
    }
    Ok(Some(pos - offset))
}

fn tensor_info(name: &str, t: &SignatureTensor<'_>) -> Result<TensorInfo> {
    let dtype = match &t.dtype {
        Some(d) => super::attr_json::model_dtype(d)?.0,
        None => DType::Float32,
    };
    let shape = match t.tensor_shape {
        Some(s) => super::attr_json::shape_from_text(s.get())?,
        None => None,
    };
    Ok(TensorInfo {
        name: name.to_string(),
        tensor_name: t.name.clone(),
        dtype,
        shape,
    })
}

/// Placeholders as inputs, and nodes nobody consumes as outputs: TF.js's rule without a signature.
fn default_signature(nodes: &[NodeDef<'_>]) -> Result<(Vec<TensorInfo>, Vec<TensorInfo>)> {
    let mut consumed = std::collections::HashSet::with_hasher(FastBuild);
    for n in nodes {
        for i in &n.input {
            consumed.insert(parse_input(i)?.node);
        }
    }
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for n in nodes {
        if n.op == "Placeholder" {
            let dtype = n
                .attr_value("dtype")
                .transpose()?
                .and_then(|v| match v {
                    AttrValue::Type(t) => Some(t),
                    _ => None,
                })
                .unwrap_or(DType::Float32);
            let shape = match n.attr_value("shape").transpose()? {
                Some(AttrValue::Shape(s)) => s,
                _ => None,
            };
            inputs.push(TensorInfo {
                name: n.name.to_string(),
                tensor_name: format!("{}:0", n.name),
                dtype,
                shape,
            });
        } else if !consumed.contains(&*n.name) && n.op != "NoOp" {
            outputs.push(TensorInfo {
                name: n.name.to_string(),
                tensor_name: format!("{}:0", n.name),
                dtype: DType::Float32,
                shape: None,
            });
        }
    }
    Ok((inputs, outputs))
}

/// The attr values of a model's op nodes, each distinct (JSON text, declared kind) parsed and
/// type-checked once: models repeat the same few texts (`{"type":"DT_FLOAT"}`, the same strides,
/// ...) node after node. Nodes refer to values by position.
#[derive(Default)]
struct AttrPool<'t> {
    values: Vec<AttrValue>,
    index: HashMap<(&'t str, AttrType), u32, FastBuild>,
}

/// Op attrs the executor passes: those the op declares (others, like `_output_shapes` or device
/// placement hints, cannot change what our kernel computes), parsed and type-checked now.
fn node_attrs<'t>(
    n: &NodeDef<'t>,
    def: &'static ops::OpDef,
    pool: &mut AttrPool<'t>,
) -> Result<Vec<(&'static str, u32)>> {
    let mut out = Vec::new();
    for spec in &def.attrs {
        // A TensorArray's name is per-graph state that names nothing shared here; left to its
        // default so every array has the same cache key (as anonymous variable names do).
        if spec.name == "tensor_array_name" {
            continue;
        }
        let Some(raw) = n.attr_raw(spec.name) else {
            continue;
        };
        let key = (raw.get(), spec.ty);
        let at = match pool.index.get(&key) {
            Some(&at) => at,
            None => {
                let value = super::attr_json::from_text(raw.get())
                    .and_then(|v| {
                        v.coerce(spec.ty).map_err(|v| {
                            invalid_argument(format!(
                                "attr '{}' must be {}, got {}",
                                spec.name,
                                spec.ty.name(),
                                v.attr_type().name()
                            ))
                        })
                    })
                    .map_err(|e| e.context(format!("node '{}' ({})", n.name, n.op)))?;
                let at = pool.values.len() as u32;
                pool.values.push(value);
                pool.index.insert(key, at);
                at
            }
        };
        out.push((spec.name, at));
    }
    Ok(out)
}

pub fn load<W: WeightSource + ?Sized>(
    ctx: &mut EagerContext,
    model_json: &str,
    weights: &W,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<GraphModel> {
    let mut m = parse(model_json)?;
    super::initializer::merge(&mut m)?;
    let topo = m.model_topology.as_ref().expect("checked in parse");
    let expanded = functions::expand(&topo.node, topo.library.as_ref())?;
    let mut plan = plan(&m, expanded.as_ref(), weights)?;
    fuse::run(&mut plan, weights);
    let layout = assign_slots(&plan);
    let model = build_nodes(ctx, plan, layout, weights, progress)?;
    if let (true, Some(g)) = (ctx.packs_weights(), &model.loaded) {
        super::pack::mark_weights(ctx, g);
    }
    Ok(model)
}

/// What one needed node becomes.
enum Plan {
    Feed(usize),
    /// A PlaceholderWithDefault input: the feed when given, else the op on its default input.
    FeedOr(usize, &'static ops::OpDef, Vec<(&'static str, u32)>),
    Weight(usize),
    Constant(Tensor),
    Op(&'static ops::OpDef, Vec<(&'static str, u32)>),
    Flow(FlowOp),
}

/// Everything a load decides before touching the context, so a bad model allocates nothing there.
struct LoadPlan<'m> {
    nodes: &'m [NodeDef<'m>],
    edges: Edges,
    inputs: Vec<TensorInfo>,
    /// Per input: a PlaceholderWithDefault, which may be left unfed.
    optional: Vec<bool>,
    outputs: Vec<TensorInfo>,
    /// Signature outputs as (node, output index).
    output_refs: Vec<(usize, usize)>,
    /// Needed nodes in run order, and what each becomes.
    order: Vec<usize>,
    plans: Vec<Plan>,
    weights: Vec<WeightSlot<'m>>,
    attr_values: Vec<AttrValue>,
    /// The graph has control-flow nodes: it runs on the dynamic schedule.
    loops: bool,
    /// Frame names of its Enter nodes.
    frames: Vec<String>,
}

/// Phase 1: signature, needed nodes in run order, and each one classified.
/// `expanded`: the graph with its function calls lowered (control flow v2), if it has any.
fn plan<'m, W: WeightSource + ?Sized>(
    m: &'m ModelJson<'m>,
    expanded: Option<&'m Expanded<'m>>,
    weight_source: &W,
) -> Result<LoadPlan<'m>> {
    let topo = m.model_topology.as_ref().expect("checked in parse");
    let groups = m.weights_manifest.as_deref().unwrap_or_default();
    let nodes: &'m [NodeDef<'m>] = match expanded {
        Some(e) => &e.nodes,
        None => &topo.node,
    };
    let index = index_nodes(nodes)?;
    let edges = resolve_edges(nodes, &index)?;

    let (inputs, outputs) = match &m.signature {
        // A signature listing outputs only takes the graph's Placeholders as inputs (TF.js).
        Some(sig) if sig.inputs.is_empty() && !sig.outputs.is_empty() => (
            default_signature(nodes)?.0,
            sig.outputs
                .iter()
                .map(|(k, t)| tensor_info(k, t))
                .collect::<Result<Vec<_>>>()?,
        ),
        Some(sig) if !sig.inputs.is_empty() || !sig.outputs.is_empty() => (
            sig.inputs
                .iter()
                .map(|(k, t)| tensor_info(k, t))
                .collect::<Result<Vec<_>>>()?,
            sig.outputs
                .iter()
                .map(|(k, t)| tensor_info(k, t))
                .collect::<Result<Vec<_>>>()?,
        ),
        _ => default_signature(nodes)?,
    };
    if outputs.is_empty() {
        return Err(invalid_argument("model has no outputs"));
    }
    let locate = |info: &TensorInfo| -> Result<(usize, usize)> {
        let r = parse_input(&info.tensor_name)?;
        let &i = index.get(r.node).ok_or_else(|| {
            invalid_argument(format!(
                "signature tensor '{}' names no node in the graph",
                info.tensor_name
            ))
        })?;
        Ok((i, r.output))
    };
    let output_refs = outputs.iter().map(locate).collect::<Result<Vec<_>>>()?;
    // A PlaceholderWithDefault input may be left unfed (its default input runs instead); optional
    // inputs go last, so a lone tensor feeds the first required one.
    let is_optional = |info: &TensorInfo| {
        locate(info).is_ok_and(|(i, _)| nodes[i].op == "PlaceholderWithDefault")
    };
    let (mut inputs, optional_inputs): (Vec<_>, Vec<_>) =
        inputs.into_iter().partition(|info| !is_optional(info));
    inputs.extend(optional_inputs);
    let optional: Vec<bool> = inputs.iter().map(is_optional).collect();
    let mut feed_of: HashMap<usize, usize, FastBuild> = HashMap::default();
    for (k, info) in inputs.iter().enumerate() {
        let (i, _) = locate(info)?;
        feed_of.insert(i, k);
    }
    let targets: Vec<usize> = output_refs.iter().map(|&(i, _)| i).collect();
    let loops = nodes.iter().any(|n| FlowOp::parse(&n.op).is_some());
    let order = execution_order(nodes, &edges, &targets, loops)?;
    unsupported_ops(nodes, &order, &feed_of)?;

    let mut weights = plan_weights(groups, weight_source)?;
    let weight_of: HashMap<&str, usize, FastBuild> = weights
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name, i))
        .collect();
    let mut plans = Vec::with_capacity(order.len());
    let mut attr_pool = AttrPool::default();
    let mut frames = Frames::default();
    for &i in &order {
        let n = &nodes[i];
        let plan = if let Some(&k) = feed_of.get(&i) {
            if optional[k] {
                let def = crate::registry::lookup(&n.op)?;
                Plan::FeedOr(k, def, node_attrs(n, def, &mut attr_pool)?)
            } else {
                Plan::Feed(k)
            }
        } else if let Some(op) = FlowOp::parse(&n.op) {
            let lowered = expanded.and_then(|e| e.frames.get(&*n.name));
            Plan::Flow(flow_node(n, op, lowered, &mut frames)?)
        } else {
            let weight_name = expanded
                .and_then(|e| e.weight_names.get(&*n.name))
                .map_or(super::initializer::weight_name(&n.name), String::as_str);
            let plan = plan_node(n, weight_name, &weight_of, &mut attr_pool)?;
            if let (Plan::Weight(w), Some(Ok(AttrValue::Type(DType::Int64)))) =
                (&plan, n.attr_value("dtype"))
            {
                if let Some(slot) = weights.get_mut(*w).filter(|s| s.dtype == DType::Int32) {
                    slot.int64 = true;
                }
            }
            plan
        };
        plans.push(plan);
    }
    check_arity(
        nodes,
        &edges,
        &order,
        &plans,
        &attr_pool,
        &outputs,
        &output_refs,
    )?;
    Ok(LoadPlan {
        nodes,
        edges,
        inputs,
        optional,
        outputs,
        output_refs,
        order,
        plans,
        weights,
        attr_values: attr_pool.values,
        loops,
        frames: frames.names,
    })
}

/// Frame names of Enter nodes, each once, with a map for lookup (a model may have many frames).
#[derive(Default)]
struct Frames {
    names: Vec<String>,
    index: HashMap<String, u32, FastBuild>,
}

/// Every op the needed nodes use that no kernel implements, named at once (with a node using it),
/// so that a user learns the whole gap from one load, not one op per attempt.
fn unsupported_ops(
    nodes: &[NodeDef<'_>],
    order: &[usize],
    feed_of: &HashMap<usize, usize, FastBuild>,
) -> Result<()> {
    let mut missing: Vec<(&str, &str)> = Vec::new();
    let mut seen = std::collections::HashSet::with_hasher(FastBuild);
    for &i in order {
        let n = &nodes[i];
        let builtin = matches!(&*n.op, "Const" | "Placeholder") || FlowOp::parse(&n.op).is_some();
        if builtin || feed_of.contains_key(&i) || crate::registry::lookup(&n.op).is_ok() {
            continue;
        }
        if seen.insert(&*n.op) {
            missing.push((&n.op, &n.name));
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    // A hostile model can use any number of made-up ops: name the first few.
    const LISTED: usize = 20;
    let mut list: Vec<String> = missing
        .iter()
        .take(LISTED)
        .map(|(op, node)| format!("'{op}' (node '{node}')"))
        .collect();
    if missing.len() > LISTED {
        list.push(format!("and {} more", missing.len() - LISTED));
    }
    Err(unimplemented(format!(
        "model uses {} op{} eager-wasm does not support: {}",
        missing.len(),
        if missing.len() == 1 { "" } else { "s" },
        list.join(", ")
    )))
}

/// A data input (or signature output) naming an output its producer does not have fails at load,
/// not at the first run.
fn check_arity(
    nodes: &[NodeDef<'_>],
    edges: &Edges,
    order: &[usize],
    plans: &[Plan],
    attr_pool: &AttrPool<'_>,
    outputs: &[TensorInfo],
    output_refs: &[(usize, usize)],
) -> Result<()> {
    let mut position = vec![usize::MAX; nodes.len()];
    for (p, &i) in order.iter().enumerate() {
        position[i] = p;
    }
    // Control-flow nodes (Switch has two outputs) and feeds are not op-defined: no check.
    let count_of = |i: usize| match plans.get(position[i]) {
        Some(Plan::Op(def, attrs)) => Some(super::arity::output_count(
            def.name,
            edges.data(i).len(),
            |n| {
                attrs
                    .iter()
                    .find(|(k, _)| *k == n)
                    .map(|&(_, at)| &attr_pool.values[at as usize])
            },
        )),
        Some(Plan::Flow(_)) => None,
        _ => Some(1),
    };
    let fail = |what: String, s: usize, o: usize, have: usize| {
        invalid_argument(format!(
            "{what} reads output {o} of node '{}' ({}), which has {have} output{}",
            nodes[s].name,
            nodes[s].op,
            if have == 1 { "" } else { "s" }
        ))
    };
    for &i in order {
        for &(s, o) in edges.data(i) {
            if let Some(have) = count_of(s).filter(|&have| o >= have) {
                return Err(fail(format!("node '{}'", nodes[i].name), s, o, have));
            }
        }
    }
    for (info, &(s, o)) in outputs.iter().zip(output_refs) {
        if let Some(have) = count_of(s).filter(|&have| o >= have) {
            return Err(fail(
                format!("signature output '{}'", info.name),
                s,
                o,
                have,
            ));
        }
    }
    Ok(())
}

/// A control-flow node: for an Enter, its frame (named in `frames`) and whether it is a loop
/// invariant. `lowered`: the frame of an Enter made by lowering a While (which has no attrs).
fn flow_node(
    n: &NodeDef<'_>,
    op: FlowOp,
    lowered: Option<&String>,
    frames: &mut Frames,
) -> Result<FlowOp> {
    let FlowOp::Enter { .. } = op else {
        return Ok(op);
    };
    let ctx = |e: Status| e.context(format!("node '{}' ({})", n.name, n.op));
    let name = match n.attr_value("frame_name").transpose().map_err(ctx)? {
        Some(AttrValue::Str(s)) => String::from_utf8_lossy(&s).into_owned(),
        Some(other) => {
            return Err(invalid_argument(format!(
                "Enter node '{}': frame_name must be a string, got {}",
                n.name,
                other.attr_type().name()
            )))
        }
        None => match lowered {
            Some(l) => l.clone(),
            None => {
                return Err(invalid_argument(format!(
                    "Enter node '{}' has no frame_name",
                    n.name
                )))
            }
        },
    };
    let constant = matches!(
        n.attr_value("is_constant").transpose().map_err(ctx)?,
        Some(AttrValue::Bool(true))
    );
    let frame = match frames.index.get(&name) {
        Some(&i) => i,
        None => {
            let i = u32::try_from(frames.names.len())
                .map_err(|_| invalid_argument("model has too many loop frames"))?;
            frames.names.push(name.clone());
            frames.index.insert(name, i);
            i
        }
    };
    Ok(FlowOp::Enter { frame, constant })
}

/// A node that is not fed: a weight (named `weight_name` in the manifest), an inline constant, or
/// an op with its attrs.
fn plan_node<'t>(
    n: &NodeDef<'t>,
    weight_name: &str,
    weight_of: &HashMap<&str, usize, FastBuild>,
    attr_pool: &mut AttrPool<'t>,
) -> Result<Plan> {
    if n.op == "Const" {
        // The inline value is parsed only when the weights don't provide one.
        return match weight_of
            .get(weight_name)
            .ok_or_else(|| n.attr_value("value"))
        {
            Ok(&w) => Ok(Plan::Weight(w)),
            Err(Some(value)) => match value.map_err(|e| e.context(format!("node '{}'", n.name)))? {
                AttrValue::Tensor(t) => Ok(Plan::Constant(t)),
                _ => Err(invalid_argument(format!(
                    "Const node '{}' has a non-tensor value",
                    n.name
                ))),
            },
            Err(None) => Err(invalid_argument(format!(
                "Const node '{}' has no weight in the manifest and no value",
                n.name
            ))),
        };
    }
    if n.op == "Placeholder" {
        return Err(invalid_argument(format!(
            "Placeholder '{}' is needed by an output but is not a signature input",
            n.name
        )));
    }
    let def = crate::registry::lookup(&n.op).map_err(|_| {
        unimplemented(format!(
            "model uses op '{}' (node '{}'), which eager-wasm does not support",
            n.op, n.name
        ))
    })?;
    Ok(Plan::Op(def, node_attrs(n, def, attr_pool)?))
}

/// Where each needed node's inputs and outputs live at run time.
struct SlotLayout {
    /// Data inputs of every node as (position, output), flat, and each node's range of them.
    inputs: Vec<(usize, usize)>,
    input_ranges: Vec<Range<usize>>,
    /// Each position's value slots: its outputs up to the highest one referenced.
    slot_ranges: Vec<Range<usize>>,
    /// Uses of each slot (consumers among needed nodes, plus model outputs).
    uses: Vec<u32>,
    /// Signature outputs as (position, output).
    outputs: Vec<(usize, usize)>,
    flow: Option<Box<Flow>>,
}

/// Phase 2: node positions, flat input lists, value slots and their use counts.
fn assign_slots(plan: &LoadPlan<'_>) -> SlotLayout {
    let order = &plan.order;
    let mut position = vec![usize::MAX; plan.nodes.len()];
    for (p, &i) in order.iter().enumerate() {
        position[i] = p;
    }
    let mut inputs: Vec<(usize, usize)> = Vec::new();
    let mut input_ranges = Vec::with_capacity(order.len());
    for &i in order {
        let start = inputs.len();
        inputs.extend(plan.edges.data(i).iter().map(|&(s, o)| (position[s], o)));
        input_ranges.push(start..inputs.len());
    }
    let outputs: Vec<(usize, usize)> = plan
        .output_refs
        .iter()
        .map(|&(i, o)| (position[i], o))
        .collect();
    let mut slot_ranges = vec![0..0; order.len()];
    for &(p, o) in inputs.iter().chain(&outputs) {
        let r = &mut slot_ranges[p];
        r.end = r.end.max(o + 1);
    }
    let mut slots_total = 0;
    for r in slot_ranges.iter_mut() {
        let n = r.end;
        *r = slots_total..slots_total + n;
        slots_total += n;
    }
    let mut uses = vec![0u32; slots_total];
    for &(p, o) in inputs.iter().chain(&outputs) {
        uses[slot_ranges[p].start + o] += 1;
    }
    let flow = plan.loops.then(|| {
        let control: Vec<Vec<usize>> = order
            .iter()
            .map(|&i| plan.edges.control(i).iter().map(|&s| position[s]).collect())
            .collect();
        let ops: Vec<Option<FlowOp>> = plan
            .plans
            .iter()
            .map(|p| match p {
                Plan::Flow(op) => Some(*op),
                _ => None,
            })
            .collect();
        Box::new(Flow::new(
            &inputs,
            &input_ranges,
            &control,
            &ops,
            plan.frames.clone(),
        ))
    });
    SlotLayout {
        flow,
        inputs,
        input_ranges,
        slot_ranges,
        uses,
        outputs,
    }
}

/// Phase 3: weights restored as variables in a new scope (destroyed on any failure), then the
/// nodes built.
fn build_nodes<W: WeightSource + ?Sized>(
    ctx: &mut EagerContext,
    plan: LoadPlan<'_>,
    layout: SlotLayout,
    weights: &W,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<GraphModel> {
    let LoadPlan {
        nodes,
        inputs,
        optional,
        outputs,
        order,
        plans,
        weights: weight_slots,
        attr_values,
        ..
    } = plan;
    let read_variable = crate::registry::lookup("ReadVariableOp")?;
    let (scope, handles) = restore_in_new_scope(ctx, weight_slots, weights, progress)?;
    let weight_bytes = handles.iter().map(|(_, _, b)| b).sum();

    let mut names = String::with_capacity(order.iter().map(|&i| nodes[i].name.len()).sum());
    let mut graph_nodes = Vec::with_capacity(order.len());
    let mut read_keys = Vec::new();
    for (((&i, plan), inputs), slots) in order
        .iter()
        .zip(plans)
        .zip(layout.input_ranges)
        .zip(layout.slot_ranges)
    {
        let kind = match plan {
            Plan::Feed(k) => NodeKind::Feed(k),
            Plan::FeedOr(feed, def, attrs) => NodeKind::FeedOr {
                feed,
                def,
                attrs,
                resolved: RefCell::new(KeyMemo::NeverRun),
            },
            Plan::Constant(t) => NodeKind::Constant(t),
            Plan::Flow(op) => NodeKind::Flow(op),
            Plan::Op(def, attrs) => NodeKind::Op {
                def,
                attrs,
                resolved: RefCell::new(KeyMemo::NeverRun),
            },
            // A function inlined twice reads its weights from both copies.
            Plan::Weight(w) => match handles.get(w).cloned() {
                Some((handle, dtype, _)) => {
                    let read = match read_key(&mut read_keys, read_variable, &handle, dtype) {
                        Ok(k) => k,
                        Err(e) => {
                            ctx.destroy_scope(scope);
                            return Err(e);
                        }
                    };
                    NodeKind::Variable { handle, read }
                }
                None => return Err(internal_cleanup(ctx, scope, "weight index out of range")),
            },
        };
        let name_start = names.len();
        names.push_str(&nodes[i].name);
        graph_nodes.push(Node {
            name: name_start..names.len(),
            kind,
            inputs,
            slots,
        });
    }
    Ok(GraphModel {
        loaded: Some(LoadedGraph {
            scope,
            nodes: graph_nodes,
            inputs: layout.inputs,
            uses: layout.uses,
            names,
            outputs: layout.outputs,
            read_keys,
            attr_values,
            flow: layout.flow,
        }),
        inputs,
        optional,
        outputs,
        weight_bytes,
    })
}

/// Position in `keys` of the ReadVariableOp key for variables of `dtype` (made on first need).
fn read_key(
    keys: &mut Vec<CacheKey>,
    read_variable: &'static ops::OpDef,
    handle: &Tensor,
    dtype: DType,
) -> Result<usize> {
    let is_dtype =
        |k: &CacheKey| matches!(k.attrs().get("dtype"), Ok(AttrValue::Type(d)) if *d == dtype);
    if let Some(i) = keys.iter().position(is_dtype) {
        return Ok(i);
    }
    let attrs = ops::resolve_attrs(
        read_variable,
        std::slice::from_ref(handle),
        [("dtype", AttrValue::Type(dtype))],
    )?;
    keys.push(CacheKey::new(CPU_DEVICE, attrs));
    Ok(keys.len() - 1)
}

fn internal_cleanup(ctx: &mut EagerContext, scope: ScopeId, msg: &str) -> Status {
    ctx.destroy_scope(scope);
    crate::status::internal(msg)
}

/// A restored variable: its handle, dtype and bytes.
pub(super) type Restored = (Tensor, DType, usize);

/// `restore_variables` into a new scope of the context, which owns the variables from then on; on
/// any failure the scope is destroyed again, so a failed load leaves nothing behind. Returns the
/// scope and each variable's (handle, dtype, bytes). Shared with layers models.
pub(super) fn restore_in_new_scope<W: WeightSource + ?Sized>(
    ctx: &mut EagerContext,
    slots: Vec<WeightSlot<'_>>,
    weights: &W,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(ScopeId, Vec<Restored>)> {
    let scope = ctx.new_scope();
    let previous = ctx.enter_scope(scope);
    let restored = restore_variables(ctx, slots, weights, progress);
    ctx.enter_scope(previous);
    match restored {
        Ok(handles) => Ok((scope, handles)),
        Err(e) => {
            ctx.destroy_scope(scope);
            Err(e)
        }
    }
}

/// VarHandleOp + AssignVariableOp per weight, executed through the context like TF's restore
/// (shared with layers models).
pub(super) fn restore_variables<W: WeightSource + ?Sized>(
    ctx: &mut EagerContext,
    slots: Vec<WeightSlot<'_>>,
    weights: &W,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Restored>> {
    let total = weights.byte_len();
    let mut done = 0;
    let mut out = Vec::with_capacity(slots.len());
    // AssignVariableOp resolves the same for every variable of a dtype: once per dtype.
    let mut assign_keys: Vec<(DType, CacheKey)> = Vec::new();
    let (var_handle, assign) = (
        crate::registry::lookup("VarHandleOp")?,
        crate::registry::lookup("AssignVariableOp")?,
    );
    let mut scratch = Vec::new();
    for s in slots {
        let bytes = read_weight(weights, s.offset, s.len, &mut scratch)?;
        let n = s.shape.num_elements();
        let data = match s.quant {
            None => decode_weight(s.dtype, bytes, n)?,
            Some(q) => dequantize(bytes, n, &q.dtype, q.min, q.scale, s.dtype)?,
        };
        let shape_attr: Vec<i64> = s.shape.dims().iter().map(|&d| d as i64).collect();
        let mut value = Tensor::new(s.shape, data)?;
        let dtype = if s.int64 {
            value = crate::kernels::math::cast_tensor(&value, DType::Int64)?;
            DType::Int64
        } else {
            s.dtype
        };
        let shared_name = ctx.variable_shared_name(s.name);
        let handle = ctx
            .execute_op(
                var_handle,
                &[],
                [
                    ("shared_name", AttrValue::Str(shared_name.into_bytes())),
                    ("dtype", AttrValue::Type(dtype)),
                    ("shape", AttrValue::Shape(Some(shape_attr))),
                ],
            )?
            .pop()
            .ok_or_else(|| crate::status::internal("VarHandleOp returned no handle"))?;
        let bytes_len = value.byte_len();
        let inputs = [handle.clone(), value];
        let key = match assign_keys.iter().position(|(d, _)| *d == dtype) {
            Some(i) => &assign_keys[i].1,
            None => {
                let attrs =
                    ops::resolve_attrs(assign, &inputs, [("dtype", AttrValue::Type(dtype))])?;
                assign_keys.push((dtype, CacheKey::new(CPU_DEVICE, attrs)));
                &assign_keys[assign_keys.len() - 1].1
            }
        };
        ctx.execute_key(key, &inputs)?;
        out.push((handle, dtype, bytes_len));
        done += s.len;
        progress(done, total);
    }
    Ok(out)
}
