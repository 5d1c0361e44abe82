//! fio's JSON output schema (`fio --output-format=json`), so tools that read fio's results read iosched's.
//!
//! Mapping: a simulated submission is instantaneous, so `slat_ns` is all zeros; time in the scheduler happens
//! after submission, as in the kernel, so `clat_ns` and `lat_ns` both run from submission to completion.
//! Bandwidth and IOPS samples over time (`bw_min`, `iops_samples`, ...) are not logged and are left out.
//! `--output-format json+` adds each clat_ns's histogram in fio's buckets ("bins"), which fio's
//! fio_jsonplus_clat2csv reads.
//! Extra keys, which fio's readers ignore: each job's `iosched` object (flow, queue wait and device service
//! latencies per direction, and iodepth_mode=stepped's steps) and the top-level `iosched` object (policy, device, seed, request counts, the
//! policy's tunables and statistics, the device's statistics). Nothing depends on the wall clock, so the same
//! run gives byte-identical JSON.

use iosched_core::results::{DirectionResult, JobResult, RunResult};
use iosched_core::stats::LatencySummary;
use iosched_core::units;
use serde_json::{json, Map, Value};

/// fio's name for each direction.
const DIRECTION_KEYS: [&str; 3] = ["read", "write", "trim"];

fn latency(summary: &LatencySummary, with_percentiles: bool) -> Value {
    latency_with_bins(summary, with_percentiles, false)
}

/// With `bins` (fio's json+), the histogram too: {"bucket value in ns": count} for every non-empty bucket.
fn latency_with_bins(summary: &LatencySummary, with_percentiles: bool, bins: bool) -> Value {
    let mut m = Map::new();
    m.insert("min".into(), json!(summary.min_ns));
    m.insert("max".into(), json!(summary.max_ns));
    m.insert("mean".into(), json!(summary.mean_ns));
    m.insert("stddev".into(), json!(summary.stddev_ns));
    m.insert("N".into(), json!(summary.count));
    if with_percentiles && summary.count > 0 {
        let mut p = Map::new();
        for (percentile, ns) in &summary.percentiles_ns {
            p.insert(format!("{percentile:.6}"), json!(ns));
        }
        m.insert("percentile".into(), Value::Object(p));
    }
    if bins && summary.count > 0 {
        let b: Map<String, Value> = summary.fio_bins().iter().map(|(ns, n)| (ns.to_string(), json!(n))).collect();
        m.insert("bins".into(), Value::Object(b));
    }
    Value::Object(m)
}

fn zeros(count: u64) -> Value {
    json!({"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": count})
}

fn direction(job: &JobResult, dir: usize, bins: bool) -> Value {
    let d: &DirectionResult = &job.directions[dir];
    let bw_bytes = job.bw_bytes_per_s(dir);
    json!({
        "io_bytes": d.bytes,
        "io_kbytes": d.bytes / 1024,
        "bw_bytes": bw_bytes.round() as u64,
        "bw": (bw_bytes / 1024.0).round() as u64,
        "iops": job.iops(dir),
        "runtime": if d.ios > 0 { job.runtime_ns / units::NS_PER_MS } else { 0 },
        "total_ios": d.ios,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": zeros(d.ios),
        "clat_ns": latency_with_bins(&d.total, true, bins),
        "lat_ns": latency(&d.total, false),
    })
}

fn job_value(job: &JobResult, bins: bool) -> Value {
    let mut m = Map::new();
    m.insert("jobname".into(), json!(job.name));
    m.insert("groupid".into(), json!(job.group));
    m.insert("error".into(), json!(job.fio_error()));
    m.insert("job options".into(), pairs(&job.options));
    m.insert("job_runtime".into(), json!(job.runtime_ns / units::NS_PER_MS));
    for (dir, key) in DIRECTION_KEYS.iter().enumerate() {
        m.insert((*key).into(), direction(job, dir, bins));
    }
    m.insert("sync".into(), json!({"total_ios": job.flushes.ios, "lat_ns": latency(&job.flushes.total, true)}));
    if !job.error_message.is_empty() {
        m.insert("error_message".into(), json!(job.error_message));
    }
    m.insert("usr_cpu".into(), json!(0.0));
    m.insert("sys_cpu".into(), json!(0.0));
    let mut extra = Map::new();
    extra.insert("flow".into(), json!(job.flow));
    extra.insert("runtime_ns".into(), json!(job.runtime_ns));
    for (dir, key) in DIRECTION_KEYS.iter().enumerate() {
        let d = &job.directions[dir];
        extra.insert(
            (*key).into(),
            json!({
                "errors": d.errors,
                "queue_wait_ns": latency(&d.queue_wait, true),
                "service_ns": latency(&d.service, true),
            }),
        );
    }
    if !job.steps.is_empty() {
        let steps: Vec<Value> = job
            .steps
            .iter()
            .map(|s| {
                let mut step = Map::new();
                step.insert("percent".into(), json!(s.percent));
                step.insert("iodepth".into(), json!(s.depth));
                for (dir, key) in DIRECTION_KEYS.iter().enumerate() {
                    step.insert(
                        (*key).into(),
                        json!({"rate_iops": s.rate_iops[dir], "iops": s.iops[dir], "lat_mean_ns": s.mean_latency_ns[dir]}),
                    );
                }
                Value::Object(step)
            })
            .collect();
        extra.insert("steps".into(), Value::Array(steps));
    }
    m.insert("iosched".into(), Value::Object(extra));
    Value::Object(m)
}

fn pairs<V: serde::Serialize>(items: &[(String, V)]) -> Value {
    let mut m = Map::new();
    for (k, v) in items {
        m.insert(k.clone(), json!(v));
    }
    Value::Object(m)
}

/// `iosched.device`: the canonical spec and every statistic the device keeps (for an SSD: write_amplification,
/// gc_erases, host_write_bytes, nand_write_bytes, ...).
fn device_value(run: &RunResult) -> Value {
    let mut v = pairs(&run.device_stats);
    v.as_object_mut().expect("pairs builds an object").insert("spec".into(), json!(run.device));
    v
}

/// The whole report as a JSON value.
pub fn to_value(run: &RunResult) -> Value {
    to_value_with_bins(run, false)
}

/// fio's `--output-format=json+`: the JSON with each clat_ns's histogram ("bins", fio's buckets).
pub fn to_value_with_bins(run: &RunResult, bins: bool) -> Value {
    json!({
        "fio version": concat!("iosched-", env!("CARGO_PKG_VERSION")),
        "timestamp": 0,
        "timestamp_ms": 0,
        "time": if run.real_time { "real" } else { "simulated" },
        "global options": pairs(&run.global_options),
        "jobs": run.jobs.iter().map(|j| job_value(j, bins)).collect::<Vec<_>>(),
        "disk_util": [],
        "iosched": {
            "policy": run.policy,
            "policy_switches": run.policy_switches,
            "policy_tunables": pairs(&run.policy_tunables),
            "policy_stats": pairs(&run.policy_stats),
            "device": device_value(run),
            "seed": run.seed,
            "requests_submitted": run.requests_submitted,
            "requests_completed": run.requests_completed,
            "elapsed_ns": run.elapsed_ns,
        },
    })
}

/// The report as pretty-printed JSON text, ending in a newline.
pub fn to_string(run: &RunResult) -> String {
    to_string_with_bins(run, false)
}

/// As [`to_string`], with fio's json+ histograms when `bins`.
pub fn to_string_with_bins(run: &RunResult, bins: bool) -> String {
    let mut s = serde_json::to_string_pretty(&to_value_with_bins(run, bins)).expect("a JSON value always serialises");
    s.push('\n');
    s
}
