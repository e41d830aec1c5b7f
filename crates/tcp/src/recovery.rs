//! Loss recovery and the ECN reaction: what an ACK or a timeout does to the
//! sender, per variant.
//!
//! Window reductions happen at most once per window of data: each reduction
//! enters a phase that remembers snd_max at that moment and ends when snd_una
//! passes it (Cwr, Loss) or reaches it (Recovery).
//!
//! | event | Open / Disorder | Cwr (ECN-reduced this window) | Recovery | Loss |
//! |---|---|---|---|---|
//! | ECE on an ACK | reduce: ssthresh = max(FlightSize/2, 2·SMSS), cwnd = ssthresh, or 1 SMSS if FlightSize < 4·SMSS, → Cwr | ignored | ignored | ignored |
//! | DupThresh dupACKs | fast retransmit with reduction, → Recovery | fast retransmit, ssthresh kept (RFC 3168 §6.1.2 "should not decrease ... again"), → Recovery | per variant | ignored |
//! | RTO | ssthresh = max(FlightSize/2, 2·SMSS), cwnd = 1 SMSS, → Loss | cwnd = 1 SMSS, ssthresh kept (reduced within the last RTT, RFC 3168 §6.1.2) | as Open | cwnd = 1 SMSS, ssthresh kept (RFC 5681 §3.1 note on repeated timeouts) |
//!
//! With `ecn_min_cwnd_segments = 2` (ns-3's `EnterCwr` with classic recovery,
//! Linux's `tcp_enter_cwr`) an ECE reduction sets cwnd = ssthresh, never below
//! two segments, and the one-segment rule below never applies.
//!
//! ECE with cwnd of one segment (RFC 3168 §6.1.2): ssthresh is reduced as usual,
//! cwnd stays at 1 SMSS and the retransmission timer is reset as an `EcnHold`:
//! no new data until it expires. If nothing is outstanding at expiry the sender
//! simply resumes with one segment (not a timeout, not counted); if data is
//! outstanding the expiry is an ordinary timeout.
//!
//! Variant `Sack` without SACK negotiated behaves as NewReno. Entering
//! Recovery from Cwr keeps ssthresh and sets cwnd from it (growth made during
//! Cwr is dropped). NewReno leaves Recovery with cwnd = ssthresh (RFC 6582
//! §3.2 step 6 option 2) and, with `newreno_timer = slow_but_steady`,
//! restarts the RTO on every partial ACK; with `impatient` only on the first
//! (RFC 6582 §4). SACK recovery does not grow cwnd and leaves it at
//! ssthresh. With `limited_transmit` the first two
//! duplicate ACKs each release one new segment beyond cwnd (RFC 3042), and
//! those bytes are left out of FlightSize when ssthresh is set at the third.
//! NewReno and SACK start no new episode until snd_una passes
//! `recover` (snd_max at the last episode or timeout); after a timeout no
//! recovery does (RFC 6582 §4); with `recover_guard_all` (ns-2's `bugFix_`)
//! Tahoe and Reno wait for `recover` after an episode too, and with
//! `sack_recover_guard` off (Linux) SACK recovery does not.
//!
//! No ACK carrying ECE grows cwnd (RFC 3168 §6.1.2), whether it triggers a
//! reduction or is ignored because the window was already reduced. After an
//! ECN reduction cwnd grows normally on ACKs without ECE while in Cwr. The
//! exception is the Loss phase after a timeout: there the window slow-starts
//! on ECE ACKs as on any (RFC 5681 §3.1). The receiver repeats ECE until a new
//! data segment brings CWR (RFC 3168 §6.1.3, §6.1.2 "only on the first new data
//! packet"), and the go-back-N retransmissions after a timeout carry none, so
//! with growth forbidden the flow would stay at one segment per RTT until the
//! whole window was resent: a single CUBIC flow over RED+ECN (10 Mbit/s, 84 ms,
//! 478 kB in flight at the timeout) sat at one segment for 17 s. The echoes
//! are of congestion the timeout's one-segment window already answered.
//! (ns-2 avoids the stall by sending CWR on retransmissions, `ecn_on_retransmit`;
//! Linux by growing on ECE ACKs outside its CWR state.)
//! Any reduction with ECN negotiated sets CWR on the next new data segment
//! (RFC 3168 §6.1.2: "reduces its congestion window for any reason"); with
//! `ecn_on_retransmit` (ns-2) on the next data segment, a retransmission too.
//! An ICMP Source Quench is handled like ECE, with its own counters (`quench.rs`).
//!
//! With `dupacks_as_sacks` (Linux's SACK emulation for a connection without
//! SACK) a NewReno sender counts every duplicate ACK as one segment SACKed
//! (`tcp_add_reno_sack`, at most FlightSize less one segment) and a
//! cumulative ACK as one segment delivered plus whatever it covers beyond
//! the counted ones (`tcp_remove_reno_sacks`); outside a recovery a new ACK
//! clears the count, as does a timeout (after which nothing is counted until
//! the Loss phase ends). Those segments leave the pipe: in Disorder and CWR
//! the pipe makes the room Limited Transmit would, and a fast retransmit or
//! a partial ACK marks the first unacknowledged segment lost
//! (`tcp_newreno_mark_lost`), which goes first when pipe < cwnd. cwnd is not
//! inflated or deflated; with `prr`, PRR sets it on every ACK of the
//! recovery from the segments delivered (RFC 6937 §3 estimates DeliveredData
//! from duplicate ACKs without SACK, as Linux does), else it is ssthresh from
//! the fast retransmit on. Not modelled: Linux holding Recovery while snd_una
//! equals `recover` exactly (`tcp_is_non_sack_preventing_reopen`), and undo.

