// ecnlab's benchmark dumbbell in htsim (Broadcom/csg-htsim), built against the user's htsim checkout.
//
// `ecnlab bench htsim` (python/ecnlab/bench/htsim.py) compiles this file with htsim's libhtsim.a and runs it
// with PARAMS.txt (`key value...` per line), every value taken from the resolved ecnlab scenario
// (ecnlab.bench.htsimspec.htsim_params). The topology is ecnlab's dumbbell:
//
//   s_p -> [access queue, access pipe] -> R1 -> [bottleneck queue, pipe] -> R2 -> [access queue, pipe] -> r_p
//   r_p -> [access queue, access pipe] -> R2 -> [reverse queue, pipe]    -> R1 -> [access queue, pipe] -> s_p
//
// one set of access queues per host pair, flows spread over the pairs as PARAMS says. The bottleneck is
// htsim's ECNQueue (marks the departing packet while the queue, that packet included, holds more than K
// bytes) under DCTCPSrc, or htsim's drop-tail Queue under plain TcpSrc. htsim's sink ACKs every packet and
// echoes its CE; retransmission timeouts are found by one TcpRtxTimerScanner walking every sender each
// `rtx_scan_s`. htsim's own per-timeout log lines (std::cout) are discarded.
//
// Printed last: one JSON line with the event loop's time (`run_s`), the set-up before it, the bottleneck's
// packets and marks over the whole run, its time-weighted mean queue (packets waiting, the one in
// transmission not counted, as ecnlab counts), and after the warm-up the utilisation, each flow's goodput
// (payload bytes); over the whole run the senders' timeouts and fast recoveries. Peak memory: VmHWM.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "config.h"
#include "dctcp.h"
#include "ecnqueue.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "route.h"
#include "tcp.h"

namespace {

using Clock = std::chrono::steady_clock;
using Params = std::map<std::string, std::vector<std::string>>;

Params read_params(const char* path) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path);
        std::exit(2);
    }
    Params p;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        std::string key, w;
        words >> key;
        while (words >> w) p[key].push_back(w);
    }
    return p;
}

const std::vector<std::string>& words(const Params& p, const std::string& key) {
    auto it = p.find(key);
    if (it == p.end()) {
        std::fprintf(stderr, "PARAMS: missing key %s\n", key.c_str());
        std::exit(2);
    }
    return it->second;
}

double num(const Params& p, const std::string& key) { return std::atof(words(p, key).at(0).c_str()); }

// A queue that keeps the counts htsim's queues do not: arrivals accepted, departures, marks, and the
// time-weighted number of packets waiting. `mark_above`: ECNQueue's K (bytes); none for drop-tail.
template <class Q>
class MeasuredQueue : public Q {
public:
    template <class... A>
    MeasuredQueue(mem_b mark_above, A&&... args) : Q(std::forward<A>(args)...), _mark_above(mark_above) {}

    void receivePacket(Packet& pkt) override {
        advance(EventList::now());
        int drops = this->_num_drops;
        Q::receivePacket(pkt);
        if (this->_num_drops == drops) ++_held;
    }

    void advance(simtime_picosec now) {
        _area += double(_held > 0 ? _held - 1 : 0) * double(now - _last);
        _last = now;
    }

    uint64_t dequeued = 0, dequeued_bytes = 0, marks = 0;
    double _area = 0;

protected:
    void completeService() override {
        advance(EventList::now());
        mem_b before = this->_queuesize;
        if (before > _mark_above) ++marks;
        Q::completeService();
        ++dequeued;
        dequeued_bytes += uint64_t(before - this->_queuesize);
        --_held;
    }

private:
    mem_b _mark_above;
    uint64_t _held = 0;
    simtime_picosec _last = 0;
};

