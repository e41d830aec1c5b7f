//! PI tests: the probability trajectory against the difference equation of
//! Hollot et al. 2001 §V computed independently here, the verdict rule, the
//! host's mark-vs-drop and validation.

use ecnlab_wire::{Duration, Ecn, Instant};

use super::Pi;
use crate::aqm::{Aqm, QueueView};
use crate::config::{PiParams, QueueConfig};
use crate::queue::AqmQueue;
use crate::testutil::{ScriptRng, TestPkt};
use crate::verdict::{DropReason, SignalKind, Verdict};

fn params() -> PiParams {
    PiParams { limit_pkts: Some(1000), limit_bytes: None, q_ref: 3.0, a: 0.01, b: 0.009, sample_hz: 100.0, ecn: true }
}

const MS: u64 = 1_000_000;

#[derive(Clone, Copy)]
enum Ev {
    Arrive(u64),
    Depart(u64),
}

impl Ev {
    fn at(self) -> u64 {
        match self {
            Ev::Arrive(t) | Ev::Depart(t) => t,
        }
    }
}

/// A fixed sequence: a burst builds the queue, a plateau above q_ref drives p
/// up to the clamp at 1, the queue drains, a long idle period drives p down
/// to 0, then a second small burst. Arrivals fall on sample instants too.
fn events() -> Vec<Ev> {
    let mut ev = Vec::new();
    for i in 0..12 {
        ev.push(Ev::Arrive(3 * MS + i * 4 * MS)); // 3, 7, ..., 47 ms
    }
    for i in 0..4 {
        ev.push(Ev::Depart(50 * MS + i * 5 * MS)); // queue 12 → 8
    }
    ev.push(Ev::Arrive(100 * MS)); // exactly on a sample instant
    for i in 0..2 {
        ev.push(Ev::Arrive(1_000 * MS + i * MS)); // p saturates meanwhile (q = 9)
    }
    for i in 0..11 {
        ev.push(Ev::Depart(2_500 * MS + i * 7 * MS)); // drain to 0
    }
    for i in 0..5 {
        ev.push(Ev::Arrive(8_000 * MS + i * 3 * MS)); // after the idle period
    }
    ev.push(Ev::Depart(8_020 * MS));
    ev
}

/// Queue length (packets) just before time `t`: events strictly before `t` applied.
fn queue_before(ev: &[Ev], t: u64) -> f64 {
    ev.iter()
        .filter(|e| e.at() < t)
        .map(|e| match e {
            Ev::Arrive(_) => 1.0,
            Ev::Depart(_) => -1.0,
        })
        .sum()
}

/// p(k) for k = 0..=k_max by the equation, one sample at a time.
fn reference(ev: &[Ev], c: &PiParams, k_max: u64) -> Vec<f64> {
    let period_ns = (1e9 / c.sample_hz).round() as u64;
    let mut p = vec![0.0];
    let mut q_old = 0.0;
    for k in 1..=k_max {
        let q = queue_before(ev, k * period_ns);
        let next = c.a * (q - c.q_ref) - c.b * (q_old - c.q_ref) + p[p.len() - 1];
        p.push(next.clamp(0.0, 1.0));
        q_old = q;
    }
    p
}

/// An RNG whose every uniform is the largest f64 below 1: signals only at p = 1.
struct HighRng;
impl rand::RngCore for HighRng {
    fn next_u32(&mut self) -> u32 {
        u32::MAX
    }
    fn next_u64(&mut self) -> u64 {
        u64::MAX
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        dst.fill(0xff);
    }
}

#[test]
fn test_pi_trajectory_matches_difference_equation() {
    let c = params();
    let ev = events();
    let period_ns = 10 * MS;
    let want = reference(&ev, &c, ev.last().unwrap().at() / period_ns);
    let mut pi = Pi::new(&c);
    let mut q: u32 = 0;
    let (mut saw_one, mut saw_mid) = (false, false);
    for e in &ev {
        let now = Instant::from_nanos(e.at());
        match *e {
            Ev::Arrive(_) => {
                pi.on_enqueue(now, 1000, &QueueView { len_pkts: q, len_bytes: 0 }, &mut HighRng);
                q += 1;
            }
            Ev::Depart(_) => {
                q -= 1;
                pi.on_dequeue(now, Duration::ZERO, 1000, &QueueView { len_pkts: q, len_bytes: 0 });
            }
        }
        let k = e.at() / period_ns; // samples taken at k·T <= now
        let got = pi.prob();
        assert!(
            (got - want[k as usize]).abs() < 1e-12,
            "t = {} ms: p = {got}, equation {}",
            e.at() / MS,
            want[k as usize]
        );
        saw_one |= got == 1.0;
        saw_mid |= got > 0.0 && got < 1.0;
    }
    // The sequence exercises both clamps and the interior.
    assert!(saw_one && saw_mid);
    // The idle period drives p to the clamp at 0, the last burst lifts it again.
    assert!(want.contains(&1.0) && want[790] == 0.0 && want[800] == 0.0);
    assert!(pi.prob() > 0.0 && pi.prob() < 1.0);
}

