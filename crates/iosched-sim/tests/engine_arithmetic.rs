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
            fua: false,
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

fn run_logged(job_text: &str, device: &str) -> iosched_sim::SimOutput {
    let jobs = parse_str(job_text, "test.fio").unwrap();
    let out = simulate(
        &Workload::from_jobs(&jobs),
        registry::create("noop").unwrap(),
        parse_spec(device).unwrap(),
        Vec::new(),
        &SimConfig { seed: 7, record_log: true },
    )
    .unwrap();
    assert_eq!(out.result.requests_submitted, out.result.requests_completed);
    out
}

#[test]
fn rwmix_70_30_splits_requests_and_bytes() {
    let r = run("[m]\nrw=randrw\nrwmixread=70\nbs=4k,16k\ndirect=1\nnumber_ios=20000\n", "simple", "noop");
    let job = &r.jobs[0];
    let (reads, writes) = (job.directions[0].ios, job.directions[1].ios);
    assert_eq!(reads + writes, 20_000);
    // Binomial(20000, 0.7): sd 65 requests.
    assert!((13_800..14_200).contains(&reads), "{reads}");
    assert_eq!(job.directions[0].bytes, reads * 4096);
    assert_eq!(job.directions[1].bytes, writes * 16384);
    // One at a time: a read takes 100 + 8.192 us, a write 100 + 32.768 us.
    assert_eq!(job.runtime_ns, reads * 108_192 + writes * 132_768);
}

#[test]
fn rate_limit_holds_bandwidth_and_iops() {
    // rate=1m with 4 KiB blocks: 256 I/Os per second, evenly spaced, far below what the device could do.
    let out = run_logged("[r]\nrw=read\nbs=4k\nioengine=libaio\niodepth=8\nrate=1m\ntime_based\nruntime=2\n", "simple");
    let job = &out.result.jobs[0];
    assert_eq!(job.directions[0].ios, 512);
    let bw = job.bw_bytes_per_s(0);
    assert!((bw / 1_048_576.0 - 1.0).abs() < 0.001, "{bw}");
    let arrivals: Vec<u64> = out.log.iter().map(|e| e.req.queued_ns).collect();
    let gaps: Vec<u64> = arrivals.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|g| g.abs_diff(3_906_250) <= 1), "linear gaps of 1 s / 256");
    let iops = run("[r]\nrw=randread\nrate_iops=500\nruntime=1\ntime_based\n", "simple", "noop");
    assert_eq!(iops.jobs[0].directions[0].ios, 500);
}

#[test]
fn poisson_arrivals_have_exponential_gaps() {
    let out = run_logged(
        "[p]\nrw=randread\nioengine=libaio\niodepth=64\nrate_iops=1000\nrate_process=poisson\ntime_based\nruntime=20\n",
        "simple",
    );
    let arrivals: Vec<f64> = out.log.iter().map(|e| e.req.queued_ns as f64).collect();
    let n = arrivals.len() as f64;
    assert!((n / 20_000.0 - 1.0).abs() < 0.03, "{n} arrivals for 20,000 expected");
    let gaps: Vec<f64> = arrivals.windows(2).map(|w| w[1] - w[0]).collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let var = gaps.iter().map(|g| (g - mean) * (g - mean)).sum::<f64>() / gaps.len() as f64;
    // An exponential distribution's coefficient of variation is 1 (a linear process's is 0), and its share of
    // gaps below the mean is 1 - 1/e.
    let cv = var.sqrt() / mean;
    assert!((cv - 1.0).abs() < 0.05, "cv {cv}");
    let below = gaps.iter().filter(|g| **g < mean).count() as f64 / gaps.len() as f64;
    assert!((below - (1.0 - (-1.0f64).exp())).abs() < 0.02, "{below}");
}

#[test]
fn stonewall_starts_a_job_when_the_one_before_has_finished() {
    let text = "[a]\nrw=read\nbs=4k\nnumber_ios=100\n[b]\nstonewall\nrw=randread\nbs=4k\nnumber_ios=100\n";
    let out = run_logged(text, "simple");
    let a_end = out.log.iter().filter(|e| e.source == 0).map(|e| e.req.completed_ns).max().unwrap();
    let b_start = out.log.iter().filter(|e| e.source == 1).map(|e| e.req.queued_ns).min().unwrap();
    assert_eq!(a_end, 100 * 108_192);
    assert_eq!(b_start, a_end);
    assert_eq!(out.result.elapsed_ns, 200 * 108_192);
    assert_eq!((out.result.jobs[0].group, out.result.jobs[1].group), (0, 1));
    // Without the stonewall both start at once and overlap.
    let together = run_logged(&text.replace("stonewall\n", ""), "simple");
    assert!(together.result.elapsed_ns < 110 * 108_192, "{}", together.result.elapsed_ns);
}

