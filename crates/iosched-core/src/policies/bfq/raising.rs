//! bfq's weight raising (bfq-iosched.c's low_latency heuristics), the part of the policy that favours
//! interactive and soft real-time queues: a sync queue that becomes busy after being idle for long
//! (bfq_bfqq_handle_idle_busy_switch) is raised 30x for a duration scaled to the device's peak rate
//! (bfq_wr_duration), one that comes back on a soft real-time schedule 3000x for 300 ms
//! (bfq_bfqq_softrt_next_start), and queues created in a large burst (bfq_handle_burst) are not raised.

use super::{
    peak_rate, Bfq, Queue, BURST_INTERVAL_NS, DEFAULT_WEIGHT, LARGE_BURST, WR_COEFF_INTERACTIVE, WR_COEFF_SOFT_RT,
    WR_MAX_INTERACTIVE_SECTORS, WR_MAX_SOFTRT_SECTORS_PER_S, WR_MIN_IDLE_NS, WR_REF_DURATION_NON_ROTATIONAL_NS,
    WR_REF_DURATION_ROTATIONAL_NS, WR_RT_MAX_NS,
};
use crate::units::{NS_PER_MS, NS_PER_S};

/// The earliest time at which a queue that has emptied may become busy again and count as soft real-time: its
/// last busy period's service at the soft real-time rate, and at least slice_idle + 4 ms from now (BFQ's
/// bfq_bfqq_softrt_next_start).
pub(super) fn soft_rt_next_start_ns(q: &Queue, now_ns: u64, slice_idle_ns: u64) -> u64 {
    let by_rate = q.service_from_backlogged * NS_PER_S / WR_MAX_SOFTRT_SECTORS_PER_S;
    (q.last_backlogged_ns + by_rate).max(now_ns + slice_idle_ns + 4 * NS_PER_MS)
}

impl Bfq {
    /// bfq_wr_duration: the reference duration x reference rate / peak rate, within 3-25 s. None until the
    /// first dispatch says what kind of device it is.
    pub(super) fn wr_duration_ns(&self) -> Option<u64> {
        let p = self.peak_rate.as_ref()?;
        let (duration, rate) = if p.rotational() {
            (WR_REF_DURATION_ROTATIONAL_NS, peak_rate::REFERENCE_ROTATIONAL_SECTORS_PER_S)
        } else {
            (WR_REF_DURATION_NON_ROTATIONAL_NS, peak_rate::REFERENCE_NON_ROTATIONAL_SECTORS_PER_S)
        };
        let scaled = duration as u128 * rate as u128 / p.sectors_per_s().max(1) as u128;
        Some((scaled as u64).clamp(3 * NS_PER_S, 25 * NS_PER_S))
    }

    /// End weight raising that has run its course.
    pub(super) fn update_raising(&mut self, key: u64, now_ns: u64) {
        let q = self.queues.get_mut(&key).expect("a known queue");
        if q.wr_coeff == 1 {
            return;
        }
        let interactive = q.wr_coeff == WR_COEFF_INTERACTIVE;
        if q.in_large_burst
            || q.wr_duration_ns.is_some_and(|d| now_ns >= q.wr_start_ns + d)
            || (interactive && q.wr_service >= WR_MAX_INTERACTIVE_SECTORS)
        {
            q.wr_coeff = 1;
            if q.busy {
                // Its entity keeps the raised weight until it is next activated, as BFQ applies weight changes.
                self.wr_busy -= 1;
            }
        }
    }

    /// A new queue: note its creation for burst detection (bfq_handle_burst). Queues created less than
    /// BURST_INTERVAL apart form a burst; once it holds LARGE_BURST of them, all of them, and every queue created
    /// while it lasts, are in a large burst and are not raised.
    pub(super) fn note_creation(&mut self, key: u64, now_ns: u64) {
        let in_burst = self.last_creation_ns.is_some_and(|t| now_ns <= t + BURST_INTERVAL_NS);
        if !in_burst {
            self.burst.clear();
            self.burst_is_large = false;
        }
        self.last_creation_ns = Some(now_ns);
        self.burst.push(key);
        if self.burst.len() >= LARGE_BURST && !self.burst_is_large {
            self.burst_is_large = true;
            for k in std::mem::take(&mut self.burst) {
                if let Some(q) = self.queues.get_mut(&k) {
                    q.in_large_burst = true;
                }
            }
        }
    }

    /// A queue becoming busy: raise it, interactive or soft real-time, if it qualifies.
    pub(super) fn raise_if_due(&mut self, key: u64, now_ns: u64) {
        let low_latency = self.low_latency;
        let wr_duration = self.wr_duration_ns();
        // Only a queue of the default weight is raised, interactive or soft real-time: one with another weight
        // (an ionice level other than 4, or a weight.FLOW other than 40) is taken to be controlled explicitly
        // (bfq_bfqq_handle_idle_busy_switch's entity.new_weight == 40).
        let default_weight = self.base_weight(&self.queues[&key]) == DEFAULT_WEIGHT;
        let q = self.queues.get_mut(&key).expect("a known queue");
        let idle_for_long = q.last_empty_ns.is_none_or(|t| now_ns >= t + WR_MIN_IDLE_NS);
        if idle_for_long && q.last_empty_ns.is_some() {
            q.in_large_burst = false;
        }
        if low_latency && q.sync && !q.in_large_burst && default_weight {
            if idle_for_long {
                if q.wr_coeff != WR_COEFF_INTERACTIVE {
                    self.raised_interactive += 1;
                }
                q.wr_coeff = WR_COEFF_INTERACTIVE;
                q.wr_start_ns = now_ns;
                q.wr_duration_ns = wr_duration;
                q.wr_service = 0;
            } else if q.dispatched == 0 && now_ns >= q.soft_rt_next_start_ns && q.wr_coeff == 1 {
                self.raised_soft_rt += 1;
                q.wr_coeff = WR_COEFF_SOFT_RT;
                q.wr_start_ns = now_ns;
                q.wr_duration_ns = Some(WR_RT_MAX_NS);
                q.wr_service = 0;
            }
        }
    }
}
