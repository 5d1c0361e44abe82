//! Validation against measured drives, as DiskSim does it: replay a validate trace closed loop with one
//! request outstanding (the next issued its think time after the previous completes) and compare the
//! distribution of simulated access times with the measured one by the demerit figure: the root-mean-square
//! horizontal distance between the two distributions, sampled at quantiles 0.0001, 0.0002, ..., 1.0 with
//! linear interpolation (Ruemmler and Wilkes).
//!
//! DiskSim computes that figure on its printed distributions, not on the requests' times: each distribution is
//! counted into the buckets its statdefs file defines (about 1 % of the value wide: 100 µs at 10 ms) and its
//! `rms` tool (src/rms.c) interpolates linearly between the bucket bounds. [`Validation::rms_ms`] is that figure,
//! the one to hold against DiskSim's; [`Validation::rms_exact_ms`] is the same distance between the requests'
//! own times, which is stricter where the distributions are dense.

use iosched_core::request::{Request, NOT_YET_NS};
use iosched_core::rng::SimRng;
use iosched_core::units::SECTOR_BYTES;
pub use iosched_device::disksim::statdefs::AccessTimeBuckets;
use iosched_device::{Completion, Device};
use iosched_workload::trace::disksim_validate::ValidateRecord;

/// What a validation run gives.
#[derive(Clone, Debug)]
pub struct Validation {
    /// Simulated access time of each request, ms, in trace order.
    pub simulated_ms: Vec<f64>,
    pub measured_ms: Vec<f64>,
    /// The demerit as DiskSim computes it: between the two distributions as DiskSim buckets and prints them.
    pub rms_ms: f64,
    /// The demerit between the requests' own times, not bucketed.
    pub rms_exact_ms: f64,
}

impl Validation {
    /// Compare simulated access times (ms, in trace order) with the trace's measured ones.
    pub fn new(simulated_ms: Vec<f64>, records: &[ValidateRecord], buckets: &AccessTimeBuckets) -> Validation {
        // As DiskSim reads them: the trace's microseconds divided by 1000.
        let measured_ms: Vec<f64> = records.iter().map(|r| r.measured_us / 1e3).collect();
        // The two figures are independent and each costs a pass (or a sort) over millions of times on a long
        // trace: one is computed on a second thread.
        let (rms_ms, rms_exact_ms) = std::thread::scope(|scope| {
            let exact = scope.spawn(|| demerit(&simulated_ms, &measured_ms));
            let printed = demerit_of_printed(
                &buckets.simulated.printed_cumulative(&simulated_ms),
                &buckets.measured.printed_cumulative(&measured_ms),
            );
            (printed, exact.join().expect("the demerit does not panic"))
        });
        Validation { simulated_ms, measured_ms, rms_ms, rms_exact_ms }
    }

    pub fn mean_simulated_ms(&self) -> f64 {
        mean(&self.simulated_ms)
    }

