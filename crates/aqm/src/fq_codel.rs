//! STUB (being written): FQ-CoDel.

use ecnlab_wire::Instant;
use rand::RngCore;

use crate::aqm::SchedAqm;
use crate::backlog::Backlog;
use crate::config::FqCodelParams;
use crate::error::ConfigError;
use crate::verdict::Verdict;

#[derive(Clone, Debug)]
pub(crate) struct FqCodel;

impl FqCodel {
    pub(crate) fn new(_p: &FqCodelParams) -> Self {
        FqCodel
    }
}

impl FqCodelParams {
    pub fn validate(&self) -> Result<(), ConfigError> {
        Ok(())
    }
}

impl SchedAqm for FqCodel {
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
