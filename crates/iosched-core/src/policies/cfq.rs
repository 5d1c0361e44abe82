//! cfq: Completely Fair Queueing. Each flow has a queue; queues wait on service trees by class (RT, BE,
//! IDLE, strictly in that order) and workload type (sync, sync-noidle, async); the queue in service gets a time
//! slice scaled by its level, and a sync queue that runs dry is idled on for its next request.
//!
//! Source: Linux block/cfq-iosched.c and Documentation/block/cfq-iosched.txt (2.6.33 to 4.x). As there:
//! - A sync queue per flow; one async queue per class and level, shared by every flow of that priority (as
//!   cfq_async_queue_prio). A sync queue is in the sync workload unless it is seeky (more
//!   than 4 of its last 32 requests seek more than 800 sectors) or its mean think time exceeds slice_idle, in
//!   which case it is sync-noidle; async queues are async.
//! - The class served is the highest with busy queues; an IDLE-class queue dispatches only when no RT or BE
//!   request completed in the last 200 ms. Within the class, the workload keeps the device for its workload
//!   slice (target_latency x its share of the class's busy queues, x slice_async / slice_sync for async, at
//!   least 2 x slice_idle for sync); the next workload is the one whose first queue has waited longest. Within
//!   the workload, queues are served in order of their key: the time they were queued plus an offset of
//!   (busy queues - 1) x (slice at level 0 - slice at their level).
//! - A queue's slice starts at its first completion: slice_sync (100 ms) or slice_async (40 ms) scaled by level
//!   as base + base/5 x (4 - level). With low_latency, when slice_sync x busy queues of the class exceeds
//!   target_latency, slices shrink to fit, not below min(slice, 2 x slice_idle x slice / slice_sync). An async
//!   queue's slice also ends after 2 x slice_async_rq x (8 - level) requests.
//! - Dispatch limits: quantum / 2 requests of the queue in service at the device (quantum when its slice is
//!   not about to end, unlimited when it is the only busy queue or the only busy sync queue); no async request
//!   while sync ones are at the device; no sync request of an idling queue while async ones are; with
//!   low_latency an async queue may have one request per slice_sync since the last delayed sync request.
//! - Idling: a sync-workload queue that runs dry waits slice_idle for its next request (after its requests at
//!   the device complete); so does the last queue of the sync-noidle workload. slice_idle is 0 on
//!   non-rotational devices. Async queues never idle.
//! - Preemption: a new request of a higher-class queue, or a sync request while an async queue is in service,
//!   ends the current slice.
//! - Within a queue (policies/flow_queue.rs): at a slice's first choice the FIFO head if it is older than
//!   fifo_expire_sync / fifo_expire_async, else a one-way elevator with back seeks up to back_seek_max at
//!   back_seek_penalty.
//!
//! Differences: there are no cgroups (group_idle is accepted and has no effect; all queues are in one group);
//! slice residuals are not carried into the next key; queues are not merged. Bound: none (a queue keeps the
//! device for its slice).
//! Cost: O(log N) in busy queues (ordered maps per class and workload), O(log n) within a queue.

use super::flow_map::{priority_queue_key, FlowMap};
use super::flow_queue::{self, FlowQueueOrder};
use super::sorted_fifo::{in_arrival_order, Key, SortedFifo};
use crate::policy::{Dispatch, DispatchContext, Policy, StatValue, WaitBound};
use crate::request::{IoClass, Request, LEVEL_MAX};
use crate::tunable::{self, TunableError, TunableKind, TunableSpec};
use crate::units::{NS_PER_MS, SECTOR_BYTES};
use std::collections::BTreeMap;

