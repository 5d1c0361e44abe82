//! deadline: Linux's mq-deadline. Batches in one direction in ascending offset order, a read preference that
//! lets writes in after `writes_starved` read batches, and per-request deadlines checked between batches.
//!
//! Source: Linux block/mq-deadline.c and Documentation/block/deadline-iosched.rst. Behaviour, as there:
//! - Each request sits in an offset-sorted set and in a FIFO of its direction (reads; writes and trims, which
//!   mq-deadline counts as writes) within its priority class, with the deadline `queued + read_expire` or
//!   `queued + write_expire`.
//! - A batch serves up to `fifo_batch` requests of one direction, each the next in offset order after the one
//!   before. Between batches, reads are preferred, but once reads have been chosen over waiting writes
//!   `writes_starved` times, a write batch runs. A new batch starts at the FIFO's head if that request's
//!   deadline has passed (or nothing lies ahead in offset order), otherwise it goes on in offset order from
//!   where the direction last stopped. Deadlines are only looked at between batches, so an expired request
//!   waits at most for the batch in progress.
//! - Classes RT, BE, IDLE are served strictly in that order, except that a BE or IDLE request older than
//!   `prio_aging_expire` is served first when a higher class has work (mq-deadline's aging).
//! - async_depth: at most this many asynchronous requests (write-back) at the device at once (0: the device's
//!   depth, mq-deadline's default).
//!
//! Not modelled: front_merges is a tunable for compatibility but has no effect, since iosched's engines do not
//! merge requests. Bound: none in requests overtaken, so `wait_bound` is unbounded; in time, within its class, a
//! request that has expired and is the oldest of its direction goes within 2 x fifo_batch dispatches (a read:
//! the batch in progress and one forced write batch; none if writes_starved is 0, when writes always go first)
//! or (writes_starved + 1) x fifo_batch (a write), as tests/policy_properties.rs checks.
//!
//! Cost: O(log n) per enqueue and dispatch (a [`SortedFifo`] per class and direction).

use super::sorted_fifo::{in_arrival_order, Key, SortedFifo};
use crate::policy::{Dispatch, DispatchContext, Policy, StatValue, WaitBound};
use crate::request::{IoClass, Op, Request};
use crate::tunable::{self, TunableError, TunableKind, TunableSpec};
use crate::units::NS_PER_MS;

const TUNABLES: &[TunableSpec] = &[
    TunableSpec {
        name: "read_expire",
        kind: TunableKind::Int { min: 1, max: 3_600_000, unit: "ms" },
        default: "500",
        description: "deadline of a read after it is queued",
    },
    TunableSpec {
        name: "write_expire",
        kind: TunableKind::Int { min: 1, max: 3_600_000, unit: "ms" },
        default: "5000",
        description: "deadline of a write (or trim) after it is queued",
    },
    TunableSpec {
        name: "writes_starved",
        kind: TunableKind::Int { min: 0, max: 1_000_000, unit: "read batches" },
        default: "2",
        description: "read batches chosen over waiting writes before a write batch must run",
    },
    TunableSpec {
        name: "fifo_batch",
        kind: TunableKind::Int { min: 1, max: 1_000_000, unit: "requests" },
        default: "16",
        description: "requests of one direction served in offset order before deadlines are checked",
    },
    TunableSpec {
        name: "front_merges",
        kind: TunableKind::Bool,
        default: "1",
        description: "kept for compatibility with mq-deadline; no effect (requests are not merged)",
    },
    TunableSpec {
        name: "prio_aging_expire",
        kind: TunableKind::Int { min: 0, max: 3_600_000, unit: "ms" },
        default: "10000",
        description: "a BE or IDLE request older than this is served before higher classes (0: never)",
    },
    TunableSpec {
        name: "async_depth",
        kind: TunableKind::Int { min: 0, max: 65536, unit: "requests" },
        default: "0",
        description: "asynchronous requests at the device at most (0: the device's depth)",
    },
];

const READ: usize = 0;
const WRITE: usize = 1;

fn direction(req: &Request) -> usize {
    if req.op == Op::Read {
        READ
    } else {
        WRITE
    }
}

