//! Validation against measured drives, as DiskSim does it: replay a validate trace closed loop with one
//! request outstanding (the next issued its think time after the previous completes) and compare the
//! distribution of simulated access times with the measured one by the demerit figure: the root-mean-square
//! horizontal distance between the two distributions, sampled at quantiles 0.0001, 0.0002, ..., 1.0 with
//! linear interpolation (Ruemmler and Wilkes; DiskSim's rms tool).

use iosched_core::request::{Request, NOT_YET_NS};
use iosched_core::rng::SimRng;
use iosched_core::units::SECTOR_BYTES;
use iosched_device::{Completion, Device};
use iosched_workload::trace::disksim_validate::ValidateRecord;

/// What a validation run gives.
#[derive(Clone, Debug)]
pub struct Validation {
    /// Simulated access time of each request, ms, in trace order.
    pub simulated_ms: Vec<f64>,
    pub measured_ms: Vec<f64>,
    pub rms_ms: f64,
}

impl Validation {
    /// Compare simulated access times (ms, in trace order) with the trace's measured ones.
    pub fn new(simulated_ms: Vec<f64>, records: &[ValidateRecord]) -> Validation {
        let measured_ms: Vec<f64> = records.iter().map(|r| r.measured_us / 1e3).collect();
        let rms_ms = demerit(&simulated_ms, &measured_ms);
        Validation { simulated_ms, measured_ms, rms_ms }
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
pub fn validate(device: &mut dyn Device, records: &[ValidateRecord]) -> Validation {
    Validation::new(replay(device, records), records)
}

/// Replay `records` on `device`, closed loop, one request outstanding: each request's access time, ms.
pub fn replay(device: &mut dyn Device, records: &[ValidateRecord]) -> Vec<f64> {
    let mut simulated_ms = Vec::with_capacity(records.len());
    let mut done: Vec<Completion> = Vec::with_capacity(1);
    let mut now_ns = 0u64;
    for (i, r) in records.iter().enumerate() {
        let mut req = Request::new(i as u64, r.op, r.block * SECTOR_BYTES, r.blocks * SECTOR_BYTES, 0);
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
                now_ns = t + (r.next_interval_us * 1e3).round() as u64;
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

/// DiskSim's demerit figure between two samples of access times (ms).
pub fn demerit(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return f64::NAN;
    }
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
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

#[cfg(test)]
mod tests {
    use super::*;
    use iosched_core::request::Op;

    #[test]
    fn jitter_moves_only_think_times_within_its_bound_and_is_the_same_for_a_seed() {
        let records: Vec<ValidateRecord> = (0..1000)
            .map(|i| ValidateRecord {
                op: if i % 2 == 0 { Op::Read } else { Op::Write },
                buffer_action: "Miss".into(),
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
}
