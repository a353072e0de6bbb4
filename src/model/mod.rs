//! TF.js graph models (`model.json` + weight shards): loaded the way TF restores a SavedModel
//! (each weight a resource variable made by executing VarHandleOp + AssignVariableOp through the
//! context), run node by node through `EagerContext::execute`, released completely on dispose.

pub mod arity;
pub mod attr_json;
mod executor;
mod flow;
pub mod format;
mod functions;
pub mod graph;
mod initializer;
#[cfg(feature = "layers")]
pub mod layers;
mod loader;
mod pack;
pub mod profile;
pub mod weights;

use crate::eager::{CacheKey, EagerContext};
use crate::ops::{AttrValue, OpDef};
use crate::resource::ScopeId;
use crate::status::Result;
use crate::tensor::{DType, Tensor};
use std::cell::RefCell;
use std::ops::Range;

/// A model input or output as the signature declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorInfo {
    /// Signature key (e.g. `x`, `output_0`).
    pub name: String,
    /// Graph tensor (e.g. `x:0`, `Identity:0`).
    pub tensor_name: String,
    pub dtype: DType,
    /// `None`: unknown rank; `-1`: unknown dim.
    pub shape: Option<Vec<i64>>,
}

pub(crate) enum NodeKind {
    /// Placeholder: fed from the input at this index.
    Feed(usize),
    /// Const backed by a weight: read through ReadVariableOp on each run, as a restored TF model
    /// does (`read`: that op's cache key in `LoadedGraph::read_keys`, resolved at load).
    Variable { handle: Tensor, read: usize },
    /// PlaceholderWithDefault: fed from input `feed` when given, else run as an op on its default.
    FeedOr {
        feed: usize,
        def: &'static OpDef,
        attrs: Vec<(&'static str, u32)>,
        resolved: RefCell<KeyMemo>,
    },
    /// Const with an inline value (not in the weights).
    Constant(Tensor),
    Op {
        def: &'static OpDef,
        /// (name, position in `LoadedGraph::attr_values`).
        attrs: Vec<(&'static str, u32)>,
        /// What `attrs` resolved to, for repeated runs.
        resolved: RefCell<KeyMemo>,
    },
    /// A control-flow node (v1), run by `flow` itself.
    Flow(flow::FlowOp),
}

/// Resolving a node's attrs depends only on them and its input dtypes, so a node that runs again
/// with the same dtypes can reuse its cache key instead of resolving (and copying) its attrs anew.
/// Kept from the second run on: a model that is predicted once does not pay for keeping keys.
pub(crate) enum KeyMemo {
    NeverRun,
    RanOnce,
    Resolved { dtypes: Vec<DType>, key: CacheKey },
}

pub(crate) struct Node {
    pub kind: NodeKind,
    /// Its data inputs: `LoadedGraph::inputs[inputs]`.
    pub inputs: Range<usize>,
    /// Value slots of its outputs (output `k` in slot `slots.start + k`), up to the last one used.
    pub slots: Range<usize>,
    /// Its name: `LoadedGraph::names[name]`.
    pub name: Range<usize>,
}

/// A model ready to run. Per-node lists live in flat vectors indexed by ranges, so a load makes a
/// handful of allocations for the graph, not a few per node.
pub(crate) struct LoadedGraph {
    pub scope: ScopeId,
    pub nodes: Vec<Node>,
    /// Data inputs of every node as (position in `nodes`, output index).
    pub inputs: Vec<(usize, usize)>,
    /// Uses of each value slot (consumers, plus model outputs); a run frees a value at zero.
    pub uses: Vec<u32>,
    pub names: String,
    /// Signature outputs as (position in `nodes`, output index).
    pub outputs: Vec<(usize, usize)>,
    /// ReadVariableOp cache keys, one per weight dtype.
    pub read_keys: Vec<CacheKey>,
    /// The op nodes' attr values, each distinct one once.
    pub attr_values: Vec<AttrValue>,
    /// For a graph with control flow: what its dynamic schedule needs (`None`: the static one).
    pub flow: Option<Box<flow::Flow>>,
}

impl LoadedGraph {
    pub fn name(&self, p: usize) -> &str {
        &self.names[self.nodes[p].name.clone()]
    }

    /// The value slot of output `out` of the node at `p`, if any node or model output uses it.
    pub fn slot(&self, p: usize, out: usize) -> Option<usize> {
        let r = &self.nodes[p].slots;
        (out < r.len()).then(|| r.start + out)
    }
}

fn disposed() -> crate::status::Status {
    crate::status::failed_precondition("predict() on a model that was disposed")
}

/// A loaded graph model. Everything it holds lives until `dispose`.
pub struct GraphModel {
    loaded: Option<LoadedGraph>,
    inputs: Vec<TensorInfo>,
    /// Per input: may be left unfed (a PlaceholderWithDefault).
    optional: Vec<bool>,
    outputs: Vec<TensorInfo>,
    weight_bytes: usize,
}

impl GraphModel {
    /// Shard paths of `model.json`, in manifest order (their bytes concatenate in this order).
    pub fn weight_paths(model_json: &str) -> Result<Vec<String>> {
        let m = loader::parse(model_json)?;
        Ok(m.weights_manifest
            .unwrap_or_default()
            .into_iter()
            .flat_map(|g| g.paths)
            .collect())
    }

    /// Loads `model_json` with `weights` (all shards concatenated in manifest order). `progress`
    /// gets (weight bytes done, total) as variables are restored.
    pub fn load<W: weights::WeightSource + ?Sized>(
        ctx: &mut EagerContext,
        model_json: &str,
        weights: &W,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<GraphModel> {
        loader::load(ctx, model_json, weights, progress)
    }

    pub fn inputs(&self) -> &[TensorInfo] {
        &self.inputs
    }

    /// Whether input `k` (in `inputs()` order) may be left unfed.
    pub fn input_is_optional(&self, k: usize) -> bool {
        self.optional.get(k).copied().unwrap_or(false)
    }

    pub fn outputs(&self) -> &[TensorInfo] {
        &self.outputs
    }

    /// Bytes of weights restored (after dequantization).
    pub fn weight_bytes(&self) -> usize {
        self.weight_bytes
    }

    pub fn is_disposed(&self) -> bool {
        self.loaded.is_none()
    }

    /// Runs the model. Feeds are keyed by signature name (`x`), tensor name (`x:0`) or node name;
    /// outputs come in `outputs()` order.
    pub fn predict(
        &self,
        ctx: &mut EagerContext,
        feeds: Vec<(String, Tensor)>,
    ) -> Result<Vec<Tensor>> {
        self.run(ctx, feeds, None, None)
    }

    /// Runs the model and returns the named tensors instead of the signature outputs, as TF.js's
    /// `execute(inputs, outputs)` does: a signature output key, a tensor name (`node:1`) or a node
    /// name (its output 0). Intermediate nodes are available if the signature outputs need them
    /// (the graph is pruned to those at load); inside a loop, none is (frames are not exposed).
    pub fn execute(
        &self,
        ctx: &mut EagerContext,
        feeds: Vec<(String, Tensor)>,
        outputs: &[String],
    ) -> Result<Vec<Tensor>> {
        let loaded = self.loaded.as_ref().ok_or_else(disposed)?;
        let fetch = outputs
            .iter()
            .map(|name| self.locate(loaded, name))
            .collect::<Result<Vec<_>>>()?;
        self.run(ctx, feeds, Some(&fetch), None)
    }

    /// Runs the model as `predict` does, timing every node with `clock` (milliseconds, monotonic);
    /// the outputs are dropped. A node in a loop is one entry for all its iterations.
    pub fn profile(
        &self,
        ctx: &mut EagerContext,
        feeds: Vec<(String, Tensor)>,
        clock: &dyn Fn() -> f64,
    ) -> Result<profile::Profile> {
        profile::Profiler::measure(clock, |probe| {
            self.run(ctx, feeds, None, Some(probe)).map(drop)
        })
    }

    fn locate(&self, loaded: &LoadedGraph, name: &str) -> Result<(usize, usize)> {
        if let Some(i) = self.outputs.iter().position(|o| o.name == name) {
            return Ok(loaded.outputs[i]);
        }
        let r = graph::parse_input(name)?;
        let p = (0..loaded.nodes.len())
            .find(|&p| loaded.name(p) == r.node)
            .ok_or_else(|| {
                crate::status::not_found(format!(
                    "model has no node '{}' that its outputs need (the graph is pruned to those \
                     at load)",
                    r.node
                ))
            })?;
        Ok((p, r.output))
    }

    fn run(
        &self,
        ctx: &mut EagerContext,
        feeds: Vec<(String, Tensor)>,
        fetch: Option<&[(usize, usize)]>,
        probe: Option<&mut profile::Profiler>,
    ) -> Result<Vec<Tensor>> {
        let loaded = self.loaded.as_ref().ok_or_else(disposed)?;
        let ordered = executor::order_feeds(&self.inputs, &self.optional, feeds)?;
        // Resources the graph itself creates (a VarHandleOp node that is not a weight) belong to
        // the model, so that dispose() releases them too.
        let previous = ctx.enter_scope(loaded.scope);
        let result = match &loaded.flow {
            None => executor::run(ctx, loaded, &ordered, fetch, probe),
            Some(f) => {
                let limit = ctx.max_loop_iterations();
                flow::run(ctx, loaded, f, &ordered, limit, fetch, probe)
            }
        };
        ctx.enter_scope(previous);
        // Tensor lists live for one run.
        ctx.destroy_lists(loaded.scope);
        result
    }

    /// Releases every variable and tensor the model owns. Idempotent.
    pub fn dispose(&mut self, ctx: &mut EagerContext) {
        if let Some(loaded) = self.loaded.take() {
            ctx.destroy_scope(loaded.scope);
        }
        // Metadata goes too, so heap in use returns to its pre-load value even while the (JS)
        // owner of this struct is alive.
        self.inputs = Vec::new();
        self.optional = Vec::new();
        self.outputs = Vec::new();
    }
}
