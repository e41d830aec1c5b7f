//! Topology: nodes, unidirectional links and static shortest-path routing.
//!
//! Routes are computed once, before the run, by breadth-first search (fewest
//! hops; ties broken by the lower link index, so routing is deterministic) and
//! stored as next-hop columns: forwarding a packet is one table lookup, never
//! a search.
//!
//! With `ecmp`, a (node, column) entry with several equal-cost next links (each
//! on a shortest path) names a group instead; a packet takes the group's member
//! chosen by a hash of (seed, flow, node), so a flow keeps one path and flows
//! spread over the group (per-flow ECMP, as switches hash the 5-tuple).
//!
//! A host whose only incoming link comes from a router (every host of a
//! dumbbell, of a fat tree, of most explicit topologies) shares that router's
//! column: every path to the host passes the router and ends on that link, so
//! the breadth-first search from the host is the one from the router, one hop
//! longer, with the same tie-breaks. Columns are kept only for routers and
//! other hosts, so a dumbbell of P pairs needs 2 columns of 2P + 2 entries
//! instead of a (2P + 2)² table (10 000 pairs: 160 kB instead of 1.6 GB).

use crate::error::Error;
use crate::spec::{NodeKind, SimSpec};
use std::collections::{HashMap, VecDeque};

pub const NO_ROUTE: u32 = u32::MAX;
/// Separates the ECMP hash from the seed's other uses.
const ECMP_SALT: u64 = 0x4543_4d50_0000_0001;

pub struct Topology {
    pub names: Vec<String>,
    pub kinds: Vec<NodeKind>,
    pub index: HashMap<String, u32>,
    /// (from, to) node of each link.
    pub ends: Vec<(u32, u32)>,
    pub link_index: HashMap<String, u32>,
    /// How each node is reached: its own column, or through the router before it.
    dest: Vec<Dest>,
    /// `dest` flattened for the forwarding lookup.
    route: Vec<Route>,
    /// next[node * columns + c] = link to take from `node` towards column c's node.
    next: Vec<u32>,
    columns: usize,
    /// ECMP groups (entries of `next` with `GROUP` set index them); the hash salt.
    groups: Vec<Vec<u32>>,
    ecmp: Option<u64>,
}

/// Marks an entry of `next` that indexes `groups` (link indices stay below 2³¹).
const GROUP: u32 = 1 << 31;

const NO_COLUMN: u32 = u32::MAX;

/// One node's `Dest` as the forwarding lookup reads it: at `router` take `link`, elsewhere
/// `column` (`router` is `NO_ROUTE` for a node with its own column).
#[derive(Clone, Copy, Debug)]
struct Route {
    router: u32,
    link: u32,
    column: u32,
}

