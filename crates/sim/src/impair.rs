//! Path impairments: what a middlebox on a link does to the ECN fields of the
//! packets it passes. The rewriting rule of each action lives here once; the
//! simulator applies it to its [`Segment`]s and the emulator's router
//! (crates/emu, `frame.rs`) to real IPv4/TCP bytes, each through [`Header`].
//!
//! | action | packets it acts on | what it does | source |
//! |---|---|---|---|
//! | `bleach` | ECT(0), ECT(1), CE | IP ECN field → Not-ECT | RFC 3168 §18 (an "ECN-unaware" box clearing the field) |
//! | `ce_all` | ECT(0), ECT(1) | → CE (Not-ECT packets are left alone; CE stays CE) | RFC 3168 §5 (a router marks only ECN-capable packets) |
//! | `ect1_to_ect0` | ECT(1) | → ECT(0) | RFC 9331 §5.1 (ECT(1) remarked in front of an L4S queue) |
//! | `ect0_to_ect1` | ECT(0) | → ECT(1) | the reverse remarking |
//! | `drop_ecn_syn` | SYN (no ACK) with ECE, CWR or AE | dropped | RFC 3168 §6.1.1.1 (boxes dropping ECN-setup SYNs), RFC 9768 §3.1.1 |
//! | `drop_ecn_synack` | SYN-ACK with ECE, CWR or AE | dropped | RFC 3168 §6.1.1 (ECN-setup SYN-ACK: ECE), RFC 9768 §3.1.1 Table 2 (the AccECN SYN-ACK's ACE codes) |
//! | `strip_accecn_option` | segments carrying the AccECN option | the option removed (the header shrinks) | RFC 9768 §3.2.3.2 |
//! | `zero_accecn_option` | segments carrying the AccECN option | its counters set to 0 | RFC 9768 §3.2.3.2 (mangling) |
//! | `zero_ace` | non-SYN segments with AE, CWR or ECE | the ACE field (AE, CWR, ECE) → 0 | RFC 9768 §3.2.2.3 (ACE zeroed on the path) |
//! | `clear_ece` | non-SYN segments with ACK and ECE | ECE → 0 | RFC 3168 §6.1.2 (the echo of CE it hides from the sender) |
//!
//! The ECN actions act on any IPv4 packet; the others on TCP segments only.
//! A SYN or SYN-ACK keeps its flags under `zero_ace` and `clear_ece` (its
//! ECE/CWR/AE are the negotiation, which the two drop actions cover).
//! [`ImpairAction::applies`] says whether an action acts on a packet: the
//! packets it rewrites or drops are exactly those, and only those count.

use ecnlab_wire::{AccEcnOption, Ecn, Segment, TcpFlags};
use serde::{Deserialize, Serialize};

/// One impairment action (the module doc's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImpairAction {
    Bleach,
    CeAll,
    Ect1ToEct0,
    Ect0ToEct1,
    DropEcnSyn,
    DropEcnSynack,
    StripAccecnOption,
    ZeroAccecnOption,
    ZeroAce,
    ClearEce,
}

/// The fields of a packet an impairment reads and writes. An implementation
/// keeps the packet well formed (lengths and checksums follow each write).
pub trait Header {
    fn ecn(&self) -> Ecn;
    fn set_ecn(&mut self, ecn: Ecn);
    /// The TCP control bits; `None` for a packet that is not a TCP segment.
    fn tcp_flags(&self) -> Option<TcpFlags>;
    fn set_tcp_flags(&mut self, flags: TcpFlags);
    fn has_accecn_option(&self) -> bool;
    fn strip_accecn_option(&mut self);
    /// Keeps the option's kind and length, with every counter 0.
    fn zero_accecn_option(&mut self);
}

/// What an action did to one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The action does not act on this packet.
    Untouched,
    Rewritten,
    Dropped,
}

const ACE: TcpFlags = TcpFlags(TcpFlags::AE.0 | TcpFlags::CWR.0 | TcpFlags::ECE.0);

