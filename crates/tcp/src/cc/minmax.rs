//! A windowed running maximum over three samples, after Kathleen Nichols'
//! algorithm as Linux keeps it (`lib/win_minmax.c`, `minmax_running_max`): the
//! best, second-best and third-best samples of the window, each newer than the
//! one before, so that when the best ages out of the window the next takes its
//! place without storing every sample. Time is any monotone count (BBR: rounds).

/// One sample: its time and value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    t: u64,
    v: u64,
}

/// The running maximum (`struct minmax`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MaxFilter {
    s: [Sample; 3],
}

impl MaxFilter {
    /// The maximum of the window.
    pub(crate) fn get(&self) -> u64 {
        self.s[0].v
    }

    /// `minmax_reset`: every choice is this sample.
    pub(crate) fn reset(&mut self, t: u64, v: u64) -> u64 {
        self.s = [Sample { t, v }; 3];
        v
    }

    /// `minmax_running_max`: takes `v` measured at `t`, over a window of `win`.
    pub(crate) fn update(&mut self, win: u64, t: u64, v: u64) -> u64 {
        let val = Sample { t, v };
        if v >= self.s[0].v || t.saturating_sub(self.s[2].t) > win {
            return self.reset(t, v); // a new maximum, or nothing left in the window
        }
        if v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// `minmax_subwin_update`: age the choices out of the window.
    fn subwin_update(&mut self, win: u64, val: Sample) -> u64 {
        let dt = val.t.saturating_sub(self.s[0].t);
        if dt > win {
            // The best is out of the window: the second becomes it, the third the second.
            self.s = [self.s[1], self.s[2], val];
            if val.t.saturating_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window without a second choice: take one from the second quarter.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half of the window without a third choice: take one from the second half.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_maximum_ages_out_after_the_window() {
        let mut f = MaxFilter::default();
        f.update(10, 0, 100);
        for t in 1..=10 {
            assert_eq!(f.update(10, t, 50), 100, "round {t}: still inside the window");
        }
        assert_eq!(f.update(10, 11, 50), 50, "11 rounds on, the 100 is gone");
    }

    #[test]
    fn a_larger_sample_replaces_the_maximum_at_once() {
        let mut f = MaxFilter::default();
        f.update(10, 0, 100);
        assert_eq!(f.update(10, 3, 120), 120);
        assert_eq!(f.update(10, 4, 80), 120);
    }
}
