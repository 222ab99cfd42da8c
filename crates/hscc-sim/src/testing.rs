//! Support for the engine's tests (cargo feature `testing`, which this
//! crate's own tests turn on): wires that stand in for the network, a
//! harness that drives one sender across a scripted path, hand-made ACKs, and
//! the small flows the tests start from. One copy here, so a change to the
//! sender's interface is made once.

use std::collections::BTreeMap;

use hscc_cc::CcParams;

use crate::config::FlowConfig;
use crate::event::EventQueue;
use crate::packet::{Kind, Packet};
use crate::rng::{component_rng, Component, Rng};
use crate::tcp::receiver::RxAction;
use crate::tcp::sender::Wire;
use crate::tcp::{Receiver, Sender};
use crate::time::{Time, MS};

/// Keeps the timers and forgets what is sent (for tests that acknowledge by
/// sequence number, and windows too large to keep).
#[derive(Default)]
pub struct NullWire {
    /// The current time, ps; the test moves it.
    pub now: Time,
    /// Where the sender arms its timers.
    pub q: EventQueue,
}

impl Wire for NullWire {
    fn now(&self) -> Time {
        self.now
    }
    fn queue(&mut self) -> &mut EventQueue {
        &mut self.q
    }
    fn send(&mut self, _: Packet, _: Time) {}
}

/// Keeps the timers and everything sent.
#[derive(Default)]
pub struct Capture {
    /// The current time, ps; the test moves it.
    pub now: Time,
    /// Where the sender arms its timers.
    pub q: EventQueue,
    /// Every packet handed over, in order.
    pub sent: Vec<Packet>,
    /// For each of them: when it was handed over and when it reaches the first link, ps.
    pub times: Vec<(Time, Time)>,
}

impl Wire for Capture {
    fn now(&self) -> Time {
        self.now
    }
    fn queue(&mut self) -> &mut EventQueue {
        &mut self.q
    }
    fn send(&mut self, p: Packet, at: Time) {
        self.sent.push(p);
        self.times.push((self.now, at));
    }
}

/// Flow `id`'s random stream in a run seeded `seed`, as the simulator draws it.
pub fn flow_rng(seed: u64, id: u64) -> Rng {
    component_rng(seed, Component::Sender, id)
}

/// Flow 0 of a run seeded 1 with `cfg`, started at time 0 on a fresh wire.
pub fn started<W: Wire + Default>(cfg: &FlowConfig) -> (Sender, W) {
    let mut s = Sender::new(0, cfg, flow_rng(1, 0));
    let mut w = W::default();
    s.start(&mut w);
    (s, w)
}

/// An ACK of flow 0 for everything below segment `seq`, with SACK blocks
/// `sack` given as [start, end) segment numbers.
pub fn ack(seq: u64, sack: &[(u64, u64)]) -> Packet {
    let mut p = Packet::ack(0, seq, 52, 0, 0);
    for (i, &(a, b)) in sack.iter().enumerate() {
        p.sack[i] = ((a - seq) as u32, (b - seq) as u32);
    }
    p.nsack = sack.len() as u8;
    p
}

/// A Reno bulk flow from host 0 to host 1, every other knob at its default.
pub fn reno() -> FlowConfig {
    FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap())
}

/// [`reno`] with Linux's loss recovery: RACK-TLP, D-SACK, undo, F-RTO.
pub fn linux() -> FlowConfig {
    reno().with_linux_recovery()
}

/// [`reno`] with RFC 6675 / RFC 6582 recovery: three duplicate ACKs, classic
/// window reduction, no undo.
pub fn classic() -> FlowConfig {
    reno().with_classic_recovery()
}

/// One-way delay of a [`ScriptedPath`] unless its script says otherwise, ps.
pub const OWD: Time = 50 * MS;

/// What a path does to the `n`-th transmission (0: the original) of segment
/// `seq` sent at `t`: its arrival time, or None if it is lost.
pub type Script = Box<dyn Fn(u64, u32, Time) -> Option<Time>>;

/// Drop the listed transmissions (seq, n); everything else takes [`OWD`].
pub fn dropping(list: &'static [(u64, u32)]) -> Script {
    Box::new(move |seq, n, t| (!list.contains(&(seq, n))).then_some(t + OWD))
}