const TUNABLES: &[TunableSpec] = &[
    TunableSpec {
        name: "quantum",
        kind: TunableKind::Int { min: 1, max: 1024, unit: "requests" },
        default: "8",
        description: "requests of the queue in service at the device (half of it while its slice may end soon)",
    },
    flow_queue::TUNABLES[0],
    flow_queue::TUNABLES[1],
    flow_queue::TUNABLES[2],
    flow_queue::TUNABLES[3],
    TunableSpec {
        name: "slice_sync",
        kind: TunableKind::Int { min: 1, max: 60000, unit: "ms" },
        default: "100",
        description: "time slice of a sync queue at level 4",
    },
    TunableSpec {
        name: "slice_async",
        kind: TunableKind::Int { min: 1, max: 60000, unit: "ms" },
        default: "40",
        description: "time slice of an async queue at level 4",
    },
    TunableSpec {
        name: "slice_async_rq",
        kind: TunableKind::Int { min: 1, max: 1024, unit: "requests" },
        default: "2",
        description: "base of the request limit of an async slice (2 x this x (8 - level))",
    },
    TunableSpec {
        name: "slice_idle",
        kind: TunableKind::Int { min: 0, max: 1000, unit: "ms" },
        default: "8",
        description: "how long to wait for the next request of a sync queue (forced to 0 on non-rotational devices)",
    },
    TunableSpec {
        name: "group_idle",
        kind: TunableKind::Int { min: 0, max: 1000, unit: "ms" },
        default: "8",
        description: "idling between cgroups; accepted for compatibility, no effect (iosched has no cgroups)",
    },
    TunableSpec {
        name: "low_latency",
        kind: TunableKind::Bool,
        default: "1",
        description: "shrink slices so that every busy queue gets a turn within target_latency",
    },
    TunableSpec {
        name: "target_latency",
        kind: TunableKind::Int { min: 1, max: 60000, unit: "ms" },
        default: "300",
        description: "with low_latency, the round of all busy queues to fit in",
    },
];

const IDLE_CLASS_DELAY_NS: u64 = 200 * NS_PER_MS;
const MIN_SLICE_NS: u64 = 2 * NS_PER_MS;
const SEEK_THRESHOLD_SECTORS: u64 = 800;
const FORGET_AFTER_NS: u64 = 10 * crate::units::NS_PER_S;

/// Workload types, in CFQ's order of preference when keys tie.
const SYNC_NOIDLE: usize = 0;
const SYNC: usize = 1;
const ASYNC: usize = 2;

struct Queue {
    sync: bool,
    class: IoClass,
    level: u8,
    requests: SortedFifo,
    head_bytes: u64,
    dispatched: u32,
    /// Its place on a service tree: (class, workload, (key, sequence)), when busy and not in service.
    on_tree: Option<(usize, usize, (u64, u64))>,
    busy: bool,
    slice_new: bool,
    slice_end_ns: u64,
    slice_dispatch: u32,
    fifo_checked: bool,
    seek_history: u32,
    last_end_bytes: u64,
    last_completion_ns: Option<u64>,
    think_ns: u64,
    think_samples: u32,
    last_active_ns: u64,
}

impl Queue {
    fn seeky(&self) -> bool {
        self.seek_history.count_ones() > 4
    }
}

pub struct Cfq {
    quantum: u32,
    order: FlowQueueOrder,
    slice_sync_ns: u64,
    slice_async_ns: u64,
    slice_async_rq: u32,
    slice_idle_ns: u64,
    group_idle_ms: u64,
    low_latency: bool,
    target_latency_ns: u64,
    queues: FlowMap<u64, Queue>,
    /// [class][workload]: queues by (key, sequence).
    trees: [[BTreeMap<(u64, u64), u64>; 3]; 3],
    busy_per_class: [u32; 3],
    busy_sync: u32,
    in_service: Option<u64>,
    workload: (usize, usize),
    workload_expires_ns: u64,
    idle_until_ns: Option<u64>,
    in_flight_sync: u32,
    in_flight_async: u32,
    last_delayed_sync_ns: u64,
    last_end_request_ns: u64,
    rotational: bool,
    seq: u64,
    queued: usize,
    last_sweep_ns: u64,
    // statistics
    dispatched: u64,
    slices: u64,
    idle_waits: u64,
    preemptions: u64,
    fifo_expired: u64,
}

impl Default for Cfq {
    fn default() -> Self {
        Cfq::new()
    }
}

impl Cfq {
    pub fn new() -> Cfq {
        Cfq {
            quantum: 8,
            order: FlowQueueOrder::default(),
            slice_sync_ns: 100 * NS_PER_MS,
            slice_async_ns: 40 * NS_PER_MS,
            slice_async_rq: 2,
            slice_idle_ns: 8 * NS_PER_MS,
            group_idle_ms: 8,
            low_latency: true,
            target_latency_ns: 300 * NS_PER_MS,
            queues: FlowMap::default(),
            trees: Default::default(),
            busy_per_class: [0; 3],
            busy_sync: 0,
            in_service: None,
            workload: (1, SYNC),
            workload_expires_ns: 0,
            idle_until_ns: None,
            in_flight_sync: 0,
            in_flight_async: 0,
            last_delayed_sync_ns: 0,
            last_end_request_ns: 0,
            rotational: false,
            seq: 0,
            queued: 0,
            last_sweep_ns: 0,
            dispatched: 0,
            slices: 0,
            idle_waits: 0,
            preemptions: 0,
            fifo_expired: 0,
        }
    }

