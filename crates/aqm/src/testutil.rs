//! Test helpers: a packet type and an RNG whose uniform draws are scripted.

use std::collections::VecDeque;

use ecnlab_wire::Ecn;
use rand::RngCore;

use crate::queue::QueuedPacket;

/// A packet that records how often `set_ce` was called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TestPkt {
    pub id: u64,
    pub len: u32,
    pub ecn: Ecn,
    pub ce_calls: u32,
    /// An ICMP error message: no Source Quench about it.
    pub icmp: bool,
    /// The flow it belongs to (what flow queueing hashes).
    pub key: u64,
}

impl TestPkt {
    pub fn new(id: u64, len: u32, ecn: Ecn) -> Self {
        TestPkt { id, len, ecn, ce_calls: 0, icmp: false, key: 0 }
    }

    /// A packet of flow `key`.
    pub fn keyed(id: u64, len: u32, ecn: Ecn, key: u64) -> Self {
        TestPkt { key, ..TestPkt::new(id, len, ecn) }
    }
}

impl QueuedPacket for TestPkt {
    fn wire_len(&self) -> u32 {
        self.len
    }
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    fn set_ce(&mut self) -> bool {
        self.ce_calls += 1;
        self.ecn.set_ce()
    }
    fn may_quench(&self) -> bool {
        !self.icmp
    }
    fn flow_key(&self) -> u64 {
        self.key
    }
}

/// One step of a property test's script of queue operations.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    Enqueue(u32, Ecn),
    Dequeue,
    Advance(u64),
}

/// Arrivals of any size and codepoint, departures, and time steps up to `max_advance_ns`.
pub(crate) fn op(max_advance_ns: u64) -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    let ecn = prop_oneof![Just(Ecn::NotEct), Just(Ecn::Ect0), Just(Ecn::Ect1), Just(Ecn::Ce)];
    prop_oneof![
        6 => (1u32..1600, ecn).prop_map(|(l, e)| Op::Enqueue(l, e)),
        3 => Just(Op::Dequeue),
        2 => (0..max_advance_ns).prop_map(Op::Advance),
    ]
}

/// Returns scripted uniforms from `rng.random::<f64>()` (rand 0.9 takes the top
/// 53 bits of `next_u64`); panics when the script runs out, so a test also
/// pins how many draws were taken.
#[derive(Debug, Default)]
pub(crate) struct ScriptRng {
    draws: VecDeque<f64>,
}

impl ScriptRng {
    pub fn new(draws: &[f64]) -> Self {
        ScriptRng { draws: draws.iter().copied().collect() }
    }
    pub fn push(&mut self, u: f64) {
        self.draws.push_back(u);
    }
    pub fn remaining(&self) -> usize {
        self.draws.len()
    }
}

impl RngCore for ScriptRng {
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    fn next_u64(&mut self) -> u64 {
        let u = self.draws.pop_front().expect("ScriptRng: unexpected draw");
        assert!((0.0..1.0).contains(&u));
        ((u * (1u64 << 53) as f64) as u64) << 11
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for b in dst {
            *b = self.next_u32() as u8;
        }
    }
}

#[test]
fn test_script_rng_roundtrips_uniforms() {
    use rand::Rng;
    let mut r = ScriptRng::new(&[0.0, 0.25, 0.3, 0.999_999]);
    for u in [0.0, 0.25, 0.3, 0.999_999] {
        let got: f64 = r.random();
        assert!((got - u).abs() < 1e-15, "{got} vs {u}");
    }
    assert_eq!(r.remaining(), 0);
}
