//! The router's input: a JSON document written by `ecnlab emulate`
//! (python/ecnlab/emu), checked here before any device is opened.
//!
//! Links carry the simulator's own queue configuration (`ecnlab_aqm::QueueConfig`,
//! the same JSON as `SimSpec.links[i].queue`) and the index the link has in the
//! engine spec, so each queue draws from the same RNG stream as in `ecnlab run`.

use std::net::Ipv4Addr;
use std::path::PathBuf;

use ecnlab_aqm::QueueConfig;
use ecnlab_sim::impair::ImpairAction;
use ecnlab_sim::impair_link::Impairment;
use ecnlab_wire::Instant;
use serde::Deserialize;
use thiserror::Error;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouterConfig {
    /// Run seed: queue i draws from `stream(seed, Queue, index)`, loss from `stream(seed, LinkLoss, index)`.
    pub seed: u64,
    pub ends: Vec<EndConfig>,
    pub links: Vec<LinkConfig>,
    pub routes: Vec<RouteConfig>,
}

/// One endpoint: a host of the scenario living in its own network namespace.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndConfig {
    /// Host name in the scenario (`s1`).
    pub name: String,
    /// Network namespace holding the TUN device (`ip netns` name); `None`: the current one.
    #[serde(default)]
    pub netns: Option<String>,
    /// TUN device name inside the namespace.
    pub dev: String,
    /// The host's address: packets to it are routed to this end.
    pub addr: Ipv4Addr,
}

/// One unidirectional link of the scenario, as the simulator builds it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    pub name: String,
    /// Index of the link in the engine spec (RNG stream derivation).
    pub index: u32,
    pub rate_bps: u64,
    pub delay_ns: u64,
    #[serde(default)]
    pub loss: f64,
    pub queue: QueueConfig,
    /// Capture packets as their transmission starts (as the simulator's taps).
    #[serde(default)]
    pub pcap: Option<PathBuf>,
    /// Path impairments of packets entering the link (`ecnlab_sim::impair_link`), in order.
    #[serde(default)]
    pub impairments: Vec<ImpairConfig>,
}

/// One path impairment: the simulator's `ImpairSpec` without link and flows (the
/// router sees no flows); times count from the start of the traffic (`Net::set_window`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImpairConfig {
    pub action: ImpairAction,
    #[serde(default = "all_packets")]
    pub fraction: f64,
    #[serde(default)]
    pub from_ns: u64,
    #[serde(default)]
    pub until_ns: Option<u64>,
}

fn all_packets() -> f64 {
    1.0
}

impl ImpairConfig {
    /// The impairment as a link applies it.
    pub fn rule(&self) -> Impairment {
        Impairment {
            action: self.action,
            fraction: self.fraction,
            from: Instant::from_nanos(self.from_ns),
            until: self.until_ns.map(Instant::from_nanos),
            flows: None,
        }
    }
}

/// The links a packet from end `from` to end `to` crosses, in order.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteConfig {
    pub from: usize,
    pub to: usize,
    pub links: Vec<usize>,
}

/// A configuration the router refuses, naming the field, the value and what is allowed.
#[derive(Debug, Error)]
#[error("{field} = {value}: {allowed}")]
pub struct ConfigError {
    pub field: String,
    pub value: String,
    pub allowed: String,
}

fn err(field: impl Into<String>, value: impl ToString, allowed: &str) -> ConfigError {
    ConfigError { field: field.into(), value: value.to_string(), allowed: allowed.into() }
}

impl RouterConfig {
    /// Checks every reference and range (the queues are checked by `AqmQueue::new`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.ends.len() < 2 {
            return Err(err("ends", self.ends.len(), "need at least 2 endpoints"));
        }
        for (i, l) in self.links.iter().enumerate() {
            if l.rate_bps == 0 {
                return Err(err(format!("links[{i}].rate_bps"), 0, "must be > 0"));
            }
            if !(0.0..1.0).contains(&l.loss) {
                return Err(err(format!("links[{i}].loss"), l.loss, "must be in [0, 1)"));
            }
            for (k, m) in l.impairments.iter().enumerate() {
                let field = format!("links[{i}].impairments[{k}]");
                if !(m.fraction > 0.0 && m.fraction <= 1.0) {
                    return Err(err(format!("{field}.fraction"), m.fraction, "must be in (0, 1]"));
                }
                if let Some(u) = m.until_ns.filter(|&u| u <= m.from_ns) {
                    return Err(err(format!("{field}.until_ns"), u, "must be after from_ns"));
                }
            }
        }
        for (i, r) in self.routes.iter().enumerate() {
            let n = self.ends.len();
            if r.from >= n || r.to >= n || r.from == r.to {
                return Err(err(format!("routes[{i}]"), format!("{} -> {}", r.from, r.to), "two different ends"));
            }
            if r.links.is_empty() || r.links.iter().any(|&l| l >= self.links.len()) {
                return Err(err(
                    format!("routes[{i}].links"),
                    format!("{:?}", r.links),
                    "non-empty, valid link indices",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The link entry as `ecnlab emulate` writes it (python/ecnlab/emu/run.py `_router_config`).
    #[test]
    fn test_link_impairments_read_as_the_front_writes_them() {
        let link: LinkConfig = serde_json::from_value(serde_json::json!({
            "name": "R1->R2", "index": 4, "rate_bps": 10_000_000u64, "delay_ns": 10_000_000u64, "loss": 0.0,
            "queue": {"kind": "droptail", "limit_pkts": 100},
            "impairments": [
                {"action": "ce_all", "fraction": 0.5, "from_ns": 100_000_000u64, "until_ns": 200_000_000u64},
                {"action": "clear_ece", "fraction": 1.0, "from_ns": 0},
            ],
        }))
        .unwrap();
        let rules: Vec<Impairment> = link.impairments.iter().map(ImpairConfig::rule).collect();
        assert_eq!(rules[0].action, ImpairAction::CeAll);
        assert_eq!(
            (rules[0].from, rules[0].until),
            (Instant::from_nanos(100_000_000), Some(Instant::from_nanos(200_000_000)))
        );
        assert_eq!(
            (rules[1].action, rules[1].fraction, rules[1].until, rules[1].flows.clone()),
            (ImpairAction::ClearEce, 1.0, None, None)
        );
    }
}
