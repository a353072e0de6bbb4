//! A Keras model's layer graph: `Sequential` chains and functional (`Functional`/`Model`) graphs,
//! read from their configs (Keras 2's `inbound_nodes` lists and Keras 3's `args` form), shared
//! layers and nested models included, put in dependency order (cycles rejected) and run.

use super::bind::Binder;
use super::config::{as_int, class_and_config, kind, Cfg};
use super::json::Value;
use super::kind::{Call, Graph, InputSpec, Kind, Layer};
use super::layer;
use super::run::{Run, Val};
use super::shape::Sh;
use crate::hash::FastBuild;
use crate::model::profile::Profiler;
use crate::status::{invalid_argument, unimplemented, Result};
use crate::tensor::DType;
use std::collections::HashMap;

/// A reference to output `.2` of node `.1` of the layer named `.0`.
type Ref = (String, i64, i64);

/// Builds the model of config `{class_name, config}`.
pub fn build(model: &Value, b: &mut Binder) -> Result<Graph> {
    let (class, config) = class_and_config(model)?;
    build_model(class, config, b)
}

fn build_model(class: &str, config: &Value, b: &mut Binder) -> Result<Graph> {
    b.enter_model(config.get("name").and_then(Value::as_str).unwrap_or(""));
    let g = match class {
        "Sequential" => sequential(config, b),
        "Functional" | "Model" => functional(config, b),
        other => Err(invalid_argument(format!(
            "the model's class is '{other}'; expected Sequential, Functional or Model"
        ))),
    };
    b.exit_model();
    g
}

fn layer_name(entry: &Value, config: &Value) -> Result<String> {
    entry
        .get("name")
        .or_else(|| config.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| invalid_argument("a layer has no name"))
}

/// Reads one layer entry into a `Layer`.
fn read_layer(entry: &Value, b: &mut Binder) -> Result<(String, Layer, usize)> {
    let (class, config) = class_and_config(entry)?;
    let name = layer_name(entry, config)?;
    b.enter_layer(class);
    let first_node = entry.get("inbound_nodes").and_then(|n| n.at(0));
    let kind = if class == "NotEqual" {
        // Keras 3's `ops.not_equal(x, c)` as a layer (how it writes an Embedding's mask_zero
        // mask): `args` are the tensor and the constant.
        let c = first_node
            .and_then(|n| n.get("args"))
            .and_then(|a| a.at(1))
            .and_then(Value::as_f64)
            .ok_or_else(|| {
                invalid_argument(format!("layer '{name}': NotEqual needs a constant"))
            })?;
        Kind::NotEqual(c as f32)
    } else {
        layer::build(class, config, &name, &name, b, &build_model)
            .map_err(|e| e.context(format!("layer '{name}' ({class})")))?
    };
    // A nested model made with its own input counts that as node 0 (Keras 2's
    // `_should_skip_first_node`): the config's references are offset by one. Keras 3 (inbound
    // nodes as `{args, kwargs}`) numbers calls only.
    let keras3 = first_node.is_some_and(Value::is_object);
    let offset = match class {
        _ if keras3 => 0,
        "Functional" | "Model" => 1,
        "Sequential" => {
            let first = config
                .get("layers")
                .or(Some(config))
                .and_then(Value::as_array)
                .and_then(|l| l.first())
                .and_then(|l| l.get("class_name"))
                .and_then(Value::as_str);
            usize::from(first == Some("InputLayer"))
        }
        _ => 0,
    };
    Ok((class.to_string(), Layer { name, kind }, offset))
}

fn input_spec(config: &Value, name: &str) -> Result<InputSpec> {
    let c = Cfg::new(config, name)?;
    let shape = match c.get("batch_input_shape").or_else(|| c.get("batch_shape")) {
        None => None,
        Some(Value::Array(a)) => Some(
            a.iter()
                .map(|d| if d.is_null() { Some(-1) } else { as_int(d) })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| c.err("batch_input_shape must be ints or nulls"))?,
        ),
        Some(v) => return Err(c.err(format!("batch_input_shape is {}", kind(v)))),
    };
    let dtype = match c.get("dtype") {
        None => DType::Float32,
        Some(v) => match v.as_str() {
            Some(s) => DType::parse(s).map_err(|e| e.context(format!("input '{name}'")))?,
            None => DType::Float32,
        },
    };
    Ok(InputSpec {
        name: name.to_string(),
        dtype,
        shape,
    })
}

