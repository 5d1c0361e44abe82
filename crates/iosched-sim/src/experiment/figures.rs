//! The seed's figures, each checked against iosched's: a `[[case.figure]]` of experiment.toml names a policy, a
//! figure the experiment measures (or its ratio to another policy's in the same case) and the range the seed's
//! words allow; the verdict says whether iosched's figure falls in it.
//!
//! ```toml
//! [[case.figure]]
//! says = "rr: dd 30 MB/s"        # the seed's words, shown beside the verdict
//! policy = "rr"                  # a policy label of the experiment
//! metric = "stream_mb_per_s"     # one of the measure's figures (see `metric_names`); interactive_slowdown is
//!                                # the interactive job's rate alone (its own case) over its rate in this one
//! low = 25.5                     # holds when low <= figure <= high (either may be left out)
//! high = 34.5
//! # relative_to = "cfq"          # then the figure is policy's / relative_to's, in the same case
//! # why = "..."                  # why iosched's figure is where it is, when that is known (with its evidence):
//! #                              # shown under a figure that does not hold
//! ```
//!
//! A seed gives a point ("30 MB/s") or a range ("5-14x faster"); the file turns a point into a range and says
//! why in a comment beside it. The range is the seed's claim, never fitted to iosched's result.

use super::description::Measure;
use super::measure::Metrics;
use super::runner::{ExperimentOutcome, RunOutcome};
use serde::{Deserialize, Serialize};

/// One figure the seed gives for a case.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SeedFigure {
    pub says: String,
    pub policy: String,
    pub metric: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
    /// Why iosched's figure differs from the seed's, where that has been found (a finding, with its evidence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// The names of the figures a measure reports, and the unit each is shown in.
pub fn metric_names(measure: &Measure) -> &'static [(&'static str, &'static str)] {
    match measure {
        Measure::GeomSched { .. } => {
            &[("stream_mb_per_s", "MB/s"), ("interactive_ops_per_s", "ops/s"), ("interactive_slowdown", "x")]
        }
        Measure::NetflixFill { .. } => &[
            ("read_mean_ms_before", "ms"),
            ("read_p99_ms_before", "ms"),
            ("read_mean_ms_during", "ms"),
            ("read_p99_ms_during", "ms"),
            ("read_p999_ms_during", "ms"),
            ("read_max_ms_during", "ms"),
            ("read_p99_rise", "x"),
            ("read_mean_rise", "x"),
            ("write_mb_per_s", "MB/s"),
        ],
        Measure::BfqStartup { .. } => {
            &[("startup_s", "s"), ("aggregate_mb_per_s", "MB/s"), ("iteration_mb_per_s", "MB/s")]
        }
        Measure::Dbload { .. } => &[("load_s", "s")],
    }
}

impl Metrics {
    /// The figure called `name` (one of [`metric_names`]), if this run has it.
    pub fn value(&self, name: &str) -> Option<f64> {
        match (self, name) {
            (Metrics::GeomSched { dd_mb_per_s, .. }, "stream_mb_per_s") => *dd_mb_per_s,
            (Metrics::GeomSched { cvs_ops_per_s, .. }, "interactive_ops_per_s") => *cvs_ops_per_s,
            (Metrics::NetflixFill { read_p99_ms_during, read_p99_ms_before, .. }, "read_p99_rise") => {
                (*read_p99_ms_before > 0.0).then(|| read_p99_ms_during / read_p99_ms_before)
            }
            (Metrics::NetflixFill { read_mean_ms_during, read_mean_ms_before, .. }, "read_mean_rise") => {
                (*read_mean_ms_before > 0.0).then(|| read_mean_ms_during / read_mean_ms_before)
            }
            (
                Metrics::NetflixFill {
                    read_mean_ms_before,
                    read_p99_ms_before,
                    read_mean_ms_during,
                    read_p99_ms_during,
                    read_p999_ms_during,
                    read_max_ms_during,
                    write_mb_per_s,
                    ..
                },
                _,
            ) => match name {
                "read_mean_ms_before" => Some(*read_mean_ms_before),
                "read_p99_ms_before" => Some(*read_p99_ms_before),
                "read_mean_ms_during" => Some(*read_mean_ms_during),
                "read_p99_ms_during" => Some(*read_p99_ms_during),
                "read_p999_ms_during" => Some(*read_p999_ms_during),
                "read_max_ms_during" => Some(*read_max_ms_during),
                "write_mb_per_s" => Some(*write_mb_per_s),
                _ => None,
            },
            (Metrics::BfqStartup { startup_s, .. }, "startup_s") => Some(*startup_s),
            (Metrics::BfqStartup { aggregate_mb_per_s, .. }, "aggregate_mb_per_s") => Some(*aggregate_mb_per_s),
            (Metrics::BfqStartup { iteration_mb_per_s, .. }, "iteration_mb_per_s") => Some(*iteration_mb_per_s),
            (Metrics::Dbload { load_s }, "load_s") => Some(*load_s),
            _ => None,
        }
    }
}

/// A seed figure beside iosched's.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Verdict {
    pub case: String,
    #[serde(flatten)]
    pub figure: SeedFigure,
    /// iosched's figure (None: the policy, or the one it is compared with, was not run).
    pub iosched: Option<f64>,
    /// Whether iosched's figure is in the seed's range (None: not run).
    pub holds: Option<bool>,
}

/// The figure called `metric` of one run: its own (see [`Metrics::value`]), or interactive_slowdown, which needs
/// the run of the same policy without the stream (`all` is every run of the experiment).
pub fn run_figure(all: &[RunOutcome], run: &RunOutcome, metric: &str) -> Option<f64> {
    if metric != "interactive_slowdown" {
        return run.measures.metrics.value(metric);
    }
    let here = run.measures.metrics.value("interactive_ops_per_s")?;
    let alone = all.iter().filter(|r| r.policy == run.policy).find_map(|r| match r.measures.metrics {
        Metrics::GeomSched { dd_mb_per_s: None, cvs_ops_per_s } => cvs_ops_per_s,
        _ => None,
    })?;
    (here > 0.0).then(|| alone / here)
}

fn figure_of(all: &[RunOutcome], runs: &[&RunOutcome], policy: &str, metric: &str) -> Option<f64> {
    runs.iter().find(|r| r.policy == policy).and_then(|r| run_figure(all, r, metric))
}

/// Every seed figure of every case, in the file's order, with iosched's figure and the verdict.
pub fn verdicts(cases: &[super::description::Case], outcome: &ExperimentOutcome) -> Vec<Verdict> {
    let mut out = Vec::new();
    for case in cases {
        let runs: Vec<&RunOutcome> = outcome.runs.iter().filter(|r| r.case == case.entry.name).collect();
        for figure in &case.entry.figures {
            let mine = figure_of(&outcome.runs, &runs, &figure.policy, &figure.metric);
            let iosched = match &figure.relative_to {
                None => mine,
                Some(other) => match (mine, figure_of(&outcome.runs, &runs, other, &figure.metric)) {
                    (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                    _ => None,
                },
            };
            let holds = iosched.map(|v| figure.low.is_none_or(|lo| v >= lo) && figure.high.is_none_or(|hi| v <= hi));
            out.push(Verdict { case: case.entry.name.clone(), figure: figure.clone(), iosched, holds });
        }
    }
    out
}
