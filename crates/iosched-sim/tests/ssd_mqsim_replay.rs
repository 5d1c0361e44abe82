//! Issue 4, done-when 4: MQSim's traces (../shared/data/mqsim/) replay on `ssd:nvme`, open loop at their
//! recorded times, every request completing once. The simulation rate is printed; BENCHMARKS.md records it
//! (`cargo run --release -p iosched-sim --example replay_mqsim`).

use iosched_core::registry;
use iosched_device::parse_spec;
use iosched_sim::engine::{simulate, SimConfig};
use iosched_sim::workload::{Replay, Workload};
use iosched_workload::trace::{self, Format};

#[test]
fn mqsim_traces_replay_on_the_nvme_preset() {
    let Some(dir) = iosched_test_data::dir("mqsim") else { return };
    for name in ["wsrch-small", "tpcc-small"] {
        let trace = trace::read(&dir.join(format!("{name}.trace")), Some(Format::Mqsim)).unwrap();
        let records = &trace.records;
        let mut workload = Workload::default();
        workload.add_trace(name, &trace, Replay::Open { time_scale: 1.0 });
        let device = parse_spec("ssd:nvme").unwrap();
        let start = std::time::Instant::now();
        let out = simulate(
            &workload,
            registry::create("noop").unwrap(),
            device,
            Vec::new(),
            &SimConfig { seed: 1, record_log: false },
        )
        .unwrap();
        let wall = start.elapsed().as_secs_f64();
        let r = &out.result;
        assert_eq!(r.requests_submitted, records.len() as u64, "{name}");
        assert_eq!(r.requests_completed, records.len() as u64, "{name}");
        eprintln!(
            "{name}: {} requests in {wall:.3} s of wall time ({:.0} per second)",
            records.len(),
            records.len() as f64 / wall
        );
    }
}
