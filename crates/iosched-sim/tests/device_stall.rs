//! A simulated run whose device loses a request ends with an error naming the device, not with a result that
//! quietly counts fewer requests (every request completes exactly once, or the run says it could not).

use iosched_core::registry;
use iosched_core::request::Request;
use iosched_device::{Completion, Device};
use iosched_sim::{simulate, SimConfig, SimError, Workload};
use iosched_workload::fio::parse_str;

/// A device model with a bug: it completes each request 100 µs after submission, except the third, which it
/// forgets.
#[derive(Default)]
struct Forgetful {
    submitted: u32,
    pending: Vec<(u64, u32)>,
}

impl Device for Forgetful {
    fn describe(&self) -> String {
        "forgetful".into()
    }
    fn queue_depth(&self) -> u32 {
        4
    }
    fn capacity_bytes(&self) -> u64 {
        1 << 30
    }
    fn submit(&mut self, now_ns: u64, tag: u32, _req: &Request) {
        self.submitted += 1;
        if self.submitted != 3 {
            self.pending.push((now_ns + 100_000, tag));
        }
    }
    fn next_event_ns(&self) -> Option<u64> {
        self.pending.iter().map(|&(t, _)| t).min()
    }
    fn advance(&mut self, now_ns: u64, completed: &mut Vec<Completion>) {
        self.pending.retain(|&(t, tag)| {
            if t <= now_ns {
                completed.push(Completion { tag, error: 0 });
            }
            t > now_ns
        });
    }
}

#[test]
fn a_request_the_device_never_completes_fails_the_run_naming_the_device() {
    let jobs = parse_str("[r]\nrw=randread\nbs=4k\niodepth=4\nsize=1m\nio_size=64k\n", "r.fio").unwrap();
    let run = |device: Box<dyn Device>| {
        let policy = registry::create_with("noop", std::iter::empty()).unwrap();
        simulate(&Workload::from_jobs(&jobs), policy, device, Vec::new(), &SimConfig { seed: 1, record_log: false })
    };
    match run(Box::<Forgetful>::default()) {
        Err(e @ SimError::DeviceStalled { in_flight: 1, .. }) => {
            assert!(e.to_string().contains("forgetful"), "{e}");
        }
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("the run ended as if complete"),
    }
}
