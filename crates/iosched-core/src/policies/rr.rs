//! rr: geom_sched's round robin with anticipation. One queue per flow, served in turn; the queue in service
//! keeps the device for a budget of bytes (quantum_kb) or a time slice (quantum_ms, counted from the first
//! completion it waits for, so that its first seek is free), and when it runs dry the scheduler waits up to
//! wait_ms for its next request instead of seeking away.
//!
//! Source: FreeBSD sys/geom/sched/gs_rr.c and its README (seeds 000 and 001). As there:
//! - A queue is ready, busy (it ran dry with its last request at the device) or idling (that request
//!   completed; the wait timer runs). A request for the idling queue in service makes it ready again.
//! - No dispatch while `queue_depth` requests are at the device or the queue in service is busy or idling.
//! - Each dispatch charges the request's bytes. The slice ends when the service reaches quantum_kb or, after
//!   the queue's first completion while it is busy (anticipated), quantum_ms has passed; the queue then goes
//!   to the tail if it has work. A queue that never runs dry (a writer with writes always queued) is never
//!   busy, so only quantum_kb ends its turn: gs_rr as the seeds ran it (FreeBSD 8's g_rr_done, which starts
//!   the slice inside its anticipation branch). FreeBSD 9 and later start it at any completion of the queue.
//! - A queue that runs dry anticipates unless its request was a write and w_anticipate is 0, its mean think time
//!   exceeds wait_ms, or its mean seek distance exceeds 8 KiB. Both means are gs_rr's: samples taken once a
//!   flow has made 8 requests, think time capped at twice wait_ms and seek distance at 64 KiB, averaged with
//!   a decay of 1/8 per sample.
//!   As in gs_rr, think time is sampled only while the queue is in service, so a flow that always thinks
//!   longer than wait_ms keeps costing a wait_miss rather than learning not to be waited for.
//! - A wait that ends with the queue's next request counts a wait_hit; one that times out, a wait_miss.
//! - Requests within a queue are kept in offset order and served as a one-way elevator (gs_rr's disksort).
//! - bypass=1 sends requests straight through in arrival order (geom_sched's bypass), with no depth limit.
//! - Flows idle for expire_secs are forgotten (their statistics start over).
//!
//! Differences: times are nanoseconds rather than kernel ticks (so wait_ms=1 is 1 ms, not a 2-tick minimum);
//! a pending flush stops anticipation (the engine's barrier). Bound: none (a queue in service may keep the
//! device for its whole slice), so `wait_bound` is unbounded.
//!
//! Cost: O(1) to choose a queue (a FIFO of queues), O(log n) within a queue (an ordered map).

use super::flow_map::FlowMap;
use super::sorted_fifo::in_arrival_order;
use crate::policy::{Dispatch, DispatchContext, Policy, StatValue, WaitBound};
use crate::request::{Op, Request};
use crate::tunable::{self, TunableError, TunableKind, TunableSpec};
use crate::units::{NS_PER_MS, NS_PER_S};
use std::collections::{BTreeMap, VecDeque};

const TUNABLES: &[TunableSpec] = &[
    TunableSpec {
        name: "queue_depth",
        kind: TunableKind::Int { min: 1, max: 50, unit: "requests" },
        default: "1",
        description: "requests at the device at most",
    },
    TunableSpec {
        name: "wait_ms",
        kind: TunableKind::Int { min: 1, max: 30, unit: "ms" },
        default: "10",
        description: "how long to wait for the next request of the queue in service (anticipation)",
    },
    TunableSpec {
        name: "quantum_ms",
        kind: TunableKind::Int { min: 1, max: 500, unit: "ms" },
        default: "100",
        description: "time slice of a queue, from its first completion",
    },
    TunableSpec {
        name: "quantum_kb",
        kind: TunableKind::Int { min: 16, max: 65536, unit: "KiB" },
        default: "8192",
        description: "bytes a queue may be served in one turn",
    },
    TunableSpec {
        name: "w_anticipate",
        kind: TunableKind::Bool,
        default: "1",
        description: "anticipate after writes too",
    },
    TunableSpec {
        name: "bypass",
        kind: TunableKind::Bool,
        default: "0",
        description: "send requests straight through in arrival order",
    },
    TunableSpec {
        name: "expire_secs",
        kind: TunableKind::Int { min: 1, max: 3600, unit: "s" },
        default: "10",
        description: "forget a flow after this long without requests",
    },
];

/// gs_rr's small average: a decaying sum and count (each sample weighs 1, older ones lose 1/8 per sample).
#[derive(Clone, Copy, Default)]
struct DecayingMean {
    sum: u64,
    count: u64,
}

