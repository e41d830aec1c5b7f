"""The ecnlab benchmark dumbbell for ns-3 (PyPI ``ns3``, Python bindings via cppyy).

Usage: python ns3_dumbbell.py PARAMS.json   (run it from a small directory:
the ns-3 loader scans the working directory for shared libraries)

PARAMS.json is generated from an ecnlab scenario by ``ecnlab.bench.ns3``
(``ecnlab bench peers`` writes it; never edit it by hand). N NewReno bulk flows
s_i -> r_i through R1 -> R2 (rate R, delay D, RedQueueDisc with ECN), access
links 10xR / 1 ms. Prints one JSON line: per-flow goodput after the warm-up,
Jain's index, bottleneck utilisation, marks, early/forced/overflow drops,
set-up time (import + build) apart from ``Simulator::Run`` time, peak memory.

Like-for-like settings (docs/performance.md): NewReno with classic recovery, MSS
from the scenario, timestamps off (else 1460-byte segments exceed the MTU and
are fragmented), ECN on, min RTO / initial RTO / delayed ACKs from the
scenario, no queue disc except RED at the bottleneck, whose device queue
holds one packet so the queue disc is the real queue. Retransmissions and
timeouts are not counted (per-packet callbacks would have to be C++).
"""

import json
import sys
import time

T0 = time.perf_counter()
from ns import ns  # noqa: E402  (10-20 s: part of the set-up time)

P = json.load(open(sys.argv[1]))


def vmhwm_mib() -> float:
    """Peak resident memory of this process (VmHWM; ru_maxrss would include the pre-exec parent)."""
    status = open("/proc/self/status").read()
    return int(status.split("VmHWM:")[1].split()[0]) / 1024.0


def defaults() -> None:
    sd, v = ns.Config.SetDefault, ns
    sd("ns3::TcpL4Protocol::SocketType", v.StringValue("ns3::TcpNewReno"))
    sd("ns3::TcpL4Protocol::RecoveryType", v.TypeIdValue(v.TypeId.LookupByName("ns3::TcpClassicRecovery")))
    sd("ns3::TcpSocket::SegmentSize", v.UintegerValue(P["mss"]))
    sd("ns3::TcpSocket::InitialCwnd", v.UintegerValue(P["init_cwnd"]))
    sd("ns3::TcpSocket::DelAckCount", v.UintegerValue(2 if P["delayed_ack"] else 1))
    sd("ns3::TcpSocket::DelAckTimeout", v.TimeValue(v.Seconds(P["delack_timeout"])))
    sd("ns3::TcpSocket::RcvBufSize", v.UintegerValue(P["rwnd_bytes"]))
    sd("ns3::TcpSocket::SndBufSize", v.UintegerValue(max(P["rwnd_bytes"], 1 << 20)))
    sd("ns3::TcpSocket::ConnTimeout", v.TimeValue(v.Seconds(P["initial_rto"])))
    sd("ns3::TcpSocketBase::MinRto", v.TimeValue(v.Seconds(P["min_rto"])))
    sd("ns3::TcpSocketBase::ClockGranularity", v.TimeValue(v.Seconds(P["clock_granularity"])))
    sd("ns3::TcpSocketBase::Timestamp", v.BooleanValue(False))
    sd("ns3::TcpSocketBase::UseEcn", v.StringValue("On" if P["ecn"] else "Off"))
    sd("ns3::RttEstimator::InitialEstimation", v.TimeValue(v.Seconds(P["initial_rto"])))
    sd("ns3::TcpSocket::DataRetries", v.UintegerValue(100))
    ns.RngSeedManager.SetSeed(1 + int(P["seed"]))


def link(a, b, rate_bps, delay_s, qlen):
    """A point-to-point link whose device queues hold ``qlen`` packets each."""
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(int(rate_bps))))
    p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(delay_s)))
    ns.Config.SetDefault("ns3::DropTailQueue<Packet>::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{qlen}p")))
    return p2p.Install(a, b)


def red_helper():
    tch = ns.TrafficControlHelper()
    sd = ns.Config.SetDefault
    sd("ns3::RedQueueDisc::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{P['limit']}p")))
    sd("ns3::RedQueueDisc::MinTh", ns.DoubleValue(P["min_th"]))
    sd("ns3::RedQueueDisc::MaxTh", ns.DoubleValue(P["max_th"]))
    sd("ns3::RedQueueDisc::LInterm", ns.DoubleValue(1.0 / P["max_p"]))
    sd("ns3::RedQueueDisc::QW", ns.DoubleValue(P["wq"]))
    sd("ns3::RedQueueDisc::Gentle", ns.BooleanValue(P["gentle"]))
    sd("ns3::RedQueueDisc::Wait", ns.BooleanValue(P["wait"]))
    sd("ns3::RedQueueDisc::UseEcn", ns.BooleanValue(P["red_ecn"]))
    sd("ns3::RedQueueDisc::UseHardDrop", ns.BooleanValue(True))
    sd("ns3::RedQueueDisc::MeanPktSize", ns.UintegerValue(P["mean_pkt_size"]))
    sd("ns3::RedQueueDisc::LinkBandwidth", ns.DataRateValue(ns.DataRate(int(P["rate_bps"]))))
    sd("ns3::RedQueueDisc::LinkDelay", ns.TimeValue(ns.Seconds(P["delay_s"])))
    tch.SetRootQueueDisc("ns3::RedQueueDisc")
    return tch


