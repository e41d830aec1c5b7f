//! A 4-ary min-heap keyed by a `u128`: the scheduler's event queue.
//!
//! Why not `std::collections::BinaryHeap`: profiling case (c) of docs/peers.md
//! (1 Gbit/s, 100 flows) showed `BinaryHeap::pop` at 38 % of the run, its
//! sift-down stalling on loads twelve levels deep. A 4-ary heap is half as
//! deep; its four children share a cache line pair, so a pop touches about
//! half the lines (D. B. Johnson, "Priority queues with update and finding
//! minimum spanning trees", IPL 4(3), 1975: d-heaps; LaMarca & Ladner, "The
//! influence of caches on the performance of heaps", JEA 1, 1996: 4-heaps).
//! The order is exactly that of the keys, which are unique (time, sequence),
//! so the pop order is the same as any other correct priority queue's.

/// Entries ordered by `key`, smallest first.
#[derive(Clone, Debug)]
pub struct Heap4<T> {
    items: Vec<(u128, T)>,
}

impl<T> Default for Heap4<T> {
    fn default() -> Self {
        Heap4 { items: Vec::new() }
    }
}

impl<T: Copy> Heap4<T> {
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn peek_key(&self) -> Option<u128> {
        self.items.first().map(|e| e.0)
    }

    pub fn push(&mut self, key: u128, v: T) {
        self.items.push((key, v));
        self.sift_up(self.items.len() - 1);
    }

    pub fn pop(&mut self) -> Option<(u128, T)> {
        let last = self.items.pop()?;
        if self.items.is_empty() {
            return Some(last);
        }
        let top = self.items[0];
        self.items[0] = last;
        self.sift_down(0);
        Some(top)
    }

    fn sift_up(&mut self, mut i: usize) {
        let e = self.items[i];
        while i > 0 {
            let parent = (i - 1) / 4;
            if self.items[parent].0 <= e.0 {
                break;
            }
            self.items[i] = self.items[parent];
            i = parent;
        }
        self.items[i] = e;
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.items.len();
        let e = self.items[i];
        loop {
            let first = 4 * i + 1;
            if first >= n {
                break;
            }
            let mut best = first;
            for c in first + 1..(first + 4).min(n) {
                if self.items[c].0 < self.items[best].0 {
                    best = c;
                }
            }
            if self.items[best].0 >= e.0 {
                break;
            }
            self.items[i] = self.items[best];
            i = best;
        }
        self.items[i] = e;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    proptest! {
        /// Any interleaving of pushes and pops gives the std heap's order.
        #[test]
        fn prop_same_order_as_std_heap(ops in prop::collection::vec(prop::option::of(0u64..50), 0..400)) {
            let mut mine = Heap4::default();
            let mut reference = BinaryHeap::new();
            for (seq, op) in ops.into_iter().enumerate() {
                match op {
                    Some(t) => {
                        let key = (u128::from(t) << 64) | seq as u128;
                        mine.push(key, seq);
                        reference.push(Reverse((key, seq)));
                    }
                    None => prop_assert_eq!(mine.pop(), reference.pop().map(|Reverse(e)| e)),
                }
                prop_assert_eq!(mine.peek_key(), reference.peek().map(|Reverse(e)| e.0));
                prop_assert_eq!(mine.len(), reference.len());
            }
            while let Some(Reverse(e)) = reference.pop() {
                prop_assert_eq!(mine.pop(), Some(e));
            }
            prop_assert!(mine.is_empty());
        }
    }
}
