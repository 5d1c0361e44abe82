//! `iosched sim`: a fio job file through one policy on one device model.

use super::policy_with;
use crate::cli::SimArgs;
use crate::error::{bad, CliError};
use iosched_device::load_spec;
use iosched_report::{fio_json, table};
use iosched_sim::{simulate, SimConfig, SimError, Workload};
use iosched_workload::fio;
use iosched_workload::fio::values::{parse_time_ns, TimeUnit};
use std::time::Instant;

pub fn run(args: &SimArgs) -> Result<(), CliError> {
    let jobs = fio::parse_file(&args.jobfile).map_err(bad)?;
    let (device, warnings) = load_spec(&args.device).map_err(bad)?;
    let policy = policy_with(&args.policy, &args.set)?;
    let mut workload = Workload::from_jobs(&jobs);
    if let Some(runtime) = &args.runtime {
        let ns = parse_time_ns(runtime, TimeUnit::Seconds)
            .ok()
            .filter(|ns| *ns > 0)
            .ok_or_else(|| bad(format!("--runtime expects a time above 0 such as 10 or 500ms, found '{runtime}'")))?;
        workload.override_runtime(ns);
    }
    let started = Instant::now();
    let out = simulate(&workload, policy, device, Vec::new(), &SimConfig { seed: args.seed, record_log: false })
        .map_err(|e| match e {
            SimError::Workload(w) => bad(w),
            other => CliError::Failed(other.to_string()),
        })?;
    let wall = started.elapsed();
    // Warnings once the input has been accepted, so that an error stays one line.
    for w in warnings {
        eprintln!("iosched: warning: {w}");
    }
    if args.json {
        print!("{}", fio_json::to_string(&out.result));
    } else {
        print!("{}", table::render(&out.result));
        println!(
            "\nsimulated {} requests in {:.3} s of wall time ({:.0} requests/s)",
            out.result.requests_completed,
            wall.as_secs_f64(),
            out.result.requests_completed as f64 / wall.as_secs_f64().max(1e-9)
        );
    }
    Ok(())
}
