//! Web model tests: size distributions, session structure, summary statistics.

use super::*;
use crate::rng::{stream, Stream};

fn params(size: ObjectSize) -> WebParams {
    WebParams {
        request_bytes: 300,
        size,
        mean_session_gap_ns: 1_000_000_000,
        pages_per_session: 3.0,
        objects_per_page: 2.0,
        mean_think_ns: 500_000_000,
    }
}

#[test]
fn test_bounded_pareto_stays_in_bounds_and_has_its_mean() {
    let (alpha, l, h) = (1.2, 1000u64, 1_000_000u64);
    let d = ObjectSize::BoundedPareto { alpha, min_bytes: l, max_bytes: h };
    let mut rng = stream(7, Stream::App, 0);
    let n = 200_000;
    let xs: Vec<u64> = (0..n).map(|_| d.draw(&mut rng)).collect();
    assert!(xs.iter().all(|&x| (l..=h).contains(&x)));
    // Mean of the bounded Pareto, computed independently from its density.
    let (lf, hf) = (l as f64, h as f64);
    let mean = lf.powf(alpha) / (1.0 - (lf / hf).powf(alpha)) * alpha / (alpha - 1.0)
        * (1.0 / lf.powf(alpha - 1.0) - 1.0 / hf.powf(alpha - 1.0));
    let got = xs.iter().sum::<u64>() as f64 / n as f64;
    assert!((got / mean - 1.0).abs() < 0.05, "{got} vs {mean}");
}

#[test]
fn test_lognormal_pareto_body_and_tail() {
    let d = ObjectSize::LognormalPareto {
        mu: 9.357,
        sigma: 1.318,
        cut_bytes: 133_000,
        tail_p: 0.07,
        alpha: 1.1,
        max_bytes: 100_000_000,
    };
    let mut rng = stream(7, Stream::App, 1);
    let n = 100_000;
    let xs: Vec<u64> = (0..n).map(|_| d.draw(&mut rng)).collect();
    let tail = xs.iter().filter(|&&x| x >= 133_000).count() as f64 / n as f64;
    assert!((tail - 0.07).abs() < 0.005, "tail share {tail}");
    let mut body: Vec<u64> = xs.iter().copied().filter(|&x| x < 133_000).collect();
    body.sort_unstable();
    // Median of the truncated lognormal is below e^mu (≈ 11.6 KB) but near it.
    let med = body[body.len() / 2] as f64;
    assert!(med > 9_000.0 && med < 11_600.0, "median {med}");
}

#[test]
fn test_sessions_pages_objects_follow_the_schedule() {
    // Means of 1 make the geometric counts exact: 2 pages of 1 object... via pages = 1 + think.
    let d = ObjectSize::BoundedPareto { alpha: 1.2, min_bytes: 1000, max_bytes: 2000 };
    let p =
        WebParams { pages_per_session: 1.0, objects_per_page: 1.0, mean_session_gap_ns: 10_000_000_000, ..params(d) };
    let mut w = Web::new(p, Instant(5));
    let mut rng = stream(1, Stream::App, 2);
    let next = w.on_connection_start(&mut rng, Instant(5)).expect("a session start schedules the one after it");
    assert!(next > Instant(5));
    assert_eq!((w.sessions.len(), w.objects.len()), (1, 1));
    assert!((1000..=2000).contains(&w.object_bytes(0)));
    // One page of one object: the session ends with its object.
    assert_eq!(w.on_object_done(&mut rng, 0, Instant(100)), None);
    assert_eq!(w.on_object_done(&mut rng, 0, Instant(200)), None, "an object completes once");
    assert_eq!(w.response_times().collect::<Vec<_>>(), vec![Duration(95)]);
    // The next start is the following session's.
    assert_eq!(w.on_connection_start(&mut rng, next).map(|t| t > next), Some(true));
    assert_eq!(w.sessions.len(), 2);

    // Many pages and objects: every continuation is scheduled at or after the
    // completion (same time within a page, after a think time between pages),
    // and a session has as many objects as its pages' counts say.
    let p = WebParams { pages_per_session: 4.0, objects_per_page: 3.0, mean_session_gap_ns: u64::MAX / 4, ..params(d) };
    let mut w = Web::new(p, Instant(0));
    w.on_connection_start(&mut rng, Instant(0));
    let (mut now, mut conn, mut same_time, mut later) = (Instant(0), 0u32, 0, 0);
    while let Some(at) = w.on_object_done(&mut rng, conn, now + Duration(1000)) {
        now += Duration(1000);
        if at == now {
            same_time += 1
        } else {
            later += 1
        }
        let (&(t, _), &what) = w.pending.iter().next().unwrap();
        assert_eq!((t, what), (at, Pending::NextObject(0)));
        assert_eq!(w.on_connection_start(&mut rng, at), None);
        conn += 1;
        now = at;
    }
    assert_eq!(w.sessions.len(), 1);
    assert!(same_time > 0 && later > 0, "{same_time} {later}");
}

#[test]
fn test_summary_percentiles_and_histogram() {
    let d = ObjectSize::BoundedPareto { alpha: 1.2, min_bytes: 1000, max_bytes: 2000 };
    let mut w = Web::new(params(d), Instant(0));
    for (i, ms) in [30u64, 10, 50, 5000, 20].iter().enumerate() {
        w.objects.push(Object {
            session: 0,
            start: Instant(0),
            bytes: 100 + i as u64,
            done: Some(Instant(ms * 1_000_000)),
        });
    }
    w.objects.push(Object { session: 0, start: Instant(0), bytes: 7, done: None });
    let s = w.summary();
    assert_eq!((s.objects_started, s.objects_completed, s.bytes_requested), (6, 5, 100 + 101 + 102 + 103 + 104 + 7));
    assert!((s.response_mean_s.unwrap() - 1.022).abs() < 1e-12);
    // Nearest rank over [0.01, 0.02, 0.03, 0.05, 5.0].
    assert_eq!(s.response_pct_s, vec![0.01, 0.02, 0.03, 0.05, 5.0, 5.0, 5.0]);
    assert_eq!(s.response_hist[0], 1); // 10 ms
    assert_eq!(s.response_hist[1], 2); // 20, 30 ms
    assert_eq!(s.response_hist[2], 1); // 50 ms
    assert_eq!(s.response_hist[HIST_BINS], 1); // 5 s
    assert_eq!(s.response_hist.iter().sum::<u64>(), 5);
}

#[test]
fn test_check_names_the_field() {
    let d = ObjectSize::BoundedPareto { alpha: 1.2, min_bytes: 1000, max_bytes: 2000 };
    assert!(check(&params(d)).is_ok());
    let bad = WebParams { pages_per_session: 0.5, ..params(d) };
    assert_eq!(check(&bad).unwrap_err().0, "pages_per_session");
    let bad = ObjectSize::BoundedPareto { alpha: 1.2, min_bytes: 1000, max_bytes: 1000 };
    assert_eq!(check(&params(bad)).unwrap_err().0, "size.max_bytes");
}