/// How routes towards one node are found.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Dest {
    /// Not a destination (a router no reducible host hangs from).
    None,
    /// Its own column in `next`.
    Column(u32),
    /// A host reached only over `link` from `router`: the router's column, then `link`.
    Via { router: u32, link: u32 },
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
        if spec.links.len() >= GROUP as usize {
            return Err(Error::spec("links", spec.links.len(), "at most 2^31 - 1 links"));
        }
        let ecmp = spec.ecmp.then(|| crate::rng::mix(spec.seed ^ ECMP_SALT));
        Ok(Topology::routed(names, kinds, index, ends, link_index, ecmp))
    }

    /// The topology with its routes computed.
    fn routed(
        names: Vec<String>,
        kinds: Vec<NodeKind>,
        index: HashMap<String, u32>,
        ends: Vec<(u32, u32)>,
        link_index: HashMap<String, u32>,
        ecmp: Option<u64>,
    ) -> Self {
        let (dest, route, next, groups) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut t = Topology { names, kinds, index, ends, link_index, dest, route, next, columns: 0, groups, ecmp };
        t.compute_routes();
        t
    }

    pub fn node_count(&self) -> usize {
        self.names.len()
    }

    /// Which nodes get a column: hosts not reachable through one router link, and those routers.
    fn destinations(&self, incoming: &[Vec<u32>]) -> Vec<Dest> {
        let n = self.node_count();
        let mut dest = vec![Dest::None; n];
        let mut columns = 0u32;
        let mut column = |dest: &mut Vec<Dest>, v: usize| {
            if dest[v] == Dest::None {
                dest[v] = Dest::Column(columns);
                columns += 1;
            }
        };
        for v in 0..n {
            if self.kinds[v] != NodeKind::Host {
                continue;
            }
            match incoming[v][..] {
                [li] if self.kinds[self.ends[li as usize].0 as usize] == NodeKind::Router => {
                    let router = self.ends[li as usize].0;
                    column(&mut dest, router as usize);
                    dest[v] = Dest::Via { router, link: li };
                }
                _ => column(&mut dest, v),
            }
        }
        dest
    }

    fn flat(&self, d: Dest) -> Route {
        match d {
            Dest::None => Route { router: NO_ROUTE, link: NO_ROUTE, column: NO_COLUMN },
            Dest::Column(c) => Route { router: NO_ROUTE, link: NO_ROUTE, column: c },
            Dest::Via { router, link } => match self.dest[router as usize] {
                Dest::Column(c) => Route { router, link, column: c },
                _ => unreachable!("a Via router always has a column"),
            },
        }
    }

    /// BFS from every column's node over reversed links gives each node's first hop towards it.
    fn compute_routes(&mut self) {
        let n = self.node_count();
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (li, &(_, to)) in self.ends.iter().enumerate() {
            incoming[to as usize].push(li as u32);
        }
        self.dest = self.destinations(&incoming);
        let mut targets = vec![0usize; n];
        let mut columns = 0;
        for (v, d) in self.dest.iter().enumerate() {
            if let Dest::Column(c) = *d {
                targets[c as usize] = v;
                columns += 1;
            }
        }
        targets.truncate(columns);
        self.route = self.dest.iter().map(|&d| self.flat(d)).collect();
        self.columns = targets.len();
        self.next = vec![NO_ROUTE; n * self.columns];
        let mut outgoing: Vec<Vec<u32>> = vec![Vec::new(); if self.ecmp.is_some() { n } else { 0 }];
        if self.ecmp.is_some() {
            for (li, &(from, _)) in self.ends.iter().enumerate() {
                outgoing[from as usize].push(li as u32);
            }
        }
        let mut dist = vec![u32::MAX; n];
        let mut q = VecDeque::new();
        for (c, &dst) in targets.iter().enumerate() {
            dist.fill(u32::MAX);
            dist[dst] = 0;
            q.push_back(dst as u32);
            while let Some(v) = q.pop_front() {
                for &li in &incoming[v as usize] {
                    let u = self.ends[li as usize].0 as usize;
                    // Hosts do not forward: a path may start at a host but not pass one.
                    let relays = self.kinds[u] == NodeKind::Router || u == dst;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v as usize] + 1;
                        self.next[u * self.columns + c] = li;
                        if relays {
                            q.push_back(u as u32);
                        }
                    }
                }
            }
            if self.ecmp.is_some() {
                self.group_column(c, dst, &dist, &outgoing);
            }
        }
    }

    /// ECMP: every node's equal-cost next links towards column `c`'s node (`dst`), as a
    /// group where there are several (in link order; the BFS choice is the first).
    fn group_column(&mut self, c: usize, dst: usize, dist: &[u32], outgoing: &[Vec<u32>]) {
        for u in 0..self.node_count() {
            if dist[u] == u32::MAX || u == dst {
                continue;
            }
            let equal: Vec<u32> = outgoing[u]
                .iter()
                .copied()
                .filter(|&li| {
                    let v = self.ends[li as usize].1 as usize;
                    dist[v] != u32::MAX && dist[v] + 1 == dist[u] && (v == dst || self.kinds[v] == NodeKind::Router)
                })
                .collect();
            if equal.len() > 1 {
                self.next[u * self.columns + c] = GROUP | self.groups.len() as u32;
                self.groups.push(equal);
            }
        }
    }

    /// The link to send on from `node` towards host `dst` for `flow`, or `NO_ROUTE`.
    /// `node != dst`: a packet at its destination is delivered, never routed.
    #[inline]
    pub fn next_link(&self, node: u32, dst: u32, flow: u32) -> u32 {
        debug_assert_ne!(node, dst);
        let r = self.route[dst as usize];
        let l = if node == r.router {
            r.link
        } else if r.column == NO_COLUMN {
            NO_ROUTE
        } else {
            self.next[node as usize * self.columns + r.column as usize]
        };
        if l & GROUP == 0 || l == NO_ROUTE {
            return l;
        }
        self.pick(&self.groups[(l & !GROUP) as usize], node, flow)
    }

    /// The member of an ECMP group `flow` takes at `node`.
    #[cold]
    fn pick(&self, group: &[u32], node: u32, flow: u32) -> u32 {
        let salt = self.ecmp.unwrap_or(0);
        let h = crate::rng::mix(salt ^ ((flow as u64) << 32 | node as u64));
        group[(h % group.len() as u64) as usize]
    }

    pub fn host(&self, name: &str, field: impl FnOnce() -> String) -> Result<u32, Error> {
        let i = lookup(&self.index, name, field)?;
        Ok(i)
    }
}

