//! Workloads: what the engines run.
//!
//! - [`job`]: a job as fio defines one (the in-memory type every reader fills in).
//! - [`fio`]: the fio job-file reader.
//! - [`generator`]: the offsets, directions and sizes a job issues.
//! - [`random_map`]: fio's random map, each block once per pass.
//! - [`sprandom`]: fio's sprandom preconditioning order.

pub mod fio;
pub mod generator;
pub mod job;
pub mod mqsim_random;
pub mod mqsim_workload;
pub mod random_map;
pub mod sprandom;
pub mod trace;

pub use job::{Engine, IoLimit, JobSpec, Location, RwMode, SizeSpec};
