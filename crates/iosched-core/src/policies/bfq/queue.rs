//! A bfq queue (bfq-iosched.c's bfq_queue): a flow's sync requests, or one priority's shared async ones, with
//! its scheduling entity (virtual start and finish, weight, budget), weight raising, seek history and
//! injection state.

use super::{SEEKY_REQUESTS, SHARED_QUEUE_FLOW};
use crate::policies::sorted_fifo::SortedFifo;
use crate::request::{IoClass, Request};
use crate::units::{NS_PER_MS, NS_PER_S};

/// bfq_update_io_intensity's observation window: at most about this far into the past.
const IO_WINDOW_NS: u64 = 200 * NS_PER_MS;

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
    /// Think time (bfq_update_io_thinktime): a decaying count of samples (x256) and total (x256) of the time
    /// from the queue's last completion to a request that finds it idle (nothing queued or at the device, not
    /// in service), each sample at most 2 x slice_idle.
    pub(super) ttime_samples: u64,
    pub(super) ttime_total_ns: u64,
    pub(super) last_end_request_ns: u64,
    /// bfq_bfqq_has_short_ttime: true from the start, false once the samples are enough (over 80) and their
    /// mean is over half of slice_idle.
    pub(super) short_ttime: bool,
    /// I/O intensity (bfq_update_io_intensity): the start of the observation window (at most about 200 ms
    /// back) and how long in it the queue was idle (nothing queued or at the device) before a request came.
    pub(super) io_start_ns: u64,
    pub(super) tot_idle_ns: u64,
    /// bfq_bfqq_IO_bound: busy at least four fifths of the window; true from the start.
    pub(super) io_bound: bool,
    /// The queue has not had a request since it opened (bfq_bfqq_just_created).
    pub(super) just_created: bool,
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
            ttime_samples: 0,
            ttime_total_ns: 0,
            // bfq_init_bfqq: a queue's first request comes as it opens (a sample of about 0).
            last_end_request_ns: now_ns,
            short_ttime: true,
            io_start_ns: now_ns,
            tot_idle_ns: 0,
            io_bound: true,
            just_created: true,
        }
    }

    /// bfq_update_io_intensity, for a request of this sync queue arriving at `now_ns` (before it is queued):
    /// the time since the queue's last completion counts as idle when nothing of it is queued or at the device;
    /// the queue is I/O-bound while it was idle at most a fifth of the window. The window keeps at most about
    /// 200 ms: past that, its start moves to half-way and the idle time halves. A queue's first request only
    /// opens the window.
    pub(super) fn update_io_intensity(&mut self, now_ns: u64) {
        let tot_io_ns = now_ns.saturating_sub(self.io_start_ns);
        if self.requests.is_empty() && self.dispatched == 0 {
            self.tot_idle_ns += now_ns.saturating_sub(self.last_end_request_ns);
        }
        if std::mem::take(&mut self.just_created) {
            return;
        }
        self.io_bound = self.tot_idle_ns * 5 <= tot_io_ns;
        if tot_io_ns > IO_WINDOW_NS {
            self.io_start_ns = now_ns - tot_io_ns / 2;
            self.tot_idle_ns /= 2;
        }
    }

    /// bfq_update_io_thinktime and bfq_update_has_short_ttime, for a request of this sync queue arriving at
    /// `now_ns`: a sample only when the queue is idle (nothing queued or at the device, not busy, not in
    /// service: `in_service`), the time since its last completion up to 2 x slice_idle, averaged with weight 1/8;
    /// the think time is long once over 80 (x256) samples say its mean is over half of slice_idle (BFQ's
    /// threshold since Linux 5.12). While the queue's injection baseline is unknown, a change of state sets its
    /// inject limit as bfq_reset_inject_limit does: 1 for a long think time, 0 for a short one.
    pub(super) fn update_think_time(&mut self, now_ns: u64, slice_idle_ns: u64, in_service: bool) {
        if self.dispatched > 0 || self.busy || in_service || !self.requests.is_empty() {
            return; // no sample, so nothing changes
        }
        let elapsed_ns = now_ns.saturating_sub(self.last_end_request_ns).min(2 * slice_idle_ns);
        self.ttime_samples = (7 * self.ttime_samples + 256) / 8;
        self.ttime_total_ns = (7 * self.ttime_total_ns + 256 * elapsed_ns) / 8;
        let short = !(self.ttime_samples > 80 && self.ttime_mean_ns() > slice_idle_ns / 2);
        if short != self.short_ttime {
            self.short_ttime = short;
            if self.baseline_service_ns == 0 {
                self.inject_limit = u32::from(!short);
            }
        }
    }

    /// The think time's mean (BFQ's ttime_mean, rounded as it rounds it).
    pub(super) fn ttime_mean_ns(&self) -> u64 {
        (self.ttime_total_ns + 128) / self.ttime_samples.max(1)
    }

    pub(super) fn seeky(&self) -> bool {
        self.seek_history.count_ones() > SEEKY_REQUESTS
    }

    pub(super) fn class_index(&self) -> usize {
        self.class as usize
    }
}
