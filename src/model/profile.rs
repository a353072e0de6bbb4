//! Per-node timing of a graph run (`GraphModel::profile`): what each node cost, what it made, and
//! whether its kernel came from the cache. The clock is the caller's (milliseconds, monotonic), so
//! this layer needs neither `std::time` (absent in wasm) nor the JS bindings. Only the float-free
//! parts serialize: the bindings hand times to JS as numbers, so the .wasm carries no float
//! formatting for them.

use super::{LoadedGraph, NodeKind};
use crate::eager::EagerContext;
use crate::ops::AttrValue;
use crate::tensor::Tensor;

/// One output of a profiled node.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OutputProfile {
    pub dtype: &'static str,
    pub shape: Vec<usize>,
    pub bytes: usize,
}

/// One data input of a profiled node: where it came from (`node` or `node:k`, the names
/// `GraphModel::execute` fetches) and what it was. (Its fields written out, not a flattened
/// `OutputProfile`: serde's flatten serializes through a map, more code in the .wasm.)
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct InputProfile {
    pub from: String,
    pub dtype: &'static str,
    pub shape: Vec<usize>,
    pub bytes: usize,
}

/// One executed node, in order of its first run. A node inside a loop is one entry for all its
/// iterations (`count` runs, `ms` their total): a GRU over 100 steps reads as its graph, each
/// node with its cost over the whole sequence, not as 100 copies of the loop body.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeProfile {
    pub name: String,
    /// The op that ran: the kernel's op; `Placeholder` / `Const` for feeds and inline constants,
    /// `ReadVariableOp` for weights (restored as variables, read on each run).
    pub op: &'static str,
    /// Total over its `count` runs.
    pub ms: f64,
    /// Times it ran: 1, or the iterations of the loops around it (dead, i.e. untaken, runs not
    /// counted).
    pub count: usize,
    /// Of its last run. A control-flow node (`Enter`, `Merge`, `Switch`...) lists the value it
    /// passed on (not a copy).
    pub outputs: Vec<OutputProfile>,
    /// Its data inputs, of its last run (empty for feeds, constants and weights): with `attrs`,
    /// what it takes to time the same op alone.
    pub inputs: Vec<InputProfile>,
    /// The attrs its kernel ran with, as the graph (after the load-time fusion) gives them; empty
    /// for nodes that run no op.
    pub attrs: Vec<(&'static str, AttrValue)>,
    /// `"hit"`, `"miss"` (kernel made and cached), `"bypass"` (op excluded from the cache), or
    /// `None` for nodes that run no kernel (feeds, inline constants, control flow). Over several
    /// runs, the costliest: a miss if any run missed, then bypass, then hit.
    pub cache: Option<&'static str>,
}

/// The nodes of one op type together.
#[derive(Debug, Clone, PartialEq)]
pub struct OpProfile {
    pub op: &'static str,
    /// Runs of its nodes (loop iterations counted).
    pub count: usize,
    pub ms: f64,
    /// Of `Profile::total_ms`, in [0, 1].
    pub share: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub nodes: Vec<NodeProfile>,
    /// Sum of the nodes' times.
    pub total_ms: f64,
    /// The whole run, the executor's own work (feeding, freeing intermediates) included.
    pub wall_ms: f64,
}

impl Profile {
    /// The nodes by op type, longest total first. (The JS API sums in JS: this code, a sort
    /// included, stays out of the .wasm.)
    pub fn by_op(&self) -> Vec<OpProfile> {
        let mut by_op: Vec<OpProfile> = Vec::new();
        for n in &self.nodes {
            match by_op.iter_mut().find(|o| o.op == n.op) {
                Some(o) => {
                    o.count += n.count;
                    o.ms += n.ms;
                }
                None => by_op.push(OpProfile {
                    op: n.op,
                    count: n.count,
                    ms: n.ms,
                    share: 0.0,
                }),
            }
        }
        for o in &mut by_op {
            o.share = if self.total_ms > 0.0 {
                o.ms / self.total_ms
            } else {
                0.0
            };
        }
        by_op.sort_by(|a, b| b.ms.total_cmp(&a.ms));
        by_op
    }
}

/// What `Profiler::start` saw before a node ran.
pub(crate) struct Mark {
    lookups: (u64, u64, u64),
    t0: f64,
}

/// Collects node timings while the executor runs.
pub(crate) struct Profiler<'c> {
    clock: &'c dyn Fn() -> f64,
    nodes: Vec<NodeProfile>,
    /// Per graph position, its entry in `nodes` + 1 (0: not run yet), so that a node run again
    /// (in a loop) adds to its entry.
    entry_of: Vec<u32>,
}

