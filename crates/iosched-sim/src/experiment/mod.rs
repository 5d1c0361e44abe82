//! The seed experiments (and any a user writes): a folder of fio job files and an `experiment.toml` that says
//! which device, which policies and tunables, which cases and what to measure.
//!
//! - [`description`]: reading and checking a folder (or a built-in one).
//! - [`builtin`]: the four experiments of the seed documents, built into the binary from `experiments/`.
//! - [`runner`]: every policy on every case, in parallel, with deterministic results.
//! - [`measure`]: the figures of one run, its time series and latency CDF.
//! - [`figures`]: the seed's figures per case, each with iosched's and a verdict.

pub mod builtin;
pub mod description;
pub mod figures;
pub mod measure;
pub mod runner;

pub use description::{load, Case, Experiment, Files, Measure, PolicyEntry};
pub use figures::{metric_names, run_figure, verdicts, SeedFigure, Verdict};
pub use measure::{Metrics, RunMeasures, SeriesPoint};
pub use runner::{plan, run, ExperimentOutcome, RunOutcome};
