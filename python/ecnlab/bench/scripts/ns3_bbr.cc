// ns-3's TcpBbr on a dumbbell (Debian libns3-dev, ns-3.37), the peer of
// `ecnlab bench bbr-ns3` (python/ecnlab/bench/bbr.py, docs/model.md).
//
// Usage: ns3_bbr PARAMS.txt
//
// PARAMS.txt is written by ecnlab.bench.bbr from an ecnlab scenario: one
// "key value..." line per parameter. N TcpBbr bulk flows s_i -> r_i (ns-3's
// TcpBbr with its defaults, paced: TcpSocketState::EnablePacing; SACK on,
// timestamps off) through R1 -> R2 (rate R, delay D). The bottleneck queue is
// `queue`: "fifo", a FifoQueueDisc of limit - 1 packets (with the device queue
// of one packet, `limit` packets wait, as in ecnlab's queue, which does not
// count the packet in transmission), or "fq_codel", an FqCoDelQueueDisc of
// ecnlab's limit, flows, quantum, target and interval, ECN off. R2 -> R1 is a
// FIFO of reverse_limit packets; access links are fast, their device queues
// access_limit packets.
//
// Prints one JSON line, measured after the warm-up: per-flow goodput (bytes
// received by each sink), the bottleneck's packet sojourn (from the queue
// disc's enqueue to the start of its transmission on the bottleneck link,
// PointToPointNetDevice's PhyTxBegin: the wait in the queue disc and in the
// device queue; ecnlab's sojourn also ends where transmission starts) as mean
// and 99th percentile over packets that start transmission after the warm-up,
// the queue disc's drops (before enqueue and after dequeue), the senders'
// retransmitted data segments, and each sender's mean cwnd in segments sampled
// every cwnd_sample_s.
//
// ack_elapsed_fix (the bench runs each point without and with it) hands TcpBbr each rate sample
// with its ACK phase measured as Linux's tcp_rate_gen does, from the delivered
// segment's own delivered-time stamp (ns-3.37's TcpRateLinux::SkbDelivered takes
// the previous sample's, 0 after an invalid sample; ns-3 bug 1026, fixed in
// ns-3.41), and an interval below the min RTT as no sample, as bbr_update_bw skips it.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "ns3_params.h"
#include "ns3_topology.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

// ---- sojourn: queue disc enqueue -> start of transmission ----------------------------

bool g_measuring = false;
std::unordered_map<uint64_t, Time> g_enqueued; // packet uid -> queue disc enqueue time
std::vector<double> g_sojourn_s;

// The root queue disc's Dequeue trace carries the item's enqueue time stamp.
void
OnDequeue(Ptr<const QueueDiscItem> item)
{
    g_enqueued[item->GetPacket()->GetUid()] = item->GetTimeStamp();
}

void
OnTxBegin(Ptr<const Packet> packet)
{
    auto it = g_enqueued.find(packet->GetUid());
    if (it == g_enqueued.end())
    {
        return;
    }
    if (g_measuring)
    {
        g_sojourn_s.push_back((Simulator::Now() - it->second).GetSeconds());
    }
    g_enqueued.erase(it);
}

// ---- senders: retransmissions and cwnd -----------------------------------------------

struct Sender
{
    SequenceNumber32 highestEnd{0};
    bool sent = false;
    uint64_t retransmits = 0;
    uint32_t cwnd = 0;
    double cwndSum = 0;
    uint64_t samples = 0;
};

std::vector<Sender> g_senders;

// A data segment is a retransmission when it ends at or below the highest sequence
// its socket has already sent (as ns3_dumbbell.cc counts them).
void
OnTx(size_t f, Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    uint32_t len = packet->GetSize();
    if (len == 0)
    {
        return;
    }
    Sender& s = g_senders[f];
    SequenceNumber32 end = header.GetSequenceNumber() + len;
    if (s.sent && end <= s.highestEnd)
    {
        s.retransmits += g_measuring;
    }
    else
    {
        s.highestEnd = end;
        s.sent = true;
    }
}

void
OnCwnd(size_t f, uint32_t, uint32_t now)
{
    g_senders[f].cwnd = now;
}

