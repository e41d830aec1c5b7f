//! ecnlab-tcp: sans-IO TCP endpoints with ECN (RFC 3168), ECN+ (RFC 5562) and AccECN (RFC 9768, ACE field).
//!
//! A [`Connection`] is a full endpoint (send and receive half). The caller owns
//! the clock and the network: it feeds segments with [`Connection::on_segment`],
//! drains [`Connection::poll_transmit`] until `None` after every input, timer or
//! application call, and calls [`Connection::on_timer`] at [`Connection::poll_at`].
//! A Source Quench about the connection is fed with [`Connection::on_source_quench`].
//!
//! | file | concern |
//! |---|---|
//! | `conn.rs` | handshake, state machine, segment assembly, counters |
//! | `send.rs` | send sequence state, application data, transmit selection |
//! | `recovery.rs` | ACK processing: Tahoe/Reno/NewReno/SACK recovery, ECN reaction, RTO |
//! | `accecn.rs` | AccECN (RFC 9768): negotiation codes, the receiver's ACE counter and ACK triggers, the AccECN option and its policy (Linux's `tcp_ecn_option`), the sender's decoding |
//! | `quench.rs` | response to an ICMP Source Quench (Floyd 1994 §4, §5) |
//! | `window.rs` | cwnd/ssthresh, the phase (`CaState`), dupACK count, `recover` |
//! | `cc/` | congestion control behind one trait: growth and the ssthresh of a reduction (`cc/mod.rs`); `reno.rs` |
//! | `rtt.rs` | RFC 6298 estimator with a coarse clock |
//! | `timer.rs` | retransmission timer enum, tick-aligned deadlines |
//! | `sack.rs` | RFC 6675 scoreboard |
//! | `assembler.rs`, `recv.rs` | receive half: out-of-order data, SACK blocks, delayed ACK, ECE echo |
//!
//! Sequence numbers are `u64` from 0 and never wrap: the SYN is 0, data starts at 1.

mod accecn;
mod assembler;
mod cc;
pub mod config;
mod conn;
pub mod idle;
mod pacing;
pub mod personality;
mod prr;
mod quench;
mod rack;
mod rate_sample;
mod rcvbuf;
mod recovery;
mod recv;
mod rtt;
mod rtt_linux;
pub mod rules;
mod sack;
mod send;
mod stats;
mod timer;
mod tlp;
mod tso;
mod window;

pub use accecn::EcnFeedback;
pub use cc::{BbrKnobs, BbrVersion, CubicKnobs, DctcpKnobs, PragueKnobs, ProbeReport, KNOB_KEYS, PROBES};
pub use config::{
    window_shift, AccEcnOptionPolicy, CcKind, ConfigError, CubicArith, DctcpArith, EcnMode, GrowthArith, HyStartMode,
    NewRenoTimer, PragueFeedback, PragueVersion, RcvAutotune, Recovery, RtoArith, SsthreshBasis, TcpConfig, Tso,
    WindowArith,
};
pub use conn::{AppEvent, Connection, Role, State};
pub use idle::IdleRestart;
pub use personality::{Personality, PersonalityRules};
pub use rules::accecn_checks::{AccEcnChecks, AccEcnFailure};
pub use rules::ect_marking::{EctPackets, RetransmitEct};
pub use rules::fin::FinPlacement;
pub use rules::limited_transmit::{LimitedTransmit, LimitedTransmitPhases};
pub use rules::loss_detection::{LossMarking, SackRecoveryTrigger, TailLoss};
pub use rules::receiver_ack::{CeAck, EcnQuickAck, SynAck};
pub use rules::recover_guard::{GuardedRecoveries, SackGuard, TimeoutGuard};
pub use rules::reduction::{DupAckAccounting, WindowReduction};
pub use rules::rtx_timer::{EcnHold, FastRetransmitTimer, NewAckTimer};
pub use rules::syn_fallback::SynEcnFallback;
pub use rules::timeout::{RtoInRecovery, RtoScoreboard};
pub use stats::TcpStats;
pub use window::CaState;
