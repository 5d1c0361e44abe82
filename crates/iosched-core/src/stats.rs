//! Latency recording and summaries: exact count, min, max, mean and standard deviation, and percentiles from an
//! HdrHistogram with three significant digits (a relative error under 0.1 %), at fio's default list.

use crate::request::{Op, Request};
use crate::snapshot::DirectionCounts;
use hdrhistogram::Histogram;
use serde::Serialize;

/// fio's default completion-latency percentile list.
pub const FIO_PERCENTILES: [f64; 17] =
    [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99];

/// Records latencies in nanoseconds.
#[derive(Clone, Debug)]
pub struct LatencyRecorder {
    histogram: Histogram<u64>,
    count: u64,
    min_ns: u64,
    max_ns: u64,
    mean_ns: f64,
    /// Welford's running sum of squared deviations.
    m2: f64,
}

impl Default for LatencyRecorder {
    fn default() -> Self {
        LatencyRecorder::new()
    }
}

impl LatencyRecorder {
    pub fn new() -> LatencyRecorder {
        LatencyRecorder {
            histogram: Histogram::new(3).expect("3 significant digits is a valid precision"),
            count: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            mean_ns: 0.0,
            m2: 0.0,
        }
    }

    pub fn record(&mut self, latency_ns: u64) {
        // An auto-resizing histogram only fails on values beyond u64 range after resizing, which cannot happen.
        let _ = self.histogram.record(latency_ns);
        self.count += 1;
        self.min_ns = self.min_ns.min(latency_ns);
        self.max_ns = self.max_ns.max(latency_ns);
        let x = latency_ns as f64;
        let delta = x - self.mean_ns;
        self.mean_ns += delta / self.count as f64;
        self.m2 += delta * (x - self.mean_ns);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The sum of every latency recorded, from the running mean (nothing is added per sample for it). Between
    /// two calls it grows by the samples recorded, give or take the sum times 2^-52: under a nanosecond until
    /// the sum passes 52 days of latency, so live views may take differences of it.
    pub fn sum_ns(&self) -> u64 {
        (self.mean_ns * self.count as f64).round() as u64
    }

    /// Add another recorder's samples (Chan et al.'s combination of the running moments).
    pub fn merge(&mut self, other: &LatencyRecorder) {
        if other.count == 0 {
            return;
        }
        // Both histograms auto-resize, so adding cannot fail for values either one held.
        let _ = self.histogram.add(&other.histogram);
        let (n_a, n_b) = (self.count as f64, other.count as f64);
        let n = n_a + n_b;
        let delta = other.mean_ns - self.mean_ns;
        self.mean_ns += delta * n_b / n;
        self.m2 += other.m2 + delta * delta * n_a * n_b / n;
        self.count += other.count;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// The latency at `percentile` (0-100], or 0 with no samples.
    pub fn percentile_ns(&self, percentile: f64) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.histogram.value_at_quantile(percentile / 100.0).min(self.max_ns)
        }
    }

    pub fn summary(&self) -> LatencySummary {
        let empty = self.count == 0;
        LatencySummary {
            count: self.count,
            min_ns: if empty { 0 } else { self.min_ns },
            max_ns: self.max_ns,
            mean_ns: self.mean_ns,
            stddev_ns: if self.count > 1 { (self.m2 / (self.count - 1) as f64).sqrt() } else { 0.0 },
            percentiles_ns: FIO_PERCENTILES.iter().map(|p| (*p, self.percentile_ns(*p))).collect(),
            histogram: self.histogram.clone(),
        }
    }

    /// The distribution in fio's latency histogram (`--output-format=json+`'s "bins"): (the bucket's value in
    /// ns, count) for every non-empty bucket, rising. Each value iosched recorded (to three significant
    /// digits) is counted in the fio bucket that holds it, so a count can land one bucket off where a value
    /// sits within 0.1 % of a bucket's edge.
    pub fn fio_bins(&self) -> Vec<(u64, u64)> {
        fio_bins(&self.histogram)
    }
}

