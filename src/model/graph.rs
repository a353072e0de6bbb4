//! The graph of a model: node references resolved, pruned to what the outputs need, and ordered so
//! every node runs after its inputs; plus how long each intermediate tensor must live.

use super::format::NodeDef;
use crate::hash::FastBuild;
use crate::status::{invalid_argument, Result};
use std::collections::HashMap;

/// Node names to positions (the fixed fast hasher: a load hashes every name and input once or more).
pub type NameIndex<'n> = HashMap<&'n str, usize, FastBuild>;

/// `node`, `node:1` or `^node` (control dependency).
#[derive(Debug, Clone, PartialEq)]
pub struct InputRef<'a> {
    pub node: &'a str,
    pub output: usize,
    pub control: bool,
}

pub fn parse_input(s: &str) -> Result<InputRef<'_>> {
    if let Some(node) = s.strip_prefix('^') {
        return Ok(InputRef {
            node,
            output: 0,
            control: true,
        });
    }
    match s.rsplit_once(':') {
        Some((node, idx)) if !idx.is_empty() && idx.bytes().all(|b| b.is_ascii_digit()) => {
            let output = idx
                .parse::<usize>()
                .map_err(|_| invalid_argument(format!("input '{s}' has a bad output index")))?;
            Ok(InputRef {
                node,
                output,
                control: false,
            })
        }
        Some((_, idx)) => Err(invalid_argument(format!(
            "input '{s}' has a bad output index '{idx}'"
        ))),
        None => Ok(InputRef {
            node: s,
            output: 0,
            control: false,
        }),
    }
}

