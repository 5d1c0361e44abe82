//! The comparison with the kernel's own schedulers (scripts/kernel-compare.py), in its short version: one round
//! of about a second per run. It checks that the harness runs end to end and reports every comparison with both
//! figures; how close the figures are is what BENCHMARKS.md records from the full version (issue 30), not a bound
//! here yet. Needs root, losetup and fio; without them it says so loudly and skips.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

#[test]
fn the_kernel_comparison_runs_and_reports_every_workload() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kernel-compare.py");
    let out = Command::new("python3")
        .arg(&script)
        .args(["--rounds", "1", "--seconds", "1", "--backing-mib", "768", "--json", "--iosched"])
        .arg(env!("CARGO_BIN_EXE_iosched"))
        .output()
        .expect("python3 runs");
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(3) {
        iosched_test_data::skip(err.trim());
        return;
    }
    assert!(out.status.success(), "kernel-compare failed: {err}");
    let rows: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("a JSON row")).collect();
    let workloads: Vec<(&str, &str)> =
        rows.iter().map(|r| (r["workload"].as_str().unwrap(), r["kernel"].as_str().unwrap())).collect();
    assert_eq!(
        workloads,
        [
            ("reader-beside-writer", "mq-deadline"),
            ("reader-beside-writer", "kyber"),
            ("bfq-weights", "bfq"),
            ("bfq-weights (low_latency=0)", "bfq")
        ]
    );
    for r in &rows {
        for side in ["kernel_value", "iosched_value"] {
            let v = r[side].as_f64().unwrap();
            assert!(v.is_finite() && v > 0.0, "{side} of {r}");
        }
        assert!(matches!(r["rotational"].as_str(), Some("0" | "1")), "{r}");
    }
}
