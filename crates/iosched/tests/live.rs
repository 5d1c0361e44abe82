//! `iosched run`: fio job files live, through io_uring to a real file, with the same reports as `iosched sim`.
//! The files live under the build's target directory (a real file system, so O_DIRECT usually works there;
//! where it does not, the run falls back to buffered I/O and says so).

use serde_json::Value;
use std::os::fd::AsRawFd;
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
        iosched_test_data::skip(&format!("io_uring is not available here ({})", err.trim()));
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

/// The dd+cvs numbers of a geom-sched run (`iosched run` or `iosched sim` JSON): dd's MB/s and cvs's reads/s.
fn dd_and_cvs(v: &Value) -> (f64, f64) {
    let job = |name: &str| v["jobs"].as_array().unwrap().iter().find(|j| j["jobname"] == name).unwrap().clone();
    (job("dd")["read"]["bw_bytes"].as_f64().unwrap() / 1e6, job("cvs")["read"]["iops"].as_f64().unwrap())
}

#[test]
fn an_emulated_disk_gives_the_simulated_throughput() {
    if !io_uring_available() {
        return;
    }
    // geom-sched's dd-read+cvs case (scripts/live-emulate-geom.sh runs it for 20 s per policy): live on a sparse
    // file as large as the model with --emulate, dd's MB/s and cvs's reads per second must be the simulated run's.
    // Emulation holds the model's sequence of events whatever the host does: a completion and an engine timer
    // happen at their emulated times however late the thread wakes, and a late real I/O stalls the emulated
    // clock instead of leaving the model idle (before both, a loaded host made noop's dd up to 68 % faster live
    // and rr's cvs 27 % slower). So the bound is 1 %, the end of a 3 s run falling a request either way.
    let d = dir("emulate");
    let disk = d.join("disk.img");
    std::fs::File::create(&disk).unwrap().set_len(300 << 30).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/geom-sched");
    let jobs = [root.join("dd-read.fio"), root.join("cvs.fio")];
    let device = "hdd:sata7200,queue_depth=1";
    for policy in ["noop", "rr"] {
        let mut args = vec!["sim"];
        args.extend(jobs.iter().map(|p| p.to_str().unwrap()));
        args.extend(["--device", device, "--policy", policy, "--runtime", "3", "--json"]);
        let sim = iosched(&args);
        assert!(sim.status.success(), "{}", String::from_utf8_lossy(&sim.stderr));
        let sim: Value = serde_json::from_slice(&sim.stdout).unwrap();
        let live = run_json(
            &jobs[0],
            &[
                jobs[1].to_str().unwrap(),
                "--target",
                disk.to_str().unwrap(),
                "--emulate",
                device,
                "--policy",
                policy,
                "--runtime",
                "3",
            ],
        );
        let ((sim_dd, sim_cvs), (live_dd, live_cvs)) = (dd_and_cvs(&sim), dd_and_cvs(&live));
        eprintln!("{policy}: dd live {live_dd:.2} MB/s, simulated {sim_dd:.2}; cvs live {live_cvs:.1}/s, {sim_cvs:.1}");
        let stats = &live["iosched"]["device"];
        assert!(
            (live_dd / sim_dd - 1.0).abs() <= 0.01 && (live_cvs / sim_cvs - 1.0).abs() <= 0.01,
            "{policy}: dd live {live_dd} MB/s vs simulated {sim_dd}, cvs {live_cvs}/s vs {sim_cvs}; live device \
             {stats}; simulated device {}",
            sim["iosched"]["device"]
        );
        assert!(stats["spec"].as_str().unwrap().starts_with("emulate:hdd:sata7200"), "{stats}");
        assert_eq!(stats["completed"], live["iosched"]["requests_completed"], "{stats}");
    }
}

#[test]
fn emulation_counts_real_io_that_finishes_after_the_model() {
    if !io_uring_available() {
        return;
    }
    // A model that finishes in 1 us: every real write-and-fsync takes longer, so most requests are late, and
    // each then completes when the real I/O does.
    let d = dir("late");
    let job = d.join("late.fio");
    std::fs::write(&job, "[w]\nfilename=t.dat\nsize=1m\nrw=randwrite\nbs=4k\nfsync=1\nnumber_ios=200\n").unwrap();
    let v = run_json(&job, &["--emulate", "simple,latency_us=1,flush_us=1,queue_depth=1,capacity_gib=1"]);
    let stats = &v["iosched"]["device"];
    let late = stats["late_requests"].as_u64().unwrap();
    assert!(late >= 200, "200 writes and 200 fsyncs, late {late}: {stats}");
    assert!(stats["late_mean_us"].as_f64().unwrap() > 1.0, "{stats}");
    assert_eq!(v["iosched"]["requests_completed"], 400, "{stats}");
}