fn class_index(class: IoClass) -> usize {
    match class {
        IoClass::Rt => 0,
        IoClass::Be => 1,
        IoClass::Idle => 2,
    }
}

/// One priority class: per direction, its requests in offset and arrival order.
#[derive(Default)]
struct ClassQueues {
    queues: [SortedFifo; 2],
    /// Where each direction's last batch stopped (the end of its last request).
    position_bytes: [u64; 2],
}

impl ClassQueues {
    fn len(&self) -> usize {
        self.queues[READ].len() + self.queues[WRITE].len()
    }

    /// The next request of `dir` in offset order from where the direction stopped.
    fn next_in_order(&self, dir: usize) -> Option<Key> {
        self.queues[dir].at_or_after(self.position_bytes[dir])
    }

    fn take(&mut self, dir: usize, key: Key) -> Request {
        let req = self.queues[dir].remove(&key);
        self.position_bytes[dir] = req.end_bytes();
        req
    }
}

pub struct Deadline {
    read_expire_ns: u64,
    write_expire_ns: u64,
    writes_starved: u64,
    fifo_batch: u64,
    front_merges: bool,
    prio_aging_expire_ns: u64,
    async_depth: u32,
    classes: [ClassQueues; 3],
    seq: u64,
    batching: u64,
    last_dir: usize,
    starved: u64,
    async_in_flight: u32,
    queued: usize,
    dispatched: u64,
    expired_dispatches: u64,
    write_batches_forced: u64,
    aged_dispatches: u64,
}

impl Default for Deadline {
    fn default() -> Self {
        Deadline::new()
    }
}

impl Deadline {
    pub fn new() -> Deadline {
        Deadline {
            read_expire_ns: 500 * NS_PER_MS,
            write_expire_ns: 5000 * NS_PER_MS,
            writes_starved: 2,
            fifo_batch: 16,
            front_merges: true,
            prio_aging_expire_ns: 10_000 * NS_PER_MS,
            async_depth: 0,
            classes: Default::default(),
            seq: 0,
            // No batch in progress: the first dispatch chooses a direction.
            batching: u64::MAX,
            last_dir: READ,
            starved: 0,
            async_in_flight: 0,
            queued: 0,
            dispatched: 0,
            expired_dispatches: 0,
            write_batches_forced: 0,
            aged_dispatches: 0,
        }
    }

    /// mq-deadline's __dd_dispatch_request for one class: go on with the batch, or start a new one.
    fn dispatch_class(&mut self, class: usize, now_ns: u64, writes_allowed: bool) -> Option<Request> {
        let q = &mut self.classes[class];
        if q.len() == 0 {
            return None;
        }
        let last = self.last_dir;
        if self.batching < self.fifo_batch && (last == READ || writes_allowed) {
            if let Some(key) = q.next_in_order(last) {
                self.batching += 1;
                return Some(q.take(last, key));
            }
        }
        let reads = !q.queues[READ].is_empty();
        let writes = !q.queues[WRITE].is_empty() && writes_allowed;
        let dir = if reads && writes && self.starved >= self.writes_starved {
            self.write_batches_forced += 1;
            WRITE
        } else if reads {
            if writes {
                self.starved += 1;
            }
            READ
        } else if writes {
            WRITE
        } else {
            return None;
        };
        if dir == WRITE {
            self.starved = 0;
        }
        let oldest = q.queues[dir].oldest();
        let expired = oldest.is_some_and(|(_, deadline_ns)| deadline_ns <= now_ns);
        let key = match (expired, q.next_in_order(dir)) {
            (false, Some(key)) => key,
            _ => {
                if expired {
                    self.expired_dispatches += 1;
                }
                oldest.expect("a direction with requests has an oldest one").0
            }
        };
        self.last_dir = dir;
        self.batching = 1;
        Some(q.take(dir, key))
    }

    /// A BE or IDLE request past prio_aging_expire while a higher class has work.
    fn aged_class(&mut self, now_ns: u64) -> Option<usize> {
        if self.prio_aging_expire_ns == 0 {
            return None;
        }
        for class in 1..3 {
            if self.classes[..class].iter().all(|q| q.len() == 0) {
                return None;
            }
            let q = &mut self.classes[class];
            for dir in [READ, WRITE] {
                if let Some((key, _)) = q.queues[dir].oldest() {
                    let queued_ns = q.queues[dir].get(&key).queued_ns;
                    if queued_ns + self.prio_aging_expire_ns <= now_ns {
                        return Some(class);
                    }
                }
            }
        }
        None
    }
}

