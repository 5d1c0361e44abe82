//! Reports of runs, in the formats people already read.
//!
//! - [`fio_json`]: fio's `--output-format=json` schema, plus an `iosched` object.
//! - [`table`]: a readable table for a terminal.
//! - [`experiment`]: an experiment's seed-shaped tables and its JSON.
//! - [`html`]: an experiment's self-contained HTML page with SVG plots.
//! - [`top`]: `iosched top`'s screen, from two snapshots of a running engine's flows.
//! - [`prometheus`]: the same flows in Prometheus's text format, for a mount's metrics endpoint.

pub mod experiment;
pub mod fio_json;
pub mod html;
pub mod prometheus;
pub mod table;
pub mod top;
