"""A dumbbell in ns-3 (3.44, its Python bindings), driven by a JSON description.

    python ns3_dumbbell.py CONFIG.json OUT.json

CONFIG.json is the "ns3" part of a configuration made by configs.py:

    {"name": "...", "duration": 60.0, "seed": 1,
     "bottleneck": {"rate_bps": 1e8, "delay_s": 0.01, "buffer_pkts": 333, "loss": 0.0},
     "access": {"rate_bps": 1e10, "buffer_pkts": 100000},
     "tcp": {"segment_size": 1448, "timestamps": true, "sack": true, "min_rto_s": 1.0,
             "delack_count": 1, "delack_timeout_s": 0.2, "init_cwnd": 10, "buffer_bytes": 134217728},
            (optional: "recovery": "classic" for TcpClassicRecovery; TcpPrrRecovery otherwise)
     "flows": [{"type": "ns3::TcpNewReno", "attributes": {}, "start_s": 0.0,
                "send_delay_s": 0.009, "recv_delay_s": 0.001}]}

Optional: "bottleneck": {"step_k": K} marks at K (below); "queue_sample_s": DT samples the
bottleneck's backlog every DT over the second half; a flow's "receiver_type" is the
congestion control of its receiver's sockets (TcpDctcp: ECN and DCTCP's CE echo there).

The network, one sender node S_i and one receiver node D_i per flow:

    S_i --access(send_delay)-- L ==bottleneck== R --access(recv_delay)-- D_i

Every link is a PointToPoint link (2-byte PPP header on the wire). Queues:
ns-3 installs an FqCoDel queue disc on every device when addresses are
assigned; it is removed (TrafficControlHelper.Uninstall), so the only queue is
the device's DropTailQueue, sized in packets (a full device queue stops its
NetDeviceQueue and the traffic-control layer drops the next packet, "TcDrop":
DropTail at that size): `buffer_pkts` on both bottleneck
devices (hscc's reverse bottleneck has the forward one's buffer),
`access.buffer_pkts` on the access devices. A PointToPointNetDevice takes the
packet it serializes out of that queue, so N packets wait while one is on the
wire, as in hscc (its limit counts the waiting packets too).

With "step_k", L's bottleneck device (the data's direction) gets a RedQueueDisc as the DCTCP
example's, with MinTh = MaxTh = K, QW 1 (the instantaneous queue), Gentle off, UseEcn on and
UseHardDrop off: an ECT packet arriving when K or more packets are in the queue disc is CE-marked
(RED's forced mark), a packet arriving at a full one is dropped. The device's own queue is then
1 packet, so that the queue is RED's: RED holds buffer_pkts - 1 and the device 1.

Random loss: a RateErrorModel (ERROR_UNIT_PACKET) on R's bottleneck device,
i.e. on packets that have crossed the bottleneck queue and link (data only:
ACKs enter the bottleneck at R and are received at L).

Per flow the output has the bytes the PacketSink received at half time and at
the end (GetTotalRx), the fast recoveries, timeouts and ECN reductions (CongState trace:
transitions into CA_RECOVERY, CA_LOSS and CA_CWR), and the run has the
bottleneck's queue drops, CE marks and error-model drops and the wall time.
"""

from __future__ import annotations

import json
import sys
import time
from types import SimpleNamespace

MAX_FLOWS = 64  # the harness's configurations have at most 10


