//! The lean probe: the least work the CTCP test-bed shape allows, as a floor for hscc's cost.
//! 8 Reno flows on one host pair, 10 Gbit/s access links, a 700 Mbit/s drop-tail bottleneck
//! with a 1500-packet buffer, RTT 100 ms (49 ms access + 1 ms bottleneck each way), 1500-byte
//! data packets and 52-byte ACKs, 300 s simulated (`probe SECONDS` for another length).
//! `probe SECONDS FLOWS`: the flows bench's dumbbell instead (FLOWS Reno flows, each on a host
//! pair of its own with 100 Gbit/s access links, a 10 Gbit/s bottleneck with half a BDP of
//! buffer, RTT 20 ms: 9 ms access + 1 ms bottleneck each way).
//!
//! An event heap with three events per data packet: its arrival at the bottleneck (where it
//! is dropped or given its departure time; the sender's access link only adds serialization),
//! its arrival at the receiver (which never queues behind the bottleneck), and its ACK's arrival
//! at the sender (the ACK path never queues). Reno: slow start, +1/cwnd per ACK, a loss halves
//! the window once per round trip. What it omits: sequence numbers (segments are
//! interchangeable: a retransmission is the next segment sent), cumulative ACKs and SACK
//! (an ACK per packet; the sender knows which of its packets the bottleneck dropped and takes
//! one as lost when a packet sent after it is acknowledged: RACK without a reordering window),
//! delayed ACKs, RTT estimation (a fixed 1-s timeout, which marks the dropped packets lost),
//! host jitter, traces, and any per-flow statistics beyond what it prints.
//!
//! rustc -C opt-level=3 validation/probe/probe.rs -o probe  (std only; for any x86-64, as hscc is built)
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

const PS: u64 = 1_000_000_000_000; // picoseconds per second: every time is in ps
const MS: u64 = PS / 1000;
const DATA_BYTES: u64 = 1500;
const ACK_BYTES: u64 = 52;
const INIT_CWND: f64 = 10.0;
const RTO: u64 = PS;

const AT_BOTTLENECK: u8 = 0;
const AT_RECEIVER: u8 = 1;
const ACK_AT_SENDER: u8 = 2;
const TIMER: u8 = 3;

/// The network; every access link is the sender's own with `own_access`, else one shared.
struct Shape {
    flows: usize,
    bottleneck_bps: u64,
    access_bps: u64,
    access_delay: u64, // both access links of a direction
    bottleneck_delay: u64,
    buffer: usize,
    own_access: bool,
}

fn serialize(bytes: u64, bps: u64) -> u64 {
    bytes * 8 * PS / bps
}

#[derive(Default)]
struct Flow {
    cwnd: f64,
    ssthresh: f64,
    in_flight: u64,
    dropped: VecDeque<u64>, // send times of its packets the bottleneck dropped, not yet seen lost
    recover: u64,           // the last send time when the window was last halved
    last_sent: u64,
    rto_at: u64,
    timer_set: bool,
}

/// (time, order of scheduling, kind, flow, the packet's send time)
type Event = Reverse<(u64, u64, u8, u32, u64)>;

struct Sim {
    shape: Shape,
    heap: BinaryHeap<Event>,
    order: u64,
    flows: Vec<Flow>,
    access_free: Vec<u64>, // when each access link (or the shared one) is next free
    bottleneck_free: u64,
    queue: VecDeque<u64>, // departure times of the packets at the bottleneck
    sent: u64,
    delivered: u64,
    drops: u64,
}

impl Sim {
    fn at(&mut self, time: u64, kind: u8, flow: usize, sent: u64) {
        self.order += 1;
        self.heap
            .push(Reverse((time, self.order, kind, flow as u32, sent)));
    }

    fn send(&mut self, i: usize, now: u64) {
        while (self.flows[i].in_flight as f64) < self.flows[i].cwnd {
            let a = if self.shape.own_access { i } else { 0 };
            let t = self.access_free[a].max(now) + serialize(DATA_BYTES, self.shape.access_bps);
            self.access_free[a] = t;
            let f = &mut self.flows[i];
            f.in_flight += 1;
            f.last_sent = t;
            self.sent += 1;
            self.at(t + self.shape.access_delay, AT_BOTTLENECK, i, t);
        }
        if !self.flows[i].timer_set {
            self.flows[i].timer_set = true;
            let at = self.flows[i].rto_at.max(now + 1);
            self.at(at, TIMER, i, 0);
        }
    }
}

