//! Configuration errors and the validation of [`QueueConfig`].
//!
//! Source: the lesson of Linux `red_check_params` ("net_sched: red: Avoid
//! illegal values"): every parameter is checked before the queue is built, and
//! a bad value names the field (its `QueueConfig` JSON key), the value and the
//! allowed range, before the run starts.
//!
//! | field            | allowed                                        |
//! |------------------|------------------------------------------------|
//! | `limit_pkts`     | > 0; exactly one of `limit_pkts`/`limit_bytes` |
//! | `limit_bytes`    | > 0; exactly one of `limit_pkts`/`limit_bytes` |
//! | `min_th`         | finite, ≥ 0 (packets, or mean packets in byte mode) |
//! | `max_th`         | finite, > `min_th`                             |
//! | `max_p`          | (0, 1]                                         |
//! | `wq`             | (0, 1]                                         |
//! | `mean_pkt_bytes` | ≥ 1                                            |
//! | `link_rate_bps`  | ≥ 1                                            |
//! | `mark_p`         | personality `ns2` only; finite, > 0            |
//! | `adaptive`       | personality `linux` only                       |
//! | `quench`         | kind `red` only, not with `ecn`                |
//! | `q_ref`, `a`, `b` | PI: finite, ≥ 0                                |
//! | `sample_hz`      | PI: (0, 1e9]                                   |
//! | `personality`    | `linux`: no `gentle`, `wq` = 2^-k (1 ≤ k ≤ 31, tc's Wlog); `ns2`: not with `red_star` |
//!
//! Checks across fields, where one value makes another meaningless (a queue
//! never holds more than its limit, so a threshold beyond it never acts):
//!
//! | field             | allowed                                                       |
//! |-------------------|---------------------------------------------------------------|
//! | `max_th`          | RED, with `min_th` below the limit, personality not `ns2`: ≤ `limit_pkts` (mode packet), ≤ `limit_bytes` / `mean_pkt_bytes` (mode byte) |
//! | `q_ref`           | PI: < `limit_pkts` (the reference must be reachable)          |
//! | `threshold`       | step on packets: < `limit_pkts`; on bytes: < `limit_bytes` (`step.rs`) |
//! | `max_th`          | ARED, when given: ≤ `limit_pkts` (`ared.rs`)                  |
//! | `step_thresh_pkts`| DualPI2: < `limit_pkts` (`dualpi2.rs`)                        |

use crate::config::{DropTailParams, PiParams, QueueConfig, RedMode, RedParams, RedPersonality};
use crate::red::linux::wlog_of;

/// A parameter outside its allowed range. Displays as `"{field} = {value}: {allowed}"`,
/// e.g. `max_p = 1.5: must be in (0, 1]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field} = {value}: {allowed}")]
pub struct ConfigError {
    /// The JSON key of the offending parameter.
    pub field: &'static str,
    /// The offending value as written by `Display` (`null` when absent).
    pub value: String,
    /// The rule the value breaks.
    pub allowed: String,
}

impl ConfigError {
    pub(crate) fn new(field: &'static str, value: impl ToString, allowed: impl Into<String>) -> Self {
        ConfigError { field, value: value.to_string(), allowed: allowed.into() }
    }
}

const ONE_LIMIT: &str = "exactly one of limit_pkts and limit_bytes must be set";

impl QueueConfig {
    /// Checks every parameter; the queue constructors call this first.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self {
            QueueConfig::DropTail(p) => p.validate(),
            QueueConfig::Red(p) => p.validate(),
            QueueConfig::RedStar(p) if p.personality == RedPersonality::Ns2 => Err(ConfigError::new(
                "personality",
                "ns2",
                "ns-2 RED has no forced-region marking: use kind red (set mark_p > 1 to mark in every region)",
            )),
            QueueConfig::RedStar(p) if p.quench => Err(ConfigError::new(
                "quench",
                true,
                "only applies to kind red (RED* signals in the forced region, where the paper's RED drops)",
            )),
            QueueConfig::RedStar(p) => p.validate(),
            QueueConfig::Pi(p) => p.validate(),
            QueueConfig::Ared(p) => p.validate(),
            QueueConfig::Pie(p) => p.validate(),
            QueueConfig::Step(p) => p.validate(),
            QueueConfig::Codel(p) => p.validate(),
            QueueConfig::FqCodel(p) => p.validate(),
            QueueConfig::DualPi2(p) => p.validate(),
        }
    }
}

