// SPDX-License-Identifier: GPL-2.0
/* prague_like (ecnlab_prague_like.bpf.c): a "Prague-like" scalable congestion control as a BPF
 * struct_ops, for a kernel that has no TCP Prague, cannot negotiate AccECN (net.ipv4.tcp_ecn <= 2)
 * and cannot send ECT(1). It is TCP Prague's congestion response (the L4S team's tcp_prague.c, the
 * L4STeam/linux tree, MODULE_VERSION 0.7; RFC 9331 §4.3) driven by DCTCP's classic-ECN feedback
 * (RFC 8257 §3.2) instead of AccECN. It is not TCP Prague: call it "Prague-like".
 *
 * Prague's rules it has (tcp_prague.c's function in brackets):
 *   - alpha, the fraction of CE-marked segments, an EWMA updated once per round (snd_una passes
 *     the snd_nxt recorded at the round's start) and, once RTT-independent (below), at most once
 *     per target RTT [prague_should_update_ewma, prague_update_alpha]:
 *       alpha <- alpha - alpha/16 + F/16,  F = delivered_ce / delivered in the round
 *     kept as upscaled_alpha = 16 * alpha in units of 2^-20 (the 0.6 module's 20 bits; 0.7 keeps
 *     24). alpha starts at 0 and is not updated before the first CE mark ("do not update alpha
 *     before we have proof that there's an AQM on the path"); the ACK of that first mark halves
 *     frac_cwnd instead (0.7's default prague_alpha_mode 0, in prague_update_cwnd).
 *   - the window as a fraction, frac_cwnd = W * 2^20 [CWND_UNIT]; cwnd walks one segment per ACK
 *     toward ceil(frac_cwnd), down to 2 segments, ssthresh following it down (the reference's
 *     "step-wise" adjust in prague_update_cwnd; RFC 9331 §4.3 minimum window 2).
 *   - on entering CWR (an ECE-flagged ACK): frac_cwnd -= (alpha * frac_cwnd + 2^20) >> 21, i.e.
 *     W * (1 - alpha/2) rounded without bias, at most once per round (Linux's CWR state) and, once
 *     RTT-independent, at most once per target RTT [prague_enter_cwr, cwr_stamp].
 *   - growth on every ACK, in CWR too, by its unmarked segments only (acked - CE-marked delivered):
 *     slow start by them (cwnd itself, as tcp_slow_start, up to ssthresh; frac_cwnd restarts from
 *     it), then frac_cwnd += max(acked, acked * ai * 2^20 / frac_cwnd), ai = 2^20 (one segment
 *     per round) [prague_update_cwnd], only while the window limits the sender and outside loss
 *     recovery.
 *   - RTT independence (RTT_CONTROL_RATE, the reference's default): once out of slow start for
 *     4 rounds (0.7's DEFAULT_RTT_TRANSITION), ai = 2^20 * (srtt / 25 ms)^2 while srtt < 25 ms
 *     [prague_rate_scaled_ai_ack_increase, prague_rtt_target], so a flow with a shorter RTT grows
 *     per second as one with the 25 ms target would.
 *   - loss: on entering Recovery or on an RTO (CA_EVENT_LOSS) frac_cwnd is halved (Reno's
 *     response, RFC 9331 §4.3); undo restores the window before it [prague_enter_loss,
 *     prague_cwnd_undo].
 *   - pacing: sk_pacing_status = SK_PACING_NEEDED (without an fq qdisc TCP's internal pacing),
 *     sk_pacing_rate = MTU * max(frac_cwnd, packets in flight, 2) / srtt per second (at least
 *     100 kbit/s), twice that while cwnd < ssthresh / 2, at most sk_max_pacing_rate
 *     [prague_update_pacing_rate outside the rate-based mode]. The 2 is the minimum window (MIN_CWND_RTT; RFC 9331 §4.3), which
 *     the reference never paces below in this mode, because below 4 segments its rate-based
 *     mode takes over. Without it a window whose frac_cwnd fell under one segment paced, at an
 *     ACK that left nothing in flight, at the reference's 100 kbit/s floor (MINIMUM_RATE), was
 *     then never cwnd-limited and so never grew: at 10 Mbit/s, 10 ms through DualPI2 with the
 *     echo below, the flow sat at cwnd 2, nothing in flight, 100 kbit/s from the third second on
 *     (tcp_info every 50 ms).
 *   - GSO bursts: min_tso_segs = max(1, (sk_pacing_rate / MTU) >> 12), the segments of 1/4096 s
 *     at the pacing rate [prague_tso_segs, prague_burst_shift 12]. The kernel's default minimum
 *     is 2 (net.ipv4.tcp_min_tso_segs, tcp_tso_autosize), so a paced flow under about 24 Mbit/s
 *     sent its segments in pairs; at 10 Mbit/s through DualPI2 the second of a pair waits one
 *     packet time, 1.2 ms, beyond the L queue's 1 ms step, and is marked: at 40 ms half of the
 *     flow's L packets were marked (29 % with this bound) and it ran at 0.70 Mbit/s (1.63; one
 *     20 s run each).
 *     The reference's tso_segs hook (L4STeam tree) also caps larger bursts; mainline's
 *     min_tso_segs is a minimum only, so above that rate tcp_tso_autosize's 1 ms of the pacing
 *     rate per burst stays.
 *   - TCP_CONG_NEEDS_ECN: every connection negotiates ECN and sends ECT(0).
 *
 * What it cannot have here, and what it has instead:
 *   - AccECN feedback (RFC 9331 §4.2; TCP_CONG_NEEDS_ACCECN): the kernel negotiates classic ECN
 *     only, so the receiver echoes CE as DCTCP's does (RFC 8257 §3.2; tcp_dctcp.h
 *     dctcp_ece_ack_update, as ecnlab_dctcp.bpf.c): ECE on exactly the ACKs of CE segments; on
 *     each change of the CE state a pending delayed ACK of the data before it leaves at once with
 *     the old ECE, and the segment that changed the state is ACKed at once (ICSK_ACK_NOW). The
 *     sender reads delivered_ce, which counts the segments an ECE-flagged ACK acknowledges; a
 *     lost ACK therefore miscounts marks where AccECN's counters would not. The simulator's
 *     counterpart: cc = "prague" with prague_feedback = "dctcp" (crates/tcp/src/cc/prague.rs).
 *   - ECT(1) (RFC 9331 §4.1; TCP_ECN_ECT_1): the kernel sends ECT(0), so a DualPI2 puts the flow
 *     in its L queue only when the path re-marks it to ECT(1) (ecnlab's ect0_to_ect1 impairment)
 *     or classifies it by another rule.
 *   - the fallback to Reno when AccECN is not negotiated (prague-reno): here classic ECN is the
 *     feedback; without ECN negotiated the flow still runs these rules on losses alone.
 *   - not kept: 0.7's rate-based mode below a window of 4 * 1500 B (and its MTU reduction), its
 *     24-bit alpha and 0.6's classic-ECN-AQM detection.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

#define TCP_CONG_NEEDS_ECN 0x2
#define TCP_ECN_DEMAND_CWR 0x4
#define MIN_CWND 2U
#define ALPHA_BITS 20U
#define MAX_ALPHA (1ULL << ALPHA_BITS)
#define SHIFT_G 4U
#define CWND_UNIT 20U
#define ONE_CWND (1ULL << CWND_UNIT)
#define RTT_TARGET_US 25000ULL
#define RTT_TRANSITION 4U
#define USEC_PER_SEC 1000000ULL
#define IPV4_HEADER 20U
#define MINIMUM_RATE 12500ULL /* bytes/s: 100 kbit/s */

