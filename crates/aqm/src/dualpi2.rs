//! STUB (being written): DualPI2.

use ecnlab_wire::Instant;
use rand::RngCore;

use crate::aqm::SchedAqm;
use crate::backlog::Backlog;
use crate::config::DualPi2Params;
use crate::error::ConfigError;
use crate::verdict::Verdict;

#[derive(Clone, Debug)]
pub(crate) struct DualPi2;

impl DualPi2 {
    pub(crate) fn new(_p: &DualPi2Params) -> Self {
        DualPi2
    }
}

impl DualPi2Params {
    pub fn validate(&self) -> Result<(), ConfigError> {
        Ok(())
    }
}

impl SchedAqm for DualPi2 {
    fn tick<B: Backlog>(&mut self, _now: Instant, _b: &B) {}
    fn on_enqueue<R: RngCore + ?Sized, B: Backlog>(
        &mut self,
        _now: Instant,
        _len: u32,
        _sub: usize,
        _b: &B,
        _rng: &mut R,
    ) -> Verdict {
        todo!()
    }
    fn dequeue<R: RngCore + ?Sized, B: Backlog>(&mut self, _now: Instant, _b: &mut B, _rng: &mut R) -> Option<usize> {
        todo!()
    }
}
