//! The dynamic schedule for graphs with TF's dataflow control flow (v1: `Switch`, `Merge`, `Enter`,
//! `Exit`, `NextIteration`, `LoopCond`), run the way TF's executor defines it: a node runs once per
//! (frame instance, iteration) when all its inputs have arrived there; a dead input makes it dead
//! (it runs no kernel and its outputs are dead) except `Merge`, which fires on its first live
//! input; `Enter` moves into a child frame, `NextIteration` to the next iteration, `Exit` back out.
//! Graphs without these ops never come here (they keep the static schedule).

use super::executor::step;
use super::profile::Profiler;
use super::{LoadedGraph, NodeKind};
use crate::eager::EagerContext;
use crate::hash::FastBuild;
use crate::status::{failed_precondition, internal, invalid_argument, resource_exhausted, Result};
use crate::tensor::{DType, Tensor};
use std::collections::HashMap;
use std::ops::Range;

/// A control-flow node: run by the executor itself, no kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlowOp {
    /// Into the child frame `frame` (index into `Flow::frames`); `constant`: a loop invariant,
    /// seen by every iteration.
    Enter {
        frame: u32,
        constant: bool,
    },
    Exit,
    Switch,
    Merge,
    NextIteration,
    LoopCond,
}

impl FlowOp {
    /// The op a node name stands for, Ref variants included (refs are plain tensors here).
    pub fn parse(op: &str) -> Option<FlowOp> {
        Some(match op.strip_prefix("Ref").unwrap_or(op) {
            "Enter" => FlowOp::Enter {
                frame: 0,
                constant: false,
            },
            "Exit" => FlowOp::Exit,
            "Switch" => FlowOp::Switch,
            "Merge" => FlowOp::Merge,
            "NextIteration" => FlowOp::NextIteration,
            "LoopCond" if op == "LoopCond" => FlowOp::LoopCond,
            _ => return None,
        })
    }

    /// Its op name, for profiles.
    pub fn name(self) -> &'static str {
        match self {
            FlowOp::Enter { .. } => "Enter",
            FlowOp::Exit => "Exit",
            FlowOp::Switch => "Switch",
            FlowOp::Merge => "Merge",
            FlowOp::NextIteration => "NextIteration",
            FlowOp::LoopCond => "LoopCond",
        }
    }
}

/// A consumer edge: output `port` of a node (or `CONTROL`) to input `input` of node `to`.
#[derive(Clone, Copy)]
struct Out {
    port: u32,
    to: u32,
    input: u32,
}

const CONTROL: u32 = u32::MAX;

/// What the dynamic schedule needs beyond `LoadedGraph`: who consumes each node, and what each waits for.
pub(crate) struct Flow {
    outs: Vec<Out>,
    out_ranges: Vec<Range<usize>>,
    /// Control inputs of each position (a node waits for them too; a dead one makes it dead).
    n_control: Vec<u32>,
    /// Data inputs of each position that come from a NextIteration (a loop Merge's back edges).
    n_back: Vec<u32>,
    /// Frame names, for Enter nodes and messages.
    pub frames: Vec<String>,
}

impl Flow {
    /// `data[p]`: data inputs of position `p` as (position, output); `control[p]`: its control
    /// inputs; `flow[p]`: its control-flow op, if any.
    pub fn new(
        data: &[(usize, usize)],
        data_ranges: &[Range<usize>],
        control: &[Vec<usize>],
        flow: &[Option<FlowOp>],
        frames: Vec<String>,
    ) -> Flow {
        let n = data_ranges.len();
        let mut per: Vec<Vec<Out>> = vec![Vec::new(); n];
        let mut n_back = vec![0u32; n];
        for (to, r) in data_ranges.iter().enumerate() {
            for (input, &(src, port)) in data[r.clone()].iter().enumerate() {
                per[src].push(Out {
                    port: port as u32,
                    to: to as u32,
                    input: input as u32,
                });
                if flow[src] == Some(FlowOp::NextIteration) {
                    n_back[to] += 1;
                }
            }
        }
        for (to, c) in control.iter().enumerate() {
            for &src in c {
                per[src].push(Out {
                    port: CONTROL,
                    to: to as u32,
                    input: 0,
                });
            }
        }
        let mut outs = Vec::with_capacity(per.iter().map(Vec::len).sum());
        let mut out_ranges = Vec::with_capacity(n);
        for v in per {
            let start = outs.len();
            outs.extend(v);
            out_ranges.push(start..outs.len());
        }
        Flow {
            outs,
            out_ranges,
            n_control: control.iter().map(|c| c.len() as u32).collect(),
            n_back,
            frames,
        }
    }
}

