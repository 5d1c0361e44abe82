//! `iosched insert`, `create`, `destroy`: a scheduling FUSE mount in front of real programs. The directories live
//! under the build's target directory. Where FUSE cannot be used (no /dev/fuse, no permission to mount) or fio is
//! missing, the tests say so loudly and skip; .ci/run installs fuse3 and fio so that CI runs them.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn iosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iosched")).args(args).output().expect("run iosched")
}

fn ok(args: &[&str]) -> Output {
    let out = iosched(args);
    assert!(out.status.success(), "iosched {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("mount-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn mounted(path: &Path) -> bool {
    let info = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    info.lines().any(|l| l.split(' ').nth(4) == Some(s(path)) && l.contains(" iosched:"))
}

/// Destroys the mount when the test ends, however it ends.
struct Mount(PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        if mounted(&self.0) {
            let _ = iosched(&["destroy", s(&self.0), "--wait", "5"]);
        }
    }
}

/// Kills a program the test started if the test ends before it does (a failed assertion must not leave it
/// running: a stray loop loads the machine and upsets the timing tests that follow).
struct Program(std::process::Child);

impl Drop for Program {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn insert(path: &Path, extra: &[&str]) -> Mount {
    let mut args = vec!["insert", s(path)];
    args.extend_from_slice(extra);
    ok(&args);
    assert!(mounted(path), "insert returned before the mount was there");
    Mount(path.to_path_buf())
}

/// What a probe mount found.
#[derive(Debug, PartialEq)]
enum Fuse {
    Available,
    /// The machine has no FUSE (or refuses io_uring, which the mount needs): the test cannot run here.
    Absent(String),
    /// `iosched insert` itself failed: a bug, never a reason to skip.
    Broken(String),
}

fn probe_fuse(test: &str, break_insert: bool) -> Fuse {
    if !Path::new("/dev/fuse").exists() {
        return Fuse::Absent("/dev/fuse is missing (no FUSE on this machine)".into());
    }
    let d = dir(&format!("probe-{test}"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_iosched"));
    command.args(["insert", s(&d)]);
    if break_insert {
        command.env("IOSCHED_TEST_BREAK_INSERT", "1");
    }
    let out = command.output().expect("iosched runs");
    if out.status.success() {
        ok(&["destroy", s(&d)]);
        return Fuse::Available;
    }
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    // The two ways the machine (not iosched) refuses: the kernel's mount, and io_uring (seccomp, old kernel).
    if err.contains("cannot mount on") || err.contains("cannot set up io_uring") {
        Fuse::Absent(format!("cannot mount FUSE here: {err}"))
    } else {
        Fuse::Broken(err)
    }
}

/// Whether FUSE mounts work here: absent skips loudly (and fails where every test must run); a broken insert
/// fails the test.
fn fuse_available(test: &str) -> bool {
    match probe_fuse(test, false) {
        Fuse::Available => true,
        Fuse::Absent(reason) => {
            iosched_test_data::skip(&reason);
            false
        }
        Fuse::Broken(err) => panic!("iosched insert failed, and not for want of FUSE: {err}"),
    }
}

#[test]
fn a_broken_insert_is_not_taken_for_a_machine_without_fuse() {
    if !cfg!(debug_assertions) {
        return; // the break switch exists in test builds only
    }
    match probe_fuse("broken", true) {
        Fuse::Broken(err) => assert!(err.contains("IOSCHED_TEST_BREAK_INSERT"), "{err}"),
        Fuse::Absent(reason) if !Path::new("/dev/fuse").exists() => iosched_test_data::skip(&reason),
        other => panic!("a broken insert probed as {other:?}"),
    }
}

fn fio_available() -> bool {
    if Command::new("fio").arg("--version").output().is_err() {
        iosched_test_data::skip("fio is not installed (apt-get install fio)");
        return false;
    }
    true
}

fn stats(path: &Path) -> Value {
    serde_json::from_slice(&ok(&["stats", s(path), "--json"]).stdout).expect("fio JSON")
}

/// Consecutive numbers 1..=n, one per line, and then `tail` lines.
fn assert_counts(text: &str, what: &str) -> usize {
    let numbers: Vec<&str> = text.lines().filter(|l| l.chars().all(|c| c.is_ascii_digit())).collect();
    for (i, line) in numbers.iter().enumerate() {
        assert_eq!(line.parse::<usize>().unwrap(), i + 1, "{what}: line {} is {line}", i + 1);
    }
    numbers.len()
}

#[test]
fn a_directory_in_use_gets_a_scheduler_and_loses_it_while_its_program_keeps_working() {
    if !fuse_available("in-use") {
        return;
    }
    let d = dir("in-use");
    std::fs::write(d.join("data.txt"), "some data\n".repeat(1000)).unwrap();
    // A program using the directory throughout: a descriptor it opened before the insert (held.log), and files it
    // opens by absolute path on every round (appends to bypath.log, reads data.txt). (Paths relative to a working
    // directory inside DIR, taken before the insert, keep reaching the directory underneath, as held files do.)
    let script = "cd \"$D\"; exec 3>>held.log; i=0; while [ ! -e \"$D/stop\" ]; do i=$((i+1)); echo $i >&3 || exit 3; \
                  echo $i >> \"$D/bypath.log\" || exit 4; cat \"$D/data.txt\" > /dev/null || exit 5; sleep 0.01; done; \
                  echo end >&3";
    let mut program = Program(Command::new("sh").arg("-c").arg(script).env("D", &d).spawn().unwrap());
    std::thread::sleep(Duration::from_millis(300));
    let mount = insert(&d, &["--policy", "bfq"]);
    std::thread::sleep(Duration::from_millis(700));
    // New opens go through the scheduler: the program's processes appear as jobs with reads and writes.
    let v = stats(&d);
    let jobs = v["jobs"].as_array().unwrap();
    let ios = |dir: &str| jobs.iter().map(|j| j[dir]["total_ios"].as_u64().unwrap()).sum::<u64>();
    assert!(ios("read") > 10 && ios("write") > 10, "reads {} writes {} through the mount", ios("read"), ios("write"));
    assert!(jobs.iter().any(|j| j["jobname"].as_str().unwrap().contains("(cat)")), "{jobs:?}");
    ok(&["configure", s(&d), "--policy", "deadline"]);
    std::thread::sleep(Duration::from_millis(300));
    ok(&["destroy", s(&d)]);
    assert!(!mounted(&d), "destroy left the mount");
    drop(mount);
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(d.join("stop"), "").unwrap();
    let status = program.0.wait().unwrap();
    assert!(status.success(), "the program failed while the scheduler came and went: {status}");
    // Nothing lost or doubled on either path; the paths are the original directory again.
    let held = std::fs::read_to_string(d.join("held.log")).unwrap();
    let bypath = std::fs::read_to_string(d.join("bypath.log")).unwrap();
    let n = assert_counts(&held, "held.log");
    assert_eq!(held.lines().last(), Some("end"));
    assert_eq!(assert_counts(&bypath, "bypath.log"), n, "every round appended by path once");
    assert!(n > 50, "only {n} rounds");
}

#[test]
fn fio_verifies_through_a_mount_switched_between_policies_and_again_after_destroy() {
    if !fuse_available("verify") || !fio_available() {
        return;
    }
    let d = dir("verify");
    let job = |target: &Path| {
        format!(
            "[global]\ndirectory={}\nsize=16m\nbs=4k\nrw=randrw\nioengine=psync\nverify=crc32c\nnumjobs=4\n\
             verify_state_save=0\ngroup_reporting\n[verify]\n",
            target.display()
        )
    };
    let job_file = d.with_extension("fio");
    std::fs::write(&job_file, job(&d)).unwrap();
    let mount = insert(&d, &["--policy", "noop", "--cache", "direct"]);
    let mut fio = Command::new("fio")
        .args([s(&job_file), "--output-format=json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Switch every 0.4 s while fio writes, reads and verifies.
    let policies = ["bfq", "deadline", "kyber", "cfq", "as", "rr", "cam", "elevator", "noop"];
    let mut switches = 0;
    let start = Instant::now();
    while fio.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(400));
        let out = iosched(&["configure", s(&d), "--policy", policies[switches % policies.len()]]);
        if out.status.success() {
            switches += 1;
        }
    }
    let out = fio.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("fio's JSON ({e}): {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    assert!(out.status.success(), "fio failed through the mount: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(v["jobs"][0]["error"], 0, "verify errors: {}", String::from_utf8_lossy(&out.stderr));
    assert!(switches >= 3, "only {switches} policy switches happened during the run");
    let report = stats(&d);
    assert!(report["iosched"]["policy_switches"].as_u64().unwrap() >= switches as u64, "{}", report["iosched"]);
    ok(&["destroy", s(&d)]);
    drop(mount);
    // The data underneath verifies on its own.
    let out = Command::new("fio").args([s(&job_file), "--verify_only", "--output-format=json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(out.status.success() && v["jobs"][0]["error"] == 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(v["jobs"][0]["read"]["io_bytes"].as_u64().unwrap() > 0, "verify_only read nothing");
}

#[test]
fn a_killed_daemon_gives_programs_errors_and_keeps_what_was_fsynced() {
    if !fuse_available("killed") {
        return;
    }
    let d = dir("killed");
    let mount = insert(&d, &[]);
    // Written and fsynced through the mount.
    let mut f = std::fs::File::create(d.join("kept.dat")).unwrap();
    let data: Vec<u8> = (0..1 << 20).map(|i| (i * 7 % 251) as u8).collect();
    f.write_all(&data).unwrap();
    f.sync_all().unwrap();
    let pid = daemon_pid(&d);
    // SAFETY: kill sends a signal.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    std::thread::sleep(Duration::from_millis(300));
    // A program now gets an error, promptly, rather than hanging.
    let start = Instant::now();
    let err = f.write_all(&data).and_then(|()| f.sync_all()).expect_err("a write to a dead mount succeeded");
    assert_eq!(err.raw_os_error(), Some(libc::ENOTCONN), "{err}");
    assert!(std::fs::read(d.join("kept.dat")).is_err());
    assert!(start.elapsed() < Duration::from_secs(2));
    drop(f);
    // destroy detaches the dead mount; what was fsynced is in the directory underneath.
    ok(&["destroy", s(&d)]);
    assert!(!mounted(&d));
    drop(mount);
    assert_eq!(std::fs::read(d.join("kept.dat")).unwrap()[..data.len()], data[..]);
}

/// The daemon's pid.
fn daemon_pid(d: &Path) -> i32 {
    let out = Command::new("pgrep").args(["-f", &format!("iosched insert {}", d.display())]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).lines().next().expect("the daemon runs").trim().parse().unwrap()
}

#[test]
fn destroy_with_requests_in_flight_loses_nothing() {
    if !fuse_available("busy") {
        return;
    }
    let d = dir("busy");
    let mount = insert(&d, &["--policy", "bfq", "--cache", "direct"]);
    // Four writers, each writing 64 x 64 KiB numbered blocks to its own file and fsyncing every 8.
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let path = d.join(format!("w{w}.dat"));
            std::thread::spawn(move || -> std::io::Result<()> {
                let mut f = std::fs::File::create(&path)?;
                for block in 0..64u64 {
                    let word = (w as u64) << 32 | block;
                    let buf: Vec<u8> = std::iter::repeat_n(word.to_le_bytes(), 8192).flatten().collect();
                    f.write_all(&buf)?;
                    if block % 8 == 7 {
                        f.sync_data()?;
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                f.sync_all()
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let out = ok(&["destroy", s(&d), "--wait", "30"]);
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!mounted(&d), "destroy left the mount");
    drop(mount);
    for (w, writer) in writers.into_iter().enumerate() {
        writer.join().unwrap().unwrap_or_else(|e| panic!("writer {w} failed during destroy ({said}): {e}"));
    }
    // What destroy says comes from the engine: every request completed, and how many (at least the 256 writes).
    let completed: u64 = said
        .split("every request completed: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("destroy did not report the engine's count: {said}"));
    assert!(completed >= 256, "{said}");
    assert!(!said.contains("I/O error"), "{said}");
    // Every block of every file, in place, in the directory underneath.
    for w in 0..4u64 {
        let bytes = std::fs::read(d.join(format!("w{w}.dat"))).unwrap();
        assert_eq!(bytes.len(), 64 * 65536, "w{w}.dat");
        for (block, chunk) in bytes.chunks(65536).enumerate() {
            let want = (w << 32 | block as u64).to_le_bytes();
            assert!(chunk.chunks(8).all(|word| word == want), "w{w}.dat block {block}");
        }
    }
}

#[test]
fn destroy_says_what_it_waits_for() {
    if !fuse_available("waits") {
        return;
    }
    let d = dir("waits");
    let mount = insert(&d, &[]);
    let held = std::fs::File::create(d.join("held")).unwrap();
    let out = ok(&["destroy", s(&d), "--wait", "1"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("waiting up to 1 s for 1 file opened through the mount to be closed"), "{said}");
    assert!(said.contains("--wait 0 returns at once"), "{said}");
    assert!(said.contains("1 file opened through the mount is still open"), "{said}");
    drop(held);
    drop(mount);
}

#[test]
fn destroy_reports_an_engine_that_failed() {
    if !cfg!(debug_assertions) || !fuse_available("failing") {
        return; // the failure switch exists in test builds only
    }
    let d = dir("failing");
    let mut command = Command::new(env!("CARGO_BIN_EXE_iosched"));
    let out = command.args(["insert", s(&d)]).env("IOSCHED_TEST_FAIL_ENGINE", "1").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mount = Mount(d.clone());
    std::fs::write(d.join("f"), b"through the mount").unwrap();
    let out = iosched(&["destroy", s(&d), "--wait", "10"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a failed engine is a failed destroy: {said}");
    assert!(said.contains("its engine failed") && said.contains("IOSCHED_TEST_FAIL_ENGINE"), "{said}");
    assert!(!said.contains("every request completed"), "{said}");
    assert!(!mounted(&d), "destroy left the mount");
    drop(mount);
}

#[test]
fn bad_mount_requests_are_refused_with_what_was_expected() {
    let d = dir("bad");
    let out = iosched(&["insert", s(&d.join("missing"))]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing: no such directory"), "{out:?}");
    std::fs::write(d.join("plain"), b"").unwrap();
    let out = iosched(&["insert", s(&d.join("plain"))]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("plain: not a directory"), "{out:?}");
    let out = iosched(&["insert", s(&d), "--policy", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let out = iosched(&["create", s(&d), s(&d)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("iosched insert DIR"));
    let out = iosched(&["destroy", s(&d)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no iosched mount"));
    let out = iosched(&["insert", s(&d), "--metrics", "0.0.0.0:9464"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected a loopback address"));
    assert!(!mounted(&d));
    for (flag, value) in [("--interval", "0"), ("--count", "0")] {
        let out = iosched(&["top", s(&d), flag, value]);
        assert_eq!(out.status.code(), Some(2), "top {flag} {value}");
    }
}

/// One HTTP GET on the loopback metrics endpoint: the body.
fn scrape(addr: &str) -> String {
    use std::io::Read;
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(stream, "GET /metrics HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 200") || text.starts_with("HTTP/1.0 200"), "{text}");
    text.split_once("\r\n\r\n").map(|(_, body)| body.to_string()).unwrap_or_default()
}

/// The value of the one sample whose line starts with `series`.
fn sample(metrics: &str, series: &str) -> f64 {
    let line = metrics.lines().find(|l| l.starts_with(series)).unwrap_or_else(|| panic!("no {series} in\n{metrics}"));
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

#[test]
fn top_and_the_metrics_endpoint_show_each_process_with_its_class() {
    if !fuse_available("top") {
        return;
    }
    let d = dir("top");
    // Sparse: the readers go on for as long as the test needs, without the disk doing much.
    std::fs::File::create(d.join("big")).unwrap().set_len(8 << 30).unwrap();
    let out = ok(&["insert", s(&d), "--metrics", "127.0.0.1:0"]);
    let _mount = Mount(d.clone());
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    let addr = said
        .split("metrics at http://")
        .nth(1)
        .and_then(|rest| rest.split("/metrics").next())
        .unwrap_or_else(|| panic!("the metrics address is printed: {said}"))
        .to_string();
    let reader = |ionice: &[&str]| {
        let mut command = Command::new(ionice[0]);
        command.args(&ionice[1..]).args(["dd", "if=big", "of=/dev/null", "bs=64k", "iflag=direct"]);
        Program(command.current_dir(&d).stderr(Stdio::null()).spawn().unwrap())
    };
    let idle = reader(&["ionice", "-c3"]);
    let best_effort = reader(&["ionice", "-c2", "-n4"]);
    let (idle_pid, be_pid) = (idle.0.id(), best_effort.0.id());
    std::thread::sleep(Duration::from_millis(300));

    let out = ok(&["top", s(&d), "--interval", "0.5", "--count", "2"]);
    let screens = String::from_utf8_lossy(&out.stdout).to_string();
    let last = screens.rsplit("iosched top ").next().unwrap();
    let row = |pid: u32| {
        let prefix = format!("pid {pid} (dd)");
        let line = last.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| panic!("no {prefix}:\n{last}"));
        line[prefix.len()..].split_whitespace().map(str::to_string).collect::<Vec<_>>()
    };
    let (idle_row, be_row) = (row(idle_pid), row(be_pid));
    assert!(idle_row[0].starts_with("IDLE/"), "{idle_row:?}");
    assert_eq!(be_row[0], "BE/4", "{be_row:?}");
    for cells in [&idle_row, &be_row] {
        let read_mb_s: f64 = cells[1].parse().unwrap();
        let iops: f64 = cells[3].parse().unwrap();
        assert!(read_mb_s > 0.0 && iops > 0.0, "both readers move data under noop: {cells:?}\n{last}");
        assert!(cells[4].parse::<f64>().is_ok(), "a mean latency: {cells:?}");
    }
    for class in ["BE ", "IDLE "] {
        assert!(last.lines().any(|l| l.starts_with(class)), "a {class}row in the class table:\n{last}");
    }
    assert_eq!(screens.matches("iosched top ").count(), 2, "two screens:\n{screens}");

    let bytes = |metrics: &str, pid: u32, class: &str| {
        let name = format!("pid {pid} (dd)");
        let line = metrics
            .lines()
            .find(|l| {
                l.starts_with("iosched_flow_bytes_total{")
                    && l.contains(&format!("name=\"{name}\",class=\"{class}\""))
                    && l.contains("direction=\"read\"")
            })
            .unwrap_or_else(|| panic!("no read bytes of {name} ({class}) in\n{metrics}"));
        sample(line, "iosched_flow_bytes_total")
    };
    let first = scrape(&addr);
    assert!(first.contains("iosched_info{policy=\"noop\""), "{first}");
    let (idle_before, be_before) = (bytes(&first, idle_pid, "idle"), bytes(&first, be_pid, "be"));
    std::thread::sleep(Duration::from_millis(300));
    let second = scrape(&addr);
    assert!(bytes(&second, idle_pid, "idle") > idle_before, "the counters grow");
    assert!(bytes(&second, be_pid, "be") > be_before);
    assert!(sample(&second, "iosched_uptime_seconds") > sample(&first, "iosched_uptime_seconds"));
    drop((idle, best_effort));
}
