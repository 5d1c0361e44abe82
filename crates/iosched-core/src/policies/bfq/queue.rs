//! A bfq queue (bfq-iosched.c's bfq_queue): a flow's sync requests, or one priority's shared async ones, with
//! its scheduling entity (virtual start and finish, weight, budget), weight raising, seek history and
//! injection state.

use super::{SEEKY_REQUESTS, SHARED_QUEUE_FLOW};
use crate::policies::sorted_fifo::SortedFifo;
use crate::request::{IoClass, Request};
use crate::units::NS_PER_S;

/// Per-flow queue (BFQ's bfq_queue) with its scheduling entity.
pub(super) struct Queue {
    pub(super) flow: u32,
    pub(super) sync: bool,
    pub(super) class: IoClass,
    pub(super) level: u8,
    pub(super) requests: SortedFifo,
    pub(super) head_bytes: u64,
    pub(super) fifo_checked: bool,
    /// Requests at the device.
    pub(super) dispatched: u32,
    pub(super) busy: bool,
    /// The weight this queue counts with in the symmetry test: set while it is busy or has requests in flight
    /// (BFQ keeps a queue in its weights tree until its last request completes).
    pub(super) counted_weight: Option<u64>,
    /// Entity: virtual start and finish, and the weight it was activated with.
    pub(super) start_v: u128,
    pub(super) finish_v: u128,
    pub(super) entity_weight: u64,
    /// Budget of the current or next turn, and the queue's budget from feedback.
    pub(super) entity_budget: u64,
    pub(super) max_budget: u64,
    pub(super) service: u64,
    pub(super) injected_service: u64,
    pub(super) slice_start_ns: u64,
    pub(super) budget_timeout_ns: u64,
    /// Weight raising.
    pub(super) wr_coeff: u64,
    pub(super) wr_start_ns: u64,
    /// None: raised before the first dispatch, its duration set then (see Bfq::wr_duration_ns).
    pub(super) wr_duration_ns: Option<u64>,
    pub(super) wr_service: u64,
    pub(super) last_empty_ns: Option<u64>,
    pub(super) last_backlogged_ns: u64,
    pub(super) service_from_backlogged: u64,
    pub(super) soft_rt_next_start_ns: u64,
    /// The queue emptied with requests still in flight: its soft real-time next start is computed when the
    /// last of them completes (BFQ's softrt_update flag).
    pub(super) soft_rt_update: bool,
    pub(super) in_large_burst: bool,
    /// Seek history: one bit per request, set when it seeked more than 800 sectors (on flash: and was under 64
    /// sectors); starts at 1, as in bfq_init_bfqq.
    pub(super) seek_history: u32,
    pub(super) last_end_bytes: u64,
    pub(super) last_active_ns: u64,
    pub(super) inject_limit: u32,
    /// When injection for this queue may be tried again after it hurt, and the back-off doubling each time.
    pub(super) inject_retry_ns: u64,
    pub(super) inject_backoff_ns: u64,
    pub(super) baseline_service_ns: u64,
    pub(super) dispatched_with_injection: bool,
}

impl Queue {
    /// The queue `req` opens at `now_ns`, with `max_budget` sectors to start from (bfq_init_bfqq), in a large
    /// burst of creations or not.
    pub(super) fn new(req: &Request, now_ns: u64, max_budget: u64, in_large_burst: bool) -> Queue {
        Queue {
            flow: if req.sync { req.flow.0 } else { SHARED_QUEUE_FLOW },
            sync: req.sync,
            class: req.class,
            level: req.level,
            requests: SortedFifo::default(),
            head_bytes: 0,
            fifo_checked: false,
            dispatched: 0,
            busy: false,
            counted_weight: None,
            start_v: 0,
            finish_v: 0,
            entity_weight: 0,
            entity_budget: 0,
            max_budget,
            service: 0,
            injected_service: 0,
            slice_start_ns: now_ns,
            budget_timeout_ns: now_ns,
            wr_coeff: 1,
            wr_start_ns: 0,
            wr_duration_ns: None,
            wr_service: 0,
            last_empty_ns: None,
            last_backlogged_ns: now_ns,
            service_from_backlogged: 0,
            soft_rt_next_start_ns: u64::MAX,
            soft_rt_update: false,
            in_large_burst,
            seek_history: 1,
            last_end_bytes: req.offset_bytes,
            last_active_ns: now_ns,
            inject_limit: 0,
            inject_retry_ns: 0,
            inject_backoff_ns: NS_PER_S,
            baseline_service_ns: 0,
            dispatched_with_injection: false,
        }
    }

    pub(super) fn seeky(&self) -> bool {
        self.seek_history.count_ones() > SEEKY_REQUESTS
    }

    pub(super) fn class_index(&self) -> usize {
        self.class as usize
    }
}
