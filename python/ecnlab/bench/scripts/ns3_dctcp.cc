// ns-3's TcpDctcp on a step-marked dumbbell (Debian libns3-dev, ns-3.37), the
// peer of `ecnlab bench dctcp-ns3` (python/ecnlab/bench/dctcp.py, docs/senders.md).
//
// Usage: ns3_dctcp PARAMS.txt
//
// PARAMS.txt is written by ecnlab.bench.dctcp from an ecnlab scenario: one
// "key value..." line per parameter. N TcpDctcp bulk flows s_i -> r_i through
// R1 -> R2 (rate R, delay D); access links of their own rate and delay; the
// bottleneck queue is a RedQueueDisc used as DCTCP's step marker: MinTh = MaxTh
// = K, QW = 1 (the instantaneous queue), UseEcn, UseHardDrop false, Gentle
// false (ns-3's examples/tcp/dctcp-example.cc uses the same QW and flags with
// MinTh < MaxTh). Timestamps off (1500-byte packets), classic recovery
// (cwnd = ssthresh after a reduction, as ecnlab), FqCoDel uninstalled from every
// other device and device queues of one packet.
//
// Prints one JSON line, measured after the warm-up: per-flow goodput, the
// bottleneck's time-weighted average queue (packets, from the queue disc's
// PacketsInQueue trace), its marks and drops, and the mean α of the senders
// sampled every alpha_sample_s (from TcpDctcp's CongestionEstimate trace: α
// after each observation window, held between updates).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "ns3_params.h"
#include "ns3_topology.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// ---- the bottleneck queue's time-weighted length ------------------------------------

struct QueueArea
{
    bool on = false;
    double since = 0;
    double last = 0;
    uint32_t len = 0;
    double area = 0;
} g_q;

void
OnQueueLen(uint32_t, uint32_t now)
{
    double t = Simulator::Now().GetSeconds();
    if (g_q.on)
    {
        g_q.area += double(g_q.len) * (t - g_q.last);
    }
    g_q.last = t;
    g_q.len = now;
}

// ACKs reaching the senders after the warm-up, and those with ECE (the
// receivers' DCTCP feedback, to set beside the queue's marks).
// Bytes newly acknowledged, and those by ACKs with ECE: the F = marked/acked the
// senders should see (RFC 8257 §3.3), from the wire rather than from TcpDctcp.
struct AckCounts
{
    bool on = false;
    uint64_t bytes = 0;
    uint64_t ece_bytes = 0;
    std::map<const TcpSocketBase*, SequenceNumber32> last;
    // Per sender: bytes newly acknowledged and those by ACKs with ECE (which flows
    // hear of their marks).
    std::map<const TcpSocketBase*, std::pair<uint64_t, uint64_t>> per_sender;
} g_acks;

void
OnSenderRx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> socket)
{
    if (packet->GetSize() > 0 || !(header.GetFlags() & TcpHeader::ACK))
    {
        return;
    }
    SequenceNumber32 ack = header.GetAckNumber();
    auto it = g_acks.last.find(PeekPointer(socket));
    if (it == g_acks.last.end())
    {
        g_acks.last.emplace(PeekPointer(socket), ack);
        return;
    }
    if (ack <= it->second)
    {
        return;
    }
    uint64_t n = ack - it->second;
    it->second = ack;
    if (g_acks.on)
    {
        uint64_t ece = (header.GetFlags() & TcpHeader::ECE) ? n : 0;
        g_acks.bytes += n;
        g_acks.ece_bytes += ece;
        auto& mine = g_acks.per_sender[PeekPointer(socket)];
        mine.first += n;
        mine.second += ece;
    }
}

void
HookSocket(Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    if (s)
    {
        s->TraceConnectWithoutContext("Rx", MakeCallback(&OnSenderRx));
    }
}

std::string
PerSender()
{
    std::ostringstream o;
    bool first = true;
    for (const auto& [sock, counts] : g_acks.per_sender)
    {
        o << (first ? "" : ", ") << "[" << counts.first << ", " << counts.second << "]";
        first = false;
    }
    return o.str();
}

} // namespace

namespace ns3
{

// ssthresh_floor_segments > 0 (a diagnostic, 0 in the bench): ECN and loss reductions leave
// at least that many segments, as Linux's and ecnlab's two; stock TcpDctcp has no floor.
uint32_t g_ssthresh_floor_segments = 0;

// TcpDctcp that keeps the α of its last observation window (CongestionEstimate)
// so the program can sample every sender's α; every instance registers itself
// (a socket creates its own, a listening socket forks copies), and only those
// that process ACKs of data (the senders) are sampled.
class ProbedDctcp : public TcpDctcp
{
  public:
    static std::vector<ProbedDctcp*> all;

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::EcnlabProbedDctcp")
                                .SetParent<TcpDctcp>()
                                .SetGroupName("Internet")
                                .AddConstructor<ProbedDctcp>();
        return tid;
    }