#[test]
fn switching_policies_under_live_load_loses_no_write() {
    if !io_uring_available() {
        return;
    }
    // fio-style verification: four writers each write their own 4 MiB sequentially (16 KiB at a time, 8 in
    // flight, paced to last about 1.5 s) beside two random readers, while the policy changes every 100 ms. Every
    // word of every written block must then hold its own offset (each write carries its offsets), so a write that
    // was lost, misplaced or torn in a hand-over shows.
    let d = dir("switch");
    let job = d.join("switch.fio");
    std::fs::write(
        &job,
        "[global]\nfilename=t.dat\ndirect=1\nioengine=io_uring\n\
         [writers]\nrw=write\nbs=16k\niodepth=8\nsize=4m\nnumjobs=4\noffset_increment=4m\nrate=3m\n\
         [readers]\nrw=randread\nbs=4k\niodepth=8\nsize=16m\nnumjobs=2\ntime_based\nruntime=1500ms\n",
    )
    .unwrap();
    let cycle = ["bfq", "deadline", "cfq", "kyber", "cam", "rr", "as", "elevator", "noop"];
    let switches: Vec<String> = (1..=12).map(|i| format!("{}ms:{}", 100 * i, cycle[i % cycle.len()])).collect();
    let mut extra = vec!["--policy", "noop"];
    for s in &switches {
        extra.extend(["--switch-at", s]);
    }
    let v = run_json(&job, &extra);
    let iosched = &v["iosched"];
    assert_eq!(iosched["policy_switches"], 12, "every switch happened under load: {iosched}");
    assert_eq!(iosched["requests_completed"], iosched["requests_submitted"], "{iosched}");
    for j in v["jobs"].as_array().unwrap() {
        assert_eq!(j["error"], 0, "{j}");
    }
    let written: u64 = v["jobs"].as_array().unwrap().iter().map(|j| j["write"]["io_bytes"].as_u64().unwrap()).sum();
    assert_eq!(written, 16 << 20, "each writer wrote its 4 MiB");
    let data = std::fs::read(d.join("t.dat")).unwrap();
    assert_eq!(data.len(), 16 << 20);
    let bad =
        data.chunks_exact(8).enumerate().filter(|(i, w)| u64::from_le_bytes((*w).try_into().unwrap()) != 8 * *i as u64);
    let bad: Vec<usize> = bad.map(|(i, _)| i * 8).take(5).collect();
    assert!(bad.is_empty(), "words not holding their offset, first at bytes {bad:?}");
}

/// A real file that claims twice its size: a request past the file's end is a real one, and the kernel ends it
/// short (a read at the end of a file or block device returns 0 bytes), which must fail that request alone.
struct PastTheEnd(iosched_live::UringDevice);

impl iosched_device::Device for PastTheEnd {
    fn describe(&self) -> String {
        self.0.describe()
    }
    fn queue_depth(&self) -> u32 {
        self.0.queue_depth()
    }
    fn capacity_bytes(&self) -> u64 {
        2 * self.0.capacity_bytes()
    }
    fn submit(&mut self, now_ns: u64, tag: u32, req: &iosched_core::request::Request) {
        self.0.submit(now_ns, tag, req)
    }
    fn next_event_ns(&self) -> Option<u64> {
        self.0.next_event_ns()
    }
    fn advance(&mut self, now_ns: u64, completed: &mut Vec<iosched_device::Completion>) {
        self.0.advance(now_ns, completed)
    }
    fn stats(&self) -> Vec<(String, iosched_core::policy::StatValue)> {
        self.0.stats()
    }
    fn is_live(&self) -> bool {
        true
    }
    fn wait(&mut self, until_ns: Option<u64>) -> u64 {
        self.0.wait(until_ns)
    }
}

