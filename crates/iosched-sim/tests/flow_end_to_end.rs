//! fio's flow control (flow_id, flow, flow_sleep): jobs sharing a flow_id issue I/O in proportion to their flow
//! weights, whatever the device would give each (fio's examples/flow.fio: a writer at 1, a reader at 8).

use iosched_core::registry;
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::fio::parse_str;

fn ios(jobs: &str) -> Vec<u64> {
    let jobs = parse_str(jobs, "flow.fio").unwrap();
    let out = simulate(
        &Workload::from_jobs(&jobs),
        registry::create("noop").unwrap(),
        parse_spec("simple").unwrap(),
        Vec::new(),
        &SimConfig { seed: 1, record_log: false },
    )
    .unwrap();
    out.result.jobs.iter().map(|j| j.directions.iter().map(|d| d.ios).sum()).collect()
}

const JOBS: &str = "[global]\ntime_based\nruntime=1\nioengine=libaio\niodepth=64\nbs=8k\nflow_sleep=1000\n\
                    [writer]\nrw=write\nWRITER\n[reader]\nrw=randread\nREADER\n[free]\nrw=randread\nflow_id=2\n";

#[test]
fn jobs_of_a_flow_issue_in_proportion_to_their_weights() {
    let free = ios(&JOBS.replace("WRITER", "").replace("READER", ""));
    let weighted = ios(&JOBS.replace("WRITER", "flow=1").replace("READER", "flow=8"));
    eprintln!("without flow {free:?}; with flow 1:8 {weighted:?}");
    let ratio = |v: &[u64]| v[1] as f64 / v[0] as f64;
    assert!(ratio(&free) < 2.0, "the device alone gives the reader nowhere near 8x: {free:?}");
    assert!((7.5..8.5).contains(&ratio(&weighted)), "1:8 by flow: {weighted:?}");
    // A job outside the flow group (no weight) is not held back by it.
    assert!(weighted[2] as f64 > 0.5 * free[2] as f64, "{weighted:?} against {free:?}");
}
