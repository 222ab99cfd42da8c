"""Per-ACK trace of ns-3's TcpVegas in slow start: the first flow of a configuration, alone.

    python trace_vegas.py NS3.json OUT.csv [--duration 0.3] [--timestamps on|off]

NS3.json is an ns3_dumbbell.py input (e.g. runs/ns3/vegas-4x1G/ns3.json); the network is built by
ns3_dumbbell.build, so it is the cross-check's, with flows[1:] removed. After every ACK the sender
has processed, OUT.csv gets a row: cwnd and ssthresh (segments), the socket's last RTT sample and
smoothed RTT, TcpVegas's private m_baseRtt, m_minRtt, m_cntRtt, m_begSndNxt, m_doingVegasNow (read
through explicit-instantiation access, ns-3 has no accessor), the congestion state and the
bottleneck queue. stdout gets one line per Vegas round (the m_begSndNxt changes) with the diff
TcpVegas::IncreaseWindow computed from the previous row's state. `--timestamps off` shows the
same flow with RTT samples from send times instead of TCP timestamps (docs/validation/ns3.md).
"""

from __future__ import annotations

import argparse
import csv
import json

import ns3_dumbbell

_CPP = r"""
#include <fstream>
namespace vegastrace {
using namespace ns3;
// Reading private members without changing ns-3: a pointer-to-member named in an explicit instantiation.
template <typename Tag, typename Tag::type M> struct Rob { friend typename Tag::type get(Tag) { return M; } };
#define ROB(NAME, CLASS, TYPE, MEMBER) \
    struct NAME { typedef TYPE CLASS::*type; friend type get(NAME); }; template struct Rob<NAME, &CLASS::MEMBER>;
ROB(Tcb, TcpSocketBase, Ptr<TcpSocketState>, m_tcb)
ROB(Cc, TcpSocketBase, Ptr<TcpCongestionOps>, m_congestionControl)
ROB(Base, TcpVegas, Time, m_baseRtt)
ROB(Min, TcpVegas, Time, m_minRtt)
ROB(Cnt, TcpVegas, uint32_t, m_cntRtt)
ROB(Beg, TcpVegas, SequenceNumber32, m_begSndNxt)
ROB(Doing, TcpVegas, bool, m_doingVegasNow)

Ptr<TcpSocketBase> sock; Ptr<Queue<Packet>> queue; std::ofstream out; uint32_t seg = 1448;
double Us(Time t) { return t == Time::Max() ? -1.0 : t.GetNanoSeconds() / 1000.0; }
void Sample(uint32_t ack) {
    TcpSocketBase* s = PeekPointer(sock);
    Ptr<TcpSocketState> tcb = s->*get(Tcb());
    TcpVegas* v = PeekPointer(DynamicCast<TcpVegas>(s->*get(Cc())));
    out << Simulator::Now().GetNanoSeconds() / 1000.0 << "," << ack << "," << tcb->m_cWnd.Get() / double(seg) << ","
        << tcb->m_ssThresh.Get() / double(seg) << "," << Us(tcb->m_lastRtt.Get()) << "," << Us(tcb->m_srtt.Get()) << ","
        << Us(v->*get(Base())) << "," << Us(v->*get(Min())) << "," << v->*get(Cnt()) << ","
        << (v->*get(Beg())).GetValue() << "," << tcb->m_nextTxSequence.Get().GetValue() << "," << (v->*get(Doing()))
        << "," << int(tcb->m_congState.Get()) << "," << queue->GetNPackets() << "\n";
}
// "Rx" fires before the segment is processed: sample once the ACK's event is over.
void OnRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    if (h.GetFlags() & TcpHeader::ACK) Simulator::ScheduleNow(&Sample, h.GetAckNumber().GetValue());
}
void Connect(Ptr<Application> app) {
    sock = DynamicCast<TcpSocketBase>(DynamicCast<BulkSendApplication>(app)->GetSocket());
    sock->TraceConnectWithoutContext("Rx", MakeCallback(&OnRx));
}
void Start(Ptr<Application> app, Ptr<Queue<Packet>> q, std::string path, uint32_t segment) {
    queue = q; seg = segment; out.open(path);
    out << "t_us,ack,cwnd,ssthresh,last_rtt_us,srtt_us,base_rtt_us,min_rtt_us,cnt_rtt,beg_snd_nxt,next_tx,doing_vegas,cong_state,queue\n";
    Simulator::Schedule(NanoSeconds(1), &Connect, app);
}
void Stop() { out.close(); }
}
"""


def rounds(path: str) -> list[str]:
    """One line per Vegas round: the state TcpVegas::IncreaseWindow judged and what it did."""
    lines, prev = [], None
    with open(path) as fh:
        for r in csv.DictReader(fh):
            if prev is not None and r["beg_snd_nxt"] != prev["beg_snd_nxt"]:
                cwnd, base, low, cnt = (
                    int(float(prev["cwnd"])),
                    float(prev["base_rtt_us"]),
                    float(prev["min_rtt_us"]),
                    int(prev["cnt_rtt"]),
                )
                diff = cwnd - int(cwnd * base / low) if cnt > 2 and low > 0 else "-"
                lines.append(
                    f"t {float(r['t_us']) / 1e3:8.2f} ms  cwnd {cwnd:5d} -> {float(r['cwnd']):7.1f}  baseRtt {base:8.1f}  "
                    f"minRtt {low:8.1f} us  cntRtt {cnt:5d}  diff {diff}  queue {r['queue']}"
                )
            prev = r
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config"), ap.add_argument("out")
    ap.add_argument("--duration", type=float, default=0.3)
    ap.add_argument("--timestamps", choices=("on", "off"))
    a = ap.parse_args()
    with open(a.config) as fh:
        cfg = json.load(fh)
    cfg["flows"], cfg["duration"] = cfg["flows"][:1], a.duration
    if a.timestamps:
        cfg["tcp"]["timestamps"] = a.timestamps == "on"
    net = ns3_dumbbell.build(cfg)
    import cppyy

    cppyy.cppdef(_CPP)
    vt, ns = cppyy.gbl.vegastrace, net.ns
    q = net.bdevs.Get(0).GetObject[ns.PointToPointNetDevice]().GetQueue()
    vt.Start(net.apps[0], q, a.out, int(cfg["tcp"]["segment_size"]))
    ns.Simulator.Stop(ns.Seconds(a.duration))
    ns.Simulator.Run()
    vt.Stop()
    print("\n".join(rounds(a.out)))
    print(
        json.dumps(
            {
                "timestamps": cfg["tcp"]["timestamps"],
                "queue_drops": int(q.GetTotalDroppedPackets()) + int(net.hv.tc_drops),
                "recoveries": int(net.hv.recoveries[0]),
                "timeouts": int(net.hv.timeouts[0]),
            }
        )
    )
    ns.Simulator.Destroy()


if __name__ == "__main__":
    main()
