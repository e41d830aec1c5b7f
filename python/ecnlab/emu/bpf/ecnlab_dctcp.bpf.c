// SPDX-License-Identifier: GPL-2.0
/* ecnlab_dctcp: DCTCP (RFC 8257) as a BPF struct_ops congestion control, so that real Linux
 * TCP on a kernel built without CONFIG_TCP_CONG_DCTCP can run DCTCP through ecnlab's router.
 *
 * Sender (RFC 8257 §3.3):
 *   once per window of data (snd_una passes the snd_nxt recorded at the window's start):
 *     F = CE-marked delivered / delivered in that window      (tp->delivered_ce, tp->delivered)
 *     alpha = (1 - g) * alpha + g * F,   g = 1/16, alpha starts at 1         (§3.3 steps 5-7)
 *     in Linux's integers (tcp_dctcp.c dctcp_update_alpha): alpha -= min_not_zero(alpha, alpha >> 4),
 *     then alpha += (delivered_ce << 6) / delivered, at most 1024; so alpha reaches 0 after a
 *     long unmarked stretch (alpha - alpha/16 alone would stop at 15/1024)
 *   on a congestion signal: cwnd = cwnd * (1 - alpha / 2), at least 2 segments (§3.3 step 8)
 *   on loss, entering Recovery or a timeout (CA_EVENT_LOSS): ssthresh = cwnd / 2, at least 2
 *     (§3.5; tcp_dctcp.c dctcp_state, dctcp_cwnd_event); growth as Reno (§3.4)
 *   alpha is kept in units of 1/1024 (Linux's DCTCP_MAX_ALPHA).
 * Receiver (RFC 8257 §3.2; tcp_dctcp.h dctcp_ece_ack_update): ECE on exactly the ACKs of CE
 *   segments. On every change of the CE state a pending delayed ACK of the data before the change
 *   leaves at once with the old ECE, and the segment that changed the state is ACKed at once
 *   (ICSK_ACK_NOW) with the new; without that ACK the receiver, whose window edge the first ACK
 *   moved, would wait for two more segments or its delayed-ACK timer.
 * The flag TCP_CONG_NEEDS_ECN makes every connection using it negotiate ECN and send ECT(0).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

#define TCP_CONG_NEEDS_ECN 0x2
#define TCP_ECN_DEMAND_CWR 0x4
#define ALPHA_ONE 1024U
#define SHIFT_G 4

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

struct ecnlab_dctcp {
	__u32 old_delivered;
	__u32 old_delivered_ce;
	__u32 prior_rcv_nxt;
	__u32 alpha;
	__u32 next_seq;
	__u32 ce_state;
	__u32 loss_cwnd;
};

static inline struct tcp_sock *tp_of(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static inline struct ecnlab_dctcp *ca_of(struct sock *sk)
{
	return (struct ecnlab_dctcp *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static inline __u32 max_u32(__u32 a, __u32 b)
{
	return a > b ? a : b;
}

/* The kernel's min_not_zero(): the smaller of the two that are not 0. */
static inline __u32 min_not_zero_u32(__u32 a, __u32 b)
{
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	return a < b ? a : b;
}

static inline void start_window(struct tcp_sock *tp, struct ecnlab_dctcp *ca)
{
	ca->next_seq = tp->snd_nxt;
	ca->old_delivered = tp->delivered;
	ca->old_delivered_ce = tp->delivered_ce;
}

SEC("struct_ops")
void BPF_PROG(ecnlab_dctcp_init, struct sock *sk)
{
	struct tcp_sock *tp = tp_of(sk);
	struct ecnlab_dctcp *ca = ca_of(sk);

	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->alpha = ALPHA_ONE;
	ca->loss_cwnd = 0;
	ca->ce_state = 0;
	start_window(tp, ca);
}

SEC("struct_ops")
__u32 BPF_PROG(ecnlab_dctcp_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tp_of(sk);
	struct ecnlab_dctcp *ca = ca_of(sk);
	__u32 cwnd = tp->snd_cwnd;

	ca->loss_cwnd = cwnd;
	return max_u32(cwnd - ((cwnd * ca->alpha) >> 11U), 2U);
}

