//! fio's latency_target search for a job (its own words: the deepest queue that keeps latency_percentile of a
//! latency_window's I/Os under latency_target): start at depth 1, double while a window holds, bisect once one
//! fails, then run one final window at the depth found, whose I/Os are the ones reported. The job process
//! ([`super::JobProcess`]) feeds it each completion and acts on the step it returns.

/// fio's latency-target search state.
pub(super) struct LatencySearch {
    pub(super) target_ns: u64,
    pub(super) window_ns: u64,
    pub(super) percentile: f64,
    pub(super) depth: u32,
    pub(super) low: u32,
    pub(super) high: u32,
    pub(super) max: u32,
    pub(super) window_start_ns: u64,
    pub(super) window_ios: u64,
    pub(super) window_failed: u64,
    pub(super) final_run: bool,
}

pub(super) enum SearchStep {
    Continue,
    /// Drain the queue, then go on (depth changed).
    Quiesce,
    /// Drain the queue, forget the results so far, and run one more window.
    FinalRun,
    Done,
    Failed,
}

impl LatencySearch {
    pub(super) fn new_window(&mut self, now_ns: u64) {
        self.window_start_ns = now_ns;
        self.window_ios = 0;
        self.window_failed = 0;
    }

    fn fail_step(&mut self, now_ns: u64) -> SearchStep {
        if self.depth == 1 {
            return SearchStep::Failed;
        }
        self.high = self.depth;
        if self.depth == self.low {
            self.low -= 1;
        }
        self.depth = ((self.depth + self.low) / 2).max(1);
        self.new_window(now_ns);
        SearchStep::Quiesce
    }

    pub(super) fn on_completion(&mut self, now_ns: u64, latency_ns: u64) -> SearchStep {
        self.window_ios += 1;
        if latency_ns > self.target_ns {
            if self.percentile >= 100.0 {
                return self.fail_step(now_ns);
            }
            self.window_failed += 1;
        }
        if now_ns < self.window_start_ns + self.window_ns || self.window_ios == 0 {
            return SearchStep::Continue;
        }
        let success = (self.window_ios - self.window_failed) as f64 * 100.0 / self.window_ios as f64;
        if success < self.percentile {
            return self.fail_step(now_ns);
        }
        let before = self.depth;
        self.low = self.depth;
        self.depth = if self.high != self.max { (self.depth + self.high) / 2 } else { self.depth * 2 };
        self.depth = self.depth.clamp(1, self.max);
        self.new_window(now_ns);
        if self.depth == before {
            if self.final_run {
                return SearchStep::Done;
            }
            self.final_run = true;
            return SearchStep::FinalRun;
        }
        SearchStep::Continue
    }
}
