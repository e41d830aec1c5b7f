// ns-3 (Debian libns3-dev, 3.37) queue-disc replay for ecnlab's differential AQM tests.
//
// Reads a script on stdin and drives one ns-3 QueueDisc through it, with no
// network around it: every operation is scheduled at its own time on ns-3's
// simulator, so the queue disc's clock (Simulator::Now) is the script's.
//
//   kind <TypeId name, e.g. ns3::CoDelQueueDisc>
//   attr <Name> <value as ns-3 parses it from a string>     (any number)
//   quantum <bytes>        FqCoDelQueueDisc::SetQuantum (no attribute; ns-3
//                          takes it from the device MTU, and there is no device)
//   enq <t_ns> <id> <bytes> <ecn 0..3> <flow>
//   deq <t_ns>
//
// Writes one line per event, in time order:
//   drop_before <t_ns> <id> <reason>  |  drop_after <t_ns> <id> <reason>
//   mark <t_ns> <id> <reason>         |  deq <t_ns> <id> <ecn>  |  deq <t_ns> none
//
// The items are a test item (as ns-3's own queue-disc test suites use): its
// size is the script's bytes, Mark() sets CE on an ECT packet, its DS field
// carries the ECN bits (for L4S / ce_threshold selectors), and Hash() is a
// fixed function of the script's flow number, so flow queueing sees one
// bucket per flow (no collisions for small flow numbers).

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace {

class TraceItem : public QueueDiscItem
{
  public:
    TraceItem(Ptr<Packet> p, uint64_t id, uint8_t ecn, uint32_t flow)
        : QueueDiscItem(p, Address(), 0),
          m_id(id),
          m_ecn(ecn),
          m_flow(flow)
    {
    }

    void AddHeader() override
    {
    }

    bool Mark() override
    {
        if (m_ecn == 0)
        {
            return false;
        }
        m_ecn = 3;
        return true;
    }

    uint32_t Hash(uint32_t perturbation) const override
    {
        return m_flow * 2654435761u + perturbation;
    }

    bool GetUint8Value(Uint8Values field, uint8_t& value) const override
    {
        if (field == IP_DSFIELD)
        {
            value = m_ecn;
            return true;
        }
        return false;
    }

    uint64_t m_id;
    uint8_t m_ecn;
    uint32_t m_flow;
};

Ptr<QueueDisc> g_q;

uint64_t
Now_ns()
{
    return Simulator::Now().GetNanoSeconds();
}

uint64_t
IdOf(Ptr<const QueueDiscItem> item)
{
    return DynamicCast<const TraceItem>(item)->m_id;
}

std::string
Word(const char* reason)
{
    std::string s(reason);
    for (auto& c : s)
    {
        if (c == ' ')
        {
            c = '_';
        }
    }
    return s;
}

void
OnDropBefore(Ptr<const QueueDiscItem> item, const char* reason)
{
    std::cout << "drop_before " << Now_ns() << " " << IdOf(item) << " " << Word(reason) << "\n";
}

void
OnDropAfter(Ptr<const QueueDiscItem> item, const char* reason)
{
    std::cout << "drop_after " << Now_ns() << " " << IdOf(item) << " " << Word(reason) << "\n";
}

void
OnMark(Ptr<const QueueDiscItem> item, const char* reason)
{
    std::cout << "mark " << Now_ns() << " " << IdOf(item) << " " << Word(reason) << "\n";
}

void
DoEnqueue(uint64_t id, uint32_t bytes, uint8_t ecn, uint32_t flow)
{
    g_q->Enqueue(Create<TraceItem>(Create<Packet>(bytes), id, ecn, flow));
}

void
DoDequeue()
{
    Ptr<QueueDiscItem> item = g_q->Dequeue();
    if (!item)
    {
        std::cout << "deq " << Now_ns() << " none\n";
        return;
    }
    auto t = DynamicCast<TraceItem>(item);
    std::cout << "deq " << Now_ns() << " " << t->m_id << " " << int(t->m_ecn) << "\n";
}

} // namespace

int
main()
{
    std::string line;
    ObjectFactory factory;
    bool have_kind = false;
    uint32_t quantum = 0;
    struct Op
    {
        bool enq;
        uint64_t t, id;
        uint32_t bytes, flow;
        uint8_t ecn;
    };

    std::vector<Op> ops;
    while (std::getline(std::cin, line))
    {
        std::istringstream in(line);
        std::string word;
        if (!(in >> word) || word[0] == '#')
        {
            continue;
        }
        if (word == "kind")
        {
            std::string kind;
            in >> kind;
            factory.SetTypeId(kind);
            have_kind = true;
        }
        else if (word == "attr")
        {
            std::string name, value;
            in >> name >> value;
            factory.Set(name, StringValue(value));
        }
        else if (word == "quantum")
        {
            in >> quantum;
        }
        else if (word == "enq")
        {
            Op op{true, 0, 0, 0, 0, 0};
            unsigned ecn = 0;
            in >> op.t >> op.id >> op.bytes >> ecn >> op.flow;
            op.ecn = uint8_t(ecn);
            ops.push_back(op);
        }
        else if (word == "deq")
        {
            Op op{false, 0, 0, 0, 0, 0};
            in >> op.t;
            ops.push_back(op);
        }
    }
    if (!have_kind)
    {
        std::cerr << "no 'kind' line\n";
        return 2;
    }
    g_q = factory.Create<QueueDisc>();
    if (quantum > 0)
    {
        DynamicCast<FqCoDelQueueDisc>(g_q)->SetQuantum(quantum);
    }
    g_q->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDropBefore));
    g_q->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDropAfter));
    g_q->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    g_q->Initialize();
    for (const auto& op : ops)
    {
        if (op.enq)
        {
            Simulator::Schedule(NanoSeconds(op.t), &DoEnqueue, op.id, op.bytes, op.ecn, op.flow);
        }
        else
        {
            Simulator::Schedule(NanoSeconds(op.t), &DoDequeue);
        }
    }
    // Queue discs with a periodic timer (PIE's Tupdate) never run out of
    // events: stop just after the last operation.
    uint64_t last = ops.empty() ? 0 : ops.back().t;
    Simulator::Stop(NanoSeconds(last + 1));
    Simulator::Run();
    Simulator::Destroy();
    return 0;
}
