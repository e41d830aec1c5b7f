//! FQ-CoDel: flow queueing with deficit round robin and CoDel per flow.
//!
//! Sources: RFC 8290 (T. Hoeiland-Joergensen et al., "The Flow Queue CoDel
//! Packet Scheduler and Active Queue Management Algorithm", 2018) §4
//! (enqueue, new/old flow lists, DRR dequeue), §5.1 (parameters); Linux
//! `net/sched/sch_fq_codel.c` (`fq_codel_enqueue`, `fq_codel_drop`,
//! `fq_codel_dequeue`); ns-3 `fq-codel-queue-disc.cc` and its test suite.
//! The per-flow CoDel is `codel.rs`'s [`codel_dequeue`] on the flow's sub-queue.
//!
//! ```text
//! classify:  bucket = ((mix64(key ^ perturbation) mod 2^32) · flows) >> 32
//!            (Linux: reciprocal_scale(skb_get_hash, flows); mix64 = the
//!            splitmix64 finalizer)
//! enqueue:   packet to the tail of its bucket; a bucket on no list joins the
//!            tail of new_flows with deficit = quantum;
//!            then if packets > limit_pkts or bytes > memory_limit_bytes:
//!            drop from the head of the fattest bucket (most bytes; lowest
//!            index on ties; ns3: the first-created flow) until drop_batch
//!            packets or half its bytes are gone (at least one), and add the
//!            number dropped to its CoDel count (Linux; not ns3)
//! dequeue:   loop: f = head of new_flows, else of old_flows, else none
//!              deficit(f) ≤ 0 → deficit(f) += quantum, f to the tail of old_flows
//!              CoDel on f sends a packet p → deficit(f) −= len(p), send p
//!              else (f empty) → f from new_flows to the tail of old_flows if
//!                   old_flows is non-empty, else f leaves its list
//! ```
//!
//! Overflow drops count as `Overflow` drops after enqueue (the arriving
//! packet itself may be among them). Memory is counted as wire bytes here,
//! not Linux's `skb->truesize`. `ce_threshold_selector` (value, mask) limits
//! `ce_threshold` to packets with `(tos & mask) == value`; the host gives
//! only the ECN bits of the TOS byte (DSCP reads as 0), which is what the
//! selector is used for (0x01/0x01: ECT(1), Linux's `ce_threshold_ect1`).
//! No signal probability (`prob()` is `None`).
//!
//! The hash perturbation is `perturbation` if set, else one `next_u32` from
//! the queue's random stream drawn at the first arrival, before that packet
//! is classified (`SchedAqm::prepare`), so every packet of a flow shares
//! one bucket.
//!
//! | parameter            | default  | source                                      |
//! |----------------------|----------|---------------------------------------------|
//! | `limit_pkts`         | 10240    | Linux `fq_codel_init` (RFC 8290 §5.1.4)     |
//! | `memory_limit_bytes` | 32 MiB   | Linux `fq_codel_init`                       |
//! | `flows`              | 1024     | RFC 8290 §5.1.3; Linux                      |
//! | `quantum_bytes`      | 1514     | RFC 8290 §5.1.1; Linux `psched_mtu`         |
//! | `drop_batch`         | 64       | Linux `drop_batch_size`                     |
//! | `target_ns`          | 5 ms     | RFC 8290 §5.1.2 (RFC 8289)                  |
//! | `interval_ns`        | 100 ms   | RFC 8290 §5.1.2 (RFC 8289)                  |
//! | `ecn`                | on       | RFC 8290 §5.1.5; Linux                      |
//! | `ce_threshold_ns`    | disabled | Linux `TCA_FQ_CODEL_CE_THRESHOLD`           |
//! | `mtu_bytes`          | 1514     | Linux `psched_mtu`                          |
//!
//! | where               | `linux` (default)                       | `rfc`                                  |
//! |---------------------|-----------------------------------------|----------------------------------------|
//! | CoDel arithmetic    | Linux fixed point (`codel.rs`)          | RFC 8289 exact (`codel.rs`)            |
//! | CoDel's `backlog ≤ mtu` | bytes in the whole queue (`sch->qstats.backlog`) | bytes in the flow's queue (RFC 8290 §4.2: CoDel on each queue) |
//!
//! Linux clamps `quantum` to ≥ 256 bytes in `fq_codel_change`; here it is
//! taken as given (≥ 1). Both personalities use Linux's overflow batch.