    ProbedDctcp()
    {
        all.push_back(this);
    }

    ProbedDctcp(const ProbedDctcp& other)
        : TcpDctcp(other)
    {
        all.push_back(this);
    }

    ~ProbedDctcp() override
    {
        for (auto& p : all)
        {
            if (p == this)
            {
                p = nullptr;
            }
        }
    }

    std::string GetName() const override
    {
        return "EcnlabProbedDctcp";
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        uint32_t s = TcpDctcp::GetSsThresh(tcb, bytesInFlight);
        return std::max(s, g_ssthresh_floor_segments * tcb->m_segmentSize);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<ProbedDctcp>(this);
    }

    // The trace is connected at the first ACK a sender processes: in the
    // constructors the object's TypeId is not yet its own.
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override
    {
        if (!sender)
        {
            Connect();
            sender = true;
        }
        TcpDctcp::PktsAcked(tcb, segmentsAcked, rtt);
        cwnd_segments = double(tcb->m_cWnd.Get()) / tcb->m_segmentSize;
    }

    double alpha = 1.0; // DctcpAlphaOnInit
    double cwnd_segments = 0;
    bool sender = false;
    uint64_t windows = 0;
    // Per-sender samples after the warm-up (every alpha_sample_s): α, cwnd, and how
    // often cwnd was below two segments.
    double alpha_sum = 0, cwnd_sum = 0;
    uint64_t samples = 0, below_two = 0;

  private:
    void Connect()
    {
        if (!TraceConnectWithoutContext("CongestionEstimate", MakeCallback(&ProbedDctcp::OnEstimate, this)))
        {
            std::cerr << "ns3_dctcp: TcpDctcp has no CongestionEstimate trace" << std::endl;
            std::exit(2);
        }
    }

    void OnEstimate(uint32_t, uint32_t, double a)
    {
        alpha = a;
        ++windows;
    }
};

std::vector<ProbedDctcp*> ProbedDctcp::all;

NS_OBJECT_ENSURE_REGISTERED(ProbedDctcp);

} // namespace ns3

namespace
{

struct AlphaSamples
{
    double sum = 0;
    uint64_t n = 0;
} g_alpha;

void
SampleAlpha(double every)
{
    for (auto* p : ProbedDctcp::all)
    {
        if (p != nullptr && p->sender)
        {
            g_alpha.sum += p->alpha;
            ++g_alpha.n;
            p->alpha_sum += p->alpha;
            p->cwnd_sum += p->cwnd_segments;
            p->below_two += p->cwnd_segments < 2.0;
            ++p->samples;
        }
    }
    Simulator::Schedule(Seconds(every), &SampleAlpha, every);
}

void
SetTcpDefaults(const Params& P)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::EcnlabProbedDctcp"));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpClassicRecovery")));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(P.Num("mss")));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(P.Num("init_cwnd")));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Seconds(P.Num("delack_timeout"))));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(P.Num("rwnd_bytes")));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(P.Num("rwnd_bytes")));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(P.Num("initial_rto"))));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(P.Num("min_rto"))));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity",
                       TimeValue(Seconds(P.Num("clock_granularity"))));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(P.Num("initial_rto"))));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(100));
    Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(P.Num("g")));
    RngSeedManager::SetSeed(1 + uint32_t(P.Num("seed")));
}

TrafficControlHelper
StepHelper(const Params& P)
{
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::RedQueueDisc",
                         "MaxSize", QueueSizeValue(QueueSize(P.Values("limit")[0] + "p")),
                         "MinTh", DoubleValue(P.Num("k")),
                         "MaxTh", DoubleValue(P.Num("k")),
                         "QW", DoubleValue(1.0),
                         "UseEcn", BooleanValue(true),
                         "UseHardDrop", BooleanValue(false),
                         "Gentle", BooleanValue(false),
                         "MeanPktSize", UintegerValue(P.Num("mss") + 40),
                         "LinkBandwidth", DataRateValue(DataRate(uint64_t(P.Num("rate_bps")))),
                         "LinkDelay", TimeValue(Seconds(P.Num("delay_s"))));
    return tch;
}

struct Built
{
    Ptr<QueueDisc> step;
    std::vector<Ptr<PacketSink>> sinks;
};