impl ImpairAction {
    pub const ALL: [ImpairAction; 10] = [
        ImpairAction::Bleach,
        ImpairAction::CeAll,
        ImpairAction::Ect1ToEct0,
        ImpairAction::Ect0ToEct1,
        ImpairAction::DropEcnSyn,
        ImpairAction::DropEcnSynack,
        ImpairAction::StripAccecnOption,
        ImpairAction::ZeroAccecnOption,
        ImpairAction::ZeroAce,
        ImpairAction::ClearEce,
    ];

    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            ImpairAction::Bleach => "bleach",
            ImpairAction::CeAll => "ce_all",
            ImpairAction::Ect1ToEct0 => "ect1_to_ect0",
            ImpairAction::Ect0ToEct1 => "ect0_to_ect1",
            ImpairAction::DropEcnSyn => "drop_ecn_syn",
            ImpairAction::DropEcnSynack => "drop_ecn_synack",
            ImpairAction::StripAccecnOption => "strip_accecn_option",
            ImpairAction::ZeroAccecnOption => "zero_accecn_option",
            ImpairAction::ZeroAce => "zero_ace",
            ImpairAction::ClearEce => "clear_ece",
        }
    }

    /// Whether this action acts on (rewrites or drops) packet `h`.
    pub fn applies(self, h: &impl Header) -> bool {
        let flags = h.tcp_flags();
        let syn = flags.is_some_and(|f| f.syn());
        let any = |f: Option<TcpFlags>, bits: TcpFlags| f.is_some_and(|f| f.0 & bits.0 != 0);
        match self {
            ImpairAction::Bleach => h.ecn() != Ecn::NotEct,
            ImpairAction::CeAll => h.ecn().is_ect(),
            ImpairAction::Ect1ToEct0 => h.ecn() == Ecn::Ect1,
            ImpairAction::Ect0ToEct1 => h.ecn() == Ecn::Ect0,
            ImpairAction::DropEcnSyn => syn && !flags.is_some_and(|f| f.ack()) && any(flags, ACE),
            ImpairAction::DropEcnSynack => syn && flags.is_some_and(|f| f.ack()) && any(flags, ACE),
            ImpairAction::StripAccecnOption | ImpairAction::ZeroAccecnOption => {
                flags.is_some() && h.has_accecn_option()
            }
            ImpairAction::ZeroAce => !syn && any(flags, ACE),
            ImpairAction::ClearEce => !syn && flags.is_some_and(|f| f.ack() && f.ece()),
        }
    }

    /// Applies the action to `h`.
    pub fn apply(self, h: &mut impl Header) -> Effect {
        if !self.applies(h) {
            return Effect::Untouched;
        }
        let flags = h.tcp_flags().unwrap_or_default();
        match self {
            ImpairAction::Bleach => h.set_ecn(Ecn::NotEct),
            ImpairAction::CeAll => h.set_ecn(Ecn::Ce),
            ImpairAction::Ect1ToEct0 => h.set_ecn(Ecn::Ect0),
            ImpairAction::Ect0ToEct1 => h.set_ecn(Ecn::Ect1),
            ImpairAction::DropEcnSyn | ImpairAction::DropEcnSynack => return Effect::Dropped,
            ImpairAction::StripAccecnOption => h.strip_accecn_option(),
            ImpairAction::ZeroAccecnOption => h.zero_accecn_option(),
            ImpairAction::ZeroAce => h.set_tcp_flags(flags.with_ace(0)),
            ImpairAction::ClearEce => h.set_tcp_flags(TcpFlags(flags.0 & !TcpFlags::ECE.0)),
        }
        Effect::Rewritten
    }
}

