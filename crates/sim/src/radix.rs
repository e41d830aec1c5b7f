//! A radix heap keyed by a `u128`: the scheduler's event queue.
//!
//! A radix heap (Ahuja, Mehlhorn, Orlin & Tarjan, "Faster algorithms for the
//! shortest path problem", JACM 37(2), 1990, section 2) is an exact priority
//! queue for *monotone* use: every key pushed is at least the last key popped.
//! A discrete-event simulator's queue is monotone (nothing is scheduled in the
//! past; the scheduler's keys are (time, sequence) with a fresh or reserved
//! sequence number above the event being handled), so the order is exactly
//! that of the keys, the same as any other correct priority queue's.
//!
//! Entries live in bucket `b` = the highest bit in which their key differs
//! from `last` (the last key taken out). Taking the minimum scans only the
//! lowest non-empty bucket: its minimum becomes `last`, and the rest of that
//! bucket drops into lower buckets (each entry only ever moves down, at most
//! 128 times, in practice a few). Pushing is one append. This replaced a
//! 4-ary heap whose sift-down, with ~1 000 entries, spent most of its time in
//! mispredicted comparisons (docs/performance.md).

/// Entries ordered by `key`, smallest first; a key pushed must be >= the last
/// key popped or peeked (the scheduler peeks only right before it pops).
#[derive(Clone, Debug)]
pub struct RadixHeap<T> {
    /// The last key taken out of the buckets (the current minimum's, once `top` is set).
    last: u128,
    /// The entry whose key equals `last`, when it has not been popped yet.
    top: Option<(u128, T)>,
    /// `buckets[b]`: entries whose key's highest bit differing from `last` is bit `b`.
    buckets: Vec<Vec<(u128, T)>>,
    /// Bit `b` set when `buckets[b]` is non-empty.
    occupied: u128,
    len: usize,
}

impl<T> Default for RadixHeap<T> {
    fn default() -> Self {
        RadixHeap { last: 0, top: None, buckets: (0..128).map(|_| Vec::new()).collect(), occupied: 0, len: 0 }
    }
}

impl<T: Copy> RadixHeap<T> {
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The highest bit in which `key` differs from `last` (they must differ).
    #[inline]
    fn bucket_of(key: u128, last: u128) -> usize {
        127 - (key ^ last).leading_zeros() as usize
    }

    #[inline]
    pub fn push(&mut self, key: u128, v: T) {
        debug_assert!(key >= self.last, "radix heap: key below the last one popped");
        self.len += 1;
        if key == self.last && self.top.is_none() {
            self.top = Some((key, v));
            return;
        }
        let b = Self::bucket_of(key, self.last);
        self.buckets[b].push((key, v));
        self.occupied |= 1 << b;
    }

    /// The smallest key; `&mut` because finding it may redistribute a bucket.
    #[inline]
    pub fn peek_key(&mut self) -> Option<u128> {
        self.refill();
        self.top.map(|e| e.0)
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(u128, T)> {
        self.refill();
        let e = self.top.take()?;
        self.len -= 1;
        Some(e)
    }

    /// Moves the minimum into `top` if it is empty: the lowest non-empty bucket's
    /// minimum becomes `last`, and that bucket's other entries move to lower buckets.
    fn refill(&mut self) {
        if self.top.is_some() || self.occupied == 0 {
            return;
        }
        let j = self.occupied.trailing_zeros() as usize;
        self.occupied &= !(1 << j);
        let mut moving = std::mem::take(&mut self.buckets[j]);
        let last = moving.iter().map(|e| e.0).min().expect("an occupied bucket has entries");
        self.last = last;
        for &e in &moving {
            if e.0 == last {
                self.top = Some(e);
            } else {
                let b = Self::bucket_of(e.0, last);
                debug_assert!(b < j, "an entry only moves down");
                self.buckets[b].push(e);
                self.occupied |= 1 << b;
            }
        }
        moving.clear();
        self.buckets[j] = moving; // keep the allocation
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    proptest! {
        /// Monotone pushes (at or after the last key popped or peeked, as a
        /// scheduler does) interleaved with pops give the std heap's order.
        #[test]
        fn prop_same_order_as_std_heap(ops in prop::collection::vec(prop::option::of((0u64..3, 0u64..5000)), 0..600)) {
            let mut mine = RadixHeap::default();
            let mut reference = BinaryHeap::new();
            let mut now = 0u64;
            for (seq, op) in ops.into_iter().enumerate() {
                match op {
                    Some((scale, dt)) => {
                        // Delays of very different sizes, like links and timers.
                        let t = now + dt * [1, 1_000, 1_000_000][scale as usize];
                        let key = (u128::from(t) << 64) | seq as u128;
                        mine.push(key, seq);
                        reference.push(Reverse((key, seq)));
                    }
                    None => prop_assert_eq!(mine.pop(), reference.pop().map(|Reverse(e)| e)),
                }
                let peeked = mine.peek_key();
                prop_assert_eq!(peeked, reference.peek().map(|Reverse(e)| e.0));
                if let Some(k) = peeked {
                    now = (k >> 64) as u64;
                }
                prop_assert_eq!(mine.len(), reference.len());
            }
            while let Some(Reverse(e)) = reference.pop() {
                prop_assert_eq!(mine.pop(), Some(e));
            }
            prop_assert_eq!(mine.pop(), None);
        }
    }

    #[test]
    fn test_key_equal_to_last_pops_first() {
        let mut h = RadixHeap::default();
        h.push(0, 'a'); // equal to the initial `last`
        h.push(5, 'c');
        h.push(3, 'b');
        assert_eq!(h.pop(), Some((0, 'a')));
        assert_eq!(h.pop(), Some((3, 'b')));
        h.push(3 << 64, 'd');
        h.push(4, 'e');
        assert_eq!((h.pop(), h.pop(), h.pop(), h.pop()), (Some((4, 'e')), Some((5, 'c')), Some((3 << 64, 'd')), None));
    }
}
