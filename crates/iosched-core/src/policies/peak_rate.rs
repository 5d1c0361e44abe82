//! BFQ's estimate of the device's peak rate, from the requests it dispatches (Linux block/bfq-iosched.c:
//! bfq_update_peak_rate, bfq_update_rate_reset, bfq_reset_rate_computation, and the late-completion check of
//! bfq_completed_request). BFQ sizes its largest budget (peak rate x timeout_sync) and the duration of
//! interactive weight raising (inversely to the peak rate) from it.
//!
//! As there: an observation interval starts at a dispatch and collects every dispatch (sectors, and whether it
//! was sequential: requests were at the device or one completed within 2 ms, and it starts within 800 sectors
//! of where the last dispatch ended, or, on a non-rotational device, it is of 64 sectors or more). It closes
//! after 1 s, at a dispatch after the device has been idle for 100 ms, or at a completion so late that the
//! largest recent request cannot have been served at even 1/1024 sector per microsecond. A closed interval with
//! at least 32 samples and 300 ms gives a rate (its sectors over its duration, extended to its last completion);
//! the rate is kept when at least 3/4 of the samples were sequential or it beats the estimate, and is not above
//! 20 sectors per microsecond. The estimate moves toward it by 1/divisor, where divisor runs from 10 down to 2
//! with the interval's share of sequential samples and its length (a 1 s, all-sequential interval counts for
//! half).
//!
//! Differences: rates are kept in sectors per second (BFQ: sectors per microsecond in 16-bit fixed point), so
//! the rounding differs in the last digits; the starting estimate is BFQ's (2/3 of its reference device's rate).

use crate::units::{NS_PER_MS, NS_PER_S};

/// BFQ's reference peak rates (ref_rate: 14000 and 33000 sectors per microsecond << 16), in sectors per second.
pub const REFERENCE_ROTATIONAL_SECTORS_PER_S: u64 = (14_000 * 1_000_000) >> 16;
pub const REFERENCE_NON_ROTATIONAL_SECTORS_PER_S: u64 = (33_000 * 1_000_000) >> 16;
const MIN_SAMPLES: u32 = 32;
const MIN_INTERVAL_NS: u64 = 300 * NS_PER_MS;
const REFERENCE_INTERVAL_NS: u64 = NS_PER_S;
/// BFQ_MIN_TT: a request arriving this soon after a completion counts as back to back.
const MIN_THINK_NS: u64 = 2 * NS_PER_MS;
const DEVICE_IDLE_NS: u64 = 100 * NS_PER_MS;
const SEEK_THRESHOLD_SECTORS: u64 = 800;
/// On a non-rotational device a request this large is not seeky however far it is (BFQQ_SECT_THR_NONROT).
const NON_ROTATIONAL_LARGE_SECTORS: u64 = 64;
const MAX_RATE_SECTORS_PER_S: u64 = 20_000_000;

/// BFQ_RQ_SEEKY: a request landing more than 800 sectors from where the last one ended, unless, on a
/// non-rotational device, it is of 64 sectors or more. bfq's per-queue seek history uses it too.
pub fn request_seeky(last_end_sector: u64, start_sector: u64, sectors: u64, rotational: bool) -> bool {
    start_sector.abs_diff(last_end_sector) > SEEK_THRESHOLD_SECTORS
        && (rotational || sectors < NON_ROTATIONAL_LARGE_SECTORS)
}

pub struct PeakRate {
    rotational: bool,
    sectors_per_s: u64,
    samples: u32,
    sequential_samples: u32,
    sectors: u64,
    first_dispatch_ns: u64,
    last_dispatch_ns: u64,
    delta_from_first_ns: u64,
    last_completion_ns: u64,
    last_end_sector: u64,
    /// The largest request of the last 32 dispatches (BFQ's last_rq_max_size).
    recent_max_sectors: u64,
    updates: u64,
}

impl PeakRate {
    /// BFQ's starting estimate: 2/3 of the reference device's rate.
    pub fn new(rotational: bool) -> PeakRate {
        let reference =
            if rotational { REFERENCE_ROTATIONAL_SECTORS_PER_S } else { REFERENCE_NON_ROTATIONAL_SECTORS_PER_S };
        PeakRate {
            rotational,
            sectors_per_s: reference * 2 / 3,
            samples: 0,
            sequential_samples: 0,
            sectors: 0,
            first_dispatch_ns: 0,
            last_dispatch_ns: 0,
            delta_from_first_ns: 0,
            last_completion_ns: 0,
            last_end_sector: 0,
            recent_max_sectors: 0,
            updates: 0,
        }
    }

    pub fn sectors_per_s(&self) -> u64 {
        self.sectors_per_s
    }

    pub fn rotational(&self) -> bool {
        self.rotational
    }

    /// How many times the estimate has moved.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// A request of `sectors` from `start_sector` goes to the device, `in_flight` others being there.
    pub fn dispatched(&mut self, now_ns: u64, start_sector: u64, sectors: u64, in_flight: u32) {
        if self.samples == 0 {
            self.start_interval(now_ns, sectors);
        } else if now_ns.saturating_sub(self.last_dispatch_ns) > DEVICE_IDLE_NS && in_flight == 0 {
            // The device was idle for long: the interval ended at the last dispatch or completion.
            self.close_interval(Some((now_ns, sectors)));
        } else {
            self.samples += 1;
            let back_to_back = in_flight > 0 || now_ns.saturating_sub(self.last_completion_ns) < MIN_THINK_NS;
            if back_to_back && !self.seeky(start_sector, sectors) {
                self.sequential_samples += 1;
            }
            self.sectors += sectors;
            self.recent_max_sectors =
                if self.samples % 32 != 0 { self.recent_max_sectors.max(sectors) } else { sectors };
            self.delta_from_first_ns = now_ns.saturating_sub(self.first_dispatch_ns);
            if self.delta_from_first_ns >= REFERENCE_INTERVAL_NS {
                self.close_interval(Some((now_ns, sectors)));
            }
        }
        self.last_end_sector = start_sector + sectors;
        self.last_dispatch_ns = now_ns;
    }

