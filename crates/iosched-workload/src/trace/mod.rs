//! Block-trace readers. Each names the file, line and reason for a line it cannot read.

pub mod disksim_validate;
pub mod mqsim;

/// A problem in a trace file: file, line and reason.
pub type TraceError = iosched_core::input::InputError;
