//! Reports of runs, in the formats people already read.
//!
//! - [`fio_json`]: fio's `--output-format=json` schema, plus an `iosched` object.
//! - [`table`]: a readable table for a terminal.
//! - [`experiment`]: an experiment's seed-shaped tables and its JSON.
//! - [`html`]: an experiment's self-contained HTML page with SVG plots.

pub mod experiment;
pub mod fio_json;
pub mod html;
pub mod table;
