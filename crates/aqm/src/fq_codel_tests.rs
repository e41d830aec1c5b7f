//! FQ-CoDel tests: ports of ns-3's `fq-codel-queue-disc-test-suite.cc`
//! (flow separation and packet limit, deficit and flow lists), the
//! fattest-flow overflow batch, new-flow priority, ce_threshold with its
//! selector, the perturbation draw, the personalities' backlog scope,
//! validation, and properties (conservation, Not-ECT never marked, DRR
//! fairness).

use ecnlab_wire::{Ecn, Instant};
use proptest::prelude::*;

use super::*;
use crate::codel::tests::{conservation_run, not_ect_never_marked, ops, Host, Pkt, MS};
use crate::config::QueueConfig;
use crate::queue::AqmQueue;
use crate::testutil::ScriptRng;
use crate::verdict::DropReason;

const PERTURB: u32 = 0x1234_5678;

fn params() -> FqCodelParams {
    FqCodelParams {
        limit_pkts: 10_240,
        memory_limit_bytes: 32 << 20,
        flows: 1024,
        quantum_bytes: 1514,
        drop_batch: 64,
        target_ns: 5 * MS,
        interval_ns: 100 * MS,
        ecn: true,
        ce_threshold_ns: None,
        ce_threshold_selector: None,
        mtu_bytes: 1514,
        perturbation: Some(PERTURB),
        personality: AqmPersonality::Linux,
    }
}

fn host(p: &FqCodelParams) -> Host<FqCodel> {
    Host::new(FqCodel::new(p), p.ecn)
}

/// `n` flow keys that fall in distinct buckets.
fn keys(p: &FqCodelParams, n: usize) -> Vec<u64> {
    let mut seen = std::collections::HashSet::new();
    (0u64..).filter(|&k| seen.insert(bucket(k, PERTURB, p.flows))).take(n).collect()
}

fn status(h: &Host<FqCodel>, sub: usize) -> (i64, Option<FlowList>) {
    let f = &h.aqm.flows[sub];
    (f.deficit, f.list)
}

/// ns-3 "Test IP flows separation and packet limit": limit 4 packets; three
/// 120-byte packets of flow 1 and one of flow 2 fit; the fifth (flow 2)
/// overflows and drops from the fattest flow (flow 1, 360 B) until half its
/// bytes are gone: two packets, leaving 1 and 2.
#[test]
fn test_ns3_flows_separation_and_packet_limit() {
    let p = FqCodelParams { limit_pkts: 4, ..params() };
    let k = keys(&p, 2);
    let mut h = host(&p);
    let s1: Vec<usize> = (0..3).map(|i| h.enqueue(0, Pkt::keyed(i, 120, Ecn::NotEct, k[0]))).collect();
    assert!(s1.iter().all(|&s| s == s1[0]));
    let s2 = h.enqueue(0, Pkt::keyed(3, 120, Ecn::NotEct, k[1]));
    assert_ne!(s2, s1[0]);
    assert_eq!((h.store.len_pkts(), h.store.sub_len_pkts(s1[0]), h.store.sub_len_pkts(s2)), (4, 3, 1));
    h.enqueue(0, Pkt::keyed(4, 120, Ecn::NotEct, k[1]));
    assert_eq!((h.store.len_pkts(), h.store.sub_len_pkts(s1[0]), h.store.sub_len_pkts(s2)), (3, 1, 2));
    assert_eq!(h.dropped(), [(0, DropReason::Overflow), (1, DropReason::Overflow)]);
    assert_eq!(h.aqm.flows[s1[0]].vars.count, 2, "Linux: the flow's CoDel count grows by the drops");
}