    /// cfq_prio_slice: base + base/5 x (4 - level).
    fn prio_slice_ns(&self, sync: bool, level: u8) -> u64 {
        let base = if sync { self.slice_sync_ns } else { self.slice_async_ns };
        let level = i64::from(level.min(LEVEL_MAX));
        (base as i64 + base as i64 / 5 * (4 - level)).max(1) as u64
    }

    fn effective_slice_idle(&self) -> u64 {
        if self.rotational {
            self.slice_idle_ns
        } else {
            0
        }
    }

    /// The slice of a queue now: by level, shrunk by low_latency to fit target_latency.
    fn slice_ns(&self, q: &Queue) -> u64 {
        let mut slice = self.prio_slice_ns(q.sync, q.level);
        let busy = u64::from(self.busy_per_class[q.class as usize].max(1));
        let expect_latency = self.slice_sync_ns * busy;
        if self.low_latency && expect_latency > self.target_latency_ns {
            let low_slice = slice.min(2 * self.effective_slice_idle() * slice / self.slice_sync_ns);
            slice = (slice as u128 * self.target_latency_ns as u128 / expect_latency as u128) as u64;
            slice = slice.max(low_slice);
        }
        slice.max(MIN_SLICE_NS)
    }

    fn workload_of(&self, q: &Queue) -> usize {
        if !q.sync {
            ASYNC
        } else if q.seeky() || (q.think_samples >= 8 && q.think_ns > self.effective_slice_idle()) {
            SYNC_NOIDLE
        } else {
            SYNC
        }
    }

    /// Put a busy queue on its service tree (cfq_service_tree_add); `front` puts it before every other.
    fn add_to_tree(&mut self, key: u64, now_ns: u64, front: bool) {
        let q = &self.queues[&key];
        let class = q.class as usize;
        let workload = self.workload_of(q);
        let offset = u64::from(self.busy_per_class[class].saturating_sub(1))
            * self.prio_slice_ns(true, 0).saturating_sub(self.prio_slice_ns(q.sync, q.level));
        self.seq += 1;
        let position = if front { (0, self.seq) } else { (now_ns + offset, self.seq) };
        self.trees[class][workload].insert(position, key);
        self.queues.get_mut(&key).expect("exists").on_tree = Some((class, workload, position));
    }

    fn remove_from_tree(&mut self, key: u64) {
        if let Some((class, workload, position)) = self.queues.get_mut(&key).and_then(|q| q.on_tree.take()) {
            self.trees[class][workload].remove(&position);
        }
    }

    fn mark_busy(&mut self, key: u64) {
        let q = self.queues.get_mut(&key).expect("exists");
        if !q.busy {
            q.busy = true;
            self.busy_per_class[q.class as usize] += 1;
            if q.sync {
                self.busy_sync += 1;
            }
        }
    }

    fn mark_idle(&mut self, key: u64) {
        let q = self.queues.get_mut(&key).expect("exists");
        if q.busy {
            q.busy = false;
            self.busy_per_class[q.class as usize] -= 1;
            if q.sync {
                self.busy_sync -= 1;
            }
        }
    }

    fn busy_queues(&self) -> u32 {
        self.busy_per_class.iter().sum()
    }

    /// End the slice of the queue in service; requeue it if it still has requests.
    fn expire(&mut self, now_ns: u64) {
        let Some(key) = self.in_service.take() else { return };
        self.idle_until_ns = None;
        self.slices += 1;
        if self.queues[&key].requests.is_empty() {
            self.mark_idle(key);
        } else {
            self.add_to_tree(key, now_ns, false);
        }
    }

