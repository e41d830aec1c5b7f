//! Web traffic (HTTP/1.0): sessions of pages of objects, one connection per object.
//!
//! Model (SURGE, Barford & Crovella, SIGMETRICS 1998, §3–4, simplified; the
//! same structure as the ns-2 web-traffic generator Kuzmanovic 2005 §5 uses):
//! sessions arrive as a Poisson process (mean gap `mean_session_gap_ns`); a
//! session has a geometric number of pages (mean `pages_per_session`), a page a
//! geometric number of objects (mean `objects_per_page`); the objects of a
//! page are fetched one after another, each on a new connection (HTTP/1.0, no
//! parallel connections): the client connects, sends `request_bytes`, the
//! server answers with the object and closes. Between pages the client thinks
//! for an exponential time (mean `mean_think_ns`). Sessions overlap freely.
//! Object sizes: [`ObjectSize`]. All draws come from the flow's own stream.
//!
//! Response time of an object = from the client's SYN (the connection start)
//! to the last byte of the object at the client.

use std::collections::BTreeMap;

use crate::rng::SimRng;
use ecnlab_wire::{Duration, Instant};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Response-size distribution of one object.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum ObjectSize {
    /// Bounded Pareto on [min_bytes, max_bytes] with shape `alpha`
    /// (inverse CDF; Harchol-Balter's bounded Pareto).
    BoundedPareto { alpha: f64, min_bytes: u64, max_bytes: u64 },
    /// SURGE (Barford & Crovella 1998, Table 1): lognormal body (`mu`, `sigma`
    /// of ln bytes) below `cut_bytes`; with probability `tail_p` a Pareto tail
    /// (scale `cut_bytes`, shape `alpha`), capped at `max_bytes`.
    LognormalPareto { mu: f64, sigma: f64, cut_bytes: u64, tail_p: f64, alpha: f64, max_bytes: u64 },
}

impl ObjectSize {
    /// One size in bytes (≥ 1).
    pub fn draw(&self, rng: &mut SimRng) -> u64 {
        match *self {
            ObjectSize::BoundedPareto { alpha, min_bytes, max_bytes } => {
                let (l, h) = (min_bytes as f64, max_bytes as f64);
                let u: f64 = rng.random();
                let x = l / (1.0 - u * (1.0 - (l / h).powf(alpha))).powf(1.0 / alpha);
                (x.round() as u64).clamp(min_bytes.max(1), max_bytes)
            }
            ObjectSize::LognormalPareto { mu, sigma, cut_bytes, tail_p, alpha, max_bytes } => {
                let u: f64 = rng.random();
                if u < tail_p {
                    let v: f64 = rng.random();
                    let x = cut_bytes as f64 / (1.0 - v).powf(1.0 / alpha);
                    (x.round() as u64).clamp(cut_bytes, max_bytes)
                } else {
                    lognormal_below(rng, mu, sigma, cut_bytes)
                }
            }
        }
    }
}

/// A lognormal draw below `cut` by rejection (Box–Muller normal).
fn lognormal_below(rng: &mut SimRng, mu: f64, sigma: f64, cut: u64) -> u64 {
    loop {
        let (u1, u2): (f64, f64) = (rng.random(), rng.random());
        let z = (-2.0 * (1.0 - u1).ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let x = (mu + sigma * z).exp().round().max(1.0) as u64;
        if x < cut {
            return x;
        }
    }
}

/// Parameters of a `web` flow (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebParams {
    pub request_bytes: u64,
    pub size: ObjectSize,
    pub mean_session_gap_ns: u64,
    pub pages_per_session: f64,
    pub objects_per_page: f64,
    pub mean_think_ns: u64,
}

/// What the next scheduled connection start of a web flow is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    NewSession,
    NextObject(u32),
}

#[derive(Clone, Copy, Debug)]
struct Session {
    pages_left: u32,
    objects_left: u32,
}

/// One object (= one connection, indexed by connection number).
#[derive(Clone, Copy, Debug)]
pub struct Object {
    session: u32,
    pub start: Instant,
    pub bytes: u64,
    pub done: Option<Instant>,
}

