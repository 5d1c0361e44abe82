//! Block-trace readers. Each names the file, line and reason for a line it cannot read.
//!
//! Whitespace-separated formats share [`parse_lines`]: blank lines are skipped, every other line must have the
//! format's number of fields, and a trace with no request is an error.

pub mod disksim_validate;
pub mod mqsim;

use crate::job::Location;
use std::path::Path;

/// A problem in a trace file: file, line and reason.
pub type TraceError = iosched_core::input::InputError;

/// One non-blank line of a whitespace-separated trace.
pub(crate) struct Line<'a> {
    pub fields: Vec<&'a str>,
    location: Location,
}

impl Line<'_> {
    /// An error at this line.
    pub fn err(&self, message: impl Into<String>) -> TraceError {
        TraceError::new(self.location.clone(), message)
    }

    /// Field `k` as a whole number; `what` names it in the error.
    pub fn whole(&self, k: usize, what: &str) -> Result<u64, TraceError> {
        let s = self.fields[k];
        s.parse::<u64>().map_err(|_| self.err(format!("{what}: expected a whole number, found '{s}'")))
    }
}

/// Read `path` as a trace and parse it with `parse(text, file name)`.
pub(crate) fn read_with<R>(
    path: &Path,
    parse: impl FnOnce(&str, &str) -> Result<Vec<R>, TraceError>,
) -> Result<Vec<R>, TraceError> {
    let text = iosched_core::input::read_text(path, "trace")?;
    parse(&text, &path.display().to_string())
}

/// The records of a whitespace-separated trace of `fields` fields per line, laid out as `layout` says (for
/// the error), each made by `record`.
pub(crate) fn parse_lines<R>(
    text: &str,
    file: &str,
    fields: usize,
    layout: &str,
    mut record: impl FnMut(&Line) -> Result<R, TraceError>,
) -> Result<Vec<R>, TraceError> {
    let mut out = Vec::new();
    for (i, text_line) in text.lines().enumerate() {
        let line = Line { fields: text_line.split_whitespace().collect(), location: Location::new(file, i + 1) };
        if line.fields.is_empty() {
            continue;
        }
        if line.fields.len() != fields {
            return Err(line.err(format!("expected {fields} fields '{layout}', found {}", line.fields.len())));
        }
        out.push(record(&line)?);
    }
    if out.is_empty() {
        return Err(TraceError::new(Location::new(file, 0), "no requests in the trace"));
    }
    Ok(out)
}