    pub fn mean_measured_ms(&self) -> f64 {
        mean(&self.measured_ms)
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Replay `records` on `device`, closed loop, one request outstanding, and compare with the measured times.
pub fn validate(device: &mut dyn Device, records: &[ValidateRecord], buckets: &AccessTimeBuckets) -> Validation {
    Validation::new(replay(device, records), records, buckets)
}

/// Replay `records` on `device`, closed loop, one request outstanding: each request's access time, ms.
pub fn replay(device: &mut dyn Device, records: &[ValidateRecord]) -> Vec<f64> {
    replay_noting(device, records, |_, _| {})
}

/// [`replay`], also saying what the device made of each request (its [`Device::last_service`]; "" where it
/// does not say).
pub fn replay_with_services(device: &mut dyn Device, records: &[ValidateRecord]) -> (Vec<f64>, Vec<&'static str>) {
    let mut services = Vec::with_capacity(records.len());
    let simulated_ms = replay_noting(device, records, |_, d| services.push(d.last_service().unwrap_or("")));
    (simulated_ms, services)
}

/// [`replay`], calling `note(i, device)` once request i has been submitted.
fn replay_noting(
    device: &mut dyn Device,
    records: &[ValidateRecord],
    mut note: impl FnMut(usize, &dyn Device),
) -> Vec<f64> {
    let mut simulated_ms = Vec::with_capacity(records.len());
    let mut replayer = Replayer::new(device);
    for (i, r) in records.iter().enumerate() {
        simulated_ms.push(replayer.next(r, |d| note(i, d)));
    }
    simulated_ms
}

/// A closed-loop replay fed a request at a time (so that a long trace can be replayed while it is still being
/// read): each request is issued its predecessor's think time after the predecessor completes.
pub struct Replayer<'d> {
    device: &'d mut dyn Device,
    now_ns: u64,
    issued: u64,
    done: Vec<Completion>,
}

impl<'d> Replayer<'d> {
    pub fn new(device: &'d mut dyn Device) -> Replayer<'d> {
        Replayer { device, now_ns: 0, issued: 0, done: Vec::with_capacity(1) }
    }

    /// Issue `r`, run the device until it completes, and return its access time, ms; `note` sees the device
    /// once the request is submitted.
    pub fn next(&mut self, r: &ValidateRecord, note: impl FnOnce(&dyn Device)) -> f64 {
        let now_ns = self.now_ns;
        let mut req = Request::new(
            self.issued,
            r.op,
            r.block.saturating_mul(SECTOR_BYTES),
            r.blocks.saturating_mul(SECTOR_BYTES),
            0,
        );
        self.issued += 1;
        req.queued_ns = now_ns;
        req.dispatched_ns = now_ns;
        req.completed_ns = NOT_YET_NS;
        self.device.submit(now_ns, 0, &req);
        note(&*self.device);
        loop {
            let t = self.device.next_event_ns().expect("a submitted request completes");
            self.done.clear();
            self.device.advance(t, &mut self.done);
            if !self.done.is_empty() {
                self.now_ns = t.saturating_add((r.next_interval_us * 1e3).round() as u64);
                return (t - now_ns) as f64 / 1e6;
            }
        }
    }
}

/// The error of one kind of request: simulated minus measured access time.
#[derive(Clone, Debug, PartialEq)]
pub struct KindError {
    /// "read hit sequential", ...: the operation, what the model made of it, how it follows the request before.
    pub name: String,
    pub requests: usize,
    pub mean_difference_ms: f64,
    /// Root mean square of the differences.
    pub rms_difference_ms: f64,
}

/// Errors per kind of request, in name order: `services[i]` is what the model made of request i.
pub fn errors_by_kind(
    records: &[ValidateRecord],
    simulated_ms: &[f64],
    measured_ms: &[f64],
    services: &[&str],
) -> Vec<KindError> {
    // Keyed by the parts of the name, formatted once per kind (not per request); the kinds seen are few, so
    // each request finds its own among a handful of entries, most often the one before.
    let mut seen: Vec<(&str, &str, &str, usize, f64, f64)> = Vec::new();
    let mut last = usize::MAX;
    for i in 0..records.len().min(simulated_ms.len()).min(measured_ms.len()).min(services.len()) {
        let op = if records[i].op == iosched_core::request::Op::Write { "write" } else { "read" };
        let key = (op, services[i], crate::disksim_oracle::pattern(records, i));
        let same = |e: &(&str, &str, &str, usize, f64, f64)| (e.0, e.1, e.2) == key;
        if last >= seen.len() || !same(&seen[last]) {
            last = seen.iter().position(same).unwrap_or_else(|| {
                seen.push((key.0, key.1, key.2, 0, 0.0, 0.0));
                seen.len() - 1
            });
        }
        let d = simulated_ms[i] - measured_ms[i];
        let e = &mut seen[last];
        e.3 += 1;
        e.4 += d;
        e.5 += d * d;
    }
    let kinds: std::collections::BTreeMap<(&str, &str, &str), (usize, f64, f64)> =
        seen.into_iter().map(|(a, b, c, n, sum, squares)| ((a, b, c), (n, sum, squares))).collect();
    kinds
        .into_iter()
        .map(|((op, service, pattern), (n, sum, squares))| KindError {
            name: format!("{op} {service} {pattern}"),
            requests: n,
            mean_difference_ms: sum / n as f64,
            rms_difference_ms: (squares / n as f64).sqrt(),
        })
        .collect()
}

/// Replay `records` on `device` with request i issued at `issue_ms[i]` (ms from the start; another simulator's
/// issue times, so that a difference in one request does not move every later one against the platter's
/// rotation), or when the previous request completes if that is later: each request's access time, ms, counted
/// from when it was issued. Records past the end of `issue_ms` are not replayed.
pub fn replay_issued_at(device: &mut dyn Device, records: &[ValidateRecord], issue_ms: &[f64]) -> Vec<f64> {
    let mut simulated_ms = Vec::with_capacity(records.len().min(issue_ms.len()));
    let mut done: Vec<Completion> = Vec::with_capacity(1);
    let mut free_ns = 0u64;
    for (i, (r, at_ms)) in records.iter().zip(issue_ms).enumerate() {
        let now_ns = free_ns.max((at_ms * 1e6).round() as u64);
        let mut req = Request::new(
            i as u64,
            r.op,
            r.block.saturating_mul(SECTOR_BYTES),
            r.blocks.saturating_mul(SECTOR_BYTES),
            0,
        );
        req.queued_ns = now_ns;
        req.dispatched_ns = now_ns;
        req.completed_ns = NOT_YET_NS;
        device.submit(now_ns, 0, &req);
        loop {
            let t = device.next_event_ns().expect("a submitted request completes");
            done.clear();
            device.advance(t, &mut done);
            if !done.is_empty() {
                simulated_ms.push((t - now_ns) as f64 / 1e6);
                free_ns = t;
                break;
            }
        }
    }
    simulated_ms
}

/// `records` with each think time (the interval before the next request) moved by a uniform random amount in
/// [-`jitter_us`, +`jitter_us`] (never below zero), the same for the same `seed`. A measured trace's think times
/// are the host's, known to a few microseconds at best; replaying with them nudged shows how much of a demerit
/// is the model and how much is where, by chance, requests fall against the platter's rotation.
pub fn jittered(records: &[ValidateRecord], jitter_us: f64, seed: u64) -> Vec<ValidateRecord> {
    let mut rng = SimRng::new(seed, 0);
    records
        .iter()
        .map(|r| {
            let nudge_us = (rng.unit_f64() * 2.0 - 1.0) * jitter_us;
            ValidateRecord { next_interval_us: (r.next_interval_us + nudge_us).max(0.0), ..r.clone() }
        })
        .collect()
}

/// The value below which a fraction `p` of `sorted` lies, interpolating linearly between the points
/// (v_k, k/n) of the empirical distribution (with (v_1, 0) as its start).
fn quantile(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    let pos = p * n as f64;
    let k = (pos.ceil() as usize).clamp(1, n);
    let lo = if k >= 2 { sorted[k - 2] } else { sorted[0] };
    let hi = sorted[k - 1];
    lo + (hi - lo) * (pos - (k - 1) as f64).clamp(0.0, 1.0)
}

/// The demerit figure between two samples of access times (ms), taken on the samples themselves.
pub fn demerit(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return f64::NAN;
    }
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_unstable_by(f64::total_cmp);
    b.sort_unstable_by(f64::total_cmp);
    const POINTS: usize = 10_000;
    let sum: f64 = (1..=POINTS)
        .map(|i| {
            let p = i as f64 / POINTS as f64;
            let d = quantile(&a, p) - quantile(&b, p);
            d * d
        })
        .sum();
    (sum / POINTS as f64).sqrt()
}

/// The demerit figure as DiskSim's rms tool computes it from two printed distributions, (bound, cumulative
/// fraction) points as `statdefs::Distribution::printed_cumulative` gives them: at each quantile p = 0.0001, ..., 1.0,
/// the bound where each distribution reaches p, interpolated linearly between the two points around it.
/// (rms.c steps p by adding 0.0001, which drifts by about 1e-13; here p is i / 10000.) NaN when either is empty.
pub fn demerit_of_printed(a: &[(f64, f64)], b: &[(f64, f64)]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return f64::NAN;
    }
    const POINTS: usize = 10_000;
    let (mut ia, mut ib) = (0, 0);
    let mut sum = 0.0;
    for i in 1..=POINTS {
        let p = i as f64 / POINTS as f64;
        let d = reach(a, &mut ia, p) - reach(b, &mut ib, p);
        sum += d * d;
    }
    (sum / POINTS as f64).sqrt()
}

