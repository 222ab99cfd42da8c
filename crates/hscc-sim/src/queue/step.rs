//! Step marking: the switch of the DCTCP paper (Alizadeh et al., SIGCOMM
//! 2010 §3.1, "a very simple active queue management scheme") and of RFC
//! 8257 §3.1: an arriving ECN-capable packet is CE-marked when the
//! instantaneous queue, not an average, is at or above K — here when at
//! least K packets (or K bytes of frames) wait ahead of it, not counting the
//! one being serialized, as the buffer counts them. Nothing is dropped early:
//! a packet that does not fit the buffer is dropped, marked or not.
//!
//! RED cannot be set up as this exactly: it compares an average (`w_q` = 1
//! makes it instantaneous) and needs min_th < max_th, with a random region
//! between them. ns-3's DCTCP example uses RED with MinTh = MaxTh = K and an
//! instantaneous weight to the same effect.

use super::{Fifo, Limits, Tally, Why};
use crate::packet::Packet;
pub use hscc_model::queue::StepParams;

/// A step-marking queue.
#[derive(Debug)]
pub struct Step {
    prm: StepParams,
    lim: Limits,
    q: Fifo,
}

impl Step {
    /// An empty queue.
    pub fn new(prm: &StepParams, lim: Limits) -> Step {
        Step {
            prm: *prm,
            lim,
            q: Fifo::default(),
        }
    }

    /// The waiting packets.
    pub fn queue(&self) -> &Fifo {
        &self.q
    }

    /// Whether the queue is at or above K.
    #[inline]
    fn at_threshold(&self) -> bool {
        match (self.prm.k_packets, self.prm.k_bytes) {
            (Some(k), _) => self.q.len() as u64 >= k,
            (None, Some(k)) => self.q.bytes() >= k,
            (None, None) => false,
        }
    }

    /// `p` arrives: marked when the queue is at or above K, dropped when full.
    #[inline]
    pub fn enqueue(&mut self, mut p: Packet, tally: &mut Tally) -> bool {
        if !self.q.fits(&p, &self.lim) {
            tally.drop_arriving(&p, Why::Overflow);
            return false;
        }
        if self.at_threshold() {
            tally.mark(&mut p, true);
        }
        self.q.push(p, &self.lim);
        true
    }

    /// The transmitter takes the head.
    #[inline]
    pub fn dequeue(&mut self) -> Option<Packet> {
        self.q.pop(&self.lim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::CE;
    use crate::queue::testing::{limits, pkt, Books};

    fn marked(q: &mut Step, b: &mut Books, ect: bool) -> bool {
        let before = b.counters.marks;
        assert!(q.enqueue(pkt(0, 0, ect), &mut b.tally()));
        let p = q.q.iter().last().unwrap();
        assert_eq!(p.flags & CE != 0, b.counters.marks > before);
        b.counters.marks > before
    }

    #[test]
    fn marks_from_exactly_k_packets_waiting_never_below() {
        let prm = StepParams {
            k_packets: Some(3),
            k_bytes: None,
        };
        let mut q = Step::new(&prm, limits(5));
        let mut b = Books::default();
        // 0, 1, 2 waiting ahead: not marked; 3 and 4: marked.
        let got: Vec<bool> = (0..5).map(|_| marked(&mut q, &mut b, true)).collect();
        assert_eq!(got, [false, false, false, true, true]);
        // Full: the sixth is dropped, not marked.
        assert!(!q.enqueue(pkt(0, 0, true), &mut b.tally()));
        assert_eq!((b.counters.drops_queue, b.counters.marks), (1, 2));
        // Draining below K stops the marks; a Not-ECT packet is never marked.
        q.dequeue();
        q.dequeue();
        q.dequeue();
        assert!(!marked(&mut q, &mut b, true), "2 waiting");
        assert!(marked(&mut q, &mut b, true), "3 waiting");
        q.dequeue();
        assert!(!marked(&mut q, &mut b, false), "Not-ECT at 3 waiting");
    }

    #[test]
    fn a_byte_threshold_counts_frames() {
        let prm = StepParams {
            k_packets: None,
            k_bytes: Some(3000),
        };
        let mut q = Step::new(&prm, limits(10));
        let mut b = Books::default();
        let got: Vec<bool> = (0..4).map(|_| marked(&mut q, &mut b, true)).collect();
        assert_eq!(
            got,
            [false, false, true, true],
            "1500-byte packets: 2 = 3000 B"
        );
    }
}
