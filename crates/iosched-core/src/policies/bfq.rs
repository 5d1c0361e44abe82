//! bfq: Budget Fair Queueing. Each flow has a queue with a weight and a budget in sectors; the queue in service
//! owns the device until its budget is used, it runs dry (after idling for its next request), or its budget
//! timeout fires. Queues are chosen by B-WF2Q+, so each gets service in proportion to its weight; budgets adapt
//! to how each queue behaves; the low-latency heuristics raise the weight of interactive and soft real-time
//! queues so that an application starting during heavy I/O starts fast.
//!
//! Source: Linux block/bfq-iosched.c, bfq-wf2q.c and Documentation/block/bfq-iosched.rst; Valente and
//! Checconi's papers (seed 004). As there:
//! - A sync queue per flow; one async queue per class and level, shared by every flow of that priority (as
//!   bfq_async_queue_prio); weight = (8 - level) x 10, or `weight.FLOW` (a flow's sync queue); RT before BE
//!   before IDLE, strictly, except that IDLE gets a turn after waiting 200 ms.
//! - B-WF2Q+ per class: a busy queue's entity has a virtual start S and finish F = S + budget / weight; among
//!   entities with S <= V the smallest F is served; V advances by service / (sum of busy weights) at each
//!   dispatch. A queue that becomes busy starts at max(V, its last F); one requeued after its turn starts at its
//!   F, recomputed from the service it actually got. Async service is charged x3; an unraised sync queue that
//!   was slow (bfq_bfqq_is_slow: seeky, or over a turn of more than 20 ms, served less than half of
//!   max_budget), or whose budget timed out with a third of it left, is charged for the time it held the device
//!   (max_budget x elapsed / timeout_sync; a turn ended by the idle timer up to where idling began) so that
//!   slow queues cannot steal time.
//! - Budget feedback at expiry (__bfq_bfqq_recalc_budget), for unraised sync queues: too idle (the idle timer
//!   fired) doubles the budget if requests are still in flight, else takes 4 x min_budget off; a budget timeout
//!   doubles it; an exhausted budget quadruples it (all capped at max_budget); a queue that ran dry gets
//!   max(service, min_budget); a preempted one keeps it. A raised sync queue gets 2 x min_budget (short turns,
//!   for latency); async queues get max_budget. max_budget = peak rate x timeout_sync once 194 budgets have been
//!   assigned (a count decaying toward 256 at each turn, (7n + 256) / 8, so after 11 turns; 16384 sectors
//!   before); min_budget = max_budget / 32. The peak rate is BFQ's per-dispatch estimate (policies/peak_rate.rs).
//! - Think time (bfq_update_io_thinktime, bfq_update_has_short_ttime): a sync queue's request that finds it idle
//!   (nothing queued or at the device, not in service) samples the time since its last completion, at most
//!   2 x slice_idle, into a decaying mean (weight 1/8); the think time is short from the start and long once
//!   over 80 (x256) samples have a mean over slice_idle / 2.
//! - I/O intensity (bfq_update_io_intensity): a sync queue is I/O-bound while, over its last 100-200 ms, it was
//!   idle (nothing queued or at the device when a request came, since its last completion) at most a fifth of
//!   the time; I/O-bound from the start.
//! - Idling, for sync queues that ran dry: when it boosts throughput (a sequential, I/O-bound queue with a short
//!   think time on a rotational device or on one without command queueing, or any queue on a rotational device
//!   without command queueing, while no raised queue is busy) or is needed for
//!   service guarantees (weights differ among active queues, those busy or with requests in flight; or a
//!   weight-raised queue competes with unraised ones or with 4 more requests in flight than its own; or the queue
//!   is the only busy one); slice_idle (8 ms), or 2 ms for a seeky queue (BFQQ_SEEKY: more than 19 of its last 32
//!   requests landed over 800 sectors from the one before) when the scenario is symmetric, and at least 20 ms for a
//!   weight-raised queue (bfq_arm_slice_timer). strict_guarantees=1 idles for every sync queue, never shorter than
//!   slice_idle, and turns injection off.
//! - low_latency: a sync queue that becomes busy for the first time or after 2 s idle is interactive: weight x30
//!   for wr_duration (bfq_wr_duration: 7 s on BFQ's reference rotational device of 213,623 sectors/s, or 2.5 s at
//!   503,540 on flash, scaled inversely with the estimated peak rate, clamped to 3-25 s; ended early after 120,000
//!   sectors). New sequential readers are raised too, with short turns and no idling among themselves: a transient
//!   that benchmarks of BFQ wait out (the S suite's transitory_duration). A sync queue that becomes busy again no
//!   sooner than its soft real-time next start (its last busy period's service at 7000 sectors/s, and at least
//!   slice_idle + 4 ms after its last request completed) is soft real-time: weight x3000 for 300 ms. 8 queues
//!   created within 180 ms of each other form a large burst and are not raised. Only queues of the default weight
//!   (40, best effort at level 4's, however it was set) are raised, as in bfq-iosched.c (new_weight == 40): another
//!   weight is taken to be controlled explicitly. A newly busy raised queue, or one of a higher class, preempts an
//!   unraised queue in service (unless preempt=0).
//! - Injection: while the queue in service waits (idling, or for its own requests in flight) and idling for it does
//!   not boost throughput (bfq_select_queue: injecting would break the pattern the idling keeps), other queues'
//!   requests are dispatched (only raised queues' while a raised queue with a short think time is in service; any
//!   queue's while the queue in service is unraised or thinks long; the first in B-WF2Q+ order, class by class,
//!   whose next request fits what its budget has left) while fewer than inject_limit requests are at the device, the
//!   queue in service's own included (bfq_choose_bfqq_for_injection's tot_rq_in_driver); the limit grows while the
//!   queue in service's requests complete within 1.5x the service time they had without injection and shrinks
//!   otherwise. It starts at 0 and probes with 1 once the queue's service time without injection is known, or at 1
//!   when its think time turns long before that (bfq_reset_inject_limit); after a probe that hurt, the next
//!   waits 1 s, doubling up to 64 s.
//! - Within a queue (policies/flow_queue.rs): at a turn's first choice the FIFO head if it is older than
//!   fifo_expire_sync / fifo_expire_async, else a one-way elevator with back seeks up to back_seek_max at
//!   back_seek_penalty.
//!
//! - max_budget_async_rq (BFQ v1-v7, the seed's BFQ; mainline dropped it, default 0 = off): an async queue in
//!   service dispatches no more while that many of its requests are at the device and other queues are busy.
//! - preempt=0: a queue becoming busy never ends the turn of the queue in service, as in the seed's BFQ (2.6.33-35,
//!   whose bfq_add_rq_rb only raises and activates it; preemption came with mainline's
//!   bfq_bfqq_handle_idle_busy_switch).
//!
//! Differences: there are no cgroups and no queue merging; an idle queue's weight leaves the weight sum at once (BFQ
//! keeps it in an idle tree until V passes its F); injection's limit adapts by the rule above rather than
//! bfq_update_inject_limit's (bfq_select_queue's other test on injection, another raised queue busy beside a raised
//! queue with a short think time, is what the raised-only rule above gives); injected service is charged to the
//! injected queue's next turn. A large burst's flag clears when the queue has been idle for 2 s. A max_budget set by
//! the user applies at once (BFQ's bfq_max_budget() gives the default until 194 budgets have been assigned). The
//! kind of device (BFQ's starting peak rate, hence the duration of raising) is learnt at the first dispatch; a queue
//! raised before it gets its duration then.
//!
//! Bound: none (a weight-raised or higher-class queue may be served indefinitely before others).
//! Cost: O(log N) per request in the number of busy queues (a B-WF2Q+ service tree per class, policies/wf2q.rs;
//! an ordered map of requests per queue; a map of weights for the symmetry test).
//!
//! Files: this one schedules; bfq/queue.rs holds a queue's state (think time, I/O intensity), bfq/raising.rs the
//! weight-raising heuristics (interactive, soft real-time, bursts), bfq/idling.rs the waiting for the queue in
//! service (idling and injection).