fn sequential(config: &Value, b: &mut Binder) -> Result<Graph> {
    let entries = config
        .get("layers")
        .or(Some(config))
        .and_then(Value::as_array)
        .ok_or_else(|| invalid_argument("Sequential config has no 'layers' list"))?;
    let mut layers = Vec::with_capacity(entries.len() + 1);
    let mut specs = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let (class, config) = class_and_config(entry)?;
        if i == 0 {
            if class == "InputLayer" {
                let name = layer_name(entry, config)?;
                specs.push(input_spec(config, &name)?);
                layers.push(Layer {
                    name,
                    kind: Kind::Input,
                });
                continue;
            }
            // No InputLayer: Keras makes `<first layer>_input` from the first layer's shape.
            let name = format!("{}_input", layer_name(entry, config)?);
            specs.push(input_spec(config, &name)?);
            layers.push(Layer {
                name,
                kind: Kind::Input,
            });
        } else if class == "InputLayer" {
            return Err(invalid_argument(
                "Sequential config has an InputLayer after its first layer",
            ));
        }
        layers.push(read_layer(entry, b)?.1);
    }
    if layers.len() < 2 {
        return Err(invalid_argument("Sequential model has no layers"));
    }
    let calls: Vec<Call> = (0..layers.len())
        .map(|i| Call {
            layer: i,
            args: if i == 0 { vec![] } else { vec![(i - 1, 0)] },
        })
        .collect();
    let last = calls.len() - 1;
    let output_names = vec![layers[last].name.clone()];
    let mut uses = vec![1u32; calls.len()];
    uses[last] = 1;
    Ok(Graph {
        layers,
        calls,
        inputs: vec![0],
        outputs: vec![(last, 0)],
        uses,
        input_specs: specs,
        output_names,
    })
}

/// `[name, node, tensor(, kwargs)]` references of one inbound node (Keras 2), or the
/// `keras_history` of every tensor in its `args` (Keras 3).
fn node_refs(node: &Value, layer: &str) -> Result<Vec<Ref>> {
    let bad = || invalid_argument(format!("layer '{layer}': malformed inbound node"));
    let triple = |v: &Value| -> Option<Ref> {
        let a = v.as_array()?;
        Some((
            a.first()?.as_str()?.to_string(),
            as_int(a.get(1)?)?,
            as_int(a.get(2)?)?,
        ))
    };
    match node {
        Value::Array(refs) => refs
            .iter()
            .map(|r| {
                if let Some(kw) = r.at(3).and_then(Value::as_object) {
                    if let Some(k) = kw
                        .keys()
                        .find(|k| !matches!(k.as_str(), "training" | "mask"))
                    {
                        return Err(unimplemented(format!(
                            "layer '{layer}' is called with argument '{k}', which is not supported"
                        )));
                    }
                }
                triple(r).ok_or_else(bad)
            })
            .collect(),
        Value::Object(o) => {
            if let Some(k) = o.get("kwargs").and_then(Value::as_object).and_then(|kw| {
                kw.keys()
                    .find(|k| !matches!(k.as_str(), "training" | "mask"))
            }) {
                return Err(unimplemented(format!(
                    "layer '{layer}' is called with argument '{k}', which is not supported"
                )));
            }
            let mut out = Vec::new();
            let mut stack = vec![o.get("args").ok_or_else(bad)?];
            while let Some(v) = stack.pop() {
                match v {
                    Value::Array(a) => stack.extend(a.iter().rev()),
                    Value::Object(m) => {
                        if let Some(h) = m.get("config").and_then(|c| c.get("keras_history")) {
                            out.push(triple(h).ok_or_else(bad)?);
                        }
                    }
                    _ => {}
                }
            }
            Ok(out)
        }
        _ => Err(bad()),
    }
}

/// `[[name, node, tensor], ...]`, or one bare `[name, node, tensor]` (a single-input model).
fn endpoint_list(v: Option<&Value>, what: &str) -> Result<Vec<Ref>> {
    let v = v.ok_or_else(|| invalid_argument(format!("functional config has no '{what}'")))?;
    let a = v
        .as_array()
        .ok_or_else(|| invalid_argument(format!("'{what}' must be a list")))?;
    let list: Vec<&Value> = if a.first().is_some_and(Value::is_string) {
        vec![v]
    } else {
        a.iter().collect()
    };
    list.into_iter()
        .map(|e| {
            let t = e.as_array().filter(|t| t.len() >= 3);
            t.and_then(|t| Some((t[0].as_str()?.to_string(), as_int(&t[1])?, as_int(&t[2])?)))
                .ok_or_else(|| {
                    invalid_argument(format!("'{what}' has a malformed entry ({})", kind(e)))
                })
        })
        .collect()
}

