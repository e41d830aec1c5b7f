"""TCP personalities: named bundles of TCP defaults (``tcp.personality``).

A personality sets the knobs below before the scenario's own ``[tcp]`` keys are
applied, so any single key overrides it. ``docs/model.md`` has the same table
with the behaviours each knob selects; the personalities name where the RFCs,
ns-2.35 and Linux differ, as the RED personalities do for queues.

Sources, per knob: ``rfc`` the RFC that specifies it (RFC 5681, 3465, 3042,
6582 §4, 3168 §6.1.2, 6298); ``ns2`` the ns-2.35 variable (``windowInit_``,
``opencwnd``, ``singledup_``, ``newreno_changes1_``, ``minrto_``,
``rtxcur_init_``, ``maxrto_``, ``tcpTick_``, DelAckSink ``interval_``,
``output()`` with ``SetCWRonRetransmit_``, ``bugFix_``, ``slowdown()``,
``rtt_update``/``rtt_timeout``, ``ecn()`` with ``ecn_backoff_``, ``DelAckSink::recv``,
Sack1 ``dupack_action``, ``reset_rtx_timer``, ``send_one``);
``window_scale``: RFC 7323, ns-2 has no TCP options, Linux
``tcp_window_scaling`` 1; ``linux`` the kernel constant or function (``TCP_INIT_CWND``,
``tcp_slow_start``, ``tcp_add_reno_sack``, ``tcp_enter_cwr``, ``TCP_RTO_MIN``,
``TCP_TIMEOUT_INIT``, ``TCP_RTO_MAX``, ``TCP_DELACK_MIN``, ``tcp_reno_ssthresh``,
``tcp_enter_loss``/``tcp_timeout_mark_lost``, ``tcp_cwnd_reduction``, ``tcp_rack_detect_loss``,
``tcp_schedule_loss_probe``, ``tcp_fastretrans_alert``, ``tcp_add_reno_sack``/``tcp_remove_reno_sacks``,
``tcp_send_fin``, ``tcp_cubic.c``). ``abc = 100``
stands for Linux's segment counting, which has no per-ACK limit.

Not modelled yet (docs/model.md lists them): ns-2's data-less pseudo-SYN; Linux's RACK before recovery
(its reordering window and timer), timestamps, quick-ACK, undo (F-RTO, DSACK).
"""

from __future__ import annotations

from typing import Any

__all__ = ["TCP_PERSONALITIES", "DEFAULT_PERSONALITY"]

MS = 1_000_000
S = 1_000_000_000

DEFAULT_PERSONALITY = "rfc"

# The ns-2.35 rules (docs/ns2-ecn-suite.md) as the RFCs and Linux have them: off.
_NOT_NS2 = {
    "ecn_on_retransmit": False,
    "recover_guard_all": False,
    "window_arith": "rfc5681",
    "rto_arith": "rfc6298",
    "ecn_backoff": False,
    "ack_ce_at_once": True,
    "sack_is_lost": True,
    "rtx_restart_on_fr": False,
    "limited_transmit_all": False,
}

# Linux's rules that the RFCs (and ns-2) do otherwise: on only in the linux personality.
_NOT_LINUX = {
    "ssthresh_basis": "flight",
    "sack_after_rto": False,
    "rto_keeps_recovery_ssthresh": False,
    "prr": False,
    "dupacks_as_sacks": False,
    "fin_with_data": False,
    "rack": False,
    "tlp": False,
    "sack_recover_guard": True,
    "cubic_arith": "rfc9438",
    "dctcp_arith": "rfc8257",
    "growth_arith": "rfc5681",
    "tso": "none",
    "rcv_autotune": "off",
}

# personality -> {TcpSpec attribute: value}
TCP_PERSONALITIES: dict[str, dict[str, Any]] = {
    "rfc": {
        "init_cwnd": 2,
        "abc": 2,
        "limited_transmit": True,
        "newreno_timer": "impatient",
        "window_scale": True,
        "ecn_min_cwnd": 1,
        "min_rto_ns": 1 * S,
        "initial_rto_ns": 1 * S,
        "max_rto_ns": 60 * S,
        "clock_granularity_ns": 1 * MS,
        "delack_timeout_ns": 100 * MS,
        "idle_restart": "rfc5681",  # RFC 5681 §4.1
        **_NOT_NS2,
        **_NOT_LINUX,
    },
    "ns2": {
        "init_cwnd": 2,
        "abc": 0,
        "limited_transmit": True,
        "newreno_timer": "impatient",
        "window_scale": False,
        "ecn_min_cwnd": 1,
        "min_rto_ns": 200 * MS,
        "initial_rto_ns": 3 * S,
        "max_rto_ns": 60 * S,
        "clock_granularity_ns": 10 * MS,
        "delack_timeout_ns": 100 * MS,
        "ecn_on_retransmit": True,
        "recover_guard_all": True,
        "window_arith": "ns2",
        "rto_arith": "ns2",
        "ecn_backoff": True,
        "ack_ce_at_once": False,
        "sack_is_lost": False,
        "rtx_restart_on_fr": True,
        "limited_transmit_all": True,
        "idle_restart": "off",  # ns-2's one-way agents: no restart window (slow_start_restart_ is FullTcp's)
        **_NOT_LINUX,
    },
    "linux": {
        "init_cwnd": 10,
        "abc": 100,
        "limited_transmit": True,
        "newreno_timer": "slow_but_steady",
        "window_scale": True,
        "ecn_min_cwnd": 2,
        "min_rto_ns": 200 * MS,
        "initial_rto_ns": 1 * S,
        "max_rto_ns": 120 * S,
        "clock_granularity_ns": 1 * MS,
        "delack_timeout_ns": 40 * MS,
        **_NOT_NS2,
        "ssthresh_basis": "cwnd",
        "sack_after_rto": True,
        "rto_keeps_recovery_ssthresh": True,
        "prr": True,
        "dupacks_as_sacks": True,  # tcp_add_reno_sack, tcp_remove_reno_sacks: PRR in NewReno recovery too
        "fin_with_data": True,  # tcp_send_fin: FIN on the last data segment
        "rack": True,
        "tlp": True,
        "sack_recover_guard": False,
        "cubic_arith": "linux",  # tcp_cubic.c: whole segments, jiffies, the target one delay_min ahead
        "dctcp_arith": "linux",  # tcp_dctcp.c: the cut in whole segments, alpha in 1/1024
        "rto_arith": "linux",  # tcp_set_rto: RTO = srtt + rttvar, rttvar >= rto_min
        "growth_arith": "linux",  # tcp_cong_control: acked_sacked; tcp_slow_start stops at ssthresh
        "idle_restart": "linux",  # tcp_slow_start_after_idle = 1: tcp_cwnd_restart
    },
}
