//! `iosched run`: fio job files live, through io_uring to a real file, with the same reports as `iosched sim`.
//! The files live under the build's target directory (a real file system, so O_DIRECT usually works there;
//! where it does not, the run falls back to buffered I/O and says so).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn iosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iosched")).args(args).output().expect("run iosched")
}

/// A fresh directory for one test's job file and target.
fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("live-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Whether this machine lets a process set up io_uring (a container's seccomp profile may not); if not, the
/// tests say so loudly and skip, as tests without their data do.
fn io_uring_available() -> bool {
    let d = dir("probe");
    let job = d.join("probe.fio");
    std::fs::write(&job, "[p]\nfilename=p.dat\nsize=64k\nrw=read\n").unwrap();
    let out = iosched(&["run", job.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("cannot set up io_uring") {
        eprintln!("\n*** SKIPPED: io_uring is not available here ({}) ***\n", err.trim());
        return false;
    }
    true
}

fn run_json(job: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["run", job.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let out = iosched(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "iosched run failed: {err}");
    assert!(!err.contains("panicked"), "{err}");
    serde_json::from_slice(&out.stdout).expect("fio JSON")
}

#[test]
fn a_job_file_runs_live_through_each_policy_and_every_request_completes() {
    if !io_uring_available() {
        return;
    }
    let d = dir("policies");
    let job = d.join("mixed.fio");
    std::fs::write(
        &job,
        "[global]\nfilename=target.dat\nsize=16m\ndirect=1\nioengine=io_uring\nnumber_ios=3000\n\
         [reader]\nrw=randread\nbs=4k\niodepth=16\n[writer]\nrw=randwrite\nbs=16k\niodepth=4\n",
    )
    .unwrap();
    for policy in ["noop", "deadline", "bfq", "cfq", "kyber", "cam"] {
        let v = run_json(&job, &["--policy", policy]);
        let jobs = v["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 2, "{policy}");
        assert_eq!(jobs[0]["read"]["total_ios"], 3000, "{policy}: {}", jobs[0]);
        assert_eq!(jobs[1]["write"]["total_ios"], 3000, "{policy}: {}", jobs[1]);
        for j in jobs {
            assert_eq!(j["error"], 0, "{policy}: {j}");
        }
        let iosched = &v["iosched"];
        assert_eq!(iosched["requests_completed"], iosched["requests_submitted"], "{policy}: {iosched}");
        assert_eq!(iosched["requests_completed"], 6000, "{policy}: {iosched}");
        assert_eq!(v["time"], "real", "{policy}: a live run says so");
    }
    // The target was laid out to the jobs' size, as fio would.
    assert_eq!(std::fs::metadata(d.join("target.dat")).unwrap().len(), 16 << 20);
}

#[test]
fn written_data_lands_where_it_was_written() {
    if !io_uring_available() {
        return;
    }
    // Each 8-byte word of a write carries its own file offset; after a sequential write pass, the file says so.
    let d = dir("pattern");
    let job = d.join("write.fio");
    std::fs::write(
        &job,
        "[w]\nfilename=target.dat\nsize=1m\nrw=write\nbs=64k\ndirect=1\nioengine=io_uring\niodepth=4\n",
    )
    .unwrap();
    run_json(&job, &[]);
    let data = std::fs::read(d.join("target.dat")).unwrap();
    assert_eq!(data.len(), 1 << 20);
    for (i, word) in data.chunks_exact(8).enumerate().step_by(997) {
        assert_eq!(u64::from_le_bytes(word.try_into().unwrap()), 8 * i as u64, "word {i}");
    }
}

#[test]
fn a_live_run_needs_one_target() {
    if !io_uring_available() {
        return;
    }
    let d = dir("targets");
    let job = d.join("two.fio");
    std::fs::write(&job, "[a]\nfilename=a.dat\nsize=1m\nrw=read\n[b]\nfilename=b.dat\nsize=1m\nrw=read\n").unwrap();
    let out = iosched(&["run", job.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the same filename= or use --target"), "{err}");
    // --target settles it.
    let target = d.join("t.dat");
    let v = run_json(&job, &["--target", target.to_str().unwrap()]);
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 256);
}
