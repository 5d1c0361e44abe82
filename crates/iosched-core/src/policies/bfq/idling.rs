//! bfq's waiting for the queue in service (bfq-iosched.c's device idling and I/O injection): whether a sync
//! queue that ran dry is waited for, and for how long (bfq_better_to_idle, bfq_arm_slice_timer); and, while it
//! is, which other queue's request may go to the device (bfq_select_queue's injection tests,
//! bfq_choose_bfqq_for_injection) and how the inject limit follows what injection cost the queue in service.

use super::{sectors, Bfq, Queue, MIN_THINK_NS, WR_MIN_IDLE_SLICE_NS};
use crate::policies::wf2q::ServiceTree;
use crate::request::Request;
use crate::units::NS_PER_S;

/// The inject limit's ceiling, and the longest wait before injection is probed again after it hurt.
const INJECT_LIMIT_MAX: u32 = 8;
const INJECT_BACKOFF_MAX_NS: u64 = 64 * NS_PER_S;

impl Bfq {
    /// Should the queue in service, run dry, be waited for? And how long?
    pub(super) fn idle_time(&self, q: &Queue) -> Option<u64> {
        if !q.sync || self.slice_idle_ns == 0 {
            return None;
        }
        // bfq_arm_slice_timer: a raised queue is waited for at least 20 ms.
        let raised_idle_ns = self.slice_idle_ns.max(WR_MIN_IDLE_SLICE_NS);
        if self.strict_guarantees {
            return Some(if q.wr_coeff > 1 { raised_idle_ns } else { self.slice_idle_ns });
        }
        // idling_needed_for_service_guarantees: a raised queue competing, an asymmetric scenario, or the queue
        // alone (a newcomer then waits for it rather than taking the device in the middle of its pattern).
        let boosts_throughput = self.idling_boosts_throughput(q);
        let raised_competes =
            q.wr_coeff > 1 && (self.wr_busy < self.busy_queues() || self.in_flight >= q.dispatched.saturating_add(4));
        let asymmetric = self.asymmetric();
        let alone = self.busy_queues() == 1;
        if !(boosts_throughput || raised_competes || asymmetric || alone) {
            return None;
        }
        if q.seeky() && q.wr_coeff == 1 && !asymmetric {
            Some(self.slice_idle_ns.min(MIN_THINK_NS))
        } else if q.wr_coeff > 1 {
            Some(raised_idle_ns)
        } else {
            Some(self.slice_idle_ns)
        }
    }

    /// bfq_idling_boosts_thr_without_issues: on a rotational device without command queueing, idling for any
    /// queue; on a rotational device or one without command queueing, idling for a sequential queue with a short
    /// think time; and never while a raised queue is busy (idling for an unraised queue would delay it; for a
    /// raised one, the service-guarantee tests decide).
    pub(super) fn idling_boosts_throughput(&self, q: &Queue) -> bool {
        let without_queueing = self.device_depth <= 1;
        let sequential = !q.seeky() && q.io_bound && q.short_ttime;
        let boosts = (self.rotational && without_queueing) || ((self.rotational || without_queueing) && sequential);
        boosts && self.wr_busy == 0
    }

    /// While the queue in service waits: a request of another queue, as bfq_choose_bfqq_for_injection chooses
    /// it. The limit counts every request at the device (`in_flight`, BFQ's tot_rq_in_driver), the queue in
    /// service's own included, so at depth 1 nothing is injected while its request is out; and only a queue
    /// whose next request fits the budget it has left is taken (its injected service is charged to it).
    pub(super) fn inject(&mut self, now_ns: u64, in_service: u64, in_flight: u32) -> Option<Request> {
        if self.strict_guarantees {
            return None;
        }
        let q = self.queues.get_mut(&in_service).expect("in service");
        if q.inject_limit == 0 && q.baseline_service_ns > 0 && now_ns >= q.inject_retry_ns {
            q.inject_limit = 1; // probe again
        }
        // in_serv_always_inject: a raised queue with a long think time has room for other queues' requests too.
        let only_raised = q.wr_coeff > 1 && q.short_ttime;
        if in_flight >= q.inject_limit {
            return None;
        }
        let q = &self.queues[&in_service];
        // bfq_select_queue injects only where idling is not for throughput: injecting beside a queue idled on
        // because it is sequential would break the very pattern the idling keeps.
        if self.idling_boosts_throughput(q) {
            // The look for a queue to inject still brings each tree's eligible set up to date (V's jump when
            // none is eligible), as BFQ's activation-time lookup of the next in service does.
            self.trees.iter_mut().for_each(ServiceTree::update_eligible);
            return None;
        }
        // A raised queue in service with a short think time only lets other raised queues in (BFQ's
        // bfq_choose_bfqq_for_injection): injecting a writer would put its requests at the device ahead of the
        // raised queue's next ones. The
        // first queue, class by class in B-WF2Q+ order, that may be injected is taken; usually the first looked
        // at, so the walk costs what the tree's peek did.
        let (queues, order) = (&self.queues, &self.order);
        let may_inject = |key: &u64| {
            let o = &queues[key];
            // Out of service, a queue's budget is that of its next turn, which what injection served of it is
            // charged against.
            let next = || order.peek(&o.requests, o.head_bytes).map_or(0, |k| sectors(o.requests.get(&k)));
            *key != in_service
                && !o.requests.is_empty()
                && (!only_raised || o.wr_coeff > 1)
                && o.injected_service + next() <= o.entity_budget
        };
        let mut chosen = None;
        for tree in &mut self.trees {
            tree.update_eligible();
            chosen = tree.in_order().find(|key| may_inject(key));
            if chosen.is_some() {
                break;
            }
        }
        let key = chosen?;
        let k = self.next_request_key(key, now_ns)?;
        Some(self.take(now_ns, key, k, true))
    }
}

impl Queue {
    /// Injection's feedback, at the completion of a request of this queue in service that took `service_ns` at
    /// the device: with requests of other queues injected beside it, the limit shrinks if it took over 1.5x the
    /// service time without injection (and, at 0, waits a back-off that doubles up to 64 s before a new probe)
    /// and grows otherwise; without, its time is the new baseline.
    pub(super) fn injection_feedback(&mut self, service_ns: u64, now_ns: u64) {
        if self.dispatched_with_injection {
            if service_ns * 2 > self.baseline_service_ns * 3 {
                self.inject_limit = self.inject_limit.saturating_sub(1);
                if self.inject_limit == 0 {
                    self.inject_retry_ns = now_ns + self.inject_backoff_ns;
                    self.inject_backoff_ns = (self.inject_backoff_ns * 2).min(INJECT_BACKOFF_MAX_NS);
                }
            } else {
                self.inject_limit = (self.inject_limit + 1).min(INJECT_LIMIT_MAX);
                self.inject_backoff_ns = NS_PER_S;
            }
        } else {
            self.baseline_service_ns = service_ns;
        }
    }
}
