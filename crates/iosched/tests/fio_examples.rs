//! Every job file of fio's examples/ directory (in IOSCHED_TEST_DATA/fio-examples) runs unchanged through
//! `iosched sim`: all of them use block engines, so all are simulated, each with the behaviour its options ask
//! for. `--runtime 0.2` keeps the 900 s jobs short; it caps size-bound jobs the same way.

use serde_json::Value;
use std::process::Command;

/// Simulate one example for 0.2 s; None (after saying so) when the test data is absent.
fn simulate(file: &str, extra: &[&str]) -> Option<Value> {
    simulate_for(file, "0.2", extra)
}

fn simulate_for(file: &str, runtime: &str, extra: &[&str]) -> Option<Value> {
    let dir = iosched_test_data::dir("fio-examples")?;
    let path = dir.join(file);
    let out = Command::new(env!("CARGO_BIN_EXE_iosched"))
        .args(["sim", path.to_str().unwrap(), "--runtime", runtime, "--json"])
        .args(extra)
        .output()
        .expect("run iosched");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{file}: {stderr}");
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    for job in json["jobs"].as_array().unwrap() {
        assert_eq!(job["error"], 0, "{file}: {job}");
    }
    Some(json)
}

fn jobs(json: &Value) -> &Vec<Value> {
    json["jobs"].as_array().unwrap()
}

fn ios(job: &Value, dir: &str) -> u64 {
    job[dir]["total_ios"].as_u64().unwrap()
}

fn elapsed_s(json: &Value) -> f64 {
    json["iosched"]["elapsed_ns"].as_u64().unwrap() as f64 / 1e9
}

#[test]
fn aio_read_four_depths_share_the_device_by_depth() {
    let Some(json) = simulate("aio-read.fio", &[]) else { return };
    let j = jobs(&json);
    assert_eq!(j.len(), 4);
    // iodepth 4, 32, 8, 16: more in flight, more served.
    let served: Vec<u64> = j.iter().map(|x| ios(x, "read")).collect();
    assert!(served[0] < served[2] && served[2] < served[3] && served[3] < served[1], "{served:?}");
    assert!(j.iter().all(|x| ios(x, "write") == 0 && x["read"]["io_bytes"].as_u64().unwrap() % 131072 == 0));
}

#[test]
fn fio_rand_rw_mixes_sixty_forty_over_four_clones() {
    let Some(json) = simulate("fio-rand-RW.fio", &[]) else { return };
    let j = jobs(&json);
    assert_eq!(j.len(), 4, "numjobs=4");
    let (r, w): (u64, u64) =
        j.iter().map(|x| (ios(x, "read"), ios(x, "write"))).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let share = r as f64 / (r + w) as f64;
    // Buffered writes are write-back, so the mix at the device is close to, not exactly, 60 %.
    assert!((0.55..0.65).contains(&share), "read share {share}");
}

#[test]
fn fio_rand_read_is_random_reads_only() {
    let Some(json) = simulate("fio-rand-read.fio", &[]) else { return };
    let j = jobs(&json);
    assert_eq!(j.len(), 1);
    assert!(ios(&j[0], "read") > 1000 && ios(&j[0], "write") == 0);
}

#[test]
fn fio_rand_write_runs_four_writers() {
    let Some(json) = simulate("fio-rand-write.fio", &[]) else { return };
    let j = jobs(&json);
    assert_eq!(j.len(), 4);
    assert!(j.iter().all(|x| ios(x, "write") > 1000 && ios(x, "read") == 0));
}

#[test]
fn fio_seq_rw_mixes_large_blocks() {
    let Some(json) = simulate("fio-seq-RW.fio", &[]) else { return };
    let j = jobs(&json);
    assert_eq!(j.len(), 4);
    for x in j {
        assert_eq!(x["read"]["io_bytes"].as_u64().unwrap() % (256 << 10), 0);
        assert!(ios(x, "read") > ios(x, "write") && ios(x, "write") > 0, "{x}");
    }
}

#[test]
fn fio_seq_read_is_direct_sequential_reads() {
    let Some(json) = simulate("fio-seq-read.fio", &[]) else { return };
    let j = jobs(&json);
    assert_eq!(j.len(), 1);
    assert!(ios(&j[0], "read") > 100 && ios(&j[0], "write") == 0);
}

#[test]
fn fio_seq_write_is_sequential_write_back() {
    let Some(json) = simulate("fio-seq-write.fio", &[]) else { return };
    let j = jobs(&json);
    assert!(ios(&j[0], "write") > 100 && ios(&j[0], "read") == 0);
}

#[test]
fn fixed_rate_submission_issues_exactly_rate_iops() {
    // rate_iops=1000 for 0.2 s, linear: 200 reads, whatever the depth.
    let Some(json) = simulate("fixed-rate-submission.fio", &[]) else { return };
    assert_eq!(ios(&jobs(&json)[0], "read"), 200);
}

#[test]
fn poisson_rate_submission_averages_its_rate() {
    // rate_iops=50 with Poisson gaps: over 20 s about 1000 reads (sd about 32).
    let Some(json) = simulate_for("poisson-rate-submission.fio", "20", &[]) else { return };
    let n = ios(&jobs(&json)[0], "read");
    assert!((880..1120).contains(&n), "{n}");
}

#[test]
fn latency_profile_searches_for_a_depth() {
    let Some(json) = simulate("latency-profile.fio", &[]) else { return };
    let j = jobs(&json);
    assert_eq!(j.len(), 1);
    assert!(ios(&j[0], "read") > 100);
}

#[test]
fn ssd_test_runs_its_four_stonewalled_jobs_one_after_another() {
    let Some(json) = simulate("ssd-test.fio", &[]) else { return };
    let j = jobs(&json);
    let groups: Vec<u64> = j.iter().map(|x| x["groupid"].as_u64().unwrap()).collect();
    assert_eq!(groups, vec![0, 1, 2, 3]);
    // Four waves of 0.2 s each.
    assert!(elapsed_s(&json) >= 0.8 && elapsed_s(&json) < 0.85, "{}", elapsed_s(&json));
    assert!(ios(&j[0], "read") > 0 && ios(&j[2], "write") > 0 && ios(&j[2], "read") == 0);
}

#[test]
fn tiobench_runs_four_waves_of_four_clones() {
    let Some(json) = simulate("tiobench-example.fio", &[]) else { return };
    let j = jobs(&json);
    assert_eq!(j.len(), 16);
    for (i, x) in j.iter().enumerate() {
        assert_eq!(x["groupid"].as_u64().unwrap(), i as u64 / 4);
        // bsrange=4k-4k is a fixed 4 KiB.
        let dir = if i < 8 { "write" } else { "read" };
        assert_eq!(x[dir]["io_bytes"].as_u64().unwrap(), ios(x, dir) * 4096);
    }
    assert!(elapsed_s(&json) >= 0.8, "{}", elapsed_s(&json));
}