impl DropTailParams {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_limits(self.limit_pkts, self.limit_bytes)
    }
}

impl RedParams {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_limits(self.limit_pkts, self.limit_bytes)?;
        if !(self.min_th.is_finite() && self.min_th >= 0.0) {
            return Err(ConfigError::new("min_th", self.min_th, "must be finite and >= 0"));
        }
        if !(self.max_th.is_finite() && self.max_th > self.min_th) {
            let rule = format!("must be finite and > min_th ({})", self.min_th);
            return Err(ConfigError::new("max_th", self.max_th, rule));
        }
        check_unit_interval("max_p", self.max_p)?;
        check_unit_interval("wq", self.wq)?;
        if self.mean_pkt_bytes < 1 {
            return Err(ConfigError::new("mean_pkt_bytes", self.mean_pkt_bytes, "must be >= 1"));
        }
        if self.link_rate_bps < 1 {
            return Err(ConfigError::new("link_rate_bps", self.link_rate_bps, "must be >= 1"));
        }
        self.validate_max_th_in_limit()?;
        if self.quench && self.ecn {
            let rule = "cannot be combined with ecn = true (a quench gateway forwards the selected packet unmarked)";
            return Err(ConfigError::new("quench", true, rule));
        }
        self.validate_personality()
    }

    /// The average never exceeds the queue's limit, so a `max_th` above it leaves the region
    /// between them unreachable (Floyd & Jacobson 1993 §4 assume the buffer holds `max_th`;
    /// tc-red(8): "limit ... should be larger than max"). Checked where the units agree.
    fn validate_max_th_in_limit(&self) -> Result<(), ConfigError> {
        let limit = match (self.mode, self.limit_pkts, self.limit_bytes) {
            (RedMode::Packet, Some(pkts), None) => (f64::from(pkts), format!("limit_pkts ({pkts})")),
            (RedMode::Byte, None, Some(bytes)) => {
                let mean = self.mean_pkt_bytes;
                let pkts = bytes as f64 / f64::from(mean);
                (pkts, format!("limit_bytes / mean_pkt_bytes ({bytes} / {mean} = {pkts:.1})"))
            }
            _ => return Ok(()),
        };
        // min_th at or above the limit turns RED off (ns-2's test suites set both thresholds
        // beyond the limit for a drop-tail queue); only a region cut short by the limit is refused,
        // and not for personality ns2: ns-2's automatic thresholds (red.cc, thresh_ = 0) set
        // max_th = 3·min_th whatever the buffer, and its test suites run such queues.
        if self.max_th > limit.0 && self.min_th < limit.0 && self.personality != RedPersonality::Ns2 {
            let rule = format!(
                "must be <= {}: the average queue never exceeds the limit (min_th at or above it turns RED off)",
                limit.1
            );
            return Err(ConfigError::new("max_th", self.max_th, rule));
        }
        Ok(())
    }

    /// The options that only some personalities have (docs/performance.md).
    fn validate_personality(&self) -> Result<(), ConfigError> {
        let who = self.personality;
        if let Some(m) = self.mark_p {
            if who != RedPersonality::Ns2 {
                return Err(ConfigError::new("mark_p", m, "only applies to personality ns2"));
            }
            if !(m.is_finite() && m > 0.0) {
                return Err(ConfigError::new("mark_p", m, "must be finite and > 0"));
            }
        }
        if let Some(n) = self.ns2_rng_skip {
            if who != RedPersonality::Ns2 {
                return Err(ConfigError::new("ns2_rng_skip", n, "only applies to personality ns2"));
            }
        }
        if self.adaptive && who != RedPersonality::Linux {
            return Err(ConfigError::new("adaptive", true, "only applies to personality linux"));
        }
        if who == RedPersonality::Linux {
            if self.gentle {
                return Err(ConfigError::new("gentle", true, "personality linux has no gentle region (tc red)"));
            }
            if wlog_of(self.wq).is_none() {
                let rule = "must be 2^-k with 1 <= k <= 31 for personality linux (tc red's Wlog), e.g. 0.001953125";
                return Err(ConfigError::new("wq", self.wq, rule));
            }
        }
        Ok(())
    }
}

