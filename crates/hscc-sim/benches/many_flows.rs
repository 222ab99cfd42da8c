//! Sync-TCP §VI.B's scale: N long Reno flows (default 256; `-- 1024` for more)
//! on a 1 Gbit/s dumbbell with access delays of 5–25 ms, plus web traffic
//! (200 transfers/s, Pareto sizes with mean 12 kB), 60 s simulated.

use std::time::Instant;

use hscc_sim::prelude::*;

// The allocator hscc runs with (the Python extension's), not the system's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(256);
    let bn = LinkConfig::new(1_000_000_000, 25 * MS, Buffer::Packets(4000));
    let pairs: Vec<AccessSpec> = (0..n + 8)
        .map(|i| AccessSpec::new(10_000_000_000, (5 + (i % 21) as u64) * MS))
        .collect();
    let db = dumbbell(bn.clone(), bn, &pairs);
    let flows = db.pairs[..n]
        .iter()
        .map(|&(s, d)| FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap()))
        .collect();
    let web = WebConfig {
        servers: db.pairs[n..].iter().map(|p| p.0).collect(),
        clients: db.pairs[n..].iter().map(|p| p.1).collect(),
        rate: 200.0,
        size: SizeDist::Pareto {
            shape: 1.2,
            mean: 12_000.0,
        },
        tcp: FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap()),
        start: 0,
        stop: None,
        model: WebModel::Transfers,
    };
    let cfg = SimConfig {
        topology: db.topology,
        flows,
        web: vec![web],
        duration: 60 * SEC,
        sample_interval: Some(SEC),
        ..SimConfig::default()
    };
    let start = Instant::now();
    let r = Sim::new(cfg).expect("valid scenario").run();
    let wall = start.elapsed().as_secs_f64();
    let data: u64 = r.flows.iter().map(|f| f.counters.delivered_segs).sum();
    println!("many flows: {n} reno flows + web traffic, 1 Gbit/s, 60 s simulated");
    println!("  bottleneck utilization  {:.4}", r.links[0].utilization);
    println!("  Jain index (long flows) {:?}", r.jain_index);
    println!(
        "  web transfers completed {} of {}",
        r.web[0].completed, r.web[0].started
    );
    println!("  wall time               {wall:.3} s");
    println!("  data segments/s         {:.0}", data as f64 / wall);
    println!("  events/s                {:.0}", r.events as f64 / wall);
}