impl<'c> Profiler<'c> {
    pub fn new(clock: &'c dyn Fn() -> f64) -> Profiler<'c> {
        Profiler {
            clock,
            nodes: Vec::new(),
            entry_of: Vec::new(),
        }
    }

    pub fn now(&self) -> f64 {
        (self.clock)()
    }

    /// The cache counters and the time before a node runs.
    pub fn start(&self, ctx: &EagerContext) -> Mark {
        Mark {
            lookups: ctx.cache_lookups(),
            t0: self.now(),
        }
    }

    /// Records a run of node `p` of `g` on `args`, started at `mark`, which made `outs`; a node
    /// that ran before (in an earlier loop iteration) adds to its entry.
    pub fn record(
        &mut self,
        ctx: &EagerContext,
        g: &LoadedGraph,
        p: usize,
        mark: Mark,
        (args, outs): (&[Tensor], &[Tensor]),
    ) {
        if self.entry_of.len() != g.nodes.len() {
            self.entry_of = vec![0; g.nodes.len()];
        }
        let op = match &g.nodes[p].kind {
            NodeKind::Feed(_) => "Placeholder",
            NodeKind::Constant(_) => "Const",
            NodeKind::Variable { .. } => "ReadVariableOp",
            NodeKind::FeedOr { def, .. } | NodeKind::Op { def, .. } => def.name,
            NodeKind::Flow(f) => f.name(),
        };
        let mut run = self.measure_step(ctx, g.name(p), op, mark, outputs(outs.iter()));
        let sources = &g.inputs[g.nodes[p].inputs.clone()];
        // A control-flow node's "input" is the value it passed on, not one per graph input.
        if sources.len() == args.len() && !matches!(g.nodes[p].kind, NodeKind::Flow(_)) {
            run.inputs = sources
                .iter()
                .zip(outputs(args.iter()))
                .map(|(&(src, k), o)| InputProfile {
                    from: match k {
                        0 => g.name(src).to_string(),
                        k => format!("{}:{k}", g.name(src)),
                    },
                    dtype: o.dtype,
                    shape: o.shape,
                    bytes: o.bytes,
                })
                .collect();
        }
        // Attrs do not change between a loop's iterations: read on the first run only.
        let kind = &g.nodes[p].kind;
        if let (0, NodeKind::FeedOr { attrs, .. } | NodeKind::Op { attrs, .. }) =
            (self.entry_of[p], kind)
        {
            run.attrs = attrs
                .iter()
                .map(|&(k, v)| (k, g.attr_values[v as usize].clone()))
                .collect();
        }
        match self.entry_of[p] {
            0 => {
                self.nodes.push(run);
                self.entry_of[p] = self.nodes.len() as u32;
            }
            e => {
                let n = &mut self.nodes[e as usize - 1];
                n.ms += run.ms;
                n.count += 1;
                n.outputs = run.outputs;
                n.inputs = run.inputs;
                // The costliest lookup of its runs: miss, then bypass, then hit.
                let rank = |c: Option<&str>| match c {
                    Some("miss") => 3,
                    Some("bypass") => 2,
                    Some(_) => 1,
                    None => 0,
                };
                if rank(run.cache) > rank(n.cache) {
                    n.cache = run.cache;
                }
            }
        }
    }

    /// Records a step named `name` (a layer of a layers model, whose `op` is the layer kind and
    /// whose lookups are those of every op it ran), started at `mark`.
    #[cfg(feature = "layers")]
    pub fn record_named<'t>(
        &mut self,
        ctx: &EagerContext,
        name: &str,
        op: &'static str,
        mark: Mark,
        outs: impl Iterator<Item = &'t Tensor>,
    ) {
        let run = self.measure_step(ctx, name, op, mark, outputs(outs));
        self.nodes.push(run);
    }

    fn measure_step(
        &self,
        ctx: &EagerContext,
        name: &str,
        op: &'static str,
        mark: Mark,
        outputs: Vec<OutputProfile>,
    ) -> NodeProfile {
        let ms = self.now() - mark.t0;
        let (h0, m0, b0) = mark.lookups;
        let (h1, m1, b1) = ctx.cache_lookups();
        // A miss outweighs hits: the node paid for making a kernel. No lookup at all: a feed, an
        // inline constant, a fed PlaceholderWithDefault or a control-flow node.
        let cache = if m1 > m0 {
            Some("miss")
        } else if b1 > b0 {
            Some("bypass")
        } else if h1 > h0 {
            Some("hit")
        } else {
            None
        };
        NodeProfile {
            name: name.to_string(),
            op,
            ms,
            count: 1,
            outputs,
            inputs: Vec::new(),
            attrs: Vec::new(),
            cache,
        }
    }

    /// Runs `run` with a fresh profiler on `clock` and returns what it recorded, with the whole
    /// run's wall time (graph and layers models profile the same way).
    pub fn measure(
        clock: &'c dyn Fn() -> f64,
        run: impl FnOnce(&mut Profiler<'c>) -> crate::status::Result<()>,
    ) -> crate::status::Result<Profile> {
        let mut probe = Profiler::new(clock);
        let t0 = clock();
        run(&mut probe)?;
        Ok(probe.finish(clock() - t0))
    }

    fn finish(self, wall_ms: f64) -> Profile {
        Profile {
            total_ms: self.nodes.iter().map(|n| n.ms).sum(),
            nodes: self.nodes,
            wall_ms,
        }
    }
}

fn outputs<'t>(outs: impl Iterator<Item = &'t Tensor>) -> Vec<OutputProfile> {
    outs.map(|t| OutputProfile {
        dtype: t.dtype().name(),
        shape: t.dims().to_vec(),
        bytes: t.byte_len(),
    })
    .collect()
}