use crate::cc::{Ack, Congestion, CongestionControl, Feedback};
use crate::config::{GrowthArith, NewRenoTimer, Recovery, SsthreshBasis};
use crate::prr::Prr;
use crate::rules::rtx_timer::{EcnHold, FastRetransmitTimer, NewAckTimer};
use crate::rules::timeout::{RtoInRecovery, RtoScoreboard};
use crate::send::{EcnSend, Sender};
use crate::stats::TcpStats;
use crate::tlp::ProbeAck;
use crate::window::Phase;
use ecnlab_wire::{Instant, Segment};

impl Sender {
    /// Processes the acknowledgment part of `seg` (established connections only).
    pub(crate) fn on_ack(&mut self, now: Instant, seg: &Segment, st: &mut TcpStats) {
        if self.rate.is_some() {
            return self.on_ack_with_rates(now, seg, st);
        }
        self.on_ack_window(now, seg, st);
    }

    /// [`Self::on_ack`] for a congestion control that sets cwnd from rate samples (BBR):
    /// it does so after all of [`Self::on_ack_window`], from the window as it was (Linux's
    /// `cong_control` replaces PRR and `cong_avoid`; `tcp_enter_recovery` and
    /// `tcp_enter_cwr` leave cwnd to it). A call of its own, as [`Self::rate_control`],
    /// out of every other control's ACK path.
    #[inline(never)]
    fn on_ack_with_rates(&mut self, now: Instant, seg: &Segment, st: &mut TcpStats) {
        let (ack, cwnd, prior_in_flight) = (seg.ack.min(self.max), self.win.cwnd, self.in_flight());
        if let Some(r) = self.rate.as_mut() {
            r.on_ack(ack, seg.sack.as_slice());
        }
        let ece = self.on_ack_window(now, seg, st);
        self.win.cwnd = cwnd;
        self.rate_control(now, prior_in_flight, ece);
    }

    /// The ACK's effect on the scoreboard, the phases and the window; returns whether it
    /// told of congestion (ECE, or new CE marks with AccECN).
    #[inline(always)]
    pub(crate) fn on_ack_window(&mut self, now: Instant, seg: &Segment, st: &mut TcpStats) -> bool {
        self.peer_rwnd = seg.window;
        let ack = seg.ack.min(self.max);
        let before_tlp = self.tlp.map(|_| (self.una, self.sb.sacked_bytes()));
        let delivered = self.update_scoreboard(ack, seg);
        if let Some((una, sacked)) = before_tlp {
            self.on_probe_ack(ack, ack > una, seg.payload_len > 0, self.sb.sacked_bytes() > sacked, st);
        }
        // Without SACK, Linux counts duplicate ACKs as SACKed segments (`dupacks_as_sacks`).
        let (una, reno) = (self.una, self.counts_reno_sacks());
        let was_recovering = matches!(self.win.phase, Phase::Recovery { .. });
        let prr_delivered = if reno { self.reno_sacks_on_ack(ack, seg) } else { delivered };
        // RFC 3168 ECE, or AccECN: new CE marks learnt from the ACE field (`accecn.rs`).
        let ece = if self.accecn.is_some() { self.accecn_marks(seg, delivered, st) } else { seg.flags.ece() };
        self.on_ack_phases(now, ece, seg, ack, delivered, st);
        if reno && ack > una && !matches!(self.win.phase, Phase::Recovery { .. }) {
            self.reno_sacked = 0; // tcp_reset_reno_sack: outside a recovery a new ACK clears the count
        }
        // Linux grows PRR's slow-start part only on an ACK that advanced snd_una
        // without marking a new loss; without SACK a partial ACK marks the next
        // segment lost. (The SACK path adds the segment on every ACK.)
        let ssrb_grows = !reno || (ack > una && !was_recovering);
        self.prr_step(prr_delivered, ssrb_grows);
        ece
    }

    /// AccECN: whether the ACK's ACE field (and AccECN option) tell new CE marks (`accecn.rs`).
    #[inline(never)]
    fn accecn_marks(&mut self, seg: &Segment, delivered: u64, st: &mut TcpStats) -> bool {
        let Some(a) = self.accecn.as_mut() else { return seg.flags.ece() };
        let before = a.ceb_total;
        let d = a.on_ack(seg.flags.ace(), seg.accecn.and_then(|o| o.ceb()), delivered, self.win.mss);
        st.ace_delta_ce += d;
        st.accecn_ceb += a.ceb_total - before;
        d > 0
    }

