//! Control flow v2 (`While`/`StatelessWhile`, `If`/`StatelessIf`, `PartitionedCall`/
//! `StatefulPartitionedCall` with bodies in `modelTopology.library.function`), lowered at load
//! into the v1 dataflow form the dynamic schedule runs, as TF's own lowering passes do: a While
//! becomes Enter/Merge/Switch/LoopCond/NextIteration/Exit around its inlined cond and body, an If
//! a Switch per input and a Merge per output around its inlined branches, a call its inlined
//! body. Each call node is replaced by an `IdentityN` of the same name over its results, so the
//! rest of the graph reads `call:k` unchanged.

use super::format::{FunctionDef, Library, NodeDef};
use crate::hash::FastBuild;
use crate::status::{invalid_argument, resource_exhausted, Result};
use std::borrow::Cow;
use std::collections::HashMap;

/// Most nodes a lowered graph may have (a bound on what a hostile library can expand to).
const MAX_NODES: usize = 1 << 20;
/// Most bytes of node names, inputs and attr entries a lowered graph may hold: a small library
/// whose functions call each other twice with long node names reaches gigabytes of names long
/// before `MAX_NODES` nodes.
const MAX_BYTES: usize = 256 << 20;
/// Deepest nesting of calls.
const MAX_DEPTH: usize = 64;

/// The graph with every call lowered.
#[derive(Default)]
pub struct Expanded<'a> {
    pub nodes: Vec<NodeDef<'a>>,
    /// Frame name of each Enter the lowering made (by node name).
    pub frames: HashMap<String, String, FastBuild>,
    /// Manifest name of each inlined Const (by its new node name): the converter stores a
    /// function's constants as weights under their names inside the function.
    pub weight_names: HashMap<String, String, FastBuild>,
}

fn is_call(op: &str) -> bool {
    matches!(
        op,
        "While"
            | "StatelessWhile"
            | "If"
            | "StatelessIf"
            | "PartitionedCall"
            | "StatefulPartitionedCall"
    )
}

/// The lowered graph, or `None` when the model has no function library.
pub fn expand<'a>(
    nodes: &[NodeDef<'a>],
    lib: Option<&'a Library<'a>>,
) -> Result<Option<Expanded<'a>>> {
    let Some(lib) = lib.filter(|l| !l.function.is_empty()) else {
        return Ok(None);
    };
    let mut funcs: HashMap<&str, &FunctionDef<'a>, FastBuild> = HashMap::default();
    for f in &lib.function {
        if funcs.insert(&f.signature.name, f).is_some() {
            return Err(invalid_argument(format!(
                "function library defines '{}' twice",
                f.signature.name
            )));
        }
    }
    let mut l = Lowering {
        funcs,
        out: Expanded::default(),
        stack: Vec::new(),
        bytes: 0,
    };
    for n in nodes {
        l.node(n.clone(), None)?;
    }
    Ok(Some(l.out))
}

struct Lowering<'a> {
    funcs: HashMap<&'a str, &'a FunctionDef<'a>, FastBuild>,
    out: Expanded<'a>,
    /// Functions being inlined, innermost last (recursion is an error).
    stack: Vec<&'a str>,
    /// What the lowered graph holds so far, against `MAX_BYTES`.
    bytes: usize,
}

fn node<'a>(name: String, op: &'static str, input: Vec<String>) -> NodeDef<'a> {
    NodeDef {
        name: Cow::Owned(name),
        op: Cow::Borrowed(op),
        input: input.into_iter().map(Cow::Owned).collect(),
        attr: Vec::new(),
    }
}

impl<'a> Lowering<'a> {
    fn push(&mut self, n: NodeDef<'a>) -> Result<()> {
        if self.out.nodes.len() >= MAX_NODES {
            return Err(resource_exhausted(format!(
                "model expands to more than {MAX_NODES} nodes once its functions are inlined"
            )));
        }
        let inputs: usize = n.input.iter().map(|i| i.len()).sum();
        self.charge(
            std::mem::size_of::<NodeDef<'_>>()
                + n.name.len()
                + inputs
                + n.input.len() * std::mem::size_of::<Cow<'_, str>>()
                + std::mem::size_of_val(&n.attr[..]),
        )?;
        self.out.nodes.push(n);
        Ok(())
    }

