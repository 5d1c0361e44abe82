//! Reports of runs, in the formats people already read.
//!
//! - [`fio_json`]: fio's `--output-format=json` schema, plus an `iosched` object.
//! - [`table`]: a readable table for a terminal.

pub mod fio_json;
pub mod table;