/// Where a value lives: an iteration of a frame instance (instance 0: the root frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Tag {
    instance: u32,
    iter: u32,
}

const ROOT: Tag = Tag {
    instance: 0,
    iter: 0,
};

/// One execution of a loop (a frame entered from one iteration of its parent).
struct Instance {
    parent: Tag,
    frame: u32,
    depth: u32,
    /// Highest iteration started.
    iterations: u32,
    /// Loop invariants (constant Enters) that arrived, replayed into each new iteration.
    constants: Vec<(u32, Option<Tensor>)>,
    /// Exit nodes that produced a live value; dead ones waiting for the frame to finish.
    live_exits: Vec<u32>,
    dead_exits: Vec<u32>,
}

/// Inputs of one node at one tag, as they arrive. `None`: not arrived or dead.
struct Waiting {
    args: Vec<Option<Tensor>>,
    arrived: u32,
    dead: bool,
    /// A Merge that already fired at this tag ignores later inputs.
    fired: bool,
}

struct Ready {
    node: u32,
    tag: Tag,
    args: Vec<Option<Tensor>>,
    dead: bool,
}

struct Run<'g> {
    g: &'g LoadedGraph,
    f: &'g Flow,
    instances: Vec<Instance>,
    instance_of: HashMap<(Tag, u32), u32, FastBuild>,
    waiting: HashMap<(u32, Tag), Waiting, FastBuild>,
    ready: Vec<Ready>,
    /// What the run returns, as (position, output), and those values once made.
    fetch: &'g [(usize, usize)],
    results: Vec<Option<Option<Tensor>>>,
    /// Iterations and loop instances started so far, against `limit`.
    work: u64,
    limit: u64,
    /// Node runs left: `limit` iterations of every node, so that a malformed graph that fires
    /// nodes more than once per iteration cannot run on unbounded either.
    runs_left: u64,
}

/// Runs a graph with control flow. `max_iterations` bounds loop iterations (all loops of this run
/// together, each new loop instance counting as one).
/// `fetch`: (position, output) pairs to return instead of the signature outputs; values are
/// taken in the root frame. `probe`, when given, times every live node run (dead ones run
/// nothing).
pub fn run(
    ctx: &mut EagerContext,
    g: &LoadedGraph,
    f: &Flow,
    feeds: &[Option<Tensor>],
    max_iterations: u64,
    fetch: Option<&[(usize, usize)]>,
    mut probe: Option<&mut Profiler>,
) -> Result<Vec<Tensor>> {
    let fetch = fetch.unwrap_or(&g.outputs);
    let mut r = Run {
        g,
        f,
        instances: vec![Instance {
            parent: ROOT,
            frame: u32::MAX,
            depth: 0,
            iterations: 0,
            constants: Vec::new(),
            live_exits: Vec::new(),
            dead_exits: Vec::new(),
        }],
        instance_of: HashMap::default(),
        waiting: HashMap::default(),
        ready: Vec::new(),
        fetch,
        results: vec![None; fetch.len()],
        work: 0,
        limit: max_iterations,
        runs_left: max_iterations
            .saturating_add(1)
            .saturating_mul(g.nodes.len() as u64 + 1),
    };
    // Sources, pushed in reverse so the stack pops them in graph order.
    for (p, node) in g.nodes.iter().enumerate().rev() {
        if node.inputs.is_empty() && f.n_control[p] == 0 {
            r.ready.push(Ready {
                node: p as u32,
                tag: ROOT,
                args: Vec::new(),
                dead: false,
            });
        }
    }
    loop {
        while let Some(item) = r.ready.pop() {
            r.runs_left = r.runs_left.checked_sub(1).ok_or_else(|| {
                resource_exhausted(format!(
                    "model ran more nodes than {} loop iterations allow (the maxLoopIterations \
                     bound); its control flow may be malformed",
                    r.limit
                ))
            })?;
            let node = item.node as usize;
            let is_flow = matches!(g.nodes[node].kind, NodeKind::Flow(_));
            // A control-flow node is timed here (its handoff; it passes on its first live input),
            // a kernel node around its step in `fire`. One call site: `fire` inlines.
            let flow_mark = match probe.as_deref() {
                Some(pr) if is_flow && !item.dead => {
                    Some((pr.start(ctx), item.args.iter().flatten().next().cloned()))
                }
                _ => None,
            };
            let kernel_probe = probe.as_deref_mut().filter(|_| !is_flow);
            r.fire(ctx, feeds, item, kernel_probe)?;
            if let (Some(pr), Some((mark, passed))) = (probe.as_deref_mut(), flow_mark) {
                pr.record(ctx, g, node, mark, passed.as_slice());
            }
        }
        if !r.finish_dead_exits() {
            break;
        }
    }
    let results = std::mem::take(&mut r.results);
    results
        .into_iter()
        .zip(fetch)
        .map(|(v, &(p, out))| match v {
            Some(Some(t)) => Ok(t),
            Some(None) => Err(failed_precondition(format!(
                "output {out} of node '{}' is dead (it lies on a branch that was not taken)",
                g.name(p)
            ))),
            None => Err(failed_precondition(format!(
                "output {out} of node '{}' was not produced",
                g.name(p)
            ))),
        })
        .collect()
}

