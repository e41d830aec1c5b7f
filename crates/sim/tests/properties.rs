//! Property tests over random small networks: packet conservation end to end
//! at every step, queue identities, finite transfers delivered exactly, and
//! determinism — with random queues, losses, scripted faults and path impairments.

mod common;
use common::*;
use ecnlab_sim::impair::ImpairAction;
use ecnlab_sim::spec::*;
use ecnlab_sim::Simulation;
use ecnlab_tcp::{EcnMode, Recovery, TcpConfig};
use proptest::prelude::*;

/// The actions that rewrite and never drop.
const REWRITES: [ImpairAction; 6] = [
    ImpairAction::Bleach,
    ImpairAction::CeAll,
    ImpairAction::Ect0ToEct1,
    ImpairAction::Ect1ToEct0,
    ImpairAction::ClearEce,
    ImpairAction::ZeroAce,
];

fn variant() -> impl Strategy<Value = Recovery> {
    prop_oneof![Just(Recovery::Tahoe), Just(Recovery::Reno), Just(Recovery::NewReno), Just(Recovery::Sack)]
}

prop_compose! {
    fn scenario()(
        pairs in 1usize..4,
        use_red in any::<bool>(),
        ecn in any::<bool>(),
        delack in any::<bool>(),
        v in variant(),
        limit in 5u32..40,
        loss_pct in 0u32..4,
        corrupt_pct in 0u32..3,
        seed in any::<u64>(),
        faults in proptest::collection::vec((1u64..60, any::<bool>()), 0..4),
        bytes in 20_000u64..200_000,
        impairments in proptest::collection::vec((0usize..6, 0usize..6, 1u32..=10), 0..3),
        drop_handshake in any::<bool>(),
    ) -> SimSpec {
        let rate = 2_000_000;
        let queue = if use_red { red(3.0, 9.0, 0.1, limit.max(10), ecn, rate) } else { droptail(limit) };
        let ecn_mode = if ecn { EcnMode::Classic } else { EcnMode::Off };
        let tcp = TcpConfig { recovery: v, ecn: ecn_mode, delayed_ack: delack, min_rto_ns: 200 * MS, ..Default::default() };
        let mut spec = dumbbell(pairs, rate, 10 * MS, queue, tcp, 60 * SEC);
        spec.seed = seed;
        for f in &mut spec.flows {
            f.app = AppSpec::Bulk { bytes: Some(bytes) };
        }
        spec.links[2].loss = loss_pct as f64 / 100.0;
        spec.links[5].corrupt = corrupt_pct as f64 / 100.0;
        for (nth, mark) in faults {
            let action = if mark { FaultAction::Mark } else { FaultAction::Drop };
            spec.faults.push(FaultSpec { link: "R1->R2".into(), flow: "bulk1".into(), action, nth: Some(nth), seq: None });
        }
        // Rewriting on any of the first links (both bottleneck directions, s1's and r1's access
        // links), a tenth to all of the packets; ECN handshakes dropped in the first 0.5 s only,
        // so that every transfer still completes.
        for (action, link, tenths) in impairments {
            let link = spec.links[link].name.clone();
            spec.impairments.push(ImpairSpec {
                link,
                action: REWRITES[action],
                fraction: f64::from(tenths) / 10.0,
                from_ns: 0,
                until_ns: None,
                flows: vec![],
            });
        }
        if drop_handshake {
            for (link, action) in [("s1->R1", ImpairAction::DropEcnSyn), ("R2->R1", ImpairAction::DropEcnSynack)] {
                let (from_ns, until_ns, flows) = (0, Some(SEC / 2), vec![]);
                spec.impairments.push(ImpairSpec { link: link.into(), action, fraction: 1.0, from_ns, until_ns, flows });
            }
        }
        spec
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn prop_packets_conserved_and_transfers_exact(spec in scenario()) {
        let want: Vec<u64> = spec.flows.iter().map(|f| match f.app { AppSpec::Bulk { bytes: Some(b) } => b, _ => 0 }).collect();
        let mut sim = Simulation::new(spec).unwrap();
        let mut n = 0u64;
        while sim.step() {
            n += 1;
            if n.is_multiple_of(101) {
                let c = sim.census();
                prop_assert_eq!(c.sent, c.delivered + c.stale + sim.packets_discarded() + sim.packets_in_network());
            }
        }
        let out = sim.run().unwrap();
        for f in &out.flows {
            prop_assert_eq!(f.pkts_sent, f.pkts_delivered + f.pkts_dropped + f.pkts_corrupted + f.pkts_in_flight, "flow {}", f.id);
        }
        for (f, w) in out.flows.iter().zip(want) {
            prop_assert_eq!(f.bytes_delivered, w, "flow {} delivered {} of {}", f.id, f.bytes_delivered, w);
            prop_assert!(f.completion_time_s.is_some());
        }
        for q in &out.queues {
            prop_assert_eq!(q.arrivals, q.enqueued + q.early_drops + q.forced_drops + q.overflow_drops);
            let by_kind = q.drops_syn + q.drops_synack + q.drops_data + q.drops_retransmit + q.drops_fin + q.drops_ack;
            prop_assert_eq!(by_kind + q.drops_quench, q.early_drops + q.forced_drops + q.overflow_drops, "{}", q.link);
            prop_assert!(q.dequeued <= q.enqueued);
            prop_assert!(q.marks <= q.enqueued);
            prop_assert!(q.avg_qlen_pkts <= q.max_qlen_pkts as f64 + 1e-9);
        }
    }
}