fn functional(config: &Value, b: &mut Binder) -> Result<Graph> {
    let entries = config
        .get("layers")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid_argument("functional config has no 'layers' list"))?;
    let mut layers = Vec::with_capacity(entries.len());
    let mut by_name: HashMap<String, usize, FastBuild> = HashMap::default();
    // Per layer: its calls' positions, by node index.
    let mut nodes: Vec<HashMap<i64, usize, FastBuild>> = Vec::new();
    let mut pending: Vec<(usize, Vec<Ref>)> = Vec::new();
    let mut specs_by_layer: HashMap<usize, InputSpec, FastBuild> = HashMap::default();
    for entry in entries {
        let (class, config) = class_and_config(entry)?;
        let (_, layer, offset) = read_layer(entry, b)?;
        let li = layers.len();
        if by_name.insert(layer.name.clone(), li).is_some() {
            return Err(invalid_argument(format!(
                "two layers are named '{}'",
                layer.name
            )));
        }
        let mut calls_here = HashMap::default();
        if class == "InputLayer" {
            specs_by_layer.insert(li, input_spec(config, &layer.name)?);
            calls_here.insert(0, pending.len());
            pending.push((li, vec![]));
        } else {
            let inbound = entry
                .get("inbound_nodes")
                .and_then(Value::as_array)
                .ok_or_else(|| {
                    invalid_argument(format!("layer '{}' has no 'inbound_nodes'", layer.name))
                })?;
            for (k, node) in inbound.iter().enumerate() {
                let refs = node_refs(node, &layer.name)?;
                if refs.is_empty() {
                    return Err(invalid_argument(format!(
                        "layer '{}' has an inbound node with no inputs",
                        layer.name
                    )));
                }
                calls_here.insert((k + offset) as i64, pending.len());
                pending.push((li, refs));
            }
        }
        nodes.push(calls_here);
        layers.push(layer);
    }
    let resolve = |(name, node, tensor): &Ref, user: &str| -> Result<(usize, usize)> {
        let missing = || {
            invalid_argument(format!(
                "{user} refers to node {node} of layer '{name}', which the config does not define"
            ))
        };
        let &li = by_name.get(name).ok_or_else(missing)?;
        let &call = nodes[li].get(node).ok_or_else(missing)?;
        let t = usize::try_from(*tensor).map_err(|_| missing())?;
        Ok((call, t))
    };
    let mut all_calls = Vec::with_capacity(pending.len());
    for (li, refs) in &pending {
        let user = format!("layer '{}'", layers[*li].name);
        let args = refs
            .iter()
            .map(|r| resolve(r, &user))
            .collect::<Result<Vec<_>>>()?;
        all_calls.push(Call { layer: *li, args });
    }
    let inputs = endpoint_list(config.get("input_layers"), "input_layers")?
        .iter()
        .map(|r| resolve(r, "input_layers"))
        .collect::<Result<Vec<_>>>()?;
    let outputs = endpoint_list(config.get("output_layers"), "output_layers")?
        .iter()
        .map(|r| resolve(r, "output_layers"))
        .collect::<Result<Vec<_>>>()?;
    if outputs.is_empty() {
        return Err(invalid_argument("model has no outputs"));
    }
    let mut input_specs = Vec::new();
    for &(call, _) in &inputs {
        let li = all_calls[call].layer;
        let spec = specs_by_layer.remove(&li).ok_or_else(|| {
            invalid_argument(format!(
                "model input '{}' is not an InputLayer (or is listed twice)",
                layers[li].name
            ))
        })?;
        input_specs.push(spec);
    }
    let output_names = outputs
        .iter()
        .map(|&(c, _)| layers[all_calls[c].layer].name.clone())
        .collect();

    // Dependency order of the calls the outputs need (Kahn's algorithm; a cycle leaves calls
    // unplaced). Iterative, so a deep model cannot overflow the stack.
    let n = all_calls.len();
    let mut needed = vec![false; n];
    let mut stack: Vec<usize> = outputs.iter().map(|&(c, _)| c).collect();
    while let Some(c) = stack.pop() {
        if !std::mem::replace(&mut needed[c], true) {
            stack.extend(all_calls[c].args.iter().map(|&(a, _)| a));
        }
    }
    let mut indegree = vec![0usize; n];
    let mut consumers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for c in (0..n).filter(|&c| needed[c]) {
        for &(a, _) in &all_calls[c].args {
            indegree[c] += 1;
            consumers[a].push(c);
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&c| needed[c] && indegree[c] == 0).collect();
    ready.reverse();
    let mut order = Vec::new();
    while let Some(c) = ready.pop() {
        order.push(c);
        for &u in &consumers[c] {
            indegree[u] -= 1;
            if indegree[u] == 0 {
                ready.push(u);
            }
        }
    }
    let needed_count = needed.iter().filter(|&&x| x).count();
    if order.len() != needed_count {
        let stuck = (0..n)
            .find(|&c| needed[c] && indegree[c] > 0)
            .map(|c| layers[all_calls[c].layer].name.as_str())
            .unwrap_or("?");
        return Err(invalid_argument(format!(
            "the layer graph has a cycle (through layer '{stuck}')"
        )));
    }
    for &c in &order {
        if matches!(layers[all_calls[c].layer].kind, Kind::Input)
            && !inputs.iter().any(|&(i, _)| i == c)
        {
            return Err(invalid_argument(format!(
                "InputLayer '{}' is needed by an output but is not a model input",
                layers[all_calls[c].layer].name
            )));
        }
    }
    let mut position = vec![usize::MAX; n];
    for (p, &c) in order.iter().enumerate() {
        position[c] = p;
    }
    let mut slots: Vec<Option<Call>> = all_calls.into_iter().map(Some).collect();
    let calls: Vec<Call> = order
        .iter()
        .map(|&c| {
            let call = slots[c].take().expect("each call placed once");
            Call {
                layer: call.layer,
                args: call.args.iter().map(|&(a, t)| (position[a], t)).collect(),
            }
        })
        .collect();
    let inputs: Vec<usize> = inputs.iter().map(|&(c, _)| position[c]).collect();
    let outputs: Vec<(usize, usize)> = outputs.iter().map(|&(c, t)| (position[c], t)).collect();
    let mut uses = vec![0u32; calls.len()];
    for &(a, _) in calls.iter().flat_map(|c| &c.args).chain(&outputs) {
        uses[a] += 1;
    }
    Ok(Graph {
        layers,
        calls,
        inputs,
        outputs,
        uses,
        input_specs,
        output_names,
    })
}

