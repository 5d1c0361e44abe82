//! The seed experiments end to end, through the command line: the figures issue 8 asks of each, their JSON
//! identical across runs, each under 60 s, bad descriptions rejected, and the HTML report drawn by headless
//! Chromium (a screenshot whose pixels show the plots' colours).
//!
//! The experiments run one at a time (a lock), each on two threads as on CI's two cores, so the time limit is
//! measured as a user would meet it. Each built-in experiment runs twice in this process (a JSON run and a
//! JSON-and-HTML run, which must agree), and the tests that read its figures or its report share those runs.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The built-in experiments' runs, by name: their JSON and HTML report. The lock also keeps experiments to one
/// at a time.
static RUNS: Mutex<BTreeMap<String, Run>> = Mutex::new(BTreeMap::new());

#[derive(Clone)]
struct Run {
    json: Value,
    html: String,
}

fn iosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iosched")).args(args).output().expect("run iosched")
}

/// The experiment's JSON and HTML report, from two runs (`--json`, then `--json --html`) whose JSON must agree
/// byte for byte, each under 60 s; run once in this process, on the first call.
fn experiment_run(name: &str) -> Run {
    let mut runs = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(run) = runs.get(name) {
        return run.clone();
    }
    let html = iosched_test_data::scratch(&format!("exp-run-{name}")).join(format!("{name}.html"));
    let mut outputs = Vec::new();
    let mut slowest = Duration::ZERO;
    for with_html in [false, true] {
        let mut args = vec!["experiment", name, "--json", "--jobs", "2"];
        if with_html {
            args.extend(["--html", html.to_str().unwrap()]);
        }
        let started = Instant::now();
        let out = iosched(&args);
        slowest = slowest.max(started.elapsed());
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        outputs.push(out.stdout);
    }
    assert!(outputs[0] == outputs[1], "{name}: the JSON differs between two runs");
    eprintln!("{name}: {:.1} s", slowest.as_secs_f64());
    assert!(slowest < Duration::from_secs(60), "{name} took {slowest:?}");
    let json: Value = serde_json::from_slice(&outputs[0]).expect("valid JSON");
    assert_eq!(json["experiment"], name);
    let run = Run { json, html: std::fs::read_to_string(&html).expect("the HTML report") };
    runs.insert(name.to_string(), run.clone());
    run
}

/// The experiment's JSON (see [`experiment_run`]).
fn experiment_json(name: &str) -> Value {
    experiment_run(name).json
}

fn result<'a>(v: &'a Value, policy: &str, case_key: &str, case: &str) -> &'a Value {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["policy"] == policy && r[case_key] == case)
        .unwrap_or_else(|| panic!("no result for {policy} / {case}"))
}

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} is not a number in {v}"))
}

/// netflix-fill: a result's read p99 during the fill over its read p99 before it.
fn read_p99_rise(r: &Value) -> f64 {
    num(r, "read_p99_ms_during") / num(r, "read_p99_ms_before")
}

#[test]
fn geom_sched_shows_anticipation_paying_off() {
    let v = experiment_json("geom-sched");
    let dd = |p: &str, case: &str| num(result(&v, p, "case", case), "dd_mb_per_s");
    let cvs = |p: &str, case: &str| num(result(&v, p, "case", case), "cvs_ops_per_s");
    let (read_alone, noop_read, rr_read) = (dd("noop", "dd-read"), dd("noop", "dd-read+cvs"), dd("rr", "dd-read+cvs"));
    let (noop_cvs_w, rr_cvs_w) = (cvs("noop", "dd-write+cvs"), cvs("rr", "dd-write+cvs"));
    eprintln!(
        "dd-read alone {read_alone:.1} MB/s; with cvs: noop {noop_read:.1}, rr {rr_read:.1}; cvs beside dd-write: \
         noop {noop_cvs_w:.1}/s, rr {rr_cvs_w:.1}/s"
    );
    assert!((read_alone - 72.0).abs() <= 7.2, "dd-read alone {read_alone} MB/s, seed 72");
    // Regression: 72.1 MB/s was reached; dd alone draws nothing at random (no noise), 0.5 % allows for rounding.
    assert!((read_alone / 72.1 - 1.0).abs() <= 0.005, "dd-read alone {read_alone} MB/s, 72.1 was reached");
    assert!((3.0..=12.0).contains(&noop_read), "noop dd with cvs {noop_read} MB/s, wanted 3-12");
    assert!(rr_read >= 4.0 * noop_read, "rr {rr_read} vs noop {noop_read}");
    assert!(rr_cvs_w >= 5.0 * noop_cvs_w, "cvs beside dd-write: rr {rr_cvs_w} vs noop {noop_cvs_w}");
    // Issue 31 item 0: under rr, dd 20-40 MB/s beside cvs (32.5 reached) and cvs at most 3x slower than alone
    // beside either dd (2.37x and 2.43x reached); under noop, cvs beside the writer at least 20x slower (375x).
    let slowdown = |p: &str, case: &str| num(result(&v, p, "case", case), "cvs_slowdown");
    assert!((20.0..=40.0).contains(&rr_read), "rr dd-read with cvs {rr_read} MB/s, wanted 20-40");
    for case in ["dd-read+cvs", "dd-write+cvs"] {
        assert!(slowdown("rr", case) <= 3.0, "{case}: cvs {}x slower than alone under rr", slowdown("rr", case));
    }
    assert!(slowdown("noop", "dd-write+cvs") >= 20.0, "cvs beside dd-write under noop");
    // Every policy ran every case.
    assert_eq!(v["results"].as_array().unwrap().len(), 9 * 5);
}