fn lookup(index: &HashMap<String, u32>, name: &str, field: impl FnOnce() -> String) -> Result<u32, Error> {
    index.get(name).copied().ok_or_else(|| Error::spec(field(), name, "no such node"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The dense table the columns replace: BFS from every host (the reference).
    fn dense(t: &Topology) -> Vec<u32> {
        let n = t.node_count();
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (li, &(_, to)) in t.ends.iter().enumerate() {
            incoming[to as usize].push(li as u32);
        }
        let mut next = vec![NO_ROUTE; n * n];
        for dst in (0..n).filter(|&d| t.kinds[d] == NodeKind::Host) {
            let mut dist = vec![u32::MAX; n];
            dist[dst] = 0;
            let mut q = VecDeque::from([dst as u32]);
            while let Some(v) = q.pop_front() {
                for &li in &incoming[v as usize] {
                    let u = t.ends[li as usize].0 as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v as usize] + 1;
                        next[u * n + dst] = li;
                        if t.kinds[u] == NodeKind::Router || u == dst {
                            q.push_back(u as u32);
                        }
                    }
                }
            }
        }
        next
    }

    fn topology(kinds: &[bool], links: &[(usize, usize)]) -> Topology {
        topology_with(kinds, links, None)
    }

    fn topology_with(kinds: &[bool], links: &[(usize, usize)], ecmp: Option<u64>) -> Topology {
        let names: Vec<String> = (0..kinds.len()).map(|i| format!("n{i}")).collect();
        let index = names.iter().enumerate().map(|(i, s)| (s.clone(), i as u32)).collect();
        let kinds = kinds.iter().map(|&h| if h { NodeKind::Host } else { NodeKind::Router }).collect();
        let ends = links.iter().filter(|(a, b)| a != b).map(|&(a, b)| (a as u32, b as u32)).collect();
        Topology::routed(names, kinds, index, ends, HashMap::new(), ecmp)
    }

    /// Hops from `node` to `dst` following `next` (None: no route or a loop).
    fn hops(t: &Topology, mut node: u32, dst: u32, next: impl Fn(u32) -> u32) -> Option<usize> {
        for k in 0..=t.node_count() {
            if node == dst {
                return Some(k);
            }
            let l = next(node);
            if l == NO_ROUTE {
                return None;
            }
            node = t.ends[l as usize].1;
        }
        None
    }

    #[test]
    fn ecmp_spreads_flows_over_equal_cost_paths_and_keeps_each_on_one() {
        // h0 -> R1 -> {R2, R3} -> R4 -> h5: two equal paths.
        let kinds = [true, false, false, false, false, true];
        let mut links = vec![];
        for (a, b) in [(0, 1), (1, 2), (1, 3), (2, 4), (3, 4), (4, 5)] {
            links.extend([(a, b), (b, a)]);
        }
        let plain = topology(&kinds, &links);
        assert_eq!(plain.next_link(1, 5, 7), 2, "without ECMP the lowest link index (R1->R2)");
        let t = topology_with(&kinds, &links, Some(12345));
        let mut via = [0u32; 2];
        for flow in 0..1000 {
            let l = t.next_link(1, 5, flow);
            assert!(l == 2 || l == 4, "R1->R2 or R1->R3, got {l}");
            assert_eq!(t.next_link(1, 5, flow), l, "a flow keeps its path");
            via[(l == 4) as usize] += 1;
        }
        assert!(via.iter().all(|&n| (400..=600).contains(&n)), "{via:?}");
    }

    proptest! {
        /// With ECMP every flow's path is a shortest one (as long as the single-path route).
        #[test]
        fn ecmp_paths_are_shortest_paths(
            kinds in proptest::collection::vec(any::<bool>(), 2..12),
            raw in proptest::collection::vec((0usize..12, 0usize..12), 0..40),
            salt in any::<u64>(),
        ) {
            let n = kinds.len();
            let links: Vec<(usize, usize)> = raw.into_iter().map(|(a, b)| (a % n, b % n)).collect();
            let plain = topology(&kinds, &links);
            let t = topology_with(&kinds, &links, Some(salt));
            for node in 0..n as u32 {
                for dst in (0..n as u32).filter(|&d| kinds[d as usize] && d != node) {
                    let want = hops(&plain, node, dst, |u| plain.next_link(u, dst, 0));
                    for flow in 0..4 {
                        prop_assert_eq!(hops(&t, node, dst, |u| t.next_link(u, dst, flow)), want);
                    }
                }
            }
        }
    }

    #[test]
    fn dumbbell_hosts_share_their_routers_column() {
        // s0, s1 - R0 = R1 - d0, d1 (duplex links)
        let kinds = [true, true, false, false, true, true];
        let mut links = vec![];
        for (a, b) in [(0, 2), (1, 2), (2, 3), (3, 4), (3, 5)] {
            links.extend([(a, b), (b, a)]);
        }
        let t = topology(&kinds, &links);
        assert_eq!(t.columns, 2, "one column per router, none per host");
        assert_eq!(t.next_link(0, 4, 0), 0, "s0 -> its only link");
        assert_eq!(t.next_link(2, 4, 0), 4, "R0 -> R1");
        assert_eq!(t.next_link(3, 4, 0), 6, "R1 -> d0");
    }

    proptest! {
        /// The shared columns give exactly the routes of a BFS from every host, ties included.
        #[test]
        fn columns_equal_the_dense_table(
            kinds in proptest::collection::vec(any::<bool>(), 2..12),
            raw in proptest::collection::vec((0usize..12, 0usize..12), 0..40),
        ) {
            let n = kinds.len();
            let links: Vec<(usize, usize)> = raw.into_iter().map(|(a, b)| (a % n, b % n)).collect();
            let t = topology(&kinds, &links);
            let reference = dense(&t);
            for node in 0..n {
                for dst in (0..n).filter(|&d| kinds[d] && d != node) {
                    prop_assert_eq!(t.next_link(node as u32, dst as u32, 0), reference[node * n + dst], "{} -> {}", node, dst);
                }
            }
        }
    }
}