impl Policy for Deadline {
    fn name(&self) -> &'static str {
        "deadline"
    }

    fn enqueue(&mut self, now_ns: u64, req: Request) {
        let dir = direction(&req);
        let expire = if dir == READ { self.read_expire_ns } else { self.write_expire_ns };
        let q = &mut self.classes[class_index(req.class)];
        q.queues[dir].insert(self.seq, req, now_ns + expire);
        self.seq += 1;
        self.queued += 1;
    }

    fn dispatch(&mut self, now_ns: u64, ctx: &DispatchContext) -> Dispatch {
        if self.queued == 0 {
            return Dispatch::Nothing;
        }
        let depth = if self.async_depth == 0 { ctx.device_depth } else { self.async_depth };
        let writes_allowed = self.async_in_flight < depth.max(1);
        let mut picked = None;
        if let Some(class) = self.aged_class(now_ns) {
            picked = self.dispatch_class(class, now_ns, writes_allowed);
            if picked.is_some() {
                self.aged_dispatches += 1;
            }
        }
        if picked.is_none() {
            for class in 0..3 {
                picked = self.dispatch_class(class, now_ns, writes_allowed);
                // Strict priority: a lower class waits while a higher one has work, even if that work is held
                // back (writes over async_depth).
                if picked.is_some() || self.classes[class].len() > 0 {
                    break;
                }
            }
        }
        match picked {
            Some(req) => {
                self.queued -= 1;
                self.dispatched += 1;
                if !req.sync {
                    self.async_in_flight += 1;
                }
                Dispatch::Request(req)
            }
            None => Dispatch::Nothing,
        }
    }

    fn complete(&mut self, _now_ns: u64, req: &Request) {
        if !req.sync {
            // Completions of requests a previous policy dispatched arrive too: never below zero.
            self.async_in_flight = self.async_in_flight.saturating_sub(1);
        }
    }

    fn queued(&self) -> usize {
        self.queued
    }

    fn drain(&mut self) -> Vec<Request> {
        let mut held = Vec::with_capacity(self.queued);
        for q in &mut self.classes {
            for queue in &mut q.queues {
                queue.drain_into(&mut held);
            }
        }
        self.queued = 0;
        in_arrival_order(held)
    }

    fn tunables(&self) -> &'static [TunableSpec] {
        TUNABLES
    }

    fn tunable(&self, name: &str) -> Result<String, TunableError> {
        tunable::find(self.name(), TUNABLES, name)?;
        Ok(match name {
            "read_expire" => (self.read_expire_ns / NS_PER_MS).to_string(),
            "write_expire" => (self.write_expire_ns / NS_PER_MS).to_string(),
            "writes_starved" => self.writes_starved.to_string(),
            "fifo_batch" => self.fifo_batch.to_string(),
            "front_merges" => (self.front_merges as u8).to_string(),
            "prio_aging_expire" => (self.prio_aging_expire_ns / NS_PER_MS).to_string(),
            _ => self.async_depth.to_string(),
        })
    }

    fn set_tunable(&mut self, name: &str, value: &str) -> Result<(), TunableError> {
        let spec = tunable::find(self.name(), TUNABLES, name)?;
        match name {
            "front_merges" => self.front_merges = spec.parse_bool(value)?,
            _ => {
                let v = spec.parse_int(value)? as u64;
                match name {
                    "read_expire" => self.read_expire_ns = v * NS_PER_MS,
                    "write_expire" => self.write_expire_ns = v * NS_PER_MS,
                    "writes_starved" => self.writes_starved = v,
                    "fifo_batch" => self.fifo_batch = v,
                    "prio_aging_expire" => self.prio_aging_expire_ns = v * NS_PER_MS,
                    _ => self.async_depth = v as u32,
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
            ("expired_dispatches", StatValue::Count(self.expired_dispatches)),
            ("write_batches_forced", StatValue::Count(self.write_batches_forced)),
            ("aged_dispatches", StatValue::Count(self.aged_dispatches)),
            ("async_in_flight", StatValue::Count(self.async_in_flight as u64)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(id: u64, op: Op, offset_bytes: u64, queued_ns: u64) -> Request {
        let mut r = Request::new(id, op, offset_bytes, 4096, 0);
        r.queued_ns = queued_ns;
        r.sync = op == Op::Read;
        r
    }

    fn take(p: &mut Deadline, now_ns: u64) -> Option<Request> {
        match p.dispatch(
            now_ns,
            &DispatchContext { in_flight: 0, device_depth: 32, barrier_pending: false, rotational: false },
        ) {
            Dispatch::Request(r) => Some(r),
            _ => None,
        }
    }

    #[test]
    fn batches_go_up_in_offset_order_and_writes_get_in_after_starved_read_batches() {
        let mut p = Deadline::new();
        p.set_tunable("fifo_batch", "2").unwrap();
        for (i, off) in [50u64, 10, 30, 20, 40, 60].iter().enumerate() {
            p.enqueue(0, req(i as u64, Op::Read, off * 4096, 0));
        }
        p.enqueue(0, req(9, Op::Write, 0, 0));
        let order: Vec<(Op, u64)> =
            (0..7).map(|_| take(&mut p, 1).map(|r| (r.op, r.offset_bytes / 4096)).unwrap()).collect();
        // Batches of 2 reads going up from offset 0; after 2 read batches chosen over the waiting write, the
        // write gets its batch; then reads resume where they stopped.
        assert_eq!(
            order,
            vec![
                (Op::Read, 10),
                (Op::Read, 20),
                (Op::Read, 30),
                (Op::Read, 40),
                (Op::Write, 0),
                (Op::Read, 50),
                (Op::Read, 60)
            ]
        );
    }

    #[test]
    fn an_expired_request_starts_the_next_batch_from_the_fifo() {
        let mut p = Deadline::new();
        p.enqueue(0, req(0, Op::Read, 900 * 4096, 0));
        for i in 1..=40u64 {
            p.enqueue(0, req(i, Op::Read, i * 4096, 1));
        }
        // First batch: 16 in offset order from 0 (offset 900 lies far ahead).
        for i in 1..=16u64 {
            assert_eq!(take(&mut p, 10).unwrap().offset_bytes, i * 4096);
        }
        // After read_expire, the next batch starts at the FIFO head: the far request queued first.
        assert_eq!(take(&mut p, 500 * NS_PER_MS).unwrap().offset_bytes, 900 * 4096);
        assert_eq!(p.stats()[2], ("expired_dispatches", StatValue::Count(1)));
    }

    #[test]
    fn classes_are_strict_until_aging() {
        let mut p = Deadline::new();
        let mut idle = req(0, Op::Read, 0, 0);
        idle.class = IoClass::Idle;
        p.enqueue(0, idle);
        let mut rt = req(1, Op::Read, 8192, 0);
        rt.class = IoClass::Rt;
        p.enqueue(0, rt);
        p.enqueue(0, {
            let mut r = req(2, Op::Read, 16384, 0);
            r.class = IoClass::Rt;
            r
        });
        assert_eq!(take(&mut p, 1).unwrap().class, IoClass::Rt);
        // 10 s later the idle request has aged past prio_aging_expire and goes before the RT one left.
        assert_eq!(take(&mut p, 10_000 * NS_PER_MS).unwrap().class, IoClass::Idle);
        assert_eq!(take(&mut p, 10_000 * NS_PER_MS).unwrap().class, IoClass::Rt);
    }

    #[test]
    fn async_depth_holds_back_write_back() {
        let mut p = Deadline::new();
        p.set_tunable("async_depth", "2").unwrap();
        for i in 0..4 {
            p.enqueue(0, req(i, Op::Write, i * 4096, 0));
        }
        assert!(take(&mut p, 0).is_some() && take(&mut p, 0).is_some());
        assert!(take(&mut p, 0).is_none(), "a third async write would pass async_depth");
        let done = req(0, Op::Write, 0, 0);
        p.complete(1, &done);
        assert!(take(&mut p, 1).is_some());
    }
}