#[test]
fn test_pi_samples_use_queue_before_a_coincident_event() {
    // One arrival at exactly t = 10 ms (the first sample): the sample sees q = 0.
    let c = PiParams { q_ref: 0.0, a: 0.5, b: 0.0, ..params() };
    let mut pi = Pi::new(&c);
    pi.on_enqueue(Instant::from_nanos(10 * MS), 1000, &QueueView::default(), &mut HighRng);
    assert_eq!(pi.prob(), 0.0);
    // At 20 ms the queue (1 packet since 10 ms) gives p = 0.5·1.
    pi.on_enqueue(Instant::from_nanos(20 * MS), 1000, &QueueView { len_pkts: 1, len_bytes: 0 }, &mut HighRng);
    assert_eq!(pi.prob(), 0.5);
}

#[test]
fn test_pi_signals_with_probability_p_one_draw_per_arrival() {
    let c = PiParams { q_ref: 0.0, a: 0.25, b: 0.0, ..params() };
    let mut pi = Pi::new(&c);
    let q = QueueView { len_pkts: 1, len_bytes: 0 };
    // Before any sample p = 0: no draw at all (ScriptRng panics on a draw).
    let mut none = ScriptRng::default();
    assert_eq!(pi.on_enqueue(Instant::from_nanos(MS), 1000, &q, &mut none), Verdict::Pass);
    // At 10 ms p = 0.25: u = 0.2 signals, u = 0.3 passes.
    let mut rng = ScriptRng::new(&[0.2, 0.3]);
    let t = Instant::from_nanos(10 * MS);
    assert_eq!(pi.on_enqueue(t, 1000, &q, &mut rng), Verdict::Signal(SignalKind::Early));
    assert_eq!(pi.on_enqueue(t, 1000, &q, &mut rng), Verdict::Pass);
    assert_eq!(rng.remaining(), 0);
}

#[test]
fn test_pi_host_marks_ect_and_drops_not_ect() {
    for ecn in [true, false] {
        let c = PiParams { q_ref: 0.0, a: 1.0, b: 0.0, ecn, ..params() };
        let mut q: AqmQueue<TestPkt> = AqmQueue::new(&QueueConfig::Pi(c)).unwrap();
        let mut rng = ScriptRng::default();
        q.enqueue(Instant::from_nanos(MS), TestPkt::new(0, 1000, Ecn::Ect0), &mut rng).unwrap();
        // Sample at 10 ms sees 1 packet: p = clamp(1·1) = 1; every arrival is signalled.
        let t = Instant::from_nanos(10 * MS);
        let mut rng = ScriptRng::new(&[0.5, 0.5]);
        let ect = q.enqueue(t, TestPkt::new(1, 1000, Ecn::Ect0), &mut rng);
        let not = q.enqueue(t, TestPkt::new(2, 1000, Ecn::NotEct), &mut rng);
        assert_eq!(not.unwrap_err().1, DropReason::Early);
        if ecn {
            assert!(ect.is_ok());
            assert_eq!(q.iter().last().unwrap().ecn, Ecn::Ce);
        } else {
            assert_eq!(ect.unwrap_err().1, DropReason::Early);
        }
        let s = q.stats(t);
        assert_eq!((s.marks, s.early_drops), if ecn { (1, 1) } else { (0, 2) });
    }
}

#[test]
fn test_pi_validation_names_field_value_range() {
    let e = |p: PiParams| QueueConfig::Pi(p).validate().unwrap_err().to_string();
    assert_eq!(QueueConfig::Pi(params()).validate(), Ok(()));
    assert_eq!(e(PiParams { q_ref: -1.0, ..params() }), "q_ref = -1: must be finite and >= 0");
    assert_eq!(e(PiParams { a: f64::NAN, ..params() }), "a = NaN: must be finite and >= 0");
    assert_eq!(e(PiParams { b: f64::INFINITY, ..params() }), "b = inf: must be finite and >= 0");
    assert_eq!(e(PiParams { sample_hz: 0.0, ..params() }), "sample_hz = 0: must be in (0, 1e9] Hz");
    assert!(e(PiParams { limit_pkts: None, ..params() }).starts_with("limit_pkts = null"));
}

#[test]
fn test_pi_json_contract() {
    let json = r#"{"kind":"pi","limit_pkts":100,"q_ref":200,"a":1.822e-5,"b":1.816e-5,"sample_hz":160,"ecn":false}"#;
    let QueueConfig::Pi(p) = serde_json::from_str::<QueueConfig>(json).unwrap() else { panic!() };
    assert_eq!((p.limit_pkts, p.limit_bytes, p.q_ref, p.sample_hz, p.ecn), (Some(100), None, 200.0, 160.0, false));
    let bad = json.replace("\"ecn\":false", "\"ecn\":false,\"wq\":0.1");
    assert!(serde_json::from_str::<QueueConfig>(&bad).is_err());
}