#[test]
fn an_io_error_fails_only_its_own_request() {
    if !io_uring_available() {
        return;
    }
    let d = dir("errors");
    let file = d.join("t.dat");
    std::fs::write(&file, vec![0u8; 4 << 20]).unwrap();
    // Random 4 KiB reads over 8 MiB of which the file holds the first 4, beside random writes inside it: the reads
    // past its end, and only they, fail with EIO as they complete, interleaved with the others, through policies
    // that hold and reorder requests.
    let jobs = iosched_workload::fio::parse_str(
        "[global]\nioengine=io_uring\ndirect=1\nnumber_ios=1500\nbs=4k\n\
         [r]\nrw=randread\niodepth=16\n[w]\nrw=randwrite\niodepth=4\nsize=4m\n",
        "errors.fio",
    )
    .unwrap();
    let workload = iosched_sim::Workload::from_jobs(&jobs);
    for policy in ["noop", "bfq", "kyber"] {
        let real = iosched_live::UringDevice::open(&file, 20, true).unwrap();
        let config = iosched_sim::SimConfig { seed: 7, record_log: true };
        let policy_box = iosched_core::registry::create(policy).unwrap();
        let out = iosched_sim::simulate(&workload, policy_box, Box::new(PastTheEnd(real)), Vec::new(), &config)
            .expect("the run ends");
        assert_eq!(out.log.len(), 3000, "{policy}");
        let (mut failed, mut past_end) = (0, 0);
        for e in &out.log {
            let r = &e.req;
            assert_ne!(r.completed_ns, u64::MAX, "{policy}: request {:?} never completed", r.id);
            let beyond = r.offset_bytes >= 4 << 20;
            past_end += beyond as u32;
            failed += (r.error != 0) as u32;
            assert_eq!(r.error, if beyond { libc_eio() } else { 0 }, "{policy}: {r:?}");
        }
        assert!(past_end > 500, "{policy}: about half the reads are past the end ({past_end})");
        let stats: std::collections::HashMap<_, _> = out.result.device_stats.iter().cloned().collect();
        assert_eq!(stats["errors"], iosched_core::policy::StatValue::Count(failed as u64), "{policy}: counted");
        assert_eq!(out.result.requests_completed, 3000, "{policy}");
        // The report names the errno, as fio's "error" does.
        assert_eq!(out.result.jobs[0].directions[0].first_errno, libc_eio(), "{policy}: the reader's");
        assert_eq!(out.result.jobs[1].directions[1].first_errno, 0, "{policy}: the writer had none");
        let json = iosched_report::fio_json::to_value(&out.result);
        assert_eq!(json["jobs"][0]["error"], libc_eio(), "{policy}");
        assert_eq!(json["jobs"][1]["error"], 0, "{policy}");
    }
}

/// EIO on Linux.
fn libc_eio() -> i32 {
    5
}