SEC("struct_ops")
void BPF_PROG(ecnlab_dctcp_update_alpha, struct sock *sk, __u32 flags)
{
	struct tcp_sock *tp = tp_of(sk);
	struct ecnlab_dctcp *ca = ca_of(sk);
	__u32 delivered, delivered_ce, alpha;

	if ((__s32)(tp->snd_una - ca->next_seq) < 0)
		return; /* the window is not over yet */
	delivered = tp->delivered - ca->old_delivered;
	delivered_ce = tp->delivered_ce - ca->old_delivered_ce;
	alpha = ca->alpha - min_not_zero_u32(ca->alpha, ca->alpha >> SHIFT_G);
	if (delivered_ce) {
		if (!delivered)
			delivered = 1;
		alpha += (delivered_ce << (10U - SHIFT_G)) / delivered;
	}
	ca->alpha = alpha > ALPHA_ONE ? ALPHA_ONE : alpha;
	start_window(tp, ca);
}

/* tcp_dctcp.c dctcp_react_to_loss: ssthresh = cwnd / 2, at least 2 (RFC 8257 §3.5). */
static inline void react_to_loss(struct tcp_sock *tp, struct ecnlab_dctcp *ca)
{
	ca->loss_cwnd = tp->snd_cwnd;
	tp->snd_ssthresh = max_u32(tp->snd_cwnd >> 1U, 2U);
}

/* tcp_dctcp.c dctcp_state: on entering Recovery (the timeout's Loss: CA_EVENT_LOSS below). */
SEC("struct_ops")
void BPF_PROG(ecnlab_dctcp_state, struct sock *sk, __u8 new_state)
{
	if (new_state == TCP_CA_Recovery && new_state != ((struct inet_connection_sock *)sk)->icsk_ca_state)
		react_to_loss(tp_of(sk), ca_of(sk));
}

/* ECE on the ACKs to come: TCP_ECN_DEMAND_CWR (tcp_dctcp.h dctcp_ece_ack_cwr). */
static inline void set_ece(struct tcp_sock *tp, __u32 ce_state)
{
	if (ce_state)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

/* tcp_dctcp.h dctcp_ece_ack_update: on a change of the CE state, a delayed ACK of the data
 * before it leaves first with the old ECE, and the segment that changed it is ACKed at once. */
static inline void ece_ack_update(struct sock *sk, struct ecnlab_dctcp *ca, __u32 new_ce_state)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct tcp_sock *tp = tp_of(sk);

	if (ca->ce_state != new_ce_state) {
		if (icsk->icsk_ack.pending & ICSK_ACK_TIMER) {
			set_ece(tp, ca->ce_state);
			bpf_tcp_send_ack(sk, ca->prior_rcv_nxt);
		}
		icsk->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ce_state = new_ce_state;
	set_ece(tp, new_ce_state);
}

SEC("struct_ops")
void BPF_PROG(ecnlab_dctcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct ecnlab_dctcp *ca = ca_of(sk);

	if (ev == CA_EVENT_ECN_IS_CE)
		ece_ack_update(sk, ca, 1);
	else if (ev == CA_EVENT_ECN_NO_CE)
		ece_ack_update(sk, ca, 0);
	else if (ev == CA_EVENT_LOSS) /* tcp_enter_loss, before cwnd falls to what is in flight */
		react_to_loss(tp_of(sk), ca);
}

SEC("struct_ops")
__u32 BPF_PROG(ecnlab_dctcp_undo_cwnd, struct sock *sk)
{
	struct ecnlab_dctcp *ca = ca_of(sk);

	return max_u32(tp_of(sk)->snd_cwnd, ca->loss_cwnd);
}

SEC("struct_ops")
void BPF_PROG(ecnlab_dctcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC(".struct_ops")
struct tcp_congestion_ops ecnlab_dctcp = {
	.init = (void *)ecnlab_dctcp_init,
	.in_ack_event = (void *)ecnlab_dctcp_update_alpha,
	.cwnd_event = (void *)ecnlab_dctcp_cwnd_event,
	.ssthresh = (void *)ecnlab_dctcp_ssthresh,
	.cong_avoid = (void *)ecnlab_dctcp_cong_avoid,
	.undo_cwnd = (void *)ecnlab_dctcp_undo_cwnd,
	.set_state = (void *)ecnlab_dctcp_state,
	.flags = TCP_CONG_NEEDS_ECN,
	.name = "ecnlab_dctcp",
};