#[test]
fn netflix_fill_shows_the_write_limit_taming_read_latency() {
    let v = experiment_json("netflix-fill");
    let noop = result(&v, "noop", "case", "fill");
    let qd1 = result(&v, "cam-write-qd1", "case", "fill");
    let bias = result(&v, "cam-read-bias", "case", "fill");
    let rise = read_p99_rise;
    let mean_change = (num(bias, "read_mean_ms_during") / num(noop, "read_mean_ms_during") - 1.0).abs();
    eprintln!(
        "p99 rise: noop {:.1}x, cam-write-qd1 {:.1}x at {:.0} % of noop's write rate; read bias moves the mean {:.1} %",
        rise(noop),
        rise(qd1),
        100.0 * num(qd1, "write_mb_per_s") / num(noop, "write_mb_per_s"),
        100.0 * mean_change
    );
    assert!(rise(noop) >= 20.0, "noop p99 rise {}", rise(noop));
    assert!(rise(qd1) <= 5.0, "cam-write-qd1 p99 rise {}", rise(qd1));
    assert!(num(qd1, "write_mb_per_s") >= 0.6 * num(noop, "write_mb_per_s"));
    assert!(mean_change < 0.10, "read bias changed the mean by {mean_change}");
    assert!(rise(bias) >= 20.0, "read bias must leave the spike: {}", rise(bias));
    for field in ["read_p999_ms_during", "read_max_ms_during"] {
        assert!(num(noop, field) >= num(noop, "read_p99_ms_during"), "{field}");
    }
    for policy in ["cam-steer", "kyber"] {
        result(&v, policy, "case", "fill");
    }
}

