//! A live engine notices a stalled policy within a bounded time and fails the requests it held, so that the
//! program waiting on them gets an error instead of hanging (engine/live.rs, LIVE_STALL_NS).

use iosched_core::policy::{Dispatch, DispatchContext, Policy, WaitBound};
use iosched_core::request::{FlowId, IoClass, Op, Request, RequestId, LEVEL_DEFAULT};
use iosched_core::tunable::{TunableError, TunableSpec};
use iosched_device::{Completion, Device};
use iosched_sim::source::Issue;
use iosched_sim::{serve, Arrival, Controls, Inlet, SimConfig};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A policy with a bug: it keeps what it is given and never dispatches or sets a timer.
#[derive(Default)]
struct Hoarder(Vec<Request>);

impl Policy for Hoarder {
    fn name(&self) -> &'static str {
        "hoarder"
    }
    fn enqueue(&mut self, _now_ns: u64, req: Request) {
        self.0.push(req);
    }
    fn dispatch(&mut self, _now_ns: u64, _ctx: &DispatchContext) -> Dispatch {
        Dispatch::Nothing
    }
    fn complete(&mut self, _now_ns: u64, _req: &Request) {}
    fn queued(&self) -> usize {
        self.0.len()
    }
    fn drain(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.0)
    }
    fn tunables(&self) -> &'static [TunableSpec] {
        &[]
    }
    fn tunable(&self, name: &str) -> Result<String, TunableError> {
        Err(unknown(name))
    }
    fn set_tunable(&mut self, name: &str, _value: &str) -> Result<(), TunableError> {
        Err(unknown(name))
    }
    fn wait_bound(&self) -> WaitBound {
        WaitBound::Unbounded
    }
}

fn unknown(name: &str) -> TunableError {
    TunableError::Unknown { policy: "hoarder".into(), name: name.into(), known: String::new(), hint: String::new() }
}

/// A live device on the real clock whose requests take 100 µs.
struct RealClock {
    opened: Instant,
    pending: Vec<(u64, u32)>,
}

impl RealClock {
    fn now_ns(&self) -> u64 {
        self.opened.elapsed().as_nanos() as u64
    }
}

impl Device for RealClock {
    fn describe(&self) -> String {
        "real-clock".into()
    }
    fn queue_depth(&self) -> u32 {
        4
    }
    fn capacity_bytes(&self) -> u64 {
        1 << 30
    }
    fn submit(&mut self, _now_ns: u64, tag: u32, _req: &Request) {
        self.pending.push((self.now_ns() + 100_000, tag));
    }
    fn next_event_ns(&self) -> Option<u64> {
        self.pending.iter().map(|p| p.0).min()
    }
    fn advance(&mut self, now_ns: u64, completed: &mut Vec<Completion>) {
        self.pending.retain(|&(at, tag)| {
            let due = at <= now_ns;
            if due {
                completed.push(Completion { tag, error: 0 });
            }
            !due
        });
    }
    fn is_live(&self) -> bool {
        true
    }
    fn wait(&mut self, until_ns: Option<u64>) -> u64 {
        // Without a time to wait for, a short nap: the inlet below has no doorbell to ring.
        let until = until_ns.unwrap_or(u64::MAX).min(self.next_event_ns().unwrap_or(u64::MAX));
        let until = until.min(self.now_ns() + 5_000_000);
        while self.now_ns() < until {
            std::thread::sleep(Duration::from_micros(200));
        }
        self.now_ns()
    }
}

/// One program's reads, all sent at once; the inlet closes once every one is answered.
struct Program {
    to_send: u64,
    sent: bool,
    answers: Arc<Mutex<Vec<(u64, i32, Instant)>>>,
}

impl Inlet for Program {
    fn take(&mut self, out: &mut Vec<Arrival>) -> bool {
        if !self.sent {
            self.sent = true;
            for token in 0..self.to_send {
                let issue = Issue {
                    op: Op::Read,
                    offset_bytes: token * 4096,
                    len_bytes: 4096,
                    flow: FlowId(0),
                    class: IoClass::Be,
                    level: LEVEL_DEFAULT,
                    sync: true,
                    verify: false,
                    fua: false,
                    trim_ranges: false,
                };
                out.push(Arrival { issue, token });
            }
            return true;
        }
        (self.answers.lock().unwrap().len() as u64) < self.to_send
    }
    fn admitted(&mut self, _token: u64, _id: RequestId) {}
    fn refused(&mut self, token: u64) {
        panic!("request {token} refused");
    }
    fn completed(&mut self, req: &Request) {
        self.answers.lock().unwrap().push((req.id.0, req.error, Instant::now()));
    }
    fn flow_name(&self, _flow: FlowId) -> String {
        "program".into()
    }
}

fn run(policy: Box<dyn Policy>) -> (Vec<(u64, i32, Instant)>, Instant, iosched_core::results::RunResult) {
    let answers = Arc::new(Mutex::new(Vec::new()));
    let inlet = Box::new(Program { to_send: 3, sent: false, answers: answers.clone() });
    let device = Box::new(RealClock { opened: Instant::now(), pending: Vec::new() });
    let started = Instant::now();
    // On a thread, so that an engine that hangs fails the test instead of hanging the suite.
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(serve(inlet, policy, device, &SimConfig { seed: 1, record_log: false }, Controls::default()));
    });
    let out = finished
        .recv_timeout(Duration::from_secs(10))
        .expect("the engine ends within 10 s: a stalled policy's requests do not hang their program")
        .expect("the engine ends without an error: the stalled requests were failed, not lost");
    let answers = answers.lock().unwrap().clone();
    (answers, started, out.result)
}

#[test]
fn a_stalled_policy_fails_its_requests_within_the_stall_limit() {
    let (answers, started, result) = run(Box::<Hoarder>::default());
    assert_eq!(answers.len(), 3, "every request is answered exactly once");
    let limit = Duration::from_nanos(iosched_sim::engine::LIVE_STALL_NS);
    for &(id, error, at) in &answers {
        assert_eq!(error, 5, "request {id} fails with EIO");
        let waited = at - started;
        assert!(waited >= limit, "request {id} failed after {waited:?}, before the stall limit {limit:?}");
        assert!(waited < limit + Duration::from_millis(500), "request {id} failed only after {waited:?}");
    }
    assert_eq!(result.requests_completed, 3);
}

#[test]
fn a_policy_that_dispatches_is_never_taken_for_stalled() {
    let (answers, started, _) = run(iosched_core::registry::create("noop").unwrap());
    assert_eq!(answers.len(), 3);
    for &(id, error, at) in &answers {
        assert_eq!(error, 0, "request {id}");
        assert!(at - started < Duration::from_millis(200), "request {id} took {:?}", at - started);
    }
}
