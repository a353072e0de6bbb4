//! TF.js *layers* models (`format: layers-model`: what `tensorflowjs_converter --input_format
//! keras`, TF.js's `model.save()` and Teachable Machine write): the Keras config is read into a
//! layer graph, each weight is restored as a resource variable exactly as for graph models (the
//! graph loader's `restore_in_new_scope`: one VarHandleOp + AssignVariableOp per weight under the
//! context's naming policy, in a scope the model owns), and `predict` runs each layer as TF ops
//! through `EagerContext::execute`, reading the variables with ReadVariableOp.

mod activation;
mod bind;
mod config;
mod forward;
mod graph;
mod json;
mod kind;
mod layer;
mod rnn;
mod run;
mod shape;
mod tf;

use super::executor::order_feeds;
use super::loader::{plan_weights, restore_in_new_scope};
use super::profile::{Profile, Profiler};
use super::weights::WeightSource;
use super::TensorInfo;
use crate::eager::EagerContext;
use crate::resource::ScopeId;
use crate::status::{failed_precondition, Result};
use crate::tensor::{DType, Tensor};
use kind::Graph;
use run::{Run, Val};

struct LoadedLayers {
    scope: ScopeId,
    graph: Graph,
    /// Variable handles and dtypes, in manifest order (what layers refer to).
    vars: Vec<(Tensor, DType)>,
}

/// A loaded layers model. Everything it holds lives until `dispose`.
pub struct LayersModel {
    loaded: Option<LoadedLayers>,
    inputs: Vec<TensorInfo>,
    outputs: Vec<TensorInfo>,
    weight_bytes: usize,
}

impl LayersModel {
    /// Shard paths of a layers `model.json`, in manifest order.
    pub fn weight_paths(model_json: &str) -> Result<Vec<String>> {
        let m = config::parse(model_json)?;
        Ok(m.weights_manifest
            .unwrap_or_default()
            .into_iter()
            .flat_map(|g| g.paths)
            .collect())
    }

    /// Loads `model_json` with `weights` (all shards concatenated in manifest order). The config
    /// and the weights are checked against each other before anything is allocated in the
    /// context; `progress` gets (weight bytes done, total) as variables are restored.
    pub fn load<W: WeightSource + ?Sized>(
        ctx: &mut EagerContext,
        model_json: &str,
        weights: &W,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<LayersModel> {
        let m = config::parse(model_json)?;
        let topology = m.model_topology.as_ref().expect("checked in parse");
        let groups = m.weights_manifest.as_deref().unwrap_or_default();
        let slots = plan_weights(groups, weights)?;
        let graph = {
            let mut binder = bind::Binder::new(slots.iter().map(|s| (s.name, s.shape.dims())));
            let graph = graph::build(config::model_config(topology)?, &mut binder)?;
            binder.check_all_claimed()?;
            graph
        };
        let inputs: Vec<TensorInfo> = graph
            .input_specs
            .iter()
            .map(|s| TensorInfo {
                name: s.name.clone(),
                tensor_name: format!("{}:0", s.name),
                dtype: s.dtype,
                shape: s.shape.clone(),
            })
            .collect();
        let weight_shape = |w: usize| slots[w].shape.dims().iter().map(|&d| d as i64).collect();
        let shapes = graph.out_shapes(
            graph.input_specs.iter().map(|s| s.shape.clone()).collect(),
            &weight_shape,
        );
        let outputs: Vec<TensorInfo> = graph
            .output_names
            .iter()
            .zip(shapes)
            .map(|(n, shape)| TensorInfo {
                name: n.clone(),
                tensor_name: format!("{n}:0"),
                dtype: DType::Float32,
                shape,
            })
            .collect();
        let (scope, handles) = restore_in_new_scope(ctx, slots, weights, progress)?;
        let weight_bytes = handles.iter().map(|(_, _, b)| b).sum();
        let vars = handles.into_iter().map(|(h, d, _)| (h, d)).collect();
        Ok(LayersModel {
            loaded: Some(LoadedLayers { scope, graph, vars }),
            inputs,
            outputs,
            weight_bytes,
        })
    }

    pub fn inputs(&self) -> &[TensorInfo] {
        &self.inputs
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

    /// Runs the model. Feeds are keyed by input layer name (`x` or `x:0`); outputs come in
    /// `outputs()` order.
    pub fn predict(
        &self,
        ctx: &mut EagerContext,
        feeds: Vec<(String, Tensor)>,
    ) -> Result<Vec<Tensor>> {
        self.run(ctx, feeds, None)
    }

    /// `predict` with every layer call timed, as `GraphModel::profile` times nodes: the name is
    /// the layer's, the op its kind (`Kind::label`), the cache lookups those of every op it ran.
    /// The outputs are dropped.
    pub fn profile(
        &self,
        ctx: &mut EagerContext,
        feeds: Vec<(String, Tensor)>,
        clock: &dyn Fn() -> f64,
    ) -> Result<Profile> {
        Profiler::measure(clock, |probe| self.run(ctx, feeds, Some(probe)).map(drop))
    }

    fn run(
        &self,
        ctx: &mut EagerContext,
        feeds: Vec<(String, Tensor)>,
        probe: Option<&mut Profiler>,
    ) -> Result<Vec<Tensor>> {
        let loaded = self
            .loaded
            .as_ref()
            .ok_or_else(|| failed_precondition("predict() on a model that was disposed"))?;
        // Every input of a layers model is required (none is a PlaceholderWithDefault).
        let ordered = order_feeds(&self.inputs, &[], feeds)?;
        let mut run = Run {
            ctx,
            vars: &loaded.vars,
            read: crate::registry::lookup("ReadVariableOp")?,
        };
        let feeds = ordered
            .into_iter()
            .flatten()
            .map(|t| Val { t, mask: None })
            .collect();
        let out = loaded.graph.run(&mut run, feeds, probe)?;
        Ok(out.into_iter().map(|v| v.t).collect())
    }

    /// Releases every variable and tensor the model owns. Idempotent.
    pub fn dispose(&mut self, ctx: &mut EagerContext) {
        if let Some(loaded) = self.loaded.take() {
            ctx.destroy_scope(loaded.scope);
        }
        self.inputs = Vec::new();
        self.outputs = Vec::new();
    }
}