use super::flow_map::{priority_queue_key, FlowMap};
use super::flow_queue::{self, FlowQueueOrder};
use super::peak_rate::{self, PeakRate};
use super::sorted_fifo::{in_arrival_order, Key};
use super::wf2q::{self, ServiceTree};
use crate::policy::{Dispatch, DispatchContext, Policy, StatValue, WaitBound};
use crate::request::{IoClass, Request, LEVEL_MAX};
use crate::tunable::{self, TunableError, TunableKind, TunableSpec};
use crate::units::{NS_PER_MS, NS_PER_S, SECTOR_BYTES};
use queue::Queue;
use raising::soft_rt_next_start_ns;
use std::collections::BTreeMap;

const TUNABLES: &[TunableSpec] = &[
    TunableSpec {
        name: "slice_idle",
        kind: TunableKind::Int { min: 0, max: 1000, unit: "ms" },
        default: "8",
        description: "how long to wait for the next request of a sync queue that ran dry (0: never idle)",
    },
    TunableSpec {
        name: "strict_guarantees",
        kind: TunableKind::Bool,
        default: "0",
        description: "idle for every sync queue and never inject: guarantees over throughput",
    },
    flow_queue::TUNABLES[0],
    flow_queue::TUNABLES[1],
    flow_queue::TUNABLES[2],
    flow_queue::TUNABLES[3],
    TunableSpec {
        name: "low_latency",
        kind: TunableKind::Bool,
        default: "1",
        description: "raise the weight of interactive and soft real-time queues",
    },
    TunableSpec {
        name: "timeout_sync",
        kind: TunableKind::Int { min: 1, max: 60000, unit: "ms" },
        default: "125",
        description: "budget timeout: longest turn of a queue",
    },
    TunableSpec {
        name: "max_budget",
        kind: TunableKind::Int { min: 0, max: 1 << 30, unit: "sectors" },
        default: "0",
        description: "largest budget (0: peak rate x timeout_sync, measured)",
    },
    TunableSpec {
        name: "max_budget_async_rq",
        kind: TunableKind::Int { min: 0, max: 1024, unit: "requests" },
        default: "0",
        description:
            "async requests of a queue at the device at most while others are busy (BFQ v1-v7: 4; 0: no limit)",
    },
    TunableSpec {
        name: "preempt",
        kind: TunableKind::Bool,
        default: "1",
        description: "a newly busy raised queue takes the device from an unraised one (BFQ of 2.6.33-35: 0)",
    },
    TunableSpec {
        name: "weight.FLOW",
        kind: TunableKind::Int { min: 0, max: 1000, unit: "weight" },
        default: "0",
        description: "weight of flow FLOW, e.g. weight.3=300 (0: from its level, (8 - level) x 10)",
    },
];

