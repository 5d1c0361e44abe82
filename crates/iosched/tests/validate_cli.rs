//! `iosched validate` as a user meets it: the demerit, its breakdown and DiskSim beside it, made-up traces, and
//! one-line errors for bad drive files, traces and options.

mod common;

use common::{assert_bad_input, iosched, job_file, stderr, stdout};
use serde_json::Value;
use std::path::Path;

#[test]
fn validate_reports_the_demerit_as_json_and_per_request() {
    let Some(d) = iosched_test_data::dir("disksim") else { return };
    let out_csv = iosched_test_data::scratch("validate").join("per-request.csv");
    let out = iosched(&[
        "validate",
        "--disksim",
        d.join("atlas10k.parv").to_str().unwrap(),
        "--trace",
        d.join("atlas10k.trace").to_str().unwrap(),
        "--json",
        "--per-request",
        out_csv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["requests"], 10000);
    let rms = v["rms_ms"].as_f64().unwrap();
    // The figure reached, 0.0916 ms, plus twice its noise (crates/iosched-sim/tests/hdd_validation.rs says how
    // it was measured); DiskSim's own is 0.268.
    assert!(rms > 0.0 && rms <= 0.0916 + 2.0 * 0.0005, "{rms}");
    // DiskSim's figure is bucketed as the statdefs the .parv names; the unbucketed one is near it, not equal.
    let exact = v["rms_exact_ms"].as_f64().unwrap();
    assert!(exact != rms && (exact - rms).abs() < 0.01, "{exact} against {rms}");
    assert!(v["statdefs"].as_str().unwrap().ends_with("statdefs"), "{}", v["statdefs"]);
    let (sim, meas) = (v["mean_sim_ms"].as_f64().unwrap(), v["mean_measured_ms"].as_f64().unwrap());
    assert!((sim / meas - 1.0).abs() < 0.05, "{sim} vs {meas}");
    assert!(v["requests_per_s"].as_f64().unwrap() > 0.0);
    assert!(v.get("jitter").is_none(), "no spread unless asked for");
    let csv = std::fs::read_to_string(&out_csv).unwrap();
    assert_eq!(csv.lines().count(), 10001);
    // The spread under nudged think times: around the plain figure, and the same for the same seeds.
    let spread = || {
        let args = ["--jitter-us", "20", "--seeds", "4", "--json"];
        let trace = d.join("atlas10k.trace");
        let parv = d.join("atlas10k.parv");
        let out = iosched(
            &[&["validate", "--disksim", parv.to_str().unwrap(), "--trace", trace.to_str().unwrap()], &args[..]]
                .concat(),
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["rms_ms"].as_f64().unwrap(), rms, "the plain figure is unchanged by --jitter-us");
        v["jitter"].clone()
    };
    let j = spread();
    assert_eq!(j["seeds"], 4);
    let (lo, mean, hi) =
        (j["rms_min_ms"].as_f64().unwrap(), j["rms_mean_ms"].as_f64().unwrap(), j["rms_max_ms"].as_f64().unwrap());
    assert!(lo < hi && lo <= mean && mean <= hi, "{j}");
    assert!((mean / rms - 1.0).abs() < 0.1, "jittered mean {mean} against {rms}");
    let exact_mean = j["rms_exact_mean_ms"].as_f64().unwrap();
    assert!(exact_mean != mean && (exact_mean / exact - 1.0).abs() < 0.1, "{j}");
    assert_eq!(spread(), j, "deterministic");
    assert!(csv.starts_with("index,op,block,blocks,simulated_ms,measured_ms\n1,write,"), "{}", &csv[..80]);
}

#[test]
fn validate_breaks_the_error_down_by_kind_and_makes_up_traces() {
    let Some(d) = iosched_test_data::dir("disksim") else { return };
    let parv = d.join("cheetah9LP.parv");
    let trace = d.join("cheetah9LP.trace");
    let run = |extra: &[&str]| {
        let out = iosched(&[&["validate", "--disksim"], extra].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let p = parv.to_str().unwrap();
    let v = run(&[p, "--trace", trace.to_str().unwrap(), "--json"]);
    let kinds = v["kinds"].as_array().unwrap();
    let total: u64 = kinds.iter().map(|k| k["requests"].as_u64().unwrap()).sum();
    assert_eq!(total, 10_000, "every request in one kind");
    let names: Vec<&str> = kinds.iter().map(|k| k["name"].as_str().unwrap()).collect();
    for kind in ["read hit sequential", "read miss random", "write buffered random"] {
        assert!(names.contains(&kind), "{names:?}");
    }
    // conform=disksim is DiskSim's model: on this trace its read-hit overhead rule makes it further from the drive.
    let disksim = run(&[&format!("{p},conform=disksim"), "--trace", trace.to_str().unwrap(), "--json"]);
    assert!(disksim["rms_ms"].as_f64().unwrap() > v["rms_ms"].as_f64().unwrap());
    // A made-up trace: the same for the same seed, written out on request, no larger than a segment (561 blocks
    // here, so up to 256).
    let out_trace = iosched_test_data::scratch("synthetic").join("synthetic.trace");
    let a = run(&[
        p,
        "--synthetic",
        "200",
        "--runs",
        "2",
        "--seed",
        "5",
        "--json",
        "--write-trace",
        out_trace.to_str().unwrap(),
    ]);
    let b = run(&[p, "--synthetic", "200", "--runs", "2", "--seed", "5", "--json"]);
    assert_eq!(a["requests"], 400);
    assert_eq!(a["rms_ms"], b["rms_ms"]);
    let text = std::fs::read_to_string(&out_trace).unwrap();
    assert_eq!(text.lines().count(), 400);
    assert!(text.lines().all(|l| l.split_whitespace().nth(3).unwrap().parse::<u64>().unwrap() <= 256));
    // --large-reads: reads only, most of them larger than the 561-block segment.
    let large_trace = iosched_test_data::scratch("synthetic").join("large.trace");
    let l = run(&[p, "--synthetic", "100", "--large-reads", "--json", "--write-trace", large_trace.to_str().unwrap()]);
    assert_eq!(l["requests"], 100);
    let text = std::fs::read_to_string(&large_trace).unwrap();
    let sizes: Vec<u64> = text.lines().map(|l| l.split_whitespace().nth(3).unwrap().parse().unwrap()).collect();
    assert!(text.lines().all(|l| l.starts_with('R')), "reads only");
    assert!(sizes.iter().filter(|&&n| n > 561).count() >= 50, "{sizes:?}");
    // Bad keys and a missing DiskSim are one-line errors.
    for (args, want) in [
        (vec![format!("{p},conform=maybe"), "--synthetic".into(), "10".into()], "conform: expected disksim or refined"),
        (
            vec![format!("{p},stream_hit_overhead=2"), "--synthetic".into(), "10".into()],
            "stream_hit_overhead: expected",
        ),
        (vec![format!("{p},bogus=1"), "--synthetic".into(), "10".into()], "unknown key 'bogus'"),
        (
            vec![
                p.into(),
                "--synthetic".into(),
                "10".into(),
                "--against-disksim".into(),
                "/nonexistent/disksim".into(),
            ],
            "DiskSim: cannot run /nonexistent/disksim",
        ),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = iosched(&[&["validate", "--disksim"], &args[..]].concat());
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(err.contains(want) && err.lines().filter(|l| l.starts_with("iosched: error")).count() == 1, "{err}");
    }
}

#[test]
fn validate_and_hdd_specs_reject_bad_input() {
    let Some(d) = iosched_test_data::dir("disksim") else { return };
    let parv = d.join("hp_c2247a.parv");
    let bad_trace = job_file("bad.trace", "R Hit 100 8 1000.0 2000.0\nR Hit 100 eight 1000.0 2000.0\n");
    let far_trace = job_file("far.trace", "R Hit 99999999 8 1000.0 2000.0\n");
    assert_bad_input(
        &["validate", "--disksim", parv.to_str().unwrap(), "--trace", bad_trace.to_str().unwrap()],
        "bad.trace:2: bcount: expected a whole number, found 'eight'",
    );
    assert_bad_input(
        &["validate", "--disksim", parv.to_str().unwrap(), "--trace", far_trace.to_str().unwrap()],
        "far.trace:1: blocks 99999999+8 are past the drive's",
    );
    let good_trace = job_file("good.trace", "R Miss 100 8 1000.0 2000.0\n");
    assert_bad_input(
        &["validate", "--disksim", parv.to_str().unwrap(), "--trace", good_trace.to_str().unwrap(), "--jitter-us", "0"],
        "--jitter-us 0: expected a positive number of microseconds",
    );
    assert_bad_input(
        &["validate", "--disksim", "/nonexistent/x.parv", "--trace", bad_trace.to_str().unwrap()],
        "cannot read /nonexistent/x.parv",
    );
    // The statdefs file the .parv names: missing, or with a broken entry, or not named at all.
    let copy = |name: &str, parv_edit: &dyn Fn(&str) -> String, statdefs: Option<&str>| {
        let dir = iosched_test_data::scratch(&format!("statdefs-{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["hp_c2247a.parv", "hp_c2247a.diskspecs", "hp_c2247a_validate.model"] {
            let text = std::fs::read_to_string(d.join(f)).unwrap();
            std::fs::write(dir.join(f), if f.ends_with(".parv") { parv_edit(&text) } else { text }).unwrap();
        }
        if let Some(text) = statdefs {
            std::fs::write(dir.join("statdefs"), text).unwrap();
        }
        dir.join("hp_c2247a.parv")
    };
    let shipped = std::fs::read_to_string(d.join("statdefs")).unwrap();
    let run = |parv: &Path| {
        iosched(&["validate", "--disksim", parv.to_str().unwrap(), "--trace", good_trace.to_str().unwrap(), "--json"])
    };
    let missing = copy("missing", &|t| t.to_string(), None);
    assert_bad_input(
        &["validate", "--disksim", missing.to_str().unwrap(), "--trace", good_trace.to_str().unwrap()],
        &format!(
            "hp_c2247a.parv:5: Stat definition file {}: cannot read statdefs file",
            missing.with_file_name("statdefs").display()
        ),
    );
    let broken = copy("broken", &|t| t.to_string(), Some(&shipped.replace("Start 0  step 1  grow 1", "Start 0")));
    let out = run(&broken);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let line = shipped.lines().position(|l| l == "Physical access time").unwrap() + 4;
    assert!(
        stderr(&out).contains(&format!("statdefs:{line}: expected 'Start a step b grow c' (whole numbers), found")),
        "{}",
        stderr(&out)
    );
    let unnamed = copy("unnamed", &|t| t.replace("Stat definition file = statdefs", ""), None);
    let out = run(&unnamed);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("names no 'Stat definition file'"), "{}", stderr(&out));
    assert!(serde_json::from_slice::<Value>(&out.stdout).unwrap()["statdefs"].is_null());
    let good = job_file("hddgood.fio", "[r]\nrw=randread\nnumber_ios=10\n");
    assert_bad_input(&["sim", good.to_str().unwrap(), "--device", "hdd:sata9000"], "unknown hdd preset 'sata9000'");
    assert_bad_input(
        &["sim", good.to_str().unwrap(), "--device", "hdd:sata7200,rpm=1"],
        "unknown key 'rpm' for a hard disk",
    );
    let ok = iosched(&["sim", good.to_str().unwrap(), "--device", &format!("disksim:{}", parv.display()), "--json"]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    let v: Value = serde_json::from_slice(&ok.stdout).unwrap();
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 10);
    assert!(v["iosched"]["device"]["spec"].as_str().unwrap().starts_with("disksim:"));
}

#[test]
fn disksims_simple_disk_validates_and_simulates() {
    // synthsimpledisk.parv: DiskSim's fixed-access-time disk, 0.5 ms command overhead and 9.5 ms access, no
    // transfer time or bus latency, so every request one at a time takes 10 ms (what DiskSim prints for it).
    let Some(valid) = iosched_test_data::peer("disksim/valid") else { return };
    let parv = valid.join("synthsimpledisk.parv");
    let parv = parv.to_str().unwrap();
    let out = iosched(&["validate", "--disksim", parv, "--synthetic", "50", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["requests"], 50);
    assert!((v["mean_sim_ms"].as_f64().unwrap() - 10.0).abs() < 1e-6, "{v}");
    assert_eq!(v["refinements"], serde_json::json!([]));
    let text = stdout(&iosched(&["validate", "--disksim", parv, "--synthetic", "5"]));
    assert!(text.contains("DiskSim's fixed-access-time disk"), "{text}");
    // What needs a disk's cache or DiskSim's per-request log is refused, saying why.
    assert_bad_input(&["validate", "--disksim", parv, "--synthetic", "5", "--large-reads"], "has no cache");
    assert_bad_input(
        &["validate", "--disksim", parv, "--synthetic", "5", "--against-disksim", "/bin/true"],
        "only for a disksim_disk",
    );
    assert_bad_input(
        &["validate", "--disksim", &format!("{parv},conform=disksim"), "--synthetic", "5"],
        "its only key",
    );
    // As a device: four 4 KiB reads at once. The drive queues one ("Max queue length = 1"), so each reaches it as
    // the one before completes and takes its 10 ms: 10, 20, 30 and 40 ms from their submission.
    let job =
        job_file("simpledisk.fio", "[r]\nrw=randread\nbs=4k\nsize=40m\nioengine=libaio\niodepth=4\nnumber_ios=4\n");
    let out = iosched(&["sim", job.to_str().unwrap(), "--device", &format!("disksim:{parv}"), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let read = &v["jobs"][0]["read"];
    assert_eq!(read["total_ios"], 4);
    let mean_ms = read["clat_ns"]["mean"].as_f64().unwrap() / 1e6;
    assert!((mean_ms - 25.0).abs() < 1e-3, "mean {mean_ms} ms");
}
