//! STUB (being written): step.

use ecnlab_wire::Instant;
use rand::RngCore;

use crate::aqm::SchedAqm;
use crate::backlog::Backlog;
use crate::config::StepParams;
use crate::error::ConfigError;
use crate::verdict::Verdict;

#[derive(Clone, Debug)]
pub(crate) struct Step;

impl Step {
    pub(crate) fn new(_p: &StepParams) -> Self {
        Step
    }
}

impl StepParams {
    pub fn validate(&self) -> Result<(), ConfigError> {
        Ok(())
    }
}

impl SchedAqm for Step {
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