impl Graph {
    /// The shapes of the graph's outputs when its inputs have shapes `ins` (`None`: unknown).
    pub fn out_shapes(&self, ins: Vec<Sh>, w: &dyn Fn(usize) -> Vec<i64>) -> Vec<Sh> {
        let mut vals: Vec<Vec<Sh>> = vec![Vec::new(); self.calls.len()];
        for (&p, s) in self.inputs.iter().zip(ins) {
            if let Some(v) = vals.get_mut(p) {
                *v = vec![s];
            }
        }
        let get = |vals: &[Vec<Sh>], (a, t): (usize, usize)| vals[a].get(t).cloned().flatten();
        for (p, call) in self.calls.iter().enumerate() {
            let kind = &self.layers[call.layer].kind;
            if !matches!(kind, Kind::Input) {
                let args: Vec<Sh> = call.args.iter().map(|&a| get(&vals, a)).collect();
                vals[p] = kind.out_shapes(&args, w);
            }
        }
        self.outputs.iter().map(|&o| get(&vals, o)).collect()
    }

    /// Runs the graph on `feeds` (one per input, in order); returns the outputs in order. With a
    /// `probe`, each layer call is timed (a nested model is one step).
    pub fn run(
        &self,
        run: &mut Run,
        feeds: Vec<Val>,
        mut probe: Option<&mut Profiler>,
    ) -> Result<Vec<Val>> {
        if feeds.len() != self.inputs.len() {
            return Err(invalid_argument(format!(
                "model takes {} inputs, got {}",
                self.inputs.len(),
                feeds.len()
            )));
        }
        let mut values: Vec<Option<Vec<Val>>> = Vec::with_capacity(self.calls.len());
        values.resize_with(self.calls.len(), || None);
        let mut left = self.uses.clone();
        for (&p, v) in self.inputs.iter().zip(feeds) {
            // An input no output needs is not in the order: nothing to place.
            if p != usize::MAX {
                values[p] = Some(vec![v]);
            }
        }
        let get = |values: &[Option<Vec<Val>>], (a, t): (usize, usize), who: &str| -> Result<Val> {
            values[a]
                .as_ref()
                .and_then(|vs| vs.get(t))
                .cloned()
                .ok_or_else(|| {
                    invalid_argument(format!(
                        "{who} reads output {t} of a layer that has fewer outputs"
                    ))
                })
        };
        for (p, call) in self.calls.iter().enumerate() {
            let layer = &self.layers[call.layer];
            if values[p].is_some() {
                continue;
            }
            if matches!(layer.kind, Kind::Input) {
                return Err(invalid_argument(format!(
                    "input '{}' was not fed",
                    layer.name
                )));
            }
            let mut args = Vec::with_capacity(call.args.len());
            for &(a, t) in &call.args {
                args.push(get(&values, (a, t), &format!("layer '{}'", layer.name))?);
                left[a] -= 1;
                if left[a] == 0 {
                    values[a] = None;
                }
            }
            let mark = probe.as_ref().map(|pr| pr.start(run.ctx));
            let out = layer
                .kind
                .call(run, args)
                .map_err(|e| e.context(format!("layer '{}'", layer.name)))?;
            if let (Some(pr), Some(mark)) = (probe.as_deref_mut(), mark) {
                let outs = out.iter().map(|v| &v.t);
                pr.record_named(run.ctx, &layer.name, layer.kind.label(), mark, outs);
            }
            values[p] = Some(out);
        }
        self.outputs
            .iter()
            .map(|&o| get(&values, o, "an output"))
            .collect()
    }
}
