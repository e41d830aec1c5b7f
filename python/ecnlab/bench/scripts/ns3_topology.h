// The benchmark dumbbell for ecnlab's ns-3 peer programs (ns3_dumbbell.cc,
// ns3_dctcp.cc, ns3_bbr.cc): pairs s_i -> R1 -> R2 -> r_i, the bottleneck R1 -> R2 (rate_bps,
// delay_s) with device queues of one packet, access links (access_rate_bps,
// access_delay_s, device queues of access_qlen packets), every default queue
// disc uninstalled. The caller's `bottleneckQueues` installs the queue discs of
// the two bottleneck devices; it runs right after the bottleneck is addressed,
// before the access links exist, so objects (and their random streams) are
// created in the same order in every program.

#ifndef ECNLAB_NS3_TOPOLOGY_H
#define ECNLAB_NS3_TOPOLOGY_H

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "ns3_params.h"

#include <functional>
#include <sstream>
#include <string>
#include <vector>

struct Dumbbell
{
    ns3::NodeContainer routers;
    ns3::NodeContainer senders;
    ns3::NodeContainer receivers;
    std::vector<ns3::Ipv4Address> sinkAddr; // r_i's address
};

inline ns3::NetDeviceContainer
P2pLink(ns3::Ptr<ns3::Node> a, ns3::Ptr<ns3::Node> b, double rateBps, double delayS, uint32_t qlen)
{
    using namespace ns3;
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(rateBps))));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(delayS)));
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(std::to_string(qlen) + "p")));
    return p2p.Install(a, b);
}

inline Dumbbell
BuildDumbbell(const Params& P,
              uint32_t accessQlen,
              const std::function<void(ns3::NetDeviceContainer&)>& bottleneckQueues)
{
    using namespace ns3;
    uint32_t pairs = uint32_t(P.Num("pairs"));
    Dumbbell d;
    d.routers.Create(2);
    d.senders.Create(pairs);
    d.receivers.Create(pairs);
    InternetStackHelper stack;
    stack.Install(d.routers);
    stack.Install(d.senders);
    stack.Install(d.receivers);
    Ptr<Node> r1 = d.routers.Get(0);
    Ptr<Node> r2 = d.routers.Get(1);
    Ipv4AddressHelper addr;
    TrafficControlHelper none;
    NetDeviceContainer bott = P2pLink(r1, r2, P.Num("rate_bps"), P.Num("delay_s"), 1);
    addr.SetBase("10.255.0.0", "255.255.255.0");
    addr.Assign(bott);
    none.Uninstall(bott);
    bottleneckQueues(bott);
    for (uint32_t i = 0; i < pairs; ++i)
    {
        for (uint32_t k = 0; k < 2; ++k)
        {
            Ptr<Node> a = k == 0 ? d.senders.Get(i) : r2;
            Ptr<Node> b = k == 0 ? r1 : d.receivers.Get(i);
            NetDeviceContainer devs =
                P2pLink(a, b, P.Num("access_rate_bps"), P.Num("access_delay_s"), accessQlen);
            std::ostringstream base;
            base << "10." << k << "." << i << ".0";
            addr.SetBase(base.str().c_str(), "255.255.255.0");
            Ipv4InterfaceContainer ifs = addr.Assign(devs);
            none.Uninstall(devs);
            if (k == 1)
            {
                d.sinkAddr.push_back(ifs.GetAddress(1));
            }
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    return d;
}

#endif
