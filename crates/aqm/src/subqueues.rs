//! The FIFO sub-queues of a host queue, stored for the hot path.
//!
//! One sub-queue (every single-queue AQM) is a ring buffer. Several
//! (FQ-CoDel's flow buckets, DualPI2's L and C) share one slab of nodes, each
//! sub-queue a singly linked chain through it, as Linux keeps a flow's skbs
//! in a list: a freed node is reused first, so the packets in the queue stay
//! in a few hot cache lines however many sub-queues there are, where a ring
//! buffer per sub-queue would spread them over as many heap blocks
//! (`ecnlab bench queues`: FQ-CoDel with 10 000 flows).

use std::collections::VecDeque;

const NIL: u32 = u32::MAX;

/// One sub-queue's chain in the slab.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chain {
    head: u32,
    tail: u32,
    len: u32,
}

const EMPTY: Chain = Chain { head: NIL, tail: NIL, len: 0 };

#[derive(Clone, Debug)]
pub(crate) struct Node<T> {
    item: Option<T>,
    next: u32,
}

/// `n` FIFO sub-queues of `T`.
#[derive(Clone, Debug)]
pub(crate) enum SubQueues<T> {
    One(VecDeque<T>),
    Many { nodes: Vec<Node<T>>, free: Vec<u32>, chains: Vec<Chain> },
}

impl<T> SubQueues<T> {
    pub fn new(n: usize) -> Self {
        if n == 1 {
            SubQueues::One(VecDeque::new())
        } else {
            SubQueues::Many { nodes: Vec::new(), free: Vec::new(), chains: vec![EMPTY; n] }
        }
    }

    pub fn count(&self) -> usize {
        match self {
            SubQueues::One(_) => 1,
            SubQueues::Many { chains, .. } => chains.len(),
        }
    }

    #[inline]
    pub fn len(&self, sub: usize) -> usize {
        match self {
            SubQueues::One(q) => q.len(),
            SubQueues::Many { chains, .. } => chains[sub].len as usize,
        }
    }

    /// The one-FIFO case inline (the hot path of every single-queue AQM), the slab out of line.
    #[inline(always)]
    pub fn push_back(&mut self, sub: usize, item: T) {
        match self {
            SubQueues::One(q) => q.push_back(item),
            SubQueues::Many { nodes, free, chains } => Self::push_back_slab(nodes, free, &mut chains[sub], item),
        }
    }

    #[inline(never)]
    fn push_back_slab(nodes: &mut Vec<Node<T>>, free: &mut Vec<u32>, c: &mut Chain, item: T) {
        let idx = match free.pop() {
            Some(i) => {
                nodes[i as usize] = Node { item: Some(item), next: NIL };
                i
            }
            None => {
                // The host's limit keeps a queue far below u32::MAX packets.
                let i = u32::try_from(nodes.len()).expect("fewer than 2^32 queued packets");
                nodes.push(Node { item: Some(item), next: NIL });
                i
            }
        };
        if c.tail == NIL {
            c.head = idx;
        } else {
            nodes[c.tail as usize].next = idx;
        }
        c.tail = idx;
        c.len += 1;
    }

    #[inline(always)]
    pub fn pop_front(&mut self, sub: usize) -> Option<T> {
        match self {
            SubQueues::One(q) => q.pop_front(),
            SubQueues::Many { nodes, free, chains } => Self::pop_front_slab(nodes, free, &mut chains[sub]),
        }
    }

    #[inline(never)]
    fn pop_front_slab(nodes: &mut [Node<T>], free: &mut Vec<u32>, c: &mut Chain) -> Option<T> {
        if c.head == NIL {
            return None;
        }
        let h = c.head;
        let node = &mut nodes[h as usize];
        let item = node.item.take();
        c.head = node.next;
        if c.head == NIL {
            c.tail = NIL;
        }
        c.len -= 1;
        free.push(h);
        item
    }

    #[inline]
    pub fn front(&self, sub: usize) -> Option<&T> {
        match self {
            SubQueues::One(q) => q.front(),
            SubQueues::Many { nodes, chains, .. } => {
                let h = chains[sub].head;
                if h == NIL {
                    None
                } else {
                    nodes[h as usize].item.as_ref()
                }
            }
        }
    }

    #[inline]
    pub fn front_mut(&mut self, sub: usize) -> Option<&mut T> {
        match self {
            SubQueues::One(q) => q.front_mut(),
            SubQueues::Many { nodes, chains, .. } => {
                let h = chains[sub].head;
                if h == NIL {
                    None
                } else {
                    nodes[h as usize].item.as_mut()
                }
            }
        }
    }

    /// Every item, sub-queue by sub-queue, head first.
    pub fn iter(&self) -> Box<dyn Iterator<Item = &T> + '_> {
        match self {
            SubQueues::One(q) => Box::new(q.iter()),
            SubQueues::Many { nodes, chains, .. } => Box::new(chains.iter().flat_map(move |c| {
                let mut at = c.head;
                std::iter::from_fn(move || {
                    if at == NIL {
                        return None;
                    }
                    let n = &nodes[at as usize];
                    at = n.next;
                    n.item.as_ref()
                })
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against one VecDeque per sub-queue, any sequence of pushes and pops.
        #[test]
        fn prop_many_behaves_as_separate_fifos(n in 1usize..6, ops in prop::collection::vec((0usize..6, any::<bool>()), 0..400)) {
            let mut q = SubQueues::new(n);
            let mut model: Vec<VecDeque<u32>> = vec![VecDeque::new(); n];
            for (k, (sub, push)) in ops.into_iter().enumerate() {
                let sub = sub % n;
                if push {
                    q.push_back(sub, k as u32);
                    model[sub].push_back(k as u32);
                } else {
                    prop_assert_eq!(q.pop_front(sub), model[sub].pop_front());
                }
                prop_assert_eq!(q.front(sub), model[sub].front());
                prop_assert_eq!(q.len(sub), model[sub].len());
                let all: Vec<u32> = q.iter().copied().collect();
                let want: Vec<u32> = model.iter().flatten().copied().collect();
                prop_assert_eq!(all, want);
            }
        }
    }
}