#[test]
fn group_reporting_merges_a_groups_clones() {
    let r = run("[g]\nrw=randread\nnumjobs=4\nnumber_ios=50\ngroup_reporting\n", "simple", "noop");
    assert_eq!(r.jobs.len(), 1);
    assert_eq!(r.jobs[0].directions[0].ios, 200);
    assert_eq!(r.jobs[0].name, "g");
}

#[test]
fn thinktime_blocks_drains_then_pauses() {
    // Depth 4, think 1 ms after every 4 issues: a cycle is 4 reads together (100 us + 4 x 8.192 us for the last
    // transfer) then 1 ms; 25 cycles, the last without its think.
    let r = run(
        "[t]\nrw=randread\nbs=4k\nioengine=libaio\niodepth=4\nthinktime=1000\nthinktime_blocks=4\nnumber_ios=100\n",
        "simple",
        "noop",
    );
    let cycle = 100_000 + 4 * 8_192;
    assert_eq!(r.jobs[0].runtime_ns, 25 * cycle + 24 * 1_000_000);
}

#[test]
fn ramp_time_is_left_out_of_the_results() {
    let r = run("[r]\nrw=read\nbs=4k\nramp_time=1\nruntime=1\ntime_based\n", "simple", "noop");
    let job = &r.jobs[0];
    // 1 s of 108.192 us reads after the ramp: 9242 or 9243 counted, not twice that.
    assert!((9_241..=9_244).contains(&job.directions[0].ios), "{}", job.directions[0].ios);
    assert!(job.runtime_ns.abs_diff(1_000_000_000) < 200_000, "{}", job.runtime_ns);
}

#[test]
fn buffered_writes_are_write_back_and_do_not_wait() {
    // A psync writer with 1 ms device latency: direct, it waits for each write (1000 IOPS); buffered, up to
    // 128 write-back requests overlap and the channel (500 MB/s) is the limit.
    let device = "simple,latency_us=1000,queue_depth=256";
    let direct = run("[w]\nrw=write\nbs=4k\ndirect=1\nnumber_ios=4000\n", device, "noop");
    let buffered = run("[w]\nrw=write\nbs=4k\nnumber_ios=4000\n", device, "noop");
    let (d, b) = (direct.jobs[0].iops(1), buffered.jobs[0].iops(1));
    assert!((d / 992.0 - 1.0).abs() < 0.01, "direct {d}");
    // 128 in flight per 1.008 ms: 127,000 IOPS is under the channel's 122,070: the channel rules.
    assert!(b > 100.0 * d, "buffered {b} vs direct {d}");
}

#[test]
fn latency_target_finds_the_deepest_queue_under_the_target() {
    // 4 KiB reads, 150 us target. When d reads start together (as after the drain that follows each depth
    // change) the last one completes at 100 + d x 8.192 us, so d <= 6 holds the target and 7 does not. fio's
    // search (double while it holds, bisect once it fails) ends at 6 and reports only its final window, in
    // which 6 reads of 108.192 us each overlap: 55,457 IOPS.
    let r = run(
        "[l]\nrw=randread\nbs=4k\nioengine=libaio\niodepth=64\nlatency_target=150\nlatency_window=10ms\nruntime=5\n",
        "simple",
        "noop",
    );
    let job = &r.jobs[0];
    assert_eq!(job.error_code, 0, "{}", job.error_message);
    assert!(job.directions[0].total.max_ns <= 150_000, "{}", job.directions[0].total.max_ns);
    let iops = job.iops(0);
    assert!((iops / 55_457.0 - 1.0).abs() < 0.02, "{iops}");
    assert!(job.directions[0].ios < 1_000, "only the final window is reported: {}", job.directions[0].ios);
    assert!(r.elapsed_ns < 200_000_000, "the search ended the job early: {}", r.elapsed_ns);
    // An impossible target fails the job at depth 1 as fio does (ETIMEDOUT).
    let r = run(
        "[l]\nrw=randread\nioengine=libaio\niodepth=8\nlatency_target=50\nlatency_window=10ms\nruntime=1\n",
        "simple",
        "noop",
    );
    assert_eq!(r.jobs[0].error_code, 110);
}

#[test]
fn rate_min_fails_a_job_that_cannot_keep_up() {
    // 4 KiB at depth 1 reaches 9,243 IOPS; asking for at least 20,000 fails after the first cycle.
    let r = run("[m]\nrw=randread\nrate_iops_min=20000\ntime_based\nruntime=5\n", "simple", "noop");
    assert_eq!(r.jobs[0].error_code, 5, "{}", r.jobs[0].error_message);
    assert!(r.elapsed_ns < 1_100_000_000);
    let ok = run("[m]\nrw=randread\nrate_iops_min=5000\ntime_based\nruntime=3\n", "simple", "noop");
    assert_eq!(ok.jobs[0].error_code, 0);
}
