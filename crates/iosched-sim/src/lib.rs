//! The deterministic discrete-event simulation engine.
//!
//! - [`workload`]: what runs: fio jobs (closed loop) and timed request lists (open loop), as flows.
//! - [`source`]: the processes that issue a workload's requests.
//! - [`control`]: the messages a running live engine answers (stats, configure) and its stop flag.
//! - [`engine`]: virtual time, the policy, the device, flush barriers, policy switches, statistics.
//! - [`inlet`]: requests from outside a live engine (a FUSE mount's programs), answered on completion.
//! - [`disksim_oracle`]: DiskSim itself run on a trace, and iosched compared with it request by request.
//! - [`parallel`]: independent runs on worker threads, results in order.
//! - [`steady_state`]: fio's steady-state detection, which ends a job.
//! - [`stepped_depth`]: fio's iodepth_mode=stepped, a job's load in steps of its probed IOPS.
//! - [`per_member`]: on a volume of several disks, one policy instance per disk.
//! - [`experiment`]: the seed experiments: folders of fio job files run under every policy, in parallel.
//!
//! Same inputs and seed, same output: time is an integer count of nanoseconds, events at equal times are
//! ordered by when they were scheduled, and every random number comes from a seeded per-job stream.

pub mod control;
pub mod disksim_oracle;
pub mod engine;
pub mod experiment;
pub mod inlet;
pub mod parallel;
pub mod per_member;
pub mod source;
pub mod steady_state;
pub mod stepped_depth;
pub mod validate;
pub mod verify;
pub mod workload;

pub use control::{ControlMessage, ControlReply, ControlRequest, Controls};
pub use engine::{serve, simulate, simulate_controlled, LogEntry, PolicySwitch, SimConfig, SimError, SimOutput};
pub use inlet::{Arrival, Inlet};
pub use workload::{Replay, TimedIo, Workload, WorkloadError};