    /// Choose the class, the workload and the queue (cfq_select_queue's choice of a new queue).
    fn select_queue(&mut self, now_ns: u64) -> Option<u64> {
        let class = (0..3).find(|c| self.trees[*c].iter().any(|t| !t.is_empty()))?;
        if class == IoClass::Idle as usize
            && (self.busy_per_class[0] + self.busy_per_class[1] > 0
                || now_ns < self.last_end_request_ns + IDLE_CLASS_DELAY_NS)
            && self.last_end_request_ns > 0
        {
            return None;
        }
        let (cur_class, cur_wl) = self.workload;
        let keep = cur_class == class && now_ns < self.workload_expires_ns && !self.trees[class][cur_wl].is_empty();
        if !keep {
            // The workload whose first queue has waited longest.
            let wl = (0..3)
                .filter_map(|wl| self.trees[class][wl].keys().next().map(|(k, _)| (*k, wl)))
                .min()
                .map(|(_, wl)| wl)?;
            let count = self.trees[class][wl].len() as u64;
            let busy = u64::from(self.busy_per_class[class]).max(count).max(1);
            let mut slice = self.target_latency_ns * count / busy;
            if wl == ASYNC {
                slice = slice * self.slice_async_ns / self.slice_sync_ns;
            } else {
                slice = slice.max(2 * self.effective_slice_idle());
            }
            self.workload = (class, wl);
            self.workload_expires_ns = now_ns + slice.max(MIN_SLICE_NS);
        }
        let (class, wl) = self.workload;
        let (&(tree_key, seq), &key) = self.trees[class][wl].iter().next()?;
        self.trees[class][wl].remove(&(tree_key, seq));
        let q = self.queues.get_mut(&key).expect("on a tree");
        q.on_tree = None;
        q.slice_new = true;
        q.slice_dispatch = 0;
        q.fifo_checked = false;
        q.slice_end_ns = u64::MAX;
        self.in_service = Some(key);
        Some(key)
    }

    /// Should the queue in service be idled on when it runs dry (cfq_should_idle)?
    fn should_idle(&self, q: &Queue) -> bool {
        if self.effective_slice_idle() == 0 || !q.sync || q.class == IoClass::Idle {
            return false;
        }
        match self.workload_of(q) {
            SYNC => true,
            SYNC_NOIDLE => self.trees[q.class as usize][SYNC_NOIDLE].is_empty(),
            _ => false,
        }
    }

    /// cfq_may_dispatch.
    fn may_dispatch(&self, q: &Queue, now_ns: u64) -> bool {
        if q.sync && self.in_flight_async > 0 && self.should_idle(q) {
            return false;
        }
        if !q.sync && self.in_flight_sync > 0 {
            return false;
        }
        let mut max_dispatch = (self.quantum / 2).max(1);
        if q.class == IoClass::Idle {
            max_dispatch = 1;
        }
        if q.dispatched >= max_dispatch {
            if q.class == IoClass::Idle {
                return false;
            }
            let promote_sync = q.sync && self.busy_sync == 1;
            let slice_used_soon =
                q.slice_new || now_ns + self.effective_slice_idle() * u64::from(q.dispatched) > q.slice_end_ns;
            if self.busy_queues() > 1 && slice_used_soon && !promote_sync {
                return false;
            }
            max_dispatch = if self.busy_queues() == 1 || promote_sync { u32::MAX } else { self.quantum };
        }
        if !q.sync && self.low_latency {
            let since_sync = now_ns.saturating_sub(self.last_delayed_sync_ns);
            let mut depth = (since_sync / self.slice_sync_ns) as u32;
            if depth == 0 && q.dispatched == 0 {
                depth = 1;
            }
            max_dispatch = max_dispatch.min(depth);
        }
        q.dispatched < max_dispatch
    }

    /// The next request of a queue (see [`FlowQueueOrder::next`]).
    fn next_request_key(&mut self, key: u64, now_ns: u64) -> Option<Key> {
        let q = self.queues.get_mut(&key)?;
        let (k, from_fifo) = self.order.next(&mut q.requests, now_ns, &mut q.fifo_checked, q.head_bytes)?;
        self.fifo_expired += u64::from(from_fifo);
        Some(k)
    }

    /// 2 x slice_async_rq x (8 - level): requests an async queue may dispatch in one slice.
    fn async_slice_requests(&self, q: &Queue) -> u32 {
        2 * self.slice_async_rq * (u32::from(LEVEL_MAX) + 1 - u32::from(q.level.min(LEVEL_MAX)))
    }
}