    /// The rate sample of this ACK to the congestion control, which sets cwnd and its
    /// pacing rate (`CongestionControl::cong_control`); the sender is app-limited
    /// from here if it has nothing more to send (`tcp_rate_check_app_limited`).
    #[inline(never)]
    fn rate_control(&mut self, now: Instant, prior_in_flight: u64, ece: bool) {
        let Some(mut r) = self.rate.take() else { return };
        let rs = r.generate(now, prior_in_flight, ece);
        let ctx = crate::cc::RateCtx {
            now,
            in_flight: self.in_flight(),
            phase: self.win.phase.ca_state(),
            ecn: self.ecn != EcnSend::Disabled,
            srtt: self.rtt.srtt(),
        };
        self.cc.cong_control(&mut self.win, &rs, &ctx, &mut r);
        let waiting = self.data_end().saturating_sub(self.nxt);
        let (mss, cwnd) = (u64::from(self.win.mss), u64::from(self.win.cwnd));
        r.check_app_limited(waiting, mss, ctx.in_flight, cwnd, self.rtx_next.is_some());
        self.rate = Some(r);
    }

    /// `dupacks_as_sacks`: Linux's SACK emulation for a connection without it;
    /// returns RFC 6937's DeliveredData of the ACK (bytes, one segment per
    /// duplicate ACK). A duplicate ACK counts one segment SACKed, while at
    /// least one segment stays unSACKed (`tcp_add_reno_sack`,
    /// `tcp_limit_reno_sacked`); a cumulative ACK takes its first segment as
    /// the hole filled and the rest as segments the duplicate ACKs counted
    /// already: it delivers max(acked − counted, one segment) and uncounts
    /// acked − one segment (`tcp_remove_reno_sacks`).
    fn reno_sacks_on_ack(&mut self, ack: u64, seg: &Segment) -> u64 {
        let mss = u64::from(self.win.mss);
        if ack > self.una {
            let acked = ack - self.una;
            let delivered = acked.saturating_sub(self.reno_sacked).max(acked.min(mss));
            self.reno_sacked -= acked.saturating_sub(mss).min(self.reno_sacked);
            delivered
        } else if is_dupack(seg, ack, self.una, self.max) {
            let before = self.reno_sacked;
            self.reno_sacked = (before + mss).min(self.flight_size().saturating_sub(mss));
            self.reno_sacked.saturating_sub(before)
        } else {
            0
        }
    }

    /// `tcp_process_tlp_ack` (`tlp.rs`): the probe's ACK ends the episode, or
    /// shows that the probe repaired a loss, which reduces the window once
    /// (`tcp_init_cwnd_reduction`, then `tcp_end_cwnd_reduction`).
    fn on_probe_ack(&mut self, ack: u64, advanced: bool, data: bool, new_sack: bool, st: &mut TcpStats) {
        let Some(probe) = self.tlp else { return };
        // FLAG_NOT_DUP: data, a window update (windows do not change here) or new data acknowledged.
        match probe.on_ack(ack, advanced, data || advanced, new_sack) {
            ProbeAck::Pending => {}
            ProbeAck::NoLoss => self.tlp = None,
            ProbeAck::Loss => {
                self.tlp = None;
                st.tlp_recoveries += 1;
                self.reduce_ssthresh(Congestion::Loss);
                self.win.cwnd = self.win.ssthresh;
                self.prr = None;
                self.signal_cwr();
            }
        }
    }

    /// Records the SACK blocks; RFC 6937 DeliveredData: bytes newly
    /// acknowledged, cumulatively or selectively.
    /// (Counted only with `prr`, `growth_arith = linux` or AccECN, its readers: AccECN's newlyAckedB.)
    fn update_scoreboard(&mut self, ack: u64, seg: &Segment) -> u64 {
        let counted =
            self.rules.reduction.prr() || self.rules.growth_arith == GrowthArith::Linux || self.accecn.is_some();
        let before = if counted { self.sb.sacked_bytes() } else { 0 };
        if self.use_sack {
            self.sb.update(ack.max(self.una), seg.sack.as_slice());
        }
        if !counted {
            return 0;
        }
        (ack.saturating_sub(self.una) + self.sb.sacked_bytes()).saturating_sub(before)
    }

