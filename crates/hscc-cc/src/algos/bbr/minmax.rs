//! Kathleen Nichols' windowed min/max filter, as Linux's `lib/win_minmax.c`
//! (`struct minmax`): the best, second-best and third-best sample of a window,
//! kept in constant space. BBR keeps its bottleneck-bandwidth estimate in one,
//! with packet-timed rounds as the clock.

/// Linux `struct minmax_sample`: a value and the time it was measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinmaxSample {
    /// Time of the sample, in the caller's units (BBR: rounds).
    pub t: u32,
    /// The sample.
    pub v: u32,
}

/// Linux `struct minmax`: the three choices, best first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Minmax {
    /// Best, second and third choice.
    pub s: [MinmaxSample; 3],
}

impl Minmax {
    /// Linux `minmax_get`: the windowed best.
    #[inline]
    pub fn get(&self) -> u32 {
        self.s[0].v
    }

    /// Linux `minmax_reset`: forget everything, keep one sample.
    pub fn reset(&mut self, t: u32, meas: u32) -> u32 {
        let val = MinmaxSample { t, v: meas };
        self.s = [val; 3];
        meas
    }

    /// Linux `minmax_subwin_update`: age the choices as time advances.
    fn subwin_update(&mut self, win: u32, val: MinmaxSample) -> u32 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // A whole window without a new best: promote the 2nd and 3rd
            // choices, twice if the 2nd is also out of the window.
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window without a new best: a 2nd choice from the 2nd quarter.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half the window: a 3rd choice from the last half.
            self.s[2] = val;
        }
        self.s[0].v
    }

    /// Linux `minmax_running_max`: add a measurement, return the windowed max.
    pub fn running_max(&mut self, win: u32, t: u32, meas: u32) -> u32 {
        let val = MinmaxSample { t, v: meas };
        if val.v >= self.s[0].v || val.t.wrapping_sub(self.s[2].t) > win {
            return self.reset(t, meas);
        }
        if val.v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if val.v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_max_resets_and_an_old_one_expires_after_the_window() {
        let mut m = Minmax::default();
        assert_eq!(m.running_max(10, 0, 100), 100);
        // Lower samples do not replace the max within the window.
        assert_eq!(m.running_max(10, 3, 80), 100);
        assert_eq!(m.running_max(10, 6, 60), 100);
        // dt = 3 > 10/4: 80 (t = 3) became the 2nd choice; dt = 6 > 10/2: 60 the 3rd.
        assert_eq!(m.s[1], MinmaxSample { t: 3, v: 80 });
        assert_eq!(m.s[2], MinmaxSample { t: 6, v: 60 });
        // t = 11: 100 (t = 0) is 11 rounds old, out of a 10-round window; 80 takes over.
        assert_eq!(m.running_max(10, 11, 50), 80);
        // A larger value always resets.
        assert_eq!(m.running_max(10, 12, 500), 500);
        assert_eq!(m.s, [MinmaxSample { t: 12, v: 500 }; 3]);
    }
}