struct ecnlab_prague_like {
	__u64 frac_cwnd;
	__u64 upscaled_alpha;
	__u64 loss_frac_cwnd;
	__u64 cwr_stamp;
	__u64 alpha_stamp;
	__u64 ai_ack_increase;
	__u32 loss_cwnd;
	__u32 old_delivered;
	__u32 old_delivered_ce;
	__u32 next_seq;
	__u32 round;
	__u32 acked_delivered;    /* tp->delivered at the last ACK */
	__u32 acked_delivered_ce; /* tp->delivered_ce at the last ACK */
	__u32 prior_rcv_nxt;
	__u8 ce_state;
	__u8 saw_ce;
	__u8 in_loss;
};

static inline struct tcp_sock *tp_of(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static inline struct ecnlab_prague_like *ca_of(struct sock *sk)
{
	return (struct ecnlab_prague_like *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static inline bool in_slow_start(struct tcp_sock *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}

/* tcp_is_cwnd_limited() of include/net/tcp.h */
static inline bool cwnd_limited(struct tcp_sock *tp)
{
	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		return true;
	if (in_slow_start(tp))
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}

static inline bool rtt_indep(struct tcp_sock *tp, struct ecnlab_prague_like *ca)
{
	return !in_slow_start(tp) && ca->round >= RTT_TRANSITION;
}

static inline __u32 frac_to_cwnd(struct ecnlab_prague_like *ca)
{
	__u32 w = (__u32)((ca->frac_cwnd + ONE_CWND - 1) >> CWND_UNIT);

	return w > 1 ? w : 1;
}

static inline void set_ai_increase(struct tcp_sock *tp, struct ecnlab_prague_like *ca)
{
	__u64 rtt = tp->srtt_us >> 3;

	if (ca->round < RTT_TRANSITION || !rtt || rtt >= RTT_TARGET_US) {
		ca->ai_ack_increase = ONE_CWND;
		return;
	}
	ca->ai_ack_increase = ((rtt * rtt << CWND_UNIT) + (RTT_TARGET_US * RTT_TARGET_US >> 1)) /
			      (RTT_TARGET_US * RTT_TARGET_US);
}

static inline void new_round(struct tcp_sock *tp, struct ecnlab_prague_like *ca)
{
	ca->next_seq = tp->snd_nxt;
	ca->old_delivered = tp->delivered;
	ca->old_delivered_ce = tp->delivered_ce;
	if (!in_slow_start(tp) && ca->round < 0xffffffffU)
		ca->round++;
	set_ai_increase(tp, ca);
}

SEC("struct_ops")
void BPF_PROG(ecnlab_prague_like_init, struct sock *sk)
{
	struct tcp_sock *tp = tp_of(sk);
	struct ecnlab_prague_like *ca = ca_of(sk);

	ca->frac_cwnd = (__u64)tp->snd_cwnd << CWND_UNIT;
	ca->upscaled_alpha = 0;
	ca->loss_frac_cwnd = 0;
	ca->loss_cwnd = 0;
	ca->cwr_stamp = 0;
	ca->alpha_stamp = tp->tcp_mstamp;
	ca->round = 0;
	ca->saw_ce = tp->delivered_ce != 0;
	ca->in_loss = 0;
	ca->ce_state = 0;
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->acked_delivered = tp->delivered;
	ca->acked_delivered_ce = tp->delivered_ce;
	if (sk->sk_pacing_status == SK_PACING_NONE) /* an fq qdisc's SK_PACING_FQ stays */
		sk->sk_pacing_status = SK_PACING_NEEDED;
	new_round(tp, ca);
}

static inline void update_alpha(struct tcp_sock *tp, struct ecnlab_prague_like *ca)
{
	__u64 alpha = ca->upscaled_alpha, f = 0;
	__u32 ce, delivered;

	if (ca->saw_ce) {
		ce = tp->delivered_ce - ca->old_delivered_ce;
		if (ce) {
			delivered = tp->delivered - ca->old_delivered;
			f = ((__u64)ce << ALPHA_BITS) / (delivered ? delivered : 1);
		}
		alpha = alpha - (alpha >> SHIFT_G) + f;
		if (alpha > MAX_ALPHA << SHIFT_G)
			alpha = MAX_ALPHA << SHIFT_G;
		ca->upscaled_alpha = alpha;
		ca->alpha_stamp = tp->tcp_mstamp;
	}
	new_round(tp, ca);
}

static inline bool should_update_alpha(struct tcp_sock *tp, struct ecnlab_prague_like *ca)
{
	if ((__s32)(tp->snd_una - ca->next_seq) < 0)
		return false; /* the round is not over yet */
	return !rtt_indep(tp, ca) || tp->tcp_mstamp - ca->alpha_stamp >= RTT_TARGET_US;
}

/* The unmarked segments of this ACK grow the window: slow start sets cwnd itself (tcp_slow_start)
 * and restarts frac_cwnd from it, what is left grows frac_cwnd additively. True when slow start
 * took every segment (then cwnd is not walked toward frac_cwnd on this ACK). */
static inline bool grow(struct tcp_sock *tp, struct ecnlab_prague_like *ca, __s64 acked)
{
	__u64 cwnd, increase;

	if (acked <= 0 || ca->in_loss || !cwnd_limited(tp))
		return false;
	if (in_slow_start(tp)) {
		cwnd = (__u64)tp->snd_cwnd + acked;
		if (cwnd > tp->snd_ssthresh)
			cwnd = tp->snd_ssthresh;
		acked -= cwnd - tp->snd_cwnd;
		tp->snd_cwnd = cwnd < tp->snd_cwnd_clamp ? (__u32)cwnd : tp->snd_cwnd_clamp;
		ca->frac_cwnd = (__u64)tp->snd_cwnd << CWND_UNIT;
		if (acked <= 0)
			return true;
	}
	increase = (__u64)acked * ca->ai_ack_increase;
	if (ca->frac_cwnd)
		increase = ((increase << CWND_UNIT) + (ca->frac_cwnd >> 1)) / ca->frac_cwnd;
	ca->frac_cwnd += increase > (__u64)acked ? increase : (__u64)acked;
	return false;
}

/* cwnd one segment toward ceil(frac_cwnd), at least MIN_CWND (prague_update_cwnd's adjust). */
static inline void adjust(struct tcp_sock *tp, struct ecnlab_prague_like *ca)
{
	__u32 target = frac_to_cwnd(ca);

	if (tp->snd_cwnd > target && tp->snd_cwnd > MIN_CWND) {
		tp->snd_cwnd = tp->snd_cwnd - 1;
		tp->snd_ssthresh = tp->snd_cwnd;
	} else if (tp->snd_cwnd < target && tp->snd_cwnd < tp->snd_cwnd_clamp) {
		tp->snd_cwnd = tp->snd_cwnd + 1;
	}
	set_ai_increase(tp, ca);
}

/* tcp_packets_in_flight() of include/net/tcp.h */
static inline __u32 in_flight(struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

static inline void set_pacing_rate(struct sock *sk, struct tcp_sock *tp,
				   struct ecnlab_prague_like *ca)
{
	__u64 mtu = tp->mss_cache + tp->tcp_header_len + IPV4_HEADER;
	__u64 rate = (USEC_PER_SEC << 3) * mtu;
	__u64 flight = ca->frac_cwnd >> CWND_UNIT;

	if (in_flight(tp) > flight)
		flight = in_flight(tp);
	if (flight < MIN_CWND)
		flight = MIN_CWND;
	if (tp->srtt_us)
		rate /= tp->srtt_us;
	rate *= flight;
	if (rate < MINIMUM_RATE)
		rate = MINIMUM_RATE;
	if (tp->snd_cwnd < tp->snd_ssthresh / 2)
		rate <<= 1;
	if (rate > sk->sk_max_pacing_rate)
		rate = sk->sk_max_pacing_rate;
	sk->sk_pacing_rate = rate;
}

SEC("struct_ops")
void BPF_PROG(ecnlab_prague_like_cong_control, struct sock *sk, __u32 ack, int flag,
	      const struct rate_sample *rs)
{
	struct tcp_sock *tp = tp_of(sk);
	struct ecnlab_prague_like *ca = ca_of(sk);
	__s64 acked = (__s32)(tp->delivered - ca->acked_delivered);
	__s64 marked = (__s32)(tp->delivered_ce - ca->acked_delivered_ce);

	ca->acked_delivered = tp->delivered;
	ca->acked_delivered_ce = tp->delivered_ce;
	if (marked > 0 && !ca->saw_ce) { /* the first mark: no alpha yet, halve */
		ca->frac_cwnd = (ca->frac_cwnd + 1) >> 1;
		ca->saw_ce = 1;
	}
	if (!grow(tp, ca, acked - marked))
		adjust(tp, ca);
	if (should_update_alpha(tp, ca))
		update_alpha(tp, ca);
	set_pacing_rate(sk, tp, ca);
}

static inline void enter_cwr(struct tcp_sock *tp, struct ecnlab_prague_like *ca)
{
	__u64 reduction;

	if (rtt_indep(tp, ca) && tp->tcp_mstamp - ca->cwr_stamp < RTT_TARGET_US)
		return;
	ca->cwr_stamp = tp->tcp_mstamp;
	reduction = ((ca->upscaled_alpha >> SHIFT_G) * ca->frac_cwnd + MAX_ALPHA) >> (ALPHA_BITS + 1U);
	ca->frac_cwnd -= reduction;
}

static inline void enter_loss(struct tcp_sock *tp, struct ecnlab_prague_like *ca)
{
	ca->loss_cwnd = tp->snd_cwnd;
	ca->loss_frac_cwnd = ca->frac_cwnd;
	ca->frac_cwnd -= ca->frac_cwnd >> 1;
	ca->in_loss = 1;
}

SEC("struct_ops")
void BPF_PROG(ecnlab_prague_like_state, struct sock *sk, __u8 new_state)
{
	struct tcp_sock *tp = tp_of(sk);
	struct ecnlab_prague_like *ca = ca_of(sk);

	if (new_state == ((struct inet_connection_sock *)sk)->icsk_ca_state)
		return;
	if (new_state == TCP_CA_Recovery)
		enter_loss(tp, ca);
	else if (new_state == TCP_CA_CWR)
		enter_cwr(tp, ca);
	else if (new_state == TCP_CA_Open)
		ca->in_loss = 0;
}

/* The receiver's echo of CE, as DCTCP's (RFC 8257 §3.2; tcp_dctcp.h dctcp_ece_ack_update): a
 * delayed ACK of the data before a change of the CE state leaves first with the old ECE (the
 * flags still hold it), and the segment that changed it is ACKed at once. */
static inline void ece_ack_update(struct sock *sk, struct ecnlab_prague_like *ca, __u8 new_ce_state)
{
	struct tcp_sock *tp = tp_of(sk);

	if (ca->ce_state != new_ce_state) {
		if (((struct inet_connection_sock *)sk)->icsk_ack.pending & ICSK_ACK_TIMER)
			bpf_tcp_send_ack(sk, ca->prior_rcv_nxt);
		((struct inet_connection_sock *)sk)->icsk_ack.pending |= ICSK_ACK_NOW;
		ca->ce_state = new_ce_state;
	}
	ca->prior_rcv_nxt = tp->rcv_nxt;
	if (new_ce_state)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

SEC("struct_ops")
void BPF_PROG(ecnlab_prague_like_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct ecnlab_prague_like *ca = ca_of(sk);

	if (ev == CA_EVENT_ECN_IS_CE)
		ece_ack_update(sk, ca, 1);
	else if (ev == CA_EVENT_ECN_NO_CE)
		ece_ack_update(sk, ca, 0);
	else if (ev == CA_EVENT_LOSS)
		enter_loss(tp_of(sk), ca);
}

/* ssthresh is the walk's (adjust): a reduction changes frac_cwnd, not ssthresh. */
SEC("struct_ops")
__u32 BPF_PROG(ecnlab_prague_like_ssthresh, struct sock *sk)
{
	return tp_of(sk)->snd_ssthresh;
}

SEC("struct_ops")
__u32 BPF_PROG(ecnlab_prague_like_undo_cwnd, struct sock *sk)
{
	struct ecnlab_prague_like *ca = ca_of(sk);
	__u32 cwnd = tp_of(sk)->snd_cwnd;

	ca->in_loss = 0;
	if (ca->loss_frac_cwnd > ca->frac_cwnd)
		ca->frac_cwnd = ca->loss_frac_cwnd;
	return ca->loss_cwnd > cwnd ? ca->loss_cwnd : cwnd;
}

/* prague_tso_segs as a minimum: the segments of 1/4096 s at the pacing rate, at least one. */
SEC("struct_ops")
__u32 BPF_PROG(ecnlab_prague_like_min_tso_segs, struct sock *sk)
{
	struct tcp_sock *tp = tp_of(sk);
	__u64 mtu = tp->mss_cache + tp->tcp_header_len + IPV4_HEADER;
	__u64 burst = (sk->sk_pacing_rate / mtu) >> 12;

	return burst > 1 ? (__u32)burst : 1;
}

SEC(".struct_ops")
struct tcp_congestion_ops prague_like = {
	.init = (void *)ecnlab_prague_like_init,
	.cong_control = (void *)ecnlab_prague_like_cong_control,
	.cwnd_event = (void *)ecnlab_prague_like_cwnd_event,
	.ssthresh = (void *)ecnlab_prague_like_ssthresh,
	.undo_cwnd = (void *)ecnlab_prague_like_undo_cwnd,
	.set_state = (void *)ecnlab_prague_like_state,
	.min_tso_segs = (void *)ecnlab_prague_like_min_tso_segs,
	.flags = TCP_CONG_NEEDS_ECN,
	.name = "prague_like",
};
