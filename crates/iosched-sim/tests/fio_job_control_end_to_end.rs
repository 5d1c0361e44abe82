//! The fio options that decide when jobs issue and end, through the engine:
//! - exitall: when a job that sets it finishes, the jobs running beside it stop (exit_what=group, the default,
//!   and stonewall: the jobs of its stonewall group; all: every job, later groups too). What they have in
//!   flight completes; their reported runtime ends there.
//! - steadystate: a job whose IOPS hold still ends once its window of samples meets the criterion (after its
//!   ramp), long before its runtime; one whose rate wanders runs to its runtime.
//! - max_latency: the first request (after the ramp) whose latency is over the limit of its direction fails the
//!   job with ETIMEDOUT (110), as fio's lat_fatal.
//! - flow (flow_id, flow, flow_sleep): jobs sharing a flow_id issue I/O in proportion to their flow weights,
//!   whatever the device would give each (fio's examples/flow.fio: a writer at 1, a reader at 8).

use iosched_core::registry;
use iosched_core::results::RunResult;
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::fio::parse_str;

/// Simulate fio job text under noop on `device`.
fn run(jobs: &str, device: &str) -> RunResult {
    let jobs = parse_str(jobs, "jobs.fio").unwrap();
    let out = simulate(
        &Workload::from_jobs(&jobs),
        registry::create("noop").unwrap(),
        parse_spec(device).unwrap(),
        Vec::new(),
        &SimConfig { seed: 1, record_log: false },
    )
    .unwrap();
    out.result
}

/// Each job's I/Os, all directions.
fn ios(r: &RunResult) -> Vec<u64> {
    r.jobs.iter().map(|j| j.directions.iter().map(|d| d.ios).sum()).collect()
}

fn runtimes_s(r: &RunResult) -> Vec<f64> {
    r.jobs.iter().map(|j| j.runtime_ns as f64 / 1e9).collect()
}

/// exitall's jobs: (each job's runtime in s, each job's I/Os, simulated seconds).
fn exitall_run(jobs: &str) -> (Vec<f64>, Vec<u64>, f64) {
    let r = run(jobs, "simple,latency_us=100,queue_depth=8");
    (runtimes_s(&r), ios(&r), r.elapsed_ns as f64 / 1e9)
}

/// steadystate's job: its runtime in s.
fn runtime_s(job: &str) -> f64 {
    runtimes_s(&run(job, "simple,latency_us=100"))[0]
}

const SHORT_AND_LONG: &str = "[global]\nrw=randread\nbs=4k\nioengine=psync\n\
                              [short]\nsize=4m\nEXIT\n[long]\ntime_based\nruntime=10\n";

#[test]
fn a_job_with_exitall_ends_the_others_when_it_is_done() {
    let (free, _, free_s) = exitall_run(&SHORT_AND_LONG.replace("EXIT", ""));
    let (ended, _, ended_s) = exitall_run(&SHORT_AND_LONG.replace("EXIT", "exitall"));
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
    let (_, group_ios, _) = exitall_run(&three.replace("WHAT", "group"));
    let (_, all_ios, _) = exitall_run(&three.replace("WHAT", "all"));
    assert_eq!(group_ios[2], 1024, "the next group runs after exit_what=group: {group_ios:?}");
    assert_eq!(all_ios[2], 0, "exit_what=all stops the next group too: {all_ios:?}");
}

#[test]
fn a_steady_job_ends_when_its_window_is_steady_and_a_wandering_one_runs_its_course() {
    // A fixed-latency device: the same IOPS every second. 3 s of ramp, a 5 s window: steady at 8 s.
    let steady = runtime_s("[j]\nrw=randread\nbs=4k\ntime_based\nruntime=60\nss=iops:1%\nss_dur=5\nss_ramp=3\n");
    assert!((8.0..9.0).contains(&steady), "ended at {steady} s");
    // Poisson arrivals at 200 IOPS: a second's count moves by about 14, far more than 0.5 % of the mean.
    let wandering = runtime_s(
        "[j]\nrw=randread\nbs=4k\ntime_based\nruntime=20\nrate_iops=200\nrate_process=poisson\nss=iops:0.5%\nss_dur=5\n",
    );
    assert!(wandering >= 20.0, "ended at {wandering} s");
    // Without a duration, steadystate is off, as in fio.
    assert!(runtime_s("[j]\nrw=randread\nbs=4k\ntime_based\nruntime=12\nss=iops:1%\n") >= 12.0);
}

