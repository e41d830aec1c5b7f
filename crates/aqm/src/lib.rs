//! ecnlab-aqm: sans-IO queues and active queue management.

pub mod config;

pub use config::{DropTailParams, QueueConfig, RedMode, RedParams};
