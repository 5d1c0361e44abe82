//! as: Linux 2.6's anticipatory scheduler. Deadline-style batches with a one-way elevator that may seek back a
//! little, plus read anticipation: after a synchronous read, keep the disk idle a few milliseconds for the same
//! process's next read instead of seeking away to another's.
//!
//! Source: Linux 2.6 block/as-iosched.c and Documentation/block/as-iosched.txt. Four layers, as there:
//! 1. The elevator: per direction (synchronous, asynchronous) requests are kept in offset order; the next one
//!    is the nearest ahead of the head or, if cheaper, behind it: a backward seek counts double
//!    (BACK_PENALTY 2) and is allowed up to 512 MiB (MAXBACK).
//! 2. FIFO expiry per direction (read_expire 125 ms, write_expire 250 ms), looked at no more than once per
//!    expire interval: an expired request is served next.
//! 3. Batches: reads for read_batch_expire (500 ms, timed from the first completion of the batch); writes for
//!    write_batch_expire (125 ms) or write_batch_count requests, a count tuned after each write batch by how
//!    long it took (halved if over three times the target, one less if over, doubled or one more if well
//!    under). When both directions wait and the batch is over, the other direction goes next; a change of
//!    direction waits for the device to drain.
//! 4. Anticipation: after a synchronous request of a process, if the next request in line is not "good
//!    enough", the disk is held idle (first until that request completes, then up to antic_expire, 6 ms) for
//!    the same process. It is broken early when that process queues a request, when a request arrives that is
//!    close to the head (4 MiB, doubling for each ms of waiting, or nearer than the process's mean seek), or
//!    when the process's mean think time exceeds antic_expire. Think time and seek distance are decaying means
//!    (old weight 7/8), kept per flow. antic_expire = 0 turns AS into a deadline scheduler.
//!
//! Differences: flows stand for processes (no process exit is seen, so the exit heuristics do not apply; a flow
//! with no history is anticipated on, as Linux does when its estimates for new processes are low); times are
//! nanoseconds, not jiffies; a pending flush stops anticipation. Bound: none in requests overtaken (a process
//! that keeps its requests close keeps the disk for its batch), so `wait_bound` is unbounded.
//!
//! Cost: O(log n) per enqueue and dispatch (a [`SortedFifo`] per direction), O(1) per flow.

use super::flow_map::FlowMap;
use super::sorted_fifo::{in_arrival_order, Key, SortedFifo};
use crate::policy::{Dispatch, DispatchContext, Policy, StatValue, WaitBound};
use crate::request::Request;
use crate::tunable::{self, TunableError, TunableKind, TunableSpec};
use crate::units::{NS_PER_MS, SECTOR_BYTES};

const TUNABLES: &[TunableSpec] = &[
    TunableSpec {
        name: "read_expire",
        kind: TunableKind::Int { min: 1, max: 3_600_000, unit: "ms" },
        default: "125",
        description: "deadline of a synchronous request",
    },
    TunableSpec {
        name: "write_expire",
        kind: TunableKind::Int { min: 1, max: 3_600_000, unit: "ms" },
        default: "250",
        description: "deadline of an asynchronous request",
    },
    TunableSpec {
        name: "read_batch_expire",
        kind: TunableKind::Int { min: 1, max: 3_600_000, unit: "ms" },
        default: "500",
        description: "length of a read batch, from its first completion",
    },
    TunableSpec {
        name: "write_batch_expire",
        kind: TunableKind::Int { min: 1, max: 3_600_000, unit: "ms" },
        default: "125",
        description: "target length of a write batch (its request count is tuned toward it)",
    },
    TunableSpec {
        name: "antic_expire",
        kind: TunableKind::Int { min: 0, max: 1000, unit: "ms" },
        default: "6",
        description: "longest wait for the anticipated process's next request (0: no anticipation)",
    },
];

const SYNC: usize = 0;
const ASYNC: usize = 1;
/// A backward seek counts this many times its distance.
const BACK_PENALTY: u64 = 2;
/// The longest backward seek the elevator takes.
const MAX_BACK_BYTES: u64 = 1024 * 1024 * SECTOR_BYTES;
/// "Close" to the head at the start of a wait: 8192 sectors.
const CLOSE_BYTES: u64 = 8192 * SECTOR_BYTES;

