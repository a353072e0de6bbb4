//! Runs a loaded graph: nodes in order through `EagerContext`, each intermediate freed right after
//! its last consumer.

use super::profile::Profiler;
use super::{KeyMemo, LoadedGraph, NodeKind, TensorInfo};
use crate::eager::cache_key::CPU_DEVICE;
use crate::eager::{CacheKey, EagerContext};
use crate::ops::{AttrValue, OpDef};
use crate::status::{failed_precondition, invalid_argument, Result};
use crate::tensor::{DType, Data, Tensor};
use std::cell::RefCell;

/// Matches feeds to the signature inputs (by key, tensor name or node name) and checks dtype, rank
/// and fixed dims. `optional[k]`: input `k` may be left unfed (an input past its end is required).
pub fn order_feeds(
    inputs: &[TensorInfo],
    optional: &[bool],
    feeds: Vec<(String, Tensor)>,
) -> Result<Vec<Option<Tensor>>> {
    let is_optional = |k: usize| optional.get(k).copied().unwrap_or(false);
    let required = (0..inputs.len()).filter(|&k| !is_optional(k)).count();
    if feeds.len() > inputs.len() || feeds.len() < required {
        return Err(invalid_argument(format!(
            "model takes {} input{} ({}), got {}",
            inputs.len(),
            if inputs.len() == 1 { "" } else { "s" },
            names(inputs),
            feeds.len()
        )));
    }
    let mut ordered: Vec<Option<Tensor>> = vec![None; inputs.len()];
    for (key, t) in feeds {
        let k = inputs
            .iter()
            .position(|i| {
                i.name == key
                    || i.tensor_name == key
                    || i.tensor_name.strip_suffix(":0") == Some(key.as_str())
            })
            .ok_or_else(|| {
                invalid_argument(format!(
                    "model has no input '{key}' (inputs: {})",
                    names(inputs)
                ))
            })?;
        if ordered[k].is_some() {
            return Err(invalid_argument(format!("input '{key}' is fed twice")));
        }
        ordered[k] = Some(check_input(&inputs[k], t)?);
    }
    if let Some(k) = (0..inputs.len()).find(|&k| ordered[k].is_none() && !is_optional(k)) {
        return Err(invalid_argument(format!(
            "input '{}' is not fed (inputs: {})",
            inputs[k].name,
            names(inputs)
        )));
    }
    Ok(ordered)
}