void
HookSocket(Ptr<BulkSendApplication> app, size_t f)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    if (s)
    {
        s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, f));
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, f));
    }
}

void
SampleCwnd(double every, double mss)
{
    for (auto& s : g_senders)
    {
        s.cwndSum += double(s.cwnd) / mss;
        ++s.samples;
    }
    Simulator::Schedule(Seconds(every), &SampleCwnd, every, mss);
}

} // namespace

namespace ns3
{

bool g_ack_elapsed_fix = false;

// TcpBbr, stock unless ack_elapsed_fix (the header): then each sample's rate is
// recomputed from its delivered bytes and the corrected interval, or set to 0, which
// ns-3.37's TcpBbr::UpdateBtlBw takes as no sample (skipping the round count too, as
// Linux's bbr_update_bw does for an invalid one).
class EcnlabBbr : public TcpBbr
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::EcnlabBbr")
                                .SetParent<TcpBbr>()
                                .SetGroupName("Internet")
                                .AddConstructor<EcnlabBbr>();
        return tid;
    }

    EcnlabBbr() = default;

    EcnlabBbr(const EcnlabBbr& other) = default;

    std::string GetName() const override
    {
        return "EcnlabBbr";
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<EcnlabBbr>(this);
    }

    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override
    {
        if (!g_ack_elapsed_fix)
        {
            TcpBbr::CongControl(tcb, rc, rs);
            return;
        }
        TcpRateOps::TcpRateSample r = rs;
        r.m_deliveryRate = DataRate(0); // TcpBbr (ns-3.37) skips a sample of rate 0
        if (rs.m_delivered > 0 && !rs.m_priorTime.IsZero())
        {
            r.m_ackElapsed = Simulator::Now() - rs.m_priorTime;
            r.m_interval = std::max(rs.m_sendElapsed, r.m_ackElapsed);
            if (r.m_interval >= tcb->m_minRtt)
            {
                r.m_deliveryRate = DataRate(uint64_t(double(rs.m_delivered) * 8.0 / r.m_interval.GetSeconds()));
            }
        }
        TcpBbr::CongControl(tcb, rc, r);
    }
};

NS_OBJECT_ENSURE_REGISTERED(EcnlabBbr);

} // namespace ns3

namespace
{

// ---- scenario ------------------------------------------------------------------------

void
SetTcpDefaults(const Params& P)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::EcnlabBbr"));
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
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
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("Off"));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(P.Num("initial_rto"))));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(100));
    RngSeedManager::SetSeed(1 + uint32_t(P.Num("seed")));
}

TrafficControlHelper
BottleneckHelper(const Params& P)
{
    TrafficControlHelper tch;
    std::string queue = P.Values("queue").at(0);
    uint32_t limit = uint32_t(P.Num("limit"));
    if (queue == "fifo")
    {
        // One packet waits in the device queue: the two hold `limit`.
        tch.SetRootQueueDisc("ns3::FifoQueueDisc",
                             "MaxSize", QueueSizeValue(QueueSize(std::to_string(limit - 1) + "p")));
    }
    else if (queue == "fq_codel")
    {
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                             "MaxSize", QueueSizeValue(QueueSize(std::to_string(limit) + "p")),
                             "Flows", UintegerValue(P.Num("fq_flows")),
                             "Interval", StringValue(std::to_string(P.Num("interval_s") * 1e3) + "ms"),
                             "Target", StringValue(std::to_string(P.Num("target_s") * 1e3) + "ms"),
                             "UseEcn", BooleanValue(false));
    }
    else
    {
        std::cerr << "ns3_bbr: queue " << queue << ": must be fifo or fq_codel" << std::endl;
        std::exit(2);
    }
    return tch;
}

struct Built
{
    Ptr<QueueDisc> bottleneck;
    std::vector<Ptr<PacketSink>> sinks;
};

