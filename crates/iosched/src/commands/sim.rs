//! `iosched sim`: fio job files and block traces through one policy on one device model; optionally the run
//! written back out as a fio iolog, blkparse text, and fio's latency, bandwidth and IOPS logs (fio_logs).

use super::{fio_logs, policy_with};
use crate::cli::SimArgs;
use crate::error::{bad, CliError};
use iosched_device::load_spec;
use iosched_report::{fio_json, table};
use iosched_sim::{simulate, LogEntry, PolicySwitch, Replay, SimConfig, SimOutput, Workload};
use iosched_workload::fio::values::{parse_time_ns, TimeUnit};
use iosched_workload::trace::{self, write::IssuedRequest, Format};
use std::path::Path;
use std::time::Instant;

pub fn run(args: &SimArgs) -> Result<(), CliError> {
    if args.mqsim_workload.is_some() {
        return super::mqsim_workload::run(args);
    }
    if args.jobfiles.is_empty() && args.traces.is_empty() {
        return Err(bad("give a fio job file, --trace FILE, or both"));
    }
    if let Some(name) = args.iolog_filename.as_deref().filter(|n| n.is_empty() || n.contains(char::is_whitespace)) {
        return Err(bad(format!(
            "--iolog-filename expects a file name without spaces (fio's iolog splits at them), found '{name}'"
        )));
    }
    let jobs = super::parse_job_files(&args.jobfiles, &args.sections)?;
    let format = match &args.format {
        Some(name) => Some(Format::from_name(name).ok_or_else(|| {
            bad(format!("--format expects one of {}, found '{name}'", Format::ALL.map(|f| f.name()).join(", ")))
        })?),
        None => None,
    };
    let replay = Replay::parse(&args.replay).map_err(bad)?;
    let (device, warnings) = load_spec(&args.device).map_err(bad)?;
    let policy = policy_with(&args.policy, &args.set)?;
    let switches = args.switch_at.iter().map(|s| parse_switch(s)).collect::<Result<Vec<_>, _>>()?;
    let mut workload = Workload::from_jobs(&jobs);
    for path in &args.traces {
        let t = trace::read(path, format).map_err(bad)?;
        eprintln!(
            "iosched: {}: {} trace, {} requests kept, {} events skipped",
            path.display(),
            t.format.name(),
            t.records.len(),
            t.skipped
        );
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        workload.add_trace(&name, &t, replay);
    }
    if let Some(runtime) = &args.runtime {
        workload.override_runtime(super::parse_runtime_ns(runtime)?);
    }
    check_flows(&workload.flow_names(), &args.policy, &args.set, &args.switch_at)?;
    let capacity_bytes = device.capacity_bytes();
    let fio_logs = jobs
        .iter()
        .any(|j| [&j.write_lat_log, &j.write_bw_log, &j.write_iops_log, &j.write_hist_log].iter().any(|l| l.is_some()));
    let record_log = args.write_iolog.is_some() || args.write_blkparse.is_some() || fio_logs;
    let started = Instant::now();
    let out = simulate(&workload, policy, device, switches, &SimConfig { seed: args.seed, record_log })
        .map_err(super::sim_error)?;
    let wall = started.elapsed();
    // Warnings once the input has been accepted, so that an error stays one line.
    for w in warnings {
        eprintln!("iosched: warning: {w}");
    }
    say_whole_device_jobs(&jobs, capacity_bytes);
    write_outputs(args, &workload, &out)?;
    let bins = args.output_format.as_deref() == Some("json+");
    if args.json || bins || args.output_format.as_deref() == Some("json") {
        out!("{}", fio_json::to_string_with_bins(&out.result, bins));
    } else {
        out!("{}", table::render(&out.result));
        outln!(
            "\nsimulated {} requests in {:.3} s of wall time ({:.0} requests/s)",
            out.result.requests_completed,
            wall.as_secs_f64(),
            out.result.requests_completed as f64 / wall.as_secs_f64().max(1e-9)
        );
    }
    super::failed_jobs(&out.result)
}

