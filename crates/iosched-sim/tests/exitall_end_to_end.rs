//! fio's exitall: when a job that sets it finishes, the jobs running beside it stop (exit_what=group, the
//! default, and stonewall: the jobs of its stonewall group; all: every job, later groups too). What they have in
//! flight completes; their reported runtime ends there.

use iosched_core::registry;
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::fio::parse_str;

/// (each job's runtime in s, each job's I/Os, simulated seconds).
fn run(jobs: &str) -> (Vec<f64>, Vec<u64>, f64) {
    let jobs = parse_str(jobs, "exitall.fio").unwrap();
    let out = simulate(
        &Workload::from_jobs(&jobs),
        registry::create("noop").unwrap(),
        parse_spec("simple,latency_us=100,queue_depth=8").unwrap(),
        Vec::new(),
        &SimConfig { seed: 1, record_log: false },
    )
    .unwrap();
    let r = &out.result;
    let runtimes = r.jobs.iter().map(|j| j.runtime_ns as f64 / 1e9).collect();
    let ios = r.jobs.iter().map(|j| j.directions.iter().map(|d| d.ios).sum()).collect();
    (runtimes, ios, r.elapsed_ns as f64 / 1e9)
}

const SHORT_AND_LONG: &str = "[global]\nrw=randread\nbs=4k\nioengine=psync\n\
                              [short]\nsize=4m\nEXIT\n[long]\ntime_based\nruntime=10\n";

#[test]
fn a_job_with_exitall_ends_the_others_when_it_is_done() {
    let (free, _, free_s) = run(&SHORT_AND_LONG.replace("EXIT", ""));
    let (ended, _, ended_s) = run(&SHORT_AND_LONG.replace("EXIT", "exitall"));
    eprintln!("without exitall: {free:?} ({free_s} s); with it: {ended:?} ({ended_s} s)");
    assert!(free[1] >= 10.0, "the long job runs its 10 s: {free:?}");
    // 1024 reads of 0.1 ms and a bit each: the short job is done in about a fifth of a second, and the long
    // one with it.
    assert!(ended[0] < 0.5 && ended[1] < ended[0] + 0.01, "{ended:?}");
    assert!(ended_s < 0.5, "the run went on for {ended_s} s");
}

#[test]
fn exit_what_all_stops_later_stonewall_groups_too_and_group_does_not() {
    let three = "[global]\nrw=randread\nbs=4k\nioengine=psync\n\
                 [short]\nsize=4m\nexitall\nexit_what=WHAT\n[long]\ntime_based\nruntime=10\n\
                 [after]\nstonewall\nsize=4m\n";
    let (_, group_ios, _) = run(&three.replace("WHAT", "group"));
    let (_, all_ios, _) = run(&three.replace("WHAT", "all"));
    assert_eq!(group_ios[2], 1024, "the next group runs after exit_what=group: {group_ios:?}");
    assert_eq!(all_ios[2], 0, "exit_what=all stops the next group too: {all_ios:?}");
}
