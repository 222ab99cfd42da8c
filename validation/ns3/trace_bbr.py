"""What ns-3's TcpSocketBase does to TcpBbr's cwnd when a fast recovery or a timeout ends.

    python trace_bbr.py NS3.json [--flow I ...] [--until 10]

NS3.json is an ns3_dumbbell.py input (e.g. runs/ns3/bbr-4x100M/ns3.json); the network is
ns3_dumbbell.build's, run to --until seconds. The CongestionWindow, SlowStartThreshold and
CongState trace sources of the chosen flows (all by default) are recorded; stdout gets, per flow,
one line per exit from CA_RECOVERY or CA_LOSS to CA_OPEN: the cwnd (segments) when the state was
entered, just before the exit, and each value it took in the exiting ACK's event, with ssthresh. Linux's BBR restores the
cwnd from before the loss there (tcp_bbr.c bbr_set_cwnd_to_recover_or_restore) and Linux leaves
a cong_control algorithm's cwnd alone when recovery ends (tcp_end_cwnd_reduction);
docs/validation/ns3.md, mechanism 8.
"""

from __future__ import annotations

import argparse
import json

import ns3_dumbbell

_CPP = r"""
#include <vector>
namespace bbrtrace {
using namespace ns3;
struct Ev { int64_t t; int flow; int kind; double v; };  // kind 0: cwnd, 1: ssthresh, 2: state
std::vector<Ev> evs; double seg = 1448;
void Cwnd(int f, uint32_t, uint32_t v) { evs.push_back({Simulator::Now().GetNanoSeconds(), f, 0, v / seg}); }
void Ssth(int f, uint32_t, uint32_t v) { evs.push_back({Simulator::Now().GetNanoSeconds(), f, 1, v / seg}); }
void State(int f, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t to) {
    evs.push_back({Simulator::Now().GetNanoSeconds(), f, 2, double(int(to))});
}
void Connect(Ptr<Application> app, int f) {
    Ptr<Socket> s = DynamicCast<BulkSendApplication>(app)->GetSocket();
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&Cwnd, f));
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&Ssth, f));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&State, f));
}
void Start(Ptr<Application> app, int f, double at, uint32_t segment) {
    seg = segment; Simulator::Schedule(Seconds(at), &Connect, app, f);
}
size_t N() { return evs.size(); }
int64_t T(size_t i) { return evs[i].t; }
int F(size_t i) { return evs[i].flow; }
int K(size_t i) { return evs[i].kind; }
double V(size_t i) { return evs[i].v; }
}
"""

OPEN, RECOVERY, LOSS = 0, 3, 4
NAMES = {RECOVERY: "recovery", LOSS: "timeout"}


def exits(events: list[tuple[int, int, float]]) -> list[str]:
    """One line per exit to CA_OPEN from CA_RECOVERY or CA_LOSS."""
    lines, state, cwnd, ssthresh, at_entry = [], OPEN, 0.0, float("nan"), 0.0
    for i, (t, kind, v) in enumerate(events):
        if kind == 0:
            cwnd = v
        elif kind == 1:
            ssthresh = v
        elif kind == 2:
            new = int(v)
            if new in (RECOVERY, LOSS) and state != new:
                at_entry = cwnd
            if new == OPEN and state in (RECOVERY, LOSS):
                same = [x for (u, k, x) in events[i + 1 :] if u == t and k == 0]
                after = " -> ".join(f"{x:.0f}" for x in same) or "unchanged"
                lines.append(
                    f"{t / 1e9:9.4f} s  end of {NAMES[state]:8s}  cwnd at its start {at_entry:5.0f}, "
                    f"before the exit {cwnd:5.0f}, in the exiting ACK's event {after}; ssthresh {ssthresh:.0f}"
                )
            state = new
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", help="an ns3_dumbbell.py input (NAME/ns3.json of a run directory)")
    ap.add_argument(
        "--flow", type=int, action="append", help="a flow to trace (repeatable; all by default)"
    )
    ap.add_argument("--until", type=float, default=10.0, help="simulated seconds")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    net = ns3_dumbbell.build(cfg)
    import cppyy

    cppyy.cppdef(_CPP)
    tr = cppyy.gbl.bbrtrace
    flows = args.flow or list(range(len(cfg["flows"])))
    for i in flows:
        tr.Start(net.apps[i], i, cfg["flows"][i]["start_s"] + 2e-9, cfg["tcp"]["segment_size"])
    ns = net.ns
    ns.Simulator.Stop(ns.Seconds(args.until))
    ns.Simulator.Run()
    events = [
        (int(tr.F(i)), int(tr.T(i)), int(tr.K(i)), float(tr.V(i))) for i in range(int(tr.N()))
    ]
    ns.Simulator.Destroy()
    for i in flows:
        print(f"flow {i}")
        for line in exits([(t, k, v) for f, t, k, v in events if f == i]):
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