    /// [`Self::on_ack`] without PRR: the phases and what they do to the window.
    /// `delivered`: RFC 6937's DeliveredData of the ACK (counted with `prr` or AccECN).
    #[inline(always)]
    fn on_ack_phases(&mut self, now: Instant, ece: bool, seg: &Segment, ack: u64, delivered: u64, st: &mut TcpStats) {
        if ack > self.una {
            let acked = ack - self.una;
            self.una = ack;
            self.nxt = self.nxt.max(ack);
            self.rtx_next = self.rtx_next.filter(|&s| s >= ack);
            // ns-2 with timerfix_ false: the timer restarts before the RTT
            // update and the backoff reset, with the old (backed-off) RTO.
            let restart = !self.keeps_timer_on_partial_ack(ack);
            if restart && self.rules.timer.new_ack == NewAckTimer::BeforeSample {
                self.restart_timer(now);
            }
            // ns-2 newack(): the backoff survives a sample while ecn_backoff_ and ECE.
            let rtt = self.take_rtt_sample(now, ack, self.ecn_backoff_armed && ece);
            if !ece {
                self.ecn_backoff_armed = false; // ns-2 recv_newack_helper
            }
            if restart && self.rules.timer.new_ack == NewAckTimer::AfterSample {
                self.restart_timer(now);
            }
            self.win.dupacks = 0;
            self.lt_bytes = 0;
            self.end_phase();
            // The congestion control counts data bytes (not the SYN's or FIN's sequence number).
            let end = self.data_end();
            let data = ack.min(end) - (ack - acked).min(end);
            let marked = match self.accecn.as_mut() {
                Some(a) => a.take_marked(data),
                None if ece => data,
                None => 0,
            };
            let srtt = self.rtt.srtt();
            let ack_rtt = self.ack_rtt_sample(now, ack);
            if let Some(t) = self.tso.as_mut() {
                t.on_rtt(ack_rtt.or(rtt));
            }
            let ack_rtt = ack_rtt.filter(|_| self.hystart_rtt);
            let in_flight = self.in_flight();
            let snd_nxt = self.max;
            self.cc.on_feedback_with(|| Feedback {
                acked: data,
                ece,
                marked,
                una: ack,
                snd_nxt,
                in_flight,
                now,
                rtt,
                srtt,
                ack_rtt,
            });
            // Prague grows on the unmarked bytes of every ACK, the one that reduced included.
            let grows = self.cc.grows_on_marked_acks();
            if ece && self.ece_allowed() {
                self.ecn_reduce(now, st);
                if grows {
                    self.on_new_ack(&Ack { now, acked: data, rtt }, acked, delivered, false);
                }
            } else {
                // After a timeout the window slow-starts on ECE ACKs too (module doc).
                let after_timeout = matches!(self.win.phase, Phase::Loss { .. });
                let ece = ece && !grows && !after_timeout;
                self.on_new_ack(&Ack { now, acked: data, rtt }, acked, delivered, ece);
            }
        } else {
            if ece && self.ece_allowed() {
                self.ecn_reduce(now, st);
            }
            if is_dupack(seg, ack, self.una, self.max) {
                self.on_dupack(now, st);
            }
        }
    }

    /// RFC 6937 on an ACK during a reduction (`prr.rs`): cwnd = pipe + sndcnt;
    /// once it is over (the phase is Open again), cwnd = ssthresh.
    #[inline(always)]
    fn prr_step(&mut self, delivered: u64, ssrb_grows: bool) {
        let Some(mut prr) = self.prr else { return };
        let reno = self.counts_reno_sacks();
        match self.win.phase {
            Phase::Cwr { .. } => {}
            Phase::Recovery { .. } if self.use_sack || reno => {}
            Phase::Open | Phase::Disorder => return self.end_prr(),
            _ => {
                self.prr = None;
                return;
            }
        }
        let pipe = if self.use_sack {
            self.sb.pipe(&self.space())
        } else if reno {
            self.reno_pipe()
        } else {
            self.flight_size()
        };
        let mss = u64::from(self.win.mss);
        let cwnd = prr.on_ack(delivered, pipe, u64::from(self.win.ssthresh), mss, ssrb_grows);
        self.win.cwnd = cwnd.min(u64::from(u32::MAX)) as u32;
        self.prr = Some(prr);
    }

    /// The reduction is over: cwnd = ssthresh (`tcp_end_cwnd_reduction`).
    fn end_prr(&mut self) {
        self.prr = None;
        self.win.cwnd = self.win.ssthresh;
    }

    /// PRR runs an ECN reduction (CWR): `prr`, unless the congestion control has
    /// Linux's `cong_control` (Prague), which `tcp_cong_control` calls on every ACK
    /// in place of `tcp_cwnd_reduction`: its cwnd is then ssthresh at once, as
    /// without PRR. (A loss recovery keeps PRR: the reference's walk of cwnd down
    /// one segment per ACK there is not modelled.)
    fn prr_in_cwr(&self) -> bool {
        self.rules.reduction.prr() && !self.cc.has_cong_control()
    }

    /// A reduction starts (`prr`): cwnd is left to PRR, from its value now.
    fn start_prr(&mut self) {
        if self.prr.is_none() {
            self.prr = Some(Prr::new(self.win.cwnd));
        }
    }

    /// RFC 6582 §4, the Impatient variant: during NewReno's recovery only the
    /// first partial ACK restarts the retransmission timer (step 5: "for the
    /// first partial ACK that arrives during Fast Recovery, also reset the
    /// retransmit timer"); Slow-but-Steady restarts it on every one.
    fn keeps_timer_on_partial_ack(&mut self, ack: u64) -> bool {
        let newreno = self.recovery == Recovery::NewReno || (self.recovery == Recovery::Sack && !self.use_sack);
        let Phase::Recovery { recover } = self.win.phase else { return false };
        if !newreno || ack >= recover || self.rules.newreno_timer == NewRenoTimer::SlowButSteady {
            return false;
        }
        std::mem::replace(&mut self.partial_seen, true)
    }

    /// Cwr and Loss end once snd_una passes their sequence number.
    fn end_phase(&mut self) {
        self.win.phase = match self.win.phase {
            Phase::Cwr { until } if self.una > until => Phase::Open,
            Phase::Loss { recover } if self.una >= recover => Phase::Open,
            Phase::Disorder => Phase::Open,
            p => p,
        };
    }

    /// RFC 3168 §6.1.2: react to ECE at most once per window, never during loss
    /// recovery, and not while our CWR is still unsent: the receiver echoes ECE
    /// until it sees CWR (§6.1.3), so until then ECE carries no news (this matters
    /// when a reduction leaves no new data to carry the CWR).
    /// ECE on the ACK that ends a Loss phase can still be stale: `reduced_at`
    /// makes "passes" strict for every kind of reduction.
    fn ece_allowed(&self) -> bool {
        self.ecn == EcnSend::Idle
            && self.una > self.reduced_at
            && matches!(self.win.phase, Phase::Open | Phase::Disorder)
    }