Built
Build(const Params& P)
{
    SetTcpDefaults(P);
    Built built;
    Dumbbell d = BuildDumbbell(P, uint32_t(P.Num("access_limit")), [&](NetDeviceContainer& bott) {
        built.bottleneck = BottleneckHelper(P).Install(bott.Get(0)).Get(0);
        if (auto fq = DynamicCast<FqCoDelQueueDisc>(built.bottleneck))
        {
            fq->SetQuantum(uint32_t(P.Num("quantum"))); // not an attribute in ns-3.37
        }
        TrafficControlHelper fifo;
        fifo.SetRootQueueDisc("ns3::FifoQueueDisc",
                              "MaxSize",
                              QueueSizeValue(QueueSize(P.Values("reverse_limit")[0] + "p")));
        fifo.Install(bott.Get(1));
        bott.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnTxBegin));
    });
    built.bottleneck->TraceConnectWithoutContext("Dequeue", MakeCallback(&OnDequeue));
    uint32_t pairs = uint32_t(P.Num("pairs"));
    const auto& starts = P.Values("flow_starts");
    g_senders.resize(pairs);
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
        // The socket exists once the application has started; no data leaves before
        // the handshake's round trip, so 1 ns later misses nothing.
        Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(apps.Get(0));
        Simulator::Schedule(Seconds(start) + NanoSeconds(1), &HookSocket, app, size_t(i));
    }
    return built;
}

uint64_t
Drops(const QueueDisc::Stats& st)
{
    return st.nTotalDroppedPackets;
}

// The nearest-rank percentile q of xs (sorted here), 0 when empty.
double
Percentile(std::vector<double>& xs, double q)
{
    if (xs.empty())
    {
        return 0.0;
    }
    std::sort(xs.begin(), xs.end());
    size_t rank = size_t(std::ceil(q * double(xs.size())));
    return xs[std::min(xs.size(), std::max<size_t>(rank, 1)) - 1];
}

template <typename T, typename F>
std::string
List(const std::vector<T>& xs, F f)
{
    std::ostringstream o;
    o.precision(10);
    for (size_t i = 0; i < xs.size(); ++i)
    {
        o << (i ? ", " : "") << f(xs[i]);
    }
    return "[" + o.str() + "]";
}

} // namespace

int
main(int argc, char** argv)
{
    auto t0 = std::chrono::steady_clock::now();
    if (argc != 2)
    {
        std::cerr << "usage: ns3_bbr PARAMS.txt" << std::endl;
        return 2;
    }
    Params P = ReadParams("ns3_bbr", argv[1]);
    g_ack_elapsed_fix = P.Flag("ack_elapsed_fix");
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
    uint64_t drops0 = Drops(b.bottleneck->GetStats());
    uint64_t sent0 = b.bottleneck->GetStats().nTotalSentPackets;
    g_measuring = true;
    SampleCwnd(P.Num("cwnd_sample_s"), P.Num("mss"));
    Simulator::Stop(Seconds(span));
    Simulator::Run();
    const QueueDisc::Stats& st = b.bottleneck->GetStats();
    double sum = 0;
    for (double x : g_sojourn_s)
    {
        sum += x;
    }
    size_t n = g_sojourn_s.size();
    std::ostringstream out;
    out.precision(10);
    out << "{\"tool\": \"ns-3 C++ TcpBbr\", \"goodput_bps\": ";
    std::vector<double> good;
    for (size_t f = 0; f < b.sinks.size(); ++f)
    {
        good.push_back(double(b.sinks[f]->GetTotalRx() - rx0[f]) * 8.0 / span);
    }
    out << List(good, [](double g) { return g; })
        << ", \"sojourn_mean_ms\": " << (n ? 1e3 * sum / double(n) : 0.0)
        << ", \"sojourn_p99_ms\": " << 1e3 * Percentile(g_sojourn_s, 0.99)
        << ", \"sojourn_packets\": " << n << ", \"drops\": " << Drops(st) - drops0
        << ", \"departures\": " << st.nTotalSentPackets - sent0
        << ", \"retransmits\": " << List(g_senders, [](const Sender& s) { return s.retransmits; })
        << ", \"cwnd_mean_segments\": "
        << List(g_senders, [](const Sender& s) { return s.samples ? s.cwndSum / double(s.samples) : 0.0; })
        << ", \"run_s\": " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << "}";
    std::cout << out.str() << std::endl;
    Simulator::Destroy();
    return 0;
}
