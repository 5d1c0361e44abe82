//! `iosched demo`: every policy on a built-in mixed workload, side by side.
//!
//! The workload (demo_mixed.fio beside this file): a synchronous sequential reader (128 KiB), a random reader
//! of small blocks with a little think time (an interactive program), and a buffered writer keeping 16 writes
//! in flight. On the simple device seeks cost nothing, so what differs between policies is the order of
//! service: who waits in the queue and for how long.

use super::policy_with;
use crate::error::CliError;
use iosched_core::registry;
use iosched_core::results::RunResult;
use iosched_device::parse_spec;
use iosched_report::{fio_json, table::columns};
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::fio;

const DEMO_JOBS: &str = include_str!("demo_mixed.fio");
const DEMO_DEVICE: &str = "simple,latency_us=200,bandwidth_mb_per_s=150,queue_depth=4";
/// Settings shown beside every policy's defaults: the elevator's default (no batch limit) lets the writer's
/// stream starve the readers, which is seed 002's "car size" complaint; a batch limit is the fix.
const DEMO_EXTRA: &[(&str, &[&str])] = &[("elevator", &["batch=16"])];

fn line(label: String, run: &RunResult) -> Vec<String> {
    let find = |name: &str| run.jobs.iter().find(|j| j.name == name).expect("demo job exists");
    let (seq, random, writer) = (find("sequential-reader"), find("random-reader"), find("writer"));
    let ms = |ns: u64| format!("{:.2}", ns as f64 / 1e6);
    vec![
        label,
        format!("{:.1}", seq.bw_bytes_per_s(0) / 1e6),
        format!("{:.0}", random.iops(0)),
        format!("{:.2}", random.directions[0].total.mean_ns / 1e6),
        ms(random.directions[0].total.at(99.0).unwrap_or(0)),
        format!("{:.1}", writer.bw_bytes_per_s(1) / 1e6),
        ms(writer.directions[1].total.at(99.0).unwrap_or(0)),
    ]
}

pub fn run(as_json: bool, seed: u64) -> Result<(), CliError> {
    let jobs = fio::parse_str(DEMO_JOBS, "demo_mixed.fio").map_err(|e| CliError::Failed(e.to_string()))?;
    let workload = Workload::from_jobs(&jobs);
    let mut rows =
        vec![["policy", "seq MB/s", "random IOPS", "random mean ms", "random p99 ms", "writer MB/s", "writer p99 ms"]
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()];
    let mut configurations: Vec<(&str, Vec<String>)> = registry::policies().iter().map(|p| (p.name, vec![])).collect();
    for (name, settings) in DEMO_EXTRA {
        configurations.push((name, settings.iter().map(|s| s.to_string()).collect()));
    }
    for (name, settings) in configurations {
        let policy = policy_with(name, &settings)?;
        let device = parse_spec(DEMO_DEVICE).map_err(|e| CliError::Failed(e.to_string()))?;
        let out = simulate(&workload, policy, device, Vec::new(), &SimConfig { seed, record_log: false })
            .map_err(|e| CliError::Failed(e.to_string()))?;
        if as_json {
            let value = fio_json::to_value(&out.result);
            println!("{}", serde_json::to_string(&value).expect("JSON serialises"));
        } else {
            let label = if settings.is_empty() { name.to_string() } else { format!("{name} {}", settings.join(" ")) };
            rows.push(line(label, &out.result));
        }
    }
    if !as_json {
        println!("Every policy on a built-in mixed workload, 2 s simulated each, on {DEMO_DEVICE}:");
        println!(
            "a sequential 128 KiB reader, a random 4 KiB reader with 0.5 ms think time, a writer with 16 in flight.\n"
        );
        print!("{}", columns(&rows));
        println!(
            "\nTry 'iosched policies' for the tunables and 'iosched sim JOBFILE --policy NAME' for one run in full."
        );
    }
    Ok(())
}
