//! ecnlab-sim: the deterministic packet-level discrete-event simulator.

pub mod spec;