fn names(inputs: &[TensorInfo]) -> String {
    inputs
        .iter()
        .map(|i| i.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The feed for input `info`, checked. A uint8 input also takes int32 values in 0..=255 (TF.js
/// has no uint8: its models take int32 there, which is what `fromPixels` makes by default).
fn check_input(info: &TensorInfo, t: Tensor) -> Result<Tensor> {
    let t = if info.dtype == DType::UInt8 && t.dtype() == DType::Int32 {
        int32_as_uint8(info, &t)?
    } else {
        t
    };
    if t.dtype() != info.dtype {
        return Err(invalid_argument(format!(
            "input '{}' must be {}, got {}",
            info.name,
            info.dtype,
            t.dtype()
        )));
    }
    if let Some(want) = &info.shape {
        let fits = want.len() == t.rank()
            && want
                .iter()
                .zip(t.dims())
                .all(|(&w, &d)| w < 0 || w as usize == d);
        if !fits {
            return Err(invalid_argument(format!(
                "input '{}' must have shape {want:?} (-1: any size), got {}",
                info.name,
                t.shape()
            )));
        }
    }
    Ok(t)
}

/// An int32 feed of a uint8 input as uint8; a value outside 0..=255 is refused, where TF.js would
/// run the graph on it unchanged (it holds uint8 inputs as int32).
fn int32_as_uint8(info: &TensorInfo, t: &Tensor) -> Result<Tensor> {
    let values = t.as_slice::<i32>()?;
    if let Some((i, v)) = values
        .iter()
        .enumerate()
        .find(|(_, v)| u8::try_from(**v).is_err())
    {
        return Err(invalid_argument(format!(
            "input '{}' is uint8: its int32 feed holds {v} at flat index {i}, outside 0..255",
            info.name
        )));
    }
    let mut bytes = crate::tensor::try_with_capacity::<u8>(values.len())?;
    bytes.extend(values.iter().map(|&v| v as u8));
    Tensor::new(t.shape().clone(), Data::U8(bytes))
}

/// One op node: through the key of an earlier run when the input dtypes are the same; otherwise
/// as `execute` runs an op (the same resolution, so the same errors), remembering the key from the
/// second run on.
fn run_op(
    ctx: &mut EagerContext,
    def: &'static OpDef,
    (attrs, values): (&[(&'static str, u32)], &[AttrValue]),
    memo: &RefCell<KeyMemo>,
    args: &[Tensor],
) -> Result<Vec<Tensor>> {
    let given = || attrs.iter().map(|&(k, v)| (k, values[v as usize].clone()));
    // Held while the kernel runs. A call abandoned mid-run (JS threw through wasm: a failed
    // on-demand load) never releases it; the node then runs as `execute` does, unmemoized.
    let Ok(mut memo) = memo.try_borrow_mut() else {
        return ctx.execute_op(def, args, given());
    };
    match &*memo {
        KeyMemo::Resolved { dtypes, key }
            if dtypes.len() == args.len()
                && dtypes.iter().zip(args).all(|(&d, t)| d == t.dtype()) =>
        {
            ctx.execute_key(key, args)
        }
        KeyMemo::NeverRun => {
            *memo = KeyMemo::RanOnce;
            ctx.execute_op(def, args, given())
        }
        _ => {
            let key = CacheKey::new(CPU_DEVICE, crate::ops::resolve_attrs(def, args, given())?);
            let out = ctx.execute_key(&key, args);
            *memo = KeyMemo::Resolved {
                dtypes: args.iter().map(Tensor::dtype).collect(),
                key,
            };
            out
        }
    }
}

/// Computes the node at `p` on `args` (its data inputs): the one place a node does its work, for
/// the static schedule and the control-flow one alike.
pub(crate) fn step(
    ctx: &mut EagerContext,
    g: &LoadedGraph,
    p: usize,
    feeds: &[Option<Tensor>],
    args: &[Tensor],
) -> Result<Vec<Tensor>> {
    Ok(match &g.nodes[p].kind {
        NodeKind::Feed(k) => vec![feeds[*k]
            .clone()
            .ok_or_else(|| invalid_argument("a required input is not fed"))?],
        // A PlaceholderWithDefault: the feed when given, else its default input.
        NodeKind::FeedOr {
            feed,
            def,
            attrs,
            resolved,
        } => match &feeds[*feed] {
            Some(t) => vec![t.clone()],
            None => run_op(ctx, def, (attrs, &g.attr_values), resolved, args)
                .map_err(|e| e.context(format!("node '{}'", g.name(p))))?,
        },
        NodeKind::Constant(t) => vec![t.clone()],
        NodeKind::Variable { handle, read } => {
            ctx.execute_key(&g.read_keys[*read], std::slice::from_ref(handle))?
        }
        NodeKind::Op {
            def,
            attrs,
            resolved,
        } => run_op(ctx, def, (attrs, &g.attr_values), resolved, args)
            .map_err(|e| e.context(format!("node '{}'", g.name(p))))?,
        NodeKind::Flow(_) => {
            return Err(crate::status::internal(format!(
                "control-flow node '{}' outside the dynamic schedule",
                g.name(p)
            )))
        }
    })
}

/// Runs the graph; returns the signature outputs, or with `fetch` those (position, output) pairs
/// (intermediate nodes included) instead. `probe`, when given, times every node.
pub(crate) fn run(
    ctx: &mut EagerContext,
    g: &LoadedGraph,
    feeds: &[Option<Tensor>],
    fetch: Option<&[(usize, usize)]>,
    mut probe: Option<&mut Profiler>,
) -> Result<Vec<Tensor>> {
    let mut fetched: Vec<Option<Tensor>> = vec![None; fetch.map_or(0, <[_]>::len)];
    let mut values: Vec<Option<Tensor>> = vec![None; g.uses.len()];
    let mut remaining = g.uses.clone();
    let mut args: Vec<Tensor> = Vec::new();
    for (p, node) in g.nodes.iter().enumerate() {
        let inputs = &g.inputs[node.inputs.clone()];
        args.clear();
        for &(src, out) in inputs {
            let t = g
                .slot(src, out)
                .and_then(|k| values[k].as_ref())
                .ok_or_else(|| {
                    invalid_argument(format!(
                        "node '{}' reads output {out} of node '{}', which has no such output",
                        g.name(p),
                        g.name(src)
                    ))
                })?;
            args.push(t.clone());
        }
        // Inputs are held in `args` now; release the graph's copy at its last use.
        for &(src, out) in inputs {
            if let Some(k) = g.slot(src, out) {
                remaining[k] -= 1;
                if remaining[k] == 0 {
                    values[k] = None;
                }
            }
        }
        // One call site for `step` (it inlines): the probe only brackets it.
        let mark = probe.as_deref().map(|pr| pr.start(ctx));
        let outs = step(ctx, g, p, feeds, &args)?;
        if let (Some(pr), Some(mark)) = (probe.as_deref_mut(), mark) {
            pr.record(ctx, g, p, mark, (&args, &outs));
        }
        if let Some(fetch) = fetch {
            for (slot, &(fp, fo)) in fetched.iter_mut().zip(fetch) {
                if fp == p {
                    *slot = outs.get(fo).cloned();
                }
            }
        }
        // Keep only outputs somebody uses.
        for (t, k) in outs.into_iter().zip(node.slots.clone()) {
            if g.uses[k] > 0 {
                values[k] = Some(t);
            }
        }
    }
    if let Some(fetch) = fetch {
        return fetched
            .into_iter()
            .zip(fetch)
            .map(|(t, &(p, out))| {
                t.ok_or_else(|| {
                    failed_precondition(format!("node '{}' has no output {out}", g.name(p)))
                })
            })
            .collect();
    }
    g.outputs
        .iter()
        .map(|&(p, out)| {
            g.slot(p, out)
                .and_then(|k| values[k].clone())
                .ok_or_else(|| {
                    failed_precondition(format!(
                        "output {out} of node '{}' was not produced",
                        g.name(p)
                    ))
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::{Data, Shape};

    /// A memo whose borrow an abandoned call never released: the node still runs, unmemoized,
    /// instead of panicking (which would kill the instance).
    #[test]
    fn a_memo_left_borrowed_runs_the_node_unmemoized() {
        let mut ctx = EagerContext::default();
        let def = crate::registry::lookup("AddV2").unwrap();
        let memo = RefCell::new(KeyMemo::NeverRun);
        std::mem::forget(memo.borrow_mut());
        let x = Tensor::new(Shape::from_dims(&[2]).unwrap(), Data::F32(vec![1.0, 2.0])).unwrap();
        let out = run_op(&mut ctx, def, (&[], &[]), &memo, &[x.clone(), x]).unwrap();
        assert_eq!(out[0].f32s().unwrap(), &[2.0, 4.0]);
    }
}