const DEFAULT_MAX_BUDGET_SECTORS: u64 = 16 * 1024;
/// BFQ's bfq_stats_min_budgets: max_budget follows the peak rate once the decaying count of assigned budgets
/// reaches it (about 11 turns).
const BUDGETS_BEFORE_AUTO: u64 = 194;
const ASYNC_CHARGE_FACTOR: u64 = 3;
/// BFQ_MIN_TT: the idle wait of a seeky queue in a symmetric scenario.
const MIN_THINK_NS: u64 = 2 * NS_PER_MS;
/// The shortest wait for a weight-raised queue (bfq_arm_slice_timer).
const WR_MIN_IDLE_SLICE_NS: u64 = 20 * NS_PER_MS;
/// BFQQ_SEEKY: a queue is seeky when more than 19 of its last 32 requests were.
const SEEKY_REQUESTS: u32 = 19;
const IDLE_CLASS_TIMEOUT_NS: u64 = 200 * NS_PER_MS;
const WR_COEFF_INTERACTIVE: u64 = 30;
const WR_COEFF_SOFT_RT: u64 = 3000;
const WR_MIN_IDLE_NS: u64 = 2 * NS_PER_S;
const WR_RT_MAX_NS: u64 = 300 * NS_PER_MS;
const WR_MAX_INTERACTIVE_SECTORS: u64 = 120_000;
/// The weight of a best-effort queue at the default level 4: (8 - 4) x 10. Only such queues are raised.
const DEFAULT_WEIGHT: u64 = 40;
const WR_MAX_SOFTRT_SECTORS_PER_S: u64 = 7000;
/// Interactive raising lasts ref_wr_duration on BFQ's reference device (7 s rotational, 2.5 s not), scaled
/// inversely to the peak rate.
const WR_REF_DURATION_ROTATIONAL_NS: u64 = 7 * NS_PER_S;
const WR_REF_DURATION_NON_ROTATIONAL_NS: u64 = 2500 * NS_PER_MS;
const BURST_INTERVAL_NS: u64 = 180 * NS_PER_MS;
const LARGE_BURST: usize = 8;
const FORGET_AFTER_NS: u64 = 10 * NS_PER_S;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expiry {
    BudgetExhausted,
    BudgetTimeout,
    TooIdle,
    NoMoreRequests,
    Preempted,
}

/// The `flow` of a shared async queue: no flow's, so that weight.FLOW (a flow's sync queue) leaves it alone.
const SHARED_QUEUE_FLOW: u32 = u32::MAX;

fn sectors(req: &Request) -> u64 {
    req.len_bytes.div_ceil(SECTOR_BYTES).max(1)
}

pub struct Bfq {
    slice_idle_ns: u64,
    strict_guarantees: bool,
    /// BFQ v1-v7's bfq_max_budget_async_rq (0: off, as in mainline).
    max_async_dispatched: u32,
    /// A newly busy raised (or higher-class) queue preempts an unraised queue in service.
    preempt: bool,
    order: FlowQueueOrder,
    low_latency: bool,
    timeout_ns: u64,
    max_budget_setting: u64,
    weights: FlowMap<u32, u64>,
    queues: FlowMap<u64, Queue>,
    trees: [ServiceTree; 3],
    /// Active queues' weights (weight -> count; see Queue::counted_weight) and per-class busy counts: the
    /// symmetry test.
    active_weights: BTreeMap<u64, u32>,
    busy_per_class: [u32; 3],
    wr_busy: u32,
    in_service: Option<u64>,
    idle_until_ns: Option<u64>,
    /// When the current idle wait began.
    idle_started_ns: Option<u64>,
    /// Requests dispatched by injection and not yet completed.
    injected_ids: Vec<u64>,
    last_idle_class_service_ns: u64,
    seq: u64,
    queued: usize,
    rotational: bool,
    device_depth: u32,
    /// Requests at the device, as of the last dispatch call.
    in_flight: u32,
    /// The device's peak rate, estimated from dispatches; made at the first dispatch, when the policy learns
    /// whether the device is rotational.
    peak_rate: Option<PeakRate>,
    /// Decays toward 256 at each turn: (7 x n + 256) / 8, as BFQ's budgets_assigned.
    budgets_assigned: u64,
    last_creation_ns: Option<u64>,
    burst: Vec<u64>,
    burst_is_large: bool,
    last_sweep_ns: u64,
    // statistics
    dispatched: u64,
    expirations: [u64; 5],
    idle_waits: u64,
    injected: u64,
    raised_interactive: u64,
    raised_soft_rt: u64,
    preemptions: u64,
}

impl Default for Bfq {
    fn default() -> Self {
        Bfq::new()
    }
}

