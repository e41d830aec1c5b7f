//! Topology: nodes, unidirectional links and static shortest-path routing.
//!
//! Routes are computed once, before the run, by breadth-first search (fewest
//! hops; ties broken by the lower link index, so routing is deterministic) and
//! stored as a next-hop table `next[node][host]`: forwarding a packet is one
//! table lookup, never a search.

use crate::error::Error;
use crate::spec::{NodeKind, SimSpec};
use std::collections::{HashMap, VecDeque};

pub const NO_ROUTE: u32 = u32::MAX;

pub struct Topology {
    pub names: Vec<String>,
    pub kinds: Vec<NodeKind>,
    pub index: HashMap<String, u32>,
    /// (from, to) node of each link.
    pub ends: Vec<(u32, u32)>,
    pub link_index: HashMap<String, u32>,
    /// next[node * n + dst] = link to take from `node` towards host `dst`.
    next: Vec<u32>,
}

impl Topology {
    pub fn build(spec: &SimSpec) -> Result<Self, Error> {
        let mut index = HashMap::new();
        for (i, n) in spec.nodes.iter().enumerate() {
            if index.insert(n.name.clone(), i as u32).is_some() {
                return Err(Error::spec(format!("nodes[{i}].name"), &n.name, "node names must be unique"));
            }
        }
        let mut ends = Vec::with_capacity(spec.links.len());
        let mut link_index = HashMap::new();
        for (i, l) in spec.links.iter().enumerate() {
            let from = lookup(&index, &l.from, || format!("links[{i}].from"))?;
            let to = lookup(&index, &l.to, || format!("links[{i}].to"))?;
            if from == to {
                return Err(Error::spec(format!("links[{i}].to"), &l.to, "a link must join two different nodes"));
            }
            if link_index.insert(l.name.clone(), i as u32).is_some() {
                return Err(Error::spec(format!("links[{i}].name"), &l.name, "link names must be unique"));
            }
            ends.push((from, to));
        }
        let names = spec.nodes.iter().map(|n| n.name.clone()).collect();
        let kinds = spec.nodes.iter().map(|n| n.kind).collect();
        let mut t = Topology { names, kinds, index, ends, link_index, next: Vec::new() };
        t.compute_routes();
        Ok(t)
    }

    pub fn node_count(&self) -> usize {
        self.names.len()
    }

    /// BFS from every host over reversed links gives each node's first hop towards it.
    fn compute_routes(&mut self) {
        let n = self.node_count();
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (li, &(_, to)) in self.ends.iter().enumerate() {
            incoming[to as usize].push(li as u32);
        }
        self.next = vec![NO_ROUTE; n * n];
        for dst in 0..n {
            if self.kinds[dst] != NodeKind::Host {
                continue;
            }
            let mut dist = vec![u32::MAX; n];
            dist[dst] = 0;
            let mut q = VecDeque::from([dst as u32]);
            while let Some(v) = q.pop_front() {
                for &li in &incoming[v as usize] {
                    let u = self.ends[li as usize].0 as usize;
                    // Hosts do not forward: a path may start at a host but not pass one.
                    let relays = self.kinds[u] == NodeKind::Router || u == dst;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v as usize] + 1;
                        self.next[u * n + dst] = li;
                        if relays {
                            q.push_back(u as u32);
                        }
                    }
                }
            }
        }
    }

    /// The link to send on from `node` towards host `dst`, or `NO_ROUTE`.
    #[inline]
    pub fn next_link(&self, node: u32, dst: u32) -> u32 {
        self.next[node as usize * self.node_count() + dst as usize]
    }

    pub fn host(&self, name: &str, field: impl FnOnce() -> String) -> Result<u32, Error> {
        let i = lookup(&self.index, name, field)?;
        Ok(i)
    }
}

fn lookup(index: &HashMap<String, u32>, name: &str, field: impl FnOnce() -> String) -> Result<u32, Error> {
    index.get(name).copied().ok_or_else(|| Error::spec(field(), name, "no such node"))
}