impl Run<'_> {
    fn fire(
        &mut self,
        ctx: &mut EagerContext,
        feeds: &[Option<Tensor>],
        item: Ready,
        probe: Option<&mut Profiler>,
    ) -> Result<()> {
        let Ready {
            node,
            tag,
            mut args,
            dead,
        } = item;
        let p = node as usize;
        let g = self.g;
        let flow = match &g.nodes[p].kind {
            NodeKind::Flow(op) => Some(*op),
            _ => None,
        };
        let Some(op) = flow else {
            if dead {
                return self.propagate(p, tag, &[], true);
            }
            // A malformed graph can deliver to one input twice and so fire a node early.
            let live = args
                .into_iter()
                .collect::<Option<Vec<Tensor>>>()
                .ok_or_else(|| {
                    invalid_argument(format!(
                        "node '{}' ran with an input missing (malformed control flow)",
                        g.name(p)
                    ))
                })?;
            let mark = probe.as_deref().map(|pr| pr.start(ctx));
            let outs = step(ctx, g, p, feeds, &live)?;
            if let (Some(pr), Some(mark)) = (probe, mark) {
                pr.record(ctx, g, p, mark, &outs);
            }
            drop(live);
            let outs: Vec<Option<Tensor>> = outs.into_iter().map(Some).collect();
            return self.propagate(p, tag, &outs, false);
        };
        let name = || g.name(p);
        match op {
            FlowOp::Merge => {
                // Fires live with the first live input (its index as output 1), dead if none was.
                let live = args
                    .iter_mut()
                    .enumerate()
                    .find_map(|(i, a)| a.take().map(|t| (i, t)));
                match live {
                    Some((i, t)) => {
                        let index = Tensor::scalar(i as i32);
                        self.propagate(p, tag, &[Some(t), Some(index)], false)
                    }
                    None => self.propagate(p, tag, &[], true),
                }
            }
            _ if dead => match op {
                // A dead Exit waits: it is dead for the parent only if its loop never leaves
                // through it live (`finish_dead_exits`).
                FlowOp::Exit => {
                    let inst = &mut self.instances[tag.instance as usize];
                    if !inst.dead_exits.contains(&node) {
                        inst.dead_exits.push(node);
                    }
                    Ok(())
                }
                // A dead value does not start another iteration (TF drops it).
                FlowOp::NextIteration => Ok(()),
                FlowOp::Enter { frame, constant } => {
                    let child = self.enter(tag, frame)?;
                    if constant {
                        self.constant(child, node, None)?;
                    }
                    self.propagate(p, child, &[], true)
                }
                _ => self.propagate(p, tag, &[], true),
            },
            _ => {
                let first = take_arg(&mut args, 0, name)?;
                match op {
                    FlowOp::Enter { frame, constant } => {
                        let child = self.enter(tag, frame)?;
                        if constant {
                            self.constant(child, node, Some(first.clone()))?;
                        }
                        self.propagate(p, child, &[Some(first)], false)
                    }
                    FlowOp::Exit => {
                        let inst = &mut self.instances[tag.instance as usize];
                        if !inst.live_exits.contains(&node) {
                            inst.live_exits.push(node);
                        }
                        let parent = inst.parent;
                        self.propagate(p, parent, &[Some(first)], false)
                    }
                    FlowOp::NextIteration => {
                        let next = self.next_iteration(tag)?;
                        self.propagate(p, next, &[Some(first)], false)
                    }
                    FlowOp::LoopCond => {
                        predicate(&first, name)?;
                        self.propagate(p, tag, &[Some(first)], false)
                    }
                    FlowOp::Switch => {
                        let pred = take_arg(&mut args, 1, name)?;
                        // Output 1 (true) or 0 (false) carries the value; the other is dead.
                        let outs = if predicate(&pred, name)? {
                            [None, Some(first)]
                        } else {
                            [Some(first), None]
                        };
                        self.propagate(p, tag, &outs, false)
                    }
                    FlowOp::Merge => Err(internal("Merge handled above")),
                }
            }
        }
    }

    /// The tag of iteration 0 of frame `frame` entered from `parent` (a new instance on first use).
    fn enter(&mut self, parent: Tag, frame: u32) -> Result<Tag> {
        if let Some(&i) = self.instance_of.get(&(parent, frame)) {
            return Ok(Tag {
                instance: i,
                iter: 0,
            });
        }
        self.count_work(frame)?;
        let i = self.instances.len() as u32;
        let depth = self.instances[parent.instance as usize].depth + 1;
        self.instances.push(Instance {
            parent,
            frame,
            depth,
            iterations: 0,
            constants: Vec::new(),
            live_exits: Vec::new(),
            dead_exits: Vec::new(),
        });
        self.instance_of.insert((parent, frame), i);
        Ok(Tag {
            instance: i,
            iter: 0,
        })
    }

    fn count_work(&mut self, frame: u32) -> Result<()> {
        self.work += 1;
        if self.work > self.limit {
            let name = self
                .f
                .frames
                .get(frame as usize)
                .map_or("?", String::as_str);
            return Err(resource_exhausted(format!(
                "loop '{name}' still running after {} iterations in one run (the \
                 maxLoopIterations bound); the model may loop forever",
                self.limit
            )));
        }
        Ok(())
    }

    fn next_iteration(&mut self, tag: Tag) -> Result<Tag> {
        let next = Tag {
            instance: tag.instance,
            iter: tag
                .iter
                .checked_add(1)
                .ok_or_else(|| internal("iteration overflow"))?,
        };
        let inst = &self.instances[tag.instance as usize];
        if next.iter > inst.iterations {
            let frame = inst.frame;
            self.count_work(frame)?;
            let inst = &mut self.instances[tag.instance as usize];
            inst.iterations = next.iter;
            // Loop invariants reach every iteration.
            let constants: Vec<(u32, Option<Tensor>)> = inst.constants.clone();
            for (enter, v) in constants {
                let dead = v.is_none();
                self.propagate(enter as usize, next, &[v], dead)?;
            }
        }
        Ok(next)
    }

    /// Records a loop invariant and hands it to the iterations already started after iteration 0.
    fn constant(&mut self, child: Tag, enter: u32, v: Option<Tensor>) -> Result<()> {
        let inst = &mut self.instances[child.instance as usize];
        inst.constants.push((enter, v.clone()));
        let started = inst.iterations;
        for iter in 1..=started {
            let tag = Tag {
                instance: child.instance,
                iter,
            };
            self.propagate(enter as usize, tag, std::slice::from_ref(&v), v.is_none())?;
        }
        Ok(())
    }

    /// Hands node `p`'s outputs at `tag` to its consumers (and to the model outputs at the root).
    /// `dead`: the node itself is dead (every output dead, control edges dead too).
    fn propagate(&mut self, p: usize, tag: Tag, outs: &[Option<Tensor>], dead: bool) -> Result<()> {
        let g = self.g;
        if tag == ROOT {
            for (k, &(src, port)) in self.fetch.iter().enumerate() {
                if src == p {
                    self.results[k] = Some(if dead {
                        None
                    } else {
                        outs_at(g, p, outs, port)?
                    });
                }
            }
        }
        for e in &self.f.outs[self.f.out_ranges[p].clone()] {
            let value = if e.port == CONTROL {
                Err(dead)
            } else if dead {
                Ok(None)
            } else {
                Ok(outs_at(g, p, outs, e.port as usize)?)
            };
            self.arrive(e.to, e.input, tag, value);
        }
        Ok(())
    }

    /// One input of node `to` at `tag` arrives: `Ok(value)` (None: dead) for data input `input`,
    /// `Err(dead)` for a control input. The node becomes ready when all it waits for is there.
    fn arrive(
        &mut self,
        to: u32,
        input: u32,
        tag: Tag,
        value: std::result::Result<Option<Tensor>, bool>,
    ) {
        let q = to as usize;
        let n_data = self.g.nodes[q].inputs.len();
        let is_merge = matches!(self.g.nodes[q].kind, NodeKind::Flow(FlowOp::Merge));
        let expected = if is_merge {
            // A loop Merge gets its Enter input in iteration 0 and its back edge after; a cond
            // Merge gets all its inputs. Control inputs don't gate a Merge.
            let back = self.f.n_back[q] as usize;
            match (back, tag.iter) {
                (0, _) => n_data,
                (b, 0) => n_data - b,
                (b, _) => b,
            }
        } else {
            n_data + self.f.n_control[q] as usize
        } as u32;
        let w = self.waiting.entry((to, tag)).or_insert_with(|| Waiting {
            args: vec![None; n_data],
            arrived: 0,
            dead: false,
            fired: false,
        });
        match value {
            Err(_) if is_merge => return,
            Err(dead) => w.dead |= dead,
            Ok(None) => w.dead = true,
            Ok(Some(t)) => w.args[input as usize] = Some(t),
        }
        w.arrived += 1;
        if is_merge && !w.fired && w.args.iter().any(Option::is_some) {
            // First live input: fire now; later ones at this tag are ignored.
            w.fired = true;
            let args = std::mem::replace(&mut w.args, vec![None; n_data]);
            self.ready.push(Ready {
                node: to,
                tag,
                args,
                dead: false,
            });
        } else if is_merge {
            w.args.iter_mut().for_each(|a| *a = None);
        }
        if w.arrived >= expected {
            let w = self.waiting.remove(&(to, tag)).expect("present");
            if !(is_merge && w.fired) {
                self.ready.push(Ready {
                    node: to,
                    tag,
                    args: w.args,
                    dead: w.dead || is_merge,
                });
            }
        }
    }

    /// Once nothing is ready: the dead Exits of the innermost loops that never left live become
    /// dead values in their parents (TF's rule for a loop in a branch not taken). Returns whether
    /// that made anything ready.
    fn finish_dead_exits(&mut self) -> bool {
        let Some(depth) = self
            .instances
            .iter()
            .filter(|i| i.dead_exits.iter().any(|e| !i.live_exits.contains(e)))
            .map(|i| i.depth)
            .max()
        else {
            return false;
        };
        let mut pending = Vec::new();
        for inst in self.instances.iter_mut().filter(|i| i.depth == depth) {
            for e in std::mem::take(&mut inst.dead_exits) {
                if !inst.live_exits.contains(&e) {
                    pending.push((e, inst.parent));
                }
            }
        }
        for (e, parent) in pending {
            // Dead propagation has no outputs to read, so it cannot fail.
            let _ = self.propagate(e as usize, parent, &[], true);
        }
        !self.ready.is_empty()
    }
}