/// `histogram` in fio's latency buckets, as [`LatencyRecorder::fio_bins`] describes.
pub fn fio_bins(histogram: &Histogram<u64>) -> Vec<(u64, u64)> {
    let mut bins: Vec<(u64, u64)> = Vec::new();
    for v in histogram.iter_recorded() {
        let ns = histogram.median_equivalent(v.value_iterated_to());
        let value = fio_plat::idx_to_val(fio_plat::val_to_idx(ns));
        match bins.last_mut() {
            Some((last, count)) if *last == value => *count += v.count_at_value(),
            _ => bins.push((value, v.count_at_value())),
        }
    }
    bins
}

/// fio's latency histogram buckets (its stat.h): values below 2^7 ns exactly; above, 64 buckets between
/// consecutive powers of two, each reported at its middle; 29 groups in all, the last bucket open-ended.
pub mod fio_plat {
    const BITS: u32 = 6;
    const VAL: u64 = 1 << BITS;
    const GROUPS: u64 = 29;
    const NR: u64 = GROUPS * VAL;
    /// How many buckets there are (fio's FIO_IO_U_PLAT_NR), the columns of its histogram logs.
    pub const BUCKETS: u64 = NR;

    /// The bucket holding `ns`.
    pub fn val_to_idx(ns: u64) -> u64 {
        let msb = if ns == 0 { 0 } else { 63 - ns.leading_zeros() };
        if msb <= BITS {
            return ns;
        }
        let error_bits = msb - BITS;
        let base = ((error_bits + 1) as u64) << BITS;
        let offset = (VAL - 1) & (ns >> error_bits);
        (base + offset).min(NR - 1)
    }

    /// The value fio reports for bucket `idx`: the middle of its range.
    pub fn idx_to_val(idx: u64) -> u64 {
        if idx < (VAL << 1) {
            return idx;
        }
        let error_bits = (idx >> BITS) - 1;
        let base = 1u64 << (error_bits + BITS as u64);
        let k = idx % VAL;
        base + ((k as f64 + 0.5) * (1u64 << error_bits) as f64) as u64
    }
}

/// A latency distribution as reports show it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub mean_ns: f64,
    pub stddev_ns: f64,
    /// (percentile, latency) at [`FIO_PERCENTILES`].
    pub percentiles_ns: Vec<(f64, u64)>,
    /// Every latency recorded (three significant digits), for fio's json+ bins ([`LatencySummary::fio_bins`]) and
    /// for merging runs' distributions; left out of serialised summaries.
    #[serde(skip)]
    pub histogram: Histogram<u64>,
}

impl LatencySummary {
    /// The latency at one of [`FIO_PERCENTILES`].
    pub fn at(&self, percentile: f64) -> Option<u64> {
        self.percentiles_ns.iter().find(|(p, _)| *p == percentile).map(|(_, v)| *v)
    }

    /// fio's histogram (json+ "bins"), see [`LatencyRecorder::fio_bins`].
    pub fn fio_bins(&self) -> Vec<(u64, u64)> {
        fio_bins(&self.histogram)
    }
}

/// What one direction (read, write or trim) of one flow did.
#[derive(Clone, Debug, Default)]
pub struct DirectionRecorder {
    pub ios: u64,
    pub bytes: u64,
    pub errors: u64,
    /// The errno of the first failed request (0 if none failed).
    pub first_errno: i32,
    /// Queued to completed: what the issuer sees (fio's clat).
    pub total: LatencyRecorder,
    /// Queued to dispatched: time in the scheduler.
    pub queue_wait: LatencyRecorder,
    /// Dispatched to completed: time at the device.
    pub service: LatencyRecorder,
}

impl DirectionRecorder {
    /// The counts a live view shows.
    pub fn counts(&self) -> DirectionCounts {
        DirectionCounts { ios: self.ios, bytes: self.bytes, errors: self.errors, latency_sum_ns: self.total.sum_ns() }
    }

    pub fn merge(&mut self, other: &DirectionRecorder) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.errors += other.errors;
        if self.first_errno == 0 {
            self.first_errno = other.first_errno;
        }
        self.total.merge(&other.total);
        self.queue_wait.merge(&other.queue_wait);
        self.service.merge(&other.service);
    }

    pub fn record(&mut self, req: &Request, ok: bool) {
        self.ios += 1;
        if ok {
            self.bytes += req.len_bytes;
        } else {
            self.errors += 1;
            if self.first_errno == 0 {
                // A failure without an errno (a policy or model refusing it) is reported as EIO, as fio does.
                self.first_errno = if req.error != 0 { req.error } else { 5 };
            }
        }
        self.total.record(req.total_ns());
        self.queue_wait.record(req.queue_wait_ns());
        self.service.record(req.service_ns());
    }
}