    /// A request completed. A completion so late that the largest recent request was served at under 1/1024
    /// sector per microsecond closes the interval (the device was idle, not slow).
    pub fn completed(&mut self, now_ns: u64) {
        let since_last_us = now_ns.saturating_sub(self.last_completion_ns) / 1000;
        let late = since_last_us > MIN_THINK_NS / 1000 && (self.recent_max_sectors << 10) < since_last_us;
        if late {
            self.close_interval(None);
        }
        self.last_completion_ns = now_ns;
    }

    fn seeky(&self, start_sector: u64, sectors: u64) -> bool {
        request_seeky(self.last_end_sector, start_sector, sectors, self.rotational)
    }

    fn start_interval(&mut self, now_ns: u64, sectors: u64) {
        self.first_dispatch_ns = now_ns;
        self.last_dispatch_ns = now_ns;
        self.samples = 1;
        self.sequential_samples = 0;
        self.sectors = sectors;
        self.recent_max_sectors = sectors;
    }

    /// bfq_update_rate_reset: take the interval's rate into the estimate if it qualifies, then start a new
    /// interval with `next` (a dispatch at a time, of sectors), or none.
    fn close_interval(&mut self, next: Option<(u64, u64)>) {
        self.take_rate();
        match next {
            Some((now_ns, sectors)) => self.start_interval(now_ns, sectors),
            None => self.samples = 0,
        }
    }

    fn take_rate(&mut self) {
        if self.samples < MIN_SAMPLES || self.delta_from_first_ns < MIN_INTERVAL_NS {
            return;
        }
        let delta_ns = self.delta_from_first_ns.max(self.last_completion_ns.saturating_sub(self.first_dispatch_ns));
        self.delta_from_first_ns = delta_ns;
        let rate = (self.sectors as u128 * NS_PER_S as u128 / delta_ns as u128) as u64;
        let mostly_sequential = self.sequential_samples >= 3 * self.samples / 4;
        if (!mostly_sequential && rate <= self.sectors_per_s) || rate > MAX_RATE_SECTORS_PER_S {
            return;
        }
        let weight = 9 * self.sequential_samples as u64 / self.samples as u64;
        let weight = (weight * delta_ns / REFERENCE_INTERVAL_NS).min(8);
        let divisor = 10 - weight;
        self.sectors_per_s = (self.sectors_per_s * (divisor - 1) / divisor + rate / divisor).max(1);
        self.updates += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` back-to-back dispatches of `sectors` every `gap_ns` from `from_ns`, `stride` sectors apart, each
    /// completing just before the next; returns when the last gap ends.
    fn stream(p: &mut PeakRate, from_ns: u64, gap_ns: u64, sectors: u64, stride: u64, count: u64) -> u64 {
        let mut now = from_ns;
        for i in 0..count {
            p.dispatched(now, i * stride, sectors, 1);
            now += gap_ns;
            p.completed(now - 1);
        }
        now
    }

    #[test]
    fn a_sequential_stream_pulls_the_estimate_to_its_rate() {
        // 256-sector reads every 2 ms: 128,000 sectors/s, above the starting estimate of a rotational device
        // (2/3 of 213,623). Each 1 s interval is all sequential, so the estimate moves half way each time.
        let mut p = PeakRate::new(true);
        assert_eq!(p.sectors_per_s(), REFERENCE_ROTATIONAL_SECTORS_PER_S * 2 / 3);
        stream(&mut p, 0, 2 * NS_PER_MS, 256, 256, 5000);
        let rate = p.sectors_per_s();
        assert!(rate.abs_diff(128_000) < 2_000, "estimate {rate}");
        assert!(p.updates() >= 9);
    }

    #[test]
    fn a_random_stream_below_the_estimate_leaves_it_alone() {
        // Seeky 8-sector reads at 4,000 sectors/s: not sequential and slower than the estimate, so no update
        // (BFQ does not let random I/O drag the peak rate down).
        let mut p = PeakRate::new(true);
        let start = p.sectors_per_s();
        stream(&mut p, 0, 2 * NS_PER_MS, 8, 1 << 20, 5000);
        assert_eq!((p.sectors_per_s(), p.updates()), (start, 0));
    }

    #[test]
    fn short_or_sparse_intervals_give_no_rate() {
        // 20 dispatches then 200 ms of an idle device: the interval closes with too few samples.
        let mut p = PeakRate::new(false);
        let start = p.sectors_per_s();
        let now = stream(&mut p, 0, NS_PER_MS, 2048, 2048, 20);
        p.dispatched(now + 200 * NS_PER_MS, 0, 8, 0);
        assert_eq!((p.sectors_per_s(), p.updates()), (start, 0));
    }

    #[test]
    fn a_faster_device_raises_the_estimate_even_from_a_random_stream() {
        // Seeky 8-sector reads on flash every 5 us: 1,600,000 sectors/s, faster than the estimate, so BFQ takes
        // it (only a slower random rate is ignored), weighted by how sequential it was: not at all, divisor 10.
        let mut p = PeakRate::new(false);
        let start = p.sectors_per_s();
        stream(&mut p, 0, 5_000, 8, 1 << 20, 250_000);
        assert_eq!(p.updates(), 1);
        let expected = start * 9 / 10 + 1_600_000 / 10;
        assert!(p.sectors_per_s().abs_diff(expected) < 2_000, "{} against {expected}", p.sectors_per_s());
    }
}
