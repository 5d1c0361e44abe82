//! What the fio end-to-end tests share: a job file's text run through noop on a device spec, seed 1, with the
//! per-request log.

use iosched_core::registry;
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, SimOutput, Workload};
use iosched_workload::fio::parse_str;

pub fn run_fio_text(jobs: &str, device: &str) -> SimOutput {
    let jobs = parse_str(jobs, "jobs.fio").unwrap();
    simulate(
        &Workload::from_jobs(&jobs),
        registry::create("noop").unwrap(),
        parse_spec(device).unwrap(),
        Vec::new(),
        &SimConfig { seed: 1, record_log: true },
    )
    .unwrap()
}