/// ns-3 "Test credits and flows status": quantum 90, 120-byte packets.
#[test]
fn test_ns3_deficit_and_flow_lists() {
    use FlowList::{New, Old};
    let p = FqCodelParams { quantum_bytes: 90, ..params() };
    let k = keys(&p, 2);
    let mut h = host(&p);
    let f1 = h.enqueue(0, Pkt::keyed(1, 120, Ecn::NotEct, k[0]));
    assert_eq!(status(&h, f1), (90, Some(New)), "a new flow gets a quantum");
    h.dequeue(0).unwrap();
    assert_eq!(status(&h, f1), (-30, Some(New)), "90 − 120; an empty flow stays listed until visited");
    h.enqueue(0, Pkt::keyed(2, 120, Ecn::NotEct, k[0]));
    h.enqueue(0, Pkt::keyed(3, 120, Ecn::NotEct, k[0]));
    assert_eq!(status(&h, f1), (-30, Some(New)));
    let f2 = h.enqueue(0, Pkt::keyed(4, 120, Ecn::NotEct, k[1]));
    h.enqueue(0, Pkt::keyed(5, 120, Ecn::NotEct, k[1]));
    assert_eq!(status(&h, f2), (90, Some(New)));
    // Flow 1 has a negative deficit: it gets a quantum and goes to old; flow 2 sends.
    assert_eq!(h.dequeue(0).unwrap().id, 4);
    assert_eq!((status(&h, f1), status(&h, f2)), ((60, Some(Old)), (-30, Some(New))));
    assert_eq!(h.dequeue(0).unwrap().id, 2);
    assert_eq!((status(&h, f1), status(&h, f2)), ((-60, Some(Old)), (60, Some(Old))));
    assert_eq!(h.dequeue(0).unwrap().id, 5);
    assert_eq!((status(&h, f1), status(&h, f2)), ((30, Some(Old)), (-60, Some(Old))));
    assert_eq!(h.dequeue(0).unwrap().id, 3);
    assert_eq!((status(&h, f1), status(&h, f2)), ((-90, Some(Old)), (30, Some(Old))));
    // Both empty: f1 gets 0, f2 leaves, f1 gets 90 and leaves.
    assert!(h.dequeue(0).is_none());
    assert_eq!((status(&h, f1), status(&h, f2)), ((90, None), (30, None)));
    assert!(h.aqm.new_flows.is_empty() && h.aqm.old_flows.is_empty());
}

/// A new (sparse) flow is served before backlogged old flows (RFC 8290 §4.2).
#[test]
fn test_new_flow_served_first() {
    let p = params();
    let k = keys(&p, 2);
    let mut h = host(&p);
    for i in 0..10 {
        h.enqueue(0, Pkt::keyed(i, 1000, Ecn::NotEct, k[0]));
    }
    assert_eq!(h.dequeue(MS).unwrap().id, 0);
    assert_eq!(h.dequeue(MS).unwrap().id, 1, "deficit 1514 − 1000 > 0: same flow again");
    h.enqueue(MS, Pkt::keyed(100, 200, Ecn::NotEct, k[1]));
    assert_eq!(h.dequeue(MS).unwrap().id, 100, "the new flow goes first");
    assert_eq!(h.dequeue(MS).unwrap().id, 2);
}

/// Overflow drops at most drop_batch packets from the fattest flow, stopping
/// once half its bytes are gone; the memory limit triggers it as well.
#[test]
fn test_overflow_batch_from_fattest_and_memory_limit() {
    let p = FqCodelParams { limit_pkts: 100, drop_batch: 3, ..params() };
    let k = keys(&p, 3);
    let mut h = host(&p);
    for i in 0..60 {
        h.enqueue(0, Pkt::keyed(i, 100, Ecn::NotEct, k[0]));
    }
    for i in 60..100 {
        h.enqueue(0, Pkt::keyed(i, 100, Ecn::NotEct, k[1]));
    }
    assert!(h.dropped().is_empty());
    h.enqueue(0, Pkt::keyed(100, 100, Ecn::NotEct, k[2]));
    assert_eq!(h.dropped(), [(0, DropReason::Overflow), (1, DropReason::Overflow), (2, DropReason::Overflow)]);
    assert_eq!(h.store.len_pkts(), 98);
    // Memory: 3 × 1000 B > 2500 B; the fattest (flow 0: 2000 B) loses one packet (half).
    let p = FqCodelParams { memory_limit_bytes: 2500, ..params() };
    let mut h = host(&p);
    h.enqueue(0, Pkt::keyed(1, 1000, Ecn::NotEct, k[0]));
    h.enqueue(0, Pkt::keyed(2, 1000, Ecn::NotEct, k[0]));
    assert!(h.dropped().is_empty());
    h.enqueue(0, Pkt::keyed(3, 1000, Ecn::NotEct, k[1]));
    assert_eq!(h.dropped(), [(1, DropReason::Overflow)]);
    assert_eq!(h.stats().overflow_drops, 1);
}

