//! fio's iodepth_mode=stepped through the engine (fio's examples/iodepth_mode_stepped.fio, with short times):
//! a probe at the full depth measures the job's IOPS, then each step below 100 % is held to its share of them
//! and the steps at 100 % and above run unlimited at a depth that grows with the share; latency rises once the
//! device saturates, and the job ends after its last step, long before its runtime.

mod common;

use iosched_report::fio_json;
use iosched_sim::SimOutput;
use iosched_workload::fio::parse_str;

/// 100 µs per request, 4 KiB at 400 MB/s over one channel: about 97,700 IOPS at most, reached from depth 11.
const DEVICE: &str = "simple,latency_us=100,bandwidth_mb_per_s=400,queue_depth=64";

fn run(jobs: &str) -> SimOutput {
    common::run_fio_text(jobs, DEVICE)
}

const EXAMPLE: &str = "[step]\nioengine=libaio\niodepth=64\nnumjobs=1\ndirect=1\n\
                       iodepth_mode=stepped:10-130/20,20ms/100ms\nrw=randread\nnorandommap\nsize=1g\nruntime=1h\n\
                       time_based=1\n";

#[test]
fn steps_hold_their_share_of_the_probed_iops_then_saturate() {
    let out = run(EXAMPLE);
    let job = &out.result.jobs[0];
    let percents: Vec<u32> = job.steps.iter().map(|s| s.percent).collect();
    // As fio's lat_step_recalc: steps of 20 % while the previous step was below 130 %.
    assert_eq!(percents, vec![20, 40, 60, 80, 100, 120, 140]);
    // The probe ran at depth 64 against a 97,656 IOPS channel.
    let probed = 400e6 / 4096.0;
    for s in &job.steps {
        if s.percent < 100 {
            assert_eq!(s.depth, 64 * 100 / 130);
            let limit = s.rate_iops[0] as f64;
            assert!((limit / (probed * s.percent as f64 / 100.0) - 1.0).abs() < 0.02, "{s:?}");
            assert!((s.iops[0] as f64 / limit - 1.0).abs() < 0.02, "a step below 100 % holds its limit: {s:?}");
        } else {
            assert_eq!((s.rate_iops[0], s.depth), (0, 64 * s.percent / 130), "{s:?}");
            assert!((s.iops[0] as f64 / probed - 1.0).abs() < 0.02, "unlimited, the device's rate: {s:?}");
        }
    }
    // Latency: the service time while the channel has room, queueing once it is saturated.
    let (light, full) = (job.steps[0].mean_latency_ns[0], job.steps[6].mean_latency_ns[0]);
    assert!(light < 150_000.0, "20 %: {light} ns");
    assert!(full > 4.0 * light, "140 % (depth {}): {full} ns against {light} ns", job.steps[6].depth);
    // Probe (20 + 100 ms) and 7 steps of 20 + 100 ms, with drains: the job is over in about a second.
    assert!(out.result.elapsed_ns < 1_100_000_000, "{} ns", out.result.elapsed_ns);
    // The job's totals count the steps' runs only.
    let counted: u64 = job.steps.iter().map(|s| s.iops[0] / 10).sum();
    let ios = job.directions[0].ios;
    assert!((ios as f64 / counted as f64 - 1.0).abs() < 0.03, "{ios} I/Os counted, the runs had {counted}");
    // The steps are in the JSON, under the job's iosched object.
    let json: serde_json::Value = serde_json::from_str(&fio_json::to_string(&out.result)).unwrap();
    let steps = &json["jobs"][0]["iosched"]["steps"];
    assert_eq!(steps.as_array().map(Vec::len), Some(7));
    assert_eq!(steps[0]["percent"], 20);
}

#[test]
fn stepped_is_refused_without_its_parameters() {
    for value in ["stepped", "stepped:10-130", "stepped:10-130/0", "stepped:130-10/5", "stepped:10-130/5,5", "fixed"] {
        let err = parse_str(&format!("[a]\nrw=randread\niodepth_mode={value}\n"), "bad.fio").unwrap_err().to_string();
        assert!(err.contains("bad.fio:3") && err.contains("stepped:LOW-HIGH/STEP"), "{value}: {err}");
    }
    let jobs = parse_str("[a]\nrw=randread\niodepth_mode=default\n", "ok.fio").unwrap();
    assert_eq!(jobs[0].iodepth_stepped, None);
}

/// A stepped job whose runtime ends beside another job's exitall, as its step's ramp ends (found by fuzzing):
/// it ends with the other. Its step deadlines used to go on waking it after its runtime (the run went on to
/// the end of its last step), and once exitall had stopped it, at the same past time for ever.
#[test]
fn a_stepped_job_ends_with_its_runtime_and_another_jobs_exitall() {
    let jobs = "[global]\nruntime=1ms\n[first]\nrw=read\nsize=1g\nexitall\n[stepped]\nsize=1g\n\
                iodepth_mode=stepped:10-130/40,1ms/4ms\n";
    for device in [DEVICE, "simple,capacity_gib=1,queue_depth=8"] {
        let out = common::run_fio_text(jobs, device);
        assert!(out.result.jobs[0].directions[0].ios > 0);
        assert!(out.result.elapsed_ns < 2_000_000, "{device}: ran {} ns", out.result.elapsed_ns);
        assert_eq!(out.result.jobs[1].error_code, 0, "ended by its runtime, no error");
    }
}