fn main() {
    let arg = |n: usize| {
        std::env::args()
            .nth(n)
            .map(|s| s.parse::<u64>().expect("a number"))
    };
    let seconds = arg(1).unwrap_or(300);
    let shape = match arg(2) {
        None => Shape {
            flows: 8,
            bottleneck_bps: 700_000_000,
            access_bps: 10_000_000_000,
            access_delay: 49 * MS,
            bottleneck_delay: MS,
            buffer: 1500,
            own_access: false,
        },
        Some(flows) => {
            let (bps, rtt_ms) = (10_000_000_000, 20);
            Shape {
                flows: flows as usize,
                bottleneck_bps: bps,
                access_bps: 100_000_000_000,
                access_delay: (rtt_ms / 2 - 1) * MS,
                bottleneck_delay: MS,
                buffer: (bps / 8 * rtt_ms / 1000 / DATA_BYTES / 2) as usize, // half a BDP
                own_access: true,
            }
        }
    };
    let end = seconds * PS;
    let ack_path = serialize(ACK_BYTES, shape.access_bps) * 2
        + serialize(ACK_BYTES, shape.bottleneck_bps)
        + shape.bottleneck_delay
        + shape.access_delay;
    let data_bottleneck = serialize(DATA_BYTES, shape.bottleneck_bps);
    let data_access = serialize(DATA_BYTES, shape.access_bps);
    let (flows, bottleneck_bps, buffer) = (shape.flows, shape.bottleneck_bps, shape.buffer);
    let mut s = Sim {
        flows: (0..flows).map(|_| Flow::default()).collect(),
        access_free: vec![0; if shape.own_access { flows } else { 1 }],
        shape,
        heap: BinaryHeap::new(),
        order: 0,
        bottleneck_free: 0,
        queue: VecDeque::new(),
        sent: 0,
        delivered: 0,
        drops: 0,
    };
    let wall = Instant::now();
    for i in 0..flows {
        let f = &mut s.flows[i];
        (f.cwnd, f.ssthresh, f.rto_at) = (INIT_CWND, f64::INFINITY, RTO);
        s.send(i, 0);
    }
    let mut events = 0u64;
    while let Some(Reverse((now, _, kind, flow, sent))) = s.heap.pop() {
        if now > end {
            break;
        }
        events += 1;
        let i = flow as usize;
        match kind {
            AT_BOTTLENECK => {
                while s.queue.front().is_some_and(|&d| d <= now) {
                    s.queue.pop_front();
                }
                if s.queue.len() >= buffer {
                    s.drops += 1;
                    s.flows[i].dropped.push_back(sent);
                } else {
                    let departs = s.bottleneck_free.max(now) + data_bottleneck;
                    s.bottleneck_free = departs;
                    s.queue.push_back(departs);
                    s.at(
                        departs + s.shape.bottleneck_delay + data_access,
                        AT_RECEIVER,
                        i,
                        sent,
                    );
                }
            }
            AT_RECEIVER => {
                s.delivered += 1;
                s.at(now + ack_path, ACK_AT_SENDER, i, sent);
            }
            ACK_AT_SENDER => {
                let f = &mut s.flows[i];
                f.in_flight -= 1;
                f.rto_at = now + RTO;
                while f.dropped.front().is_some_and(|&d| d < sent) {
                    let d = f.dropped.pop_front().unwrap();
                    f.in_flight -= 1;
                    if d > f.recover {
                        f.ssthresh = (f.cwnd / 2.0).max(2.0);
                        f.cwnd = f.ssthresh;
                        f.recover = f.last_sent;
                    }
                }
                if sent > f.recover {
                    f.cwnd += if f.cwnd < f.ssthresh {
                        1.0
                    } else {
                        1.0 / f.cwnd
                    };
                }
                s.send(i, now);
            }
            _ => {
                let f = &mut s.flows[i];
                f.timer_set = false;
                if now >= f.rto_at && !f.dropped.is_empty() {
                    f.in_flight -= f.dropped.len() as u64;
                    f.dropped.clear();
                    f.ssthresh = (f.cwnd / 2.0).max(2.0);
                    (f.cwnd, f.recover, f.rto_at) = (1.0, f.last_sent, now + RTO);
                }
                s.send(i, now);
            }
        }
    }
    let wall = wall.elapsed().as_secs_f64();
    let utilization = (s.delivered * DATA_BYTES * 8) as f64 / (bottleneck_bps * seconds) as f64;
    let (rate, rtt) = (
        bottleneck_bps / 1_000_000,
        2 * (s.shape.access_delay + s.shape.bottleneck_delay) / MS,
    );
    println!("probe: {flows} Reno flows, {rate} Mbit/s, RTT {rtt} ms, {buffer} packets, {seconds} s simulated");
    println!("  events                    {events}");
    println!("  data segments sent        {}", s.sent);
    println!("  data segments delivered   {}", s.delivered);
    println!("  bottleneck drops          {}", s.drops);
    println!("  bottleneck utilization    {utilization:.4}");
    println!("  wall time                 {wall:.3} s");
    println!(
        "  ns per event              {:.1}",
        wall * 1e9 / events as f64
    );
}