    /// Counts `bytes` more of lowered graph against `MAX_BYTES`.
    fn charge(&mut self, bytes: usize) -> Result<()> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > MAX_BYTES {
            return Err(resource_exhausted(format!(
                "model expands to more than {} MiB of node names and inputs once its functions \
                 are inlined (the limit)",
                MAX_BYTES >> 20
            )));
        }
        Ok(())
    }

    /// Adds `n` (inputs already in the final graph's names), lowering it if it is a call.
    /// `pivot`: the node that puts input-less nodes of an inlined body into its frame/branch.
    fn node(&mut self, n: NodeDef<'a>, pivot: Option<&str>) -> Result<()> {
        if !is_call(&n.op) {
            return self.push(n);
        }
        let name = n.name.to_string();
        let (data, control): (Vec<String>, Vec<String>) = {
            let (c, d): (Vec<_>, Vec<_>) = n.input.iter().partition(|s| s.starts_with('^'));
            (
                d.into_iter().map(|s| s.to_string()).collect(),
                c.into_iter().map(|s| s.to_string()).collect(),
            )
        };
        let func = |attr: &str| -> Result<&'a str> {
            let raw = n.attr_raw(attr).ok_or_else(|| {
                invalid_argument(format!("node '{name}' ({}) has no attr '{attr}'", n.op))
            })?;
            let fname = super::format::func_name(raw)
                .map_err(|e| e.context(format!("node '{name}': attr '{attr}'")))?;
            self.funcs
                .get_key_value(&*fname)
                .map(|(k, _)| *k)
                .ok_or_else(|| {
                    invalid_argument(format!(
                        "node '{name}' calls function '{fname}', which the library does not define"
                    ))
                })
        };
        let results = match &*n.op {
            "While" | "StatelessWhile" => {
                let (cond, body) = (func("cond")?, func("body")?);
                self.lower_while(&name, &data, &control, cond, body)?
            }
            "If" | "StatelessIf" => {
                let (then_f, else_f) = (func("then_branch")?, func("else_branch")?);
                // A non-bool predicate goes through ToBool first, as TF's If lowering does.
                let bool_cond = n
                    .attr_raw("Tcond")
                    .is_none_or(|r| r.get().contains("DT_BOOL"));
                let mut data = data;
                if !bool_cond && !data.is_empty() {
                    let to_bool = format!("{name}/to_bool");
                    let mut input = vec![std::mem::replace(&mut data[0], to_bool.clone())];
                    input.extend(control.iter().cloned());
                    self.push(node(to_bool, "ToBool", input))?;
                }
                self.lower_if(&name, &data, &control, then_f, else_f)?
            }
            _ => {
                let f = func("f")?;
                let mut rets = self.inline(f, &name, &data, pivot)?;
                rets.extend(control);
                rets
            }
        };
        self.push(node(name, "IdentityN", results))
    }

    fn lower_while(
        &mut self,
        name: &str,
        data: &[String],
        control: &[String],
        cond: &'a str,
        body: &'a str,
    ) -> Result<Vec<String>> {
        if data.is_empty() {
            return Err(invalid_argument(format!(
                "While node '{name}' has no loop variables"
            )));
        }
        let at = |what: &str, i: usize| format!("{name}/{what}_{i}");
        for (i, x) in data.iter().enumerate() {
            let mut input = vec![x.clone()];
            input.extend(control.iter().cloned());
            let enter = at("enter", i);
            self.charge(enter.len() + name.len())?;
            self.out.frames.insert(enter, name.to_string());
            self.push(node(at("enter", i), "Enter", input))?;
            self.push(node(
                at("merge", i),
                "Merge",
                vec![at("enter", i), at("next", i)],
            ))?;
        }
        let merges: Vec<String> = (0..data.len()).map(|i| at("merge", i)).collect();
        let pred = self.inline(cond, &format!("{name}/cond"), &merges, Some(&merges[0]))?;
        let pred = pred.into_iter().next().ok_or_else(|| {
            invalid_argument(format!(
                "While node '{name}': cond function returns nothing"
            ))
        })?;
        let loop_cond = format!("{name}/loop_cond");
        self.push(node(loop_cond.clone(), "LoopCond", vec![pred]))?;
        for i in 0..data.len() {
            self.push(node(
                at("switch", i),
                "Switch",
                vec![at("merge", i), loop_cond.clone()],
            ))?;
            self.push(node(
                at("identity", i),
                "Identity",
                vec![format!("{}:1", at("switch", i))],
            ))?;
            self.push(node(at("exit", i), "Exit", vec![at("switch", i)]))?;
        }
        let vars: Vec<String> = (0..data.len()).map(|i| at("identity", i)).collect();
        let next = self.inline(body, &format!("{name}/body"), &vars, Some(&vars[0]))?;
        if next.len() != data.len() {
            return Err(invalid_argument(format!(
                "While node '{name}': body returns {} values for {} loop variables",
                next.len(),
                data.len()
            )));
        }
        for (i, v) in next.into_iter().enumerate() {
            self.push(node(at("next", i), "NextIteration", vec![v]))?;
        }
        Ok((0..data.len()).map(|i| at("exit", i)).collect())
    }

    fn lower_if(
        &mut self,
        name: &str,
        data: &[String],
        control: &[String],
        then_f: &'a str,
        else_f: &'a str,
    ) -> Result<Vec<String>> {
        let Some((pred, args)) = data.split_first() else {
            return Err(invalid_argument(format!(
                "If node '{name}' has no condition input"
            )));
        };
        let switch = |x: &String| {
            let mut v = vec![x.clone(), pred.clone()];
            v.extend(control.iter().cloned());
            v
        };
        let sw_pred = format!("{name}/switch_pred");
        self.push(node(sw_pred.clone(), "Switch", switch(pred)))?;
        let (pivot_t, pivot_f) = (format!("{name}/pivot_t"), format!("{name}/pivot_f"));
        self.push(node(
            pivot_t.clone(),
            "Identity",
            vec![format!("{sw_pred}:1")],
        ))?;
        self.push(node(pivot_f.clone(), "Identity", vec![sw_pred.clone()]))?;
        let mut then_args = Vec::with_capacity(args.len());
        let mut else_args = Vec::with_capacity(args.len());
        for (j, x) in args.iter().enumerate() {
            let s = format!("{name}/switch_{j}");
            self.push(node(s.clone(), "Switch", switch(x)))?;
            then_args.push(format!("{s}:1"));
            else_args.push(s);
        }
        let t = self.inline(then_f, &format!("{name}/then"), &then_args, Some(&pivot_t))?;
        let e = self.inline(else_f, &format!("{name}/else"), &else_args, Some(&pivot_f))?;
        if t.len() != e.len() {
            return Err(invalid_argument(format!(
                "If node '{name}': branches return {} and {} values",
                t.len(),
                e.len()
            )));
        }
        let mut merged = Vec::with_capacity(t.len());
        for (k, (a, b)) in t.into_iter().zip(e).enumerate() {
            let m = format!("{name}/merge_{k}");
            self.push(node(m.clone(), "Merge", vec![a, b]))?;
            merged.push(m);
        }
        Ok(merged)
    }

    /// Inlines function `fname` with its nodes renamed under `prefix`, its input args bound to
    /// `args`; returns its results (one per output arg) as tensor names of the final graph.
    fn inline(
        &mut self,
        fname: &'a str,
        prefix: &str,
        args: &[String],
        pivot: Option<&str>,
    ) -> Result<Vec<String>> {
        if self.stack.contains(&fname) {
            return Err(invalid_argument(format!("function '{fname}' calls itself")));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(invalid_argument(format!(
                "functions nest deeper than {MAX_DEPTH} calls"
            )));
        }
        let f: &'a FunctionDef<'a> = self.funcs[fname];
        let sig = &f.signature;
        if sig.input_arg.len() != args.len() {
            return Err(invalid_argument(format!(
                "function '{fname}' takes {} inputs, called with {}",
                sig.input_arg.len(),
                args.len()
            )));
        }
        let arg_of: HashMap<&str, &str, FastBuild> = sig
            .input_arg
            .iter()
            .map(|a| &*a.name)
            .zip(args.iter().map(String::as_str))
            .collect();
        let op_of: HashMap<&str, &str, FastBuild> =
            f.node_def.iter().map(|n| (&*n.name, &*n.op)).collect();
        let rename = |s: &str| -> Result<String> {
            if let Some(src) = s.strip_prefix('^') {
                return Ok(match arg_of.get(src) {
                    Some(a) => format!(
                        "^{}",
                        a.trim_start_matches('^').split(':').next().unwrap_or(a)
                    ),
                    None if op_of.contains_key(src) => format!("^{prefix}/{src}"),
                    None => return Err(unknown(fname, s)),
                });
            }
            let mut parts = s.split(':');
            let node = parts.next().unwrap_or_default();
            match (parts.next(), parts.next(), parts.next()) {
                (None, ..) => match (arg_of.get(node), op_of.contains_key(node)) {
                    (Some(a), _) => Ok(a.to_string()),
                    (None, true) => Ok(format!("{prefix}/{node}")),
                    _ => Err(unknown(fname, s)),
                },
                (Some(arg), Some(idx), None) => {
                    let op = op_of.get(node).ok_or_else(|| unknown(fname, s))?;
                    let idx: usize = idx.parse().map_err(|_| unknown(fname, s))?;
                    let base = match (*op, arg) {
                        // RaggedGather's splits list is OUTPUT_RAGGED_RANK long.
                        ("RaggedGather", "output_dense_values") => f
                            .node_def
                            .iter()
                            .find(|n| n.name == node)
                            .and_then(|n| n.attr_value("OUTPUT_RAGGED_RANK"))
                            .and_then(|v| match v {
                                Ok(crate::ops::AttrValue::Int(r)) => usize::try_from(r).ok(),
                                _ => None,
                            })
                            .ok_or_else(|| unknown(fname, s))?,
                        _ => output_base(op, arg),
                    };
                    Ok(format!("{prefix}/{node}:{}", base + idx))
                }
                (Some(idx), None, None) if op_of.contains_key(node) => {
                    Ok(format!("{prefix}/{node}:{idx}"))
                }
                _ => Err(unknown(fname, s)),
            }
        };
        self.stack.push(fname);
        for n in &f.node_def {
            let new_name = format!("{prefix}/{}", n.name);
            let mut input = n
                .input
                .iter()
                .map(|s| rename(s).map(Cow::Owned))
                .collect::<Result<Vec<_>>>()?;
            if input.is_empty() {
                if let Some(p) = pivot {
                    input.push(Cow::Owned(format!("^{p}")));
                }
            }
            if n.op == "Const" {
                self.charge(new_name.len() + n.name.len())?;
                self.out
                    .weight_names
                    .insert(new_name.clone(), n.name.to_string());
            }
            let lowered = NodeDef {
                name: Cow::Owned(new_name),
                op: n.op.clone(),
                input,
                attr: n.attr.clone(),
            };
            self.node(lowered, pivot)?;
        }
        self.stack.pop();
        sig.output_arg
            .iter()
            .map(|o| {
                let r = f
                    .ret
                    .iter()
                    .rev()
                    .find(|(k, _)| *k == o.name)
                    .ok_or_else(|| {
                        invalid_argument(format!(
                            "function '{fname}' has no ret for output '{}'",
                            o.name
                        ))
                    })?;
                rename(&r.1)
            })
            .collect()
    }
}