fn dir_of(req: &Request) -> usize {
    if req.sync {
        SYNC
    } else {
        ASYNC
    }
}

/// A decaying mean in as-iosched's fixed point: samples and total weigh 7/8 of their old value per sample.
#[derive(Clone, Copy, Default)]
struct Decaying {
    samples: u64,
    total: u64,
    mean: u64,
}

impl Decaying {
    fn add(&mut self, value: u64) {
        self.samples = (7 * self.samples + 256) / 8;
        self.total = (7 * self.total + 256 * value.min(u64::MAX / 512)) / 8;
        self.mean = (self.total + 128) / self.samples.max(1);
    }
}

#[derive(Default)]
struct FlowHistory {
    last_end_ns: Option<u64>,
    last_pos_bytes: u64,
    think: Decaying,
    seek: Decaying,
    queued: u32,
    dispatched: u32,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Antic {
    Off,
    /// Waiting for the anticipated process's request at the device to complete.
    WaitRequest,
    /// It completed at `antic_start_ns`; waiting for its next request until the timer.
    WaitNext,
    /// The wait ended: serve what there is.
    Finished,
}

pub struct Anticipatory {
    expire_ns: [u64; 2],
    batch_expire_ns: [u64; 2],
    antic_expire_ns: u64,
    queues: [SortedFifo; 2],
    last_check_fifo_ns: [u64; 2],
    head_bytes: [u64; 2],
    batch_dir: usize,
    batch_expires_ns: u64,
    changed_batch: bool,
    new_batch: bool,
    write_batch_count: u64,
    current_write_count: u64,
    write_batch_idled: bool,
    /// The flow whose sync request was dispatched last (the one to anticipate), if the last was sync.
    anticipated: Option<u32>,
    antic: Antic,
    antic_start_ns: u64,
    flows: FlowMap<u32, FlowHistory>,
    seq: u64,
    queued: usize,
    dispatched: u64,
    antic_waits: u64,
    antic_broken: u64,
    antic_timeouts: u64,
    expired_dispatches: u64,
}

impl Default for Anticipatory {
    fn default() -> Self {
        Anticipatory::new()
    }
}

impl Anticipatory {
    pub fn new() -> Anticipatory {
        let write_batch_expire_ns = 125 * NS_PER_MS;
        Anticipatory {
            expire_ns: [125 * NS_PER_MS, 250 * NS_PER_MS],
            batch_expire_ns: [500 * NS_PER_MS, write_batch_expire_ns],
            antic_expire_ns: 6 * NS_PER_MS,
            queues: Default::default(),
            last_check_fifo_ns: [0; 2],
            head_bytes: [0; 2],
            batch_dir: SYNC,
            batch_expires_ns: 0,
            changed_batch: false,
            new_batch: false,
            write_batch_count: (write_batch_expire_ns / NS_PER_MS / 10).max(2),
            current_write_count: 0,
            write_batch_idled: false,
            anticipated: None,
            antic: Antic::Off,
            antic_start_ns: 0,
            flows: FlowMap::default(),
            seq: 0,
            queued: 0,
            dispatched: 0,
            antic_waits: 0,
            antic_broken: 0,
            antic_timeouts: 0,
            expired_dispatches: 0,
        }
    }

    /// The oldest request of `dir`, which must have one.
    fn oldest_key(&mut self, dir: usize) -> Key {
        self.queues[dir].oldest().expect("a direction with requests has an oldest one").0
    }

    /// Whether `dir`'s oldest request has expired, looked at no more than once per expire interval.
    fn fifo_expired(&mut self, dir: usize, now_ns: u64) -> bool {
        if now_ns.abs_diff(self.last_check_fifo_ns[dir]) < self.expire_ns[dir] {
            return false;
        }
        self.last_check_fifo_ns[dir] = now_ns;
        self.queues[dir].oldest().is_some_and(|(_, deadline_ns)| deadline_ns <= now_ns)
    }