impl DecayingMean {
    fn add(&mut self, sample: u64) {
        self.sum = sample + self.sum - (self.sum >> 3);
        self.count = 1 + self.count - (self.count >> 3);
    }

    fn valid(&self) -> bool {
        self.count > 7
    }

    fn mean(&self) -> u64 {
        (self.sum + self.count / 2) / self.count.max(1)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Ready,
    Busy,
    Idling,
}

struct Queue {
    /// Requests by (offset, sequence).
    requests: BTreeMap<(u64, u64), Request>,
    /// Where this queue's elevator stands.
    head_bytes: u64,
    status: Status,
    in_rotation: bool,
    service_bytes: u64,
    completed_once: bool,
    slice_end_ns: u64,
    /// Recent requests, decayed as gs_rr's q_bionum: statistics count once it is above 7.
    recent: u64,
    last_submit_ns: u64,
    last_end_bytes: u64,
    think_ns: DecayingMean,
    seek_bytes: DecayingMean,
    last_active_ns: u64,
}

impl Queue {
    fn new(now_ns: u64) -> Queue {
        Queue {
            requests: BTreeMap::new(),
            head_bytes: 0,
            status: Status::Ready,
            in_rotation: false,
            service_bytes: 0,
            completed_once: false,
            slice_end_ns: 0,
            recent: 0,
            last_submit_ns: now_ns,
            last_end_bytes: 0,
            think_ns: DecayingMean::default(),
            seek_bytes: DecayingMean::default(),
            last_active_ns: now_ns,
        }
    }

    /// The next request of the queue's elevator: at or above its head, else the lowest.
    fn take_next(&mut self) -> Option<Request> {
        let key = self.requests.range((self.head_bytes, 0)..).next().or_else(|| self.requests.iter().next())?.0;
        let key = *key;
        let req = self.requests.remove(&key).expect("a key just found");
        self.head_bytes = req.offset_bytes;
        Some(req)
    }
}

pub struct RoundRobin {
    queue_depth: u32,
    wait_ns: u64,
    quantum_ns: u64,
    quantum_bytes: u64,
    w_anticipate: bool,
    bypass: bool,
    expire_ns: u64,
    queues: FlowMap<u32, Queue>,
    rotation: VecDeque<u32>,
    active: Option<u32>,
    wait_until_ns: Option<u64>,
    bypassed: VecDeque<(u64, Request)>,
    seq: u64,
    queued: usize,
    enqueues_since_sweep: u32,
    dispatched: u64,
    wait_hit: u64,
    wait_miss: u64,
    slices_ended: u64,
}

impl Default for RoundRobin {
    fn default() -> Self {
        RoundRobin::new()
    }
}

impl RoundRobin {
    pub fn new() -> RoundRobin {
        RoundRobin {
            queue_depth: 1,
            wait_ns: 10 * NS_PER_MS,
            quantum_ns: 100 * NS_PER_MS,
            quantum_bytes: 8192 * 1024,
            w_anticipate: true,
            bypass: false,
            expire_ns: 10 * NS_PER_S,
            queues: FlowMap::default(),
            rotation: VecDeque::new(),
            active: None,
            wait_until_ns: None,
            bypassed: VecDeque::new(),
            seq: 0,
            queued: 0,
            enqueues_since_sweep: 0,
            dispatched: 0,
            wait_hit: 0,
            wait_miss: 0,
            slices_ended: 0,
        }
    }

    fn should_anticipate(&self, q: &Queue, last: &Request) -> bool {
        if !self.w_anticipate && last.op != Op::Read {
            return false;
        }
        if q.think_ns.valid() && q.think_ns.mean() > self.wait_ns {
            return false;
        }
        !(q.seek_bytes.valid() && q.seek_bytes.mean() > 8192)
    }

    /// Forget flows with nothing queued that have been idle for expire_secs.
    fn sweep(&mut self, now_ns: u64) {
        let (active, expire) = (self.active, self.expire_ns);
        self.queues.retain(|flow, q| {
            Some(*flow) == active || q.in_rotation || !q.requests.is_empty() || now_ns < q.last_active_ns + expire
        });
    }

    fn release_active(&mut self) {
        self.active = None;
        self.wait_until_ns = None;
    }
}

impl Policy for RoundRobin {
    fn name(&self) -> &'static str {
        "rr"
    }

