//! The CTCP paper's test-bed shape (§VI.A): 8 Reno flows over a 700 Mbit/s
//! DropTail bottleneck with a 1500-packet buffer, 100 ms RTT, 300 s simulated.
//! Prints delivered packets per wall second, wall time and peak memory.
//!
//! `cargo bench -p hscc-sim --bench testbed` (add `-- 60` for a 60 s run;
//! `-- 60 codel` puts a queue discipline on the bottleneck: red, codel,
//! fq_codel or pie with its defaults and the same 1500-packet limit; add
//! `ecn` for ECN on the flows and the discipline; `classic` for three-duplicate-ACK
//! recovery without RACK-TLP, D-SACK, undo or F-RTO instead of Linux's;
//! `cclog` for the per-ACK congestion-control log of every flow; `cc=NAME`
//! runs every flow with that algorithm, e.g. `cc=bbr` (paced);
//! `pcap` to capture flow 0 at its host and the bottleneck at its input,
//! docs/traces.md); `nofold` runs every hop on its own (`link/fold.rs`:
//! the same results, more events).

use std::time::Instant;

use hscc_sim::capture::{CaptureConfig, CaptureFile, CapturePoint};
use hscc_sim::prelude::*;

// The allocator hscc runs with (the Python extension's), not the system's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seconds: u64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(300);
    let ecn = args.iter().any(|a| a == "ecn");
    let classic = args.iter().any(|a| a == "classic");
    let cc_log = args.iter().any(|a| a == "cclog");
    let pcap = args.iter().any(|a| a == "pcap");
    let nofold = args.iter().any(|a| a == "nofold");
    let nojitter = args.iter().any(|a| a == "nojitter");
    // `cc=NAME`: every flow runs that algorithm instead of Reno (e.g. cc=bbr, which paces).
    let algo = args
        .iter()
        .find_map(|a| a.strip_prefix("cc="))
        .unwrap_or("reno");
    let cc = CcParams::from_name(algo).unwrap_or_else(|e| panic!("cc={algo}: {e}"));
    let queue = match args
        .iter()
        .find(|a| {
            a.parse::<u64>().is_err()
                && !["ecn", "classic", "cclog", "pcap", "nofold", "nojitter"].contains(&a.as_str())
                && !a.starts_with('-')
                && !a.starts_with("cc=")
        })
        .map(String::as_str)
    {
        None | Some("droptail") => QueueConfig::DropTail,
        Some("red") => QueueConfig::Red(RedParams {
            ecn,
            ..RedParams::default()
        }),
        Some("codel") => QueueConfig::Codel(CodelParams {
            ecn,
            ..CodelParams::default()
        }),
        Some("fq_codel") => QueueConfig::FqCodel(FqCodelParams {
            ecn,
            ..FqCodelParams::default()
        }),
        Some("pie") => QueueConfig::Pie(PieParams {
            ecn,
            ..PieParams::default()
        }),
        Some(other) => panic!("unknown queue {other:?}: droptail, red, codel, fq_codel or pie"),
    };
    let rate = 700_000_000;
    // RTT 100 ms: 2 × (49 ms access + 1 ms bottleneck).
    let bottleneck = LinkConfig::new(rate, MS, Buffer::Packets(1500)).with_queue(queue.clone());
    let pairs: Vec<AccessSpec> = (0..8)
        .map(|_| AccessSpec::new(10_000_000_000, 49 * MS))
        .collect();
    let db = dumbbell(bottleneck.clone(), bottleneck, &pairs);
    let flow = |s, d| FlowConfig {
        ecn,
        cc_log,
        host_jitter: if nojitter {
            0
        } else {
            FlowConfig::bulk(s, d, cc.clone()).host_jitter
        },
        ..FlowConfig::bulk(s, d, cc.clone())
    };
    let flows = db
        .pairs
        .iter()
        .map(|&(s, d)| {
            if classic {
                flow(s, d).with_classic_recovery()
            } else {
                flow(s, d)
            }
        })
        .collect();
    let mut cfg = SimConfig {
        topology: db.topology,
        flows,
        duration: seconds * SEC,
        seed: 1,
        sample_interval: Some(100 * MS),
        ..SimConfig::default()
    };
    if pcap {
        let file = |at, file: &str| CaptureFile {
            at,
            file: file.into(),
        };
        cfg.capture = CaptureConfig {
            files: vec![
                file(CapturePoint::Flow(0), "flow.pcap"),
                file(CapturePoint::Link(0), "bottleneck.pcap"),
            ],
            snaplen: 128,
        };
    }

    let start = Instant::now();
    let mut sim = Sim::new(cfg).expect("valid scenario");
    if nofold {
        sim.net.unfold();
    }
    let r = sim.run();
    let wall = start.elapsed().as_secs_f64();

    let delivered: u64 = r
        .flows
        .iter()
        .map(|f| f.counters.delivered_segs + f.counters.acks_sent)
        .sum();
    let data: u64 = r.flows.iter().map(|f| f.counters.delivered_segs).sum();
    let recovery = if classic {
        "three duplicate ACKs"
    } else {
        "Linux's (RACK-TLP, D-SACK, undo, F-RTO)"
    };
    println!("testbed: 8 {algo} flows, 700 Mbit/s, RTT 100 ms, 1500-packet buffer, {seconds} s simulated, {recovery} recovery");
    println!(
        "  queue                   {queue:?}{}",
        if ecn { ", ECN" } else { "" }
    );
    println!("  bottleneck utilization  {:.4}", r.links[0].utilization);
    let c = &r.links[0].counters;
    println!(
        "  bottleneck drops/marks  {} queue, {} aqm, {} marks; mean queuing delay {:.2} ms",
        c.drops_queue,
        c.drops_aqm,
        c.marks,
        r.links[0].mean_qdelay_s * 1e3
    );
    println!("  data segments delivered {data}");
    println!("  packets delivered       {delivered} (data + ACKs)");
    println!("  events                  {}", r.events);
    let sum = |c: fn(&hscc_sim::stats::FlowCounters) -> u64| {
        r.flows.iter().map(|f| c(&f.counters)).sum::<u64>()
    };
    println!(
        "  recoveries {}, timeouts {}, retransmissions {}, RACK-marked {}, probes {}, undos {}",
        sum(|c| c.recoveries),
        sum(|c| c.timeouts),
        sum(|c| c.retrans),
        sum(|c| c.rack_lost),
        sum(|c| c.tlps),
        sum(|c| c.undos)
    );
    println!("  wall time               {wall:.3} s");
    println!("  delivered packets/s     {:.0}", delivered as f64 / wall);
    println!("  data segments/s         {:.0}", data as f64 / wall);
    println!("  events/s                {:.0}", r.events as f64 / wall);
    if cc_log {
        let rows: usize = r.cc_log.iter().map(|l| l.calls.len()).sum();
        println!(
            "  per-ACK log             {rows} rows, {} ACKs sent",
            sum(|c| c.acks_sent)
        );
    }
    for (name, bytes) in &r.captures.files {
        // Raw IPv4 records: a 24-byte file header, then 16 bytes and the packet (at most 128) each.
        let mut packets = 0u64;
        let mut at = 24;
        while at + 16 <= bytes.len() {
            packets += 1;
            at += 16 + u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        }
        println!(
            "  capture {name:<16} {packets} packets, {:.1} MB",
            bytes.len() as f64 / 1e6
        );
    }
    if let Some(mb) = peak_rss_mb() {
        println!("  peak memory             {mb:.1} MB");
    }
}
