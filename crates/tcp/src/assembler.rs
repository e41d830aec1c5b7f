//! Receiver out-of-order bookkeeping and SACK block generation (RFC 2018).
//!
//! Holds the byte ranges received above `rcv_nxt` as sorted, disjoint,
//! non-adjacent `[left, right)` ranges. Each range remembers when it last grew;
//! SACK blocks are reported most recently updated first, so the first block
//! always contains the segment that triggered the ACK (RFC 2018 §4) and the
//! following ones repeat the most recently reported blocks.

use ecnlab_wire::{segment::MAX_SACK_BLOCKS, SackBlocks};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    left: u64,
    right: u64,
    /// Insertion counter value when this range last received data.
    touched: u64,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Assembler {
    ranges: Vec<Range>,
    clock: u64,
}

impl Assembler {
    pub(crate) fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The right edge of the highest range held (`ooo_last_skb`'s end).
    pub(crate) fn right_edge(&self) -> Option<u64> {
        self.ranges.last().map(|r| r.right)
    }

    /// Bytes held out of order.
    pub(crate) fn bytes(&self) -> u64 {
        self.ranges.iter().map(|r| r.right - r.left).sum()
    }

    /// Records `[left, right)` received out of order (merging overlaps and neighbours).
    pub(crate) fn insert(&mut self, left: u64, right: u64) {
        if left >= right {
            return;
        }
        self.clock += 1;
        let mut merged = Range { left, right, touched: self.clock };
        // Ranges that overlap or touch [left, right) are absorbed.
        self.ranges.retain(|r| {
            let joins = r.left <= merged.right && merged.left <= r.right;
            if joins {
                merged.left = merged.left.min(r.left);
                merged.right = merged.right.max(r.right);
            }
            !joins
        });
        let at = self.ranges.partition_point(|r| r.left < merged.left);
        self.ranges.insert(at, merged);
    }

    /// Advances `rcv_nxt` over any range that now starts at or below it, dropping
    /// everything below; returns the new `rcv_nxt`.
    pub(crate) fn advance(&mut self, mut rcv_nxt: u64) -> u64 {
        while let Some(first) = self.ranges.first() {
            if first.left > rcv_nxt {
                break;
            }
            rcv_nxt = rcv_nxt.max(first.right);
            self.ranges.remove(0);
        }
        rcv_nxt
    }

    /// Up to four SACK blocks, most recently updated first (RFC 2018 §4).
    pub(crate) fn sack_blocks(&self) -> SackBlocks {
        let mut order: Vec<&Range> = self.ranges.iter().collect();
        order.sort_by_key(|r| core::cmp::Reverse(r.touched));
        let mut blocks = SackBlocks::EMPTY;
        for r in order.into_iter().take(MAX_SACK_BLOCKS) {
            blocks.push(r.left, r.right);
        }
        blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_insert_merges_overlaps_and_neighbours() {
        let mut a = Assembler::default();
        a.insert(10, 20);
        a.insert(30, 40);
        a.insert(20, 30);
        assert_eq!(a.sack_blocks().as_slice(), &[(10, 40)]);
        a.insert(5, 12);
        assert_eq!(a.sack_blocks().as_slice(), &[(5, 40)]);
    }

    #[test]
    fn test_advance_consumes_contiguous_ranges() {
        let mut a = Assembler::default();
        a.insert(20, 30);
        a.insert(40, 50);
        assert_eq!(a.advance(10), 10);
        assert_eq!(a.advance(20), 30);
        assert_eq!(a.sack_blocks().as_slice(), &[(40, 50)]);
        assert_eq!(a.advance(45), 50);
        assert!(a.is_empty());
    }

    #[test]
    fn test_sack_blocks_most_recent_first_rfc2018_4() {
        let mut a = Assembler::default();
        a.insert(100, 110);
        a.insert(200, 210);
        a.insert(300, 310);
        assert_eq!(a.sack_blocks().as_slice(), &[(300, 310), (200, 210), (100, 110)]);
        a.insert(110, 120); // extends the oldest block: it becomes the first
        assert_eq!(a.sack_blocks().as_slice(), &[(100, 120), (300, 310), (200, 210)]);
    }

    #[test]
    fn test_at_most_four_blocks() {
        let mut a = Assembler::default();
        for i in 0..6 {
            a.insert(100 * i + 10, 100 * i + 20);
        }
        let b = a.sack_blocks();
        assert_eq!(b.len(), 4);
        assert_eq!(b.as_slice()[0], (510, 520));
        assert_eq!(b.as_slice()[3], (210, 220));
    }
}
