"""The report section of the Floyd 1994 reproduction: the setup, each claim and what ecnlab shows.

The verdicts and numbers come from the claims table (:mod:`.claims`); an
explanation is shown only where a claim is not (fully) shown, and it names the
mechanism docs/experiments/floyd1994.md establishes from the runs, never a
result the claims table does not state.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["report_text", "LAN_SETUP", "WAN_SETUP", "SQ_SETUP"]

LAN_SETUP = (
    "Five sources, each with one bulk connection (1000-byte packets, starts drawn uniformly in the "
    "first second) and two telnet connections (1-byte writes, 41 bytes on the wire, tcplib "
    "interarrivals), into one 45 Mbit/s gateway; 100 Mbit/s source links; 2 ms round-trip "
    "propagation; Reno with Floyd's ECN response; initial RTO 3 s; RTO at least two clock ticks; "
    "15 s per run. Gateways: Drop-Tail, RED (drop), RED+ECN (mark), each in packet and byte mode; "
    "RED min_th = buffer/12, max_th = 3 min_th, everything dropped above max_th, w_q = 0.002, "
    "max_p = 0.02. The link speeds are ecnlab's choice (the paper does not give them): see "
    "docs/experiments/floyd1994.md."
)
SQ_SETUP = (
    'Beyond the paper (section 9.1: "we have not explored the dynamics of backward ECN mechanisms '
    'such as Source Quench"), a fourth column, RED+SQ: the same RED, but a packet it selects early is '
    "forwarded unchanged and the gateway sends its source a 56-byte ICMP Source Quench, which crosses "
    "the reverse path like any packet; above max_th the gateway still drops. TCP is not ECN-capable and "
    "answers a quench as the paper's guidelines answer any ECN: halve cwnd and ssthresh, at most once "
    "per window, no retransmission, no slow start."
)
WAN_SETUP = (
    "Two-way traffic over a 45 Mbit/s gateway pair: four host pairs with round trips of 21, 27, 34 and "
    "40 ms (118-225 packets of bandwidth-delay product), 16 telnet connections each way, short FTPs "
    "of 100-300 packets arriving as a Poisson process (mean gap 2 s per host pair and direction), "
    "and 4 (moderate) or 20 (heavy) unlimited bulk connections each way; 100 ms TCP clock; 10 s "
    "per run; the same gateway in both directions, w_q = 0.001. Only left-to-right connections "
    "are measured, as in the paper."
)

_WHY = {
    "lan_ecn": (
        "Where RED+ECN fails it is the same mechanism every time: with 64-packet windows and a small "
        "buffer, five connections sharing an 11-packet pipe need a congestion signal on far more than "
        "max_p = 2 % of packets, so RED's average climbs past max_th and the (non-gentle) gateway "
        "drops every arriving packet, ECN-capable or not: forced drops, timeouts, idle link and "
        "telnet packets caught in the drops. The paper's claim needs a gateway whose marking rate "
        "can reach what the load needs (a larger pipe, a larger max_p, or gentle RED)."
    ),
    "lan_red_small": (
        "RED without ECN does lose packets and time out with 8-packet windows and a 100 ms clock, "
        "but in ecnlab's LAN the other connections keep the link busy: 5 x 8 packets of window "
        "against an 11-packet pipe. The paper's statement implies a LAN whose pipe is comparable "
        "to the connections' total window, so that a few connections waiting for timers leave the "
        "link idle; ecnlab's LAN choice (45 Mbit/s, 2 ms) does not have that property, and we did "
        "not change it after seeing the results."
    ),
    "handshake": (
        "ecnlab's TCP opens each connection with a SYN handshake and takes an RTT sample from it "
        "(RFC 6298), so only a lost SYN waits for the 3 s initial RTO; a telnet packet lost later "
        "is retransmitted after an RTO of a few milliseconds with the 0.1 ms clock. The paper's "
        "simulator had no handshake: a connection's first data packets ran on the 3 s timer, which "
        "the paper names as what decides the worst telnet delay without ECN (section 6.1). Delays "
        "above 100 ms from a single drop are therefore rarer in ecnlab than in the paper."
    ),
    "wan_ecn": (
        "In the WAN, 64-packet windows exceed the pipe (about 170 packets at a 30 ms round trip) plus "
        "max_th whenever several bulk connections are at full window, so RED's average passes max_th "
        "and the non-gentle gateway, ECN or not, drops every arriving packet for a while, telnet "
        "packets included. Drop-Tail drops only when the buffer is full, and in byte mode a 41-byte "
        "telnet packet nearly always finds room."
    ),
    "wan_tput": (
        "Where the gateways' throughputs differ by more than 10 %, look for the forced drops: Drop-Tail "
        "lets the queue grow to the buffer, while RED holds it near max_th and, when its average passes "
        "max_th, drops every arriving packet, which costs timeouts at the 100 ms clock."
    ),
    "sq_tput": (
        "Where RED+SQ and RED+ECN differ by more than 10 % in bulk throughput, two mechanisms act. "
        "Where RED's average passes max_th both gateways drop every arriving packet, and single runs of "
        "one gateway differ between seeds by as much as the gateways do. And RED+ECN must drop a selected "
        "packet that is not ECN-capable (pure ACKs of the reverse traffic, SYNs, retransmissions), while "
        "RED+SQ forwards it and quenches its sender, so RED+SQ drops fewer packets and waits for fewer "
        "timeouts."
    ),
    "sq_prompt": (
        "The quench reaches the source from the gateway instead of after the receiver's echo, but that head "
        "start is small against round trips of a few (LAN) to 40 (WAN) milliseconds plus queueing, and the "
        "means are decided by the runs where RED's average passes max_th and the gateway drops everything, "
        "RED+SQ as much as RED+ECN. After its halving a quenched sender grows its window on every ACK, "
        "while an ECN sender does not grow on ACKs carrying ECN-Echo (RFC 3168 §6.1.2), which can leave "
        "RED+SQ with more forced drops."
    ),
}


# claim check -> the explanation that applies when ecnlab does not show it
_EXPLAINS = {
    "lan_ecn_robust": "lan_ecn",
    "ecn_least_sensitive": "lan_ecn",
    "lan_coarse_clock_red_loses": "lan_red_small",
    "lan_fine_clock_telnet_drops": "handshake",
    "wan_ecn_lowest_delay": "wan_ecn",
    "wan_throughput_alike": "wan_tput",
    "sq_throughput": "sq_tput",
    "sq_prompt": "sq_prompt",
}


def _missed(claims: pd.DataFrame, check: str) -> bool:
    if claims.empty or "check" not in claims:
        return False
    row = claims[claims.check == check]
    return bool(len(row)) and row.ecnlab_shows.iloc[0] in ("no", "partly")


def _claims_lines(table: pd.DataFrame) -> list[str]:
    return [f"- §{r.section} *{r.paper}* — ecnlab: **{r.ecnlab_shows}** ({r.numbers})" for r in table.itertuples()]


def report_text(tables: dict[str, pd.DataFrame], study: str) -> str:
    """The Markdown of the section for ``floyd-lan`` or ``floyd-wan``."""
    claims = tables.get("claims", pd.DataFrame())
    setup = LAN_SETUP if study == "floyd-lan" else WAN_SETUP
    lines = [setup, "", SQ_SETUP, "", "**The paper's claims and what ecnlab shows:**", ""]
    lines += _claims_lines(claims)
    keys = [key for check, key in _EXPLAINS.items() if _missed(claims, check)]
    why = [_WHY[key] for key in dict.fromkeys(keys)]
    if why:
        lines += ["", "**Why some claims are not (fully) shown:**", ""] + [f"- {w}" for w in why]
    runs = tables.get("checks")
    if runs is not None and len(runs):
        r = runs.iloc[0]
        lines += [
            "",
            f"Runs: {int(r.runs)}; telnet packets written {int(r.telnet_written)}, delivered "
            f"{int(r.telnet_packets)}, about {r.telnet_per_run:.0f} per run (the paper: the telnet "
            'connections together send "several hundred" packets per run).',
        ]
    return "\n".join(lines)