/// ce_threshold marks ECT packets whose sojourn exceeds it; with the
/// selector (1, 1) only ECT(1) (Linux `ce_threshold_ect1`); step marks.
#[test]
fn test_ce_threshold_and_selector() {
    let k = keys(&params(), 1)[0];
    for (selector, want) in [(None, [Ecn::Ce, Ecn::Ce, Ecn::NotEct]), (Some((1, 1)), [Ecn::Ce, Ecn::Ect0, Ecn::NotEct])]
    {
        let p = FqCodelParams { ce_threshold_ns: Some(MS), ce_threshold_selector: selector, ..params() };
        let mut h = host(&p);
        for (i, e) in [Ecn::Ect1, Ecn::Ect0, Ecn::NotEct].into_iter().enumerate() {
            h.enqueue(0, Pkt::keyed(i as u64, 100, e, k));
        }
        assert_eq!(h.dequeue(MS / 2).unwrap().ecn, Ecn::Ect1, "sojourn below the threshold");
        for (i, e) in [Ecn::Ect1, Ecn::Ect0, Ecn::NotEct].into_iter().enumerate() {
            h.enqueue(MS, Pkt::keyed(10 + i as u64, 100, e, k));
        }
        h.dequeue(3 * MS);
        h.dequeue(3 * MS);
        let got: Vec<Ecn> = (0..3).map(|_| h.dequeue(3 * MS).unwrap().ecn).collect();
        assert_eq!(got, want, "{selector:?}");
        assert_eq!(h.stats().dequeue_drops, 0);
    }
}

/// Without `perturbation`, one u32 is drawn at the first arrival, before it
/// is classified; none after.
#[test]
fn test_perturbation_drawn_once_at_first_arrival() {
    let p = FqCodelParams { perturbation: None, ..params() };
    let mut h = host(&p);
    h.rng = ScriptRng::new(&[0.25]);
    let s = h.enqueue(0, Pkt::keyed(1, 100, Ecn::NotEct, 42));
    let drawn = h.aqm.perturbation.unwrap();
    assert_eq!(drawn, (((0.25 * (1u64 << 53) as f64) as u64) << 11 >> 32) as u32);
    assert_eq!(s, bucket(42, drawn, 1024));
    assert_eq!(h.enqueue(0, Pkt::keyed(2, 100, Ecn::NotEct, 42)), s);
    assert_eq!(h.rng.remaining(), 0);
}

/// Linux's CoDel in fq_codel reads the whole queue's backlog for the mtu
/// rule; the RFC personality the flow's own: a one-packet flow beside a
/// large flow is dropped under Linux only.
#[test]
fn test_backlog_scope_by_personality() {
    for (personality, drops) in [(AqmPersonality::Linux, true), (AqmPersonality::Rfc, false)] {
        let p = FqCodelParams { ecn: false, personality, ..params() };
        let k = keys(&p, 2);
        let mut h = host(&p);
        let mut dropped_small = false;
        for step in 0..100u64 {
            let t = step * 10 * MS;
            // Flow 0 keeps one old packet; flow 1 a standing backlog of 1000 B packets.
            if h.store.sub_len_pkts(bucket(k[0], PERTURB, p.flows)) == 0 {
                h.enqueue(t, Pkt::keyed(1_000_000 + step, 1000, Ecn::NotEct, k[0]));
            }
            for i in 0..3 {
                h.enqueue(t, Pkt::keyed(step * 10 + i, 100, Ecn::NotEct, k[1]));
            }
            for _ in 0..2 {
                h.dequeue(t + 9 * MS);
            }
            dropped_small |= h.dropped().iter().any(|&(id, _)| id >= 1_000_000);
        }
        assert_eq!(dropped_small, drops, "{personality:?}");
    }
}

#[test]
fn test_fq_codel_validate_rejections() {
    let ok = params();
    assert_eq!(QueueConfig::FqCodel(ok).validate(), Ok(()));
    let e = |p: FqCodelParams| p.validate().unwrap_err().to_string();
    assert_eq!(e(FqCodelParams { limit_pkts: 0, ..ok }), "limit_pkts = 0: must be >= 1");
    assert_eq!(e(FqCodelParams { memory_limit_bytes: 0, ..ok }), "memory_limit_bytes = 0: must be >= 1");
    assert_eq!(e(FqCodelParams { flows: 0, ..ok }), "flows = 0: must be in 1..=65536");
    assert_eq!(e(FqCodelParams { flows: 65537, ..ok }), "flows = 65537: must be in 1..=65536");
    assert_eq!(FqCodelParams { flows: 65536, ..ok }.validate(), Ok(()));
    assert_eq!(e(FqCodelParams { quantum_bytes: 0, ..ok }), "quantum_bytes = 0: must be >= 1");
    assert_eq!(e(FqCodelParams { drop_batch: 0, ..ok }), "drop_batch = 0: must be >= 1");
    assert_eq!(e(FqCodelParams { target_ns: 0, ..ok }), "target_ns = 0: must be > 0");
    assert_eq!(e(FqCodelParams { interval_ns: 0, ..ok }), "interval_ns = 0: must be > 0");
    assert_eq!(e(FqCodelParams { mtu_bytes: 0, ..ok }), "mtu_bytes = 0: must be >= 1");
    assert_eq!(e(FqCodelParams { ce_threshold_ns: Some(0), ..ok }), "ce_threshold_ns = 0: must be > 0");
}

