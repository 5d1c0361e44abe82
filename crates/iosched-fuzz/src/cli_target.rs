//! The command line as a reader of user input: mutated argument lists run through the built `iosched` binary.
//!
//! An input is one argument per line. The binary runs in a scratch folder that holds the files the starting
//! inputs name (a job file, a trace), with a wall-clock limit and an address-space limit, so that a mutated
//! capacity or runtime costs a kill rather than the machine. Exit statuses 0, 1 and 2 are results; a panic
//! (status 101) or a death by a signal the fuzzer did not send is the bug looked for, and fails the target.
//!
//! Only commands that touch nothing outside the scratch folder are run (`sim`, `sweep`, `validate`,
//! `policies`): `run`, the mounts and `configure` do real I/O or reach running engines. Arguments with a '/',
//! which could name a path outside the folder, are skipped for the same reason.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longer than any starting input takes (they simulate a few milliseconds), well under the fuzzer's hang limit.
const WALL_SECONDS: u64 = 4;
/// Enough for every starting input; a mutated drive size past it is an allocation failure, not a finding.
const ADDRESS_SPACE_BYTES: u64 = 3 << 30;

const SAFE_COMMANDS: &[&str] = &["sim", "sweep", "validate", "policies"];

const JOB: &str = "[r]\nrw=randrw\nbs=4k\niodepth=4\nioengine=libaio\nsize=16m\n";
const TRACE: &str = "128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295524663,hm,1,Read,0,512,10\n";

/// The starting argument lists: each reader of a command-line value (device specs, tunables, replay modes,
/// switch times, sweep grids, runtimes) appears with a valid value.
pub const STARTS: &[&str] = &[
    "sim\njob.fio\n--policy\ndeadline\n--runtime\n0.01",
    "sim\njob.fio\n--device\nhdd:sata7200\n--policy\nbfq\n--set\nslice_idle_ms=8\n--runtime\n0.01\n--json",
    "sim\n--trace\nt.msr\n--replay\nopen:2\n--device\nssd:nvme,capacity_gib=1\n--runtime\n0.01",
    "sim\n--trace\nt.msr\n--replay\nclosed:4\n--format\nmsr\n--device\nsimple,capacity_gib=1,queue_depth=8",
    "sim\njob.fio\n--switch-at\n0.005:kyber,read_lat_ms=2\n--runtime\n0.01\n--seed\n7",
    "sim\njob.fio\n--device\nhdd:sata7200,rpm=5400\n--policy\ncam\n--set\nread_bias=4\n--set\nwrite_limit=2\n--runtime\n0.005",
    "sweep\njob.fio\n--policies\nnoop,deadline\n--grid\nfifo_batch=8,16\n--runtime\n0.005\n--jobs\n1",
    "sweep\njob.fio\n--device\nsimple\n--device\nhdd:sata7200\n--runtime\n5ms\n--jobs\n1\n--seed\n3",
    "policies\n--json",
];

/// The built binary: IOSCHED_BIN, or `iosched` beside this fuzzer (cargo puts both in the same folder).
fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("IOSCHED_BIN") {
        return PathBuf::from(path);
    }
    let beside = std::env::current_exe().ok().and_then(|p| p.parent().map(|d| d.join("iosched")));
    match beside {
        Some(path) if path.exists() => path,
        _ => panic!(
            "the cli target needs the iosched binary beside the fuzzer (build it with \
             `cargo build -p iosched`) or named by IOSCHED_BIN"
        ),
    }
}

fn scratch() -> PathBuf {
    let dir = crate::scratch_dir("cli");
    if !dir.exists() {
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        std::fs::write(dir.join("job.fio"), JOB).expect("a scratch job file");
        std::fs::write(dir.join("t.msr"), TRACE).expect("a scratch trace");
    }
    dir
}

/// Whether an argument could name a file outside the scratch folder: none of the starting inputs has a '/'.
fn escapes(arg: &str) -> bool {
    arg.contains('/')
}

pub fn run(input: &[u8]) {
    let Ok(text) = std::str::from_utf8(input) else { return };
    if text.contains('\0') {
        return; // not something a shell can pass
    }
    let args: Vec<&str> = text.split('\n').collect();
    if !SAFE_COMMANDS.contains(&args[0]) || args.iter().any(|a| escapes(a)) {
        return;
    }
    run_binary(&binary(), &scratch(), &args);
}

fn run_binary(binary: &Path, dir: &Path, args: &[&str]) {
    let mut command = Command::new(binary);
    command.args(args).current_dir(dir).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches only the child between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: ADDRESS_SPACE_BYTES, rlim_max: ADDRESS_SPACE_BYTES };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
    // Read stderr on a thread so that a chatty child never blocks on a full pipe while we wait.
    let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr_pipe.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let mut killed = false;
    let status = loop {
        match child.try_wait().expect("waiting for the child") {
            Some(status) => break status,
            None if started.elapsed() > Duration::from_secs(WALL_SECONDS) => {
                let _ = child.kill();
                killed = true;
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    };
    let stderr = reader.join().unwrap_or_default();
    if killed {
        return;
    }
    let out_of_memory = stderr.contains("memory allocation of");
    match (status.code(), status.signal()) {
        (Some(0..=2), _) => {
            if status.code() != Some(0) {
                assert!(!stderr.trim().is_empty(), "exit {:?} without a message for {args:?}", status.code());
            }
        }
        (_, Some(libc::SIGABRT)) if out_of_memory => {}
        (code, signal) => panic!(
            "iosched {} ended with status {code:?}, signal {signal:?}:\n{}",
            args.join(" "),
            stderr.lines().take(8).collect::<Vec<_>>().join("\n")
        ),
    }
}