    /// RFC 3168 §6.1.2 (Floyd 1994 §4): halve cwnd and ssthresh, no
    /// retransmission, CWR on the next new segment. ssthresh keeps RFC 5681's
    /// floor of two segments; cwnd is halved down to one segment (the floor
    /// RFC 3168's one-segment rule presupposes, as in ns-2), so a flow with a
    /// tiny window still backs off when marked.
    /// With AccECN no CWR follows (RFC 9768 §3.2.2: CWR is part of the ACE
    /// field); the Cwr phase alone keeps it to one reduction per window.
    fn ecn_reduce(&mut self, now: Instant, st: &mut TcpStats) {
        st.ecn_reductions += 1;
        self.tlp = None; // tcp_init_cwnd_reduction
        self.halve_window(now, Congestion::Ecn);
        self.signal_cwr();
    }

    /// The window arithmetic of [`Self::ecn_reduce`], shared with the Source
    /// Quench response (`quench.rs`): enters Cwr until snd_max is passed.
    /// With `ecn_min_cwnd_segments` = 2 the window is ns-3's and Linux's
    /// instead: cwnd = ssthresh = max(FlightSize/2, 2·SMSS), and no hold.
    pub(crate) fn halve_window(&mut self, now: Instant, kind: Congestion) {
        let half = (self.ns2_w(false) / 2) as u32;
        // ns-2 slowdown(): cwnd = W/2 keeps its fraction; below one segment nothing
        // can be sent until the timer (cwnd 0.5 after ECE at cwnd 1, §6.1.2's hold).
        let one_segment = self.win.cwnd <= self.win.mss || (self.rules.ns2_window() && half < self.win.mss);
        let flight = self.flight_size();
        self.reduce_ssthresh(kind);
        if self.ecn_min_cwnd_segments >= 2 && self.prr_in_cwr() {
            self.start_prr(); // Linux tcp_enter_cwr → tcp_init_cwnd_reduction
        } else if self.ecn_min_cwnd_segments >= 2 {
            self.win.cwnd = self.win.ssthresh;
        } else if one_segment {
            // "the TCP sender should reset the retransmit timer on receiving the
            // ECN-Echo packet when the congestion window is one"; with
            // `ecn_backoff` (ns-2 ecn(): "if cwnd_ <= 1: if ecn_backoff_ then
            // rtt_backoff() else ecn_backoff_ = 1") a second one in a row doubles it.
            if self.rules.timer.ecn_hold == EcnHold::Doubling && self.win.cwnd <= self.win.mss {
                if std::mem::replace(&mut self.ecn_backoff_armed, true) {
                    self.rtt.back_off();
                }
            } else {
                self.ecn_backoff_armed = false;
            }
            // ns2: W/2 below one segment sends nothing until the timer, which
            // then sets cwnd_ = 1 ("if cwnd_ < 1 then cwnd_ = 1"): one segment.
            self.win.cwnd = self.win.cwnd.min(self.win.mss);
            self.hold_timer(now);
        } else if self.rules.ns2_window() {
            self.ecn_backoff_armed = false;
            self.win.cwnd = half;
        } else {
            // Halving fewer than four segments in flight leaves one segment.
            let small = flight < 4 * self.win.mss as u64;
            self.win.cwnd = if small { self.win.mss } else { self.win.ssthresh };
        }
        self.win.phase = Phase::Cwr { until: self.max };
        self.reduced_at = self.max;
    }

    /// ssthresh as the congestion control sets it for a reduction of `kind` (FlightSize now).
    pub(crate) fn reduce_ssthresh(&mut self, kind: Congestion) {
        let basis = if self.rules.ns2_window() {
            self.ns2_w(kind == Congestion::Timeout)
        } else {
            self.halving_basis(self.flight_size())
        };
        self.set_ssthresh(kind, basis);
    }

    /// What RFC 5681 eq. (4) halves: FlightSize (`flight`), or cwnd (`ssthresh_basis = cwnd`, Linux).
    fn halving_basis(&self, flight: u64) -> u64 {
        if self.rules.ssthresh_basis == SsthreshBasis::Cwnd {
            u64::from(self.win.cwnd)
        } else {
            flight
        }
    }

    /// ssthresh from the amount to halve (RFC 5681: FlightSize; ns-2: W), in
    /// whole segments with `window_arith = ns2` (`ssthresh_` is an int).
    fn set_ssthresh(&mut self, kind: Congestion, basis: u64) {
        let s = self.cc.ssthresh(&self.win, kind, basis);
        let mss = self.win.mss;
        self.win.ssthresh = if self.rules.ns2_window() { (s / mss * mss).max(2 * mss) } else { s };
    }

    /// ns-2 `windowd()`: min(cwnd, rwnd), cwnd with Reno's inflation; during a
    /// Reno or NewReno recovery a timeout first drops the inflation (`dupwnd_ = 0`).
    fn ns2_w(&self, timeout: bool) -> u64 {
        let inflated = matches!(self.win.phase, Phase::Recovery { .. }) && self.inflates();
        let cwnd = if inflated && timeout { self.halved } else { self.win.cwnd };
        u64::from(cwnd).min(u64::from(self.peer_rwnd))
    }