    /// The elevator's next request of `dir`: the nearest ahead, or behind if a doubled backward seek is
    /// shorter (and within MAXBACK).
    fn next_key(&self, dir: usize) -> Option<Key> {
        let head = self.head_bytes[dir];
        let (ahead, behind) = (self.queues[dir].at_or_after(head), self.queues[dir].before(head));
        match (ahead, behind) {
            (Some(a), Some(b)) => {
                let forward = a.0 - head;
                let back = head - b.0;
                if back <= MAX_BACK_BYTES && back * BACK_PENALTY < forward {
                    Some(b)
                } else {
                    Some(a)
                }
            }
            (Some(a), None) => Some(a),
            (None, Some(b)) if head - b.0 <= MAX_BACK_BYTES => Some(b),
            // Nothing ahead and everything too far back: wrap to the lowest (the one-way elevator's restart).
            (None, Some(_)) => self.queues[dir].lowest(),
            (None, None) => None,
        }
    }

    fn batch_expired(&self, now_ns: u64) -> bool {
        if self.changed_batch || self.new_batch {
            return false;
        }
        if self.batch_dir == SYNC {
            now_ns > self.batch_expires_ns
        } else {
            now_ns > self.batch_expires_ns || self.current_write_count == 0
        }
    }

    /// Whether `req` (or the lack of one) is "close" to where the head is, for the anticipated flow.
    fn close_request(&self, req: &Request, now_ns: u64) -> bool {
        let waited_ms = if self.antic == Antic::WaitNext { (now_ns - self.antic_start_ns) / NS_PER_MS } else { 0 };
        if waited_ms > 20 || waited_ms * NS_PER_MS > self.antic_expire_ns {
            return true;
        }
        let delta = CLOSE_BYTES << waited_ms;
        let last = self.head_bytes[self.batch_dir];
        let next = req.offset_bytes;
        if last <= next + delta / 2 && next <= last + delta {
            return true;
        }
        let distance = last.abs_diff(next);
        let mean_seek = self.anticipated.and_then(|f| self.flows.get(&f)).map_or(0, |h| h.seek.mean);
        mean_seek > distance
    }

    /// as_can_break_anticipation: is there a reason to stop waiting, given `candidate`?
    fn can_break(&self, candidate: Option<&Request>, now_ns: u64) -> bool {
        let Some(flow) = self.anticipated else { return true };
        if candidate.is_some_and(|r| r.flow.0 == flow) {
            return true;
        }
        let Some(history) = self.flows.get(&flow) else { return false };
        if history.queued > 0 || (history.dispatched > 0 && self.antic == Antic::WaitNext) {
            return true;
        }
        if candidate.is_some_and(|r| r.sync && self.close_request(r, now_ns)) {
            return true;
        }
        history.think.samples > 0 && history.think.mean > self.antic_expire_ns
    }

    /// Anticipation broken (a request that is good enough arrived, or a flush is pending): finished, as
    /// as_antic_stop leaves it, so that the next dispatch serves a request instead of starting to wait again
    /// with a fresh timer (which let the disk idle past antic_expire). Dispatching a request turns it off.
    fn stop_anticipation(&mut self) {
        if matches!(self.antic, Antic::WaitRequest | Antic::WaitNext) {
            self.antic_broken += 1;
            self.antic = Antic::Finished;
        }
    }

    fn update_write_batch(&mut self, now_ns: u64) {
        let batch = self.batch_expire_ns[ASYNC] as i128;
        let write_time = ((now_ns as i128 - self.batch_expires_ns as i128) + batch).max(0);
        if write_time > batch && !self.write_batch_idled {
            if write_time > batch * 3 {
                self.write_batch_count /= 2;
            } else {
                self.write_batch_count = self.write_batch_count.saturating_sub(1);
            }
        } else if write_time < batch && self.current_write_count == 0 {
            if batch > write_time * 3 {
                self.write_batch_count *= 2;
            } else {
                self.write_batch_count += 1;
            }
        }
        self.write_batch_count = self.write_batch_count.max(1);
    }

    fn take(&mut self, dir: usize, key: Key) -> Request {
        let req = self.queues[dir].remove(&key);
        self.head_bytes[dir] = req.end_bytes();
        if dir == SYNC {
            self.anticipated = Some(req.flow.0);
        } else {
            self.anticipated = None;
            self.current_write_count = self.current_write_count.saturating_sub(1);
        }
        if let Some(h) = self.flows.get_mut(&req.flow.0) {
            h.queued = h.queued.saturating_sub(1);
            h.dispatched += 1;
        }
        self.antic = Antic::Off;
        self.queued -= 1;
        self.dispatched += 1;
        req
    }
}

impl Policy for Anticipatory {
    fn name(&self) -> &'static str {
        "as"
    }

