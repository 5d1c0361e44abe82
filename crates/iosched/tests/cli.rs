//! The command line as a user meets it: output, JSON paths fio's tools read, and one-line errors with exit
//! status 2 for bad input.

mod common;

use common::{assert_bad_input, assert_usage_error, iosched, job_file, stderr, stdout};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const MIXED: &str =
    "[global]\nnumber_ios=2000\n[reader]\nrw=randread\nbs=4k\n[writer]\nrw=write\nbs=64k\nioengine=libaio\niodepth=8\n";

#[test]
fn sim_prints_a_table() {
    let job = job_file("table.fio", MIXED);
    let out = iosched(&["sim", job.to_str().unwrap(), "--policy", "elevator", "--set", "batch=8"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for needle in ["policy  elevator", "batch=8", "reader", "writer", "IOPS", "p99 ms", "4000 requests completed"] {
        assert!(text.contains(needle), "missing '{needle}' in:\n{text}");
    }
}

#[test]
fn sim_json_has_the_fields_fio_tools_read() {
    let job = job_file("json.fio", MIXED);
    let out = iosched(&["sim", job.to_str().unwrap(), "--json", "--seed", "5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let reader = &v["jobs"][0];
    assert_eq!(reader["jobname"], "reader");
    assert_eq!(reader["read"]["total_ios"], 2000);
    assert!(reader["read"]["iops"].as_f64().unwrap() > 0.0);
    assert!(reader["read"]["clat_ns"]["percentile"]["99.000000"].as_u64().unwrap() > 0);
    assert!(reader["read"]["lat_ns"]["mean"].as_f64().unwrap() > 0.0);
    let writer = &v["jobs"][1];
    assert_eq!(writer["write"]["io_bytes"], 2000 * 65536);
    assert!(writer["write"]["bw_bytes"].as_u64().unwrap() > 0);
    assert_eq!(writer["read"]["total_ios"], 0);
    let ios = &v["iosched"];
    assert_eq!(ios["policy"], "noop");
    assert!(ios["device"]["spec"].as_str().unwrap().starts_with("simple,"));
    assert_eq!(ios["requests_submitted"], 4000);
    assert_eq!(ios["requests_completed"], 4000);
    assert_eq!(ios["seed"], 5);
    // fio-plot and friends read the options back from "job options" and "global options".
    assert_eq!(writer["job options"]["iodepth"], "8");
    assert_eq!(writer["job options"]["rw"], "write");
    assert_eq!(v["global options"]["number_ios"], "2000");
    assert_eq!(reader["groupid"], 0);
    assert_eq!(reader["error"], 0);
    assert!(writer["job_runtime"].as_u64().unwrap() > 0);
    // Percentiles are in fio's order.
    let keys: Vec<&String> = reader["read"]["clat_ns"]["percentile"].as_object().unwrap().keys().collect();
    assert_eq!(keys.first().map(|k| k.as_str()), Some("1.000000"));
    assert_eq!(keys.last().map(|k| k.as_str()), Some("99.990000"));
}

#[test]
fn same_seed_same_json_and_runtime_override() {
    let job = job_file("seed.fio", "[r]\nrw=randrw\nbs=4k\ntime_based\nruntime=10\n");
    let args = ["sim", job.to_str().unwrap(), "--json", "--seed", "3", "--runtime", "0.05", "--policy", "elevator"];
    let (a, b) = (iosched(&args), iosched(&args));
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    let v: Value = serde_json::from_slice(&a.stdout).unwrap();
    // 50 ms of 108 us requests, not 10 s.
    let runtime_ms = v["jobs"][0]["job_runtime"].as_u64().unwrap();
    assert!((50..=51).contains(&runtime_ms), "{runtime_ms}");
}

#[test]
fn policies_json_lists_tunables_with_defaults() {
    let out = iosched(&["policies", "--json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = v["policies"].as_array().unwrap();
    let names: Vec<&str> = list.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"noop") && names.contains(&"elevator"), "{names:?}");
    let elevator = list.iter().find(|p| p["name"] == "elevator").unwrap();
    let batch = &elevator["tunables"][0];
    assert_eq!(batch["name"], "batch");
    assert_eq!(batch["default"], "0");
    assert!(batch["description"].as_str().unwrap().len() > 10);
    assert_eq!(batch["type"], "int");
    assert_eq!(elevator["wait_bound"], "unbounded");
    let noop = list.iter().find(|p| p["name"] == "noop").unwrap();
    assert_eq!(noop["wait_bound"]["overtakes"], 0);
    // The seed documents' schedulers, every tunable with a default and a description.
    for name in ["deadline", "as", "rr", "cam"] {
        let p = list.iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("{name} missing"));
        for t in p["tunables"].as_array().unwrap() {
            assert!(t["default"].is_string() && t["description"].as_str().unwrap().len() > 10, "{name}: {t}");
        }
    }
    let cam = list.iter().find(|p| p["name"] == "cam").unwrap();
    let tunable = |n: &str| cam["tunables"].as_array().unwrap().iter().find(|t| t["name"] == n).cloned();
    assert_eq!(
        tunable("write.limiter").unwrap()["choices"],
        serde_json::json!(["none", "queue_depth", "iops", "bandwidth"])
    );
    assert_eq!(tunable("control.type").unwrap()["default"], "set_max");
    assert_eq!(tunable("control.alpha").unwrap()["default"], "20");
    assert_eq!(tunable("trim.max").unwrap()["default"], "1");
}

#[test]
fn demo_runs_the_geom_sched_experiment_under_every_policy() {
    let out = iosched(&["demo"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for name in ["geom-sched", "dd-read+cvs", "dd-write+cvs", "noop", "rr", "bfq", "cam", "kyber", "cvs slowdown"] {
        assert!(text.contains(name), "missing {name} in:\n{text}");
    }
    // The closing count agrees with the verdict lines above it (a long verdict line wraps, indented by 4).
    let unwrapped = text.replace("\n    ", " ");
    let holding = unwrapped.lines().filter(|l| l.contains("seed figure") && l.trim_end().ends_with(": holds")).count();
    let all = unwrapped.lines().filter(|l| l.trim_start().starts_with("seed figure \"")).count();
    assert!(all >= 12, "{all} seed figures in:\n{text}");
    assert!(text.contains(&format!("The seed's figures: {holding} of {all} hold.")), "{text}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let good = job_file("good.fio", MIXED);
    let good = good.to_str().unwrap();
    let malformed = job_file("bad.fio", "[global]\nbs=4k\n\n[j]\nrw=read\niodepth=lots\n");
    let unsupported = job_file("unsup.fio", "[j]\nrw=read\nverify_only=1\n");
    assert_usage_error(&["sim", good, "--bogus"], "unexpected argument '--bogus'", "iosched sim");
    assert_usage_error(&["frobnicate"], "unrecognized subcommand 'frobnicate'", "iosched <COMMAND>");
    assert_bad_input(&["sim", good, "--policy", "cfqq"], "unknown policy 'cfqq'");
    assert_bad_input(&["sim", good, "--policy", "elevator", "--set", "bach=1"], "unknown tunable 'bach'");
    assert_bad_input(&["sim", good, "--policy", "elevator", "--set", "batch=-3"], "invalid value '-3' for batch");
    assert_bad_input(&["sim", good, "--set", "batch"], "--set expects KEY=VALUE");
    assert_usage_error(&["sim", good, "--seed", "x"], "invalid value 'x' for '--seed", "");
    assert_bad_input(&["sim", good, "--runtime", "soon"], "--runtime expects a time");
    assert_bad_input(&["sim", good, "--device", "simple,latency=3"], "unknown key 'latency'");
    assert_bad_input(&["sim", good, "--device", "tape"], "unknown device kind 'tape'");
    assert_bad_input(&["sim", malformed.to_str().unwrap()], "bad.fio:6: iodepth: expected an integer");
    assert_bad_input(&["sim", unsupported.to_str().unwrap()], "unsup.fio:3: option 'verify_only' is not supported");
    assert_bad_input(&["sim", "/nonexistent/job.fio"], "/nonexistent/job.fio: cannot read job file");
    let too_far = job_file("far.fio", "[j]\nrw=read\noffset=2t\n");
    assert_bad_input(&["sim", too_far.to_str().unwrap()], "far.fio:3: job 'j': offset");
    // time_based without a runtime: an error where the file says it, unless the command line gives one.
    let endless = job_file("endless.fio", "[j]\nrw=randread\nsize=1m\ntime_based\n");
    assert_bad_input(&["sim", endless.to_str().unwrap()], "endless.fio:4: job 'j': time_based needs a runtime");
    let out = iosched(&["sim", endless.to_str().unwrap(), "--runtime", "0.01"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // A job that fails says so under the job table, with fio's err= and why, and the run exits 1 as fio's does.
    let slow = job_file("slow.fio", "[j]\nrw=randread\nsize=16m\nrate_iops_min=100000\nratecycle=100\n");
    let out = iosched(&["sim", slow.to_str().unwrap(), "--device", "hdd:sata7200", "--runtime", "1"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("job j err=5") && table.contains("fell below rate_iops_min"), "{table}");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("iosched: error: job 'j' failed with error 5: read rate"), "{}", stderr(&out));
    // Numbers that once panicked or wrapped.
    for wait in ["--wait=inf", "--wait=-1", "--wait=nan", "--wait=1e300"] {
        assert_bad_input(&["destroy", "/nonexistent", wait], "--wait expects seconds from 0 to 86400");
    }
    assert_bad_input(&["sim", good, "--replay", "open:1e300"], "the scale must be from 0.000001 to 1000");
    assert_bad_input(&["sim", good, "--device", "mqsim:/nonexistent.xml"], "cannot read MQSim device file");
}

#[test]
fn every_help_fits_100_columns() {
    let commands = [
        "",
        "policies",
        "devices",
        "sim",
        "run",
        "insert",
        "create",
        "destroy",
        "configure",
        "stats",
        "top",
        "validate",
        "experiment",
        "sweep",
        "demo",
    ];
    for command in commands {
        let args: Vec<&str> = if command.is_empty() { vec!["--help"] } else { vec![command, "--help"] };
        let out = iosched(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.lines().count() > 3, "{args:?}: {text}");
        for line in text.lines() {
            assert!(line.chars().count() <= 100, "{args:?}: a line of {} columns: {line}", line.chars().count());
        }
    }
}

/// The widest line of `text`, with the line.
fn widest(text: &str) -> (usize, String) {
    text.lines().map(|l| (l.chars().count(), l.to_string())).max().unwrap_or_default()
}

#[test]
fn every_table_fits_100_columns() {
    let job = job_file(
        "wide.fio",
        "[a-job-name-far-longer-than-a-column]\nrw=randread\nnumber_ios=200\n[w]\nrw=write\nbs=64k\nnumber_ios=200\n\
         fsync=8\n",
    );
    let job = job.to_str().unwrap();
    let mut outputs = Vec::new();
    for (device, policy) in [("ssd:netflix,capacity_gib=4", "cam"), ("hdd:sata7200", "bfq"), ("simple", "kyber")] {
        outputs.push(iosched(&["sim", job, "--device", device, "--policy", policy]));
    }
    outputs.push(iosched(&[
        "sweep",
        job,
        "--grid",
        "fifo_batch=1,16",
        "--device",
        "hdd:sata7200",
        "--device",
        "ssd:netflix,capacity_gib=4,op=0.28,precondition=fresh",
    ]));
    outputs.push(iosched(&["policies"]));
    outputs.push(iosched(&["devices"]));
    outputs.push(iosched(&["sweep", job, "--policies", "noop,deadline", "--seeds", "1-3", "--list"]));
    if let Some(d) = iosched_test_data::dir("disksim") {
        let (parv, trace) = (d.join("atlas10k.parv"), d.join("atlas10k.trace"));
        let (parv, trace) = (parv.to_str().unwrap(), trace.to_str().unwrap());
        outputs.push(iosched(&["validate", "--disksim", parv, "--trace", trace, "--jitter-us", "2", "--seeds", "2"]));
    }
    for out in outputs {
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let (width, line) = widest(&text);
        assert!(width <= 100, "a line of {width} columns:\n{line}\nin:\n{text}");
    }
}

#[test]
fn bad_input_exits_2_before_any_work() {
    let good = job_file("exit-good.fio", "[r]\nrw=randread\nsize=1m\nnumber_ios=10\n");
    let good = good.to_str().unwrap();
    // Nothing running on the path asked about.
    assert_bad_input(&["stats", "/tmp"], "no iosched engine is running on");
    // A report that cannot be written: refused before the experiment runs.
    let started = std::time::Instant::now();
    assert_bad_input(&["experiment", "geom-sched", "--html", "/nonexistent/dir/r.html"], "cannot write /nonexistent");
    assert!(started.elapsed().as_secs_f64() < 2.0, "the experiment ran first: {:?}", started.elapsed());
    // A live target in a folder that does not exist.
    assert_bad_input(&["run", good, "--target", "/nonexistent/dir/t.dat"], "/nonexistent/dir/t.dat");
    // A live target that does not exist, for jobs that give no size in bytes to lay it out with.
    let sizeless = job_file("exit-sizeless.fio", "[r]\nrw=read\nsize=50%\nnumber_ios=10\n");
    let missing = sizeless.with_file_name("missing.img");
    assert_bad_input(
        &["run", sizeless.to_str().unwrap(), "--target", missing.to_str().unwrap()],
        "is empty or does not exist, and no job gives its size in bytes",
    );
    assert!(!missing.exists(), "a target was made anyway");
    // A mount over a directory that does not exist says so.
    assert_bad_input(&["insert", "/nonexistent/dir"], "/nonexistent/dir: no such directory");
}

#[test]
fn usage_errors_name_what_is_missing_and_suggest_the_nearest_name() {
    let good = job_file("usage-good.fio", MIXED);
    let good = good.to_str().unwrap();
    // A missing argument is named, with the subcommand's usage.
    assert_usage_error(&["validate", "--disksim", "x.parv"], "--trace", "iosched validate");
    assert_usage_error(&["validate"], "--disksim", "iosched validate");
    assert_usage_error(&["run"], "required", "iosched run");
    // Misspelt subcommands and flags: clap's suggestion.
    assert_usage_error(&["simm", good], "similar subcommand exists: 'sim'", "iosched <COMMAND>");
    assert_usage_error(&["sim", good, "--polcy", "noop"], "similar argument exists: '--policy'", "iosched sim");
    // Misspelt names iosched checks itself: the nearest valid one, in one line.
    assert_bad_input(&["sim", good, "--policy", "dealine"], "unknown policy 'dealine'; did you mean 'deadline'?");
    assert_bad_input(
        &["sim", good, "--policy", "deadline", "--set", "fifo_bacth=4"],
        "unknown tunable 'fifo_bacth' for policy deadline; did you mean 'fifo_batch'?",
    );
    assert_bad_input(&["sim", good, "--device", "simpel"], "unknown device kind 'simpel'; did you mean 'simple'?");
    assert_bad_input(&["sim", good, "--device", "ssd:nvme,capacty_gib=4"], "did you mean 'capacity_gib'?");
    assert_bad_input(&["sim", good, "--device", "hdd:sata7200,queue_dept=4"], "did you mean 'queue_depth'?");
    assert_bad_input(&["sim", good, "--device", "hdd:sata720"], "did you mean 'sata7200'?");
}

#[test]
fn nan_infinite_negative_and_huge_numbers_are_one_line_errors_in_every_reader() {
    let good = job_file("numbers-good.fio", MIXED);
    let good = good.to_str().unwrap();
    // Device specs.
    for spec in ["simple,latency_us=nan", "simple,bandwidth_mb_per_s=inf", "simple,latency_us=-1", "ssd:nvme,op=1e300"]
    {
        assert_bad_input(&["sim", good, "--device", spec], "expected");
    }
    // Policy tunables.
    for set in ["read_expire=nan", "read_expire=inf", "fifo_batch=-1", "read_expire=1e300"] {
        assert_bad_input(&["sim", good, "--policy", "deadline", "--set", set], "invalid value");
    }
    // fio job files, with the line.
    for option in
        ["thinktime=1e300", "runtime=inf", "size=nan", "bs=-4k", "random_distribution=zipf:nan", "ramp_time=1e30"]
    {
        let f = job_file("numbers.fio", &format!("[j]\nrw=randread\n{option}\n"));
        assert_bad_input(&["sim", f.to_str().unwrap()], "numbers.fio:3:");
    }
    // Traces, with the line.
    for (format, line) in [
        ("mqsim", "0 0 nan 8 1"),
        ("mqsim", "0 0 1 -8 1"),
        ("disksim-validate", "R Miss 1 8 inf 1"),
        ("msr", "128166385295514663,hm,0,Read,-4096,4096,10"),
        ("msr", "128166385295514663,hm,0,Read,1e300,4096,10"),
        ("spc", "0,303567,nan,r,0.0"),
        ("spc", "0,303567,4096,r,inf"),
        ("disksim", "-1.0 0 1000 8 1"),
        ("blkparse", "  8,0  1  1  nan  12  Q  R 100 + 8 [a]"),
        ("alibaba", "3,R,0,-4096,1577808000000000"),
        ("tencent", "1538323200,2048,-8,1,1283"),
    ] {
        let f = job_file("numbers.trace", &format!("{line}\n"));
        assert_bad_input(&["sim", "--trace", f.to_str().unwrap(), "--format", format], "numbers.trace:1:");
    }
    let values = ["nan", "inf", "-1", "1e300"];
    // Hard-disk presets, with the line.
    let preset = include_str!("../../iosched-device/presets/hdd/sata7200.toml");
    for v in values {
        let text: String = preset
            .lines()
            .map(|l| if l.starts_with("head_switch_ms") { format!("head_switch_ms = {v}\n") } else { format!("{l}\n") })
            .collect();
        let f = job_file("numbers.toml", &text);
        let spec = format!("hdd:{}", f.display());
        assert_bad_input(&["sim", good, "--device", &spec], "numbers.toml:29: head_switch_ms: expected 0 to 100000 ms");
    }
    // MQSim's device and workload files, with the line.
    let device = include_str!("../../iosched-device/tests/data/mqsim-ssdconfig.xml");
    let workload = include_str!("../../iosched-workload/tests/data/mqsim-workload.xml");
    for v in values {
        let text = replace_element(device, "Page_Read_Latency_LSB", v);
        let f = job_file("numbers-device.xml", &text);
        let spec = format!("mqsim:{}", f.display());
        assert_bad_input(&["sim", good, "--device", &spec], "numbers-device.xml:52: <Page_Read_Latency_LSB>: expected");
        let text = replace_element(workload, "Average_Request_Size", v);
        let f = job_file("numbers-workload.xml", &text);
        assert_bad_input(
            &["sim", "--mqsim-workload", f.to_str().unwrap()],
            "numbers-workload.xml:20: <Average_Request_Size>: expected",
        );
    }
    // DiskSim drive files, with the line (from the shared data: atlas10k and the files it sources).
    if let Some(data) = iosched_test_data::dir("disksim") {
        let dir = iosched_test_data::scratch("cli-numbers-disksim");
        std::fs::create_dir_all(&dir).unwrap();
        for ext in ["parv", "diskspecs", "model", "seek"] {
            std::fs::copy(data.join(format!("atlas10k.{ext}")), dir.join(format!("atlas10k.{ext}"))).unwrap();
        }
        let specs = std::fs::read_to_string(data.join("atlas10k.diskspecs")).unwrap();
        let key = "Read completion overhead = 0.000000";
        let line = specs.lines().position(|l| l.contains(key)).unwrap() + 1;
        for v in values {
            std::fs::write(
                dir.join("atlas10k.diskspecs"),
                specs.replace(key, &format!("Read completion overhead = {v}")),
            )
            .unwrap();
            let spec = format!("disksim:{}", dir.join("atlas10k.parv").display());
            assert_bad_input(
                &["sim", good, "--device", &spec],
                &format!("atlas10k.diskspecs:{line}: Read completion overhead: expected"),
            );
        }
    }
    // experiment.toml, with the line: netflix-fill's fill start, bfq-startup's pause after each start-up
    // (seconds from 0: 0 itself is a start-up measured alone).
    for v in values {
        assert_experiment_value_refused("netflix-fill", "fill_starts_s", v, "measure: fill_starts_s expects seconds");
        assert_experiment_value_refused("bfq-startup", "pause_s", v, "measure: pause_s expects seconds from 0");
    }
}

/// A copy of the built-in experiment NAME with `key = value` in its experiment.toml is refused with `wanted`,
/// naming the file and the key's line.
fn assert_experiment_value_refused(name: &str, key: &str, value: &str, wanted: &str) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments").join(name);
    let dir = iosched_test_data::scratch(&format!("cli-numbers-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    let experiment = std::fs::read_to_string(source.join("experiment.toml")).unwrap();
    let sets = |l: &str| l.strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('='));
    let text: String =
        experiment.lines().map(|l| if sets(l) { format!("{key} = {value}\n") } else { format!("{l}\n") }).collect();
    std::fs::write(dir.join("experiment.toml"), text).unwrap();
    let line = experiment.lines().position(sets).unwrap_or_else(|| panic!("{name} sets {key}")) + 1;
    assert_bad_input(&["experiment", dir.to_str().unwrap()], &format!("experiment.toml:{line}: {wanted}"));
}

/// `text` with the first <tag>...</tag> holding `value`.
fn replace_element(text: &str, tag: &str, value: &str) -> String {
    let open = format!("<{tag}>");
    let start = text.find(&open).unwrap() + open.len();
    let end = start + text[start..].find('<').unwrap();
    format!("{}{value}{}", &text[..start], &text[end..])
}

#[test]
fn fio_examples_are_simulated_or_rejected_by_name() {
    let Some(examples) = iosched_test_data::dir("fio-examples") else { return };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "expected fio's examples in {}", examples.display());
    let mut simulated = 0;
    for file in &files {
        let out = iosched(&["sim", file.to_str().unwrap(), "--runtime", "0.02", "--json"]);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{}: {err}", file.display());
        match out.status.code() {
            Some(0) => {
                let v: Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
                assert_eq!(v["iosched"]["requests_submitted"], v["iosched"]["requests_completed"]);
                simulated += 1;
            }
            Some(2) => {
                let name = file.file_name().unwrap().to_str().unwrap();
                assert!(err.contains(name) && err.contains("option"), "{}: {err}", file.display());
            }
            other => panic!("{}: exit {other:?}: {err}", file.display()),
        }
    }
    // Every example uses a block engine, so every one is simulated.
    assert_eq!(simulated, files.len(), "only {simulated} of {} simulated", files.len());
}

#[test]
fn ssd_runs_report_write_amplification_in_iosched_device() {
    let job = job_file("ssd.fio", "[w]\nrw=randwrite\nbs=4k\nioengine=libaio\niodepth=32\nnumber_ios=20000\nsize=1g\n");
    let out = iosched(&[
        "sim",
        job.to_str().unwrap(),
        "--device",
        "ssd:netflix,capacity_gib=1,precondition=steady",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let dev = &v["iosched"]["device"];
    assert!(dev["spec"].as_str().unwrap().starts_with("ssd:netflix,capacity_gib=1,"));
    let wa = dev["write_amplification"].as_f64().unwrap();
    assert!(wa > 1.5, "random writes on a steady drive amplify: {wa}");
    let host = dev["host_write_bytes"].as_u64().unwrap();
    assert_eq!(host, 20000 * 4096);
    let nand = dev["nand_write_bytes"].as_u64().unwrap();
    assert!(nand >= host, "{nand} < {host}");
    assert!(dev["gc_erases"].as_u64().unwrap() > 0);
}

#[test]
fn bad_ssd_specs_are_one_line_errors() {
    let job = job_file("ssd-bad.fio", MIXED);
    let j = job.to_str().unwrap();
    assert_bad_input(&["sim", j, "--device", "ssd:sata"], "unknown ssd preset 'sata'");
    assert_bad_input(&["sim", j, "--device", "ssd:nvme,op=9"], "op: expected 0.02 to 4");
    assert_bad_input(&["sim", j, "--device", "ssd:nvme,turbo=1"], "unknown ssd key 'turbo'");
    assert_bad_input(&["sim", j, "--device", "ssd:nvme,precondition=old"], "expected fresh or steady");
    assert_bad_input(&["sim", j, "--device", "ssd"], "ssd needs a preset");
}

#[test]
fn sim_replays_traces_in_every_mode_and_writes_them_back() {
    let Some(mqsim) = iosched_test_data::dir("mqsim") else { return };
    let trace = mqsim.join("tpcc-small.trace");
    let dir = iosched_test_data::scratch("cli-trace");
    std::fs::create_dir_all(&dir).unwrap();
    let (blk, iolog) = (dir.join("run.blk"), dir.join("run.iolog"));
    let out = iosched(&[
        "sim",
        "--trace",
        trace.to_str().unwrap(),
        "--device",
        "ssd:nvme",
        "--json",
        "--write-blkparse",
        blk.to_str().unwrap(),
        "--write-iolog",
        iolog.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("mqsim trace, 6999 requests kept"), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["iosched"]["requests_completed"], 6999);
    let ios = |v: &Value| -> u64 {
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap())
            .sum()
    };
    assert_eq!(ios(&v), 6999);
    // What was written reads back as the same requests, in each replay mode.
    for (file, format, replay) in
        [(&blk, "blkparse", "closed:4"), (&iolog, "iolog3", "afap"), (&blk, "blkparse", "open:0.5")]
    {
        let out = iosched(&["sim", "--trace", file.to_str().unwrap(), "--replay", replay, "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stderr(&out).contains(&format!("{format} trace, 6999 requests kept")), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(ios(&v), 6999, "{replay}");
    }
    // Open loop at half the recorded times ends about twice as soon as at the recorded times (on a device fast
    // enough never to hold requests back).
    let elapsed = |replay: &str| -> f64 {
        let fast = "simple,latency_us=1,bandwidth_mb_per_s=1000000,queue_depth=1024";
        let out = iosched(&["sim", "--trace", blk.to_str().unwrap(), "--replay", replay, "--json", "--device", fast]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["iosched"]["elapsed_ns"].as_f64().unwrap()
    };
    let ratio = elapsed("open") / elapsed("open:0.5");
    assert!((ratio - 2.0).abs() < 0.05, "{ratio}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_traces_are_one_line_errors_naming_file_and_line() {
    let bad_line = job_file("bad.trace", "11413000 0 657728 16 1\n11413001 0 657728 sixteen 1\n");
    let unknown = job_file("unknown.trace", "this is not a trace\n");
    let (bad_line, unknown) = (bad_line.to_str().unwrap(), unknown.to_str().unwrap());
    assert_bad_input(&["sim", "--trace", bad_line], "bad.trace:2: size_sectors: expected a whole number");
    assert_bad_input(&["sim", "--trace", unknown], "unknown.trace: cannot tell the trace format");
    assert_bad_input(&["sim", "--trace", unknown, "--format", "tape"], "--format expects one of blkparse");
    assert_bad_input(&["sim", "--trace", bad_line, "--format", "msr"], "bad.trace:1: expected 7 fields");
    assert_bad_input(&["sim", "--trace", bad_line, "--replay", "closed:0"], "the depth must be 1 to 65536");
    assert_bad_input(&["sim"], "give a fio job file, --trace FILE, or both");
    assert_bad_input(&["sim", "--trace", "/nonexistent/t"], "/nonexistent/t: cannot read trace");
}

#[test]
fn write_lat_log_writes_fio_latency_logs() {
    let dir = iosched_test_data::scratch("cli-latlog");
    std::fs::create_dir_all(&dir).unwrap();
    let job = job_file(
        "latlog.fio",
        "[per-io]\nrw=randread\nnumber_ios=50\nwrite_lat_log=one\n[avg]\nstonewall\nrw=read\nnumber_ios=500\nwrite_lat_log=two\nlog_avg_msec=10\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_iosched"))
        .args(["sim", job.to_str().unwrap()])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // One row per I/O: time_ms, latency_ns, ddir, bs, prio (fio 3.33's columns without log_offset); 108,192 ns
    // each on the default device.
    let one = std::fs::read_to_string(dir.join("one_clat.1.log")).unwrap();
    assert_eq!(one.lines().count(), 50);
    let first: Vec<&str> = one.lines().next().unwrap().split(", ").collect();
    assert_eq!(first.len(), 5);
    assert_eq!((first[1], first[2], first[3], first[4]), ("108192", "0", "4096", "0"));
    assert!(dir.join("one_lat.1.log").exists() && dir.join("one_slat.1.log").exists());
    // Averaged over 10 ms windows: 500 x 108.192 us = 54 ms, so six windows, each of mean 108192.
    let two = std::fs::read_to_string(dir.join("two_clat.2.log")).unwrap();
    let rows: Vec<&str> = two.lines().collect();
    assert_eq!(rows.len(), 6, "{two}");
    assert!(rows.iter().all(|r| r.split(", ").nth(1) == Some("108192")), "{two}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bandwidth_and_iops_logs_have_fios_columns_and_units() {
    // The same job through fio itself (on a file here) and through iosched: the logs have the same columns,
    // windows and units. fio 3.33 writes `time, value, ddir, bs, prio`, and an offset before prio with
    // log_offset=1; per I/O, bandwidth is the I/O's bytes over its latency in KiB/s and IOPS is 1.
    let dir = iosched_test_data::scratch("cli-bwlog");
    std::fs::create_dir_all(&dir).unwrap();
    let job = "[r]\nrw=randread\nbs=4k\nsize=16m\nfilename=f.dat\nWINDOW\nwrite_bw_log=r\nwrite_iops_log=r\nwrite_lat_log=r\n";
    let fio_available = Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success());
    if !fio_available {
        iosched_test_data::skip("fio is not installed (apt-get install fio)");
        return;
    }
    for (window, offset) in
        [("number_ios=64", "log_offset=0"), ("time_based\nruntime=1\nlog_avg_msec=250", "log_offset=1")]
    {
        let text = job.replace("WINDOW", &format!("{window}\n{offset}"));
        let rows = |tool: &str, name: &str| -> Vec<Vec<u64>> {
            std::fs::read_to_string(dir.join(tool).join(name))
                .unwrap_or_else(|e| panic!("{tool} {name}: {e}"))
                .lines()
                .map(|l| l.split(", ").map(|v| v.parse().unwrap()).collect())
                .collect()
        };
        for tool in ["fio", "iosched"] {
            let d = dir.join(tool);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("job.fio"), &text).unwrap();
            let out = match tool {
                "fio" => Command::new("fio").args(["--output=/dev/null", "job.fio"]).current_dir(&d).output(),
                _ => Command::new(env!("CARGO_BIN_EXE_iosched")).args(["sim", "job.fio"]).current_dir(&d).output(),
            }
            .unwrap();
            assert!(out.status.success(), "{tool}: {}", stderr(&out));
        }
        // psync measures no submission latency: both leave the slat log empty.
        assert!(rows("fio", "r_slat.1.log").is_empty() && rows("iosched", "r_slat.1.log").is_empty());
        for log in ["r_bw.1.log", "r_iops.1.log", "r_clat.1.log", "r_lat.1.log"] {
            let (f, i) = (rows("fio", log), rows("iosched", log));
            assert!(!f.is_empty() && !i.is_empty(), "{log}");
            assert_eq!(f[0].len(), i[0].len(), "{log} ({offset}): fio {:?}, iosched {:?}", f[0], i[0]);
            if window.contains("log_avg_msec") {
                // Windowed: rows at the windows' ends, block size (and offset) 0.
                assert!(i.iter().all(|r| r[0] % 250 == 0 && r[3] == 0), "{log}: {i:?}");
                assert!(f.iter().all(|r| r[3] == 0), "{log}: {f:?}");
            } else {
                assert_eq!(i.len(), 64, "{log}: one row per I/O");
                assert!(i.iter().all(|r| r[3] == 4096 && r[2] == 0), "{log}");
            }
        }
        // Units: per I/O, bandwidth x latency = the I/O's bytes (KiB/s x ns); per window, IOPS x 4 KiB = KiB/s.
        let (bw, iops, clat) =
            (rows("iosched", "r_bw.1.log"), rows("iosched", "r_iops.1.log"), rows("iosched", "r_clat.1.log"));
        for ((b, n), c) in bw.iter().zip(&iops).zip(&clat) {
            if window.contains("log_avg_msec") {
                assert!((b[1] as i64 - 4 * n[1] as i64).abs() <= 4, "bw {b:?} iops {n:?}");
            } else {
                assert_eq!(n[1], 1);
                let bytes = b[1] as f64 * 1024.0 * c[1] as f64 / 1e9;
                assert!((bytes - 4096.0).abs() < 64.0, "bw {b:?} clat {c:?}: {bytes} bytes");
            }
        }
    }
}

#[test]
fn json_plus_histograms_read_with_fios_own_converter() {
    // --output-format json+ adds fio's latency histogram to each clat_ns; fio's fio_jsonplus_clat2csv (shipped
    // with fio) turns it into one CSV per job whose cumulative count reaches the job's I/Os.
    let Some(tool) = ["/usr/bin/fio_jsonplus_clat2csv"].into_iter().find(|p| Path::new(p).exists()) else {
        iosched_test_data::skip("fio_jsonplus_clat2csv not found (apt-get install fio)");
        return;
    };
    let dir = iosched_test_data::scratch("cli-jsonplus");
    std::fs::create_dir_all(&dir).unwrap();
    let job =
        job_file("jsonplus.fio", "[r]\nrw=randread\nbs=4k\niodepth=4\nioengine=libaio\nsize=64m\nnumber_ios=2000\n");
    let out = iosched(&["sim", job.to_str().unwrap(), "--device", "hdd:sata7200", "--output-format", "json+"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let bins = v["jobs"][0]["read"]["clat_ns"]["bins"].as_object().expect("bins");
    assert_eq!(bins.values().map(|n| n.as_u64().unwrap()).sum::<u64>(), 2000);
    std::fs::write(dir.join("run.json"), &out.stdout).unwrap();
    let conv = Command::new("python3").arg(tool).args(["run.json", "run.csv"]).current_dir(&dir).output().unwrap();
    assert!(conv.status.success(), "{}", String::from_utf8_lossy(&conv.stderr));
    let csv = std::fs::read_to_string(dir.join("run_job0.csv")).unwrap();
    let last: Vec<&str> = csv.lines().last().unwrap().split(", ").collect();
    // nsec, read_slat (3 columns), then read_clat_ns_count, _cumulative, _percentile.
    assert_eq!((last[5], last[6]), ("2000", "1.0"), "{last:?}");
    // The CSV's rows are the bins, rising.
    let ns: Vec<u64> = csv.lines().skip(1).map(|l| l.split(", ").next().unwrap().parse().unwrap()).collect();
    assert_eq!(ns.len(), bins.len());
    assert!(ns.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn histogram_logs_read_with_fios_own_parser() {
    // write_hist_log with log_hist_msec: fio's fiologparser_hist.py (shipped with fio, gzipped; it needs pandas)
    // finds every sample of the whole windows and the median iosched's own JSON reports, within fio's buckets.
    let gz = Path::new("/usr/share/doc/fio/fiologparser_hist.py.gz");
    let pandas =
        Command::new("/usr/bin/python3").args(["-c", "import pandas"]).output().is_ok_and(|o| o.status.success());
    if !gz.exists() || !pandas {
        iosched_test_data::skip("fiologparser_hist.py or pandas missing (apt-get install fio python3-pandas)");
        return;
    }
    let dir = iosched_test_data::scratch("cli-histlog");
    std::fs::create_dir_all(&dir).unwrap();
    let script = Command::new("zcat").arg(gz).output().unwrap();
    std::fs::write(dir.join("fiologparser_hist.py"), &script.stdout).unwrap();
    for coarseness in ["0", "3"] {
        let job = format!(
            "[h]\nrw=randread\nbs=4k\nsize=64m\nruntime=2\ntime_based\nwrite_hist_log=h\nlog_hist_msec=500\n\
             log_hist_coarseness={coarseness}\n"
        );
        std::fs::write(dir.join("h.fio"), job).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_iosched"))
            .args(["sim", "h.fio", "--device", "hdd:sata7200", "--json"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let median_ns = v["jobs"][0]["read"]["clat_ns"]["percentile"]["50.000000"].as_f64().unwrap();
        let log = std::fs::read_to_string(dir.join("h_clat_hist.1.log")).unwrap();
        let columns = log.lines().next().unwrap().split(", ").count();
        assert_eq!(columns, 3 + (1856 >> coarseness.parse::<u32>().unwrap()), "fio's bucket count");
        let logged: u64 =
            log.lines().map(|l| l.split(", ").skip(3).map(|c| c.parse::<u64>().unwrap()).sum::<u64>()).sum();
        let parsed = Command::new("/usr/bin/python3")
            .args(["fiologparser_hist.py", "-i", "2000", "h_clat_hist.1.log"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(parsed.status.success(), "{}", String::from_utf8_lossy(&parsed.stderr));
        // end-time, samples, min, avg, median, 90%, 95%, 99%, max
        let text = String::from_utf8_lossy(&parsed.stdout);
        let row: Vec<f64> = text.lines().nth(1).unwrap().split(", ").map(|x| x.trim().parse().unwrap()).collect();
        assert_eq!(row[1] as u64, logged, "{text}");
        let ios = v["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
        assert!(logged <= ios && logged * 10 >= ios * 7, "{logged} of {ios} I/Os in whole windows");
        let tolerance = median_ns * if coarseness == "0" { 0.03 } else { 0.15 };
        assert!((row[4] - median_ns).abs() <= tolerance, "median {} against iosched's {median_ns}", row[4]);
    }
}

#[test]
fn switch_at_hands_over_to_another_policy_mid_run() {
    let job = job_file("switch.fio", MIXED);
    let out = iosched(&[
        "sim",
        job.to_str().unwrap(),
        "--json",
        "--switch-at",
        "20ms:deadline",
        "--switch-at",
        "40ms:elevator,batch=4",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["iosched"]["policy"], "elevator");
    assert_eq!(v["iosched"]["policy_tunables"]["batch"], "4");
    assert_eq!(v["iosched"]["policy_switches"], 2);
    assert_eq!(v["iosched"]["requests_completed"], 4000);
    let job = job.to_str().unwrap();
    assert_bad_input(&["sim", job, "--switch-at", "deadline"], "--switch-at expects TIME:POLICY");
    assert_bad_input(&["sim", job, "--switch-at", "soon:deadline"], "the time: expected a time");
    assert_bad_input(&["sim", job, "--switch-at", "1s:cfqq"], "unknown policy 'cfqq'");
    assert_bad_input(&["sim", job, "--switch-at", "1s:deadline,fifo_batch=0"], "invalid value '0' for fifo_batch");
}

#[test]
fn a_closed_pipe_stops_output_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_iosched"))
        .args(["policies", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before iosched has started writing (it takes milliseconds to start).
    drop(child.stdout.take());
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(status.code(), Some(101), "a panic's exit status");
}

#[test]
fn several_job_files_run_together_and_their_job_names_must_differ() {
    let reads = job_file("reads.fio", "[r]\nrw=randread\nbs=4k\nnumber_ios=500\n");
    let writes = job_file("writes.fio", "[w]\nrw=write\nbs=64k\nnumber_ios=300\n");
    let out = iosched(&["sim", reads.to_str().unwrap(), writes.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 500);
    assert_eq!(v["jobs"][1]["write"]["total_ios"], 300);
    let again = job_file("again.fio", "[r]\nrw=read\nbs=4k\nnumber_ios=10\n");
    assert_bad_input(
        &["sim", reads.to_str().unwrap(), again.to_str().unwrap()],
        "job 'r' is also defined in an earlier job file",
    );
    let empty = job_file("empty.fio", "[global]\nbs=4k\n");
    assert_bad_input(
        &["sim", reads.to_str().unwrap(), empty.to_str().unwrap()],
        "no jobs: expected at least one [section]",
    );
}

#[test]
fn silent_no_ops_are_errors_or_said() {
    let two = job_file("noop-two.fio", "[a]\nrw=randread\nsize=1m\nnumber_ios=10\n[b]\nrw=read\nnumber_ios=10\n");
    let two = two.to_str().unwrap();
    // A per-flow setting for a flow that does not exist names the flows there are.
    for args in [
        vec!["sim", two, "--policy", "bfq", "--set", "weight.7=300"],
        vec!["sim", two, "--policy", "noop", "--switch-at", "1ms:bfq,weight.2=300"],
        vec!["sweep", two, "--policies", "bfq", "--grid", "weight.5=10,20"],
    ] {
        assert_bad_input(&args, "there is no flow");
        assert!(stderr(&iosched(&args)).contains("flows are 0 (a), 1 (b)"), "{args:?}");
    }
    // Flow 1 exists: accepted, and the table shows each job's flow number.
    let out = iosched(&["sim", two, "--policy", "bfq", "--set", "weight.1=300"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    let header = table.lines().find(|l| l.starts_with("job")).expect("a job table");
    assert!(header.split_whitespace().nth(1) == Some("flow"), "{header}");
    assert!(table.lines().any(|l| l.split_whitespace().take(2).eq(["b", "1"])), "{table}");
    // A job without size= says what it covers.
    let err = stderr(&out);
    assert!(err.contains("job 'b' has no size=: it covers the device from its offset to the end"), "{err}");
    assert!(!err.contains("job 'a'"), "{err}");
    // The iolog names the jobs' own file (what fio --read_iolog opens), or the one asked for.
    let with_name = job_file("noop-named.fio", "[a]\nfilename=/tmp/disk.img\nrw=randread\nsize=1m\nnumber_ios=5\n");
    let log = with_name.with_extension("iolog");
    let run = |extra: &[&str]| {
        let mut args = vec!["sim", with_name.to_str().unwrap(), "--write-iolog", log.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = iosched(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        std::fs::read_to_string(&log).unwrap()
    };
    assert!(run(&[]).lines().nth(1) == Some("0 /tmp/disk.img add"));
    assert!(run(&["--iolog-filename", "/dev/sdb"]).lines().all(|l| l.starts_with("fio") || l.contains(" /dev/sdb ")));
    assert_bad_input(
        &["sim", two, "--write-iolog", log.to_str().unwrap(), "--iolog-filename", "a b"],
        "--iolog-filename expects a file name without spaces",
    );
}

#[test]
fn completions_and_man_pages_come_from_the_argument_definitions() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = iosched(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        // Every subcommand and a subcommand's flag are offered.
        for word in ["sim", "experiment", "validate", "--policy", "--mqsim-workload"] {
            assert!(script.contains(word), "{shell}: no '{word}' in the completion script");
        }
    }
    assert_usage_error(&["completions", "tcsh"], "invalid value 'tcsh'", "");
    let page = stdout(&iosched(&["man"]));
    assert!(page.contains(".TH iosched 1") && page.contains("iosched\\-sim"), "{page}");
    let sub = iosched(&["man", "validate"]);
    let page = stdout(&sub);
    assert!(sub.status.success() && page.contains(".TH iosched-validate 1"), "{page}");
    assert!(page.contains("\\-\\-against\\-disksim"), "the subcommand's own options: {page}");
    assert_bad_input(&["man", "simm"], "no subcommand 'simm'; did you mean 'sim'?");
}

#[test]
fn section_runs_only_the_named_jobs_and_environment_variables_fill_values() {
    // fio's xnvme examples: a [default] job, and an [override] job whose values come from the environment.
    let path = job_file(
        "env.fio",
        "[global]\nrw=randwrite\nsize=2M\nbs=4k\n[default]\n[override]\nrw=${IOSCHED_T_RW}\nbs=${IOSCHED_T_BS}\n",
    );
    let p = path.to_str().unwrap();
    assert_bad_input(&["sim", p], "env.fio:7: rw: expected");
    assert_bad_input(&["sim", p], "found '' (fio puts nothing for ${IOSCHED_T_RW}, which is not set)");
    let out = iosched(&["sim", p, "--section", "default", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = json["jobs"].as_array().unwrap().iter().map(|j| j["jobname"].as_str().unwrap()).collect();
    assert_eq!(names, ["default"]);
    assert_eq!(json["jobs"][0]["write"]["total_ios"], 512);
    let out = Command::new(env!("CARGO_BIN_EXE_iosched"))
        .args(["sim", p, "--section", "override", "--json"])
        .env("IOSCHED_T_RW", "randread")
        .env("IOSCHED_T_BS", "8k")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["jobs"][0]["jobname"], "override");
    assert_eq!(
        (json["jobs"][0]["read"]["total_ios"].as_u64(), json["jobs"][0]["write"]["total_ios"].as_u64()),
        (Some(256), Some(0))
    );
    assert_bad_input(&["sim", p, "--section", "nope"], "no job section named nope (--section)");
    // sweep takes --section too: each point runs only the named job.
    let out = iosched(&["sweep", p, "--section", "default", "--policies", "noop,deadline", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let points: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(points.len(), 2);
    for point in &points {
        let names: Vec<&str> = point["jobs"].as_array().unwrap().iter().map(|j| j["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["default"], "{point}");
    }
    assert_bad_input(&["sweep", p, "--section", "nope"], "no job section named nope (--section)");
}

/// bfq's peak-rate estimate (bfq_update_peak_rate), as a user sees it in `iosched sim --json`'s policy stats:
/// a sequential reader at depth 4 brings it from BFQ's starting guess to the device's rate.
#[test]
fn bfq_estimates_the_peak_rate_of_the_device_it_runs_on() {
    let job = job_file(
        "peak.fio",
        "[r]\nrw=read\nbs=128k\nioengine=libaio\niodepth=4\ndirect=1\nsize=50%\nruntime=5\ntime_based\n",
    );
    // (device, its sequential rate in sectors/s, where BFQ's estimate starts: 2/3 of its reference rate)
    let cases = [
        ("simple,latency_us=100,bandwidth_mb_per_s=400", 400e6 / 512.0, 335_693.0), // non-rotational
        ("hdd:sata7200", 72.3e6 / 512.0, 142_415.0),                                // rotational
    ];
    for (device, rate, start) in cases {
        let out = iosched(&["sim", "--device", device, "--policy", "bfq", job.to_str().unwrap(), "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let v: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        let stats = &v["iosched"]["policy_stats"];
        let estimate = stats["peak_rate_sectors_per_s"].as_f64().expect("the estimate");
        assert!(stats["peak_rate_updates"].as_u64().unwrap_or(0) > 0, "{device}: never updated: {stats}");
        assert!((estimate / rate - 1.0).abs() < 0.1, "{device}: {estimate} sectors/s against {rate}");
        if (start / rate - 1.0).abs() > 0.1 {
            assert!((estimate - start).abs() > 0.1 * start, "{device}: still at its start ({start})");
        }
    }
}
