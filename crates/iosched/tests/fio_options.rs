//! Every option of fio's HOWTO (the one the fio package installs, /usr/share/doc/fio/HOWTO.rst.gz, or another
//! release's HOWTO.rst named by IOSCHED_FIO_HOWTO, e.g. from `scripts/fio-examples.sh sid`) is in exactly one of
//! the reader's three lists, as `iosched fio-options --json` prints them: modelled, accepted without effect
//! (with why), or refused (with why). So the lists cannot drift from fio's options unnoticed.

use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;

const HOWTO: &str = "/usr/share/doc/fio/HOWTO.rst.gz";

/// The job options fio's HOWTO documents (`.. option:: NAME=...`, not the command line's `--options`).
fn howto_options() -> Option<Vec<String>> {
    let path = std::env::var("IOSCHED_FIO_HOWTO").unwrap_or_else(|_| HOWTO.to_string());
    if !std::path::Path::new(&path).exists() {
        iosched_test_data::skip(&format!("{path} not found (apt-get install fio)"));
        return None;
    }
    // zcat -f passes a plain file through.
    let out = Command::new("zcat").args(["-f", &path]).output().expect("zcat");
    let text = String::from_utf8_lossy(&out.stdout);
    let names: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix(".. option:: "))
        .filter(|o| !o.starts_with("--"))
        .map(|o| o.split(['=', ' ', ',']).next().unwrap_or("").to_string())
        .collect();
    assert!(names.len() > 250, "only {} options read from {path}", names.len());
    Some(names)
}

#[test]
fn every_option_of_fios_howto_is_modelled_accepted_or_refused_and_only_one() {
    let Some(howto) = howto_options() else { return };
    let out = Command::new(env!("CARGO_BIN_EXE_iosched")).args(["fio-options", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut lists: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for name in v["modelled"].as_array().unwrap() {
        lists.entry(name.as_str().unwrap().to_string()).or_default().push("modelled");
    }
    for (list, label) in [("accepted_without_effect", "accepted"), ("refused", "refused")] {
        for entry in v[list].as_array().unwrap() {
            assert!(!entry["why"].as_str().unwrap().is_empty(), "{entry}");
            lists.entry(entry["option"].as_str().unwrap().to_string()).or_default().push(label);
        }
    }
    let twice: Vec<_> = lists.iter().filter(|(_, l)| l.len() > 1).collect();
    assert!(twice.is_empty(), "in more than one list: {twice:?}");
    let missing: Vec<_> = howto.iter().filter(|o| !lists.contains_key(*o)).collect();
    assert!(missing.is_empty(), "options of fio's HOWTO in no list: {missing:?}");
}

#[test]
fn a_refused_option_says_why_and_a_misspelt_one_gets_the_nearest() {
    let dir = iosched_test_data::scratch("fio-options");
    let run = |body: &str| {
        let path = dir.join("job.fio");
        std::fs::write(&path, format!("[job]\nrw=read\nbs=4k\nsize=1m\n{body}\n")).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_iosched")).args(["sim", path.to_str().unwrap()]).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).to_string())
    };
    let (code, err) = run("zonemode=zbd");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("job.fio:5") && err.contains("zoned device model"), "{err}");
    let (code, err) = run("iodepht=4");
    assert_eq!(code, Some(2));
    assert!(err.contains("did you mean 'iodepth'"), "{err}");
    // Accepted without effect, verification switched off, and engines that do block I/O elsewhere all run.
    for body in ["gtod_reduce=1", "verify=0", "do_verify=0", "ioengine=io_uring_cmd\ncmd_type=nvme", "ioengine=sg"] {
        let (code, err) = run(body);
        assert_eq!(code, Some(0), "{body}: {err}");
    }
    for body in [
        "ss=iops_slope:0.1%\nss_dur=2",
        "steadystate=bw:500\nsteadystate_duration=3s",
        "exitall\nexit_what=all",
        "flow_id=3\nflow=2\nflow_sleep=500",
    ] {
        let (code, err) = run(body);
        assert_eq!(code, Some(0), "{body}: {err}");
    }
    let (code, err) = run("ss=latency:1");
    assert_eq!(code, Some(2));
    assert!(err.contains("job.fio:5") && err.contains("iops_slope"), "{err}");
    let (code, err) = run("ioengine=net");
    assert_eq!(code, Some(2));
    assert!(err.contains("does not do block I/O"), "{err}");
}