    fn enqueue(&mut self, now_ns: u64, req: Request) {
        let dir = dir_of(&req);
        let h = self.flows.entry(req.flow.0).or_default();
        if dir == SYNC {
            if let Some(end) = h.last_end_ns {
                if h.dispatched == 0 {
                    h.think.add(now_ns.saturating_sub(end).min(500 * NS_PER_MS));
                }
            }
            let distance = if h.last_pos_bytes <= req.offset_bytes {
                req.offset_bytes - h.last_pos_bytes
            } else {
                // as-iosched charges a backward seek a little extra (1024 sectors).
                h.last_pos_bytes - req.offset_bytes + 1024 * SECTOR_BYTES
            };
            h.seek.add(distance);
            h.last_pos_bytes = req.end_bytes();
        }
        h.queued += 1;
        self.queues[dir].insert(self.seq, req, now_ns + self.expire_ns[dir]);
        self.seq += 1;
        self.queued += 1;
        if matches!(self.antic, Antic::WaitRequest | Antic::WaitNext) && self.can_break(Some(&req), now_ns) {
            self.stop_anticipation();
        }
    }

    fn dispatch(&mut self, now_ns: u64, ctx: &DispatchContext) -> Dispatch {
        // A flush waits for everything held: no anticipation while one is pending.
        let force = ctx.barrier_pending;
        if force {
            self.stop_anticipation();
        }
        let reads = !self.queues[SYNC].is_empty();
        let writes = !self.queues[ASYNC].is_empty();
        if self.batch_dir == ASYNC && !reads && (self.current_write_count == 0 || !writes) {
            self.write_batch_idled = true;
        }
        match self.antic {
            Antic::WaitRequest => return Dispatch::Nothing,
            Antic::WaitNext => {
                let deadline = self.antic_start_ns + self.antic_expire_ns;
                if now_ns < deadline {
                    return Dispatch::WaitUntil(deadline);
                }
                self.antic = Antic::Finished;
                self.antic_timeouts += 1;
            }
            Antic::Off | Antic::Finished => {}
        }
        if !(reads || writes) {
            return Dispatch::Nothing;
        }
        if self.changed_batch && ctx.in_flight > 0 {
            return Dispatch::Nothing; // a change of direction waits for the device to drain
        }
        let mut pick: Option<(usize, (u64, u64))> = None;
        if !(reads && writes && self.batch_expired(now_ns)) {
            let dir = self.batch_dir;
            let next = self.next_key(dir);
            let mut expired = false;
            if dir == SYNC && self.antic_expire_ns > 0 && !force {
                expired = self.fifo_expired(SYNC, now_ns);
                if !expired && self.antic != Antic::Finished && self.anticipated.is_some() {
                    let candidate = next.map(|k| *self.queues[SYNC].get(&k));
                    if !self.can_break(candidate.as_ref(), now_ns) {
                        // Hold the disk for the anticipated flow.
                        self.antic_waits += 1;
                        let at_device =
                            self.anticipated.and_then(|f| self.flows.get(&f)).is_some_and(|h| h.dispatched > 0);
                        if at_device {
                            self.antic = Antic::WaitRequest;
                            return Dispatch::Nothing;
                        }
                        self.antic = Antic::WaitNext;
                        self.antic_start_ns = now_ns;
                        return Dispatch::WaitUntil(now_ns + self.antic_expire_ns);
                    }
                }
            }
            if expired {
                self.expired_dispatches += 1;
                pick = Some((SYNC, self.oldest_key(SYNC)));
            } else if let Some(key) = next {
                if reads && !writes {
                    self.batch_expires_ns = now_ns + self.batch_expire_ns[SYNC];
                }
                pick = Some((dir, key));
            }
        }
        let (dir, mut key) = match pick {
            Some(p) => p,
            None => {
                // Not in a batch: choose a direction.
                let dir = if reads && !(writes && self.batch_dir == SYNC) {
                    if self.batch_dir == ASYNC {
                        self.changed_batch = true;
                    }
                    SYNC
                } else {
                    if self.batch_dir == SYNC {
                        self.changed_batch = true;
                        self.new_batch = false;
                    }
                    self.current_write_count = self.write_batch_count;
                    self.write_batch_idled = false;
                    ASYNC
                };
                self.batch_dir = dir;
                self.last_check_fifo_ns[dir] = now_ns;
                (dir, self.oldest_key(dir))
            }
        };
        if self.fifo_expired(dir, now_ns) {
            self.expired_dispatches += 1;
            key = self.oldest_key(dir);
        }
        if self.changed_batch {
            if ctx.in_flight > 0 {
                return Dispatch::Nothing;
            }
            self.changed_batch = false;
            if dir == SYNC {
                self.new_batch = true;
            } else {
                self.batch_expires_ns = now_ns + self.batch_expire_ns[ASYNC];
            }
        }
        Dispatch::Request(self.take(dir, key))
    }