/// A job without `size=` (or `filesize=`) covers the device from its offset to the end, as fio covers a whole
/// file or device; said on stderr, since on a large model that is rarely what was meant.
pub fn say_whole_device_jobs(jobs: &[iosched_workload::job::JobSpec], capacity_bytes: u64) {
    for job in jobs.iter().filter(|j| j.size.is_none() && j.filesize.is_none()) {
        eprintln!(
            "iosched: job '{}' has no size=: it covers the device from its offset to the end ({:.1} GiB); \
             give size= to limit it",
            job.name,
            capacity_bytes as f64 / (1u64 << 30) as f64
        );
    }
}

/// Every per-flow setting, of `--set` and of each `--switch-at`, names one of `flows`.
pub fn check_flows(flows: &[String], policy: &str, set: &[String], switch_at: &[String]) -> Result<(), CliError> {
    let keys = |settings: &[String]| -> Result<Vec<String>, CliError> {
        Ok(super::parse_settings(settings)?.into_iter().map(|(key, _)| key.to_string()).collect())
    };
    super::check_flow_settings("--set", policy, &keys(set)?, flows)?;
    for text in switch_at {
        let (_, policy, settings) = split_switch(text)?;
        super::check_flow_settings("--switch-at", policy, &keys(&settings)?, flows)?;
    }
    Ok(())
}

/// `TIME:POLICY[,KEY=VALUE...]`: a time with fio's units (a bare number is seconds) and a policy with tunables.
pub fn parse_switch(text: &str) -> Result<PolicySwitch, CliError> {
    let (at_ns, name, settings) = split_switch(text)?;
    Ok(PolicySwitch { at_ns, policy: policy_with(name, &settings)? })
}

/// `TIME:POLICY[,KEY=VALUE...]` in its parts: the time in ns, the policy's name and its settings.
fn split_switch(text: &str) -> Result<(u64, &str, Vec<String>), CliError> {
    let wanted = "--switch-at expects TIME:POLICY[,KEY=VALUE...], for example 2s:deadline";
    let (time, rest) = text.split_once(':').ok_or_else(|| bad(format!("{wanted}, found '{text}'")))?;
    let at_ns = parse_time_ns(time, TimeUnit::Seconds).map_err(|e| bad(format!("{wanted}; the time: expected {e}")))?;
    let mut parts = rest.split(',');
    let name = parts.next().unwrap_or_default();
    Ok((at_ns, name, parts.map(str::to_string).collect()))
}

fn issued(entry: &LogEntry) -> IssuedRequest {
    let r = &entry.req;
    IssuedRequest {
        queued_ns: r.queued_ns,
        dispatched_ns: r.dispatched_ns,
        completed_ns: r.completed_ns,
        op: r.op,
        offset_bytes: r.offset_bytes,
        len_bytes: r.len_bytes,
        stream: r.flow.0,
        sync: r.sync,
        failed: false,
    }
}

fn write_file(path: &Path, text: &str, what: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| CliError::Failed(format!("cannot write {what} {}: {e}", path.display())))
}

/// `--iolog-filename`, else the jobs' shared `filename=` (what fio would open for them), else `iosched.dev`.
fn iolog_file_name(args: &SimArgs, workload: &Workload) -> String {
    if let Some(name) = &args.iolog_filename {
        return name.clone();
    }
    let names = workload.sources.iter().map(|s| match s {
        iosched_sim::workload::SourceSpec::Job { spec, .. } => spec.filename.as_deref(),
        _ => None,
    });
    super::shared_filename(names).unwrap_or("iosched.dev").to_string()
}

fn write_outputs(args: &SimArgs, workload: &Workload, out: &SimOutput) -> Result<(), CliError> {
    if let Some(path) = &args.write_iolog {
        let requests: Vec<IssuedRequest> = out.log.iter().map(issued).collect();
        write_file(path, &trace::write::iolog_v3(&requests, &iolog_file_name(args, workload)), "iolog")?;
    }
    if let Some(path) = &args.write_blkparse {
        let requests: Vec<IssuedRequest> = out.log.iter().map(issued).collect();
        write_file(path, &trace::write::blkparse(&requests, 8, 0), "blkparse text")?;
    }
    for (path, text) in fio_logs::logs(workload, &out.log) {
        write_file(Path::new(&path), &text, "fio log")?;
    }
    Ok(())
}