def build():
    defaults()
    routers = ns.NodeContainer()
    routers.Create(2)
    senders, receivers = ns.NodeContainer(), ns.NodeContainer()
    senders.Create(P["pairs"])
    receivers.Create(P["pairs"])
    stack = ns.InternetStackHelper()
    for c in (routers, senders, receivers):
        stack.Install(c)
    r1, r2 = routers.Get(0), routers.Get(1)
    addr = ns.Ipv4AddressHelper()
    tch_none = ns.TrafficControlHelper()
    # Bottleneck: device queues of one packet, so the queue discs are the real
    # queues: RED on R1's side, a FIFO of reverse_limit packets on R2's (the
    # ACKs' way back, as ecnlab's reverse_queue and ns-2's R2->R1 DropTail).
    bott = link(r1, r2, P["rate_bps"], P["delay_s"], 1)
    addr.SetBase(ns.Ipv4Address("10.255.0.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(bott)
    tch_none.Uninstall(bott)
    qdiscs = red_helper().Install(bott.Get(0))
    ns.Config.SetDefault("ns3::FifoQueueDisc::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{P['reverse_limit']}p")))
    fifo = ns.TrafficControlHelper()
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc")
    fifo.Install(bott.Get(1))
    sink_addr = []
    for i in range(P["pairs"]):
        for k, (a, b) in enumerate(((senders.Get(i), r1), (r2, receivers.Get(i)))):
            devs = link(a, b, P["access_rate_bps"], P["access_delay_s"], P["access_limit"])
            addr.SetBase(ns.Ipv4Address(f"10.{k}.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
            ifs = addr.Assign(devs)
            tch_none.Uninstall(devs)
            if k == 1:
                sink_addr.append(ifs.GetAddress(1))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    sinks = []
    for f, (i, start) in enumerate(zip(P["flow_pairs"], P["flow_starts"], strict=False)):
        port = 5000 + f
        local = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        sink_apps = ns.PacketSinkHelper("ns3::TcpSocketFactory", local).Install(receivers.Get(i))
        sink_apps.Start(ns.Seconds(0.0))
        sinks.append(sink_apps.Get(0).GetObject[ns.PacketSink]())
        remote = ns.InetSocketAddress(sink_addr[i], port).ConvertTo()
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", remote)
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(P["mss"]))
        apps = bulk.Install(senders.Get(i))
        apps.Start(ns.Seconds(start))
    return qdiscs.Get(0), sinks


def main() -> None:
    qdisc, sinks = build()
    setup_s = time.perf_counter() - T0
    t_run = time.perf_counter()
    ns.Simulator.Stop(ns.Seconds(P["warmup"]))
    ns.Simulator.Run()
    rx0 = [s.GetTotalRx() for s in sinks]
    sent0 = qdisc.GetStats().nTotalSentBytes
    ns.Simulator.Stop(ns.Seconds(P["duration"] - P["warmup"]))
    ns.Simulator.Run()
    run_s = time.perf_counter() - t_run
    span = P["duration"] - P["warmup"]
    good = [(s.GetTotalRx() - r0) * 8.0 / span for s, r0 in zip(sinks, rx0, strict=False)]
    st = qdisc.GetStats()
    util = (st.nTotalSentBytes - sent0) * 8.0 / (P["rate_bps"] * span)
    total, sq = sum(good), sum(g * g for g in good)
    drops = {str(k): int(v) for k, v in st.nDroppedPacketsBeforeEnqueue}
    marks = sum(int(v) for _, v in st.nMarkedPackets)
    print(
        json.dumps(
            {
                "tool": "ns-3",
                "goodput_bps": [round(g, 1) for g in good],
                "jain": total * total / (len(good) * sq) if sq else 0.0,
                "utilisation": util,
                "marks": marks,
                "early_drops": drops.get("Unforced drop", 0),
                "forced_drops": drops.get("Forced drop", 0),
                "overflow_drops": drops.get("Dropped by internal queue", 0),
                "drop_reasons": drops,
                "retransmits": None,
                "timeouts": None,
                "bottleneck_packets": int(st.nTotalSentPackets),
                "setup_s": setup_s,
                "run_s": run_s,
                "peak_rss_mib": vmhwm_mib(),
            }
        ),
        flush=True,
    )
    ns.Simulator.Destroy()


if __name__ == "__main__":
    main()
