//! The impairments of one link (`impair.rs` says what each action does):
//! which packets each acts on, and how many it rewrote or dropped.
//!
//! An impairment acts on a packet that it `applies` to, when the packet
//! enters the link inside its time window `[from, until)` (from the start of
//! the run; in the emulator from the start of the traffic), belongs to one
//! of its `flows` (when it names flows; the emulator cannot tell flows apart
//! and refuses them), and, with `fraction` below 1, when a draw from the
//! link's own random stream (`rng::stream(seed, Impair, link index)`) falls
//! below `fraction`. A draw is taken only for a packet the impairment would
//! otherwise act on, so `fraction = 0.3` acts on 30 % of those packets.
//!
//! A link's impairments act in the order the scenario lists them, each on
//! the packet the previous ones left; after a drop none is consulted.

use crate::impair::{Effect, Header, ImpairAction};
use crate::rng::{stream, SimRng, Stream};
use ecnlab_wire::Instant;
use rand::Rng;
use serde::Serialize;

/// One impairment as a link applies it.
#[derive(Clone, Debug, PartialEq)]
pub struct Impairment {
    pub action: ImpairAction,
    /// Probability of acting on a packet it applies to, in (0, 1].
    pub fraction: f64,
    pub from: Instant,
    /// `None`: to the end of the run.
    pub until: Option<Instant>,
    /// Flow indices, sorted; `None`: every flow.
    pub flows: Option<Vec<u32>>,
}

/// What one impairment did, in the link's record of the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ImpairCount {
    pub action: &'static str,
    pub rewritten: u64,
    pub dropped: u64,
}

/// A link's impairments, their random stream and their counts.
#[derive(Clone, Debug)]
pub struct LinkImpairments {
    rules: Vec<Impairment>,
    rng: SimRng,
    counts: Vec<ImpairCount>,
}

impl LinkImpairments {
    /// `seed` and `link` (the link's index in the spec) select the random stream.
    pub fn new(seed: u64, link: u32, rules: Vec<Impairment>) -> Self {
        let counts = rules.iter().map(|r| ImpairCount { action: r.action.name(), ..ImpairCount::default() }).collect();
        LinkImpairments { rules, rng: stream(seed, Stream::Impair, link), counts }
    }

    /// Applies every impairment that selects packet `h` of flow `flow` (`None`:
    /// unknown) entering the link at `now`; false if one dropped it.
    pub fn apply(&mut self, now: Instant, flow: Option<u32>, h: &mut impl Header) -> bool {
        for (rule, count) in self.rules.iter().zip(&mut self.counts) {
            if !rule.selects(now, flow) || !rule.action.applies(h) {
                continue;
            }
            if rule.fraction < 1.0 && self.rng.random::<f64>() >= rule.fraction {
                continue;
            }
            match rule.action.apply(h) {
                Effect::Untouched => {}
                Effect::Rewritten => count.rewritten += 1,
                Effect::Dropped => {
                    count.dropped += 1;
                    return false;
                }
            }
        }
        true
    }

    /// Each impairment's counts, in the scenario's order.
    pub fn counts(&self) -> Vec<ImpairCount> {
        self.counts.clone()
    }

    /// Packets the impairments dropped.
    pub fn dropped(&self) -> u64 {
        self.counts.iter().map(|c| c.dropped).sum()
    }
}