    fn complete(&mut self, now_ns: u64, req: &Request) {
        if let Some(h) = self.flows.get_mut(&req.flow.0) {
            h.dispatched = h.dispatched.saturating_sub(1);
            h.last_end_ns = Some(now_ns);
        }
        if self.new_batch && self.batch_dir == dir_of(req) {
            self.update_write_batch(now_ns);
            self.batch_expires_ns = now_ns + self.batch_expire_ns[SYNC];
            self.new_batch = false;
        }
        if self.antic == Antic::WaitRequest && self.anticipated == Some(req.flow.0) {
            self.antic = Antic::WaitNext;
            self.antic_start_ns = now_ns;
        }
    }

    fn timer(&mut self, now_ns: u64) {
        if self.antic == Antic::WaitNext && now_ns >= self.antic_start_ns + self.antic_expire_ns {
            self.antic = Antic::Finished;
            self.antic_timeouts += 1;
        }
    }

    fn queued(&self) -> usize {
        self.queued
    }

    fn drain(&mut self) -> Vec<Request> {
        let mut held = Vec::with_capacity(self.queued);
        for queue in &mut self.queues {
            queue.drain_into(&mut held);
        }
        for h in self.flows.values_mut() {
            h.queued = 0;
        }
        self.antic = Antic::Off;
        self.queued = 0;
        in_arrival_order(held)
    }