#[test]
fn a_non_queued_trims_wait_in_the_fill_is_the_drain_of_the_fills_data() {
    // The evidence for the "why" under netflix-fill's "trims block reads for up to 200 ms" (and BENCHMARKS.md,
    // "netflix-fill's trims"); when this fails, that text is stale. noop, fill+trims, by trim_drains_buffer and
    // write buffer: the trims' longest wait and the reads', in ms.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/netflix-fill");
    let run = |extra: &str| {
        let device = format!("ssd:netflix,capacity_gib=16,precondition=steady{extra}");
        let jobs = ["reads.fio", "fill.fio", "expire.fio"].map(|f| dir.join(f).to_str().unwrap().to_string());
        let mut args = vec!["sim", "--device", &device, "--policy", "noop", "--json"];
        args.extend(jobs.iter().map(String::as_str));
        let out = iosched(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let max_ms = |job: &str, dir: &str| {
            let j = v["jobs"].as_array().unwrap().iter().find(|j| j["jobname"] == job).unwrap();
            num(&j[dir]["lat_ns"], "max") / 1e6
        };
        (max_ms("expire", "trim"), max_ms("reads", "read"))
    };
    let (drained, drained_reads) = run("");
    let (drained_8, _) = run(",write_buffer_mib=8");
    let (not_drained, not_drained_reads) = run(",trim_drains_buffer=0");
    eprintln!(
        "longest trim: draining {drained:.1} ms (reads {drained_reads:.1}), with 8 MiB {drained_8:.1}; not draining \
         {not_drained:.1} ms (reads {not_drained_reads:.1})"
    );
    // Draining, a trim waits for the fill's data to reach flash, past the seed's 200 ms, and reads wait with it;
    // a smaller buffer does not shorten it. Not draining, with the preset's buffer, trims stay under 200 ms.
    assert!(drained > 250.0 && drained_reads >= drained, "{drained} {drained_reads}");
    assert!(drained_8 >= 0.9 * drained, "{drained_8} against {drained}");
    assert!(not_drained < 200.0 && not_drained_reads < 200.0, "{not_drained} {not_drained_reads}");
}

#[test]
fn netflix_bulk_fill_spikes_noops_reads_and_a_write_queue_of_one_keeps_them_low() {
    // Issue 31: the seed's fill was an update's, as fast as the drive took it. Against the reads' p99 before the
    // fill, noop's rises at least 70x (garbage collection sets the write rate: 84.9x when this case came, 79.9x
    // since a write takes its data into the drive's buffer as room frees) and the write limit of one keeps it
    // under 5x (3.2x, then 2.65x).
    let v = experiment_json("netflix-fill");
    let rise = |policy: &str| read_p99_rise(result(&v, policy, "case", "bulk-fill"));
    let (noop, qd1) = (rise("noop"), rise("cam-write-qd1"));
    eprintln!("bulk fill, read p99 rise: noop {noop:.1}x, cam-write-qd1 {qd1:.1}x");
    assert!(noop >= 70.0, "noop p99 rise {noop:.1}x");
    assert!(qd1 < 5.0, "cam-write-qd1 p99 rise {qd1:.1}x");
}

#[test]
fn netflix_trims_batched_by_cams_trim_controls_cut_the_read_spike() {
    // Issue 31: the drive's trims are not queued (each waits for the drive and its write buffer to drain, then
    // blocks it); CAM holding them for a batch (trim_goal, trim_ticks) drains the drive once per batch. At the
    // commit that added the variant: noop 287.8x, cam-trim-batch 42.3x.
    let v = experiment_json("netflix-fill");
    let rise = |policy: &str| read_p99_rise(result(&v, policy, "case", "fill+trims"));
    let (noop, batched) = (rise("noop"), rise("cam-trim-batch"));
    eprintln!("fill+trims, read p99 rise: noop {noop:.1}x, cam-trim-batch {batched:.1}x");
    assert!(batched * 3.0 <= noop, "cam-trim-batch {batched:.1}x against noop's {noop:.1}x");
}

#[test]
fn bfq_startup_reports_start_up_against_idle() {
    let v = experiment_json("bfq-startup");
    let idle = num(&v, "idle_startup_s");
    let startup = |p: &str| num(result(&v, p, "background", "seq-readers"), "startup_s");
    let (bfq, cfq, noop) = (startup("bfq"), startup("cfq"), startup("noop"));
    eprintln!("start-up beside sequential readers: bfq {bfq:.2} s, cfq {cfq:.2} s, noop {noop:.2} s; idle {idle:.2} s");
    assert!(idle > 0.0);
    assert!(bfq <= 2.5 * idle, "bfq {bfq} s vs idle {idle} s");
    assert!(noop >= 5.0 * bfq, "noop {noop} s vs bfq {bfq} s");
    assert!(cfq >= 5.0 * bfq, "cfq {cfq} s vs bfq {bfq} s");
    for r in v["results"].as_array().unwrap() {
        assert!(num(r, "aggregate_mb_per_s") > 0.0, "{r}");
        assert_ne!(r["background"], "idle", "the idle case is the top-level idle_startup_s");
    }
}

#[test]
fn beside_sequential_readers_bfq_keeps_at_least_70_percent_of_cfqs_aggregate_the_seeds_way() {
    // Issue 31 item 1: bfq at least 5x faster than cfq beside the readers at an aggregate throughput of at least
    // 70 % of cfq's, measured as the seed's script measured it: over each start-up and the pause after it
    // (pause_s, the `sleep 2` of comm_startup_lat.sh's first form).
    let v = experiment_json("bfq-startup");
    let r = |p: &str| result(&v, p, "background", "seq-readers");
    let (bfq, cfq) = (r("bfq"), r("cfq"));
    let speedup = num(cfq, "startup_s") / num(bfq, "startup_s");
    let share = num(bfq, "iteration_mb_per_s") / num(cfq, "iteration_mb_per_s");
    eprintln!("beside seq-readers: bfq {speedup:.1}x faster than cfq, at {share:.2} of cfq's aggregate");
    assert!(speedup >= 5.0, "bfq only {speedup:.2}x faster than cfq");
    assert!(share >= 0.7, "bfq's aggregate {share:.2} of cfq's");
}

#[test]
fn a_start_up_iteration_covers_the_pause_the_description_gives() {
    // The same run measured with no pause after the start-up gives the start-up's own aggregate; with a longer
    // pause, a larger share of the iteration is the background alone (which moves more than during a start-up).
    let with_pause = |pause: &str| {
        let v = run_changed("bfq-startup", "experiment.toml", "pause_s", pause, "bfq");
        let r = result(&v, "bfq", "background", "seq-readers");
        (num(r, "aggregate_mb_per_s"), num(r, "iteration_mb_per_s"))
    };
    let (startup, none) = with_pause("0");
    let (_, two) = with_pause("2");
    let (_, five) = with_pause("5");
    eprintln!("bfq beside seq-readers: start-up {startup:.1} MB/s; iteration with pause 0 s {none:.1}, 2 s {two:.1}, 5 s {five:.1}");
    assert!((none - startup).abs() < 0.05, "{none} against {startup}");
    assert!(startup < two && two < five, "{startup} {two} {five}");
}

#[test]
fn beside_writers_and_the_random_mix_cfq_starts_the_application_within_5x_of_an_idle_disk() {
    // The evidence for bfq-startup's "why" under its 5-14x figure beside the writers and the random mix: cfq's
    // own start-up there is under 5x the idle start-up, so no policy can start the application 5x faster than
    // cfq (it would have to beat the idle disk). When this fails, the "why" in experiment.toml is stale.
    let v = experiment_json("bfq-startup");
    let idle = num(&v, "idle_startup_s");
    for background in ["seq-writers", "random-mix"] {
        let cfq = num(result(&v, "cfq", "background", background), "startup_s");
        eprintln!("beside {background}: cfq {cfq:.2} s, {:.2}x the idle {idle:.2} s", cfq / idle);
        assert!(cfq < 5.0 * idle, "beside {background}: cfq {cfq:.2} s against idle {idle:.2} s");
    }
}

#[test]
fn bfq_starts_the_application_no_slower_than_cfq_beside_writers_and_beside_the_random_mix() {
    // Issue 31: BFQ's point is a low start-up under any background. With the seed's BFQ (at most 4 async
    // requests of a queue at the device while others are busy, as experiment.toml sets it) and a disk that serves
    // reads before destaging, bfq is no slower than cfq there (0.97 against 1.87 s, 1.51 against 6.54 s, with
    // bfq waiting at least 20 ms for a weight-raised queue as the kernel's does).
    let v = experiment_json("bfq-startup");
    for background in ["seq-writers", "random-mix"] {
        let startup = |p: &str| num(result(&v, p, "background", background), "startup_s");
        let (bfq, cfq) = (startup("bfq"), startup("cfq"));
        eprintln!("beside {background}: bfq {bfq:.2} s, cfq {cfq:.2} s");
        assert!(bfq <= cfq, "beside {background}: bfq {bfq:.2} s, cfq {cfq:.2} s");
    }
}

#[test]
fn dbload_says_whether_the_seed_order_holds() {
    let v = experiment_json("dbload");
    assert_eq!(v["seed_order"], serde_json::json!(["cfq", "as", "deadline"]));
    let times: Vec<(String, f64)> = ["cfq", "as", "deadline"]
        .iter()
        .map(|p| (p.to_string(), num(result(&v, p, "case", "import"), "load_s")))
        .collect();
    let holds = times[0].1 < times[1].1 && times[1].1 < times[2].1;
    assert_eq!(v["seed_order_holds"], holds, "{times:?}");
    // Each policy's import time against the figure recorded at seed 1, within twice its spread over seeds 1-5
    // (the experiment's `seed` set to 1..5 in an exported copy): a change of a model or a policy that moves a
    // figure shows here, and the README table is updated with it.
    // They moved when the import's jobs were coupled into one fio flow group (export reads, table writes and log
    // in step, as the seed's loaders were): as 43.8 -> 76.6, rr 49.5 -> 91.9, cfq 48.5 -> 53.5, bfq 47.4 -> 63.2,
    // deadline 79.4 -> 98.7, kyber 119.9 -> 98.9, noop 120.1 -> 99.4. bfq 63.2 -> 79.7 when its queues' think time
    // was sampled (a loader that waits for the database thinks long, so idling for it no longer boosts
    // throughput, as in bfq_bfqq_has_short_ttime); 79.7 -> 76.0 when bfq stopped injecting beside a queue idled on
    // for throughput (bfq_select_queue's idling_boosts_thr_without_issues test), seeds 1-5: 76.0, 74.6, 74.0,
    // 76.2, 75.4.
    for (policy, recorded_s, spread_s) in [
        ("as", 76.6, 0.8),
        ("rr", 91.9, 2.7),
        ("cfq", 53.5, 0.9),
        ("bfq", 76.0, 2.2),
        ("deadline", 98.7, 2.5),
        ("kyber", 98.9, 2.5),
        ("noop", 99.4, 3.0),
    ] {
        let got = num(result(&v, policy, "case", "import"), "load_s");
        assert!((got - recorded_s).abs() <= 2.0 * spread_s, "dbload {policy}: {got:.1} s against {recorded_s} s");
    }
    let out = iosched(&["experiment", "dbload", "--policies", "cfq,as,deadline"]);
    // The verdict is wrapped to the table width: compare with the line breaks folded.
    let text = String::from_utf8_lossy(&out.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains(if holds { "the seed's order holds" } else { "the seed's order does not hold" }), "{text}");
}

/// Issue 31's bound on dbload: the seed's order (cfq < as < deadline) on at least 3 of seeds 1-5, each seed run
/// from an exported copy whose experiment.toml names it.
#[test]
fn dbload_keeps_the_seed_order_on_most_seeds() {
    let mut holds = Vec::new();
    for seed in 1..=5 {
        let v = run_changed("dbload", "experiment.toml", "seed", &seed.to_string(), "cfq,as,deadline");
        let load = |p: &str| num(result(&v, p, "case", "import"), "load_s");
        let (cfq, as_, deadline) = (load("cfq"), load("as"), load("deadline"));
        eprintln!("seed {seed}: cfq {cfq:.1} s, as {as_:.1} s, deadline {deadline:.1} s");
        holds.push(cfq < as_ && as_ < deadline);
    }
    assert!(holds.iter().filter(|h| **h).count() >= 3, "the seed's order held on seeds {holds:?}");
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = iosched_test_data::scratch(&format!("exp-{name}"));
    let _ = std::fs::remove_dir(&dir);
    dir
}

#[test]
fn an_exported_experiment_runs_from_its_folder_and_bad_edits_are_one_line_errors() {
    let dir = temp_dir("export");
    let out = iosched(&["experiment", "geom-sched", "--export", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The copy runs, with a subset of its policies.
    let out = iosched(&["experiment", dir.to_str().unwrap(), "--policies", "noop,rr", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 2 * 5);

    let toml = dir.join("experiment.toml");
    let good = std::fs::read_to_string(&toml).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        ("device = \"hdd:sata7200,queue_depth=1\"", "device = 7", "experiment.toml"),
        ("label = \"rr\"", "label = \"rr\"\nset = [\"quantum_ms\"]", "key=value"),
        ("label = \"rr\"", "label = \"rr\"\nset = [\"quantum_ms=100000\"]", "quantum_ms"),
        ("label = \"rr\"", "label = \"no-such\"", "no-such"),
        ("jobs = [\"cvs.fio\"]", "jobs = [\"missing.fio\"]", "missing.fio"),
        ("jobs = [\"cvs.fio\"]", "jobs = [\"../cvs.fio\"]", "inside the folder"),
        ("stream = \"dd\"", "stream = \"dd\"\nspeed = 3", "speed"),
        ("interactive = \"cvs\"", "interactive = \"git\"", "'dd' or 'git'"),
        // A seed figure names a metric the measure reports, policies of the file, and a range.
        ("metric = \"stream_mb_per_s\"", "metric = \"stream_mbps\"", "did you mean 'stream_mb_per_s'?"),
        ("policy = \"rr\"\nmetric", "policy = \"gs_rr\"\nmetric", "policy 'gs_rr' is not one of the labels"),
        ("low = 25.5\nhigh = 34.5", "low = 34.5\nhigh = 25.5", "low 34.5 is above high 25.5"),
        ("low = 25.5\nhigh = 34.5", "", "expected low, high or both"),
        ("low = 25.5", "low = -1", "low and high expect numbers from 0"),
    ];
    for (from, to, wanted) in cases {
        assert!(good.contains(from), "{from}");
        std::fs::write(&toml, good.replacen(from, to, 1)).unwrap();
        let out = iosched(&["experiment", dir.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{to}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{to}: not one line:\n{err}");
        assert!(err.contains(wanted), "{to}: wanted '{wanted}' in {err}");
        if wanted.contains("mb_per_s") || wanted.contains("labels") || wanted.contains("above") {
            // The line of the figure is named.
            assert!(err.contains("experiment.toml:"), "{to}: no line in {err}");
        }
    }
    std::fs::write(&toml, &good).unwrap();
    std::fs::write(dir.join("cvs.fio"), "[cvs]\nrw=sideways\n").unwrap();
    let out = iosched(&["experiment", dir.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cvs.fio:2"), "the job file's line: {err}");
    for args in [&["experiment", "no-such-experiment"][..], &["experiment", "geom-sched", "--policies", "zz"]] {
        let out = iosched(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_experiments_table_fits_100_columns() {
    for name in ["geom-sched", "netflix-fill", "bfq-startup", "dbload"] {
        let out = iosched(&["experiment", name]);
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        for line in text.lines() {
            assert!(line.chars().count() <= 100, "{name}: a line of {} columns:\n{line}", line.chars().count());
        }
    }
}

#[test]
fn sweep_runs_the_grid_as_json_lines() {
    let dir = temp_dir("sweep");
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.join("mix.fio");
    std::fs::write(
        &job,
        "[r]\nrw=randread\nnumber_ios=300\n[w]\nrw=write\nbs=64k\niodepth=8\nioengine=libaio\nnumber_ios=300\n",
    )
    .unwrap();
    let args = [
        "sweep",
        job.to_str().unwrap(),
        "--policies",
        "noop,deadline",
        "--grid",
        "fifo_batch=1,16",
        "--device",
        "hdd:sata7200",
        "--device",
        "simple",
        "--json",
    ];
    let out = iosched(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // 2 devices x (noop once + deadline at two fifo_batch values).
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[1]["settings"], serde_json::json!(["fifo_batch=1"]));
    assert_eq!(lines[3]["device"], "simple");
    assert!(lines.iter().all(|l| l["jobs"].as_array().unwrap().len() == 2));
    assert_eq!(iosched(&args).stdout, out.stdout, "a sweep is deterministic");
    let table = iosched(&args[..args.len() - 1]);
    assert!(String::from_utf8_lossy(&table.stdout).contains("6 points"));
    // A grid key none of the policies has is an error (before anything runs), not a sweep over nothing.
    let mut typo = args;
    typo[5] = "fifo_bach=1,16";
    let out = iosched(&typo);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--grid fifo_bach: none of the policies swept has this tunable; did you mean 'fifo_batch'?")
            && err.contains("noop: none; deadline: read_expire"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Chromium, which .ci/run installs; elsewhere the test says loudly that it skips.
fn chromium() -> Option<PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// How many pixels of the PNG have the colour (within a small tolerance).
fn pixels_of_colour(png_path: &Path, rgb: [u8; 3]) -> usize {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png_path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    buf[..info.buffer_size()]
        .chunks(channels)
        .filter(|p| p.len() >= 3 && (0..3).all(|i| p[i].abs_diff(rgb[i]) <= 24))
        .count()
}

/// Headless Chromium's screenshot of `html` into `png`; the page must log no errors.
fn screenshot(browser: &Path, html: &Path, png: &Path, profile: &Path) {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            &format!("--user-data-dir={}", profile.display()),
            "--window-size=1200,3000",
            &format!("--screenshot={}", png.display()),
            &format!("file://{}", html.display()),
        ])
        .output()
        .expect("run chromium");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "chromium failed: {log}");
    let page_errors: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE") || l.contains("Uncaught")).collect();
    assert!(page_errors.is_empty(), "the page logged errors: {page_errors:?}");
    assert!(png.exists(), "no screenshot: {log}");
}

/// The `<svg class="plot" ...>...</svg>` elements of a page, in order.
fn plots(page: &str) -> Vec<&str> {
    page.match_indices("<svg class=\"plot\"")
        .map(|(at, _)| &page[at..at + page[at..].find("</svg>").expect("a closed svg") + 6])
        .collect()
}

fn plot_title(svg: &str) -> &str {
    let at = svg.find("<title>").unwrap() + 7;
    &svg[at..at + svg[at..].find("</title>").unwrap()]
}

/// Each experiment's report, as a reader sees it: rendered by headless Chromium (the screenshots are kept in
/// IOSCHED_SCREENSHOTS when it is set), and read as SVG: latency over time on a log axis, at most four lines a
/// plot, no plot without data, the seed's figures drawn on the bars they speak of and a verdict for each.
#[test]
fn every_experiments_report_tells_its_story_in_headless_chromium() {
    let Some(browser) = chromium() else {
        iosched_test_data::skip("no Chromium found (/usr/bin/chromium); .ci/run installs it with apt-get");
        return;
    };
    let dir = temp_dir("html");
    std::fs::create_dir_all(&dir).unwrap();
    let keep = std::env::var_os("IOSCHED_SCREENSHOTS").map(PathBuf::from);
    for name in ["geom-sched", "netflix-fill", "bfq-startup", "dbload"] {
        let html = dir.join(format!("{name}.html"));
        let Run { json, html: page } = experiment_run(name);
        std::fs::write(&html, &page).unwrap();
        // Nothing to fetch: the only URL in the page is the SVG namespace.
        assert!(!page.replace("http://www.w3.org/2000/svg", "").contains("http"), "{name}: refers to the network");
        let svgs = plots(&page);
        assert!(svgs.len() >= 4, "{name}: {} plots", svgs.len());
        for svg in &svgs {
            let title = plot_title(svg);
            let lines = svg.matches("<polyline class=\"series\"").count();
            let bars = svg.matches("<rect class=\"bar\"").count();
            assert!(lines + bars > 0, "{name}: an empty plot: {title}");
            assert!(lines <= 4, "{name}: {lines} lines in one plot: {title}");
            if title.contains("latency per interval") {
                assert!(svg.contains("data-scale=\"log\""), "{name}: {title} on a linear axis");
            }
        }
        // Every seed figure has a verdict row, and every absolute one a band on its bar.
        let figures = json["seed_figures"].as_array().expect("seed_figures");
        assert!(!figures.is_empty(), "{name}: no seed figures");
        let rows = page.matches("<tr class=\"holds\">").count() + page.matches("<tr class=\"fails\">").count();
        assert_eq!(rows, figures.len(), "{name}: a verdict per seed figure");
        let absolute = figures.iter().filter(|f| f.get("relative_to").is_none()).count();
        assert!(page.matches("<rect class=\"seed\"").count() >= absolute, "{name}: seed figures not drawn");
        // A figure that does not hold shows why, where experiment.toml says it (issue 31: a departure is a
        // finding once it is explained).
        for f in figures.iter().filter(|f| f["holds"] == false && f.get("why").is_some()) {
            let why = f["why"].as_str().unwrap().trim();
            let start: String = why.chars().take(40).collect();
            assert!(page.contains(&escape_html(&start)), "{name}: the page lacks the why of {}", f["says"]);
        }
        let shot = dir.join(format!("{name}.png"));
        screenshot(&browser, &html, &shot, &dir.join("profile"));
        // The first policy's colour (blue) is on screen: the plots drew.
        let blue = pixels_of_colour(&shot, [0x1f, 0x77, 0xb4]);
        assert!(blue > 500, "{name}: plots not drawn ({blue} blue pixels)");
        if let Some(keep) = &keep {
            std::fs::create_dir_all(keep).unwrap();
            std::fs::copy(&shot, keep.join(format!("{name}.png"))).unwrap();
        }
    }
    // A read-only case has no write plot, and a case without the watched job no latency plot.
    let page = std::fs::read_to_string(dir.join("geom-sched.html")).unwrap();
    let dd_read = &page[page.find("<h2>Case dd-read</h2>").unwrap()..page.find("<h2>Case dd-write</h2>").unwrap()];
    let titles: Vec<&str> = plots(dd_read).into_iter().map(plot_title).collect();
    assert!(titles.iter().all(|t| !t.starts_with("Write") && !t.contains("latency")), "{titles:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An exported copy of a built-in experiment with one line of one file changed (a job file's `key=value`, or
/// experiment.toml's `key = value`), run for `policies`.
fn run_changed(name: &str, file: &str, key: &str, value: &str, policies: &str) -> Value {
    let dir = temp_dir(&format!("sweep-{name}-{key}-{value}"));
    let out = iosched(&["experiment", name, "--export", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let sets = |l: &str| l.strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('='));
    assert!(text.lines().any(sets), "{file} sets {key}");
    let changed: String =
        text.lines().map(|l| if sets(l) { format!("{key}={value}\n") } else { format!("{l}\n") }).collect();
    std::fs::write(&path, changed).unwrap();
    let out = iosched(&["experiment", dir.to_str().unwrap(), "--json", "--policies", policies]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn bfq_startups_gain_holds_only_at_think_times_between_cfqs_idle_window_and_bfqs() {
    // scripts/experiment-sweeps.sh prints the whole sweep. The figures reached (3.29, 3.15, 11.75, 2.45), each
    // within 10 %: the experiment is deterministic at its seed, and 10 % is about what its seeds move cfq's and
    // bfq's start-up (dbload's spreads are 1-7 %). They were 2.65, 2.90, 11.28, 2.20 before bfq's budgets and
    // peak rate followed bfq-iosched.c (per-dispatch peak-rate estimate, 2 x min_budget for raised queues, no
    // idling for throughput while raised queues are busy) and the application started after the background's
    // raising (15 s, as the S suite waits). They were 2.68, 2.93, 11.39, 6.20 before the experiment's bfq
    // stopped preempting (preempt=0, as the seed's BFQ): an application that thinks 30 ms, longer than bfq waits
    // for a raised queue (20 ms), loses the disk at every pause and then waits for the reader's turn to end.
    // Before that, 2.68, 2.93, 8.28, 6.78 until bfq waited at least 20 ms for a weight-raised queue, as the
    // kernel's bfq_arm_slice_timer does; earlier still, 2.98, 3.22, 6.82, 6.17, before bfq's injection counted
    // every request at the device, as the kernel's does. So the gain holds from think times above cfq's idle
    // window (8 ms) up to bfq's own (20 ms).
    for (think, at_least, below) in
        [("3ms", 2.96, 3.62), ("7ms", 2.84, 3.47), ("10ms", 10.58, 12.93), ("30ms", 2.21, 2.70)]
    {
        let v = run_changed("bfq-startup", "app.fio", "thinktime", think, "bfq,cfq");
        let startup = |p: &str| num(result(&v, p, "background", "seq-readers"), "startup_s");
        let ratio = startup("cfq") / startup("bfq");
        eprintln!("think {think}: cfq/bfq {ratio:.2}");
        assert!((at_least..below).contains(&ratio), "think {think}: cfq/bfq {ratio:.2}");
    }
}

#[test]
fn a_seed_figure_that_does_not_hold_says_why_where_that_is_known() {
    // geom-sched's rr: dd 14 MB/s does not hold, and experiment.toml says why: the text report prints it under
    // the verdict, and the JSON carries it.
    let out = iosched(&["experiment", "geom-sched", "--policies", "noop,rr"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    let verdict = "seed figure \"rr: dd 14 MB/s\": iosched";
    let at = text.find(verdict).expect("the figure's line");
    let after = &text[at..];
    assert!(after.contains("does not hold why: gs_rr's own rules"), "{}", &after[..after.len().min(300)]);
    let v = experiment_json("geom-sched");
    let figure = v["seed_figures"].as_array().unwrap().iter().find(|f| f["says"] == "rr: dd 14 MB/s").unwrap();
    assert!(figure["why"].as_str().unwrap().contains("gs_rr.c"), "{figure}");
    // A figure that holds prints no why (noop's dd 55 MB/s beside cvs has none anyway).
    assert_eq!(text.matches("why:").count(), 2, "two figures of geom-sched that do not hold say why: {text}");
}

#[test]
fn rr_leaves_a_writing_dd_half_its_rate_even_beside_a_cvs_that_takes_whole_turns() {
    // Issue 31 item 0, the evidence for geom-sched's "why" under "rr: dd 14 MB/s": gs_rr gives each queue about
    // 100 ms a round (quantum_ms) and one cvs queue at most its 100 ms plus its last request and a 10 ms wait,
    // so dd keeps at least 100/210 of its rate alone however greedy cvs is. A cvs that reads sequentially (never
    // seeks far, so gs_rr always waits for it and it keeps every turn whole) is the greediest one queue can be.
    let v = run_changed("geom-sched", "cvs.fio", "rw", "read", "rr");
    let dd = |case: &str| num(result(&v, "rr", "case", case), "dd_mb_per_s");
    let (alone, beside) = (dd("dd-write"), dd("dd-write+cvs"));
    eprintln!("rr, dd writing: {alone:.1} MB/s alone, {beside:.1} beside a sequential cvs");
    assert!(beside >= alone * 100.0 / 210.0, "dd {beside:.1} MB/s beside cvs, {alone:.1} alone");
    assert!(beside > 16.1, "dd {beside:.1} MB/s: inside the seed's 14 MB/s (11.9-16.1) after all");
}

#[test]
fn rr_halves_dd_and_keeps_cvs_ok_only_when_cvs_seeks_rarely() {
    // Issue 31 item 0, over cvs's locality (cvs.fio: a long seek every 128 reads). gs_rr keeps a queue that ran
    // dry only while its mean seek distance is at most 8 KiB, so a cvs that seeks far every few reads loses its
    // turn at each seek: dd keeps most of the disk and cvs is many times slower than alone. From a seek every
    // 128 reads on, cvs keeps its slice: dd 20-40 MB/s (the seed: 30) and cvs at most 3x slower (the seed: ok).
    // Reached: every 8 reads dd 54.6 MB/s, cvs 34.9x; every 128, 32.5 MB/s, 2.37x; every 1024, 33.5, 2.3x.
    for (run, holds) in [("8", false), ("128", true), ("1024", true)] {
        let v = run_changed("geom-sched", "cvs.fio", "rw", &format!("randread:{run}"), "noop,rr");
        let r = |p: &str, case: &str| result(&v, p, "case", case).clone();
        let (dd, slowdown) =
            (num(&r("rr", "dd-read+cvs"), "dd_mb_per_s"), num(&r("rr", "dd-read+cvs"), "cvs_slowdown"));
        eprintln!("a long seek every {run} reads: rr dd {dd:.1} MB/s, cvs {slowdown:.2}x slower than alone");
        assert_eq!((20.0..=40.0).contains(&dd) && slowdown <= 3.0, holds, "every {run}: dd {dd}, cvs {slowdown}x");
        assert!(dd >= 4.0 * num(&r("noop", "dd-read+cvs"), "dd_mb_per_s"), "every {run}: rr's dd against noop's");
    }
}

#[test]
fn benchmarks_table_of_seed_figures_says_what_the_experiments_give_today() {
    // BENCHMARKS.md's "Every seed figure" (scripts/seed-figures.sh prints it): each figure's verdict must be
    // today's, so that a change that moves one is seen and the table re-measured.
    let table = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../BENCHMARKS.md")).unwrap();
    let mut rows = 0;
    for name in ["geom-sched", "netflix-fill", "bfq-startup", "dbload"] {
        let v = experiment_json(name);
        for f in v["seed_figures"].as_array().unwrap() {
            let verdict = match f["holds"].as_bool() {
                Some(true) => "holds",
                Some(false) => "does not hold",
                None => "not run",
            };
            let start = format!("| {name} | {} | {} |", f["case"].as_str().unwrap(), f["says"].as_str().unwrap());
            let line = table.lines().find(|l| l.starts_with(&start));
            let line =
                line.unwrap_or_else(|| panic!("BENCHMARKS.md has no row for {start}: run scripts/seed-figures.sh"));
            assert!(line.ends_with(&format!("| {verdict} |")), "BENCHMARKS.md says {line}; today: {verdict}");
            rows += 1;
        }
    }
    assert!(rows >= 30, "{rows} seed figures");
}

/// Text as the HTML report escapes it.
fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