def _cpp_helpers(ns) -> None:
    """C++ trace sinks (a Python callback per trace event would be slow and is awkward in cppyy)."""
    import cppyy

    cppyy.cppdef(r"""
    #include <vector>
    #include <iostream>
    namespace hsccv {
    using namespace ns3;
    std::vector<uint64_t> recoveries, timeouts, cwrs;
    uint64_t rx_drops = 0, tc_drops = 0;
    void OnCongState(uint32_t flow, TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to) {
        if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY) recoveries[flow]++;
        if (to == TcpSocketState::CA_LOSS && from != TcpSocketState::CA_LOSS) timeouts[flow]++;
        if (to == TcpSocketState::CA_CWR && from != TcpSocketState::CA_CWR) cwrs[flow]++;
    }
    // The bottleneck's backlog (its queue disc's, if any, and its device queue's: not the
    // packet on the wire) every `every` seconds.
    uint64_t queue_sum = 0, queue_n = 0;
    void SampleQueue(Ptr<Queue<Packet>> dev, Ptr<QueueDisc> qd, double every) {
        queue_sum += dev->GetNPackets() + (qd ? qd->GetNPackets() : 0);
        queue_n++;
        Simulator::Schedule(Seconds(every), &SampleQueue, dev, qd, every);
    }
    void StartQueueSamples(Ptr<Queue<Packet>> dev, Ptr<QueueDisc> qd, double at, double every) {
        Simulator::Schedule(Seconds(at), &SampleQueue, dev, qd, every);
    }
    void OnRxDrop(Ptr<const Packet>) { rx_drops++; }
    void OnTcDrop(Ptr<const Packet>) { tc_drops++; }
    void ConnectSocket(Ptr<Application> app, uint32_t flow) {
        Ptr<Socket> s = DynamicCast<BulkSendApplication>(app)->GetSocket();
        NS_ABORT_MSG_IF(!s, "BulkSend flow " << flow << " has no socket after its start");
        bool ok = s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, flow));
        NS_ABORT_MSG_IF(!ok, "cannot connect CongState of flow " << flow);
    }
    void Init(uint32_t flows) {
        recoveries.assign(flows, 0); timeouts.assign(flows, 0); cwrs.assign(flows, 0);
        rx_drops = 0; tc_drops = 0; queue_sum = 0; queue_n = 0;
    }
    void ScheduleConnect(Ptr<Application> app, uint32_t flow, double at) {
        Simulator::Schedule(Seconds(at), &ConnectSocket, app, flow);
    }
    void WatchRxDrops(Ptr<NetDevice> dev) {
        dev->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&OnRxDrop));
    }
    // A line per `every` simulated seconds on stderr (ns3.log): how far a long run has come.
    void Progress(double every) {
        std::cerr << "progress: " << Simulator::Now().GetSeconds() << " s simulated" << std::endl;
        Simulator::Schedule(Seconds(every), &Progress, every);
    }
    void StartProgress(double every) { Simulator::Schedule(Seconds(every), &Progress, every); }
    void WatchTcDrops(Ptr<Node> node) {
        node->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext("TcDrop", MakeCallback(&OnTcDrop));
    }
    }
    """)


def _check(cfg: dict) -> None:
    for key in ("name", "duration", "seed", "bottleneck", "access", "tcp", "flows"):
        if key not in cfg:
            raise ValueError(f"configuration has no {key!r}")
    if not 0 < cfg["duration"] <= 3600:
        raise ValueError(f"duration {cfg['duration']!r}: want 0 < duration <= 3600 s")
    if not 1 <= len(cfg["flows"]) <= MAX_FLOWS:
        raise ValueError(f"{len(cfg['flows'])} flows: want 1 to {MAX_FLOWS}")
    for i, f in enumerate(cfg["flows"]):
        if not 0 <= f["start_s"] < cfg["duration"] / 2:
            raise ValueError(f"flows[{i}].start_s {f['start_s']!r}: want 0 <= start < duration / 2")
    if not 0 <= cfg["bottleneck"]["loss"] < 1:
        raise ValueError(f"bottleneck.loss {cfg['bottleneck']['loss']!r}: want 0 <= loss < 1")


