//! fio's steadystate through the engine: a job whose IOPS hold still ends once its window of samples meets the
//! criterion (after its ramp), long before its runtime; one whose rate wanders runs to its runtime.

use iosched_core::registry;
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::fio::parse_str;

fn runtime_s(job: &str) -> f64 {
    let jobs = parse_str(job, "ss.fio").unwrap();
    let out = simulate(
        &Workload::from_jobs(&jobs),
        registry::create("noop").unwrap(),
        parse_spec("simple,latency_us=100").unwrap(),
        Vec::new(),
        &SimConfig { seed: 1, record_log: false },
    )
    .unwrap();
    out.result.jobs[0].runtime_ns as f64 / 1e9
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