impl Bfq {
    pub fn new() -> Bfq {
        Bfq {
            slice_idle_ns: 8 * NS_PER_MS,
            strict_guarantees: false,
            max_async_dispatched: 0,
            preempt: true,
            order: FlowQueueOrder::default(),
            low_latency: true,
            timeout_ns: 125 * NS_PER_MS,
            max_budget_setting: 0,
            weights: FlowMap::default(),
            queues: FlowMap::default(),
            trees: Default::default(),
            active_weights: BTreeMap::new(),
            busy_per_class: [0; 3],
            wr_busy: 0,
            in_service: None,
            idle_until_ns: None,
            idle_started_ns: None,
            injected_ids: Vec::new(),
            last_idle_class_service_ns: 0,
            seq: 0,
            queued: 0,
            rotational: false,
            device_depth: 1,
            in_flight: 0,
            peak_rate: None,
            budgets_assigned: 0,
            last_creation_ns: None,
            burst: Vec::new(),
            burst_is_large: false,
            last_sweep_ns: 0,
            dispatched: 0,
            expirations: [0; 5],
            idle_waits: 0,
            injected: 0,
            raised_interactive: 0,
            raised_soft_rt: 0,
            preemptions: 0,
        }
    }

    fn max_budget(&self) -> u64 {
        if self.max_budget_setting > 0 {
            self.max_budget_setting
        } else if self.budgets_assigned < BUDGETS_BEFORE_AUTO {
            DEFAULT_MAX_BUDGET_SECTORS
        } else {
            self.max_budget_from_rate()
        }
    }

    /// BFQ's bfqd->bfq_max_budget as such (its is_slow and charge_time use it, not bfq_max_budget()).
    fn max_budget_field(&self) -> u64 {
        if self.max_budget_setting > 0 {
            self.max_budget_setting
        } else {
            self.max_budget_from_rate()
        }
    }

    /// bfq_calc_max_budget: peak rate x timeout_sync once the estimate has moved (the default before, as BFQ
    /// sets bfq_max_budget only in update_thr_responsiveness_params). Follows timeout_sync when it is changed.
    fn max_budget_from_rate(&self) -> u64 {
        match &self.peak_rate {
            Some(p) if p.updates() > 0 => {
                (p.sectors_per_s() as u128 * self.timeout_ns as u128 / NS_PER_S as u128).max(64) as u64
            }
            _ => DEFAULT_MAX_BUDGET_SECTORS,
        }
    }

    fn min_budget(&self) -> u64 {
        (self.max_budget() / 32).max(1)
    }

    fn base_weight(&self, q: &Queue) -> u64 {
        match self.weights.get(&q.flow) {
            Some(&w) if w > 0 => w,
            _ => (u64::from(LEVEL_MAX) + 1 - u64::from(q.level.min(LEVEL_MAX))) * 10,
        }
    }

    /// The scenario is asymmetric when active queues (busy, or with requests in flight) differ in weight, or busy
    /// queues in class (BFQ's bfq_asymmetric_scenario).
    fn asymmetric(&self) -> bool {
        self.active_weights.len() > 1 || self.busy_per_class.iter().filter(|c| **c > 0).count() > 1
    }

    fn busy_queues(&self) -> u32 {
        self.busy_per_class.iter().sum()
    }

    /// BFQ v1-v7 (the seed's BFQ, bfq_dispatch_requests): an async queue in service dispatches no more while
    /// max_budget_async_rq of its requests are at the device and other queues are busy, nor past four times
    /// that when it is alone. It keeps its turn; the next completion lets it go on.
    fn async_held_back(&self, key: u64) -> bool {
        let q = &self.queues[&key];
        let max = self.max_async_dispatched;
        !q.sync && max > 0 && q.dispatched >= max && (self.busy_queues() > 1 || q.dispatched >= 4 * max)
    }

    /// A new queue: note its creation for burst detection.
    fn create_queue(&mut self, key: u64, req: &Request, now_ns: u64) {
        self.note_creation(key, now_ns);
        let max_budget = self.max_budget();
        let queue = Queue::new(req, now_ns, max_budget * 2 / 3, self.burst_is_large);
        self.queues.insert(key, queue);
    }

    /// Put a queue with requests on its class's tree, starting at `start` (None: max(V, its last F)).
    fn activate(&mut self, key: u64, start: Option<u128>) {
        let weight = {
            let q = &self.queues[&key];
            self.base_weight(q) * q.wr_coeff
        };
        let q = self.queues.get_mut(&key).expect("a known queue");
        let class = q.class_index();
        let tree = &mut self.trees[class];
        let next_sectors = q.requests.oldest().map_or(1, |(k, _)| sectors(q.requests.get(&k)));
        q.entity_budget = q.max_budget.max(next_sectors);
        q.entity_weight = weight;
        q.start_v = start.unwrap_or_else(|| tree.vtime().max(q.finish_v));
        q.finish_v = q.start_v + wf2q::virtual_time(q.entity_budget, weight);
        tree.insert(key, q.start_v, q.finish_v);
        tree.count_weight(weight, true);
        if !q.busy {
            q.busy = true;
            self.busy_per_class[class] += 1;
            if q.wr_coeff > 1 {
                self.wr_busy += 1;
            }
        }
        self.count_weight(key, Some(weight));
    }

    /// Move a queue's entry in the symmetry test's weight counts to `weight` (None: out).
    fn count_weight(&mut self, key: u64, weight: Option<u64>) {
        let q = self.queues.get_mut(&key).expect("a known queue");
        if q.counted_weight == weight {
            return;
        }
        if let Some(old) = q.counted_weight {
            if let Some(c) = self.active_weights.get_mut(&old) {
                *c -= 1;
                if *c == 0 {
                    self.active_weights.remove(&old);
                }
            }
        }
        if let Some(new) = weight {
            *self.active_weights.entry(new).or_insert(0) += 1;
        }
        q.counted_weight = weight;
    }