def build(cfg: dict) -> SimpleNamespace:
    """The network, sockets and applications of `cfg`, ready to run; also used by trace_vegas.py."""
    from ns import ns

    _cpp_helpers(ns)
    import cppyy

    hv = cppyy.gbl.hsccv
    tcp, bn, acc, flows = cfg["tcp"], cfg["bottleneck"], cfg["access"], cfg["flows"]
    n = len(flows)
    # The configuration's seed is ns-3's run number (substream) under one seed, as
    # ns-3's manual asks for independent replications: seeds 1, 2, ... with run 1
    # start MRG32k3a from (s, ..., s), streams that are not independent (over
    # seeds 1-20 at p = 1e-3 they lost 1.10e-3 of the packets, 4 sigma high).
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(int(cfg["seed"]))

    d = ns.Config.SetDefault
    d("ns3::TcpSocket::SegmentSize", ns.UintegerValue(tcp["segment_size"]))
    d("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(tcp["init_cwnd"]))
    d("ns3::TcpSocket::DelAckCount", ns.UintegerValue(tcp["delack_count"]))
    d("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(tcp["delack_timeout_s"])))
    d("ns3::TcpSocket::SndBufSize", ns.UintegerValue(tcp["buffer_bytes"]))
    d("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(tcp["buffer_bytes"]))
    # ns-3 closes a connection after DataRetries (6) back-to-back RTOs; hscc never gives up.
    d("ns3::TcpSocket::DataRetries", ns.UintegerValue(1000))
    d("ns3::TcpSocketBase::Sack", ns.BooleanValue(tcp["sack"]))
    d("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(tcp["timestamps"]))
    d("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
    d("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(tcp["min_rto_s"])))
    recovery = {"prr": "ns3::TcpPrrRecovery", "classic": "ns3::TcpClassicRecovery"}[
        tcp.get("recovery", "prr")
    ]
    d("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName(recovery)))

    routers = ns.NodeContainer()
    routers.Create(2)
    senders, receivers = ns.NodeContainer(), ns.NodeContainer()
    senders.Create(n)
    receivers.Create(n)
    stack = ns.InternetStackHelper()
    stack.Install(routers)
    stack.Install(senders)
    stack.Install(receivers)

    def link(a, b, rate_bps: float, delay_s: float, buffer_pkts: int):
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(int(round(rate_bps)))))
        p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.NanoSeconds(int(round(delay_s * 1e9)))))
        devs = p2p.Install(a, b)
        for k in range(2):
            q = devs.Get(k).GetObject[ns.PointToPointNetDevice]().GetQueue()
            q.SetMaxSize(ns.QueueSize(f"{int(buffer_pkts)}p"))
        return devs

    addr = ns.Ipv4AddressHelper()
    tch = ns.TrafficControlHelper()
    L, R = routers.Get(0), routers.Get(1)

    def assign(devs, subnet: str):
        addr.SetBase(ns.Ipv4Address(subnet), ns.Ipv4Mask("255.255.255.0"))
        ifaces = addr.Assign(devs)
        tch.Uninstall(devs)  # the default FqCoDel queue disc that Assign installed
        return ifaces

    bdevs = link(L, R, bn["rate_bps"], bn["delay_s"], bn["buffer_pkts"])
    assign(bdevs, "10.0.0.0")
    red = None
    if "step_k" in bn:
        k = float(bn["step_k"])
        bdevs.Get(0).GetObject[ns.PointToPointNetDevice]().GetQueue().SetMaxSize(ns.QueueSize("1p"))
        red_helper = ns.TrafficControlHelper()
        red_helper.SetRootQueueDisc(
            "ns3::RedQueueDisc",
            "MinTh",
            ns.DoubleValue(k),
            "MaxTh",
            ns.DoubleValue(k),
            "QW",
            ns.DoubleValue(1.0),
            "Gentle",
            ns.BooleanValue(False),
            "UseEcn",
            ns.BooleanValue(True),
            "UseHardDrop",
            ns.BooleanValue(False),
            "MaxSize",
            ns.QueueSizeValue(ns.QueueSize(f"{int(bn['buffer_pkts']) - 1}p")),
            "LinkBandwidth",
            ns.DataRateValue(ns.DataRate(int(round(bn["rate_bps"])))),
            "LinkDelay",
            ns.TimeValue(ns.NanoSeconds(int(round(bn["delay_s"] * 1e9)))),
        )
        red = red_helper.Install(bdevs.Get(0)).Get(0)
    rdev = bdevs.Get(1)  # R's bottleneck device receives the data
    hv.Init(n)
    if bn["loss"] > 0:
        em = ns.CreateObject[ns.RateErrorModel]()
        em.SetUnit(ns.RateErrorModel.ERROR_UNIT_PACKET)
        em.SetRate(bn["loss"])
        em.AssignStreams(1000)
        rdev.SetAttribute("ReceiveErrorModel", ns.PointerValue(em))
    hv.WatchRxDrops(rdev)
    hv.WatchTcDrops(L)

    sink_ifaces = []
    for i, f in enumerate(flows):
        sd = link(senders.Get(i), L, acc["rate_bps"], f["send_delay_s"], acc["buffer_pkts"])
        assign(sd, f"10.1.{i}.0")
        rd = link(R, receivers.Get(i), acc["rate_bps"], f["recv_delay_s"], acc["buffer_pkts"])
        sink_ifaces.append(assign(rd, f"10.2.{i}.0"))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    # Per-node congestion control: the sender's TcpL4Protocol makes its sockets.
    for i, f in enumerate(flows):
        tid = ns.TypeId.LookupByName(f["type"])
        senders.Get(i).GetObject[ns.TcpL4Protocol]().SetAttribute("SocketType", ns.TypeIdValue(tid))
        if "receiver_type" in f:
            rtid = ns.TypeId.LookupByName(f["receiver_type"])
            receivers.Get(i).GetObject[ns.TcpL4Protocol]().SetAttribute(
                "SocketType", ns.TypeIdValue(rtid)
            )
        for k, v in f.get("attributes", {}).items():
            ns.Config.SetDefault(f"{f['type']}::{k}", _value(ns, v))

    sinks, apps = [], []
    duration = float(cfg["duration"])
    for i, f in enumerate(flows):
        port = 5000 + i
        sink_helper = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        )
        sink_app = sink_helper.Install(receivers.Get(i))
        sink_app.Start(ns.Seconds(0))
        sinks.append(sink_app.Get(0).GetObject[ns.PacketSink]())
        dst = ns.InetSocketAddress(sink_ifaces[i].GetAddress(1), port).ConvertTo()
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(tcp["segment_size"]))
        app = bulk.Install(senders.Get(i))
        app.Start(ns.Seconds(f["start_s"]))
        apps.append(app.Get(0))
        hv.ScheduleConnect(app.Get(0), i, f["start_s"] + 1e-9)
    hv.StartProgress(max(duration / 40, 0.05))
    if "queue_sample_s" in cfg:
        every = float(cfg["queue_sample_s"])
        dev_queue = bdevs.Get(0).GetObject[ns.PointToPointNetDevice]().GetQueue()
        # The first sample at half time + every, as hscc's sample at the end of its first interval.
        hv.StartQueueSamples(
            dev_queue,
            red if red is not None else ns.Ptr[ns.QueueDisc](),
            duration / 2 + every,
            every,
        )
    return SimpleNamespace(ns=ns, hv=hv, bdevs=bdevs, sinks=sinks, apps=apps, red=red)


def run(cfg: dict) -> dict:
    _check(cfg)
    t_import = time.perf_counter()
    from ns import ns  # the bindings' import, timed apart from the set-up

    import_s = time.perf_counter() - t_import
    t_setup = time.perf_counter()
    net = build(cfg)
    hv, bdevs, sinks, flows, red = net.hv, net.bdevs, net.sinks, cfg["flows"], net.red
    duration = float(cfg["duration"])
    setup_s = time.perf_counter() - t_setup

    t_run, c_run = time.perf_counter(), time.process_time()
    half = duration / 2
    ns.Simulator.Stop(ns.Seconds(half))
    ns.Simulator.Run()
    rx_half = [int(s.GetTotalRx()) for s in sinks]
    ns.Simulator.Stop(ns.Seconds(duration - half))
    ns.Simulator.Run()
    rx_end = [int(s.GetTotalRx()) for s in sinks]
    run_s, run_cpu_s = time.perf_counter() - t_run, time.process_time() - c_run

    q = bdevs.Get(0).GetObject[ns.PointToPointNetDevice]().GetQueue()
    out = {
        "name": cfg["name"],
        "tool": "ns-3",
        "version": "3.44",
        "duration_s": duration,
        "flows": [
            {
                "flow": i,
                "type": f["type"],
                "start_s": f["start_s"],
                "rx_bytes_half": rx_half[i],
                "rx_bytes": rx_end[i],
                "recoveries": int(hv.recoveries[i]),
                "timeouts": int(hv.timeouts[i]),
                "ecn_reductions": int(hv.cwrs[i]),
            }
            for i, f in enumerate(flows)
        ],
        # Without a queue disc a full device queue stops its NetDeviceQueue and the traffic-control
        # layer drops the next packet (TcDrop): DropTail at the device queue's size. With RED the
        # queue disc drops (its statistics), its device queue never overflows.
        "bottleneck_queue_drops": int(q.GetTotalDroppedPackets())
        + int(hv.tc_drops)
        + (int(red.GetStats().nTotalDroppedPackets) if red is not None else 0),
        "bottleneck_random_drops": int(hv.rx_drops),
        "bottleneck_tx_packets": int(q.GetTotalReceivedPackets()) - int(q.GetTotalDroppedPackets()),
        "bottleneck_marks": int(red.GetStats().nTotalMarkedPackets) if red is not None else 0,
        "wall_s": {"import": import_s, "setup": setup_s, "run": run_s},
        "cpu_s": run_cpu_s,  # Simulator::Run only (the machine is shared: wall time depends on its load)
    }
    if "queue_sample_s" in cfg:
        out["queue_mean_second_half"] = int(hv.queue_sum) / int(hv.queue_n)
        out["queue_samples"] = int(hv.queue_n)
    ns.Simulator.Destroy()
    return out


def _value(ns, v):
    if isinstance(v, bool):
        return ns.BooleanValue(v)
    if isinstance(v, int):
        return ns.UintegerValue(v)
    if isinstance(v, float):
        return ns.DoubleValue(v)
    return ns.StringValue(str(v))


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: ns3_dumbbell.py CONFIG.json OUT.json", file=sys.stderr)
        return 2
    with open(argv[1]) as fh:
        cfg = json.load(fh)
    out = run(cfg)
    with open(argv[2], "w") as fh:
        json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