use std::collections::VecDeque;

use ecnlab_wire::{Ecn, Instant};
use rand::RngCore;

use crate::aqm::SchedAqm;
use crate::backlog::Backlog;
use crate::codel::{codel_dequeue, validate_codel_times, BacklogScope, CodelCfg, CodelVars};
use crate::config::{AqmPersonality, FqCodelParams};
use crate::error::ConfigError;
use crate::verdict::DropReason;

/// Which list a flow is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlowList {
    New,
    Old,
}

/// One bucket's scheduling and CoDel state (its packets are the host's sub-queue).
#[derive(Clone, Debug, Default)]
pub(crate) struct Flow {
    pub deficit: i64,
    pub list: Option<FlowList>,
    pub vars: CodelVars,
    /// 1 + the number of buckets that held a packet before this one (0: never):
    /// ns-3 creates a flow's queue disc at its first packet and looks for the
    /// fattest flow in that order.
    pub first_seen: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct FqCodel {
    cfg: CodelCfg,
    flows: Vec<Flow>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    quantum: i64,
    drop_batch: u32,
    limit_pkts: u32,
    memory_limit: u64,
    perturbation: Option<u32>,
    seen: u32,
}

/// The splitmix64 finalizer: a bijective 64-bit mixer.
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Bucket of flow `key` among `flows` (module doc).
pub(crate) fn bucket(key: u64, perturbation: u32, flows: u32) -> usize {
    let h = mix64(key ^ u64::from(perturbation)) as u32;
    ((u64::from(h) * u64::from(flows)) >> 32) as usize
}

impl FqCodel {
    pub(crate) fn new(p: &FqCodelParams) -> Self {
        let scope = match p.personality {
            AqmPersonality::Linux => BacklogScope::Queue,
            AqmPersonality::Rfc | AqmPersonality::Ns3 => BacklogScope::Sub,
        };
        let cfg = CodelCfg::new(
            p.personality,
            p.target_ns,
            p.interval_ns,
            p.ce_threshold_ns,
            p.ce_threshold_selector,
            p.mtu_bytes,
            scope,
        );
        let cfg = CodelCfg { ecn: p.ecn, ..cfg };
        FqCodel {
            cfg,
            flows: vec![Flow::default(); p.flows as usize],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            quantum: i64::from(p.quantum_bytes),
            drop_batch: p.drop_batch,
            limit_pkts: p.limit_pkts,
            memory_limit: p.memory_limit_bytes,
            perturbation: p.perturbation,
            seen: 0,
        }
    }

