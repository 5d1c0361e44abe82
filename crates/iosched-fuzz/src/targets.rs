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

/// Simulate briefly: 1 ms of simulated time on a small device, so odd values reach the engine.
fn simulate_briefly(workload: &mut Workload) {
    workload.override_runtime(1_000_000);
    let device = parse_spec("simple,capacity_gib=1,queue_depth=8").expect("a valid spec");
    let policy = registry::create("noop").expect("noop exists");
    let _ = simulate(workload, policy, device, Vec::new(), &SimConfig { seed: 1, record_log: false });
}

fn fio_target(input: &[u8]) {
    let Ok(text) = std::str::from_utf8(input) else { return };
    match fio::parse_str(text, FILE) {
        Ok(jobs) => {
            let total_clones: u64 = jobs.iter().map(|j| j.numjobs as u64).sum();
            if total_clones <= 64 {
                simulate_briefly(&mut Workload::from_jobs(&jobs));
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
                simulate_briefly(&mut w);
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
                        let text = mqsim_workload::fio_job("flow", s, flow.priority, 0, 1 << 30);
                        let jobs = fio::parse_str(&text, "flow.fio")
                            .unwrap_or_else(|e| panic!("a flow's fio job is refused: {e}\n{text}"));
                        simulate_briefly(&mut Workload::from_jobs(&jobs));
                    }
                }
            }
        }
        Err(e) => check_error(&e),
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
            Target { name: "mqsim-workload", run: mqsim_workload_target },
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
