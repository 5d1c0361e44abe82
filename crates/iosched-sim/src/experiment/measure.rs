//! What one run of an experiment measured: the figures its kind asks for, a time series (read and write MB/s,
//! read latency per interval) and a latency CDF, all computed from the run's per-request log.

use super::description::Measure;
use crate::{SimOutput, Workload};
use iosched_core::request::Op;
use iosched_core::stats::LatencyRecorder;
use iosched_core::units::NS_PER_S;
use serde::Serialize;

/// The figures of one run, by kind. Values that a case does not have (no stream job in "cvs" alone) are None.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Metrics {
    GeomSched {
        dd_mb_per_s: Option<f64>,
        cvs_ops_per_s: Option<f64>,
    },
    NetflixFill {
        read_mean_ms_before: f64,
        read_p99_ms_before: f64,
        read_mean_ms_during: f64,
        read_p99_ms_during: f64,
        read_p999_ms_during: f64,
        read_max_ms_during: f64,
        read_mb_per_s_during: f64,
        write_mb_per_s: f64,
    },
    BfqStartup {
        startup_s: f64,
        /// Everything the disk moved while the application started, per second.
        aggregate_mb_per_s: f64,
        /// The same over the start-up and the pause after it, as the seed measured it: its test script
        /// (comm_startup_lat.sh of Valente's S suite) starts the command, waits for it, sleeps (the measure's
        /// `pause_s`), and starts it again, while iostat samples the disk over the whole run.
        iteration_mb_per_s: f64,
    },
    Dbload {
        load_s: f64,
    },
}

/// One interval of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeriesPoint {
    /// The interval's end, seconds from the start of the run.
    pub end_s: f64,
    pub read_mb_per_s: f64,
    pub write_mb_per_s: f64,
    /// Latency of the requests of the watched job that completed in the interval (None if none did).
    pub latency_mean_ms: Option<f64>,
    pub latency_p99_ms: Option<f64>,
    pub latency_max_ms: Option<f64>,
}

/// Everything kept of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunMeasures {
    pub metrics: Metrics,
    pub series: Vec<SeriesPoint>,
    /// The watched job's request latency: (latency_ms, fraction of requests at or below it), rising.
    pub cdf: Vec<(f64, f64)>,
    /// Which job the latency series and CDF follow (every job's when the measure names none).
    pub watched: String,
    pub requests: u64,
    pub elapsed_s: f64,
}

/// The most intervals a series has: one second each, or longer for long runs.
const MAX_POINTS: u64 = 120;
/// Points of a CDF.
const CDF_POINTS: usize = 60;

const MB: f64 = 1e6;

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// The job this measure watches for latency.
fn watched_job(measure: &Measure) -> Option<&str> {
    match measure {
        Measure::GeomSched { interactive, .. } => Some(interactive),
        Measure::NetflixFill { reads, .. } => Some(reads),
        Measure::BfqStartup { app, .. } => Some(app),
        Measure::Dbload { .. } => None,
    }
}

/// Measure a run. `out.log` must have been recorded.
pub fn measure(measure: &Measure, workload: &Workload, out: &SimOutput) -> RunMeasures {
    let source_name = |source: u32| workload.sources[source as usize].name();
    let watched = watched_job(measure);
    let is_watched = |source: u32| watched.is_none_or(|w| source_name(source) == w);
    let job = |name: &str| out.result.jobs.iter().find(|j| j.name == name);
    let metrics = match measure {
        Measure::GeomSched { stream, interactive } => Metrics::GeomSched {
            dd_mb_per_s: job(stream).map(|j| (j.bw_bytes_per_s(0) + j.bw_bytes_per_s(1)) / MB),
            cvs_ops_per_s: job(interactive).map(|j| j.iops(0) + j.iops(1)),
        },
        Measure::NetflixFill { reads, writes, fill_starts_s } => {
            let fill_ns = (fill_starts_s * NS_PER_S as f64) as u64;
            let (mut before, mut during) = (LatencyRecorder::new(), LatencyRecorder::new());
            let mut read_bytes_during = 0u64;
            for e in &out.log {
                if e.req.op == Op::Read && source_name(e.source) == reads {
                    if e.req.queued_ns < fill_ns {
                        before.record(e.req.total_ns());
                    } else {
                        during.record(e.req.total_ns());
                        read_bytes_during += e.req.len_bytes;
                    }
                }
            }
            let (before, during) = (before.summary(), during.summary());
            let (written, runtime_ns) = out
                .result
                .jobs
                .iter()
                .filter(|j| writes.contains(&j.name))
                .fold((0u64, 0u64), |(b, t), j| (b + j.directions[1].bytes, t.max(j.runtime_ns)));
            let during_ns = out.result.elapsed_ns.saturating_sub(fill_ns).max(1);
            Metrics::NetflixFill {
                read_mean_ms_before: before.mean_ns / 1e6,
                read_p99_ms_before: ms(before.at(99.0).unwrap_or(0)),
                read_mean_ms_during: during.mean_ns / 1e6,
                read_p99_ms_during: ms(during.at(99.0).unwrap_or(0)),
                read_p999_ms_during: ms(during.at(99.9).unwrap_or(0)),
                read_max_ms_during: ms(during.max_ns),
                read_mb_per_s_during: read_bytes_during as f64 / MB / (during_ns as f64 / NS_PER_S as f64),
                write_mb_per_s: iosched_core::units::bytes_per_s(written, runtime_ns) / MB,
            }
        }
        Measure::BfqStartup { app, pause_s, .. } => {
            let (start_ns, end_ns) = out
                .log
                .iter()
                .filter(|e| source_name(e.source) == app)
                .fold((u64::MAX, 0u64), |(s, f), e| (s.min(e.req.queued_ns), f.max(e.req.completed_ns)));
            let app_job = job(app).expect("the description's check found the app job");
            let moved: u64 = out
                .log
                .iter()
                .filter(|e| e.req.completed_ns > start_ns && e.req.completed_ns <= end_ns && e.req.op != Op::Flush)
                .map(|e| e.req.len_bytes)
                .sum();
            let pause_ns = (pause_s * NS_PER_S as f64).round() as u64;
            let iteration_end_ns = (end_ns + pause_ns).min(out.result.elapsed_ns.max(end_ns));
            let moved_in_iteration: u64 = out
                .log
                .iter()
                .filter(|e| e.req.completed_ns > start_ns && e.req.completed_ns <= iteration_end_ns)
                .filter(|e| e.req.op != Op::Flush)
                .map(|e| e.req.len_bytes)
                .sum();
            let per_s = |bytes: u64, ns: u64| bytes as f64 / MB / (ns.max(1) as f64 / NS_PER_S as f64);
            Metrics::BfqStartup {
                startup_s: app_job.runtime_ns as f64 / NS_PER_S as f64,
                aggregate_mb_per_s: per_s(moved, end_ns.saturating_sub(start_ns)),
                iteration_mb_per_s: per_s(moved_in_iteration, iteration_end_ns.saturating_sub(start_ns)),
            }
        }
        Measure::Dbload { .. } => Metrics::Dbload { load_s: out.result.elapsed_ns as f64 / NS_PER_S as f64 },
    };
    let mut latencies = LatencyRecorder::new();
    for e in out.log.iter().filter(|e| e.req.op != Op::Flush && is_watched(e.source)) {
        latencies.record(e.req.total_ns());
    }
    let cdf = (1..=CDF_POINTS)
        .map(|i| {
            // Even steps to 90 %, then denser towards the tail: 1 - 10^-(1 + 2k/N) up to 99.9 %.
            let q = if i <= CDF_POINTS / 2 {
                i as f64 / CDF_POINTS as f64 * 1.8
            } else {
                1.0 - 10f64.powf(-1.0 - 2.0 * (i - CDF_POINTS / 2) as f64 / (CDF_POINTS / 2) as f64)
            };
            let q = q.min(1.0);
            (ms(latencies.percentile_ns(q * 100.0)), q)
        })
        .collect();
    RunMeasures {
        metrics,
        series: series(out, &is_watched),
        cdf,
        watched: watched.unwrap_or("every job").to_string(),
        requests: out.result.requests_completed,
        elapsed_s: out.result.elapsed_ns as f64 / NS_PER_S as f64,
    }
}