/// The state of one web flow.
#[derive(Clone, Debug)]
pub struct Web {
    p: WebParams,
    sessions: Vec<Session>,
    /// Scheduled connection starts, earliest first (ties in scheduling order).
    pending: BTreeMap<(Instant, u64), Pending>,
    seq: u64,
    pub objects: Vec<Object>,
}

/// Geometric count ≥ 1 with the given mean (inverse CDF).
fn geometric(rng: &mut SimRng, mean: f64) -> u32 {
    if mean <= 1.0 {
        return 1;
    }
    let q = 1.0 - 1.0 / mean; // P(count > k) = q^k
    let u: f64 = rng.random();
    (1.0 + ((1.0 - u).ln() / q.ln()).floor()).min(1e6) as u32
}

/// Exponential duration with mean `mean_ns` (at least 1 ns).
fn exponential(rng: &mut SimRng, mean_ns: u64) -> Duration {
    let u: f64 = rng.random();
    Duration((-(1.0 - u).ln() * mean_ns as f64).round().max(1.0) as u64)
}

impl Web {
    /// A flow's sessions begin with one at the flow's start.
    pub fn new(p: WebParams, start: Instant) -> Self {
        let mut pending = BTreeMap::new();
        pending.insert((start, 0), Pending::NewSession);
        Web { p, sessions: Vec::new(), pending, seq: 1, objects: Vec::new() }
    }

    pub fn request_bytes(&self) -> u64 {
        self.p.request_bytes
    }

    fn schedule(&mut self, at: Instant, what: Pending) {
        self.pending.insert((at, self.seq), what);
        self.seq += 1;
    }

    /// A connection of this flow starts at `now` (its number is `objects.len()`):
    /// returns when the following session arrives if this one opens a session.
    pub fn on_connection_start(&mut self, rng: &mut SimRng, now: Instant) -> Option<Instant> {
        let what = self.pending.pop_first().map_or(Pending::NewSession, |(_, w)| w);
        let (session, next) = match what {
            Pending::NewSession => {
                let pages = geometric(rng, self.p.pages_per_session);
                let objects = geometric(rng, self.p.objects_per_page);
                self.sessions.push(Session { pages_left: pages - 1, objects_left: objects });
                let next = now + exponential(rng, self.p.mean_session_gap_ns);
                self.schedule(next, Pending::NewSession);
                (self.sessions.len() as u32 - 1, Some(next))
            }
            Pending::NextObject(s) => (s, None),
        };
        self.sessions[session as usize].objects_left -= 1;
        let bytes = self.p.size.draw(rng);
        self.objects.push(Object { session, start: now, bytes, done: None });
        next
    }

    /// Response bytes of connection `conn_no`.
    pub fn object_bytes(&self, conn_no: u32) -> u64 {
        self.objects.get(conn_no as usize).map_or(0, |o| o.bytes)
    }

    /// Connection `conn_no`'s object fully arrived at `now`: returns when the
    /// session's next connection starts, if it has one.
    pub fn on_object_done(&mut self, rng: &mut SimRng, conn_no: u32, now: Instant) -> Option<Instant> {
        let o = self.objects.get_mut(conn_no as usize)?;
        if o.done.is_some() {
            return None;
        }
        o.done = Some(now);
        let s = o.session;
        let sess = &mut self.sessions[s as usize];
        let at = if sess.objects_left > 0 {
            now
        } else if sess.pages_left > 0 {
            sess.pages_left -= 1;
            sess.objects_left = geometric(rng, self.p.objects_per_page);
            now + exponential(rng, self.p.mean_think_ns)
        } else {
            return None;
        };
        self.schedule(at, Pending::NextObject(s));
        Some(at)
    }

    /// Response times of completed objects, in completion order of connection number.
    pub fn response_times(&self) -> impl Iterator<Item = Duration> + '_ {
        self.objects.iter().filter_map(|o| o.done.map(|d| d - o.start))
    }
}

/// Width of a response-time histogram bin and the number of bins before the overflow bin.
pub const HIST_BIN: Duration = Duration(20_000_000);
pub const HIST_BINS: usize = 200;

