//! Scripted faults: at a named link, drop or CE-mark one chosen packet of a
//! flow — the n-th transmission of the flow to enter the link, or the first
//! transmission carrying a given sequence number. The tool of ns-2's ECN
//! validation suite (scripted drops and marks of chosen packets).

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
