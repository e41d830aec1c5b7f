"""Bad scenarios through the real CLI: exit 2, one exact line, no traceback, no output directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SCENARIOS, SMALL, run_cli

HOSTS = "hosts: r1..r10, s1..s10"
DUMBBELL_KEYS = (
    "access_corrupt, access_delay, access_loss, access_rate, bottleneck_delay, bottleneck_queue, bottleneck_rate, "
    "default_queue, hosts, kind, pairs, reverse_queue"
)

# (test id, text edit as (old, new) or None, --set arguments, expected message after "FILE: ")
CASES: list[tuple[str, tuple[str, str] | None, list[str], str]] = [
    (
        "unknown-key-typo",
        ("[topology.bottleneck_queue]", "[topology.bottleneck_queu]"),
        [],
        f'topology.bottleneck_queu: unknown key for kind = "dumbbell", did you mean "bottleneck_queue"? '
        f"(allowed: {DUMBBELL_KEYS})",
    ),
    (
        "unknown-top-level-key",
        ('duration = "5s"', 'duraton = "5s"'),
        [],
        'duraton: unknown key, did you mean "duration"? (allowed: description, duration, faults, flows, '
        "impairments, name, output, sample_interval, seed, stop_when_complete, tcp, topology, warmup)",
    ),
    (
        "unknown-tcp-key",
        None,
        ["tcp.ecm=true"],
        'tcp.ecm: unknown key, did you mean "ecn"? (allowed: abc, abe, accecn_checks, accecn_option, '
        "accecn_option_beacon, ack_ce_at_once, bbr_ecn_low, bbr_version, cc, clock_granularity, clock_phase, "
        "cubic_arith, dctcp_arith, dctcp_ect, dctcp_shift_g, "
        "delack_timeout, "
        "delayed_ack, "
        "dupack_threshold, dupacks_as_sacks, ecn, ecn_backoff, ecn_min_cwnd, "
        "ecn_on_retransmit, ecn_plus, ecn_quickack, ect_all_packets, fin_with_data, growth_arith, guard_after_timeout, "
        "hystart, "
        "idle_restart, "
        "init_cwnd, "
        "initial_rto, "
        "limited_transmit, "
        "limited_transmit_all, max_rto, min_rto, mss, newreno_timer, pacing, pacing_ca_ratio, pacing_ss_ratio, "
        "personality, prague_classic_fallback, prague_fallback_fix, prague_feedback, prague_rtt_target, "
        "prague_rtt_transition, "
        "prague_version, prr, rack, rcv_autotune, "
        "recover_guard_all, recovery, rto_arith, rto_keeps_recovery_ssthresh, rtx_restart_on_fr, rwnd, sack_after_rto, "
        "sack_is_lost, sack_recover_guard, ssthresh_basis, syn_ecn_fallback, syn_immediate_ack, timer_before_sample, "
        "tlp, tso, variant, "
        "window_arith, window_scale)",
    ),
    (
        "red-key-on-droptail",
        None,
        ["topology.reverse_queue.min_th=5"],
        'topology.reverse_queue.min_th: unknown key for kind = "droptail" '
        "(allowed: kind, limit, limit_bytes, tail_delay)",
    ),
    (
        "min_th-equals-max_th",
        None,
        ["topology.bottleneck_queue.min_th=15"],
        "topology.bottleneck_queue.min_th = 15: must be < max_th (15)",
    ),
    (
        "min_th-above-max_th",
        None,
        ["topology.bottleneck_queue.min_th=20.5"],
        "topology.bottleneck_queue.min_th = 20.5: must be < max_th (15)",
    ),
    (
        "max_p-above-1",
        None,
        ["topology.bottleneck_queue.max_p=1.5"],
        "topology.bottleneck_queue.max_p = 1.5: must be in (0, 1]",
    ),
    (
        "max_p-zero",
        None,
        ["topology.bottleneck_queue.max_p=0"],
        "topology.bottleneck_queue.max_p = 0: must be in (0, 1]",
    ),
    ("wq-zero", None, ["topology.bottleneck_queue.wq=0.0"], "topology.bottleneck_queue.wq = 0.0: must be in (0, 1]"),
    (
        "max_p-not-a-number",
        None,
        ["topology.bottleneck_queue.max_p=high"],
        'topology.bottleneck_queue.max_p = "high": must be a number, not a string',
    ),
    (
        "negative-rate",
        None,
        ["topology.bottleneck_rate=-1.5Mbit"],
        'topology.bottleneck_rate = "-1.5Mbit": must be > 0 bit/s',
    ),
    ("zero-rate-number", None, ["topology.access_rate=0"], "topology.access_rate = 0: must be > 0 bit/s"),
    # A bare number meant in other units is refused, saying how to write it.
    (
        "rate-meant-as-mbit",
        None,
        ["topology.bottleneck_rate=1.5"],
        'topology.bottleneck_rate = 1.5: must be >= 1000 bit/s (a bare number is bit/s: 1.5 Mbit/s is "1.5Mbit")',
    ),
    (
        "delay-meant-as-ms",
        None,
        ["topology.bottleneck_delay=20"],
        'topology.bottleneck_delay = 20: must be <= 10 s (a bare number is seconds: 20 ms is "20ms")',
    ),
    (
        "duration-beyond-u64",
        None,
        ["duration=1e30"],
        "duration = 1e+30: must be at most 18446744073709551615 ns (about 584 years)",
    ),
    (
        "bad-rate-unit",
        None,
        ["topology.bottleneck_rate=1.5Mbyte"],
        'topology.bottleneck_rate = "1.5Mbyte": not a rate (use a number of bit/s or a string like '
        '"1.5Mbit", "10Mbps", "100kbit", "1Gbit")',
    ),
    ("negative-delay", None, ["topology.access_delay=-1ms"], 'topology.access_delay = "-1ms": must be >= 0'),
    (
        "bad-duration-unit",
        None,
        ["duration=5parsecs"],
        'duration = "5parsecs": not a duration (use a number of seconds or a string like "20ms", "1.5s", '
        '"100us"; units: ns, us, ms, s)',
    ),
    ("zero-duration", None, ["duration=0"], "duration = 0: must be > 0"),
    ("warmup-too-long", None, ["warmup=5s"], 'warmup = "5s": must be shorter than duration'),
    (
        "unknown-queue-kind",
        None,
        ["topology.bottleneck_queue.kind=blue"],
        'topology.bottleneck_queue.kind = "blue": must be one of droptail, red, red_star, pi, codel, fq_codel, '
        "pie, dualpi2, ared, step",
    ),
    (
        "unknown-tcp-variant",
        None,
        ["tcp.variant=cubic"],
        'tcp.variant = "cubic": must be one of tahoe, reno, newreno, sack',
    ),
    (
        "tcp-variant-typo",
        None,
        ['tcp.variant="renoo"'],
        'tcp.variant = "renoo": must be one of tahoe, reno, newreno, sack (did you mean "reno"?)',
    ),
    (
        "prague-feedback-unknown",
        None,
        ['tcp.prague_feedback="tcp"'],
        'tcp.prague_feedback = "tcp": must be one of accecn, dctcp (did you mean "dctcp"?)',
    ),
    (
        "prague-feedback-without-prague",
        None,
        ['tcp.prague_feedback="dctcp"'],
        'tcp.prague_feedback = "dctcp": must be accecn unless cc = prague',
    ),
    (
        "unknown-flow-kind",
        None,
        ["flows[0].kind=udp"],
        'flows[0].kind = "udp": must be one of bulk, serial, request_response, telnet, ftp_arrivals, web, incast',
    ),
    ("flow-missing-host", None, ["flows[0].to=r11"], f'flows[0].to = "r11": no such host ({HOSTS})'),
    (
        "flow-to-router",
        None,
        ["flows[0].to=R2"],
        f'flows[0].to = "R2": is a router; flows run between hosts ({HOSTS})',
    ),
    ("flow-glob-matches-nothing", None, ["flows[0].from=x*"], f'flows[0].from = "x*": matches no host ({HOSTS})'),
    (
        "flow-list-missing-host",
        None,
        ['flows[0].from=["s1", "s99"]', 'flows[0].to=["r1", "r2"]'],
        f'flows[0].from[1] = "s99": no such host ({HOSTS})',
    ),
    (
        "flow-lists-unequal",
        None,
        ['flows[0].to=["r1", "r2"]'],
        'flows[0].to = ["r1", "r2"]: names 2 hosts but from names 10 (lists and globs pair up in order; '
        "give equal lengths or a single host on one side)",
    ),
    (
        "flow-wrong-kind-key",
        None,
        ["flows[0].files=3"],
        'flows[0].files: unknown key for kind = "bulk" (allowed: '
        "bytes, count, from, initiator, kind, name, start, tcp, to)",
    ),
    ("flow-tcp-override", None, ["flows[0].tcp.mss=0"], "flows[0].tcp.mss = 0: must be in [64, 65495]"),
    (
        "serial-missing-files",
        None,
        ["flows[0].kind=serial", "flows[0].file_size=1MB"],
        "flows[0].files: required key is missing",
    ),
    (
        "bad-size",
        None,
        ["flows[0].bytes=20 parsecs"],
        'flows[0].bytes = "20 parsecs": not a size (use a number of '
        'bytes or a string like "1500B", "64KB", "20MB", "1MiB")',
    ),
    ("seed-wrong-type", None, ["seed=x"], 'seed = "x": must be an integer, not a string'),
    ("seed-negative", None, ["seed=-1"], "seed = -1: must be in [0, 18446744073709551615]"),
    (
        "host-override-missing",
        None,
        ["topology.hosts.s11.access_delay=5ms"],
        f"topology.hosts.s11: no such host ({HOSTS})",
    ),
    (
        "fault-missing-link",
        None,
        ['faults=[{link = "R1->R3", flow = "bulk0_1", action = "drop", nth = 3}]'],
        'faults[0].link = "R1->R3": no such link (no node "R3")',
    ),
    (
        "fault-link-not-adjacent",
        None,
        ['faults=[{link = "s1->r1", flow = "bulk0_1", action = "drop", nth = 3}]'],
        'faults[0].link = "s1->r1": no such link (s1 has no link to r1; links from s1: s1->R1)',
    ),
    (
        "fault-missing-flow",
        None,
        ['faults=[{link = "R1->R2", flow = "nope", action = "drop", nth = 3}]'],
        'faults[0].flow = "nope": no such flow (flows: bulk0_1..bulk0_10)',
    ),
    (
        "fault-both-nth-and-seq",
        None,
        ['faults=[{link = "R1->R2", flow = "bulk0_1", action = "mark", nth = 3, seq = 1}]'],
        "faults[0]: give exactly one of nth and seq",
    ),
    (
        "fault-neither-nth-nor-seq",
        None,
        ['faults=[{link = "R1->R2", flow = "bulk0_1", action = "mark"}]'],
        "faults[0]: give exactly one of nth and seq",
    ),
    (
        "impairment-unknown-action",
        None,
        ['impairments=[{link = "R1->R2", action = "bleech"}]'],
        'impairments[0].action = "bleech": must be one of bleach, ce_all, ect1_to_ect0, ect0_to_ect1, drop_ecn_syn, '
        'drop_ecn_synack, strip_accecn_option, zero_accecn_option, zero_ace, clear_ece (did you mean "bleach"?)',
    ),
    (
        "impairment-fraction-zero",
        None,
        ['impairments=[{link = "R1->R2", action = "ce_all", fraction = 0}]'],
        "impairments[0].fraction = 0: must be in (0, 1]",
    ),
    (
        "impairment-until-before-from",
        None,
        ['impairments=[{link = "R1->R2", action = "ce_all", from = "2s", until = "1s"}]'],
        'impairments[0].until = "1s": must be after from (2 s)',
    ),
    (
        "impairment-missing-flow",
        None,
        ['impairments=[{link = "R1->R2", action = "bleach", flows = ["bulk0_1", "nope"]}]'],
        'impairments[0].flows[1] = "nope": no such flow (flow ids: bulk0_1..bulk0_10)',
    ),
    (
        "impairment-missing-link",
        None,
        ['impairments=[{link = "R1->R3", action = "bleach"}]'],
        'impairments[0].link = "R1->R3": no such link (no node "R3")',
    ),
    ("pcap-missing-link", None, ['output.pcap=["R2->R3"]'], 'output.pcap[0] = "R2->R3": no such link (no node "R3")'),
    (
        "pcap-both-directions-missing-link",
        None,
        ['output.pcap=["R1<->R3"]'],
        'output.pcap[0] = "R1->R3": no such link (no node "R3")',
    ),
    (
        "pcap-link-captured-twice",
        None,
        ['output.pcap=["R1<->R2", "R2->R1"]'],
        'output.pcap[1] = "R2->R1": R2->R1 is captured by "R1<->R2" already',
    ),
    (
        "pcap-not-a-link-name",
        None,
        ['output.pcap="R1"'],
        'output.pcap = "R1": no such link (links are named "FROM->TO", e.g. "s1->R1")',
    ),
    (
        "limit-and-limit_bytes",
        None,
        ["topology.bottleneck_queue.limit_bytes=90000"],
        "topology.bottleneck_queue: give limit (packets) or limit_bytes, not both",
    ),
    ("set-without-equals", None, ["tcp.ecn"], "--set: expected KEY=VALUE, got 'tcp.ecn'"),
    ("set-bad-index", None, ["flows[3].count=2"], "--set flows[3].count: flows has 1 entries (index from 0)"),
    ("toml-syntax", ('duration = "5s"', "duration = "), [], "not valid TOML: Invalid value (at line 2, column 12)"),
]


@pytest.mark.parametrize(("edit", "sets", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_scenario_exits_2_with_one_line(
    tmp_path: Path, edit: tuple[str, str] | None, sets: list[str], message: str
) -> None:
    text = SMALL
    if edit is not None:
        assert edit[0] in text
        text = text.replace(edit[0], edit[1], 1)
    (tmp_path / "s.toml").write_text(text)
    args = ["run", "s.toml", "--out", "results/x"]
    for s in sets:
        args += ["--set", s]
    r = run_cli(*args, cwd=tmp_path)
    assert r.stderr == f"ecnlab: error: s.toml: {message}\n"
    assert r.returncode == 2
    assert r.stdout == ""
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "results").exists(), "a failed run must leave no output directory"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_validate_reports_the_same_line(tmp_path: Path, small: Path) -> None:
    r = run_cli("validate", "s.toml", "--set", "topology.bottleneck_queue.max_p=1.5", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "ecnlab: error: s.toml: topology.bottleneck_queue.max_p = 1.5: must be in (0, 1]\n"


def test_validate_ok(tmp_path: Path, small: Path) -> None:
    r = run_cli("validate", "s.toml", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == "s.toml: ok (22 nodes, 42 links, 10 flows, 0 faults)\n"


def test_missing_file(tmp_path: Path) -> None:
    r = run_cli("run", "nope.toml", "--out", "x", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr == "ecnlab: error: nope.toml: cannot read file: No such file or directory\n"
    assert not (tmp_path / "x").exists()


def test_out_dir_that_is_not_a_result_dir_is_refused(tmp_path: Path, small: Path) -> None:
    keep = tmp_path / "precious"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    r = run_cli("run", "s.toml", "--out", "precious", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr == (
        'ecnlab: error: s.toml: --out = "precious": exists and is not an ecnlab result directory (no summary.json)\n'
    )
    assert sorted(p.name for p in keep.iterdir()) == ["notes.txt"]


def test_seed_flag_must_be_an_integer(tmp_path: Path, small: Path) -> None:
    r = run_cli("run", "s.toml", "--out", "x", "--seed", "abc", cwd=tmp_path)
    assert r.returncode == 2
    assert "invalid int value" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "x").exists()


def test_validate_show_resolved_is_a_scenario_file(tmp_path: Path, small: Path) -> None:
    r = run_cli("validate", "s.toml", "--show", "resolved", "--set", "tcp.variant=sack", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "")
    (tmp_path / "resolved.toml").write_text(r.stdout)
    assert 'recovery = "sack"' in r.stdout and "mean_pkt_size = 1500" in r.stdout
    a = run_cli("validate", "resolved.toml", "--show", "engine", cwd=tmp_path)
    b = run_cli("validate", "s.toml", "--show", "engine", "--set", "tcp.variant=sack", cwd=tmp_path)
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout and '"duration_ns": 5000000000' in a.stdout


@pytest.mark.parametrize("command", ["run", "sweep"])
@pytest.mark.parametrize("where", ["file.txt/sub", "/proc/ecnlab-test-out"])
def test_out_that_cannot_be_written_is_one_line(tmp_path: Path, small: Path, command: str, where: str) -> None:
    """An --out under a file, or where nothing may be created, is an error line, not a traceback."""
    (tmp_path / "file.txt").write_text("not a directory\n")
    target = small if command == "run" else SCENARIOS / "sweep-red-ecn.toml"
    r = run_cli(command, str(target), "--out", where, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert f'--out = "{where}": cannot be written (' in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt", "s.toml"]


def test_no_arguments_lists_the_commands(tmp_path: Path) -> None:
    r = run_cli(cwd=tmp_path)
    assert r.returncode == 2
    for command in ("run", "validate", "sweep", "reproduce", "emulate", "compare", "bench"):
        assert f"\n    {command}" in r.stderr, r.stderr


def test_too_many_flows_is_refused_before_expanding(tmp_path: Path) -> None:
    """Pairs and count are each capped, and so is their product (no minutes-long validate)."""
    text = SMALL.replace("pairs = 10", "pairs = 20000")
    assert text != SMALL
    (tmp_path / "s.toml").write_text(text)
    r = run_cli("validate", "s.toml", "--set", "flows[0].count=100000", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr == (
        "ecnlab: error: s.toml: flows[0].count = 100000: makes 2000000000 flows in all; "
        "a scenario has at most 1000000\n"
    )


def test_a_reader_that_goes_away_is_no_traceback(tmp_path: Path, small: Path) -> None:
    """`ecnlab run ... | head -1`: the pipe closes before the report is printed; the run still
    writes its results, says nothing more and exits 141 (128 + SIGPIPE), as a shell would."""
    import os
    import subprocess
    import sys

    from conftest import ROOT

    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    p = subprocess.Popen([sys.executable, "-m", "ecnlab", "run", str(small), "--out", "r"], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    assert p.stdout is not None and p.stderr is not None
    p.stdout.close()  # the reader is gone before anything is printed
    err = p.stderr.read().decode()
    p.stderr.close()
    assert p.wait(timeout=120) == 141 and err == "", err
    assert (tmp_path / "r" / "summary.json").is_file()


def test_compare_of_a_foreign_summary_is_one_line(tmp_path: Path) -> None:
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "summary.json").write_text('{"format_version": 1, "throughput": 12}')
    cli = run_cli("compare", "a", "b", cwd=tmp_path)
    assert cli.returncode == 2, cli.stderr
    assert cli.stderr == (
        "ecnlab: error: a: not a result directory (a/summary.json: not an ecnlab summary: "
        "'scenario' is missing or not a JSON object)\n"
    )


# Keys whose values contradict each other (docs/scenario.md, "Checks across keys"): (id, --set arguments,
# expected message after "FILE: ").
CROSS_CASES: list[tuple[str, list[str], str]] = [
    (
        "start-range-with-three-dots",
        ['flows[0].start="0s...2s"'],
        'flows[0].start = "0s...2s": not a range (use "A..B": two durations around two dots, e.g. "0s..2s")',
    ),
    (
        "time-series-without-sampling",
        ['output.timeseries_links=["R1->R2"]'],
        'output.timeseries_links = ["R1->R2"]: needs sample_interval > 0 (nothing is sampled without it)',
    ),
    (
        "dualpi2-typical-rtt-above-max-rtt",
        ['topology.bottleneck_queue={kind="dualpi2", typical_rtt="100ms", max_rtt="20ms"}'],
        'topology.bottleneck_queue.typical_rtt = "100ms": must be <= max_rtt (20ms)',
    ),
    (
        "red-max-th-above-limit",
        ["topology.bottleneck_queue.max_th=70"],
        'topology link "R1->R2" queue.max_th = 70: must be <= limit (60): the average queue never exceeds '
        "the limit (min_th at or above it turns RED off) (the engine's rule for links[20].queue.max_th)",
    ),
    (
        "pi-q-ref-at-limit",
        ['topology.bottleneck_queue={kind="pi", limit=50, q_ref=50, a=1.822e-5, b=1.816e-5}'],
        'topology link "R1->R2" queue.q_ref = 50: must be < limit (50): the queue never holds more than its '
        "limit (the engine's rule for links[20].queue.q_ref)",
    ),
    (
        "codel-target-above-interval",
        ['topology.bottleneck_queue={kind="codel", target="200ms", interval="100ms"}'],
        'topology.bottleneck_queue.target = "200ms": must be <= interval (RFC 8289 §4.3: 5-10 % of it)',
    ),
    (
        "step-threshold-at-limit",
        ['topology.bottleneck_queue={kind="step", limit=20, threshold=20}'],
        "topology.bottleneck_queue.threshold = 20: must be < limit (20): a full queue drops the arrival, "
        "so it never marks",
    ),
    (
        "step-bytes-above-limit",
        ['topology.bottleneck_queue={kind="step", limit_bytes="30KB", threshold_bytes="40KB"}'],
        'topology.bottleneck_queue.threshold_bytes = "40KB": must be < limit_bytes (30000): a full queue drops '
        "the arrival, so it never marks",
    ),
    (
        "ared-max-th-above-limit",
        ['topology.bottleneck_queue={kind="ared", limit=50, min_th=10, max_th=60}'],
        "topology.bottleneck_queue.max_th = 60: must be <= limit (50): the average queue never exceeds the limit",
    ),
    (
        "dualpi2-step-packets-at-limit",
        ['topology.bottleneck_queue={kind="dualpi2", limit=10, step_thresh_pkts=10}'],
        "topology.bottleneck_queue.step_thresh_pkts = 10: must be < limit (10): a full queue drops the arrival first",
    ),
]


@pytest.mark.parametrize(("overrides", "message"), [c[1:] for c in CROSS_CASES], ids=[c[0] for c in CROSS_CASES])
def test_contradicting_keys_are_refused_in_one_line(
    tmp_path: Path, small: Path, overrides: list[str], message: str
) -> None:
    args = [a for o in overrides for a in ("--set", o)]
    r = run_cli("run", str(small), *args, "--out", "r", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr == f"ecnlab: error: {small}: {message}\n"
    assert not (tmp_path / "r").exists()


def test_plot_of_a_directory_that_is_no_sweep_names_it_once(tmp_path: Path) -> None:
    cli = run_cli("plot", "nothing", "--x", "max_p", "--y", "goodput_bps", cwd=tmp_path)
    assert cli.returncode == 2
    assert cli.stderr == "ecnlab: error: nothing: not an ecnlab sweep directory (no manifest.json)\n"
