//! Scripted faults: at a named link, drop or CE-mark one chosen packet of a
//! flow — the n-th transmission of the flow to enter the link, or the first
//! transmission carrying a given sequence number. The tool of ns-2's ECN
//! validation suite (scripted drops and marks of chosen packets).
//!
//! Every fault of a link counts every packet of its flow, also one that an
//! earlier fault in the list already chose (`check_all`): `nth = 189 … 203`
//! drops packets 189 to 203 whatever order the faults are written in. When
//! two faults choose the same packet the first in the list acts.

use crate::packet::Packet;
use crate::spec::FaultAction;

#[derive(Clone, Debug)]
pub struct Fault {
    pub flow: u32,
    pub action: FaultAction,
    pub target: Target,
    /// Packets of the flow seen at the link so far.
    seen: u64,
    fired: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// 1-based transmission count of the flow at the link.
    Nth(u64),
    /// First payload-carrying packet of connection 0 covering this sequence number.
    Seq(u64),
}

/// Counts `p` at every fault of a link; the action of the first that chooses it.
pub fn check_all(faults: &mut [Fault], p: &Packet) -> Option<FaultAction> {
    let mut action = None;
    for f in faults {
        let a = f.check(p);
        action = action.or(a);
    }
    action
}

impl Fault {
    pub fn new(flow: u32, action: FaultAction, target: Target) -> Self {
        Fault { flow, action, target, seen: 0, fired: false }
    }

    /// Counts `p` and returns the action to apply to it, if it is the chosen packet.
    pub fn check(&mut self, p: &Packet) -> Option<FaultAction> {
        if p.flow != self.flow || self.fired {
            return None;
        }
        self.seen += 1;
        let hit = match self.target {
            Target::Nth(n) => self.seen == n,
            Target::Seq(s) => {
                let seg = &p.seg;
                p.conn_no == 0 && seg.payload_len > 0 && seg.seq <= s && s < seg.seq + seg.payload_len as u64
            }
        };
        if hit {
            self.fired = true;
            Some(self.action)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecnlab_wire::Segment;

    fn pkt(seq: u64) -> Packet {
        Packet::for_test(Segment { seq, payload_len: 1000, ..Segment::default() })
    }

    /// `nth = 189 … 203` in ascending order drops 15 consecutive
    /// packets (188 … 202 counted from 0), not every other one.
    #[test]
    fn test_every_fault_counts_every_packet() {
        let mut faults: Vec<_> = (189..=203).map(|n| Fault::new(0, FaultAction::Drop, Target::Nth(n))).collect();
        let hit: Vec<u64> = (1..=300).filter(|&i| check_all(&mut faults, &pkt(i * 1000)).is_some()).collect();
        assert_eq!(hit, (189..=203).collect::<Vec<_>>());
    }

    #[test]
    fn test_first_fault_in_the_list_acts_on_a_shared_packet() {
        let mut faults =
            vec![Fault::new(0, FaultAction::Mark, Target::Nth(2)), Fault::new(0, FaultAction::Drop, Target::Seq(2500))];
        assert_eq!(check_all(&mut faults, &pkt(1)), None);
        assert_eq!(check_all(&mut faults, &pkt(2001)), Some(FaultAction::Mark));
        assert!(faults.iter().all(|f| f.fired));
    }
}
