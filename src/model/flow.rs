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
use std::collections::{HashMap, VecDeque};
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
    /// Enter nodes of each frame: a loop instance has all its inputs once that many arrived.
    enters: Vec<u32>,
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
        let mut enters = vec![0u32; frames.len()];
        for op in flow.iter().flatten() {
            if let FlowOp::Enter { frame, .. } = op {
                if let Some(n) = enters.get_mut(*frame as usize) {
                    *n += 1;
                }
            }
        }
        Flow {
            outs,
            out_ranges,
            n_control: control.iter().map(|c| c.len() as u32).collect(),
            n_back,
            frames,
            enters,
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

/// Bookkeeping of one iteration that has not retired yet.
#[derive(Clone, Copy, Default)]
struct IterState {
    /// Ready nodes at this iteration not yet run, plus loops entered from it not yet finished.
    outstanding: u32,
    /// Nodes at this iteration that have some inputs but not all (entries of `Run::waiting`).
    waiting: u32,
}

/// One execution of a loop (a frame entered from one iteration of its parent).
struct Instance {
    parent: Tag,
    frame: u32,
    depth: u32,
    /// Highest iteration started.
    iterations: u32,
    /// Iterations `first_live..=iterations`, oldest first. As in TF's executor, an iteration
    /// retires once nothing runs in it and the one before it retired (iteration 0: once every
    /// Enter arrived); a node there still missing inputs never gets them, so its partial inputs
    /// are dropped then, not kept until the run ends.
    first_live: u32,
    iters: VecDeque<IterState>,
    /// Enter nodes of the frame that have not arrived yet.
    enters_left: u32,
    /// Loop invariants (constant Enters) that arrived, replayed into each new iteration.
    constants: Vec<(u32, Option<Tensor>)>,
    /// Exit nodes that produced a live value; dead ones waiting for the frame to finish (both
    /// sorted).
    live_exits: Vec<u32>,
    dead_exits: Vec<u32>,
}

impl Instance {
    fn new(parent: Tag, frame: u32, depth: u32, enters_left: u32) -> Instance {
        Instance {
            parent,
            frame,
            depth,
            iterations: 0,
            first_live: 0,
            iters: VecDeque::from([IterState::default()]),
            enters_left,
            constants: Vec::new(),
            live_exits: Vec::new(),
            dead_exits: Vec::new(),
        }
    }

    fn state(&mut self, iter: u32) -> Option<&mut IterState> {
        let k = iter.checked_sub(self.first_live)?;
        self.iters.get_mut(k as usize)
    }
}

/// Adds `x` to the sorted `v` unless it is there.
fn insert_sorted(v: &mut Vec<u32>, x: u32) {
    if let Err(i) = v.binary_search(&x) {
        v.insert(i, x);
    }
}

/// Most input slots that nodes waiting for the rest of their inputs may hold at once (all frames
/// and iterations), or twice the graph's own if more: a malformed loop whose iterations can't
/// retire could pile them up otherwise.
const MAX_WAITING_SLOTS: usize = 1 << 21;

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
    /// Live loop instances by id (finished ones are removed); 0 is the root frame.
    instances: HashMap<u32, Instance, FastBuild>,
    next_instance: u32,
    instance_of: HashMap<(Tag, u32), u32, FastBuild>,
    waiting: HashMap<(u32, Tag), Waiting, FastBuild>,
    /// Input slots (plus one per entry) `waiting` holds, against `waiting_limit`.
    waiting_slots: usize,
    waiting_limit: usize,
    /// First in, first out, as TF's executor: older iterations finish (and retire) first.
    ready: VecDeque<Ready>,
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
    let mut instances = HashMap::default();
    instances.insert(ROOT.instance, Instance::new(ROOT, u32::MAX, 0, 0));
    let mut r = Run {
        g,
        f,
        instances,
        next_instance: 1,
        instance_of: HashMap::default(),
        waiting: HashMap::default(),
        waiting_slots: 0,
        waiting_limit: MAX_WAITING_SLOTS.max(2 * (g.inputs.len() + g.nodes.len())),
        ready: VecDeque::new(),
        fetch,
        results: vec![None; fetch.len()],
        work: 0,
        limit: max_iterations,
        runs_left: max_iterations
            .saturating_add(1)
            .saturating_mul(g.nodes.len() as u64 + 1),
    };
    // Sources, in graph order.
    for (p, node) in g.nodes.iter().enumerate() {
        if node.inputs.is_empty() && f.n_control[p] == 0 {
            r.push_ready(Ready {
                node: p as u32,
                tag: ROOT,
                args: Vec::new(),
                dead: false,
            });
        }
    }
    loop {
        while let Some(item) = r.ready.pop_front() {
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
            let tag = item.tag;
            r.fire(ctx, feeds, item, kernel_probe)?;
            if let (Some(pr), Some((mark, passed))) = (probe.as_deref_mut(), flow_mark) {
                pr.record(ctx, g, node, mark, (passed.as_slice(), passed.as_slice()));
            }
            // Only an iteration with nothing left to run can retire.
            let idle = r.state(tag).is_some_and(|st| {
                st.outstanding = st.outstanding.saturating_sub(1);
                st.outstanding == 0
            });
            if idle {
                r.retire(tag.instance)?;
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
                pr.record(ctx, g, p, mark, (&live, &outs));
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
                    if let Some(inst) = self.instances.get_mut(&tag.instance) {
                        insert_sorted(&mut inst.dead_exits, node);
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
                    self.propagate(p, child, &[], true)?;
                    self.retire(child.instance)
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
                        self.propagate(p, child, &[Some(first)], false)?;
                        self.retire(child.instance)
                    }
                    FlowOp::Exit => {
                        let inst = self.instances.get_mut(&tag.instance).ok_or_else(gone)?;
                        insert_sorted(&mut inst.live_exits, node);
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

    /// The tag of iteration 0 of frame `frame` entered from `parent` (a new instance on first use),
    /// counting the Enter that arrives there.
    fn enter(&mut self, parent: Tag, frame: u32) -> Result<Tag> {
        let i = match self.instance_of.get(&(parent, frame)) {
            Some(&i) => i,
            None => {
                self.count_work(frame)?;
                let i = self.next_instance;
                self.next_instance = i
                    .checked_add(1)
                    .ok_or_else(|| internal("loop instance overflow"))?;
                let depth = self.instances.get(&parent.instance).ok_or_else(gone)?.depth + 1;
                let enters = self.f.enters.get(frame as usize).copied().unwrap_or(0);
                self.instances
                    .insert(i, Instance::new(parent, frame, depth, enters));
                self.instance_of.insert((parent, frame), i);
                // The parent iteration lasts until this loop finishes.
                if let Some(st) = self.state(parent) {
                    st.outstanding += 1;
                }
                i
            }
        };
        if let Some(inst) = self.instances.get_mut(&i) {
            inst.enters_left = inst.enters_left.saturating_sub(1);
        }
        Ok(Tag {
            instance: i,
            iter: 0,
        })
    }

    /// The bookkeeping of iteration `tag`, unless it retired (or its loop finished).
    fn state(&mut self, tag: Tag) -> Option<&mut IterState> {
        self.instances.get_mut(&tag.instance)?.state(tag.iter)
    }

    fn push_ready(&mut self, item: Ready) {
        if let Some(st) = self.state(item.tag) {
            st.outstanding += 1;
        }
        self.ready.push_back(item);
    }

    /// Retires the finished iterations of instance `id`, oldest first, dropping what nodes there
    /// still wait for; once all retired and every Enter arrived, the loop is over: its Exits that
    /// never left live become dead values in the parent, and the parent iteration may retire.
    fn retire(&mut self, mut id: u32) -> Result<()> {
        while id != ROOT.instance {
            let Some(inst) = self.instances.get_mut(&id) else {
                return Ok(());
            };
            while let Some(&st) = inst.iters.front() {
                if st.outstanding > 0 || (inst.first_live == 0 && inst.enters_left > 0) {
                    break;
                }
                inst.iters.pop_front();
                let tag = Tag {
                    instance: id,
                    iter: inst.first_live,
                };
                inst.first_live = inst.first_live.wrapping_add(1);
                if st.waiting > 0 {
                    let mut freed = 0;
                    self.waiting.retain(|&(_, t), w| {
                        let keep = t != tag;
                        if !keep {
                            freed += w.args.len() + 1;
                        }
                        keep
                    });
                    self.waiting_slots = self.waiting_slots.saturating_sub(freed);
                }
            }
            if !inst.iters.is_empty() || inst.enters_left > 0 {
                return Ok(());
            }
            let Some(inst) = self.instances.remove(&id) else {
                return Ok(());
            };
            self.instance_of.remove(&(inst.parent, inst.frame));
            for &e in &inst.dead_exits {
                if inst.live_exits.binary_search(&e).is_err() {
                    self.propagate(e as usize, inst.parent, &[], true)?;
                }
            }
            if let Some(st) = self.state(inst.parent) {
                st.outstanding = st.outstanding.saturating_sub(1);
            }
            id = inst.parent.instance;
        }
        Ok(())
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
        let inst = self.instances.get(&tag.instance).ok_or_else(gone)?;
        if next.iter > inst.iterations {
            let frame = inst.frame;
            self.count_work(frame)?;
            let inst = self.instances.get_mut(&tag.instance).ok_or_else(gone)?;
            inst.iterations = next.iter;
            inst.iters.push_back(IterState::default());
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
        let inst = self.instances.get_mut(&child.instance).ok_or_else(gone)?;
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
            self.arrive(e.to, e.input, tag, value)?;
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
    ) -> Result<()> {
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
        // Nothing arrives in a retired iteration of a well-formed graph; nothing could run there.
        let Some(st) = self
            .instances
            .get_mut(&tag.instance)
            .and_then(|i| i.state(tag.iter))
        else {
            return Ok(());
        };
        let w = match self.waiting.entry((to, tag)) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                st.waiting += 1;
                self.waiting_slots += n_data + 1;
                if self.waiting_slots > self.waiting_limit {
                    return Err(resource_exhausted(format!(
                        "control flow: nodes waiting for the rest of their inputs hold more than \
                         {} input slots (node '{}' is one); the model's loops may be malformed",
                        self.waiting_limit,
                        self.g.name(q)
                    )));
                }
                v.insert(Waiting {
                    args: vec![None; n_data],
                    arrived: 0,
                    dead: false,
                    fired: false,
                })
            }
        };
        match value {
            Err(_) if is_merge => return Ok(()),
            Err(dead) => w.dead |= dead,
            Ok(None) => w.dead = true,
            Ok(Some(t)) => w.args[input as usize] = Some(t),
        }
        w.arrived += 1;
        if is_merge && !w.fired && w.args.iter().any(Option::is_some) {
            // First live input: fire now; later ones at this tag are ignored.
            w.fired = true;
            let args = std::mem::replace(&mut w.args, vec![None; n_data]);
            let complete = w.arrived >= expected;
            self.push_ready(Ready {
                node: to,
                tag,
                args,
                dead: false,
            });
            if !complete {
                return Ok(());
            }
        } else if is_merge {
            w.args.iter_mut().for_each(|a| *a = None);
        }
        let complete = self
            .waiting
            .get(&(to, tag))
            .is_some_and(|w| w.arrived >= expected);
        if complete {
            if let Some(w) = self.waiting.remove(&(to, tag)) {
                self.waiting_slots = self.waiting_slots.saturating_sub(n_data + 1);
                if let Some(st) = self.state(tag) {
                    st.waiting = st.waiting.saturating_sub(1);
                }
                if !(is_merge && w.fired) {
                    self.push_ready(Ready {
                        node: to,
                        tag,
                        args: w.args,
                        dead: w.dead || is_merge,
                    });
                }
            }
        }
        Ok(())
    }

    /// Once nothing is ready: the dead Exits of the innermost loops that never left live become
    /// dead values in their parents (TF's rule for a loop in a branch not taken). Returns whether
    /// that made anything ready.
    fn finish_dead_exits(&mut self) -> bool {
        let never_live = |i: &Instance| {
            i.dead_exits
                .iter()
                .any(|e| i.live_exits.binary_search(e).is_err())
        };
        let Some(depth) = self
            .instances
            .values()
            .filter(|i| never_live(i))
            .map(|i| i.depth)
            .max()
        else {
            return false;
        };
        let mut pending = Vec::new();
        for (&id, inst) in self.instances.iter_mut().filter(|(_, i)| i.depth == depth) {
            for e in std::mem::take(&mut inst.dead_exits) {
                if inst.live_exits.binary_search(&e).is_err() {
                    pending.push((id, e, inst.parent));
                }
            }
        }
        // In instance order: the map's order is arbitrary.
        pending.sort_unstable_by_key(|&(id, e, _)| (id, e));
        for (_, e, parent) in pending {
            // Dead propagation has no outputs to read, so it cannot fail.
            let _ = self.propagate(e as usize, parent, &[], true);
        }
        !self.ready.is_empty()
    }
}

fn gone() -> crate::status::Status {
    internal("a value reached a loop instance that has finished")
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