/// Poll `iosched stats TARGET --json` until the run answers (its control socket is up).
fn stats_when_up(target: &Path) -> Value {
    for _ in 0..100 {
        let out = iosched(&["stats", target.to_str().unwrap(), "--json"]);
        if out.status.success() {
            return serde_json::from_slice(&out.stdout).expect("stats JSON");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the run's control socket never answered");
}

/// `top` on a terminal (a pseudo-terminal here) ends when q is typed, and leaves the terminal as it found it.
fn top_on_a_terminal_quits_on_q(target: &Path) {
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty fills the two descriptors; the other arguments may be null.
    let made =
        unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null()) };
    assert_eq!(made, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: new descriptors we own.
    let (mut master, slave) = unsafe { (std::fs::File::from_raw_fd(master), std::fs::File::from_raw_fd(slave)) };
    let mut before: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: reading the settings of a descriptor we own into a termios we own.
    assert_eq!(unsafe { libc::tcgetattr(slave.as_raw_fd(), &mut before) }, 0);
    let mut top = Command::new(env!("CARGO_BIN_EXE_iosched"))
        .args(["top", target.to_str().unwrap(), "--interval", "0.2"])
        .stdin(slave.try_clone().unwrap())
        .stdout(slave.try_clone().unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Drain the screens, so that top never blocks on a full terminal.
    let mut reader = master.try_clone().unwrap();
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    std::thread::sleep(std::time::Duration::from_millis(600));
    assert!(top.try_wait().unwrap().is_none(), "top ended before q");
    std::io::Write::write_all(&mut master, b"q").unwrap();
    let asked = std::time::Instant::now();
    let status = loop {
        if let Some(status) = top.try_wait().unwrap() {
            break status;
        }
        assert!(asked.elapsed().as_secs() < 3, "top did not quit on q");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    let mut after: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    assert_eq!(unsafe { libc::tcgetattr(slave.as_raw_fd(), &mut after) }, 0);
    assert_eq!(after.c_lflag, before.c_lflag, "top left the terminal in another mode");
}

#[test]
fn a_running_engine_is_reconfigured_and_reports_through_its_socket_and_stops_cleanly_on_ctrl_c() {
    if !io_uring_available() {
        return;
    }
    let d = dir("control");
    let job = d.join("long.fio");
    std::fs::write(
        &job,
        "[global]\nfilename=t.dat\nsize=16m\ndirect=1\nioengine=io_uring\ntime_based\nruntime=60\n\
         [r]\nrw=randread\nbs=4k\niodepth=8\n[w]\nrw=randwrite\nbs=16k\niodepth=2\n",
    )
    .unwrap();
    let target = d.join("t.dat");
    let run = Command::new(env!("CARGO_BIN_EXE_iosched"))
        .args(["run", job.to_str().unwrap(), "--json", "--policy", "noop"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Stats: the report so far, in the final report's schema.
    let so_far = stats_when_up(&target);
    assert_eq!(so_far["iosched"]["policy"], "noop", "{so_far}");
    assert_eq!(so_far["time"], "real");
    assert_eq!(so_far["jobs"].as_array().unwrap().len(), 2);
    // Configure: a switch with settings for the new policy, then a tunable of the running one.
    let out = iosched(&["configure", target.to_str().unwrap(), "--policy", "deadline", "--set", "fifo_batch=4"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("policy deadline") && said.contains("fifo_batch=4"), "{said}");
    let out = iosched(&["configure", target.to_str().unwrap(), "--set", "fifo_batch=8"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("fifo_batch=8"), "{out:?}");
    // Bad requests are refused with the engine's reason and exit 2; the run goes on.
    let out = iosched(&["configure", target.to_str().unwrap(), "--set", "no_such=1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown tunable 'no_such'"), "{out:?}");
    // Settings are applied all or none: the good one before a bad one is put back.
    let out = iosched(&["configure", target.to_str().unwrap(), "--set", "fifo_batch=2", "--set", "no_such=1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no setting was applied"), "{out:?}");
    let out = iosched(&["configure", target.to_str().unwrap(), "--set", "writes_starved=2"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("fifo_batch=8") && said.contains("writes_starved=2"), "{said}");
    let out = iosched(&["configure", target.to_str().unwrap(), "--policy", "no_such"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown policy"), "{out:?}");
    let now = stats_when_up(&target);
    assert_eq!(now["iosched"]["policy"], "deadline", "{now}");
    // Top: one screen, both jobs moving data, and no more requests outstanding than each job's iodepth.
    let out = iosched(&["top", target.to_str().unwrap(), "--interval", "0.3", "--count", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(screen.contains(": deadline on "), "{screen}");
    for (job, read_col, depth) in [("r ", 2, 8), ("w ", 3, 2)] {
        let cells: Vec<&str> = screen.lines().find(|l| l.starts_with(job)).expect(&screen).split_whitespace().collect();
        assert!(cells[read_col].parse::<f64>().unwrap() > 0.0, "{job}moves data: {cells:?}");
        let outstanding: u32 = cells[6].parse::<u32>().unwrap() + cells[7].parse::<u32>().unwrap();
        assert!(outstanding <= depth, "{job}has at most {depth} requests out: {cells:?}");
    }
    assert_eq!(now["iosched"]["policy_switches"], 1);
    top_on_a_terminal_quits_on_q(&target);
    // Ctrl-C: the jobs stop issuing, what was issued completes, the report prints, exit 130.
    let stopped = Command::new("kill").args(["-INT", &run.id().to_string()]).status().unwrap();
    assert!(stopped.success());
    let started = std::time::Instant::now();
    let out = run.wait_with_output().unwrap();
    assert!(started.elapsed().as_secs() < 5, "stopping took {:?}", started.elapsed());
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let end: Value = serde_json::from_slice(&out.stdout).expect("the report after Ctrl-C");
    assert_eq!(end["iosched"]["requests_completed"], end["iosched"]["requests_submitted"], "{}", end["iosched"]);
    assert_eq!(end["iosched"]["policy"], "deadline");
    assert!(end["iosched"]["elapsed_ns"].as_u64().unwrap() < 30_000_000_000, "stopped early");
    // Rates are over the time the jobs ran, not the 60 s they planned: IOPS = I/Os / runtime.
    let elapsed_ms = end["iosched"]["elapsed_ns"].as_f64().unwrap() / 1e6;
    for j in end["jobs"].as_array().unwrap() {
        let runtime_ms = j["job_runtime"].as_f64().unwrap();
        assert!(runtime_ms > 0.0 && runtime_ms <= elapsed_ms + 1.0, "runtime {runtime_ms} ms of {elapsed_ms}: {j}");
        let dir = if j["read"]["total_ios"].as_u64().unwrap() > 0 { "read" } else { "write" };
        let (ios, iops) = (j[dir]["total_ios"].as_f64().unwrap(), j[dir]["iops"].as_f64().unwrap());
        assert!(
            (iops / (ios / (runtime_ms / 1e3)) - 1.0).abs() < 0.01,
            "{dir}: {iops} IOPS from {ios} in {runtime_ms} ms"
        );
    }
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted after"), "{out:?}");
    // The socket is gone with the run.
    let out = iosched(&["stats", target.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "nothing running there is bad input");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no iosched engine is running on"), "{out:?}");
}

#[test]
fn a_block_device_is_a_target_too() {
    if !io_uring_available() {
        return;
    }
    // A loop device over a 32 MiB file (needs root and losetup; skipped loudly without them).
    let d = dir("block");
    let backing = d.join("backing.img");
    std::fs::File::create(&backing).unwrap().set_len(32 << 20).unwrap();
    let attach = Command::new("losetup").args(["-f", "--show", backing.to_str().unwrap()]).output();
    let device = match attach {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        other => {
            iosched_test_data::skip(&format!("cannot attach a loop device here ({other:?})"));
            return;
        }
    };
    let job = d.join("block.fio");
    std::fs::write(&job, "[rw]\nrw=randrw\nbs=4k\ndirect=1\nioengine=io_uring\niodepth=8\nnumber_ios=4000\n").unwrap();
    let out = iosched(&["run", job.to_str().unwrap(), "--target", &device, "--policy", "bfq", "--json"]);
    let _ = Command::new("losetup").args(["-d", &device]).status();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let iosched = &v["iosched"];
    assert_eq!(iosched["requests_completed"], 4000, "{iosched}");
    assert_eq!(iosched["device"]["errors"], 0, "{iosched}");
    // The report names the device.
    assert!(iosched["device"]["spec"].as_str().unwrap().starts_with(&format!("live:{device}")), "{iosched}");
}

/// Attach `file` to a free loop device as root; None (after saying so loudly) where that cannot be done.
fn loop_device(file: &Path) -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        iosched_test_data::skip("loop devices need root");
        return None;
    }
    match Command::new("losetup").args(["--find", "--show", file.to_str().unwrap()]).output() {
        Ok(out) if out.status.success() => Some(String::from_utf8_lossy(&out.stdout).trim().to_string()),
        Ok(out) => {
            iosched_test_data::skip(&format!("losetup refused: {}", String::from_utf8_lossy(&out.stderr).trim()));
            None
        }
        Err(e) => {
            iosched_test_data::skip(&format!("no losetup ({e})"));
            None
        }
    }
}

/// The device spec a live run reports, and cfq's idle waits in it.
fn spec_and_idle_waits(v: &Value) -> (String, u64) {
    let spec = v["iosched"]["device"]["spec"].as_str().unwrap_or_default().to_string();
    (spec, v["iosched"]["policy_stats"]["idle_waits"].as_u64().unwrap_or(0))
}

/// Live policies are told what the kernel says of the target: a loop device marked rotational makes cfq idle
/// for a sequential reader's next request, as the kernel's would; marked non-rotational, it never idles.
/// `--rotational` overrides, and the report says which was used.
#[test]
fn live_policies_see_the_targets_rotational_flag() {
    if !io_uring_available() {
        return;
    }
    let d = dir("rotational");
    let backing = d.join("backing.img");
    std::fs::File::create(&backing).unwrap().set_len(64 << 20).unwrap();
    let Some(device) = loop_device(&backing) else { return };
    let name = device.trim_start_matches("/dev/").to_string();
    let flag = PathBuf::from(format!("/sys/block/{name}/queue/rotational"));
    let job = d.join("seq.fio");
    std::fs::write(&job, "[seq]\nrw=read\nbs=4k\nsize=8m\ndirect=1\nthinktime=200\nnumber_ios=400\n").unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["--target", device.as_str(), "--policy", "cfq"];
        args.extend_from_slice(extra);
        spec_and_idle_waits(&run_json(&job, &args))
    };
    let mut seen = Vec::new();
    for rotational in ["1", "0"] {
        std::fs::write(&flag, rotational).unwrap();
        seen.push((rotational, run(&[])));
    }
    let forced = run(&["--rotational", "1"]);
    let _ = Command::new("losetup").args(["-d", &device]).status();
    let ((_, (spec_rot, idle_rot)), (_, (spec_flat, idle_flat))) = (&seen[0], &seen[1]);
    assert!(spec_rot.contains(", rotational (/sys/") && spec_rot.contains("queue/rotational)"), "{spec_rot}");
    assert!(spec_flat.contains(", non-rotational (/sys/"), "{spec_flat}");
    assert!(*idle_rot > 0, "cfq never idled on a rotational target: {spec_rot}");
    assert_eq!(*idle_flat, 0, "cfq idled on a non-rotational target: {spec_flat}");
    assert!(forced.0.contains(", rotational (--rotational)") && forced.1 > 0, "{forced:?}");
}

/// verify= is real live: what a job wrote is read back and checked (each 8-byte word of a written block holds
/// its own offset); a block changed underneath the running job fails with EILSEQ (84) as fio reports it, and a
/// clean run reports nothing.
#[test]
fn verify_reads_back_what_was_written_and_reports_a_block_corrupted_underneath() {
    if !io_uring_available() {
        return;
    }
    let d = dir("verify");
    let job = d.join("verify.fio");
    // 1024 writes at 2000 IOPS: half a second of writing before the read-back, time to change a block.
    std::fs::write(
        &job,
        "[w]\nfilename=verify.dat\nrw=write\nbs=4k\nsize=4m\ndirect=1\nioengine=psync\nverify=crc32c\nrate_iops=2000\n",
    )
    .unwrap();
    let job_s = job.to_str().unwrap();
    let clean = run_json(&job, &[]);
    let j = &clean["jobs"][0];
    assert_eq!(j["error"], 0, "a clean run fails no check: {j}");
    assert_eq!(j["read"]["total_ios"], 1024, "every written block is read back");
    assert_eq!(j["write"]["total_ios"], 1024);

    let target = d.join("verify.dat");
    // Zero the file, so that the block to change is seen being written by the next run.
    std::fs::write(&target, vec![0u8; 4 << 20]).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_iosched"))
        .args(["run", job_s, "--json"])
        .current_dir(&d)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let block = 10u64 * 4096;
    let written = |f: &std::fs::File| {
        let mut word = [0u8; 8];
        std::os::unix::fs::FileExt::read_exact_at(f, &mut word, block).is_ok() && u64::from_le_bytes(word) == block
    };
    let file = std::fs::OpenOptions::new().read(true).write(true).open(&target).unwrap();
    let started = std::time::Instant::now();
    while !written(&file) {
        assert!(started.elapsed().as_secs() < 20, "the job never wrote block 10");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::os::unix::fs::FileExt::write_all_at(&file, &[0xEEu8; 4096], block).unwrap();
    file.sync_all().unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // As fio: the report, then exit status 1 for the failed job, named on stderr.
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("job 'w' failed with error 84"), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("fio JSON");
    let j = &v["jobs"][0];
    assert_eq!(j["error"], 84, "the changed block fails its check with EILSEQ: {j}");
    let message = j["error_message"].as_str().unwrap_or_default();
    assert!(message.contains("1 block(s)") && message.contains("offset 40960"), "{message}");
    assert_eq!(j["read"]["total_ios"], 1024, "the check goes on past the failed block (verify_fatal=0)");
}
