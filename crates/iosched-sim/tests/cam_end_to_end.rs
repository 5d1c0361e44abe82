//! The CAM scheduler on the engine, end to end (seed 002's case): a reader at a fixed rate shares a flash
//! drive with a sequential fill. The fill keeps the drive's queue full of large writes and every read waits
//! behind them; limiting writes at the device to one (cam's write queue_depth limiter) brings read latency down
//! while the fill still progresses, and the read-latency control loop lowers the write limit on its own.

use iosched_core::policy::StatValue;
use iosched_core::registry;
use iosched_core::results::RunResult;
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::fio::parse_str;

const JOBS: &str = "[global]\nioengine=libaio\ndirect=1\ntime_based\nruntime=10\n\
                    [reader]\nrw=randread\nbs=64k\niodepth=16\nrate=150m\n\
                    [writer]\nrw=write\nbs=1m\niodepth=32\noffset=50%\n";

fn run(policy: &str, settings: &[(&str, &str)]) -> RunResult {
    let p = registry::create_with(policy, settings.iter().copied()).unwrap();
    let jobs = parse_str(JOBS, "fill.fio").unwrap();
    let config = SimConfig { seed: 1, record_log: false };
    simulate(&Workload::from_jobs(&jobs), p, parse_spec("ssd:netflix").unwrap(), Vec::new(), &config).unwrap().result
}

fn read_p99_ms(r: &RunResult) -> f64 {
    r.jobs[0].directions[0].total.at(99.0).unwrap() as f64 / 1e6
}

fn write_mb_per_s(r: &RunResult) -> f64 {
    r.jobs[1].bw_bytes_per_s(1) / 1e6
}

fn stat(r: &RunResult, name: &str) -> u64 {
    match r.policy_stats.iter().find(|(k, _)| k == name).map(|(_, v)| *v) {
        Some(StatValue::Count(n)) => n,
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn a_write_queue_depth_of_one_brings_read_latency_down_while_the_fill_goes_on() {
    let noop = run("noop", &[]);
    let qd1 = run("cam", &[("write.limiter", "queue_depth"), ("write.max", "1"), ("write.current", "1")]);
    let (noop_p99, qd1_p99) = (read_p99_ms(&noop), read_p99_ms(&qd1));
    let (noop_w, qd1_w) = (write_mb_per_s(&noop), write_mb_per_s(&qd1));
    eprintln!(
        "read p99 ms: noop {noop_p99:.2}, cam qd1 {qd1_p99:.2}; write MB/s: noop {noop_w:.1}, cam qd1 {qd1_w:.1}"
    );
    assert!(qd1_p99 * 5.0 < noop_p99, "read p99: cam qd1 {qd1_p99} vs noop {noop_p99}");
    assert!(qd1_w > 0.25 * noop_w, "the fill must go on: {qd1_w} vs {noop_w} MB/s");
    assert_eq!(stat(&qd1, "write.pending"), 0);
    assert_eq!(stat(&qd1, "write.out"), stat(&qd1, "write.count"));
}

#[test]
fn the_read_latency_loop_lowers_the_write_limit_when_reads_are_slow() {
    let steer = [
        ("control.type", "read_latency"),
        ("control.steer_interval", "1000000"),
        ("control.lolat", "1000"),
        ("control.hilat", "3000"),
        ("write.limiter", "bandwidth"),
        ("write.max", "400000"),
        ("write.current", "400000"),
    ];
    let r = run("cam", &steer);
    let current = stat(&r, "write.current");
    eprintln!("steered down {} times, write limit now {current} kB/s", stat(&r, "steered_down"));
    assert!(stat(&r, "steered_down") >= 3, "{:?}", r.policy_stats);
    assert!(current < 400_000 * 8 / 10, "{current}");
    assert!(write_mb_per_s(&r) < write_mb_per_s(&run("noop", &[])));
}