    fn tunables(&self) -> &'static [TunableSpec] {
        TUNABLES
    }

    fn tunable(&self, name: &str) -> Result<String, TunableError> {
        tunable::find(self.name(), TUNABLES, name)?;
        let ns = match name {
            "read_expire" => self.expire_ns[SYNC],
            "write_expire" => self.expire_ns[ASYNC],
            "read_batch_expire" => self.batch_expire_ns[SYNC],
            "write_batch_expire" => self.batch_expire_ns[ASYNC],
            _ => self.antic_expire_ns,
        };
        Ok((ns / NS_PER_MS).to_string())
    }

    fn set_tunable(&mut self, name: &str, value: &str) -> Result<(), TunableError> {
        let spec = tunable::find(self.name(), TUNABLES, name)?;
        let ns = spec.parse_int(value)? as u64 * NS_PER_MS;
        match name {
            "read_expire" => self.expire_ns[SYNC] = ns,
            "write_expire" => self.expire_ns[ASYNC] = ns,
            "read_batch_expire" => self.batch_expire_ns[SYNC] = ns,
            "write_batch_expire" => self.batch_expire_ns[ASYNC] = ns,
            _ => {
                self.antic_expire_ns = ns;
                if ns == 0 {
                    self.antic = Antic::Off;
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
            ("antic_waits", StatValue::Count(self.antic_waits)),
            ("antic_broken", StatValue::Count(self.antic_broken)),
            ("antic_timeouts", StatValue::Count(self.antic_timeouts)),
            ("expired_dispatches", StatValue::Count(self.expired_dispatches)),
            ("write_batch_count", StatValue::Count(self.write_batch_count)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Op;

    const MS: u64 = NS_PER_MS;
    const FAR: u64 = 100 << 30;

    fn read(id: u64, flow: u32, offset_bytes: u64, now_ns: u64) -> Request {
        let mut r = Request::new(id, Op::Read, offset_bytes, 4096, flow);
        r.queued_ns = now_ns;
        r.sync = true;
        r
    }

    fn ask(p: &mut Anticipatory, now_ns: u64) -> Dispatch {
        // Every test completes what it dispatched before asking again.
        p.dispatch(
            now_ns,
            &DispatchContext { in_flight: 0, device_depth: 1, barrier_pending: false, rotational: false },
        )
    }

    fn serve(p: &mut Anticipatory, now_ns: u64, done_ns: u64) -> u32 {
        let Dispatch::Request(r) = ask(p, now_ns) else { panic!("nothing dispatched at {now_ns}") };
        p.complete(done_ns, &r);
        r.flow.0
    }

    #[test]
    fn idles_after_a_sync_read_and_gives_up_after_antic_expire() {
        let mut p = Anticipatory::new();
        p.enqueue(0, read(0, 1, 0, 0));
        assert_eq!(serve(&mut p, 0, MS), 1);
        p.enqueue(MS, read(1, 2, FAR, MS));
        // Flow 2's request is far away: the disk waits for flow 1 until antic_expire.
        assert_eq!(ask(&mut p, MS), Dispatch::WaitUntil(7 * MS));
        p.timer(7 * MS);
        assert_eq!(serve(&mut p, 7 * MS, 8 * MS), 2);
        assert_eq!(p.antic_timeouts, 1);
    }

    #[test]
    fn the_anticipated_flows_next_read_goes_first() {
        let mut p = Anticipatory::new();
        p.enqueue(0, read(0, 1, 0, 0));
        assert_eq!(serve(&mut p, 0, MS), 1);
        p.enqueue(MS, read(1, 2, FAR, MS));
        assert!(matches!(ask(&mut p, MS), Dispatch::WaitUntil(_)));
        p.enqueue(3 * MS, read(2, 1, 4096, 3 * MS));
        assert_eq!(serve(&mut p, 3 * MS, 4 * MS), 1, "flow 1 came back within the wait");
    }

    #[test]
    fn does_not_idle_for_a_flow_that_thinks_long() {
        let mut p = Anticipatory::new();
        let mut t = 0;
        // Flow 1 reads with 20 ms of think time, alone, long enough for its mean to settle.
        for i in 0..12u64 {
            p.enqueue(t, read(i, 1, i * 4096, t));
            serve(&mut p, t, t + MS);
            t += MS;
            p.timer(t + 6 * MS);
            t += 20 * MS;
        }
        p.enqueue(t, read(100, 1, 12 * 4096, t));
        serve(&mut p, t, t + MS);
        p.enqueue(t + MS, read(101, 2, FAR, t + MS));
        assert_eq!(serve(&mut p, t + MS, t + 2 * MS), 2, "no wait for a long thinker");
    }

    #[test]
    fn antic_expire_zero_is_deadline_like() {
        let mut p = Anticipatory::new();
        p.set_tunable("antic_expire", "0").unwrap();
        p.enqueue(0, read(0, 1, 0, 0));
        assert_eq!(serve(&mut p, 0, MS), 1);
        p.enqueue(MS, read(1, 2, FAR, MS));
        assert_eq!(serve(&mut p, MS, 2 * MS), 2);
    }

    #[test]
    fn backward_seeks_count_double() {
        let mut p = Anticipatory::new();
        p.set_tunable("antic_expire", "0").unwrap();
        p.enqueue(0, read(0, 1, 1 << 30, 0));
        serve(&mut p, 0, MS); // the head is now just past 1 GiB
        let head = (1u64 << 30) + 4096;
        p.enqueue(MS, read(1, 2, head - (1 << 20), MS)); // 1 MiB behind
        p.enqueue(MS, read(2, 3, head + (3 << 20), MS)); // 3 MiB ahead
        let Dispatch::Request(r) = ask(&mut p, MS) else { panic!() };
        assert_eq!(r.flow.0, 2, "2 x 1 MiB back beats 3 MiB ahead");
        p.complete(2 * MS, &r);
        p.enqueue(2 * MS, read(3, 4, r.end_bytes() - (2 << 20), 2 * MS)); // 2 MiB behind vs about 4 MiB ahead
        let Dispatch::Request(r) = ask(&mut p, 2 * MS) else { panic!() };
        assert_eq!(r.flow.0, 3, "2 x 2 MiB back does not beat 4 MiB ahead");
    }
}