/// Where the printed distribution `points` reaches fraction `p`, `from` being where the last (lower) p was
/// found. rms.c interpolates from the point before the first that reaches p; before the first point, which no
/// access time precedes (its bound is 0), the distribution is taken to start there.
fn reach(points: &[(f64, f64)], from: &mut usize, p: f64) -> f64 {
    while *from + 1 < points.len() && points[*from].1 < p {
        *from += 1;
    }
    let (x1, y1) = points[*from];
    if *from == 0 || y1 < p {
        return x1;
    }
    let (x0, y0) = points[*from - 1];
    x0 + (p - y0) / (y1 - y0) * (x1 - x0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use iosched_core::request::Op;

    #[test]
    fn jitter_moves_only_think_times_within_its_bound_and_is_the_same_for_a_seed() {
        let records: Vec<ValidateRecord> = (0..1000)
            .map(|i| ValidateRecord {
                op: if i % 2 == 0 { Op::Read } else { Op::Write },
                buffer_action: iosched_workload::trace::disksim_validate::BufferAction::Miss,
                block: i * 8,
                blocks: 8,
                measured_us: 5000.0,
                next_interval_us: if i % 10 == 0 { 3.0 } else { 1000.0 },
            })
            .collect();
        let a = jittered(&records, 20.0, 1);
        assert_eq!(a, jittered(&records, 20.0, 1));
        assert_ne!(a, jittered(&records, 20.0, 2));
        let mut moved = 0;
        for (j, r) in a.iter().zip(&records) {
            assert_eq!(ValidateRecord { next_interval_us: r.next_interval_us, ..j.clone() }, *r);
            assert!(j.next_interval_us >= 0.0 && (j.next_interval_us - r.next_interval_us).abs() <= 20.0);
            moved += usize::from(j.next_interval_us != r.next_interval_us);
        }
        assert!(moved > 990, "{moved}");
        // Both ways, spread over the bound.
        let nudges: Vec<f64> = a.iter().zip(&records).map(|(j, r)| j.next_interval_us - r.next_interval_us).collect();
        assert!(nudges.iter().any(|n| *n > 15.0) && nudges.iter().any(|n| *n < -15.0));
    }

    #[test]
    fn demerit_is_zero_for_equal_distributions_and_a_shift_for_shifted_ones() {
        let a: Vec<f64> = (0..1000).map(|i| i as f64 / 100.0).collect();
        assert!(demerit(&a, &a).abs() < 1e-12);
        let shifted: Vec<f64> = a.iter().map(|x| x + 0.25).collect();
        assert!((demerit(&a, &shifted) - 0.25).abs() < 1e-9);
        // Order does not matter: it compares distributions, not request by request.
        let mut reversed = a.clone();
        reversed.reverse();
        assert!(demerit(&a, &reversed).abs() < 1e-12);
    }

    #[test]
    fn the_printed_demerit_interpolates_between_bucket_bounds_as_disksims_rms_tool() {
        // a reaches p at x = 2p; b at x = 1 + p (nothing below 1, then uniform up to 2).
        let a = [(0.0, 0.0), (1.0, 0.5), (2.0, 1.0)];
        let b = [(0.0, 0.0), (1.0, 0.0), (2.0, 1.0)];
        assert_eq!(demerit_of_printed(&a, &a), 0.0);
        // Distance 1 - p at p = i / N: sum (1 - i/N)^2 / N = (N - 1)(2N - 1) / (6 N^2).
        let n: f64 = 10_000.0;
        let want = ((n - 1.0) * (2.0 * n - 1.0) / (6.0 * n * n)).sqrt();
        assert!((demerit_of_printed(&a, &b) - want).abs() < 1e-12, "{}", demerit_of_printed(&a, &b));
        assert!(demerit_of_printed(&a, &[]).is_nan());
    }

    #[test]
    fn bucketing_hides_differences_within_a_bucket_but_not_across_buckets() {
        let buckets = AccessTimeBuckets::disksim();
        let printed = |v: &[f64]| buckets.simulated.printed_cumulative(v);
        // Around 10 ms the buckets are 100 µs wide ([9.969, 10.069) ms): times 30 µs apart inside one bucket
        // print the same distribution, while their exact demerit is 30 µs.
        let a: Vec<f64> = (0..1000).map(|i| 9.98 + i as f64 * 1e-5).collect();
        let b: Vec<f64> = a.iter().map(|x| x + 0.03).collect();
        assert_eq!(printed(&a), printed(&b));
        assert!((demerit(&a, &b) - 0.03).abs() < 1e-9);
        assert_eq!(demerit_of_printed(&printed(&a), &printed(&b)), 0.0);
        // Moved by 200 µs they land two buckets on, in [10.170, 10.272): the printed distributions spread each
        // over its bucket, so the distance is 0.201 ms between the buckets' starts plus up to 0.002 for the
        // second bucket being 2 µs wider (0.202 in the mean square).
        let c: Vec<f64> = a.iter().map(|x| x + 0.2).collect();
        let d = demerit_of_printed(&printed(&a), &printed(&c));
        assert!((d - 0.202).abs() < 0.0005, "{d}");
    }
}