    /// Recoveries whose window is inflated by duplicate ACKs (not with
    /// `dupacks_as_sacks`, where they leave the pipe instead).
    fn inflates(&self) -> bool {
        let newreno_like = matches!(self.recovery, Recovery::Reno | Recovery::NewReno)
            || (self.recovery == Recovery::Sack && !self.use_sack);
        newreno_like && !self.counts_reno_sacks()
    }

    /// An ACK of new data that made no ECN reduction. RFC 3168 §6.1.2: "The
    /// sending TCP SHOULD NOT increase the congestion window in response to
    /// the receipt of an ECN-Echo ACK packet": with `ece` cwnd does not grow
    /// (recovery's own bookkeeping still runs).
    fn on_new_ack(&mut self, ack: &Ack, acked: u64, delivered: u64, ece: bool) {
        let Phase::Recovery { recover } = self.win.phase else {
            // Linux tcp_cong_control: no growth while PRR reduces the window; the ACK
            // that ended CWR (tcp_fastretrans_alert: tcp_end_cwnd_reduction, CA_Open)
            // grows it from ssthresh as any other. (Prague's reference has a
            // cong_control of its own: not there. The end of a SACK recovery: below.)
            let ended = matches!(self.win.phase, Phase::Open | Phase::Disorder);
            if self.prr.is_some() && ended && !self.cc.grows_on_marked_acks() {
                self.end_prr();
            }
            if !ece && self.prr.is_none() {
                // `growth_arith = linux`: `tcp_cong_control` grows by `acked_sacked`, the
                // data this ACK newly delivered, not again what SACK delivered before.
                let grow =
                    if self.rules.growth_arith == GrowthArith::Linux { Ack { acked: delivered, ..*ack } } else { *ack };
                self.cc.on_ack(&mut self.win, &grow);
            }
            return;
        };
        let full = self.una >= recover;
        match self.recovery {
            Recovery::Tahoe => {
                if !ece {
                    self.cc.on_ack(&mut self.win, ack); // slow start through the go-back-N retransmissions
                }
                if full {
                    self.win.phase = Phase::Open;
                }
            }
            // RFC 5681 §3.2 step 6: the first new ACK deflates the window and ends recovery.
            Recovery::Reno => self.exit_recovery(ack, ece),
            // RFC 6675 §5: recovery ends when RecoveryPoint is acknowledged.
            Recovery::Sack if self.use_sack => {
                if full {
                    self.win.phase = Phase::Open;
                    if !self.rules.ns2_window() {
                        self.win.cwnd = self.win.ssthresh;
                    }
                    if self.prr.take().is_some() && !ece && !self.cc.grows_on_marked_acks() {
                        self.grow_at_recovery_end(ack, delivered);
                    }
                }
            }
            Recovery::NewReno | Recovery::Sack if full => self.exit_recovery(ack, ece),
            Recovery::NewReno | Recovery::Sack => self.partial_ack(acked),
        }
    }

    /// Linux with `prr`, on the ACK that ends a SACK recovery: `tcp_fastretrans_alert`
    /// leaves Recovery (`tcp_try_undo_recovery` sets CA_Open for a SACK connection)
    /// and sets cwnd = ssthresh (`tcp_end_cwnd_reduction`) before `tcp_cong_control`
    /// runs, so the same ACK grows the window by the segments it delivered
    /// (`tcp_cong_avoid(sk, ack, acked_sacked)`: newly SACKed or cumulatively acked
    /// data not SACKed before, not the whole cumulative jump). Without SACK Linux
    /// holds Recovery until an ACK above the recovery point (RFC 6582's guard):
    /// not modelled, that recovery ends on the full ACK with cwnd = ssthresh.
    fn grow_at_recovery_end(&mut self, ack: &Ack, delivered: u64) {
        self.cc.on_ack(&mut self.win, &Ack { acked: delivered, ..*ack });
    }

    /// RFC 6582 §3.2 step 6, option (2): cwnd = ssthresh on a full ACK.
    /// `window_arith = ns2`: cwnd = ns-2's `cwnd_` (the halved window, after any
    /// partial deflation) and the exit ACK opens it as any new ACK does
    /// (RenoTcpAgent/NewRenoTcpAgent::recv → recv_newack_helper → opencwnd);
    /// Sack1 leaves cwnd_ as it is and does not open it on that ACK.
    fn exit_recovery(&mut self, ack: &Ack, ece: bool) {
        self.win.phase = Phase::Open;
        if !self.rules.ns2_window() {
            self.win.cwnd = self.win.ssthresh;
            return;
        }
        self.win.cwnd = self.halved.max(self.win.mss);
        if !ece {
            self.cc.on_ack(&mut self.win, ack);
        }
    }

    /// RFC 6582 §3.2 step 5: retransmit the next hole, deflate by the amount
    /// acknowledged, add back one SMSS if at least one SMSS was acknowledged.
    /// The ACK restarted the timer unless `keeps_timer_on_partial_ack` said not to.
    fn partial_ack(&mut self, acked: u64) {
        self.rtx_next = Some(self.una);
        if self.counts_reno_sacks() {
            return; // the new first segment is lost (`tcp_newreno_mark_lost`); PRR sets cwnd
        }
        if self.rules.ns2_window() {
            return self.ns2_partial_deflation(acked);
        }
        let mss = self.win.mss as u64;
        let mut cwnd = (self.win.cwnd as u64).saturating_sub(acked);
        if acked >= mss {
            cwnd += mss;
        }
        self.win.cwnd = cwnd.max(mss) as u32;
    }

