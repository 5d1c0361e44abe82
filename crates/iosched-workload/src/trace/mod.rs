//! Block-trace readers. Each names the file, line and reason for a line it cannot read.

pub mod disksim_validate;

use crate::job::Location;
use thiserror::Error;

/// A problem in a trace file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{location}: {message}")]
pub struct TraceError {
    pub location: Location,
    pub message: String,
}