/// `n` always-backlogged flows of equal packet size: each flow's share of the
/// dequeued bytes over a long run.
fn shares(n: usize, pkt: u32, rounds: u64, personality: AqmPersonality, perturbation: u32) -> Vec<f64> {
    let p = FqCodelParams { perturbation: Some(perturbation), personality, ..params() };
    let mut q: AqmQueue<Pkt> = AqmQueue::new(&QueueConfig::FqCodel(p)).unwrap();
    let mut rng = ScriptRng::default();
    // Distinct buckets for the n flows.
    let mut seen = std::collections::HashSet::new();
    let ks: Vec<u64> = (0u64..).filter(|&k| seen.insert(bucket(k, perturbation, p.flows))).take(n).collect();
    let mut bytes = vec![0u64; n];
    let mut id = 0;
    let tx = 10_000; // 10 µs per packet: sojourn stays below target
    let mut t = 0;
    for _ in 0..rounds {
        for (f, &k) in ks.iter().enumerate() {
            while q.iter().filter(|x| x.key == k).count() < 3 {
                id += 1;
                q.enqueue(Instant::from_nanos(t), Pkt::keyed(id, pkt, Ecn::NotEct, k), &mut rng).unwrap();
                let _ = f;
            }
        }
        t += tx;
        let out = q.dequeue(Instant::from_nanos(t), &mut rng).unwrap();
        let f = ks.iter().position(|&k| k == out.key).unwrap();
        bytes[f] += u64::from(out.len);
    }
    let total: u64 = bytes.iter().sum();
    bytes.iter().map(|&b| b as f64 / total as f64).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn prop_fq_codel_conservation(ops in ops(), rfc in any::<bool>(), ecn in any::<bool>(), nkeys in 1..8u64) {
        let personality = if rfc { AqmPersonality::Rfc } else { AqmPersonality::Linux };
        let p = FqCodelParams {
            limit_pkts: 40,
            memory_limit_bytes: 30_000,
            flows: 8,
            drop_batch: 4,
            target_ns: MS,
            interval_ns: 10 * MS,
            ecn,
            ce_threshold_ns: Some(2 * MS),
            personality,
            ..params()
        };
        conservation_run(&QueueConfig::FqCodel(p), &ops, nkeys)?;
    }

    #[test]
    fn prop_fq_codel_not_ect_never_marked(ops in ops(), rfc in any::<bool>(), nkeys in 1..8u64) {
        let personality = if rfc { AqmPersonality::Rfc } else { AqmPersonality::Linux };
        let p = FqCodelParams {
            limit_pkts: 40,
            flows: 8,
            target_ns: MS,
            interval_ns: 10 * MS,
            ce_threshold_ns: Some(2 * MS),
            personality,
            ..params()
        };
        not_ect_never_marked(&QueueConfig::FqCodel(p), &ops, nkeys)?;
    }

    /// DRR fairness: n backlogged flows with equal packets each get 1/n of
    /// the bytes within 1 %. A run stops mid-round, where one flow may be up
    /// to a quantum ahead, so it lasts 100 rounds' worth of packets per flow.
    #[test]
    fn prop_fq_codel_equal_flows_share_equally(n in 2..6usize, pkt in 64..1515u32, rfc in any::<bool>(), pert in any::<u32>()) {
        let personality = if rfc { AqmPersonality::Rfc } else { AqmPersonality::Linux };
        let per_round = 1514usize.div_ceil(pkt as usize);
        for s in shares(n, pkt, (n * 100 * per_round) as u64, personality, pert) {
            prop_assert!((s * n as f64 - 1.0).abs() <= 0.01, "share {} of 1/{}", s, n);
        }
    }
}
