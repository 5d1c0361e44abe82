//! fio's iodepth_mode=stepped (lat_target.c, lat_step_*): how a device's latency grows with load, measured by
//! one job in steps.
//!
//! The job first probes: it ramps for RAMP at its full depth, then runs for RUN and measures its IOPS per
//! direction. Then it steps: step k (k = 1, 2, ...) is limited to k x STEP per cent of the probed IOPS
//! (fio's rate_iops) at a depth of `iodepth x 100 / HIGH`; at 100 % and above there is no rate limit and the
//! depth is `iodepth x percent / HIGH`. Each step ramps for RAMP, then runs for RUN and records the IOPS and
//! mean latency of what completed in its run; the job ends after the step at HIGH per cent. Before each
//! measurement ends the queue drains (fio's io_u_quiesce), and only completions in a run count in the job's
//! results.
//!
//! Where fio's code and its own description differ, the description is followed, named here: lat_target.h
//! says the steps are "iterations of RAMP -> RUN", and so does the example job file (fio's
//! examples/iodepth_mode_stepped.fio: "for each step, use a ramp time of 5s, then 30 seconds of runtime"),
//! while lat_step_check leaves a finished step in RUN, so that only the first step ramps. Likewise each step's
//! IOPS are the I/Os completed in its own run over its length, which is what fio's per-step report means
//! (its count is taken against a note made before the first step's run). LOW is read, and as in fio unused.

use iosched_core::request::Op;
use iosched_core::results::StepResult;
use iosched_workload::job::SteppedDepth;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    ProbeRamp,
    ProbeRun,
    Ramp,
    Run,
    Done,
}

/// What the job must do after a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepAction {
    /// Go on.
    None,
    /// Issue nothing more until every request in flight has completed, then call [`Stepper::drained`].
    Quiesce,
    /// A run begins: results count from now.
    StartCounting,
    /// The last step is over: the job is done.
    Done,
}

pub struct Stepper {
    spec: SteppedDepth,
    full_depth: u32,
    state: State,
    since_ns: u64,
    /// When the due measurement was noticed (its length runs to here; the drain after it does not count).
    due_at_ns: Option<u64>,
    step: u32,
    probed_iops: [u64; 3],
    depth: u32,
    rate_iops: [u64; 3],
    /// Completions in the current run, and their summed latency, per direction.
    run_ios: [u64; 3],
    run_latency_ns: [u128; 3],
    steps: Vec<StepResult>,
}

impl Stepper {
    pub fn new(spec: SteppedDepth, full_depth: u32, start_ns: u64) -> Stepper {
        Stepper {
            spec,
            full_depth: full_depth.max(1),
            state: State::ProbeRamp,
            since_ns: start_ns,
            due_at_ns: None,
            step: 0,
            probed_iops: [0; 3],
            depth: full_depth.max(1),
            rate_iops: [0; 3],
            run_ios: [0; 3],
            run_latency_ns: [0; 3],
            steps: Vec::new(),
        }
    }

    /// The depth the job may use now.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The rate limit of direction `dir` now, in IOPS (0: none).
    pub fn rate_iops(&self, dir: usize) -> u64 {
        self.rate_iops[dir]
    }

    /// Whether completions now count in the job's results (fio's lat_step_account: only in a run).
    pub fn counting(&self) -> bool {
        self.state == State::Run
    }

    pub fn done(&self) -> bool {
        self.state == State::Done
    }

    /// The steps so far.
    pub fn steps(&self) -> &[StepResult] {
        &self.steps
    }

    /// When the current phase ends, for a wake-up.
    pub fn deadline_ns(&self) -> Option<u64> {
        match self.state {
            State::ProbeRamp | State::Ramp => Some(self.since_ns + self.spec.ramp_ns),
            State::ProbeRun | State::Run => Some(self.since_ns + self.spec.run_ns),
            State::Done => None,
        }
    }

    pub fn on_completion(&mut self, op: Op, latency_ns: u64) {
        if self.state == State::Run || self.state == State::ProbeRun {
            let dir = op.index();
            if dir < 3 && op != Op::Flush {
                self.run_ios[dir] += 1;
                self.run_latency_ns[dir] += latency_ns as u128;
            }
        }
    }