impl Impairment {
    /// The time window and flow list (the fraction is drawn by the caller).
    fn selects(&self, now: Instant, flow: Option<u32>) -> bool {
        let in_window = now >= self.from && self.until.is_none_or(|u| now < u);
        let in_flows = match (&self.flows, flow) {
            (None, _) => true,
            (Some(list), Some(f)) => list.binary_search(&f).is_ok(),
            (Some(_), None) => false,
        };
        in_window && in_flows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecnlab_wire::{Ecn, Segment, TcpFlags};

    fn rule(action: ImpairAction) -> Impairment {
        Impairment { action, fraction: 1.0, from: Instant::ZERO, until: None, flows: None }
    }

    fn data(ecn: Ecn) -> Segment {
        Segment { flags: TcpFlags::ACK, payload_len: 1000, ecn, ..Segment::default() }
    }

    #[test]
    fn test_counts_only_the_packets_acted_on() {
        let mut l = LinkImpairments::new(1, 0, vec![rule(ImpairAction::Bleach), rule(ImpairAction::CeAll)]);
        for ecn in [Ecn::Ect0, Ecn::NotEct, Ecn::Ce, Ecn::Ect1] {
            let mut s = data(ecn);
            assert!(l.apply(Instant::ZERO, Some(0), &mut s));
            assert_eq!(s.ecn, Ecn::NotEct, "bleached first: nothing left for ce_all");
        }
        assert_eq!(l.counts()[0], ImpairCount { action: "bleach", rewritten: 3, dropped: 0 });
        assert_eq!(l.counts()[1], ImpairCount { action: "ce_all", rewritten: 0, dropped: 0 });
    }

    #[test]
    fn test_a_drop_ends_the_list() {
        let syn = Segment { flags: TcpFlags::SYN | TcpFlags::ECE | TcpFlags::CWR, ..Segment::default() };
        let mut l = LinkImpairments::new(1, 0, vec![rule(ImpairAction::DropEcnSyn), rule(ImpairAction::ZeroAce)]);
        assert!(!l.apply(Instant::ZERO, Some(0), &mut syn.clone()));
        assert_eq!(l.dropped(), 1);
    }

    #[test]
    fn test_window_is_from_inclusive_until_exclusive() {
        let w = Impairment {
            from: Instant::from_nanos(2_000),
            until: Some(Instant::from_nanos(5_000)),
            ..rule(ImpairAction::CeAll)
        };
        let mut l = LinkImpairments::new(1, 0, vec![w]);
        let got: Vec<Ecn> = [1_999, 2_000, 4_999, 5_000]
            .into_iter()
            .map(|t| {
                let mut s = data(Ecn::Ect0);
                l.apply(Instant::from_nanos(t), None, &mut s);
                s.ecn
            })
            .collect();
        assert_eq!(got, [Ecn::Ect0, Ecn::Ce, Ecn::Ce, Ecn::Ect0]);
    }

    #[test]
    fn test_flows_choose_packets_and_an_unknown_flow_is_not_chosen() {
        let mut l =
            LinkImpairments::new(1, 0, vec![Impairment { flows: Some(vec![1, 3]), ..rule(ImpairAction::Bleach) }]);
        let hit: Vec<bool> = [Some(0), Some(1), Some(3), None]
            .into_iter()
            .map(|f| {
                let mut s = data(Ecn::Ect0);
                l.apply(Instant::ZERO, f, &mut s);
                s.ecn == Ecn::NotEct
            })
            .collect();
        assert_eq!(hit, [false, true, true, false]);
    }

    /// `fraction = 0.3` acts on about 30 % of the packets, the same ones for the same seed and link.
    #[test]
    fn test_fraction_is_seeded_per_link() {
        let run = |seed, link| {
            let mut l =
                LinkImpairments::new(seed, link, vec![Impairment { fraction: 0.3, ..rule(ImpairAction::CeAll) }]);
            (0..10_000)
                .map(|_| {
                    let mut s = data(Ecn::Ect0);
                    l.apply(Instant::ZERO, Some(0), &mut s);
                    s.ecn == Ecn::Ce
                })
                .collect::<Vec<bool>>()
        };
        let a = run(7, 2);
        let n = a.iter().filter(|&&x| x).count();
        assert!((2_800..=3_200).contains(&n), "{n} of 10000");
        assert_eq!(a, run(7, 2));
        assert_ne!(a, run(7, 3));
        assert_ne!(a, run(8, 2));
    }

    /// No draw for a packet the action does not apply to: Not-ECT packets do not move the stream.
    #[test]
    fn test_fraction_draws_only_for_packets_it_would_act_on() {
        let mk = || LinkImpairments::new(3, 0, vec![Impairment { fraction: 0.5, ..rule(ImpairAction::CeAll) }]);
        let (mut a, mut b) = (mk(), mk());
        let mut plain = data(Ecn::NotEct);
        for _ in 0..5 {
            b.apply(Instant::ZERO, None, &mut plain);
        }
        for _ in 0..100 {
            let (mut x, mut y) = (data(Ecn::Ect0), data(Ecn::Ect0));
            a.apply(Instant::ZERO, None, &mut x);
            b.apply(Instant::ZERO, None, &mut y);
            assert_eq!(x.ecn, y.ecn);
        }
    }
}