Built
Build(const Params& P)
{
    SetTcpDefaults(P);
    Built built;
    Dumbbell d = BuildDumbbell(P, 1, [&](NetDeviceContainer& bott) {
        built.step = StepHelper(P).Install(bott.Get(0)).Get(0);
        TrafficControlHelper fifo;
        fifo.SetRootQueueDisc("ns3::FifoQueueDisc",
                              "MaxSize",
                              QueueSizeValue(QueueSize(P.Values("limit")[0] + "p")));
        fifo.Install(bott.Get(1));
    });
    uint32_t pairs = uint32_t(P.Num("pairs"));
    const auto& starts = P.Values("flow_starts");
    for (uint32_t i = 0; i < pairs; ++i)
    {
        uint16_t port = uint16_t(5000 + i);
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApps = sinkHelper.Install(d.receivers.Get(i));
        sinkApps.Start(Seconds(0.0));
        built.sinks.push_back(DynamicCast<PacketSink>(sinkApps.Get(0)));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(d.sinkAddr[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(P.Num("mss")));
        ApplicationContainer apps = bulk.Install(d.senders.Get(i));
        double start = std::stod(starts.at(i));
        apps.Start(Seconds(start));
        // The socket exists once the application has started.
        Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(apps.Get(0));
        Simulator::Schedule(Seconds(start) + NanoSeconds(1), &HookSocket, app);
    }
    built.step->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLen));
    return built;
}

template <typename M>
uint64_t
Count(const M& m)
{
    uint64_t n = 0;
    for (const auto& kv : m)
    {
        n += kv.second;
    }
    return n;
}

} // namespace

// Per sending TcpDctcp: [mean α, mean cwnd (segments), share of samples with cwnd < 2 segments].
std::string
PerCc()
{
    std::ostringstream o;
    bool first = true;
    for (auto* p : ProbedDctcp::all)
    {
        if (p != nullptr && p->sender && p->samples > 0)
        {
            double n = double(p->samples);
            o << (first ? "" : ", ") << "[" << p->alpha_sum / n << ", " << p->cwnd_sum / n << ", "
              << double(p->below_two) / n << "]";
            first = false;
        }
    }
    return o.str();
}

int
main(int argc, char** argv)
{
    auto t0 = std::chrono::steady_clock::now();
    if (argc != 2)
    {
        std::cerr << "usage: ns3_dctcp PARAMS.txt" << std::endl;
        return 2;
    }
    Params P = ReadParams("ns3_dctcp", argv[1]);
    g_ssthresh_floor_segments = uint32_t(P.Num("ssthresh_floor_segments"));
    Built b = Build(P);
    double warmup = P.Num("warmup");
    double span = P.Num("duration") - warmup;
    Simulator::Stop(Seconds(warmup));
    Simulator::Run();
    std::vector<uint64_t> rx0;
    for (const auto& s : b.sinks)
    {
        rx0.push_back(s->GetTotalRx());
    }
    QueueDisc::Stats st0 = b.step->GetStats();
    g_q.on = true;
    g_acks.on = true;
    g_q.last = g_q.since = warmup;
    SampleAlpha(P.Num("alpha_sample_s"));
    Simulator::Stop(Seconds(span));
    Simulator::Run();
    OnQueueLen(0, g_q.len); // close the area at the end
    const QueueDisc::Stats& st = b.step->GetStats();
    std::ostringstream out;
    out.precision(10);
    out << "{\"tool\": \"ns-3 C++ TcpDctcp\", \"goodput_bps\": [";
    for (size_t f = 0; f < b.sinks.size(); ++f)
    {
        out << (f ? ", " : "") << double(b.sinks[f]->GetTotalRx() - rx0[f]) * 8.0 / span;
    }
    out << "], \"instances\": " << ProbedDctcp::all.size() << ", \"avg_qlen_pkts\": " << g_q.area / span
        << ", \"alpha_mean\": " << (g_alpha.n ? g_alpha.sum / double(g_alpha.n) : -1.0)
        << ", \"acked_bytes\": " << g_acks.bytes << ", \"ece_bytes\": " << g_acks.ece_bytes
        << ", \"per_sender\": [" << PerSender() << "], \"per_cc\": [" << PerCc() << "]"
        << ", \"marks\": " << Count(st.nMarkedPackets) - Count(st0.nMarkedPackets)
        << ", \"drops\": " << Count(st.nDroppedPacketsBeforeEnqueue) - Count(st0.nDroppedPacketsBeforeEnqueue)
        << ", \"arrivals\": " << st.nTotalReceivedPackets - st0.nTotalReceivedPackets
        << ", \"run_s\": " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << "}";
    std::cout << out.str() << std::endl;
    Simulator::Destroy();
    return 0;
}