    /// Check the clock: a ramp that is over starts its run; a run that is over asks for the queue to drain.
    pub fn check(&mut self, now_ns: u64) -> StepAction {
        if self.due_at_ns.is_some() || self.deadline_ns().is_none_or(|d| now_ns < d) {
            return StepAction::None;
        }
        match self.state {
            State::ProbeRamp => {
                self.begin_run(now_ns, State::ProbeRun);
                StepAction::None
            }
            State::Ramp => {
                self.begin_run(now_ns, State::Run);
                StepAction::StartCounting
            }
            State::ProbeRun | State::Run => {
                self.due_at_ns = Some(now_ns);
                StepAction::Quiesce
            }
            State::Done => StepAction::None,
        }
    }

    /// The queue drained after a run: record it and set up the next step (or finish).
    pub fn drained(&mut self, now_ns: u64) -> StepAction {
        let Some(due) = self.due_at_ns.take() else { return StepAction::None };
        let run_ns = due.saturating_sub(self.since_ns).max(1);
        let iops = self.run_ios.map(|n| (n as u128 * 1_000_000_000 / run_ns as u128) as u64);
        if self.state == State::ProbeRun {
            self.probed_iops = iops;
        } else {
            let mean = |d: usize| match self.run_ios[d] {
                0 => 0.0,
                n => self.run_latency_ns[d] as f64 / n as f64,
            };
            self.steps.push(StepResult {
                percent: (self.step + 1) * self.spec.step_percent,
                depth: self.depth,
                rate_iops: self.rate_iops,
                iops,
                mean_latency_ns: [mean(0), mean(1), mean(2)],
            });
            self.step += 1;
        }
        if self.step * self.spec.step_percent >= self.spec.high_percent {
            self.state = State::Done;
            self.rate_iops = [0; 3];
            return StepAction::Done;
        }
        let percent = (self.step + 1) * self.spec.step_percent;
        let high = self.spec.high_percent.max(1);
        if percent < 100 {
            self.rate_iops = self.probed_iops.map(|p| p * percent as u64 / 100);
            self.depth = (self.full_depth * 100 / high).max(1);
        } else {
            self.rate_iops = [0; 3];
            self.depth = (self.full_depth as u64 * percent as u64 / high as u64).clamp(1, u32::MAX as u64) as u32;
        }
        self.state = State::Ramp;
        self.since_ns = now_ns;
        StepAction::None
    }

    fn begin_run(&mut self, now_ns: u64, state: State) {
        self.state = state;
        self.since_ns = now_ns;
        self.run_ios = [0; 3];
        self.run_latency_ns = [0; 3];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SteppedDepth {
        SteppedDepth { low_percent: 10, high_percent: 130, step_percent: 5, ramp_ns: 5, run_ns: 30 }
    }

    #[test]
    fn probe_then_steps_limited_by_the_probed_rate_up_to_high() {
        let mut s = Stepper::new(spec(), 64, 0);
        assert_eq!(s.depth(), 64);
        assert_eq!(s.check(5), StepAction::None); // probe ramp over: probe run
        for _ in 0..300 {
            s.on_completion(Op::Read, 100);
        }
        assert_eq!(s.check(35), StepAction::Quiesce);
        assert_eq!(s.drained(36), StepAction::None);
        // 300 reads in 30 ns: 10^10 IOPS probed; step 1 at 5 % of it, at depth 64 x 100 / 130.
        assert_eq!(s.rate_iops(0), 10_000_000_000 * 5 / 100);
        assert_eq!(s.depth(), 49);
        let mut now = 36;
        let mut steps = 0;
        loop {
            now += 5;
            assert_eq!(s.check(now), StepAction::StartCounting);
            assert!(s.counting());
            s.on_completion(Op::Read, 1000);
            now += 30;
            assert_eq!(s.check(now), StepAction::Quiesce);
            steps += 1;
            if s.drained(now) == StepAction::Done {
                break;
            }
        }
        assert_eq!(steps, 26, "5 % to 130 % in steps of 5");
        let last = s.steps().last().unwrap();
        assert_eq!((last.percent, last.depth, last.rate_iops[0]), (130, 64, 0));
        assert_eq!(s.steps()[19].percent, 100);
        assert_eq!(s.steps()[19].depth, 49, "at 100 %: 64 x 100 / 130, no rate limit");
        assert_eq!(s.steps()[0].mean_latency_ns[0], 1000.0);
        assert!(s.done());
    }
}