    /// A queue leaves the busy set (it ran dry, or was drained).
    fn deactivate(&mut self, key: u64) {
        let q = self.queues.get_mut(&key).expect("a known queue");
        if !q.busy {
            return;
        }
        q.busy = false;
        let class = q.class_index();
        self.busy_per_class[class] -= 1;
        self.trees[class].count_weight(q.entity_weight, false);
        if q.wr_coeff > 1 {
            self.wr_busy -= 1;
        }
        if q.dispatched == 0 {
            self.count_weight(key, None);
        }
    }

    /// A queue with no requests gets one: raising decisions, activation, preemption.
    fn on_becoming_busy(&mut self, key: u64, now_ns: u64) {
        self.raise_if_due(key, now_ns);
        let q = self.queues.get_mut(&key).expect("a known queue");
        q.last_backlogged_ns = now_ns;
        q.service_from_backlogged = 0;
        q.soft_rt_update = false;
        self.update_raising(key, now_ns);
        self.activate(key, None);
        // Preemption: a raised queue, or one of a higher class, takes the device from an unraised one.
        if let Some(current) = self.in_service.filter(|_| self.preempt) {
            if current != key {
                let (new_class, new_wr) = {
                    let q = &self.queues[&key];
                    (q.class, q.wr_coeff)
                };
                let cur = &self.queues[&current];
                let higher_class = new_class < cur.class;
                let raised_over = new_class == cur.class && new_wr > 1 && cur.wr_coeff == 1;
                if higher_class || raised_over {
                    self.preemptions += 1;
                    self.expire(now_ns, Expiry::Preempted);
                }
            }
        }
    }

    /// End the turn of the queue in service: charge it, adapt its budget, requeue or deactivate it.
    fn expire(&mut self, now_ns: u64, reason: Expiry) {
        let Some(key) = self.in_service.take() else { return };
        self.idle_until_ns = None;
        self.expirations[reason as usize] += 1;
        let min_budget = self.min_budget();
        // BFQ's bfqd->bfq_max_budget (the default until the peak rate first moves), which is_slow, charge_time
        // and recalc_budget use.
        let max_budget = self.max_budget_field();
        let cap_to_max = self.budgets_assigned >= BUDGETS_BEFORE_AUTO && self.max_budget_setting == 0;
        let timeout_ns = self.timeout_ns;
        let shortest_turn_ns = if self.rotational { self.slice_idle_ns } else { MIN_THINK_NS };
        let idle_started_ns = self.idle_started_ns.take();
        let q = self.queues.get_mut(&key).expect("the queue in service exists");
        // The turn's length; ended by the idle timer, up to where the idling began (BFQ's compensate).
        let turn_end_ns = if reason == Expiry::TooIdle { idle_started_ns.unwrap_or(now_ns) } else { now_ns };
        let elapsed_ns = turn_end_ns.saturating_sub(q.slice_start_ns);
        let mut charged = q.service + std::mem::take(&mut q.injected_service);
        if !q.sync && q.wr_coeff == 1 {
            charged *= ASYNC_CHARGE_FACTOR;
        }
        // bfq_bfqq_is_slow: a seeky sync queue is slow; over a turn of more than 20 ms, so is one that got less
        // than half the largest budget. A turn under 1 ms counts as one of slice_idle (rotational) or 2 ms.
        let slow = q.sync && if elapsed_ns > 20 * NS_PER_MS { q.service < max_budget / 2 } else { q.seeky() };
        let charged_ns = if elapsed_ns < NS_PER_MS { shortest_turn_ns } else { elapsed_ns };
        let budget_left = q.entity_budget.saturating_sub(q.service);
        let timed_out_early = reason == Expiry::BudgetTimeout && budget_left >= q.entity_budget / 3;
        if q.sync && q.wr_coeff == 1 && (slow || timed_out_early) {
            // bfq_bfqq_charge_time: the share of the largest budget the turn's time is worth.
            let by_time = (max_budget as u128 * charged_ns.min(timeout_ns) as u128 / timeout_ns as u128) as u64;
            charged = charged.max(by_time);
        }
        // __bfq_bfqq_recalc_budget: feedback for unraised sync queues; a raised sync queue gets a small constant
        // budget (2 x min_budget), for latency; async queues the largest. Then all are capped by the largest
        // once enough budgets have been assigned (a preempted unraised queue is left as it was).
        let adapted = if q.sync && q.wr_coeff == 1 {
            match reason {
                Expiry::TooIdle if q.dispatched > 0 => Some((q.max_budget * 2).min(max_budget)),
                Expiry::TooIdle if q.max_budget > 5 * min_budget => Some(q.max_budget - 4 * min_budget),
                Expiry::TooIdle => Some(min_budget),
                Expiry::BudgetTimeout => Some((q.max_budget * 2).min(max_budget)),
                Expiry::BudgetExhausted => Some((q.max_budget * 4).min(max_budget)),
                Expiry::NoMoreRequests => Some(q.service.max(min_budget)),
                Expiry::Preempted => None,
            }
        } else if q.sync {
            Some(2 * min_budget)
        } else {
            Some(max_budget)
        };
        if let Some(budget) = adapted {
            q.max_budget = if cap_to_max { budget.min(max_budget) } else { budget };
        }
        let class = q.class_index();
        q.finish_v = q.start_v + wf2q::virtual_time(charged, q.entity_weight);
        let has_requests = !q.requests.is_empty();
        if !has_requests && q.sync {
            // Only a queue with nothing in flight shows whether its pattern is isochronous: with requests in
            // flight, the next start is computed when the last completes.
            if q.dispatched == 0 {
                q.soft_rt_next_start_ns = soft_rt_next_start_ns(q, now_ns, self.slice_idle_ns);
            } else {
                q.soft_rt_update = true;
            }
        }
        if class == IoClass::Idle as usize {
            self.last_idle_class_service_ns = now_ns;
        }
        // Take the entity out of the weight sum, then back in at its new position if it has work.
        self.deactivate(key);
        if has_requests {
            self.update_raising(key, now_ns);
            let start = self.queues[&key].finish_v;
            self.activate(key, Some(start));
        } else {
            let q = self.queues.get_mut(&key).expect("exists");
            q.last_empty_ns = Some(now_ns);
        }
    }