impl Policy for Cfq {
    fn name(&self) -> &'static str {
        "cfq"
    }

    fn enqueue(&mut self, now_ns: u64, req: Request) {
        if now_ns >= self.last_sweep_ns + FORGET_AFTER_NS {
            // Forget queues with nothing to do that have been idle a while (their think time starts over).
            self.last_sweep_ns = now_ns;
            let in_service = self.in_service;
            self.queues.retain(|key, q| {
                Some(*key) == in_service || q.busy || q.dispatched > 0 || now_ns < q.last_active_ns + FORGET_AFTER_NS
            });
        }
        let key = priority_queue_key(&req);
        let q = self.queues.entry(key).or_insert_with(|| Queue {
            sync: req.sync,
            class: req.class,
            level: req.level,
            requests: SortedFifo::default(),
            head_bytes: 0,
            dispatched: 0,
            on_tree: None,
            busy: false,
            slice_new: true,
            slice_end_ns: u64::MAX,
            slice_dispatch: 0,
            fifo_checked: false,
            seek_history: 0,
            last_end_bytes: req.offset_bytes,
            last_completion_ns: None,
            think_ns: 0,
            think_samples: 0,
            last_active_ns: now_ns,
        });
        let distance_sectors = req.offset_bytes.abs_diff(q.last_end_bytes) / SECTOR_BYTES;
        q.seek_history = (q.seek_history << 1) | u32::from(distance_sectors > SEEK_THRESHOLD_SECTORS);
        q.last_end_bytes = req.end_bytes();
        if let Some(done) = q.last_completion_ns {
            // Think time: from the queue's last completion to its next request, a decaying mean (7/8).
            let think = now_ns.saturating_sub(done);
            q.think_ns = (7 * q.think_ns + think) / 8;
            q.think_samples = q.think_samples.saturating_add(1);
        }
        q.last_active_ns = now_ns;
        self.seq += 1;
        self.queued += 1;
        let deadline = self.order.deadline_ns(now_ns, req.sync);
        q.requests.insert(self.seq, req, deadline);
        let (was_busy, class, sync) = (q.busy, q.class, q.sync);
        if self.in_service == Some(key) {
            self.idle_until_ns = None;
            return;
        }
        if !was_busy {
            let q = self.queues.get_mut(&key).expect("exists");
            q.class = req.class;
            q.level = req.level;
            self.mark_busy(key);
            self.add_to_tree(key, now_ns, false);
        }
        // Preemption (cfq_should_preempt): a higher class, or sync over async. As cfq_preempt_queue does, the
        // preempting queue goes to the front of its tree and the workload slice ends, so it is served next.
        if let Some(current) = self.in_service {
            let cur = &self.queues[&current];
            if req.class < cur.class || (sync && !cur.sync && class == cur.class) {
                self.preemptions += 1;
                self.expire(now_ns);
                self.remove_from_tree(key);
                self.add_to_tree(key, now_ns, true);
                self.workload_expires_ns = 0;
            }
        }
    }

    fn dispatch(&mut self, now_ns: u64, ctx: &DispatchContext) -> Dispatch {
        self.rotational = ctx.rotational;
        // At most two rounds: a slice that ends and the next queue's, which is new (its slice starts at its first
        // completion) and has requests, so it dispatches or waits for the device.
        for _ in 0..2 {
            let key = match self.in_service {
                Some(key) => key,
                None => match self.select_queue(now_ns) {
                    Some(key) => key,
                    None => {
                        if self.queued > 0 && self.busy_per_class[0] + self.busy_per_class[1] == 0 {
                            // Only IDLE-class work, held for 200 ms after the last RT or BE completion.
                            return Dispatch::WaitUntil(
                                (self.last_end_request_ns + IDLE_CLASS_DELAY_NS).max(now_ns + 1),
                            );
                        }
                        return Dispatch::Nothing;
                    }
                },
            };
            let q = &self.queues[&key];
            let slice_over = !q.slice_new && now_ns >= q.slice_end_ns;
            let async_limit = !q.sync && q.slice_dispatch >= self.async_slice_requests(q);
            if (slice_over || async_limit) && !(ctx.barrier_pending && q.requests.is_empty()) {
                self.expire(now_ns);
                continue;
            }
            if !q.requests.is_empty() {
                if !self.may_dispatch(q, now_ns) {
                    return Dispatch::Nothing;
                }
                self.idle_until_ns = None;
                let k = self.next_request_key(key, now_ns).expect("has requests");
                let q = self.queues.get_mut(&key).expect("exists");
                let req = q.requests.remove(&k);
                q.head_bytes = req.end_bytes();
                q.dispatched += 1;
                q.slice_dispatch += 1;
                if req.sync {
                    self.in_flight_sync += 1;
                } else {
                    self.in_flight_async += 1;
                }
                self.queued -= 1;
                self.dispatched += 1;
                return Dispatch::Request(req);
            }
            // Ran dry: idle for its next request if it is worth it, else end the slice.
            if ctx.barrier_pending || !self.should_idle(q) {
                self.expire(now_ns);
                continue;
            }
            if q.dispatched > 0 {
                return Dispatch::Nothing; // idling starts when its last request completes
            }
            let idle = self.effective_slice_idle();
            let until = *self.idle_until_ns.get_or_insert_with(|| now_ns + idle);
            if now_ns >= until {
                self.expire(now_ns);
                continue;
            }
            if self.idle_until_ns == Some(now_ns + idle) {
                self.idle_waits += 1;
            }
            return Dispatch::WaitUntil(until);
        }
        debug_assert!(false, "a newly selected queue neither dispatched nor waited");
        Dispatch::WaitUntil(now_ns + 1)
    }

    fn complete(&mut self, now_ns: u64, req: &Request) {
        if req.sync {
            self.in_flight_sync = self.in_flight_sync.saturating_sub(1);
        } else {
            self.in_flight_async = self.in_flight_async.saturating_sub(1);
        }
        if req.class != IoClass::Idle {
            self.last_end_request_ns = now_ns;
        }
        if req.sync && now_ns.saturating_sub(req.queued_ns) > self.slice_sync_ns {
            self.last_delayed_sync_ns = now_ns;
        }
        let key = priority_queue_key(req);
        let in_service = self.in_service == Some(key);
        let Some(q) = self.queues.get_mut(&key) else { return };
        q.dispatched = q.dispatched.saturating_sub(1);
        q.last_completion_ns = Some(now_ns);
        q.last_active_ns = now_ns;
        if in_service && q.slice_new {
            // The slice starts at the queue's first completion.
            q.slice_new = false;
            let q = &self.queues[&key];
            let end = now_ns + self.slice_ns(q);
            self.queues.get_mut(&key).expect("exists").slice_end_ns = end;
        }
    }

    fn queued(&self) -> usize {
        self.queued
    }

    fn drain(&mut self) -> Vec<Request> {
        let mut held = Vec::with_capacity(self.queued);
        let keys: Vec<u64> = self.queues.keys().copied().collect();
        for key in keys {
            self.remove_from_tree(key);
            self.mark_idle(key);
            self.queues.get_mut(&key).expect("exists").requests.drain_into(&mut held);
        }
        self.in_service = None;
        self.idle_until_ns = None;
        self.queued = 0;
        in_arrival_order(held)
    }

    fn tunables(&self) -> &'static [TunableSpec] {
        TUNABLES
    }

    fn tunable(&self, name: &str) -> Result<String, TunableError> {
        tunable::find(self.name(), TUNABLES, name)?;
        if let Some(value) = self.order.tunable(name) {
            return Ok(value);
        }
        let ms = |ns: u64| (ns / NS_PER_MS).to_string();
        Ok(match name {
            "quantum" => self.quantum.to_string(),
            "slice_sync" => ms(self.slice_sync_ns),
            "slice_async" => ms(self.slice_async_ns),
            "slice_async_rq" => self.slice_async_rq.to_string(),
            "slice_idle" => ms(self.slice_idle_ns),
            "group_idle" => self.group_idle_ms.to_string(),
            "low_latency" => u8::from(self.low_latency).to_string(),
            "target_latency" => ms(self.target_latency_ns),
            _ => unreachable!("every tunable is listed"),
        })
    }

    fn set_tunable(&mut self, name: &str, value: &str) -> Result<(), TunableError> {
        let spec = tunable::find(self.name(), TUNABLES, name)?;
        if let Some(result) = self.order.set_tunable(name, value) {
            return result;
        }
        if name == "low_latency" {
            self.low_latency = spec.parse_bool(value)?;
            return Ok(());
        }
        let v = spec.parse_int(value)? as u64;
        match name {
            "quantum" => self.quantum = v as u32,
            "slice_sync" => self.slice_sync_ns = v * NS_PER_MS,
            "slice_async" => self.slice_async_ns = v * NS_PER_MS,
            "slice_async_rq" => self.slice_async_rq = v as u32,
            "slice_idle" => self.slice_idle_ns = v * NS_PER_MS,
            "group_idle" => self.group_idle_ms = v,
            "target_latency" => self.target_latency_ns = v * NS_PER_MS,
            _ => unreachable!("every tunable is listed"),
        }
        Ok(())
    }

    fn wait_bound(&self) -> WaitBound {
        WaitBound::Unbounded
    }

    fn stats(&self) -> Vec<(&'static str, StatValue)> {
        let c = StatValue::Count;
        vec![
            ("dispatched", c(self.dispatched)),
            ("busy_queues", c(u64::from(self.busy_queues()))),
            ("slices", c(self.slices)),
            ("idle_waits", c(self.idle_waits)),
            ("preemptions", c(self.preemptions)),
            ("fifo_expired", c(self.fifo_expired)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Op;

    const CTX: DispatchContext =
        DispatchContext { in_flight: 0, device_depth: 1, barrier_pending: false, rotational: true };

    /// Backlogged flows of sequential sync reads, one request at the device at a time, each taking `service_ns`:
    /// which flow was served, when, for `duration_ns`.
    fn serve(p: &mut Cfq, flows: &[(u32, IoClass, u8)], service_ns: u64, duration_ns: u64) -> Vec<(u64, u32)> {
        let mut id = 0;
        let mut next_offset = FlowMap::default();
        let mut add = |p: &mut Cfq, flow: u32, class: IoClass, level: u8, now: u64| {
            let off = next_offset.entry(flow).or_insert(u64::from(flow) << 32);
            let mut r = Request::new(id, Op::Read, *off, 4096, flow);
            r.class = class;
            r.level = level;
            r.queued_ns = now;
            *off += 4096;
            id += 1;
            p.enqueue(now, r);
        };
        for &(flow, class, level) in flows {
            for _ in 0..4 {
                add(p, flow, class, level, 0);
            }
        }
        let mut log = Vec::new();
        let mut now = 0;
        while now < duration_ns {
            match p.dispatch(now, &CTX) {
                Dispatch::Request(mut r) => {
                    log.push((now, r.flow.0));
                    r.dispatched_ns = now;
                    now += service_ns;
                    r.completed_ns = now;
                    p.complete(now, &r);
                    let &(_, class, level) = flows.iter().find(|f| f.0 == r.flow.0).expect("a known flow");
                    add(p, r.flow.0, class, level, now);
                }
                Dispatch::WaitUntil(at) => now = at,
                Dispatch::Nothing => panic!("backlogged flows always have work"),
            }
        }
        log
    }

    #[test]
    fn rt_is_served_before_be_before_idle() {
        let mut p = Cfq::new();
        let log = serve(
            &mut p,
            &[(1, IoClass::Idle, 4), (2, IoClass::Be, 4), (3, IoClass::Rt, 4)],
            NS_PER_MS,
            500 * NS_PER_MS,
        );
        assert!(log.iter().all(|(_, f)| *f == 3), "only the RT flow while it is backlogged");
        // Without the RT flow, BE; the IDLE flow only 200 ms after the BE flow's requests stop.
        let mut p = Cfq::new();
        let log = serve(&mut p, &[(1, IoClass::Idle, 4), (2, IoClass::Be, 4)], NS_PER_MS, 500 * NS_PER_MS);
        assert!(log.iter().all(|(_, f)| *f == 2));
        let mut p = Cfq::new();
        let mut r = Request::new(0, Op::Read, 0, 4096, 1);
        r.class = IoClass::Idle;
        p.enqueue(0, r);
        let mut b = Request::new(1, Op::Read, 1 << 30, 4096, 2);
        b.queued_ns = 0;
        p.enqueue(0, b);
        let Dispatch::Request(mut got) = p.dispatch(0, &CTX) else { panic!() };
        assert_eq!(got.flow.0, 2);
        got.dispatched_ns = 0;
        got.completed_ns = NS_PER_MS;
        p.complete(NS_PER_MS, &got);
        // BE ran dry: idle on it for slice_idle, then the IDLE class waits out 200 ms from the BE completion.
        assert_eq!(p.dispatch(NS_PER_MS, &CTX), Dispatch::WaitUntil(9 * NS_PER_MS));
        assert_eq!(p.dispatch(9 * NS_PER_MS, &CTX), Dispatch::WaitUntil(201 * NS_PER_MS));
        assert!(matches!(p.dispatch(201 * NS_PER_MS, &CTX), Dispatch::Request(r) if r.flow.0 == 1));
    }

    /// Lengths of each turn (ms, from the turn's first dispatch to the next flow's) of each flow.
    fn turns_ms(log: &[(u64, u32)]) -> Vec<(u32, u64)> {
        let mut turns = Vec::new();
        let mut start = 0;
        for i in 1..log.len() {
            if log[i].1 != log[i - 1].1 {
                turns.push((log[i - 1].1, (log[i].0 - log[start].0) / NS_PER_MS));
                start = i;
            }
        }
        turns
    }

    #[test]
    fn a_sync_request_preempts_an_async_slice_and_is_served_next() {
        let mut p = Cfq::new();
        for i in 0..20u64 {
            let mut w = Request::new(i, Op::Write, i * 4096, 4096, 1);
            w.sync = false;
            p.enqueue(0, w);
        }
        let Dispatch::Request(mut w) = p.dispatch(0, &CTX) else { panic!() };
        w.dispatched_ns = 0;
        w.completed_ns = NS_PER_MS;
        p.complete(NS_PER_MS, &w);
        p.enqueue(NS_PER_MS, Request::new(100, Op::Read, 1 << 30, 4096, 2));
        assert!(matches!(p.dispatch(NS_PER_MS, &CTX), Dispatch::Request(r) if r.id.0 == 100));
        assert_eq!(p.stats().iter().find(|(n, _)| *n == "preemptions").unwrap().1, StatValue::Count(1));
    }

    #[test]
    fn flows_of_one_priority_share_one_async_queue_served_as_one_elevator() {
        // Two flows' async writes, interleaved on the disk: one queue (cfq_async_queue_prio), so one elevator
        // sweep takes them in offset order across both flows; at another level, a queue of its own.
        let mut p = Cfq::new();
        for i in 0..8u64 {
            let mut w = Request::new(i, Op::Write, (7 - i) * 8192 + (i % 2) * 4096, 4096, 1 + (i % 2) as u32);
            w.sync = false;
            p.enqueue(0, w);
        }
        let mut other = Request::new(100, Op::Write, 1 << 30, 4096, 3);
        (other.sync, other.level) = (false, 0);
        p.enqueue(0, other);
        assert_eq!(p.queues.len(), 2, "one async queue per class and level");
        let mut offsets = Vec::new();
        let mut now = 0;
        while offsets.len() < 8 {
            let Dispatch::Request(mut r) = p.dispatch(now, &CTX) else { panic!("async work waits") };
            r.dispatched_ns = now;
            now += NS_PER_MS;
            r.completed_ns = now;
            p.complete(now, &r);
            if r.level == 4 {
                offsets.push(r.offset_bytes);
            }
        }
        let mut sorted = offsets.clone();
        sorted.sort_unstable();
        assert_eq!(offsets, sorted, "one sweep across both flows");
    }

    #[test]
    fn slices_scale_with_level() {
        // Level 0: 100 + 20 x 4 = 180 ms; level 7: 100 - 20 x 3 = 40 ms; each from the first completion (+1 ms).
        let mut p = Cfq::new();
        p.set_tunable("low_latency", "0").unwrap();
        let log = serve(&mut p, &[(1, IoClass::Be, 0), (2, IoClass::Be, 7)], NS_PER_MS, 2000 * NS_PER_MS);
        let turns = turns_ms(&log);
        assert!(turns.len() >= 4, "{turns:?}");
        for (flow, ms) in &turns[1..] {
            assert_eq!(*ms, if *flow == 1 { 181 } else { 41 }, "{turns:?}");
        }
    }

    #[test]
    fn low_latency_shrinks_slices_to_fit_the_target() {
        // Four sync queues at level 4: 4 x 100 ms > 300 ms, so each slice is 100 x 300 / 400 = 75 ms.
        let mut p = Cfq::new();
        let flows: Vec<(u32, IoClass, u8)> = (1..=4).map(|f| (f, IoClass::Be, 4)).collect();
        let log = serve(&mut p, &flows, NS_PER_MS, 2000 * NS_PER_MS);
        let turns = turns_ms(&log);
        assert!(turns[1..].iter().all(|(_, ms)| *ms == 76), "{turns:?}");
        // Without low_latency: 100 ms.
        let mut p = Cfq::new();
        p.set_tunable("low_latency", "0").unwrap();
        let turns = turns_ms(&serve(&mut p, &flows, NS_PER_MS, 2000 * NS_PER_MS));
        assert!(turns[1..].iter().all(|(_, ms)| *ms == 101), "{turns:?}");
    }
}