// A sender that counts its retransmission timeouts (the scanner's hook arms one at a time).
template <class S>
class CountedSrc : public S {
public:
    explicit CountedSrc(EventList& ev) : S(nullptr, nullptr, ev) {}
    void rtx_timer_hook(simtime_picosec now, simtime_picosec period) override {
        bool armed = this->_rtx_timeout_pending;
        S::rtx_timer_hook(now, period);
        if (!armed && this->_rtx_timeout_pending) ++timeouts;
    }
    uint64_t timeouts = 0;
};

struct Flow {
    TcpSrc* src;
    TcpSink* sink;
    const uint64_t* timeouts;
};

struct Snapshot {
    std::vector<uint64_t> acked;
    uint64_t dequeued_bytes = 0, timeouts = 0, recoveries = 0;
};

template <class Q>
Snapshot snapshot(const std::vector<Flow>& flows, const MeasuredQueue<Q>& q) {
    Snapshot s;
    for (const Flow& f : flows) {
        s.acked.push_back(f.sink->_cumulative_ack);
        s.timeouts += *f.timeouts;
        s.recoveries += f.src->_drops;
    }
    s.dequeued_bytes = q.dequeued_bytes;
    return s;
}

// Takes the warm-up snapshot: run() schedules it at the end of the warm-up.
template <class Q>
class WarmupMark : public EventSource {
public:
    WarmupMark(EventList& ev, const std::vector<Flow>& flows, const MeasuredQueue<Q>& q)
        : EventSource(ev, "warmup"), _flows(flows), _q(q) {}
    void doNextEvent() override { taken = snapshot(_flows, _q); }
    Snapshot taken;

private:
    const std::vector<Flow>& _flows;
    const MeasuredQueue<Q>& _q;
};