/// Per-direction records of one flow (fio job clone); flushes are kept apart from the data directions.
#[derive(Clone, Debug, Default)]
pub struct FlowRecorder {
    pub directions: [DirectionRecorder; 3],
    pub flushes: DirectionRecorder,
}

impl FlowRecorder {
    /// No request recorded yet.
    pub fn is_empty(&self) -> bool {
        self.flushes.ios == 0 && self.directions.iter().all(|d| d.ios == 0)
    }

    pub fn merge(&mut self, other: &FlowRecorder) {
        for (mine, theirs) in self.directions.iter_mut().zip(&other.directions) {
            mine.merge(theirs);
        }
        self.flushes.merge(&other.flushes);
    }

    pub fn record(&mut self, req: &Request, ok: bool) {
        match req.op {
            Op::Flush => self.flushes.record(req, ok),
            op => self.directions[op.index()].record(req, ok),
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn fio_buckets_hold_each_value_within_a_hundredth_and_keep_small_values_exact() {
        use super::fio_plat::{idx_to_val, val_to_idx};
        assert_eq!((val_to_idx(0), val_to_idx(127), idx_to_val(127)), (0, 127, 127));
        assert_eq!(idx_to_val(val_to_idx(1000)), 1004);
        let mut last = 0;
        for ns in (128..100_000_000u64).step_by(997) {
            let idx = val_to_idx(ns);
            assert!(idx >= last, "buckets rise with the value");
            last = idx;
            let v = idx_to_val(idx) as f64;
            assert!((v - ns as f64).abs() <= ns as f64 / 100.0, "{ns} -> bucket {idx} reported as {v}");
        }
    }

    #[test]
    fn fio_bins_count_every_sample() {
        let mut r = LatencyRecorder::new();
        for ns in [50u64, 50, 1000, 1003, 250_000, 10_000_000] {
            r.record(ns);
        }
        let bins = r.fio_bins();
        assert_eq!(bins.iter().map(|(_, n)| n).sum::<u64>(), 6);
        assert_eq!(bins[0], (50, 2));
        assert_eq!(bins[1], (1004, 2), "1000 and 1003 share fio's bucket: {bins:?}");
    }

    use super::*;

    #[test]
    fn exact_moments_and_close_percentiles() {
        let mut r = LatencyRecorder::new();
        for v in 1..=10_000u64 {
            r.record(v * 1_000);
        }
        let s = r.summary();
        assert_eq!((s.count, s.min_ns, s.max_ns), (10_000, 1_000, 10_000_000));
        assert!((s.mean_ns - 5_000_500.0).abs() < 1e-6);
        assert!((s.stddev_ns - 2_886_895.7).abs() < 1.0, "{}", s.stddev_ns);
        let p99 = s.at(99.0).unwrap() as f64;
        assert!((p99 / 9_900_000.0 - 1.0).abs() < 0.002, "{p99}");
        let p50 = s.at(50.0).unwrap() as f64;
        assert!((p50 / 5_000_000.0 - 1.0).abs() < 0.002, "{p50}");
    }

    #[test]
    fn merged_recorders_equal_one_recorder_of_all_samples() {
        let (mut a, mut b, mut all) = (LatencyRecorder::new(), LatencyRecorder::new(), LatencyRecorder::new());
        for v in 1..=1000u64 {
            let x = v * v % 7919 * 1000;
            if v % 3 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
            all.record(x);
        }
        a.merge(&b);
        let (m, w) = (a.summary(), all.summary());
        assert_eq!((m.count, m.min_ns, m.max_ns, &m.percentiles_ns), (w.count, w.min_ns, w.max_ns, &w.percentiles_ns));
        assert!((m.mean_ns - w.mean_ns).abs() < 1e-6 && (m.stddev_ns - w.stddev_ns).abs() < 1e-3);
    }

    #[test]
    fn empty_summary_is_zero() {
        let s = LatencyRecorder::new().summary();
        assert_eq!((s.count, s.min_ns, s.max_ns, s.at(99.0)), (0, 0, 0, Some(0)));
    }
}
