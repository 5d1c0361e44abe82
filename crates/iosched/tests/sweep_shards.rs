//! A sweep split over a cluster's tasks: `--list` names the points, `--shard K/N --out DIR` runs every Nth, and
//! `iosched sweep merge` combines the shards into exactly the table and summary one unsharded run gives,
//! percentiles included (recomputed from the rows' merged histograms). Bad shard sets are refused.

use std::path::Path;
use std::process::{Command, Output};

fn iosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iosched")).args(args).output().expect("run iosched")
}

fn ok(args: &[&str]) -> String {
    let out = iosched(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn bad(args: &[&str], wanted: &str) {
    let out = iosched(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(wanted) && !err.contains("panicked"), "{args:?}: wanted '{wanted}' in {err}");
}

/// The sweep's arguments: two job files' worth of variety (a reader and a writer), two devices, a grid key
/// that one policy has, three seeds: 2 devices x (2 deadline settings + noop) x 3 seeds = 18 points.
fn sweep_args(dir: &Path) -> Vec<String> {
    let job = dir.join("mix.fio");
    std::fs::write(
        &job,
        "[global]\nnumber_ios=300\nsize=256m\n[reader]\nrw=randread\nbs=4k\n[writer]\nrw=write\nbs=64k\n\
         ioengine=libaio\niodepth=8\n",
    )
    .unwrap();
    [
        "sweep",
        job.to_str().unwrap(),
        "--policies",
        "deadline,noop",
        "--grid",
        "fifo_batch=2,16",
        "--device",
        "hdd:sata7200",
        "--device",
        "simple,latency_us=50",
        "--seeds",
        "1-3",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn shards_merged_give_the_unsharded_table() {
    let dir = iosched_test_data::scratch("sweep-shards");
    let args = sweep_args(&dir);
    let with =
        |more: &[&str]| -> Vec<String> { args.iter().cloned().chain(more.iter().map(|s| s.to_string())).collect() };
    let run = |more: &[&str]| ok(&with(more).iter().map(String::as_str).collect::<Vec<_>>());

    let listed = run(&["--list", "--json"]);
    assert_eq!(listed.lines().count(), 18, "{listed}");
    let whole = dir.join("whole.parquet");
    let summary = run(&["--parquet", whole.to_str().unwrap(), "--jobs", "2"]);
    assert!(summary.contains("18 points"), "{summary}");

    // Four shards of 18 points: 5, 5, 4 and 4 (point i in shard i mod 4 + 1), the union is every point once.
    let out = dir.join("shards");
    let mut seen = Vec::new();
    for k in 1..=4 {
        let shard = format!("{k}/4");
        let listed = run(&["--list", "--json", "--shard", &shard, "--out", out.to_str().unwrap()]);
        for line in listed.lines() {
            let point: serde_json::Value = serde_json::from_str(line).unwrap();
            let index = point["point"].as_u64().unwrap();
            assert_eq!(index % 4, k - 1, "{line}");
            seen.push(index);
        }
        run(&["--shard", &shard, "--out", out.to_str().unwrap(), "--jobs", "1"]);
    }
    seen.sort();
    assert_eq!(seen, (0..18).collect::<Vec<u64>>());

    let merged = dir.join("merged.parquet");
    let merged_summary = ok(&["sweep", "merge", out.to_str().unwrap(), "--parquet", merged.to_str().unwrap()]);
    assert_eq!(merged_summary, summary, "the merged summary differs from the unsharded one");
    assert_eq!(std::fs::read(&merged).unwrap(), std::fs::read(&whole).unwrap(), "the merged table differs");

    // The summary's p99 comes from merged histograms: with three seeds it is not any one seed's p99.
    let json = ok(&["sweep", "merge", out.to_str().unwrap(), "--json"]);
    assert_eq!(json.lines().count(), 6, "{json}");
    for line in json.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(row["seeds"], 3, "{line}");
        assert!(row["read_p99_ms"].as_f64().unwrap() > 0.0, "{line}");
    }
}

#[test]
fn bad_shard_sets_are_refused() {
    let dir = iosched_test_data::scratch("sweep-bad-shards");
    let args = sweep_args(&dir);
    let out = dir.join("shards");
    let run = |more: &[&str]| {
        let all: Vec<String> = args.iter().cloned().chain(more.iter().map(|s| s.to_string())).collect();
        ok(&all.iter().map(String::as_str).collect::<Vec<_>>())
    };
    run(&["--shard", "1/3", "--out", out.to_str().unwrap(), "--runtime", "0.05"]);
    run(&["--shard", "3/3", "--out", out.to_str().unwrap(), "--runtime", "0.05"]);
    bad(&["sweep", "merge", out.to_str().unwrap()], "shards 2 of 3 are missing");
    bad(&["sweep", "merge", dir.to_str().unwrap()], "no shard-K-of-N.parquet files");
    let not_parquet = dir.join("shard-1-of-1.parquet");
    std::fs::write(&not_parquet, "text").unwrap();
    bad(&["sweep", "merge", not_parquet.to_str().unwrap()], "not a Parquet file");
    let mut with_shard: Vec<&str> = args.iter().map(String::as_str).collect();
    with_shard.extend(["--shard", "4/3", "--out", "x"]);
    bad(&with_shard, "--shard expects K/N with 1 <= K <= N");
    with_shard.truncate(args.len() - 2);
    with_shard.extend(["--seeds", "5-2"]);
    bad(&with_shard, "--seeds expects numbers and ranges");
}
