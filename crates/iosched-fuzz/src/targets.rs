//! What each target feeds its input to. A target returns normally for a result or an error; a panic is the
//! bug the fuzzer looks for. Errors must name the input's file, which is checked here.

use iosched_core::registry;
use iosched_device::disksim::statdefs;
use iosched_device::parse_spec;
use iosched_sim::{simulate, Replay, SimConfig, Workload};
use iosched_workload::fio;
use iosched_workload::trace::{self, Format};

pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
}

const FILE: &str = "fuzz.input";

fn check_error(e: &impl std::fmt::Display) {
    let text = e.to_string();
    assert!(text.starts_with(FILE), "an error that does not name the file: {text}");
}

/// Simulate briefly: 1 ms of simulated time on a small device, so odd values reach the engine, under a policy
/// the input picks (each registered policy in turn, by a hash of the input), so they reach every policy too.
fn simulate_briefly(workload: &mut Workload, input: &[u8]) {
    workload.override_runtime(1_000_000);
    let device = parse_spec("simple,capacity_gib=1,queue_depth=8").expect("a valid spec");
    let all = registry::policies();
    let hash = input.iter().fold(0u64, |h, &b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    let policy = registry::create(all[(hash % all.len() as u64) as usize].name).expect("a registered policy");
    // A workload the device cannot hold is the input's fault; a policy that stalls is a policy bug.
    if let Err(e @ iosched_sim::SimError::Stalled { .. }) =
        simulate(workload, policy, device, Vec::new(), &SimConfig { seed: 1, record_log: false })
    {
        panic!("{e}");
    }
}

fn fio_target(input: &[u8]) {
    let Ok(text) = std::str::from_utf8(input) else { return };
    match fio::parse_str(text, FILE) {
        Ok(jobs) => {
            let total_clones: u64 = jobs.iter().map(|j| j.numjobs as u64).sum();
            if total_clones <= 64 {
                simulate_briefly(&mut Workload::from_jobs(&jobs), input);
            }
        }
        Err(e) => check_error(&e),
    }
}

fn trace_target(format: Format, input: &[u8]) {
    let result = if format == Format::Blktrace {
        trace::blktrace::parse(input, FILE)
    } else {
        let Ok(text) = std::str::from_utf8(input) else { return };
        trace::parse_text(text, FILE, format)
    };
    match result {
        Ok(t) => {
            assert!(!t.records.is_empty(), "a trace without requests was accepted");
            if t.records.len() <= 10_000 {
                let mut w = Workload::default();
                w.add_trace("fuzz", &t, Replay::Closed { depth: 4 });
                simulate_briefly(&mut w, input);
            }
        }
        Err(e) => check_error(&e),
    }
}

/// A DiskSim statdefs file: both access-time distributions read, and on success values from far below to far
/// above the buckets counted and printed.
fn statdefs_target(input: &[u8]) {
    let Ok(text) = std::str::from_utf8(input) else { return };
    for name in [statdefs::SIMULATED_ACCESS_TIME, statdefs::MEASURED_ACCESS_TIME] {
        match statdefs::parse(text, std::path::Path::new(FILE), name) {
            Ok(d) => {
                let printed = d.printed_cumulative(&[-1e12, -1.0, 0.0, 0.0999, 15.3, 1e12, f64::NAN]);
                assert!(printed.last().is_some_and(|p| p.1 >= 1.0), "the printed distribution reaches 1");
            }
            Err(e) => check_error(&e),
        }
    }
}

/// MQSim's device file: read; a drive small enough to build quickly is built and serves random reads and writes.
fn mqsim_device_target(input: &[u8]) {
    let Ok(text) = std::str::from_utf8(input) else { return };
    match iosched_device::ssd::mqsim_file::parse(text, FILE, &[]) {
        Ok(d) => {
            let p = d.params;
            if p.capacity_bytes / p.page_bytes <= 1 << 20 {
                let device = Box::new(iosched_device::ssd::Ssd::new(p).expect("a drive the reader accepted builds"));
                let jobs = fio::parse_str("[r]\nrw=randrw\nbs=4k\niodepth=8\nioengine=libaio\n", "job").expect("a job");
                let policy = registry::create("noop").expect("noop exists");
                let mut w = Workload::from_jobs(&jobs);
                w.override_runtime(1_000_000);
                let _ = simulate(&w, policy, device, Vec::new(), &SimConfig { seed: 1, record_log: false });
            }
        }
        Err(e) => check_error(&e),
    }
}

/// MQSim's workload file: read; each synthetic flow's fio job must be one iosched reads, and runs briefly.
fn mqsim_workload_target(input: &[u8]) {
    use iosched_workload::mqsim_workload::{self, FlowKind};
    let Ok(text) = std::str::from_utf8(input) else { return };
    match mqsim_workload::parse(text, FILE, std::path::Path::new(".")) {
        Ok(w) => {
            for scenario in w.scenarios.iter().take(4) {
                for flow in scenario.flows.iter().take(8) {
                    if let FlowKind::Synthetic(s) = &flow.kind {
                        let text = mqsim_workload::fio_job("flow", s, flow.priority, flow.caching, 0, 1 << 30);
                        let jobs = fio::parse_str(&text, "flow.fio")
                            .unwrap_or_else(|e| panic!("a flow's fio job is refused: {e}\n{text}"));
                        simulate_briefly(&mut Workload::from_jobs(&jobs), input);
                    }
                }
            }
        }
        Err(e) => check_error(&e),
    }
}

/// A hard-disk preset (TOML): read; a drive it describes serves a millisecond of random reads and writes.
fn hdd_preset_target(input: &[u8]) {
    let Ok(text) = std::str::from_utf8(input) else { return };
    match iosched_device::hdd::preset::from_toml(text, FILE) {
        Ok(params) => run_briefly(Box::new(iosched_device::hdd::disk::Hdd::new(params))),
        Err(e) => check_error(&e),
    }
}

/// A millisecond of random 4 KiB reads and writes on `device`.
fn run_briefly(device: Box<dyn iosched_device::Device>) {
    let jobs = fio::parse_str("[r]\nrw=randrw\nbs=4k\niodepth=4\nioengine=libaio\n", "job").expect("a job");
    let mut w = Workload::from_jobs(&jobs);
    w.override_runtime(1_000_000);
    let policy = registry::create("noop").expect("noop exists");
    let _ = simulate(&w, policy, device, Vec::new(), &SimConfig { seed: 1, record_log: false });
}

/// A scratch folder of this process, made once, with `files` written into it.
fn scratch(name: &str, files: &[(&str, &[u8])]) -> std::path::PathBuf {
    let dir = crate::scratch_dir(name);
    if !dir.exists() {
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        for (file, text) in files {
            std::fs::write(dir.join(file), text).expect("a scratch file");
        }
    }
    dir
}

/// A DiskSim drive file (.parv), beside the files atlas10k's sources (from the shared data when present):
/// read and built; a drive that builds serves a millisecond of requests.
fn disksim_drive_target(input: &[u8]) {
    let data = iosched_test_data::root().join("disksim");
    let sourced: Vec<(String, Vec<u8>)> = std::fs::read_dir(&data)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                n.to_string_lossy().starts_with("atlas10k.")
                    && p.extension().is_some_and(|e| e != "parv" && e != "trace")
            })
        })
        .filter_map(|p| Some((p.file_name()?.to_string_lossy().into_owned(), std::fs::read(&p).ok()?)))
        .collect();
    let files: Vec<(&str, &[u8])> = sourced.iter().map(|(n, t)| (n.as_str(), t.as_slice())).collect();
    let dir = scratch("disksim", &files);
    let parv = dir.join("fuzz.parv");
    std::fs::write(&parv, input).expect("the input written");
    match iosched_device::disksim::build::load_drive(&parv) {
        Ok((drive, _)) => run_briefly(drive.device()),
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains("fuzz.parv") || text.contains(&dir.display().to_string()),
                "an error that names no file: {text}"
            );
        }
    }
}

