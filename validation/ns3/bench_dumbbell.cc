// A dumbbell in ns-3's C++ API (Debian's libns3-dev, 3.37), for the speed comparison of
// scripts/bench.py (the `refs` part): the set-up of validation/ns3/ns3_dumbbell.py without
// its traces, every flow NewReno with SACK and classic recovery, sized by its arguments.
//
//   g++ -O2 -std=c++17 bench_dumbbell.cc -lns3-applications -lns3-internet \
//       -lns3-point-to-point -lns3-traffic-control -lns3-network -lns3-core -o bench_dumbbell
//   bench_dumbbell FLOWS BOTTLENECK_BPS BOTTLENECK_DELAY_S BUFFER_PKTS ACCESS_BPS \
//       SEND_DELAY_S RECV_DELAY_S DURATION_S MSS INIT_CWND MIN_RTO_S
//
// S_i --access(SEND_DELAY)-- L ==bottleneck== R --access(RECV_DELAY)-- D_i, PointToPoint
// links, the default FqCoDel queue discs removed so that each device's DropTailQueue (BUFFER
// packets on the bottleneck, 100 000 on the access links) is the only queue. An ACK per
// segment (DelAckCount 1), no timestamps, BulkSend senders. It prints one line of JSON: the
// CPU time of Simulator::Run alone (std::clock: this process's user + system time), the
// events it executed (Simulator::GetEventCount), and the bytes the sinks received.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>

using namespace ns3;

int
main(int argc, char* argv[])
{
    if (argc != 12)
    {
        std::fprintf(stderr, "usage: %s FLOWS BN_BPS BN_DELAY_S BUFFER_PKTS ACCESS_BPS "
                             "SEND_DELAY_S RECV_DELAY_S DURATION_S MSS INIT_CWND MIN_RTO_S\n",
                     argv[0]);
        return 2;
    }
    uint32_t n = std::atoi(argv[1]);
    double bnRate = std::atof(argv[2]), bnDelay = std::atof(argv[3]);
    uint32_t buffer = std::atoi(argv[4]);
    double accRate = std::atof(argv[5]), sendDelay = std::atof(argv[6]);
    double recvDelay = std::atof(argv[7]), duration = std::atof(argv[8]);
    uint32_t mss = std::atoi(argv[9]), initCwnd = std::atoi(argv[10]);
    double minRto = std::atof(argv[11]);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 27));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 27));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));

    NodeContainer routers, senders, receivers;
    routers.Create(2);
    senders.Create(n);
    receivers.Create(n);
    InternetStackHelper stack;
    stack.InstallAll();
    Ipv4AddressHelper addr;
    TrafficControlHelper tch;
    auto link = [&](Ptr<Node> a, Ptr<Node> b, double rate, double delay, uint32_t pkts,
                    const char* subnet) {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(rate))));
        p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(int64_t(delay * 1e9 + 0.5))));
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize",
                     QueueSizeValue(QueueSize(std::to_string(pkts) + "p")));
        NetDeviceContainer devs = p2p.Install(a, b);
        addr.SetBase(subnet, "255.255.255.0");
        Ipv4InterfaceContainer ifs = addr.Assign(devs);
        tch.Uninstall(devs); // the FqCoDel queue disc Assign installed
        return ifs;
    };
    link(routers.Get(0), routers.Get(1), bnRate, bnDelay, buffer, "10.0.0.0");
    std::vector<Ipv4InterfaceContainer> sinkIfs;
    for (uint32_t i = 0; i < n; i++)
    {
        std::string s = "10.1." + std::to_string(i) + ".0", d = "10.2." + std::to_string(i) + ".0";
        link(senders.Get(i), routers.Get(0), accRate, sendDelay, 100000, s.c_str());
        sinkIfs.push_back(link(routers.Get(1), receivers.Get(i), accRate, recvDelay, 100000,
                               d.c_str()));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < n; i++)
    {
        uint16_t port = 5000 + i;
        PacketSinkHelper sh("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sh.Install(receivers.Get(i));
        sa.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(sinkIfs[i].GetAddress(1), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(mss));
        bulk.Install(senders.Get(i)).Start(Seconds(0));
    }

    Simulator::Stop(Seconds(duration));
    std::clock_t c0 = std::clock();
    Simulator::Run();
    double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    uint64_t rx = 0;
    for (auto& s : sinks)
    {
        rx += s->GetTotalRx();
    }
    std::printf("{\"run_cpu_s\": %.6f, \"events\": %llu, \"rx_bytes\": %llu}\n", cpu,
                (unsigned long long)Simulator::GetEventCount(), (unsigned long long)rx);
    Simulator::Destroy();
    return 0;
}