fn unknown(fname: &str, s: &str) -> crate::status::Status {
    invalid_argument(format!(
        "function '{fname}' reads '{s}', which names none of its nodes or inputs"
    ))
}

/// The index of output arg `arg`'s first tensor among an op's outputs. Function bodies name
/// outputs `node:arg:index`; most ops have one output arg (maybe a list), so `index` is the
/// output, and those with several are listed here.
fn output_base(op: &str, arg: &str) -> usize {
    let args: &[&str] = match op {
        "Switch" | "RefSwitch" => &["output_false", "output_true"],
        "Merge" | "RefMerge" => &["output", "value_index"],
        "TopKV2" => &["values", "indices"],
        "Unique" => &["y", "idx"],
        "RaggedRange" => &["rt_nested_splits", "rt_dense_values"],
        "TensorListPopBack" => &["output_handle", "tensor"],
        "TensorListConcat" | "TensorListConcatV2" => &["tensor", "lengths"],
        "NonMaxSuppressionV4" => &["selected_indices", "valid_outputs"],
        "NonMaxSuppressionV5" => &["selected_indices", "selected_scores", "valid_outputs"],
        "FusedBatchNorm" | "FusedBatchNormV2" | "FusedBatchNormV3" => &[
            "y",
            "batch_mean",
            "batch_variance",
            "reserve_space_1",
            "reserve_space_2",
            "reserve_space_3",
        ],
        _ => &[],
    };
    args.iter().position(|a| *a == arg).unwrap_or(0)
}