    /// ns-2 NewReno `partialnewack` with `partial_window_deflation_` 1: with d
    /// acknowledged, the inflation goes first (`dupwnd_ -= d − 1` while it
    /// exceeds d), then `cwnd_` (`cwnd_ -= d − dupwnd_`, `dupwnd_ = 1`), never
    /// below one segment. The total window shrinks by d − 1 segments either way.
    fn ns2_partial_deflation(&mut self, acked: u64) {
        let mss = u64::from(self.win.mss);
        let inflation = u64::from(self.win.cwnd.saturating_sub(self.halved));
        if inflation > acked {
            self.win.cwnd = (u64::from(self.win.cwnd) - acked + mss) as u32;
        } else {
            let halved = u64::from(self.halved).saturating_sub(acked - inflation).max(mss);
            self.halved = halved as u32;
            self.win.cwnd = (halved + mss) as u32;
        }
    }

    fn on_dupack(&mut self, now: Instant, st: &mut TcpStats) {
        self.win.dupacks += 1;
        match self.win.phase {
            Phase::Open => {
                self.win.phase = Phase::Disorder;
                self.maybe_enter_recovery(now, st);
            }
            Phase::Disorder | Phase::Cwr { .. } => self.maybe_enter_recovery(now, st),
            // RFC 5681 §3.2 step 4 (and RFC 6582): inflate by one SMSS per dupACK.
            Phase::Recovery { .. } if self.inflates() => {
                self.win.cwnd = self.win.cwnd.saturating_add(self.win.mss);
            }
            Phase::Recovery { .. } | Phase::Loss { .. } => {}
        }
    }

    fn maybe_enter_recovery(&mut self, now: Instant, st: &mut TcpStats) {
        // ns-2's Sack1 counts duplicate ACKs only (sack_is_lost off): no RFC 6675 IsLost trigger.
        let lost =
            self.use_sack && self.rules.loss.is_lost_starts_recovery() && self.sb.is_lost(self.una, &self.space());
        // RACK after a Tail Loss Probe (`tlp.rs`): the probe SACKed, the holes below it are lost.
        let lost = lost || self.tlp.is_some_and(|p| p.seq > self.una && self.sb.is_sacked(p.seq, p.end));
        if self.win.dupacks < self.win.dupthresh && !lost {
            return;
        }
        // RFC 6582 §3.2 step 1: a new episode only "if the Cumulative
        // Acknowledgment field covers more than recover"; which recoveries
        // wait is the stacks' rule (`rules/recover_guard.rs`).
        let w = &self.win;
        if self.rules.guards.blocks(self.recovery, self.use_sack, self.una, w.recover, w.rto_recover) {
            return;
        }
        self.enter_recovery(now, st);
    }

    /// Fast retransmit (RFC 5681 §3.2 steps 2–3, RFC 6582, RFC 6675 §5 step 4).
    fn enter_recovery(&mut self, now: Instant, st: &mut TcpStats) {
        st.fast_retransmits += 1;
        self.tlp = None; // tcp_init_cwnd_reduction
        self.cancel_probe(); // the retransmission re-arms the RTO (tcp_xmit_retransmit_queue)
        if self.rules.timer.fast_retransmit == FastRetransmitTimer::Restart && !self.timer.is_hold() {
            // ns-2 dupack_action: reset_rtx_timer() restarts the timer (no backoff).
            self.arm_timer(now);
        }
        let same_window = matches!(self.win.phase, Phase::Cwr { .. });
        // ns-2: W/2 becomes cwnd_ (the ECN path keeps cwnd_ as it is).
        self.halved = if same_window { self.win.cwnd } else { (self.ns2_w(false) / 2) as u32 };
        if !same_window {
            // RFC 5681 §3.2 step 2: data sent by Limited Transmit is not counted.
            let flight = self.flight_size() - self.lt_bytes.min(self.flight_size());
            let basis = if self.rules.ns2_window() { self.ns2_w(false) } else { self.halving_basis(flight) };
            self.set_ssthresh(Congestion::Loss, basis);
            self.reduced_at = self.max;
            self.signal_cwr();
        }
        self.win.recover = self.max;
        self.win.phase = Phase::Recovery { recover: self.max };
        self.partial_seen = false;
        self.timing = None;
        let mss = self.win.mss;
        // ns-2 keeps cwnd_ = W/2 with its fraction (window_arith = ns2); RFC 5681 sets cwnd from ssthresh.
        let base = if self.rules.ns2_window() { self.halved.max(mss) } else { self.win.ssthresh };
        match self.recovery {
            // Tahoe: slow start from one segment, go-back-N.
            Recovery::Tahoe => {
                self.win.cwnd = mss;
                self.nxt = self.una;
            }
            Recovery::Sack if self.use_sack => {
                if self.rules.reduction.prr() {
                    self.start_prr(); // continues a CWR reduction (Linux tcp_enter_recovery)
                } else {
                    self.win.cwnd = base;
                }
                self.sb.start_episode(self.una);
                self.rtx_next = Some(self.una);
            }
            // `dupacks_as_sacks`: no inflation; the first segment is lost and
            // goes when the pipe leaves room (`tcp_newreno_mark_lost`).
            Recovery::NewReno | Recovery::Sack if self.counts_reno_sacks() => {
                if self.rules.reduction.prr() {
                    self.start_prr();
                } else {
                    self.win.cwnd = base;
                }
                self.rtx_next = Some(self.una);
            }
            Recovery::Reno | Recovery::NewReno | Recovery::Sack => {
                self.win.cwnd = base.saturating_add(self.win.dupthresh * mss);
                self.rtx_next = Some(self.una);
            }
        }
    }