const JOBS: &str = "[global]\ntime_based\nruntime=1\nioengine=libaio\niodepth=64\nbs=8k\nflow_sleep=1000\n\
                    [writer]\nrw=write\nWRITER\n[reader]\nrw=randread\nREADER\n[free]\nrw=randread\nflow_id=2\n";

#[test]
fn jobs_of_a_flow_issue_in_proportion_to_their_weights() {
    let free = ios(&run(&JOBS.replace("WRITER", "").replace("READER", ""), "simple"));
    let weighted = ios(&run(&JOBS.replace("WRITER", "flow=1").replace("READER", "flow=8"), "simple"));
    eprintln!("without flow {free:?}; with flow 1:8 {weighted:?}");
    let ratio = |v: &[u64]| v[1] as f64 / v[0] as f64;
    assert!(ratio(&free) < 2.0, "the device alone gives the reader nowhere near 8x: {free:?}");
    assert!((7.5..8.5).contains(&ratio(&weighted)), "1:8 by flow: {weighted:?}");
    // A job outside the flow group (no weight) is not held back by it.
    assert!(weighted[2] as f64 > 0.5 * free[2] as f64, "{weighted:?} against {free:?}");
}

/// wait_for: a job starts once every clone of the job it names has finished, while jobs that wait for nothing
/// run from the start (fio's examples/waitfor.fio chains writers and readers this way).
#[test]
fn a_job_with_wait_for_starts_when_its_waitee_is_done_and_others_do_not_wait() {
    let text = "[global]\nbs=4k\nioengine=psync\ndirect=1\nsize=1m\n\
                [writers]\nrw=write\nnumjobs=2\n\
                [readers]\nrw=randread\nwait_for=writers\n\
                [bystander]\nrw=read\n";
    let jobs = parse_str(text, "jobs.fio").unwrap();
    let out = simulate(
        &Workload::from_jobs(&jobs),
        registry::create("noop").unwrap(),
        parse_spec("simple,latency_us=100").unwrap(),
        Vec::new(),
        &SimConfig { seed: 1, record_log: true },
    )
    .unwrap();
    // Sources: writers (two clones), readers, bystander.
    let of = |source: u32| out.log.iter().filter(move |e| e.source == source);
    let writers_done = of(0).chain(of(1)).map(|e| e.req.completed_ns).max().unwrap();
    let readers_first = of(2).map(|e| e.req.queued_ns).min().unwrap();
    let bystander_first = of(3).map(|e| e.req.queued_ns).min().unwrap();
    assert!(readers_first >= writers_done, "readers start at {readers_first}, writers end at {writers_done}");
    assert_eq!(bystander_first, 0, "a job that waits for nothing starts at once");
    assert_eq!(of(2).count(), 256, "the waiter runs its whole size");
    let bad = parse_str("[a]\nrw=read\nwait_for=b\n[b]\nrw=read\n", "w.fio").unwrap_err();
    assert!(bad.to_string().contains("w.fio:3") && bad.to_string().contains("defined before"), "{bad}");
}

#[test]
fn max_latency_fails_the_job_at_the_first_request_over_it() {
    // Every request takes 100 us plus 8 us of transfer at queue depth 1: under a 1 ms limit the job runs whole,
    // over a 50 us one it fails with ETIMEDOUT at its first completion, as fio's lat_fatal does.
    let ok = run("[j]\nrw=randread\nbs=4k\nnumber_ios=200\nmax_latency=1ms\n", "simple,latency_us=100,queue_depth=1");
    assert_eq!(ios(&ok), vec![200]);
    assert_eq!(ok.jobs[0].error_code, 0, "{}", ok.jobs[0].error_message);
    let over = run("[j]\nrw=randread\nbs=4k\nnumber_ios=200\nmax_latency=50\n", "simple,latency_us=100,queue_depth=1");
    assert_eq!(ios(&over), vec![1], "stopped at the first request over the limit");
    let (errno, message) = (over.jobs[0].error_code, &over.jobs[0].error_message);
    assert_eq!(errno, 110, "{message}");
    assert!(message.contains("exceeds max_latency (50000 ns)"), "{message}");
    // Per direction: a limit on writes only leaves the reads of a mixed job alone.
    let writes_only =
        run("[j]\nrw=randrw\nbs=4k\nnumber_ios=200\nmax_latency=10ms,50\n", "simple,latency_us=100,queue_depth=1");
    let message = &writes_only.jobs[0].error_message;
    assert!(writes_only.jobs[0].error_code == 110 && message.starts_with("write latency"), "{message}");
}