    fn enqueue(&mut self, now_ns: u64, req: Request) {
        self.seq += 1;
        self.queued += 1;
        if self.bypass {
            self.bypassed.push_back((self.seq, req));
            return;
        }
        let flow = req.flow.0;
        let wait_ns = self.wait_ns;
        let is_active = self.active == Some(flow);
        let q = self.queues.entry(flow).or_insert_with(|| Queue::new(now_ns));
        q.last_active_ns = now_ns;
        if q.requests.is_empty() {
            if is_active {
                if q.status == Status::Idling {
                    // The wait paid off (wait_hit was counted when it began).
                    self.wait_until_ns = None;
                }
                q.status = Status::Ready;
            } else if !q.in_rotation {
                q.in_rotation = true;
                self.rotation.push_back(flow);
            }
        }
        q.recent = 1 + q.recent - (q.recent >> 3);
        if is_active {
            let think = (now_ns - q.last_submit_ns).min(2 * wait_ns);
            q.last_submit_ns = now_ns;
            if q.recent > 7 {
                q.think_ns.add(think);
            }
        }
        let seek = q.last_end_bytes.abs_diff(req.offset_bytes).min(8192 * 8);
        q.last_end_bytes = req.end_bytes();
        if q.recent > 7 {
            q.seek_bytes.add(seek);
        }
        q.requests.insert((req.offset_bytes, self.seq), req);
        self.enqueues_since_sweep += 1;
        if self.enqueues_since_sweep >= 1024 {
            self.enqueues_since_sweep = 0;
            self.sweep(now_ns);
        }
    }

    fn dispatch(&mut self, now_ns: u64, ctx: &DispatchContext) -> Dispatch {
        if let Some((_, req)) = self.bypassed.pop_front() {
            self.queued -= 1;
            self.dispatched += 1;
            return Dispatch::Request(req);
        }
        if self.queued == 0 {
            return Dispatch::Nothing;
        }
        let force = ctx.barrier_pending;
        if !force && ctx.in_flight >= self.queue_depth {
            return Dispatch::Nothing;
        }
        if let Some(flow) = self.active {
            let status = self.queues[&flow].status;
            if status != Status::Ready {
                if !force {
                    return match (status, self.wait_until_ns) {
                        (Status::Idling, Some(at)) if at > now_ns => Dispatch::WaitUntil(at),
                        (Status::Idling, _) => {
                            self.timer(now_ns);
                            self.dispatch(now_ns, ctx)
                        }
                        // Busy: the completion will start the wait.
                        _ => Dispatch::Nothing,
                    };
                }
                self.release_active();
            }
        }
        let flow = match self.active {
            Some(flow) => flow,
            None => {
                let Some(flow) = self.rotation.pop_front() else { return Dispatch::Nothing };
                let q = self.queues.get_mut(&flow).expect("a queue in rotation exists");
                q.in_rotation = false;
                q.service_bytes = 0;
                q.completed_once = false;
                q.status = Status::Ready;
                self.active = Some(flow);
                flow
            }
        };
        let q = self.queues.get_mut(&flow).expect("the active queue exists");
        let req = q.take_next().expect("the queue in service has work");
        q.service_bytes += req.len_bytes;
        let expired = q.service_bytes >= self.quantum_bytes || (q.completed_once && now_ns >= q.slice_end_ns);
        let more = !q.requests.is_empty();
        if expired {
            self.slices_ended += 1;
            if more {
                q.in_rotation = true;
                self.rotation.push_back(flow);
            }
            self.release_active();
        } else if more {
            q.status = Status::Ready;
        } else {
            let anticipate = !force && {
                let q = &self.queues[&flow];
                self.should_anticipate(q, &req)
            };
            if anticipate {
                self.queues.get_mut(&flow).expect("exists").status = Status::Busy;
            } else {
                self.release_active();
            }
        }
        self.queued -= 1;
        self.dispatched += 1;
        Dispatch::Request(req)
    }

    fn complete(&mut self, now_ns: u64, req: &Request) {
        let flow = req.flow.0;
        if self.active != Some(flow) {
            return;
        }
        let (quantum_ns, wait_ns) = (self.quantum_ns, self.wait_ns);
        let Some(q) = self.queues.get_mut(&flow) else { return };
        // Only a completion the queue waits for starts its time slice (g_rr_done of the seeds' gs_rr), so a queue
        // that never runs dry is bounded by quantum_kb alone.
        if q.status == Status::Busy {
            if !q.completed_once {
                q.completed_once = true;
                q.slice_end_ns = now_ns + quantum_ns;
            }
            q.status = Status::Idling;
            self.wait_until_ns = Some(now_ns + wait_ns);
            self.wait_hit += 1;
        }
    }