long vmhwm_kib() {
    std::ifstream st("/proc/self/status");
    std::string line;
    while (std::getline(st, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
    return 0;
}

struct Pair {
    Queue *src_q, *dst_q, *ack_q, *ack_src_q;
    Pipe *src_p, *dst_p, *ack_p, *ack_src_p;
};

template <class Q, class Src>
int run(const Params& p, Clock::time_point started, MeasuredQueue<Q>& bq, EventList& ev) {
    const int pkt = int(num(p, "packet_bytes")), mss = int(num(p, "mss"));
    const double duration = num(p, "duration"), warmup = num(p, "warmup");
    const linkspeed_bps rate = linkspeed_bps(num(p, "rate_bps")), access = linkspeed_bps(num(p, "access_rate_bps"));
    const mem_b access_limit = mem_b(num(p, "access_limit")) * pkt;
    const simtime_picosec delay = timeFromSec(num(p, "delay_s")), access_delay = timeFromSec(num(p, "access_delay_s"));

    Pipe bottleneck_pipe(delay, ev);
    Queue reverse_q(rate, mem_b(num(p, "reverse_limit")) * pkt, ev, nullptr);
    Pipe reverse_pipe(delay, ev);
    std::vector<Pair> pairs;
    for (int i = 0; i < int(num(p, "pairs")); ++i)
        pairs.push_back({new Queue(access, access_limit, ev, nullptr), new Queue(access, access_limit, ev, nullptr),
                         new Queue(access, access_limit, ev, nullptr), new Queue(access, access_limit, ev, nullptr),
                         new Pipe(access_delay, ev), new Pipe(access_delay, ev), new Pipe(access_delay, ev),
                         new Pipe(access_delay, ev)});

    TcpRtxTimerScanner scanner(timeFromSec(num(p, "rtx_scan_s")), ev);
    const std::vector<std::string>& which = words(p, "flow_pairs");
    const std::vector<std::string>& starts = words(p, "flow_starts");
    const uint32_t max_cwnd = uint32_t(num(p, "rwnd_pkts")) * uint32_t(pkt);
    std::vector<Flow> flows;
    for (size_t i = 0; i < which.size(); ++i) {
        const Pair& h = pairs.at(size_t(std::atoi(which[i].c_str())));
        auto* src = new CountedSrc<Src>(ev);
        auto* sink = new TcpSink();
        src->_cwnd = uint32_t(num(p, "init_cwnd")) * uint32_t(pkt);
        src->_maxcwnd = max_cwnd;
        src->_ssthresh = max_cwnd;
        src->_rto = timeFromSec(num(p, "initial_rto"));
        scanner.registerTcp(*src);
        auto* out = new Route();
        for (PacketSink* hop : std::vector<PacketSink*>{h.src_q, h.src_p, &bq, &bottleneck_pipe, h.dst_q, h.dst_p, sink})
            out->push_back(hop);
        auto* back = new Route();
        for (PacketSink* hop : std::vector<PacketSink*>{h.ack_q, h.ack_p, &reverse_q, &reverse_pipe, h.ack_src_q,
                                                       h.ack_src_p, src})
            back->push_back(hop);
        src->connect(*out, *back, *sink, timeFromSec(std::atof(starts[i].c_str())));
        flows.push_back({src, sink, &src->timeouts});
    }
    WarmupMark<Q> mark(ev, flows, bq);
    ev.sourceIsPending(mark, timeFromSec(warmup));
    EventList::setEndtime(timeFromSec(duration));

    Clock::time_point t0 = Clock::now();
    while (EventList::doNextEvent()) {
    }
    double run_s = std::chrono::duration<double>(Clock::now() - t0).count();
    double setup_s = std::chrono::duration<double>(t0 - started).count();

    bq.advance(timeFromSec(duration));  // the last event may come before the end time
    const double end_ps = double(timeFromSec(duration));
    Snapshot end = snapshot(flows, bq), warm = mark.taken;
    const double span = duration - warmup;
    std::printf("{\"tool\": \"htsim\", \"run_s\": %.6f, \"setup_s\": %.6f, \"bottleneck_packets\": %llu, ", run_s,
                setup_s, (unsigned long long)bq.dequeued);
    std::printf("\"marks\": %llu, \"overflow_drops\": %d, \"avg_qlen_pkts\": %.6f, ", (unsigned long long)bq.marks,
                bq.num_drops(), bq._area / std::max(end_ps, 1.0));
    std::printf("\"utilisation\": %.6f, \"timeouts\": %llu, \"fast_recoveries\": %llu, \"peak_rss_mib\": %.3f, ",
                double(end.dequeued_bytes - warm.dequeued_bytes) * 8.0 / (double(rate) * span),
                (unsigned long long)end.timeouts, (unsigned long long)end.recoveries, double(vmhwm_kib()) / 1024.0);
    std::printf("\"goodput_bps\": [");
    for (size_t i = 0; i < flows.size(); ++i) {
        double bytes = double(end.acked[i] - (warm.acked.empty() ? 0 : warm.acked[i])) * mss / pkt;
        std::printf("%s%.1f", i ? ", " : "", bytes * 8.0 / span);
    }
    std::printf("]}\n");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Clock::time_point started = Clock::now();
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s PARAMS.txt\n", argv[0]);
        return 2;
    }
    Params p = read_params(argv[1]);
    std::cout.rdbuf(nullptr);  // htsim logs each timeout and flow start on std::cout
    const int pkt = int(num(p, "packet_bytes"));
    Packet::set_packet_size(pkt);
    EventList ev;
    const linkspeed_bps rate = linkspeed_bps(num(p, "rate_bps"));
    const mem_b limit = mem_b(num(p, "limit")) * pkt;
    const std::string cc = words(p, "cc").at(0);
    if (cc == "dctcp") {
        const mem_b k = mem_b(num(p, "mark_above_bytes"));
        MeasuredQueue<ECNQueue> bq(k, rate, limit, ev, nullptr, k);
        return run<ECNQueue, DCTCPSrc>(p, started, bq, ev);
    }
    MeasuredQueue<Queue> bq(limit, rate, limit, ev, nullptr);
    return run<Queue, TcpSrc>(p, started, bq, ev);
}