    /// Linux `fq_codel_drop`: drops from the fattest bucket (module doc).
    fn drop_from_fattest<B: Backlog>(&mut self, b: &mut B) {
        let ns3 = self.cfg.personality == AqmPersonality::Ns3;
        // Most bytes; ties: lowest bucket (Linux), first flow created (ns-3).
        let order = |i: usize| if ns3 { self.flows[i].first_seen as usize } else { i };
        let mut fattest = 0;
        let mut max = 0;
        for i in 0..self.flows.len() {
            let bytes = b.sub_len_bytes(i);
            if bytes > max || (bytes == max && bytes > 0 && order(i) < order(fattest)) {
                max = bytes;
                fattest = i;
            }
        }
        let threshold = max >> 1;
        let mut dropped_bytes = 0u64;
        let mut n = 0u32;
        while let Some(h) = b.head(fattest) {
            b.drop_head(fattest, DropReason::Overflow);
            dropped_bytes += u64::from(h.len);
            n += 1;
            if n >= self.drop_batch || dropped_bytes >= threshold {
                break;
            }
        }
        if !ns3 {
            // Linux `fq_codel_drop`: the flow's CoDel counts the overflow drops.
            let v = &mut self.flows[fattest].vars;
            v.count = v.count.wrapping_add(n);
        }
    }
}

impl FqCodelParams {
    /// FQ-CoDel (`fq_codel.rs`): `limit_pkts`, `memory_limit_bytes`,
    /// `quantum_bytes`, `drop_batch`, `mtu_bytes` ≥ 1; `flows` in 1..=65536;
    /// `target_ns`, `interval_ns`, `ce_threshold_ns` > 0 (< 2^41 for personality linux).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.limit_pkts < 1 {
            return Err(ConfigError::new("limit_pkts", self.limit_pkts, "must be >= 1"));
        }
        if self.memory_limit_bytes < 1 {
            return Err(ConfigError::new("memory_limit_bytes", self.memory_limit_bytes, "must be >= 1"));
        }
        if !(1..=65536).contains(&self.flows) {
            return Err(ConfigError::new("flows", self.flows, "must be in 1..=65536"));
        }
        if self.quantum_bytes < 1 {
            return Err(ConfigError::new("quantum_bytes", self.quantum_bytes, "must be >= 1"));
        }
        if self.drop_batch < 1 {
            return Err(ConfigError::new("drop_batch", self.drop_batch, "must be >= 1"));
        }
        validate_codel_times(self.personality, self.target_ns, self.interval_ns, self.ce_threshold_ns, self.mtu_bytes)
    }
}

impl SchedAqm for FqCodel {
    fn subqueues(&self) -> usize {
        self.flows.len()
    }

    fn prepare<R: RngCore + ?Sized>(&mut self, rng: &mut R) {
        if self.perturbation.is_none() {
            self.perturbation = Some(rng.next_u32());
        }
    }

    fn classify(&mut self, key: u64, _ecn: Ecn) -> usize {
        bucket(key, self.perturbation.unwrap_or(0), self.flows.len() as u32)
    }

    fn on_enqueued<B: Backlog>(&mut self, _now: Instant, sub: usize, b: &mut B) {
        let f = &mut self.flows[sub];
        if f.first_seen == 0 {
            self.seen += 1;
            f.first_seen = self.seen;
        }
        if f.list.is_none() {
            f.list = Some(FlowList::New);
            f.deficit = self.quantum;
            self.new_flows.push_back(sub);
        }
        if b.len_pkts() > self.limit_pkts || b.len_bytes() > self.memory_limit {
            self.drop_from_fattest(b);
        }
    }

    fn dequeue<R: RngCore + ?Sized, B: Backlog>(&mut self, now: Instant, b: &mut B, _rng: &mut R) -> Option<usize> {
        loop {
            let (from_new, i) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i),
                (None, Some(&i)) => (false, i),
                (None, None) => return None,
            };
            let list = if from_new { &mut self.new_flows } else { &mut self.old_flows };
            let f = &mut self.flows[i];
            if f.deficit <= 0 {
                f.deficit += self.quantum;
                list.pop_front();
                f.list = Some(FlowList::Old);
                self.old_flows.push_back(i);
                continue;
            }
            if codel_dequeue(&self.cfg, &mut f.vars, now, b, i) {
                let len = b.head(i).map_or(0, |h| h.len);
                f.deficit -= i64::from(len);
                return Some(i);
            }
            list.pop_front();
            if from_new && !self.old_flows.is_empty() {
                f.list = Some(FlowList::Old);
                self.old_flows.push_back(i);
            } else {
                f.list = None;
            }
        }
    }
}

#[cfg(test)]
#[path = "fq_codel_tests.rs"]
mod tests;