/// Output `port` of node `p` (computed `outs`), or the error for a port it doesn't have.
fn outs_at(
    g: &LoadedGraph,
    p: usize,
    outs: &[Option<Tensor>],
    port: usize,
) -> Result<Option<Tensor>> {
    outs.get(port).cloned().ok_or_else(|| {
        invalid_argument(format!(
            "a node reads output {port} of node '{}', which has no such output",
            g.name(p)
        ))
    })
}

fn take_arg<'a>(
    args: &mut [Option<Tensor>],
    i: usize,
    name: impl Fn() -> &'a str,
) -> Result<Tensor> {
    args.get_mut(i).and_then(Option::take).ok_or_else(|| {
        invalid_argument(format!(
            "control-flow node '{}' is missing input {i}",
            name()
        ))
    })
}

/// A Switch / LoopCond predicate: a bool scalar.
fn predicate<'a>(t: &Tensor, name: impl Fn() -> &'a str) -> Result<bool> {
    if t.dtype() != DType::Bool || t.shape().num_elements() != 1 {
        return Err(invalid_argument(format!(
            "node '{}': predicate must be a bool scalar, got {} of shape {}",
            name(),
            t.dtype(),
            t.shape()
        )));
    }
    Ok(t.as_slice::<bool>()?[0])
}