    fn timer(&mut self, now_ns: u64) {
        if let (Some(flow), Some(at)) = (self.active, self.wait_until_ns) {
            if now_ns >= at && self.queues.get(&flow).is_some_and(|q| q.status == Status::Idling) {
                self.release_active();
                self.wait_hit -= 1;
                self.wait_miss += 1;
            }
        }
    }

    fn queued(&self) -> usize {
        self.queued
    }

    fn drain(&mut self) -> Vec<Request> {
        let mut held: Vec<(u64, Request)> = self.bypassed.drain(..).collect();
        for q in self.queues.values_mut() {
            held.extend(std::mem::take(&mut q.requests).into_iter().map(|((_, seq), r)| (seq, r)));
            q.in_rotation = false;
        }
        self.rotation.clear();
        self.release_active();
        self.queued = 0;
        in_arrival_order(held)
    }

    fn tunables(&self) -> &'static [TunableSpec] {
        TUNABLES
    }

    fn tunable(&self, name: &str) -> Result<String, TunableError> {
        tunable::find(self.name(), TUNABLES, name)?;
        Ok(match name {
            "queue_depth" => self.queue_depth.to_string(),
            "wait_ms" => (self.wait_ns / NS_PER_MS).to_string(),
            "quantum_ms" => (self.quantum_ns / NS_PER_MS).to_string(),
            "quantum_kb" => (self.quantum_bytes / 1024).to_string(),
            "w_anticipate" => (self.w_anticipate as u8).to_string(),
            "bypass" => (self.bypass as u8).to_string(),
            _ => (self.expire_ns / NS_PER_S).to_string(),
        })
    }

    fn set_tunable(&mut self, name: &str, value: &str) -> Result<(), TunableError> {
        let spec = tunable::find(self.name(), TUNABLES, name)?;
        match name {
            "w_anticipate" => self.w_anticipate = spec.parse_bool(value)?,
            "bypass" => {
                let bypass = spec.parse_bool(value)?;
                if bypass && !self.bypass {
                    // Requests queued per flow go through first, in arrival order.
                    let mut held = self.drain();
                    self.queued = held.len();
                    self.bypassed = held.drain(..).enumerate().map(|(i, r)| (i as u64, r)).collect();
                }
                self.bypass = bypass;
            }
            _ => {
                let v = spec.parse_int(value)? as u64;
                match name {
                    "queue_depth" => self.queue_depth = v as u32,
                    "wait_ms" => self.wait_ns = v * NS_PER_MS,
                    "quantum_ms" => self.quantum_ns = v * NS_PER_MS,
                    "quantum_kb" => self.quantum_bytes = v * 1024,
                    _ => self.expire_ns = v * NS_PER_S,
                }
            }
        }
        Ok(())
    }

    fn wait_bound(&self) -> WaitBound {
        WaitBound::Unbounded
    }

    fn stats(&self) -> Vec<(&'static str, StatValue)> {
        vec![
            ("queued", StatValue::Count(self.queued as u64)),
            ("dispatched", StatValue::Count(self.dispatched)),
            ("flows", StatValue::Count(self.queues.len() as u64)),
            ("wait_hit", StatValue::Count(self.wait_hit)),
            ("wait_miss", StatValue::Count(self.wait_miss)),
            ("slices_ended", StatValue::Count(self.slices_ended)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::FlowId;

    const MS: u64 = NS_PER_MS;

    fn req(id: u64, flow: u32, offset_bytes: u64, now_ns: u64) -> Request {
        let mut r = Request::new(id, Op::Read, offset_bytes, 4096, flow);
        r.queued_ns = now_ns;
        r.sync = true;
        r
    }

    fn ask(p: &mut RoundRobin, now_ns: u64) -> Dispatch {
        p.dispatch(
            now_ns,
            &DispatchContext { in_flight: 0, device_depth: 32, barrier_pending: false, rotational: false },
        )
    }

    fn flow_of(d: Dispatch) -> u32 {
        match d {
            Dispatch::Request(r) => r.flow.0,
            other => panic!("expected a request, got {other:?}"),
        }
    }

    /// Serve one request of the active flow and complete it at `done_ns`.
    fn serve(p: &mut RoundRobin, now_ns: u64, done_ns: u64) -> u32 {
        let Dispatch::Request(mut r) = ask(p, now_ns) else { panic!("nothing dispatched at {now_ns}") };
        r.completed_ns = done_ns;
        p.complete(done_ns, &r);
        r.flow.0
    }

    #[test]
    fn keeps_a_flow_that_comes_back_within_wait_until_its_budget_is_spent() {
        let mut p = RoundRobin::new();
        p.set_tunable("quantum_kb", "16").unwrap();
        p.enqueue(0, req(0, 1, 0, 0));
        p.enqueue(0, req(1, 2, 1 << 30, 0));
        let mut t = 0;
        let mut served = Vec::new();
        for i in 0..4u64 {
            served.push(serve(&mut p, t, t + MS));
            t += MS;
            if i == 3 {
                break; // the fourth 4 KiB spends quantum_kb: the slice ends without a wait
            }
            // Flow 1 is idling: nothing for flow 2 until the wait ends.
            assert_eq!(ask(&mut p, t), Dispatch::WaitUntil(t + 10 * MS));
            t += 3 * MS;
            p.enqueue(t, req(10 + i, 1, (i + 1) * 4096, t));
        }
        assert_eq!(served, vec![1, 1, 1, 1]);
        // The next turn is flow 2's.
        assert_eq!(flow_of(ask(&mut p, t)), 2);
        assert_eq!(p.wait_hit, 3);
    }

    #[test]
    fn a_flow_that_never_runs_dry_is_bounded_by_quantum_kb_alone() {
        // Flow 1 always has work queued (an asynchronous writer), so it is never waited for and its time slice
        // never starts (the seeds' gs_rr): it keeps the device for its whole 8 MiB quantum, here 128 requests of
        // 64 KiB over 128 ms, past the 100 ms a waited-for flow would get.
        let mut p = RoundRobin::new();
        for i in 0..300u64 {
            let mut r = req(i, 1, i * 65536, 0);
            r.len_bytes = 65536;
            p.enqueue(0, r);
        }
        p.enqueue(0, req(1000, 2, 1 << 30, 0));
        let mut t = 0;
        let mut served_before_flow_2 = 0;
        while serve(&mut p, t, t + MS) == 1 {
            served_before_flow_2 += 1;
            t += MS;
        }
        assert_eq!(served_before_flow_2, 128);
    }

    #[test]
    fn rotates_when_the_flow_does_not_come_back_within_wait() {
        let mut p = RoundRobin::new();
        p.enqueue(0, req(0, 1, 0, 0));
        p.enqueue(0, req(1, 2, 1 << 30, 0));
        assert_eq!(serve(&mut p, 0, MS), 1);
        assert_eq!(ask(&mut p, MS), Dispatch::WaitUntil(11 * MS));
        p.timer(11 * MS);
        assert_eq!(flow_of(ask(&mut p, 11 * MS)), 2);
        assert_eq!((p.wait_hit, p.wait_miss), (0, 1));
    }

    #[test]
    fn does_not_anticipate_for_a_seeky_flow_nor_after_writes_without_w_anticipate() {
        let mut p = RoundRobin::new();
        let mut t = 0;
        // Twenty rounds of flow 1 alone, each 1 GiB from the last, build its seek statistics.
        for i in 0..20u64 {
            p.enqueue(t, req(i, 1, i * (1 << 30), t));
            serve(&mut p, t, t + MS);
            t += MS;
            p.timer(t + 10 * MS);
            t += 20 * MS;
        }
        p.enqueue(t, req(100, 1, 0, t));
        p.enqueue(t, req(101, 2, 4096, t));
        assert_eq!(serve(&mut p, t, t + MS), 1);
        assert_eq!(flow_of(ask(&mut p, t + MS)), 2, "a seeky flow is not waited for");

        let mut p = RoundRobin::new();
        p.set_tunable("w_anticipate", "0").unwrap();
        let mut write = req(0, 1, 0, 0);
        write.op = Op::Write;
        p.enqueue(0, write);
        p.enqueue(0, req(1, 2, 4096, 0));
        assert_eq!(serve(&mut p, 0, MS), 1);
        assert_eq!(flow_of(ask(&mut p, MS)), 2, "no anticipation after a write");
    }

    #[test]
    fn queue_depth_and_bypass() {
        let mut p = RoundRobin::new();
        for i in 0..3 {
            p.enqueue(0, req(i, i as u32, i * 4096, 0));
        }
        assert!(matches!(ask(&mut p, 0), Dispatch::Request(_)));
        let full = DispatchContext { in_flight: 1, device_depth: 32, barrier_pending: false, rotational: false };
        assert_eq!(p.dispatch(0, &full), Dispatch::Nothing, "queue_depth 1");
        p.set_tunable("bypass", "1").unwrap();
        assert!(matches!(p.dispatch(0, &full), Dispatch::Request(r) if r.flow == FlowId(1)));
        assert!(matches!(p.dispatch(0, &full), Dispatch::Request(r) if r.flow == FlowId(2)));
        assert_eq!(p.queued(), 0);
    }
}