/// The per-flow result of a web flow (compact: no per-object list).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WebOut {
    pub sessions: u64,
    pub objects_started: u64,
    pub objects_completed: u64,
    /// Response bytes of all objects started (the offered load is this / run time).
    pub bytes_requested: u64,
    pub response_mean_s: Option<f64>,
    /// Nearest-rank percentiles 10, 25, 50, 75, 90, 95, 99 of the response time.
    pub response_pct_s: Vec<f64>,
    /// Completed objects per `HIST_BIN` (20 ms) of response time; the last bin counts the rest.
    pub response_hist: Vec<u64>,
}

pub const PERCENTILES: [f64; 7] = [10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0];

impl Web {
    pub fn summary(&self) -> WebOut {
        let mut times: Vec<Duration> = self.response_times().collect();
        times.sort_unstable();
        let n = times.len();
        let mut hist = vec![0u64; HIST_BINS + 1];
        for t in &times {
            hist[((t.as_nanos() / HIST_BIN.as_nanos()) as usize).min(HIST_BINS)] += 1;
        }
        let pct = |q: f64| times[((q / 100.0 * n as f64).ceil() as usize).clamp(1, n) - 1].as_secs_f64();
        WebOut {
            sessions: self.sessions.len() as u64,
            objects_started: self.objects.len() as u64,
            objects_completed: n as u64,
            bytes_requested: self.objects.iter().map(|o| o.bytes).sum(),
            response_mean_s: (n > 0).then(|| times.iter().map(|t| t.as_secs_f64()).sum::<f64>() / n as f64),
            response_pct_s: if n > 0 { PERCENTILES.iter().map(|&q| pct(q)).collect() } else { Vec::new() },
            response_hist: hist,
        }
    }
}

/// Validation: `(field, value, rule)` of the first bad parameter.
pub fn check(p: &WebParams) -> Result<(), (&'static str, String, &'static str)> {
    let bad = |f: &'static str, v: &dyn std::fmt::Display, r: &'static str| Err((f, v.to_string(), r));
    if p.request_bytes == 0 {
        return bad("request_bytes", &0, "must be > 0");
    }
    if p.mean_session_gap_ns == 0 {
        return bad("mean_session_gap_ns", &0, "must be > 0");
    }
    if !(p.pages_per_session >= 1.0 && p.pages_per_session.is_finite()) {
        return bad("pages_per_session", &p.pages_per_session, "must be finite and >= 1");
    }
    if !(p.objects_per_page >= 1.0 && p.objects_per_page.is_finite()) {
        return bad("objects_per_page", &p.objects_per_page, "must be finite and >= 1");
    }
    match p.size {
        ObjectSize::BoundedPareto { alpha, min_bytes, max_bytes } => {
            if !(alpha > 0.0 && alpha.is_finite()) {
                return bad("size.alpha", &alpha, "must be finite and > 0");
            }
            if min_bytes == 0 || max_bytes <= min_bytes {
                return bad("size.max_bytes", &max_bytes, "must be > min_bytes > 0");
            }
        }
        ObjectSize::LognormalPareto { mu, sigma, cut_bytes, tail_p, alpha, max_bytes } => {
            if !(mu.is_finite() && sigma.is_finite() && sigma > 0.0) {
                return bad("size.sigma", &sigma, "mu finite and sigma finite and > 0");
            }
            if !(alpha > 0.0 && alpha.is_finite()) {
                return bad("size.alpha", &alpha, "must be finite and > 0");
            }
            if !(0.0..1.0).contains(&tail_p) {
                return bad("size.tail_p", &tail_p, "must be in [0, 1)");
            }
            if cut_bytes < 2 || max_bytes < cut_bytes {
                return bad("size.max_bytes", &max_bytes, "must be >= cut_bytes >= 2");
            }
            // The body is drawn below cut_bytes by rejection: it must not be vanishingly rare.
            if mu - (cut_bytes as f64).ln() > 3.0 * sigma {
                return bad("size.mu", &mu, "puts the lognormal body almost entirely above cut_bytes");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "web_tests.rs"]
mod tests;