/// One sender and its receiver across a path whose data direction follows a
/// [`Script`]; ACKs take [`OWD`]. Delayed ACKs and host jitter are off, so
/// every time is computable by hand; the scoreboard is checked after every event.
pub struct ScriptedPath {
    /// The sender under test.
    pub s: Sender,
    /// Its receiver.
    pub r: Receiver,
    /// The sender's side of the path.
    pub w: Capture,
    script: Script,
    /// Packets on their way, by (arrival, order).
    wire: BTreeMap<(Time, u64), Packet>,
    /// Packets put on the path so far (ties at one arrival time keep this order).
    order: u64,
    /// Transmissions so far of each segment.
    count: BTreeMap<u64, u32>,
    /// (time, seq, retransmission) of every transmission.
    pub log: Vec<(Time, u64, bool)>,
}

impl ScriptedPath {
    /// Flow 0 of a run seeded 1 with `cfg` (delayed ACKs and jitter turned
    /// off), started at time 0.
    pub fn new(cfg: FlowConfig, script: Script) -> ScriptedPath {
        ScriptedPath::prepared(cfg, script, |_| {})
    }

    /// [`ScriptedPath::new`] with `prepare` applied to the sender before it
    /// starts (a test's stand-in for the algorithm, its pacing).
    pub fn prepared(
        cfg: FlowConfig,
        script: Script,
        prepare: impl FnOnce(&mut Sender),
    ) -> ScriptedPath {
        let cfg = FlowConfig {
            delayed_ack: false,
            ..cfg.without_jitter()
        };
        let mut s = Sender::new(0, &cfg, flow_rng(1, 0));
        prepare(&mut s);
        let mut run = ScriptedPath {
            s,
            r: Receiver::new(&cfg),
            w: Capture::default(),
            script,
            wire: BTreeMap::new(),
            order: 0,
            count: BTreeMap::new(),
            log: Vec::new(),
        };
        run.s.start(&mut run.w);
        run.collect();
        run
    }

    /// Put what the sender sent on the path.
    fn collect(&mut self) {
        let now = self.w.now;
        self.w.times.clear();
        for p in std::mem::take(&mut self.w.sent) {
            let n = self.count.entry(p.seq).or_insert(0);
            self.log.push((now, p.seq, p.is_retrans()));
            if let Some(at) = (self.script)(p.seq, *n, now) {
                self.wire.insert((at, self.order), p);
                self.order += 1;
            }
            *n += 1;
        }
    }

    /// The application writes `bytes` more now ([`Sender::append`]).
    pub fn append(&mut self, bytes: u64) -> u64 {
        let segs = self.s.append(bytes, &mut self.w);
        self.collect();
        segs
    }

    /// Run events until `end` (at most 100 000 of them).
    pub fn run_until(&mut self, end: Time) {
        for _ in 0..100_000 {
            let timer = self.s.rto_timer.deadline;
            let pace = self.s.pace_timer.deadline;
            let next = self.wire.keys().next().copied();
            let t = match next {
                Some((t, _)) if t <= timer.min(pace) => t,
                _ => timer.min(pace),
            };
            if t > end || self.s.done_at.is_some() {
                return;
            }
            self.w.now = t;
            if pace == t && next.is_none_or(|(a, _)| a > t) && timer > t {
                self.s.pace_timer.cancel();
                self.s.on_pace(&mut self.w);
            } else if next.is_some_and(|(a, _)| a == t) {
                let (_, p) = self.wire.pop_first().unwrap();
                if p.kind == Kind::Data {
                    if let RxAction::AckNow = self.r.on_data(&p, t) {
                        if let Some(a) = self.r.take_prior_ack(0, t) {
                            self.wire.insert((t + OWD, self.order), a);
                            self.order += 1;
                        }
                        let a = self.r.make_ack(0, t);
                        self.wire.insert((t + OWD, self.order), a);
                        self.order += 1;
                    }
                } else {
                    self.s.on_ack(&p, &mut self.w);
                }
            } else {
                self.s.on_timer(&mut self.w);
            }
            self.s.check_scoreboard().unwrap();
            self.collect();
        }
        panic!("more than 100 000 events");
    }

    /// Times at which segment `seq` was sent.
    pub fn sends(&self, seq: u64) -> Vec<Time> {
        self.log
            .iter()
            .filter(|&&(_, s, _)| s == seq)
            .map(|&(t, _, _)| t)
            .collect()
    }
}