    /// Choose the next queue by class, then B-WF2Q+, and take it off its tree.
    fn select_queue(&mut self, now_ns: u64) -> Option<u64> {
        let idle_class_due = !self.trees[IoClass::Idle as usize].is_empty()
            && now_ns >= self.last_idle_class_service_ns + IDLE_CLASS_TIMEOUT_NS;
        let order: [usize; 3] = if idle_class_due { [2, 0, 1] } else { [0, 1, 2] };
        for class in order {
            if let Some(key) = self.trees[class].peek() {
                let q = &self.queues[&key];
                self.trees[class].remove(key, q.start_v, q.finish_v);
                return Some(key);
            }
        }
        None
    }

    /// The next request of a queue (see [`FlowQueueOrder::next`]).
    fn next_request_key(&mut self, key: u64, now_ns: u64) -> Option<Key> {
        let q = self.queues.get_mut(&key)?;
        self.order.next(&mut q.requests, now_ns, &mut q.fifo_checked, q.head_bytes).map(|(k, _)| k)
    }

    /// Take `key`'s request `k` out for the device, charging `key` (in service, or injected).
    fn take(&mut self, now_ns: u64, key: u64, k: (u64, u64), injected: bool) -> Request {
        let injected_in_flight = self.injected_ids.len();
        let in_flight = self.in_flight;
        let q = self.queues.get_mut(&key).expect("exists");
        let req = q.requests.remove(&k);
        let s = sectors(&req);
        if let Some(p) = self.peak_rate.as_mut() {
            p.dispatched(now_ns, req.offset_bytes / SECTOR_BYTES, s, in_flight);
        }
        let q = self.queues.get_mut(&key).expect("exists");
        q.head_bytes = req.end_bytes();
        q.dispatched += 1;
        q.service_from_backlogged += s;
        if q.wr_coeff > 1 {
            q.wr_service += s;
        }
        if injected {
            q.injected_service += s;
        } else {
            q.service += s;
            q.dispatched_with_injection = injected_in_flight > 0;
        }
        let class = q.class_index();
        let emptied = q.requests.is_empty();
        self.trees[class].served(s);
        self.queued -= 1;
        self.dispatched += 1;
        if injected {
            self.injected += 1;
            self.injected_ids.push(req.id.0);
            if emptied {
                // Charge what injection actually served, not the budget the entity was queued with.
                let charge = std::mem::take(&mut q.injected_service) * if q.sync { 1 } else { ASYNC_CHARGE_FACTOR };
                let (start, finish) = (q.start_v, q.finish_v);
                q.finish_v = start + wf2q::virtual_time(charge, q.entity_weight);
                q.last_empty_ns = Some(now_ns);
                // As at an expiry: its soft real-time next start follows the completion of what it has in flight.
                q.soft_rt_update = q.sync;
                self.trees[class].remove(key, start, finish);
                self.deactivate(key);
            }
        }
        req
    }

    /// Forget empty, idle queues (their state: budget, F, raising) after FORGET_AFTER_NS.
    fn sweep(&mut self, now_ns: u64) {
        if now_ns < self.last_sweep_ns + FORGET_AFTER_NS {
            return;
        }
        self.last_sweep_ns = now_ns;
        let in_service = self.in_service;
        self.queues.retain(|key, q| {
            Some(*key) == in_service
                || q.busy
                || q.dispatched > 0
                || !q.requests.is_empty()
                || now_ns < q.last_active_ns + FORGET_AFTER_NS
        });
    }
}

