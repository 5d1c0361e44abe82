//! iosched's live engine devices: the same engine and policies as the simulator, on real I/O and the real
//! clock. [`uring::UringDevice`] is a file or block device driven through io_uring;
//! [`emulate::EmulatedDevice`] adds a device model's timing to it; [`mount`] inserts the engine under real
//! programs through a FUSE file system; [`control_socket`] lets `iosched configure`, `iosched stats` and
//! `iosched destroy` reach a running engine; [`metrics`] serves its flows to Prometheus.

pub mod block_queue;
mod buffer;
pub mod control_socket;
pub mod emulate;
pub mod metrics;
pub mod mount;
mod ring;
pub mod uring;

pub use emulate::EmulatedDevice;
pub use uring::{OpenError, UringDevice};