/// An experiment folder's experiment.toml, beside geom-sched's job files: read and checked.
fn experiment_target(input: &[u8]) {
    let built_in = iosched_sim::experiment::builtin::find("geom-sched").expect("geom-sched is built in");
    let files: Vec<(&str, &[u8])> =
        built_in.files.iter().filter(|(n, _)| *n != "experiment.toml").map(|(n, t)| (*n, t.as_bytes())).collect();
    let dir = scratch("experiment", &files);
    std::fs::write(dir.join("experiment.toml"), input).expect("the input written");
    if let Err(e) = iosched_sim::experiment::load("fuzz", iosched_sim::experiment::Files::Folder(&dir)) {
        assert!(e.contains(&dir.display().to_string()), "an error that names no file: {e}");
    }
}

fn detect_target(input: &[u8]) {
    if let Some(format) = trace::detect(input) {
        trace_target(format, input);
    }
}

macro_rules! trace_targets {
    ($($name:literal => $format:expr),* $(,)?) => {
        &[
            Target { name: "fio", run: fio_target },
            Target { name: "detect", run: detect_target },
            Target { name: "statdefs", run: statdefs_target },
            Target { name: "mqsim-device", run: mqsim_device_target },
            Target { name: "hdd-preset", run: hdd_preset_target },
            Target { name: "disksim-drive", run: disksim_drive_target },
            Target { name: "experiment", run: experiment_target },
            Target { name: "mqsim-workload", run: mqsim_workload_target },
            Target { name: "cli", run: crate::cli_target::run },
            $(Target { name: $name, run: |input| trace_target($format, input) },)*
        ]
    };
}

pub const ALL: &[Target] = trace_targets!(
    "blkparse" => Format::Blkparse,
    "blktrace" => Format::Blktrace,
    "msr" => Format::Msr,
    "spc" => Format::Spc,
    "alibaba" => Format::Alibaba,
    "tencent" => Format::Tencent,
    "fiu" => Format::Fiu,
    "disksim" => Format::DisksimAscii,
    "disksim-validate" => Format::DisksimValidate,
    "mqsim" => Format::Mqsim,
    "iolog2" => Format::IologV2,
    "iolog3" => Format::IologV3,
);
