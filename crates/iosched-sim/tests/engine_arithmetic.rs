//! The engine on the simple device gives what arithmetic predicts.

use iosched_core::registry;
use iosched_core::request::{IoClass, Op};
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, TimedIo, Workload};
use iosched_workload::fio::parse_str;

fn run(job_text: &str, device: &str, policy: &str) -> iosched_core::results::RunResult {
    let jobs = parse_str(job_text, "test.fio").unwrap();
    let workload = Workload::from_jobs(&jobs);
    let out = simulate(
        &workload,
        registry::create(policy).unwrap(),
        parse_spec(device).unwrap(),
        Vec::new(),
        &SimConfig { seed: 1, record_log: false },
    )
    .unwrap();
    assert_eq!(out.result.requests_submitted, out.result.requests_completed);
    out.result
}

#[test]
fn sequential_reader_at_depth_one() {
    // Each 128 KiB read costs 100 us + 131072 B / 500 MB/s = 100 + 262.144 = 362.144 us; 1000 of them.
    let r = run("[seq]\nrw=read\nbs=128k\nnumber_ios=1000\n", "simple,latency_us=100,bandwidth_mb_per_s=500", "noop");
    let job = &r.jobs[0];
    assert_eq!(job.directions[0].ios, 1000);
    assert_eq!(job.runtime_ns, 362_144_000);
    assert!((job.iops(0) - 1e9 / 362_144.0).abs() < 1e-6);
    assert_eq!(job.directions[0].total.min_ns, 362_144);
    assert_eq!(job.directions[0].total.max_ns, 362_144);
    assert_eq!(job.directions[0].queue_wait.max_ns, 0);
}

#[test]
fn deep_queue_is_bandwidth_bound() {
    // 4 KiB at depth 32: latency alone would allow 32 / 108.192 us = 295,767 IOPS, but the channel moves
    // 500e6 / 4096 = 122,070 IOPS; the channel wins.
    let r = run(
        "[rand]\nrw=randread\nbs=4k\nioengine=libaio\niodepth=32\nnumber_ios=100000\n",
        "simple,latency_us=100,bandwidth_mb_per_s=500",
        "noop",
    );
    let iops = r.jobs[0].iops(0);
    assert!((iops / 122_070.3 - 1.0).abs() < 0.005, "{iops}");
}

#[test]
fn shallow_queue_is_latency_bound() {
    // Depth 4 with 1 ms latency: 4 / (1000 + 8.192) us = 3967.5 IOPS.
    let r = run(
        "[rand]\nrw=randread\nbs=4k\nioengine=io_uring\niodepth=4\nnumber_ios=20000\n",
        "simple,latency_us=1000,bandwidth_mb_per_s=500",
        "noop",
    );
    let iops = r.jobs[0].iops(0);
    assert!((iops / 3967.5 - 1.0).abs() < 0.002, "{iops}");
}

#[test]
fn think_time_adds_to_each_cycle() {
    // psync: one at a time; each cycle is 100 us + 8.192 us transfer + 500 us think = 608.192 us.
    let r = run("[t]\nrw=randread\nbs=4k\nthinktime=500\nnumber_ios=100\n", "simple", "noop");
    let job = &r.jobs[0];
    // The last completion ends the job: 100 cycles minus the final think.
    assert_eq!(job.runtime_ns, 100 * 608_192 - 500_000);
}

#[test]
fn runtime_stops_a_time_based_job() {
    let r = run("[t]\nrw=read\nbs=4k\ntime_based\nruntime=10ms\n", "simple", "noop");
    let job = &r.jobs[0];
    // 108.192 us per I/O: I/Os start at k * 108.192 us for k while start < 10 ms: k = 0..=92.
    assert_eq!(job.directions[0].ios, 93);
    assert!(job.runtime_ns >= 10_000_000 && job.runtime_ns < 10_000_000 + 108_192);
}

#[test]
fn numjobs_clones_are_separate_flows() {
    let r = run("[c]\nrw=randread\nnumjobs=3\nnumber_ios=10\n", "simple", "noop");
    assert_eq!(r.jobs.len(), 3);
    let flows: Vec<u32> = r.jobs.iter().map(|j| j.flow).collect();
    assert_eq!(flows, vec![0, 1, 2]);
    assert!(r.jobs.iter().all(|j| j.directions[0].ios == 10));
}

#[test]
fn fsync_issues_flushes_that_are_barriers() {
    let r = run(
        "[w]\nrw=write\nbs=4k\nioengine=libaio\niodepth=8\nfsync=4\nnumber_ios=32\nend_fsync=1\n",
        "simple",
        "elevator",
    );
    let job = &r.jobs[0];
    assert_eq!(job.directions[1].ios, 32);
    // One flush after every 4 writes issued (8 of them) and one at the end.
    assert_eq!(job.flushes.ios, 9);
}

#[test]
fn open_loop_requests_arrive_at_their_times_whatever_the_device_does() {
    // 10 reads, 1 ms apart, on a device that takes 5 ms each at depth 1: they queue.
    let requests: Vec<TimedIo> = (0..10)
        .map(|i| TimedIo {
            at_ns: i * 1_000_000,
            op: Op::Read,
            offset_bytes: i * 4096,
            len_bytes: 4096,
            stream: 0,
            class: IoClass::Be,
            level: 4,
            sync: true,
        })
        .collect();
    let mut workload = Workload::default();
    workload.add_timed("trace", requests);
    let device = parse_spec("simple,latency_us=5000,bandwidth_mb_per_s=1000000,queue_depth=1").unwrap();
    let out =
        simulate(&workload, registry::create("noop").unwrap(), device, Vec::new(), &SimConfig::default()).unwrap();
    let d = &out.result.jobs[0].directions[0];
    assert_eq!(d.ios, 10);
    // Each takes 5 ms + 4096 B at 10^12 B/s (4.096 ns, rounded up to 5): 5,000,005 ns. Request i starts at
    // i x 5,000,005 (device-bound) and arrived at i x 1 ms: it waited i x 4,000,005 ns.
    assert_eq!(d.queue_wait.max_ns, 9 * 4_000_005);
    assert_eq!(out.result.elapsed_ns, 10 * 5_000_005);
}

#[test]
fn out_of_range_region_names_the_option() {
    let jobs = parse_str("[j]\nrw=read\noffset=2g\nsize=1g\n", "big.fio").unwrap();
    let workload = Workload::from_jobs(&jobs);
    let err = simulate(
        &workload,
        registry::create("noop").unwrap(),
        parse_spec("simple,capacity_gib=2").unwrap(),
        Vec::new(),
        &SimConfig::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.starts_with("big.fio:3: job 'j': offset"), "{err}");
}