impl PiParams {
    /// PI (`pi.rs`): `q_ref`, `a`, `b` finite and >= 0; `sample_hz` in (0, 1e9].
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_limits(self.limit_pkts, self.limit_bytes)?;
        for (field, v) in [("q_ref", self.q_ref), ("a", self.a), ("b", self.b)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ConfigError::new(field, v, "must be finite and >= 0"));
            }
        }
        if !(self.sample_hz > 0.0 && self.sample_hz <= 1e9) {
            return Err(ConfigError::new("sample_hz", self.sample_hz, "must be in (0, 1e9] Hz"));
        }
        if let Some(pkts) = self.limit_pkts {
            if self.q_ref >= f64::from(pkts) {
                let rule = format!("must be < limit_pkts ({pkts}): the queue never holds more than its limit");
                return Err(ConfigError::new("q_ref", self.q_ref, rule));
            }
        }
        Ok(())
    }
}

/// Probabilities and weights: the half-open interval (0, 1]. NaN fails.
pub(crate) fn check_unit_interval(field: &'static str, v: f64) -> Result<(), ConfigError> {
    if v > 0.0 && v <= 1.0 {
        Ok(())
    } else {
        Err(ConfigError::new(field, v, "must be in (0, 1]"))
    }
}

pub(crate) fn check_limits(pkts: Option<u32>, bytes: Option<u64>) -> Result<(), ConfigError> {
    match (pkts, bytes) {
        (None, None) => Err(ConfigError::new("limit_pkts", "null", ONE_LIMIT)),
        (Some(_), Some(b)) => Err(ConfigError::new("limit_bytes", b, ONE_LIMIT)),
        (Some(0), None) => Err(ConfigError::new("limit_pkts", 0, "must be > 0")),
        (None, Some(0)) => Err(ConfigError::new("limit_bytes", 0, "must be > 0")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RedMode;

    fn red() -> RedParams {
        RedParams {
            limit_pkts: Some(60),
            limit_bytes: None,
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            wq: 0.002,
            gentle: false,
            wait: true,
            mode: RedMode::Packet,
            mean_pkt_bytes: 1000,
            link_rate_bps: 1_500_000,
            ecn: true,
            personality: Default::default(),
            mark_p: None,
            adaptive: false,
            ns2_rng_skip: None,
            quench: false,
        }
    }

    fn msg(p: RedParams) -> String {
        QueueConfig::Red(p).validate().unwrap_err().to_string()
    }

    #[test]
    fn test_valid_configs_pass() {
        assert_eq!(QueueConfig::Red(red()).validate(), Ok(()));
        assert_eq!(QueueConfig::RedStar(red()).validate(), Ok(()));
        let min_zero_p_one = RedParams { min_th: 0.0, max_p: 1.0, wq: 1.0, ..red() };
        assert_eq!(min_zero_p_one.validate(), Ok(()));
        let dt = DropTailParams { limit_pkts: None, limit_bytes: Some(1) };
        assert_eq!(QueueConfig::DropTail(dt).validate(), Ok(()));
    }

    #[test]
    fn test_limits_rejected_with_field_value_range() {
        let both = RedParams { limit_bytes: Some(9000), ..red() };
        assert_eq!(msg(both), format!("limit_bytes = 9000: {ONE_LIMIT}"));
        let none = RedParams { limit_pkts: None, ..red() };
        assert_eq!(msg(none), format!("limit_pkts = null: {ONE_LIMIT}"));
        assert_eq!(msg(RedParams { limit_pkts: Some(0), ..red() }), "limit_pkts = 0: must be > 0");
        let dt = DropTailParams { limit_pkts: None, limit_bytes: Some(0) };
        let e = QueueConfig::DropTail(dt).validate().unwrap_err();
        assert_eq!((e.field, e.value.as_str()), ("limit_bytes", "0"));
        assert_eq!(e.to_string(), "limit_bytes = 0: must be > 0");
    }

    #[test]
    fn test_red_fields_rejected_with_field_value_range() {
        let cases = [
            (RedParams { min_th: -1.0, ..red() }, "min_th = -1: must be finite and >= 0"),
            (RedParams { min_th: f64::NAN, ..red() }, "min_th = NaN: must be finite and >= 0"),
            (RedParams { max_th: 5.0, ..red() }, "max_th = 5: must be finite and > min_th (5)"),
            (RedParams { max_th: f64::INFINITY, ..red() }, "max_th = inf: must be finite and > min_th (5)"),
            (RedParams { max_p: 1.5, ..red() }, "max_p = 1.5: must be in (0, 1]"),
            (RedParams { max_p: 0.0, ..red() }, "max_p = 0: must be in (0, 1]"),
            (RedParams { wq: 0.0, ..red() }, "wq = 0: must be in (0, 1]"),
            (RedParams { wq: f64::NAN, ..red() }, "wq = NaN: must be in (0, 1]"),
            (RedParams { mean_pkt_bytes: 0, ..red() }, "mean_pkt_bytes = 0: must be >= 1"),
            (RedParams { link_rate_bps: 0, ..red() }, "link_rate_bps = 0: must be >= 1"),
        ];
        for (p, want) in cases {
            assert_eq!(msg(p), want);
            assert_eq!(QueueConfig::RedStar(p).validate().unwrap_err().to_string(), want);
        }
    }

    #[test]
    fn test_red_max_th_above_limit_rejected() {
        assert_eq!(
            msg(RedParams { max_th: 61.0, ..red() }),
            "max_th = 61: must be <= limit_pkts (60): the average queue never exceeds the limit \
             (min_th at or above it turns RED off)"
        );
        // both thresholds beyond the limit: RED off, a drop-tail queue (ns-2's noecn tests)
        assert_eq!(RedParams { min_th: 1000.0, max_th: 1001.0, ..red() }.validate(), Ok(()));
        // ns-2's automatic thresholds beyond a small buffer (test-suite-ecn.tcl's smallwin tests)
        let ns2 =
            RedParams { personality: RedPersonality::Ns2, min_th: 62.5, max_th: 187.5, limit_pkts: Some(100), ..red() };
        assert_eq!(ns2.validate(), Ok(()));
        assert_eq!(RedParams { max_th: 60.0, ..red() }.validate(), Ok(()));
        let bytes = RedParams { mode: RedMode::Byte, limit_pkts: None, limit_bytes: Some(10_000), ..red() };
        assert_eq!(
            msg(bytes),
            "max_th = 15: must be <= limit_bytes / mean_pkt_bytes (10000 / 1000 = 10.0): \
             the average queue never exceeds the limit (min_th at or above it turns RED off)"
        );
        // packet thresholds against a byte limit: the units differ (small packets), not checked
        let mixed = RedParams { limit_pkts: None, limit_bytes: Some(10_000), ..red() };
        assert_eq!(mixed.validate(), Ok(()));
    }

    #[test]
    fn test_pi_q_ref_at_or_above_limit_rejected() {
        let pi = PiParams {
            limit_pkts: Some(50),
            limit_bytes: None,
            q_ref: 50.0,
            a: 1.822e-5,
            b: 1.816e-5,
            sample_hz: 160.0,
            ecn: true,
        };
        let e = QueueConfig::Pi(pi).validate().unwrap_err().to_string();
        assert_eq!(e, "q_ref = 50: must be < limit_pkts (50): the queue never holds more than its limit");
        assert_eq!(PiParams { q_ref: 49.0, ..pi }.validate(), Ok(()));
    }

    #[test]
    fn test_error_fields_are_public_and_match_display() {
        let e = RedParams { max_p: 1.5, ..red() }.validate().unwrap_err();
        assert_eq!(e.field, "max_p");
        assert_eq!(e.value, "1.5");
        assert_eq!(e.allowed, "must be in (0, 1]");
        assert_eq!(e.to_string(), "max_p = 1.5: must be in (0, 1]");
    }
}

#[cfg(test)]
mod personality_tests {
    use super::*;
    use crate::config::RedMode;

    fn red(personality: RedPersonality) -> RedParams {
        RedParams {
            limit_pkts: Some(60),
            limit_bytes: None,
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            wq: 0.001953125,
            gentle: false,
            wait: false,
            mode: RedMode::Packet,
            mean_pkt_bytes: 1000,
            link_rate_bps: 1_500_000,
            ecn: true,
            personality,
            mark_p: None,
            adaptive: false,
            ns2_rng_skip: None,
            quench: false,
        }
    }

    #[test]
    fn test_personality_options_checked() {
        use RedPersonality::*;
        for who in [Floyd93, Ns2, Ns3, Linux] {
            assert_eq!(red(who).validate(), Ok(()), "{who:?}");
        }
        let e = |p: RedParams| p.validate().unwrap_err().to_string();
        assert_eq!(e(RedParams { mark_p: Some(0.2), ..red(Ns3) }), "mark_p = 0.2: only applies to personality ns2");
        assert_eq!(e(RedParams { mark_p: Some(0.0), ..red(Ns2) }), "mark_p = 0: must be finite and > 0");
        assert_eq!(e(RedParams { adaptive: true, ..red(Ns2) }), "adaptive = true: only applies to personality linux");
        assert!(e(RedParams { gentle: true, ..red(Linux) }).starts_with("gentle = true: personality linux has no"));
        assert!(e(RedParams { wq: 0.002, ..red(Linux) }).starts_with("wq = 0.002: must be 2^-k"));
        assert!(e(RedParams { wq: 1.0, ..red(Linux) }).starts_with("wq = 1: must be 2^-k"));
        let star = QueueConfig::RedStar(red(Ns2)).validate().unwrap_err();
        assert_eq!(star.field, "personality");
        assert_eq!(QueueConfig::RedStar(red(Ns3)).validate(), Ok(()));
    }

    #[test]
    fn test_personality_json_defaults_to_floyd93() {
        let json = r#"{"kind":"red","limit_pkts":60,"limit_bytes":null,"min_th":5,"max_th":15,"max_p":0.1,
            "wq":0.002,"gentle":true,"wait":true,"mode":"packet","mean_pkt_bytes":1000,"link_rate_bps":1500000,"ecn":true}"#;
        let QueueConfig::Red(p) = serde_json::from_str::<QueueConfig>(json).unwrap() else { panic!() };
        assert_eq!((p.personality, p.mark_p, p.adaptive), (RedPersonality::Floyd93, None, false));
        let with = json.replace("\"ecn\":true", "\"ecn\":true,\"personality\":\"ns2\",\"mark_p\":2.0");
        let QueueConfig::Red(p) = serde_json::from_str::<QueueConfig>(&with).unwrap() else { panic!() };
        assert_eq!((p.personality, p.mark_p), (RedPersonality::Ns2, Some(2.0)));
        let bad = json.replace("\"ecn\":true", "\"ecn\":true,\"personality\":\"cisco\"");
        assert!(serde_json::from_str::<QueueConfig>(&bad).unwrap_err().to_string().contains("unknown variant `cisco`"));
    }
}
