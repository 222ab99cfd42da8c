use hscc_sim::prelude::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map_or(1, |s| s.parse().unwrap());
    let rate: u64 = args.get(2).map_or(100_000_000, |s| s.parse().unwrap());
    let buf: u64 = args.get(3).map_or(400, |s| s.parse().unwrap());
    let loss: f64 = args.get(4).map_or(0.0, |s| s.parse().unwrap());
    let dur: u64 = args.get(5).map_or(30, |s| s.parse().unwrap());
    let bn = LinkConfig::new(rate, 10 * MS, Buffer::Packets(buf)).with_loss(loss);
    let pairs: Vec<_> = (0..n)
        .map(|_| AccessSpec::new(rate * 10, 20 * MS))
        .collect();
    let db = dumbbell(
        bn.clone(),
        LinkConfig::new(rate, 10 * MS, Buffer::Packets(buf)),
        &pairs,
    );
    let flows = db
        .pairs
        .iter()
        .map(|&(s, d)| FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap()))
        .collect();
    let cfg = SimConfig {
        topology: db.topology,
        flows,
        duration: dur * SEC,
        seed: 1,
        sample_interval: Some(SEC),
        ..SimConfig::default()
    };
    let t = std::time::Instant::now();
    let r = Sim::new(cfg).unwrap().run();
    let wall = t.elapsed().as_secs_f64();
    for f in &r.flows {
        println!("flow {} goodput {:.2} Mbps cwnd {} srtt {:.1}ms sent {} retx {} lostfast {} rec {} to {} ss {:.2}s", f.id, f.goodput_bps/1e6, f.final_cwnd, f.srtt_s*1e3, f.counters.segs_sent, f.counters.retrans, f.counters.lost_fast, f.counters.recoveries, f.counters.timeouts, f.counters.slow_start_time as f64/1e12);
    }
    let b = &r.links[0];
    println!("bottleneck util {:.4} drops {} random {} meanq {:.2}ms p99 {:.2}ms; jain {:?}; events {} wall {:.3}s", b.utilization, b.counters.drops_queue, b.counters.drops_random, b.mean_qdelay_s*1e3, b.p99_qdelay_s*1e3, r.jain_index, r.events, wall);
    println!(
        "cwnd trace flow0: {:?}",
        &r.traces.flows[0].cwnd[..r.traces.flows[0].cwnd.len().min(30)]
    );
}