/// Read and write MB/s of every job, and the watched job's latency, per interval of completion time.
fn series(out: &SimOutput, is_watched: &dyn Fn(u32) -> bool) -> Vec<SeriesPoint> {
    let elapsed_ns = out.result.elapsed_ns.max(1);
    let seconds = elapsed_ns.div_ceil(NS_PER_S);
    let bin_ns = seconds.div_ceil(MAX_POINTS).max(1) * NS_PER_S;
    let bins = elapsed_ns.div_ceil(bin_ns) as usize;
    let mut read_bytes = vec![0u64; bins];
    let mut write_bytes = vec![0u64; bins];
    let mut latency: Vec<LatencyRecorder> = vec![LatencyRecorder::new(); bins];
    for e in &out.log {
        if e.req.op == Op::Flush {
            continue;
        }
        let bin = ((e.req.completed_ns / bin_ns) as usize).min(bins - 1);
        match e.req.op {
            Op::Read => read_bytes[bin] += e.req.len_bytes,
            Op::Write => write_bytes[bin] += e.req.len_bytes,
            _ => {}
        }
        if is_watched(e.source) {
            latency[bin].record(e.req.total_ns());
        }
    }
    // Only whole intervals: the last one ends with the run and is usually a sliver, whose rates would show as a
    // drop (or a spike) that did not happen. A run shorter than one interval keeps its one.
    let whole = if bins > 1 && elapsed_ns % bin_ns != 0 { bins - 1 } else { bins };
    (0..whole)
        .map(|b| {
            let l = latency[b].summary();
            let some = |v: f64| (l.count > 0).then_some(v);
            let end_ns = ((b as u64 + 1) * bin_ns).min(elapsed_ns);
            let bin_s = (end_ns - b as u64 * bin_ns).max(1) as f64 / NS_PER_S as f64;
            SeriesPoint {
                end_s: end_ns as f64 / NS_PER_S as f64,
                read_mb_per_s: read_bytes[b] as f64 / MB / bin_s,
                write_mb_per_s: write_bytes[b] as f64 / MB / bin_s,
                latency_mean_ms: some(l.mean_ns / 1e6),
                latency_p99_ms: some(ms(l.at(99.0).unwrap_or(0))),
                latency_max_ms: some(ms(l.max_ns)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_come_from_the_latency_recorder_as_ranks() {
        // The measures read percentiles from iosched-core's recorder (as fio's JSON does); below 2048 its
        // histogram is exact, so they are ranks of the sorted values, except that HdrHistogram's rank for
        // 0.999 x 1000 rounds up to the 1000th (0.999 is not exact in binary).
        let mut r = LatencyRecorder::new();
        (1..=1000).for_each(|v| r.record(v));
        assert_eq!(r.percentile_ns(99.0), 990);
        assert_eq!(r.percentile_ns(99.9), 1000);
        assert_eq!(r.percentile_ns(100.0), 1000);
        assert_eq!(r.percentile_ns(0.0), 1);
        assert_eq!(LatencyRecorder::new().percentile_ns(50.0), 0);
    }
}