/// The simulator's segment: the fields themselves (its wire length follows the options).
impl Header for Segment {
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    fn set_ecn(&mut self, ecn: Ecn) {
        self.ecn = ecn;
    }
    fn tcp_flags(&self) -> Option<TcpFlags> {
        Some(self.flags)
    }
    fn set_tcp_flags(&mut self, flags: TcpFlags) {
        self.flags = flags;
    }
    fn has_accecn_option(&self) -> bool {
        self.accecn.is_some()
    }
    fn strip_accecn_option(&mut self) {
        self.accecn = None;
    }
    fn zero_accecn_option(&mut self) {
        if let Some(o) = self.accecn.as_mut() {
            *o = AccEcnOption { order1: o.order1, fields: o.fields, ..AccEcnOption::default() };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ECN_SYN: TcpFlags = TcpFlags(TcpFlags::SYN.0 | TcpFlags::ECE.0 | TcpFlags::CWR.0);

    fn seg(flags: TcpFlags, ecn: Ecn) -> Segment {
        Segment { flags, ecn, ..Segment::default() }
    }

    fn option() -> AccEcnOption {
        AccEcnOption { order1: false, fields: 3, ee0b: 5, eceb: 7, ee1b: 9 }
    }

    #[test]
    fn test_ecn_actions_map_each_codepoint() {
        use Ecn::*;
        let table = [
            (ImpairAction::Bleach, [NotEct, NotEct, NotEct, NotEct]),
            (ImpairAction::CeAll, [NotEct, Ce, Ce, Ce]),
            (ImpairAction::Ect1ToEct0, [NotEct, Ect0, Ect0, Ce]),
            (ImpairAction::Ect0ToEct1, [NotEct, Ect1, Ect1, Ce]),
        ];
        for (action, want) in table {
            for (from, to) in [NotEct, Ect1, Ect0, Ce].into_iter().zip(want) {
                let mut s = seg(TcpFlags::ACK, from);
                let effect = action.apply(&mut s);
                assert_eq!(s.ecn, to, "{action:?} on {from:?}");
                let changed = from != to || (action == ImpairAction::CeAll && from.is_ect());
                assert_eq!(effect == Effect::Rewritten, changed, "{action:?} on {from:?}");
            }
        }
        let mut ce = seg(TcpFlags::ACK, Ce);
        assert_eq!(ImpairAction::CeAll.apply(&mut ce), Effect::Untouched, "CE stays CE, not counted");
    }

    #[test]
    fn test_drop_ecn_syn_drops_ecn_setup_syns_only() {
        let a = ImpairAction::DropEcnSyn;
        assert_eq!(a.apply(&mut seg(ECN_SYN, Ecn::NotEct)), Effect::Dropped, "RFC 3168 ECN-setup SYN");
        assert_eq!(a.apply(&mut seg(ECN_SYN | TcpFlags::AE, Ecn::NotEct)), Effect::Dropped, "AccECN SYN");
        assert_eq!(a.apply(&mut seg(TcpFlags::SYN, Ecn::NotEct)), Effect::Untouched, "a plain SYN passes");
        assert_eq!(a.apply(&mut seg(ECN_SYN | TcpFlags::ACK, Ecn::NotEct)), Effect::Untouched, "a SYN-ACK passes");
        assert_eq!(a.apply(&mut seg(TcpFlags::ACK | TcpFlags::ECE, Ecn::Ect0)), Effect::Untouched);
    }

    #[test]
    fn test_drop_ecn_synack_drops_ecn_setup_synacks_only() {
        let a = ImpairAction::DropEcnSynack;
        let synack = TcpFlags::SYN | TcpFlags::ACK;
        assert_eq!(a.apply(&mut seg(synack | TcpFlags::ECE, Ecn::NotEct)), Effect::Dropped, "RFC 3168");
        assert_eq!(a.apply(&mut seg(synack | TcpFlags::CWR, Ecn::NotEct)), Effect::Dropped, "AccECN ACE 010");
        assert_eq!(a.apply(&mut seg(synack, Ecn::NotEct)), Effect::Untouched, "a non-ECN SYN-ACK passes");
        assert_eq!(a.apply(&mut seg(ECN_SYN, Ecn::NotEct)), Effect::Untouched, "a SYN passes");
    }

    #[test]
    fn test_accecn_option_strip_and_zero() {
        let mut s = Segment { accecn: Some(option()), flags: TcpFlags::ACK, ..Segment::default() };
        let before = s.wire_len();
        let mut zeroed = s;
        assert_eq!(ImpairAction::ZeroAccecnOption.apply(&mut zeroed), Effect::Rewritten);
        assert_eq!(zeroed.accecn, Some(AccEcnOption { fields: 3, ..AccEcnOption::default() }));
        assert_eq!(zeroed.wire_len(), before, "zeroing keeps the option's length");
        assert_eq!(ImpairAction::StripAccecnOption.apply(&mut s), Effect::Rewritten);
        assert_eq!(s.accecn, None);
        assert_eq!(s.wire_len(), before - 12, "11 option bytes and their padding");
        assert_eq!(ImpairAction::StripAccecnOption.apply(&mut s), Effect::Untouched, "nothing left to strip");
    }

    #[test]
    fn test_zero_ace_and_clear_ece_leave_the_handshake_alone() {
        let ack = TcpFlags::ACK | TcpFlags::AE | TcpFlags::CWR | TcpFlags::ECE;
        let mut s = seg(ack, Ecn::Ect0);
        assert_eq!(ImpairAction::ClearEce.apply(&mut s), Effect::Rewritten);
        assert_eq!(s.flags, TcpFlags::ACK | TcpFlags::AE | TcpFlags::CWR);
        assert_eq!(ImpairAction::ZeroAce.apply(&mut s), Effect::Rewritten);
        assert_eq!(s.flags, TcpFlags::ACK);
        assert_eq!(ImpairAction::ZeroAce.apply(&mut s), Effect::Untouched, "ACE already 0");
        let mut syn = seg(ECN_SYN | TcpFlags::AE, Ecn::NotEct);
        assert_eq!(ImpairAction::ZeroAce.apply(&mut syn), Effect::Untouched);
        let mut synack = seg(TcpFlags::SYN | TcpFlags::ACK | TcpFlags::ECE, Ecn::NotEct);
        assert_eq!(ImpairAction::ClearEce.apply(&mut synack), Effect::Untouched);
    }

    #[test]
    fn test_names_are_the_serde_names() {
        for a in ImpairAction::ALL {
            assert_eq!(serde_json::to_value(a).unwrap(), serde_json::json!(a.name()));
        }
    }
}
