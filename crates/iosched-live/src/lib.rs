//! iosched's live engine devices: the same engine and policies as the simulator, on real I/O and the real
//! clock. [`uring::UringDevice`] is a file or block device driven through io_uring;
//! [`emulate::EmulatedDevice`] adds a device model's timing to it; [`control_socket`] lets `iosched configure` and
//! `iosched stats` reach a running engine.

pub mod control_socket;
pub mod emulate;
mod ring;
pub mod uring;

pub use emulate::EmulatedDevice;
pub use uring::{OpenError, UringDevice};
