//! `iosched-fuzz [TARGET...] [--seconds N] [--seed S]`: mutation fuzzing of the readers of user files.
//!
//! Each target is a reader (the fio job file, each trace format, format detection, drive and device files, presets,
//! experiment.toml, the command line through the built binary). The fuzzer starts from a
//! corpus of valid inputs (built-in samples, plus the files in IOSCHED_TEST_DATA when present), mutates them
//! (bit flips, interesting numbers, token insertion, line deletion, duplication and splicing between inputs)
//! and calls the reader. A reader must return its result or an error that names the file; a panic, or one
//! input taking more than [`HANG_SECONDS`], fails the run: the input is written to `fuzz-crash-TARGET.bin`
//! and the exit status is 1. A job file that parses is also simulated (1 ms of simulated time on a small
//! device, under a policy the input picks), so the job model, the engine and every policy see the strange
//! values too.
//!
//! This is a black-box fuzzer (no coverage feedback): it finds what random mutation of real inputs finds.

mod cli_target;
mod corpus;
mod mutate;
mod targets;

use iosched_core::rng::SimRng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// An input that runs longer than this is a hang.
const HANG_SECONDS: u64 = 10;

fn usage() -> ! {
    eprintln!(
        "usage: iosched-fuzz [TARGET...] [--seconds N] [--seed S]\ntargets: {}",
        targets::ALL.iter().map(|t| t.name).collect::<Vec<_>>().join(" ")
    );
    std::process::exit(2);
}

fn main() {
    let mut seconds = 10.0f64;
    let mut seed = 1u64;
    let mut chosen = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seconds" => seconds = args.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| usage()),
            "--seed" => seed = args.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| usage()),
            "-h" | "--help" => usage(),
            name => match targets::ALL.iter().find(|t| t.name == name) {
                Some(t) => chosen.push(t),
                None => {
                    eprintln!("iosched-fuzz: unknown target '{name}'");
                    usage()
                }
            },
        }
    }
    if chosen.is_empty() {
        chosen = targets::ALL.iter().collect();
    }
    // Panics are caught and reported once, with the input; keep the default hook's message off stderr.
    std::panic::set_hook(Box::new(|_| {}));
    let per_target = Duration::from_secs_f64(seconds / chosen.len() as f64);
    let mut failed = false;
    for target in chosen {
        let corpus = corpus::for_target(target.name);
        let mut rng = SimRng::new(seed, target.name.len() as u64 ^ 0x5eed);
        let started = Instant::now();
        let mut runs = 0u64;
        let heartbeat = Arc::new(AtomicU64::new(0));
        let watchdog = spawn_watchdog(target.name, heartbeat.clone());
        while started.elapsed() < per_target {
            let input = mutate::mutate(&corpus, &mut rng);
            heartbeat.store(Instant::now().duration_since(started).as_millis() as u64 + 1, Ordering::Relaxed);
            watchdog.current(&input);
            let outcome = catch_unwind(AssertUnwindSafe(|| (target.run)(&input)));
            heartbeat.store(0, Ordering::Relaxed);
            runs += 1;
            if let Err(panic) = outcome {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                let file = format!("fuzz-crash-{}.bin", target.name);
                let _ = std::fs::write(&file, &input);
                eprintln!("{}: PANIC after {runs} inputs: {message}; input written to {file}", target.name);
                failed = true;
                break;
            }
        }
        if !failed {
            println!("{}: {runs} inputs in {:.1} s, no panic", target.name, started.elapsed().as_secs_f64());
        }
    }
    remove_scratch();
    std::process::exit(failed as i32);
}

/// The scratch folders of this process's targets: `scratch_dir(name)` is the one for `name`.
fn scratch_prefix() -> String {
    format!("iosched-fuzz-{}-", std::process::id())
}

/// Where target `name` keeps its files (made by the target; removed when the run ends).
pub fn scratch_dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("{}{name}", scratch_prefix()))
}

/// Remove every scratch folder of this process, so that a run leaves nothing behind in the temporary folder
/// (.ci/run checks).
fn remove_scratch() {
    let prefix = scratch_prefix();
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Aborts the process if one input runs longer than [`HANG_SECONDS`], after writing it out.
struct Watchdog {
    input: Arc<std::sync::Mutex<Vec<u8>>>,
}

impl Watchdog {
    fn current(&self, input: &[u8]) {
        let mut slot = self.input.lock().unwrap_or_else(|e| e.into_inner());
        slot.clear();
        slot.extend_from_slice(input);
    }
}

fn spawn_watchdog(name: &'static str, heartbeat: Arc<AtomicU64>) -> Watchdog {
    let input = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = input.clone();
    std::thread::spawn(move || {
        let mut last = (0, Instant::now());
        loop {
            std::thread::sleep(Duration::from_millis(250));
            let beat = heartbeat.load(Ordering::Relaxed);
            if beat == 0 || beat != last.0 {
                last = (beat, Instant::now());
                continue;
            }
            if last.1.elapsed() > Duration::from_secs(HANG_SECONDS) {
                let file = format!("fuzz-hang-{name}.bin");
                let bytes = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
                let _ = std::fs::write(&file, bytes);
                eprintln!("{name}: HANG: one input ran over {HANG_SECONDS} s; input written to {file}");
                std::process::exit(1);
            }
        }
    });
    Watchdog { input }
}