impl Policy for Bfq {
    fn name(&self) -> &'static str {
        "bfq"
    }

    fn enqueue(&mut self, now_ns: u64, req: Request) {
        self.sweep(now_ns);
        let key = priority_queue_key(&req);
        if !self.queues.contains_key(&key) {
            self.create_queue(key, &req, now_ns);
        }
        self.seq += 1;
        self.queued += 1;
        let deadline_ns = self.order.deadline_ns(now_ns, req.sync);
        let q = self.queues.get_mut(&key).expect("just made");
        let seeky = peak_rate::request_seeky(
            q.last_end_bytes / SECTOR_BYTES,
            req.offset_bytes / SECTOR_BYTES,
            sectors(&req),
            self.rotational,
        );
        q.seek_history = (q.seek_history << 1) | u32::from(seeky);
        if q.sync && self.slice_idle_ns > 0 {
            q.update_think_time(now_ns, self.slice_idle_ns, self.in_service == Some(key));
        }
        if q.sync {
            q.update_io_intensity(now_ns);
        }
        q.last_end_bytes = req.end_bytes();
        q.last_active_ns = now_ns;
        q.level = req.level;
        let was_empty = q.requests.is_empty();
        q.requests.insert(self.seq, req, deadline_ns);
        if was_empty && !q.busy {
            if self.in_service != Some(key) {
                q.class = req.class;
            }
            if self.in_service == Some(key) {
                // The queue in service got its next request while idling: it goes on.
                self.idle_until_ns = None;
                self.idle_started_ns = None;
            } else {
                self.on_becoming_busy(key, now_ns);
            }
        }
    }

    fn dispatch(&mut self, now_ns: u64, ctx: &DispatchContext) -> Dispatch {
        self.rotational = ctx.rotational;
        self.device_depth = ctx.device_depth;
        self.in_flight = ctx.in_flight;
        if self.peak_rate.is_none() {
            // The first dispatch says what the device is: BFQ's starting estimate for it, and the duration of
            // the raising of queues that became busy before it.
            self.peak_rate = Some(PeakRate::new(ctx.rotational));
            let duration = self.wr_duration_ns();
            for q in self.queues.values_mut() {
                if q.wr_coeff == WR_COEFF_INTERACTIVE && q.wr_duration_ns.is_none() {
                    q.wr_duration_ns = duration;
                }
            }
        }
        // At most two rounds: a turn that ends (timeout, budget, ran dry) and the next queue's, which starts with
        // a fresh budget and timeout and so dispatches, or idles, or there is no queue.
        for _ in 0..2 {
            let Some(key) = self.in_service.or_else(|| {
                let key = self.select_queue(now_ns)?;
                let timeout = self.timeout_ns;
                let q = self.queues.get_mut(&key).expect("selected");
                q.service = 0;
                q.fifo_checked = false;
                q.slice_start_ns = now_ns;
                self.budgets_assigned = (self.budgets_assigned * 7 + 256) / 8;
                let coeff = if q.wr_coeff == WR_COEFF_INTERACTIVE { WR_COEFF_INTERACTIVE } else { 1 };
                q.budget_timeout_ns = now_ns + timeout * coeff;
                self.in_service = Some(key);
                Some(key)
            }) else {
                return Dispatch::Nothing;
            };
            let (timed_out, has_requests) = {
                let q = &self.queues[&key];
                (now_ns >= q.budget_timeout_ns, !q.requests.is_empty())
            };
            if timed_out && has_requests {
                self.expire(now_ns, Expiry::BudgetTimeout);
                continue;
            }
            if has_requests {
                if self.async_held_back(key) {
                    return Dispatch::Nothing;
                }
                let k = self.next_request_key(key, now_ns).expect("has requests");
                let q = &self.queues[&key];
                let size = sectors(q.requests.get(&k));
                if q.service > 0 && q.service + size > q.entity_budget {
                    self.expire(now_ns, Expiry::BudgetExhausted);
                    continue;
                }
                self.idle_until_ns = None;
                self.idle_started_ns = None;
                self.update_raising(key, now_ns);
                return Dispatch::Request(self.take(now_ns, key, k, false));
            }
            // The queue in service has run dry.
            let q = &self.queues[&key];
            let wait = if ctx.barrier_pending { None } else { self.idle_time(q) };
            let Some(idle_ns) = wait else {
                self.expire(now_ns, Expiry::NoMoreRequests);
                continue;
            };
            if q.dispatched > 0 {
                // Requests in flight: keep the turn until the last completes, then idle (BFQ's wait_request).
                return self.inject(now_ns, key, ctx.in_flight).map_or(Dispatch::Nothing, Dispatch::Request);
            }
            let until = *self.idle_until_ns.get_or_insert_with(|| {
                self.idle_waits += 1;
                self.idle_started_ns = Some(now_ns);
                now_ns + idle_ns
            });
            if now_ns >= until {
                self.expire(now_ns, Expiry::TooIdle);
                continue;
            }
            return match self.inject(now_ns, key, ctx.in_flight) {
                Some(req) => Dispatch::Request(req),
                None => Dispatch::WaitUntil(until),
            };
        }
        debug_assert!(false, "a newly selected queue neither dispatched nor waited");
        Dispatch::WaitUntil(now_ns + 1)
    }

    fn complete(&mut self, now_ns: u64, req: &Request) {
        if let Some(p) = self.peak_rate.as_mut() {
            p.completed(now_ns);
        }
        if let Some(i) = self.injected_ids.iter().position(|id| *id == req.id.0) {
            self.injected_ids.swap_remove(i);
        }
        let key = priority_queue_key(req);
        let in_service = self.in_service;
        let Some(q) = self.queues.get_mut(&key) else { return };
        q.dispatched = q.dispatched.saturating_sub(1);
        q.last_active_ns = now_ns;
        q.last_end_request_ns = now_ns;
        if q.soft_rt_update && q.dispatched == 0 && q.requests.is_empty() {
            q.soft_rt_update = false;
            q.soft_rt_next_start_ns = soft_rt_next_start_ns(q, now_ns, self.slice_idle_ns);
        }
        if q.dispatched == 0 && !q.busy {
            // Its last request is done: it leaves the symmetry test (see Queue::counted_weight). A queue that is
            // not busy is not in service, so there is no injection feedback to give either.
            debug_assert_ne!(Some(key), in_service, "the queue in service stays busy until it expires");
            self.count_weight(key, None);
            return;
        }
        if Some(key) != in_service {
            return;
        }
        q.injection_feedback(req.completed_ns.saturating_sub(req.dispatched_ns), now_ns);
    }

    fn queued(&self) -> usize {
        self.queued
    }

    fn drain(&mut self) -> Vec<Request> {
        let mut held = Vec::with_capacity(self.queued);
        for q in self.queues.values_mut() {
            q.requests.drain_into(&mut held);
        }
        let keys: Vec<u64> = self.queues.keys().copied().collect();
        for key in keys {
            self.deactivate(key);
        }
        for t in &mut self.trees {
            t.clear();
        }
        self.in_service = None;
        self.idle_until_ns = None;
        self.idle_started_ns = None;
        self.queued = 0;
        self.injected_ids.clear();
        in_arrival_order(held)
    }

    fn tunables(&self) -> &'static [TunableSpec] {
        TUNABLES
    }

    fn tunable(&self, name: &str) -> Result<String, TunableError> {
        if let Some(flow) = name.strip_prefix("weight.") {
            if name == "weight.FLOW" {
                return Ok("0".to_string());
            }
            let flow: u32 = flow.parse().map_err(|_| tunable::unknown(self.name(), TUNABLES, name))?;
            return Ok(self.weights.get(&flow).copied().unwrap_or(0).to_string());
        }
        tunable::find(self.name(), TUNABLES, name)?;
        if let Some(value) = self.order.tunable(name) {
            return Ok(value);
        }
        Ok(match name {
            "slice_idle" => (self.slice_idle_ns / NS_PER_MS).to_string(),
            "strict_guarantees" => u8::from(self.strict_guarantees).to_string(),
            "low_latency" => u8::from(self.low_latency).to_string(),
            "timeout_sync" => (self.timeout_ns / NS_PER_MS).to_string(),
            "max_budget" => self.max_budget_setting.to_string(),
            "max_budget_async_rq" => self.max_async_dispatched.to_string(),
            "preempt" => u8::from(self.preempt).to_string(),
            _ => unreachable!("every tunable is listed"),
        })
    }

    fn tunable_values(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = TUNABLES
            .iter()
            .filter(|t| t.name != "weight.FLOW")
            .map(|t| (t.name.to_string(), self.tunable(t.name).unwrap_or_default()))
            .collect();
        let mut weights: Vec<(&u32, &u64)> = self.weights.iter().collect();
        weights.sort_unstable();
        out.extend(weights.into_iter().map(|(flow, w)| (format!("weight.{flow}"), w.to_string())));
        out
    }

    fn set_tunable(&mut self, name: &str, value: &str) -> Result<(), TunableError> {
        if let Some(flow) = name.strip_prefix("weight.") {
            let flow: u32 = flow.parse().map_err(|_| tunable::unknown(self.name(), TUNABLES, name))?;
            let weight = tunable::find(self.name(), TUNABLES, "weight.FLOW")?.parse_int(value)? as u64;
            self.weights.insert(flow, weight);
            return Ok(());
        }
        let spec = tunable::find(self.name(), TUNABLES, name)?;
        if let Some(result) = self.order.set_tunable(name, value) {
            return result;
        }
        match name {
            "slice_idle" => self.slice_idle_ns = spec.parse_int(value)? as u64 * NS_PER_MS,
            "strict_guarantees" => self.strict_guarantees = spec.parse_bool(value)?,
            "low_latency" => self.low_latency = spec.parse_bool(value)?,
            "timeout_sync" => self.timeout_ns = spec.parse_int(value)? as u64 * NS_PER_MS,
            "max_budget" => self.max_budget_setting = spec.parse_int(value)? as u64,
            "max_budget_async_rq" => self.max_async_dispatched = spec.parse_int(value)? as u32,
            "preempt" => self.preempt = spec.parse_bool(value)?,
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
            ("weight_raised_busy", c(u64::from(self.wr_busy))),
            ("expired_budget_exhausted", c(self.expirations[Expiry::BudgetExhausted as usize])),
            ("expired_budget_timeout", c(self.expirations[Expiry::BudgetTimeout as usize])),
            ("expired_too_idle", c(self.expirations[Expiry::TooIdle as usize])),
            ("expired_no_more_requests", c(self.expirations[Expiry::NoMoreRequests as usize])),
            ("expired_preempted", c(self.expirations[Expiry::Preempted as usize])),
            ("idle_waits", c(self.idle_waits)),
            ("injected", c(self.injected)),
            ("raised_interactive", c(self.raised_interactive)),
            ("raised_soft_rt", c(self.raised_soft_rt)),
            ("peak_rate_sectors_per_s", c(self.peak_rate.as_ref().map_or(0, PeakRate::sectors_per_s))),
            ("peak_rate_updates", c(self.peak_rate.as_ref().map_or(0, PeakRate::updates))),
            ("max_budget_sectors", c(self.max_budget())),
        ]
    }
}

mod idling;
mod queue;
mod raising;

#[cfg(test)]
mod tests;