    /// The retransmission timer expired with the connection established.
    pub(crate) fn on_timer(&mut self, now: Instant, st: &mut TcpStats) {
        if let crate::timer::RtxTimer::Probe { rto_at, .. } = self.timer {
            return self.on_probe_timer(now, rto_at, st);
        }
        let was_hold = self.timer.is_hold();
        self.timer = crate::timer::RtxTimer::Idle;
        if self.una >= self.max {
            // RFC 3168 §6.1.2: the hold is over; nothing to retransmit.
            debug_assert!(was_hold, "retransmission timer ran with nothing outstanding");
            return;
        }
        self.on_rto(now, st);
    }

    /// `tcp_send_loss_probe` (`tlp.rs`): the RTO runs again from its own
    /// deadline; without a probe outstanding one is sent now (and the RTO then
    /// restarts from its departure, `Sender::on_sent`).
    fn on_probe_timer(&mut self, now: Instant, rto_at: Instant, st: &mut TcpStats) {
        self.timer = crate::timer::RtxTimer::Retransmit { expires_at: rto_at.max(now + ecnlab_wire::Duration(1)) };
        let open = matches!(self.win.phase, Phase::Open | Phase::Cwr { .. });
        if open && self.tlp.is_none() && self.una < self.max {
            self.tlp_due = true;
            st.loss_probes += 1;
        }
    }

    /// RFC 6298 (5.4)–(5.6) and RFC 5681 §3.1 eq. (4): go back to snd_una with one segment.
    fn on_rto(&mut self, now: Instant, st: &mut TcpStats) {
        st.timeouts += 1;
        self.prr = None;
        self.tlp = None;
        self.tlp_due = false;
        // ns-2 timeout(): after an ECN reduction in this window ssthresh is kept; a
        // repeated timeout halves again (W = cwnd = 1 segment: ssthresh 2).
        // Linux tcp_enter_loss: a timeout during a fast recovery keeps its ssthresh.
        let keep_ssthresh = match self.win.phase {
            Phase::Cwr { .. } => true,
            Phase::Loss { .. } => !self.rules.ns2_window(),
            Phase::Recovery { .. } => self.rules.timeout.recovery_ssthresh == RtoInRecovery::Keep,
            _ => false,
        };
        if !keep_ssthresh {
            self.reduce_ssthresh(Congestion::Timeout);
        }
        self.win.cwnd = self.win.mss;
        self.win.dupacks = 0;
        self.reno_sacked = 0; // tcp_timeout_mark_lost: tcp_reset_reno_sack
        self.win.recover = self.max;
        self.win.rto_recover = self.max;
        self.win.phase = Phase::Loss { recover: self.max };
        self.reduced_at = self.max;
        self.signal_cwr();
        self.rtx_next = None;
        self.timing = None;
        if self.use_sack && self.rules.timeout.scoreboard == RtoScoreboard::Kept {
            // RFC 6675 §5.1, Linux: the holes are retransmitted, the SACKed data is not.
            self.sb.mark_all_lost(self.una, self.max);
        } else {
            self.nxt = self.una;
            self.sb.clear(); // RFC 2018 §8
            self.sb.start_episode(self.una);
            self.sb.on_timeout();
        }
        self.rtt.back_off(); // RFC 6298 (5.5)
        self.arm_timer(now); // RFC 6298 (5.6)
        if let Some(r) = self.rate.as_mut() {
            // tcp_enter_loss: tcp_timeout_mark_lost counts the flight lost once (`rate_sample.rs`),
            // then tcp_set_ca_state(TCP_CA_Loss) tells the congestion control (BBR).
            r.on_timeout();
            self.cc.on_timeout(&self.win, r);
        }
    }
}

/// RFC 5681 §2 duplicate ACK: no data, no SYN/FIN, acknowledges snd_una while
/// data is outstanding (the window never changes here).
fn is_dupack(seg: &Segment, ack: u64, una: u64, max: u64) -> bool {
    ack == una && una < max && seg.payload_len == 0 && !seg.flags.syn() && !seg.flags.fin()
}

impl Sender {
    /// RFC 5562 §3.2: the responder's ECT SYN-ACK was CE-marked, so it starts with
    /// cwnd = 1 SMSS instead of the initial window (ssthresh untouched) and sets
    /// CWR on its first data segment. The caller counts it in `ecn_reductions`.
    pub(crate) fn ecn_plus_reduce(&mut self) {
        self.win.cwnd = self.win.mss;
        self.win.phase = Phase::Cwr { until: self.max };
        self.reduced_at = self.max;
        self.ecn = EcnSend::CwrPending;
    }
}
