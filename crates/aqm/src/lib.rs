//! ecnlab-aqm: sans-IO queues and active queue management.

pub mod config;

pub use config::{DropTailParams, Limit, QueueConfig, RedMode, RedParams};
