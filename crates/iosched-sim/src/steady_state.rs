//! fio's steady-state detection (steadystate, steadystate_duration, steadystate_ramp_time,
//! steadystate_check_interval): once its ramp is over, a job's IOPS or bandwidth is sampled every interval
//! (default a second) of simulated time; when the samples of the last `duration` meet the criterion, the job has
//! reached steady state and ends. The criterion is fio's: every sample within the limit of the window's mean,
//! or the least-squares slope of the window under the limit; a limit is absolute or a percentage of the mean.
//! A sample is the I/O completed in its interval per second (an interval with none counts zero).

use iosched_workload::job::SteadyStateCriterion;
use std::collections::VecDeque;

const SECOND_NS: u64 = 1_000_000_000;

pub struct SteadyState {
    criterion: SteadyStateCriterion,
    /// The sampling interval.
    interval_ns: u64,
    /// Samples the window holds (the duration in whole intervals).
    samples_wanted: usize,
    window: VecDeque<f64>,
    /// The end of the second being counted.
    sample_end_ns: u64,
    ios: u64,
    bytes: u64,
}

impl SteadyState {
    /// None when detection is off (no duration, or one under an interval).
    pub fn new(
        criterion: SteadyStateCriterion,
        duration_ns: u64,
        interval_ns: u64,
        sampling_from_ns: u64,
    ) -> Option<SteadyState> {
        let interval_ns = interval_ns.max(1);
        let samples_wanted = (duration_ns / interval_ns) as usize;
        (samples_wanted > 0).then(|| SteadyState {
            criterion,
            interval_ns,
            samples_wanted,
            window: VecDeque::with_capacity(samples_wanted + 1),
            sample_end_ns: sampling_from_ns + interval_ns,
            ios: 0,
            bytes: 0,
        })
    }

    /// An I/O of `bytes` completed at `now_ns`. True once steady state is reached.
    pub fn observe(&mut self, now_ns: u64, bytes: u64) -> bool {
        if now_ns + self.interval_ns < self.sample_end_ns {
            return false; // still ramping
        }
        let mut reached = false;
        let per_second = SECOND_NS as f64 / self.interval_ns as f64;
        while now_ns >= self.sample_end_ns {
            let value =
                if self.criterion.bandwidth { self.bytes as f64 / 1024.0 } else { self.ios as f64 } * per_second;
            self.window.push_back(value);
            if self.window.len() > self.samples_wanted {
                self.window.pop_front();
            }
            (self.ios, self.bytes) = (0, 0);
            self.sample_end_ns += self.interval_ns;
            reached |= self.window.len() == self.samples_wanted && self.met();
        }
        self.ios += 1;
        self.bytes += bytes;
        reached
    }

    fn met(&self) -> bool {
        let n = self.window.len() as f64;
        let mean = self.window.iter().sum::<f64>() / n;
        let limit = if self.criterion.percent { self.criterion.limit / 100.0 * mean } else { self.criterion.limit };
        if self.criterion.slope {
            // Least squares over x = 0, 1, ..., n - 1.
            let mean_x = (n - 1.0) / 2.0;
            let (mut sxy, mut sxx) = (0.0, 0.0);
            for (x, y) in self.window.iter().enumerate() {
                sxy += (x as f64 - mean_x) * (y - mean);
                sxx += (x as f64 - mean_x).powi(2);
            }
            let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
            slope.abs() <= limit
        } else {
            self.window.iter().all(|y| (y - mean).abs() <= limit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn criterion(slope: bool, limit: f64) -> SteadyStateCriterion {
        SteadyStateCriterion { bandwidth: false, slope, limit, percent: true }
    }

    /// Feed `per_second` I/Os in each second from 0 on; the second at which steady state is reached.
    fn reached_at(c: SteadyStateCriterion, per_second: impl Fn(u64) -> u64) -> Option<u64> {
        let mut ss = SteadyState::new(c, 5 * SECOND_NS, SECOND_NS, 0).unwrap();
        for s in 0..60 {
            let n = per_second(s);
            for i in 0..n {
                if ss.observe(s * SECOND_NS + i * (SECOND_NS / n), 4096) {
                    return Some(s);
                }
            }
        }
        None
    }

    #[test]
    fn a_flat_rate_is_steady_once_the_window_is_full_and_a_climbing_one_is_not() {
        // Five whole seconds are sampled by the first I/O of the sixth.
        assert_eq!(reached_at(criterion(false, 1.0), |_| 1000), Some(5));
        assert_eq!(reached_at(criterion(true, 0.1), |_| 1000), Some(5));
        // 20 more each second (1-2 % of the rate over the minute): the window's ends are 2-4 % from its mean and
        // its slope is 1-2 % of it, never within 0.5 %.
        assert_eq!(reached_at(criterion(false, 0.5), |s| 1000 + 20 * s), None);
        assert_eq!(reached_at(criterion(true, 0.5), |s| 1000 + 20 * s), None);
        // Climbing to a plateau from second 20 on: seconds 20-24 are the first flat window, judged in second 25.
        assert_eq!(reached_at(criterion(false, 1.0), |s| 1000 + 20 * s.min(20)), Some(25));
    }

    #[test]
    fn the_check_interval_sets_what_a_sample_averages() {
        // 400 I/Os in the first half of every second and 600 in the second: 1,000 per second in 1 s samples,
        // 800 and 1,200 per second in 500 ms ones, never within 10 % of their mean.
        let run = |interval_ns: u64| {
            let mut ss = SteadyState::new(criterion(false, 10.0), 5 * SECOND_NS, interval_ns, 0).unwrap();
            let half = SECOND_NS / 2;
            (0..120u64).find(|h| {
                let n = if h % 2 == 0 { 400 } else { 600 };
                (0..n).any(|i| ss.observe(h * half + i * (half / n), 4096))
            })
        };
        assert_eq!(run(SECOND_NS), Some(10), "steady at 5 s");
        assert_eq!(run(SECOND_NS / 2), None);
    }
}
