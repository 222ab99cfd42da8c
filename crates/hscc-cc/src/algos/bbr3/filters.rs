//! BBR.max_bw_filter (draft-ietf-ccwg-bbr-06 §5.5.3–5.5.6, BBR.MaxBwFilterLen §2.11): a windowed max
//! of delivery-rate samples whose clock is BBR.cycle_count, one tick per
//! ProbeBW cycle, with BBR.MaxBwFilterLen = 2 cycles.
//!
//! The draft's window is "the current cycle and the previous full cycle" and
//! it notes that cycle_count needs a single bit; a generic Kathleen Nichols
//! filter with window 2 would keep a sample through three cycles (it expires
//! a sample only when it is *more* than the window old). This filter keeps
//! exactly two slots: the max of the current cycle and of the previous one.

/// The two-cycle max filter and its clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaxBwFilter {
    /// BBR.cycle_count: ProbeBW cycles so far (wrapping).
    pub cycle_count: u32,
    /// Max sample of each cycle, indexed by the cycle's parity.
    pub slots: [u32; 2],
}

impl MaxBwFilter {
    /// BBR.max_bw: the max over the current and the previous cycle.
    #[inline]
    pub fn get(&self) -> u32 {
        self.slots[0].max(self.slots[1])
    }

    /// UpdateWindowedMaxFilter with a sample taken in cycle `cycle`.
    pub fn update(&mut self, cycle: u32, sample: u32) {
        let slot = &mut self.slots[(cycle & 1) as usize];
        *slot = (*slot).max(sample);
    }

    /// AdvanceMaxBwFilter: the next cycle starts empty; the oldest slot is forgotten.
    pub fn advance(&mut self) {
        self.cycle_count = self.cycle_count.wrapping_add(1);
        self.slots[(self.cycle_count & 1) as usize] = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_lives_through_its_cycle_and_the_next() {
        let mut f = MaxBwFilter::default();
        f.update(0, 100);
        f.update(0, 80);
        assert_eq!(f.get(), 100);
        f.advance();
        f.update(f.cycle_count, 60);
        // Cycle 1: 100 from cycle 0 is still in the window.
        assert_eq!(f.get(), 100);
        f.advance();
        // Cycle 2: cycle 0 is forgotten, 60 from cycle 1 remains.
        assert_eq!(f.get(), 60);
        assert_eq!(f.slots, [0, 60]);
    }
}