/// Node names to indices; duplicate names are an error.
pub fn index_nodes<'n>(nodes: &'n [NodeDef<'_>]) -> Result<NameIndex<'n>> {
    let mut index = HashMap::with_capacity_and_hasher(nodes.len(), FastBuild);
    for (i, n) in nodes.iter().enumerate() {
        if index.insert(&*n.name, i).is_some() {
            return Err(invalid_argument(format!(
                "model.json has two nodes named '{}'",
                n.name
            )));
        }
    }
    Ok(index)
}

/// Resolved inputs of every node, in flat lists (a load makes two vectors, not two per node): data
/// inputs as (node, output), control inputs as node.
pub struct Edges {
    data: Vec<(usize, usize)>,
    data_end: Vec<usize>,
    control: Vec<usize>,
    control_end: Vec<usize>,
}

impl Edges {
    pub fn data(&self, i: usize) -> &[(usize, usize)] {
        let start = if i == 0 { 0 } else { self.data_end[i - 1] };
        &self.data[start..self.data_end[i]]
    }

    pub fn control(&self, i: usize) -> &[usize] {
        let start = if i == 0 { 0 } else { self.control_end[i - 1] };
        &self.control[start..self.control_end[i]]
    }

    /// The same edges with the data inputs of some nodes replaced (a load-time rewrite).
    pub fn with_data(&self, new: &HashMap<usize, Vec<(usize, usize)>, FastBuild>) -> Edges {
        let mut data = Vec::with_capacity(self.data.len());
        let mut data_end = Vec::with_capacity(self.data_end.len());
        for i in 0..self.data_end.len() {
            data.extend_from_slice(new.get(&i).map_or(self.data(i), Vec::as_slice));
            data_end.push(data.len());
        }
        Edges {
            data,
            data_end,
            control: self.control.clone(),
            control_end: self.control_end.clone(),
        }
    }
}

pub fn resolve_edges(nodes: &[NodeDef<'_>], index: &NameIndex<'_>) -> Result<Edges> {
    let inputs = nodes.iter().map(|n| n.input.len()).sum();
    let mut e = Edges {
        data: Vec::with_capacity(inputs),
        data_end: Vec::with_capacity(nodes.len()),
        control: Vec::new(),
        control_end: Vec::with_capacity(nodes.len()),
    };
    for n in nodes {
        for s in &n.input {
            let r = parse_input(s)?;
            let &src = index.get(r.node).ok_or_else(|| {
                invalid_argument(format!(
                    "node '{}' has input '{s}', which names no node in the graph",
                    n.name
                ))
            })?;
            if r.control {
                e.control.push(src);
            } else {
                e.data.push((src, r.output));
            }
        }
        e.data_end.push(e.data.len());
        e.control_end.push(e.control.len());
    }
    Ok(e)
}

/// Nodes needed for `targets`, in an order where each follows all its inputs (Kahn's algorithm on
/// the needed subgraph). With `loops`, edges out of a NextIteration (a loop's back edge) don't
/// count, so a v1 loop orders like its unrolled first iteration. A cycle is an error naming a node
/// on it.
pub fn execution_order(
    nodes: &[NodeDef<'_>],
    edges: &Edges,
    targets: &[usize],
    loops: bool,
) -> Result<Vec<usize>> {
    let n = nodes.len();
    let mut needed = vec![false; n];
    let mut stack: Vec<usize> = targets.to_vec();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut needed[i], true) {
            continue;
        }
        stack.extend(edges.data(i).iter().map(|&(s, _)| s));
        stack.extend(edges.control(i).iter().copied());
    }
    let back = |s: usize| loops && is_next_iteration(&nodes[s].op);
    let sources = |i: usize| {
        edges
            .data(i)
            .iter()
            .map(|&(s, _)| s)
            .chain(edges.control(i).iter().copied())
            .filter(move |&s| !back(s))
    };
    // Consumers of each node, in one flat list (`consumer_end[src]` ends those of `src`), in the
    // order of a scan over the needed nodes.
    let mut pending = vec![0usize; n];
    let mut consumer_end = vec![0usize; n];
    for i in (0..n).filter(|&i| needed[i]) {
        for src in sources(i) {
            pending[i] += 1;
            consumer_end[src] += 1;
        }
    }
    let mut total = 0;
    for c in consumer_end.iter_mut() {
        total += *c;
        *c = total;
    }
    let mut fill: Vec<usize> = (0..n)
        .map(|i| if i == 0 { 0 } else { consumer_end[i - 1] })
        .collect();
    let mut consumers = vec![0usize; total];
    for i in (0..n).filter(|&i| needed[i]) {
        for src in sources(i) {
            consumers[fill[src]] = i;
            fill[src] += 1;
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&i| needed[i] && pending[i] == 0).collect();
    ready.reverse();
    let mut order = Vec::with_capacity(n);
    while let Some(i) = ready.pop() {
        order.push(i);
        let start = if i == 0 { 0 } else { consumer_end[i - 1] };
        for &c in &consumers[start..consumer_end[i]] {
            pending[c] -= 1;
            if pending[c] == 0 {
                ready.push(c);
            }
        }
    }
    let total = needed.iter().filter(|&&x| x).count();
    if order.len() != total {
        let stuck = (0..n)
            .find(|&i| needed[i] && pending[i] > 0)
            .map(|i| &*nodes[i].name)
            .unwrap_or("?");
        return Err(invalid_argument(format!(
            "model graph has a cycle (through node '{stuck}') that is not a loop (a loop's cycle \
             goes through a NextIteration node)"
        )));
    }
    Ok(order)
}

/// Out of line: inlined, its two string compares were expanded at each of the many places the
/// loader's iterator chains reach it.
#[inline(never)]
pub fn is_next_iteration(op: &str) -> bool {
    matches!(op, "NextIteration" | "RefNextIteration")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_input_references() {
        assert_eq!(parse_input("a").unwrap().output, 0);
        assert_eq!(
            parse_input("a/b:2").unwrap(),
            InputRef {
                node: "a/b",
                output: 2,
                control: false
            }
        );
        assert!(parse_input("^c").unwrap().control);
        assert!(parse_input("a:x").is_err());
        assert!(parse_input("a:99999999999999999999999").is_err());
    }
}
