// The ecnlab benchmark dumbbell for ns-3 in C++ (Debian libns3-dev, ns-3.37).
//
// Usage: ns3_dumbbell PARAMS.txt
//
// PARAMS.txt is generated from an ecnlab scenario by ecnlab.bench.ns3cxx
// (`ecnlab bench peers` writes it and compiles this file; never edit it by
// hand): one "key value..." line per parameter, lists as space-separated
// values. The scenario is the one of ns3_dumbbell.py (the Python-bindings
// version), built with the same helpers and attributes: N NewReno bulk flows
// s_i -> r_i through R1 -> R2 (rate R, delay D, RedQueueDisc with ECN), access
// links 10xR / 1 ms. Prints one JSON line: per-flow goodput after the warm-up,
// Jain's index, bottleneck utilisation, marks, early/forced/overflow drops,
// retransmitted data segments, retransmission timeouts, set-up time (building
// the topology) apart from Simulator::Run time, peak memory (VmHWM).
//
// Being C++, this version can count what the Python bindings cannot without
// per-packet callbacks: retransmissions (a data segment whose end is not
// beyond the highest sequence its socket has sent, from TcpSocketBase's "Tx"
// trace) and timeouts (every call of the congestion control's
// CongestionStateSet(CA_LOSS), which TcpSocketBase::ReTxTimeout makes on each
// expiry of the retransmission timer of an established connection).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "ns3_params.h"
#include "ns3_topology.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

using Clock = std::chrono::steady_clock;

double
VmHwmMib()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
    {
        if (line.rfind("VmHWM:", 0) == 0)
        {
            return std::stod(line.substr(6)) / 1024.0;
        }
    }
    return 0.0;
}

// ---- counters: retransmissions and timeouts ----------------------------------------

uint64_t g_retransmits = 0;
uint64_t g_timeouts = 0;
std::unordered_map<const TcpSocketBase*, SequenceNumber32> g_highestEnd;

// A data segment is a retransmission when it ends at or below the highest
// sequence its socket has already sent.
void
OnTx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> socket)
{
    uint32_t len = packet->GetSize();
    if (len == 0)
    {
        return;
    }
    SequenceNumber32 end = header.GetSequenceNumber() + len;
    auto it = g_highestEnd.find(PeekPointer(socket));
    if (it == g_highestEnd.end())
    {
        g_highestEnd.emplace(PeekPointer(socket), end);
    }
    else if (end <= it->second)
    {
        ++g_retransmits;
    }
    else
    {
        it->second = end;
    }
}

} // namespace

namespace ns3
{

// NewReno that counts retransmission timeouts: ReTxTimeout calls
// CongestionStateSet(CA_LOSS) on every expiry, also when the connection is
// already in CA_LOSS (a backed-off retransmission timing out again).
class CountingNewReno : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::EcnlabCountingNewReno")
                                .SetParent<TcpNewReno>()
                                .SetGroupName("Internet")
                                .AddConstructor<CountingNewReno>();
        return tid;
    }

    CountingNewReno() = default;

    CountingNewReno(const CountingNewReno& other) = default;

    std::string GetName() const override
    {
        return "EcnlabCountingNewReno";
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override
    {
        if (newState == TcpSocketState::CA_LOSS)
        {
            ++g_timeouts;
        }
        TcpNewReno::CongestionStateSet(tcb, newState);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<CountingNewReno>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(CountingNewReno);

} // namespace ns3

namespace
{

// ---- scenario ----------------------------------------------------------------------

void
SetTcpDefaults(const Params& P)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       StringValue("ns3::EcnlabCountingNewReno"));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpClassicRecovery")));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(P.Num("mss")));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(P.Num("init_cwnd")));
    Config::SetDefault("ns3::TcpSocket::DelAckCount",
                       UintegerValue(P.Flag("delayed_ack") ? 2 : 1));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Seconds(P.Num("delack_timeout"))));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(P.Num("rwnd_bytes")));
    Config::SetDefault("ns3::TcpSocket::SndBufSize",
                       UintegerValue(std::max(P.Num("rwnd_bytes"), double(1 << 20))));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(P.Num("initial_rto"))));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(P.Num("min_rto"))));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity",
                       TimeValue(Seconds(P.Num("clock_granularity"))));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue(P.Flag("ecn") ? "On" : "Off"));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation",
                       TimeValue(Seconds(P.Num("initial_rto"))));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(100));
    RngSeedManager::SetSeed(1 + uint32_t(P.Num("seed")));
}

TrafficControlHelper
RedHelper(const Params& P)
{
    std::string red = "ns3::RedQueueDisc::";
    Config::SetDefault(red + "MaxSize", QueueSizeValue(QueueSize(P.Values("limit")[0] + "p")));
    Config::SetDefault(red + "MinTh", DoubleValue(P.Num("min_th")));
    Config::SetDefault(red + "MaxTh", DoubleValue(P.Num("max_th")));
    Config::SetDefault(red + "LInterm", DoubleValue(1.0 / P.Num("max_p")));
    Config::SetDefault(red + "QW", DoubleValue(P.Num("wq")));
    Config::SetDefault(red + "Gentle", BooleanValue(P.Flag("gentle")));
    Config::SetDefault(red + "Wait", BooleanValue(P.Flag("wait")));
    Config::SetDefault(red + "UseEcn", BooleanValue(P.Flag("red_ecn")));
    Config::SetDefault(red + "UseHardDrop", BooleanValue(true));
    Config::SetDefault(red + "MeanPktSize", UintegerValue(P.Num("mean_pkt_size")));
    Config::SetDefault(red + "LinkBandwidth", DataRateValue(DataRate(uint64_t(P.Num("rate_bps")))));
    Config::SetDefault(red + "LinkDelay", TimeValue(Seconds(P.Num("delay_s"))));
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::RedQueueDisc");
    return tch;
}

