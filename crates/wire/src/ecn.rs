//! The ECN field of the IP header (RFC 3168 §5): the two low bits of the
//! IPv4 TOS / IPv6 traffic-class byte.

use serde::{Deserialize, Serialize};

/// ECN codepoint. The discriminants are the on-the-wire bit values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Ecn {
    /// 00: the transport is not ECN-capable.
    #[default]
    NotEct = 0b00,
    /// 01: ECN-capable transport, ECT(1).
    Ect1 = 0b01,
    /// 10: ECN-capable transport, ECT(0) (what RFC 3168 senders use).
    Ect0 = 0b10,
    /// 11: Congestion Experienced, set by a router instead of dropping.
    Ce = 0b11,
}

impl Ecn {
    /// Decodes the two low bits of a TOS byte.
    pub const fn from_tos(tos: u8) -> Ecn {
        match tos & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }
    pub const fn bits(self) -> u8 {
        self as u8
    }
    /// ECT(0) or ECT(1): a router may mark this packet instead of dropping it.
    pub const fn is_ect(self) -> bool {
        matches!(self, Ecn::Ect0 | Ecn::Ect1)
    }
    pub const fn is_ce(self) -> bool {
        matches!(self, Ecn::Ce)
    }
    /// RFC 3168 §5: a router sets CE only on an ECN-capable packet (a CE
    /// packet stays CE). Returns whether the packet now carries CE.
    pub fn set_ce(&mut self) -> bool {
        if *self == Ecn::NotEct {
            return false;
        }
        *self = Ecn::Ce;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_tos_roundtrip() {
        for e in [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce] {
            assert_eq!(Ecn::from_tos(0xfc | e.bits()), e);
        }
        assert!(Ecn::Ect0.is_ect() && Ecn::Ect1.is_ect());
        assert!(!Ecn::NotEct.is_ect() && !Ecn::Ce.is_ect());
    }
}