void
HookSocket(Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    if (s)
    {
        s->TraceConnectWithoutContext("Tx", MakeCallback(&OnTx));
    }
}

struct Built
{
    Ptr<QueueDisc> red;
    std::vector<Ptr<PacketSink>> sinks;
};

Built
Build(const Params& P)
{
    SetTcpDefaults(P);
    // Bottleneck queue discs: RED on R1's side, a FIFO of reverse_limit packets
    // on R2's (the ACKs' way back, as ecnlab's reverse_queue and ns-2's R2->R1
    // DropTail); the device queues of one packet make them the real queues.
    QueueDiscContainer red;
    Dumbbell d = BuildDumbbell(P, uint32_t(P.Num("access_limit")), [&](NetDeviceContainer& bott) {
        red = RedHelper(P).Install(bott.Get(0));
        TrafficControlHelper fifo;
        fifo.SetRootQueueDisc("ns3::FifoQueueDisc",
                              "MaxSize",
                              QueueSizeValue(QueueSize(P.Values("reverse_limit")[0] + "p")));
        fifo.Install(bott.Get(1));
    });
    Built built;
    built.red = red.Get(0);
    const auto& flowPairs = P.Values("flow_pairs");
    const auto& flowStarts = P.Values("flow_starts");
    for (size_t f = 0; f < flowPairs.size(); ++f)
    {
        uint32_t i = std::stoul(flowPairs[f]);
        double start = std::stod(flowStarts[f]);
        uint16_t port = uint16_t(5000 + f);
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApps = sinkHelper.Install(d.receivers.Get(i));
        sinkApps.Start(Seconds(0.0));
        built.sinks.push_back(DynamicCast<PacketSink>(sinkApps.Get(0)));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(d.sinkAddr[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(P.Num("mss")));
        ApplicationContainer apps = bulk.Install(d.senders.Get(i));
        apps.Start(Seconds(start));
        // The socket exists once the application has started; no data leaves
        // before the handshake's round trip, so 1 ns later misses nothing.
        Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(apps.Get(0));
        Simulator::Schedule(Seconds(start) + NanoSeconds(1), &HookSocket, app);
    }
    return built;
}

uint64_t
DropsOf(const QueueDisc::Stats& st, const char* reason)
{
    auto it = st.nDroppedPacketsBeforeEnqueue.find(reason);
    return it == st.nDroppedPacketsBeforeEnqueue.end() ? 0 : it->second;
}

void
PrintResult(const Params& P,
            const Built& b,
            const std::vector<uint64_t>& rx0,
            uint64_t sent0,
            double setupS,
            double runS)
{
    double span = P.Num("duration") - P.Num("warmup");
    std::vector<double> good;
    double total = 0;
    double sq = 0;
    for (size_t f = 0; f < b.sinks.size(); ++f)
    {
        double g = double(b.sinks[f]->GetTotalRx() - rx0[f]) * 8.0 / span;
        good.push_back(g);
        total += g;
        sq += g * g;
    }
    const QueueDisc::Stats& st = b.red->GetStats();
    double util = double(st.nTotalSentBytes - sent0) * 8.0 / (P.Num("rate_bps") * span);
    uint64_t marks = 0;
    for (const auto& kv : st.nMarkedPackets)
    {
        marks += kv.second;
    }
    std::ostringstream out;
    out.precision(10);
    out << "{\"tool\": \"ns-3 C++\", \"goodput_bps\": [";
    for (size_t f = 0; f < good.size(); ++f)
    {
        out << (f ? ", " : "") << good[f];
    }
    out << "], \"jain\": " << (sq > 0 ? total * total / (double(good.size()) * sq) : 0.0)
        << ", \"utilisation\": " << util << ", \"marks\": " << marks
        << ", \"early_drops\": " << DropsOf(st, RedQueueDisc::UNFORCED_DROP)
        << ", \"forced_drops\": " << DropsOf(st, RedQueueDisc::FORCED_DROP)
        << ", \"overflow_drops\": " << DropsOf(st, QueueDisc::INTERNAL_QUEUE_DROP)
        << ", \"retransmits\": " << g_retransmits << ", \"timeouts\": " << g_timeouts
        << ", \"bottleneck_packets\": " << st.nTotalSentPackets << ", \"setup_s\": " << setupS
        << ", \"run_s\": " << runS << ", \"peak_rss_mib\": " << VmHwmMib() << "}";
    std::cout << out.str() << std::endl;
}

} // namespace

int
main(int argc, char** argv)
{
    auto t0 = Clock::now();
    if (argc != 2)
    {
        std::cerr << "usage: ns3_dumbbell PARAMS.txt" << std::endl;
        return 2;
    }
    Params P = ReadParams("ns3_dumbbell", argv[1]);
    Built b = Build(P);
    auto tRun = Clock::now();
    double setupS = std::chrono::duration<double>(tRun - t0).count();
    Simulator::Stop(Seconds(P.Num("warmup")));
    Simulator::Run();
    std::vector<uint64_t> rx0;
    for (const auto& s : b.sinks)
    {
        rx0.push_back(s->GetTotalRx());
    }
    uint64_t sent0 = b.red->GetStats().nTotalSentBytes;
    Simulator::Stop(Seconds(P.Num("duration") - P.Num("warmup")));
    Simulator::Run();
    double runS = std::chrono::duration<double>(Clock::now() - tRun).count();
    PrintResult(P, b, rx0, sent0, setupS, runS);
    Simulator::Destroy();
    return 0;
}
