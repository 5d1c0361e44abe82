//! The processes that issue a workload's requests.
//!
//! - [`JobProcess`]: a fio job clone in closed loop, as fio's main loop runs one:
//!   - it keeps up to its depth in flight (one for psync-style engines); with iodepth_low, once the queue is
//!     full it refills only when it has drained that far;
//!   - buffered writes (direct=0 without sync) are asynchronous write-back: the job does not wait for them,
//!     but at most [`WRITE_BACK_REQUESTS`] may be outstanding, after which it waits as a writer throttled by
//!     the kernel would (the page cache's absorbing of writes ahead of the device is not modelled);
//!   - rate and rate_iops hold each direction to its rate, with evenly spaced issues (linear) or exponential
//!     gaps (poisson); rate_min / rate_iops_min fail the job when a ratecycle falls short, max_latency when a
//!     request takes longer;
//!   - thinktime: after every thinktime_blocks issues, the job waits for its I/O to complete, then pauses;
//!   - a flush after every fsync / fdatasync writes and at the end with end_fsync (or fsync_on_close, if it
//!     writes);
//!   - latency_target: fio's search for the deepest queue that keeps latency_percentile of a latency_window's
//!     I/Os under the target (start at depth 1, double while it holds, bisect once it fails, then one final
//!     window at the depth found, whose I/Os are the reported ones);
//!   - it stops at its I/O limit (times loops) or at ramp_time + runtime, whichever comes first.
//! - [`TimedProcess`]: an open-loop list of requests issued at their times whatever the device does.
//! - [`ClosedProcess`]: a list of requests issued in order with a fixed number outstanding.
//!
//! The two list processes live in `replay`, fio's latency_target search in `latency_search`.
//!
//! Each step appends the requests to issue now to a buffer the engine owns and says when to be woken next.

mod latency_search;
mod replay;

pub use replay::{ClosedProcess, TimedProcess};

use crate::stepped_depth::StepAction;
use crate::verify::VerifyLog;
use iosched_core::request::{FlowId, IoClass, Op, Request};
use iosched_core::rng::SimRng;
use iosched_workload::generator::{IoGenerator, NextIo};
use iosched_workload::job::{ExitWhat, IoLimit, JobSpec, RateProcess, SgWriteMode};
use latency_search::{LatencySearch, SearchStep};

/// Buffered writes a job may have outstanding before it waits: the block layer's default request-queue size
/// (nr_requests).
pub const WRITE_BACK_REQUESTS: u32 = 128;

/// A request a process wants issued now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Issue {
    pub op: Op,
    pub offset_bytes: u64,
    pub len_bytes: u64,
    pub flow: FlowId,
    pub class: IoClass,
    pub level: u8,
    pub sync: bool,
    /// A read-back of written data (fio's verify).
    pub verify: bool,
    /// Forced unit access (readfua/writefua, and the sg write modes that imply it).
    pub fua: bool,
    /// A trim of several ranges in one command (fio's num_range): `len_bytes` is their total, the first starts
    /// at `offset_bytes`, and the job process holds them all ([`JobProcess::take_trim_ranges`], in issue order).
    /// Kept out of the issue so that an issue stays small and `Copy` on the job path.
    pub trim_ranges: bool,
}

/// Why a job stopped early, as fio reports it (errno and message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobFailure {
    pub errno: i32,
    pub message: String,
}

pub struct JobProcess {
    flow: FlowId,
    job: JobSpec,
    depth: u32,
    refill_at: u32,
    generator: IoGenerator,
    rng: SimRng,
    /// The I/O limit in bytes or I/Os, loops included.
    limit_bytes: Option<u64>,
    limit_ios: Option<u64>,
    start_ns: u64,
    started: bool,
    /// Requests the job waits for.
    in_flight: u32,
    /// Write-back requests outstanding.
    write_back: u32,
    /// The queue filled up; waiting to drain to `refill_at`.
    draining: bool,
    /// Waiting for every request to complete (before a think time, or a latency-target depth change).
    quiescing: bool,
    /// After quiescing, think.
    think_after_quiesce: bool,
    /// After quiescing, forget the results so far (the latency target's final run).
    reset_after_quiesce: bool,
    thinking_until_ns: Option<u64>,
    /// An I/O held back by the rate limit.
    held: Option<NextIo>,
    /// When each direction may issue next (rate limits).
    next_issue_ns: [u64; 3],
    issued_ios: u64,
    issued_bytes: u64,
    issued_by_dir_ios: [u64; 3],
    since_think: u32,
    writes_since_flush: u32,
    end_flush_issued: bool,
    stopped: bool,
    failure: Option<JobFailure>,
    /// rate_min: the current cycle's start and bytes / I/Os completed in it.
    cycle_start_ns: u64,
    cycle_bytes: [u64; 3],
    cycle_ios: [u64; 3],
    search: Option<LatencySearch>,
    /// iodepth_mode=stepped, set up when the job starts (unless a latency target takes precedence, as in fio).
    stepper: Option<crate::stepped_depth::Stepper>,
    /// A step's run ended: after the queue drains, the stepper moves on.
    step_after_quiesce: bool,
    /// The ranges of the trims of several ranges issued and not yet taken by the engine, in issue order.
    trim_ranges: std::collections::VecDeque<Box<[(u64, u64)]>>,
    /// rate_min or rate_iops_min is set (otherwise completions skip the ratecycle bookkeeping).
    checks_min_rate: bool,
    /// The results so far are to be dropped (the latency target's final run begins).
    reset_stats: bool,
    /// Results count completions from this time on (the end of ramp_time, or the final run's start).
    account_from_ns: u64,
    /// The wake-up already asked of the engine, so that it is asked once.
    wake_asked_ns: Option<u64>,
    /// fio's steadystate: set up when the job starts.
    steady: Option<crate::steady_state::SteadyState>,
    /// fio's flow: the group this job shares issuing with, and how many I/Os it has issued in it.
    flow_group: Option<std::sync::Arc<FlowGroup>>,
    flow_issued: u64,
    /// fio's verify: the written blocks to read back, and the read-back phase after the writes (of a loop).
    verify: Option<VerifyLog>,
    /// The writes of a loop end at this many bytes or I/Os issued (the loop's read-back follows).
    loop_len: Option<u64>,
    next_loop_end: u64,
    /// The read-back phase: waiting for the writes to complete (Quiescing), then reading until done or until
    /// its runtime (fio restarts the clock for it) is up.
    verify_phase: VerifyPhase,
    /// Verify reads whose data was not what the job wrote (a live device checks them), and where the first was.
    verify_failures: u64,
    first_verify_failure_bytes: Option<u64>,
}

/// The errno fio reports for a block that fails its check.
const EILSEQ: i32 = 84;
/// The errno fio reports for a request over max_latency, or a latency_target it cannot meet.
const ETIMEDOUT: i32 = 110;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VerifyPhase {
    Off,
    Quiescing,
    Reading { until_ns: Option<u64> },
}

/// Jobs sharing a flow_id: fio keeps each one's share of the group's issued I/Os at its share of the group's
/// weight; a job ahead of its share waits flow_sleep and tries again.
#[derive(Debug)]
pub struct FlowGroup {
    pub total_weight: u64,
    pub issued: std::sync::atomic::AtomicU64,
}

impl FlowGroup {
    fn ahead(&self, own_issued: u64, weight: u32) -> bool {
        let issued = self.issued.load(std::sync::atomic::Ordering::Relaxed);
        issued > 0 && (own_issued as f64 / issued as f64) > (weight as f64 / self.total_weight.max(1) as f64)
    }
}

/// What verify did in a fill.
enum VerifyStep {
    /// A read of a written block was issued.
    Issued,
    /// The read-back waits for the writes in flight.
    Wait,
    /// Nothing of verify's now: the job issues as usual.
    None,
}

/// How long a job ahead of its flow share waits when flow_sleep is 0 (fio then retries at once, which a
/// simulation cannot do without an event per retry).
const FLOW_RETRY_NS: u64 = 100_000;

impl JobProcess {
    pub fn new(flow: FlowId, job: &JobSpec, region: (u64, u64), mut rng: SimRng) -> JobProcess {
        let depth = job.effective_depth();
        let loops = job.loops.max(1) as u64;
        let (limit_bytes, limit_ios) = match job.io_limit {
            IoLimit::Region if job.time_based => (None, None),
            IoLimit::Region => (Some(region.1.saturating_mul(loops)), None),
            IoLimit::RegionPercent(p) => {
                (Some(((region.1 as u128 * p as u128 / 100) as u64).max(1).saturating_mul(loops)), None)
            }
            IoLimit::Bytes(b) => (Some(b.saturating_mul(loops)), None),
            IoLimit::Ios(n) => (None, Some(n.saturating_mul(loops))),
        };
        // sprandom: fio sets the size to the physical size of the part written (the generator may end first).
        let limit_bytes = match job.sprandom {
            true => {
                let logical = limit_bytes.map_or(region.1, |l| (l / loops).min(region.1));
                let bs = job.block_sizes[Op::Write.index()].min_bytes();
                Some(job.sprandom_spec.physical_bytes(logical, bs))
            }
            false => limit_bytes,
        };
        let search = job.latency_target.map(|t| LatencySearch {
            target_ns: t.target_ns,
            window_ns: t.window_ns,
            percentile: t.percentile,
            depth: 1,
            low: 1,
            high: depth,
            max: depth,
            window_start_ns: 0,
            window_ios: 0,
            window_failed: 0,
            final_run: false,
        });
        JobProcess {
            flow,
            depth,
            refill_at: job.iodepth_low.map_or(depth.saturating_sub(1), |low| low.min(depth.saturating_sub(1))),
            generator: IoGenerator::new(job, region.0, region.1, &mut rng),
            rng,
            limit_bytes,
            limit_ios,
            start_ns: job.startdelay_ns,
            started: false,
            in_flight: 0,
            write_back: 0,
            draining: false,
            quiescing: false,
            think_after_quiesce: false,
            reset_after_quiesce: false,
            thinking_until_ns: None,
            held: None,
            next_issue_ns: [0; 3],
            issued_ios: 0,
            issued_bytes: 0,
            issued_by_dir_ios: [0; 3],
            since_think: 0,
            writes_since_flush: 0,
            end_flush_issued: false,
            stopped: false,
            failure: None,
            cycle_start_ns: 0,
            cycle_bytes: [0; 3],
            cycle_ios: [0; 3],
            search,
            stepper: None,
            step_after_quiesce: false,
            trim_ranges: std::collections::VecDeque::new(),
            checks_min_rate: job.rate_min_bytes_per_s.iter().chain(&job.rate_iops_min).any(|r| *r > 0),
            reset_stats: false,
            account_from_ns: 0,
            wake_asked_ns: None,
            steady: None,
            flow_group: None,
            flow_issued: 0,
            verify: VerifyLog::of(job),
            loop_len: match (limit_bytes, limit_ios) {
                (Some(bytes), _) => Some(bytes / loops),
                (None, Some(ios)) => Some(ios / loops),
                (None, None) => None,
            },
            next_loop_end: 0,
            verify_phase: VerifyPhase::Off,
            verify_failures: 0,
            first_verify_failure_bytes: None,
            job: job.clone(),
        }
    }

    /// Start the job `now_ns` (its wave began); returns when to wake it (after startdelay).
    pub fn start_at(&mut self, now_ns: u64) -> u64 {
        self.start_ns = now_ns + self.job.startdelay_ns;
        self.account_from_ns = self.start_ns + self.job.ramp_ns;
        self.start_ns
    }

    /// The job whose clones must all have finished before this one starts (fio's wait_for).
    pub fn waits_for(&self) -> Option<&str> {
        self.job.wait_for.as_deref()
    }

    /// The job's name (every clone's).
    pub fn job_name(&self) -> &str {
        &self.job.name
    }

    /// When the job starts (its wave's start plus startdelay).
    pub fn start_ns(&self) -> u64 {
        self.start_ns
    }

    /// Completions before this time are not reported (ramp_time; the latency target's search).
    pub fn account_from_ns(&self) -> u64 {
        self.account_from_ns
    }

    /// Whether the results so far are to be forgotten (asked once).
    pub fn take_stats_reset(&mut self) -> bool {
        std::mem::take(&mut self.reset_stats)
    }

    /// When the job ended, for its reported runtime: a job that ran out of time ran until its runtime was up
    /// even if it was idle (rate-limited, thinking) at the end, as fio counts it; otherwise its last completion.
    pub fn end_ns(&self, last_completion_ns: u64) -> u64 {
        let limit_reached = self.limit_bytes.is_some_and(|l| self.issued_bytes >= l)
            || self.limit_ios.is_some_and(|l| self.issued_ios >= l);
        match self.job.runtime_ns {
            Some(runtime_ns) if !self.stopped && !limit_reached => {
                last_completion_ns.max(self.start_ns + self.job.ramp_ns + runtime_ns)
            }
            _ => last_completion_ns,
        }
    }

    pub fn failure(&self) -> Option<&JobFailure> {
        self.failure.as_ref()
    }

    /// Nothing more to issue at `now_ns` or later, and nothing outstanding.
    pub fn finished(&self, now_ns: u64) -> bool {
        self.started
            && self.in_flight == 0
            && self.write_back == 0
            && self.thinking_until_ns.is_none()
            && (self.stopped || (!self.more_data(now_ns) && !self.verify_due(now_ns) && self.end_flush_done()))
    }

    /// Whether written blocks still wait to be read back after the writes.
    fn verify_due(&self, now_ns: u64) -> bool {
        let Some(log) = self.verify.as_ref().filter(|v| v.after_writes() && !v.is_empty()) else { return false };
        match self.verify_phase {
            VerifyPhase::Reading { until_ns: Some(until) } => now_ns < until && !log.is_empty(),
            _ => true,
        }
    }

    /// The writes of the current loop are all issued (their read-back is due before the next loop's).
    fn loop_done(&self) -> bool {
        let issued = if self.limit_bytes.is_some() { self.issued_bytes } else { self.issued_ios };
        self.loop_len.is_some_and(|len| len > 0 && issued >= self.next_loop_end + len)
    }

    /// Issue a read of a written block (verify's), or say why none is issued now.
    fn verify_step(&mut self, now_ns: u64, out: &mut Vec<Issue>) -> VerifyStep {
        let Some(mut log) = self.verify.take() else { return VerifyStep::None };
        let step = loop {
            match self.verify_phase {
                VerifyPhase::Off => {
                    if let Some(block) = log.next_of_backlog() {
                        break Some(block);
                    }
                    let writes_over = !self.more_data(now_ns) || self.loop_done();
                    if !(writes_over && log.after_writes() && !log.is_empty()) {
                        break None;
                    }
                    self.verify_phase = VerifyPhase::Quiescing;
                }
                VerifyPhase::Quiescing => {
                    if self.in_flight > 0 || self.write_back > 0 {
                        self.verify = Some(log);
                        return VerifyStep::Wait;
                    }
                    // fio's do_verify restarts the job's clock: the read-back has a runtime of its own.
                    self.verify_phase = VerifyPhase::Reading { until_ns: self.job.runtime_ns.map(|r| now_ns + r) };
                }
                VerifyPhase::Reading { until_ns } => {
                    let block = if until_ns.is_some_and(|u| now_ns >= u) { None } else { log.take_next() };
                    if block.is_none() {
                        log.drop_rest();
                        self.verify_phase = VerifyPhase::Off;
                        if let Some(len) = self.loop_len {
                            self.next_loop_end += len;
                        }
                    }
                    break block;
                }
            }
        };
        self.verify = Some(log);
        match step {
            Some((at, len)) => {
                let issue = Issue { verify: true, ..self.issue(Op::Read, at, len) };
                out.push(issue);
                VerifyStep::Issued
            }
            None => VerifyStep::None,
        }
    }

    fn end_flush_done(&self) -> bool {
        !self.job.flushes_at_end() || self.end_flush_issued
    }

    /// Whether the job may issue more data (its limit and runtime allow it) at `now_ns`.
    fn more_data(&self, now_ns: u64) -> bool {
        if self.stopped || self.generator.exhausted() {
            return false;
        }
        if let Some(runtime_ns) = self.job.runtime_ns {
            if now_ns >= self.start_ns + self.job.ramp_ns + runtime_ns {
                return false;
            }
        }
        if let Some(limit) = self.limit_bytes {
            if self.issued_bytes >= limit {
                return false;
            }
        }
        if let Some(limit) = self.limit_ios {
            if self.issued_ios >= limit {
                return false;
            }
        }
        true
    }

    fn issue(&mut self, op: Op, offset_bytes: u64, len_bytes: u64) -> Issue {
        let (class, level) = self.priority(op, len_bytes);
        // What reaches the device: sg's write modes change the command a write sends.
        let (op, fua) = match op {
            Op::Read => (Op::Read, self.job.fua[0]),
            Op::Write => match self.job.sg_write_mode {
                SgWriteMode::Write => (Op::Write, self.job.fua[1]),
                SgWriteMode::WriteAndVerify => (Op::Write, true),
                SgWriteMode::WriteSame => (Op::Write, false),
                SgWriteMode::Verify => (Op::Read, true),
            },
            other => (other, false),
        };
        let sync = self.job.is_sync(op);
        if op == Op::Write && !sync {
            self.write_back += 1;
        } else {
            self.in_flight += 1;
        }
        Issue {
            op,
            offset_bytes,
            len_bytes,
            flow: self.flow,
            class,
            level,
            sync,
            verify: false,
            fua,
            trim_ranges: false,
        }
    }

    /// The class and level of a request, as fio's cmdprio options pick them (engines/cmdprio.c): one draw of
    /// 0..99 per request against the direction's percentage (cmdprio_percentage), or against the summed shares of
    /// the entries for this block size (cmdprio_bssplit), the entry being the one whose running sum passes the
    /// draw. Otherwise the job's own.
    fn priority(&mut self, op: Op, len_bytes: u64) -> (IoClass, u8) {
        let own = (self.job.class, self.job.level);
        let dir = match op {
            Op::Read => 0,
            Op::Write => 1,
            Op::Trim | Op::Flush => return own,
        };
        let (default_class, default_level) = (self.job.cmdprio_class[dir], self.job.cmdprio_level[dir]);
        let share = self.job.cmdprio_percent[dir];
        if share > 0 {
            return if self.rng.below(100) < share as u64 { (default_class, default_level) } else { own };
        }
        let split = &self.job.cmdprio_bssplit[dir];
        let total: u32 = split.iter().filter(|e| e.block_bytes == len_bytes).map(|e| e.percent).sum();
        if total == 0 {
            return own;
        }
        let draw = self.rng.below(100) as u32;
        if draw >= total {
            return own;
        }
        let mut running = 0;
        for entry in split.iter().filter(|e| e.block_bytes == len_bytes) {
            running += entry.percent;
            if draw < running {
                return entry.class_level.unwrap_or((default_class, default_level));
            }
        }
        own
    }

    fn depth_now(&self) -> u32 {
        let depth = self.stepper.as_ref().map_or(self.depth, |s| s.depth().min(self.depth));
        self.search.as_ref().map_or(depth, |s| s.depth.min(depth))
    }

    /// Whether a completion now counts in the job's results: after ramp_time (or the latency target's search),
    /// and under iodepth_mode=stepped only in a step's run.
    pub fn counts_completion(&self, now_ns: u64) -> bool {
        match &self.stepper {
            Some(s) => s.counting(),
            None => now_ns >= self.account_from_ns,
        }
    }

    /// The ranges of the oldest trim of several ranges issued (an [`Issue`] with `trim_ranges`).
    pub fn take_trim_ranges(&mut self) -> Option<Box<[(u64, u64)]>> {
        self.trim_ranges.pop_front()
    }

    /// iodepth_mode=stepped: the steps so far.
    pub fn steps(&self) -> &[iosched_core::results::StepResult] {
        self.stepper.as_ref().map_or(&[], |s| s.steps())
    }

    /// The stepper's clock, before anything else a fill does: a phase that is over moves on.
    fn step_check(&mut self, now_ns: u64) {
        let Some(stepper) = self.stepper.as_mut() else { return };
        match stepper.check(now_ns) {
            StepAction::Quiesce => {
                self.quiescing = true;
                self.step_after_quiesce = true;
            }
            StepAction::StartCounting if self.steps().is_empty() => {
                // The first step's run: the job's results start here (later runs add to them).
                self.reset_stats = true;
                self.account_from_ns = now_ns;
            }
            StepAction::StartCounting | StepAction::None | StepAction::Done => {}
        }
    }

    /// A wake-up no later than the end of the stepper's current phase.
    fn with_step_deadline(&self, now_ns: u64, next: Option<u64>) -> Option<u64> {
        // Only a stepped job pays for the check below (this runs at every wake and completion of every job).
        let Some(stepper) = self.stepper.as_ref().filter(|_| !self.step_after_quiesce) else { return next };
        if !self.more_data(now_ns) {
            // A job that issues nothing more (its runtime is over, its data done, another's exitall stopped it)
            // has no steps left to time: waking it at their deadlines would run the simulation on, and a
            // stopped job, whose steps are no longer checked, would be woken at the same past time for ever.
            return next;
        }
        match (next, stepper.deadline_ns()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The gap before the next issue of direction `dir` under the rate limits, after one of `len_bytes`.
    fn rate_gap_ns(&mut self, dir: usize, len_bytes: u64) -> Option<u64> {
        let stepped_iops = self.stepper.as_ref().map_or(0, |s| s.rate_iops(dir));
        let iops = if stepped_iops > 0 { stepped_iops } else { self.job.rate_iops[dir] };
        let bps = self.job.rate_bytes_per_s[dir];
        let mean_ns = if iops > 0 {
            1e9 / iops as f64
        } else if bps > 0 {
            len_bytes as f64 * 1e9 / bps as f64
        } else {
            return None;
        };
        Some(match self.job.rate_process {
            RateProcess::Linear => mean_ns.round() as u64,
            RateProcess::Poisson => (-(1.0 - self.rng.unit_f64()).ln() * mean_ns).round() as u64,
        })
    }

    /// Issue what may be issued now; returns when to be woken if the job waits on time.
    fn fill(&mut self, now_ns: u64, out: &mut Vec<Issue>) -> Option<u64> {
        if self.stopped {
            return None;
        }
        if self.stepper.is_some() {
            self.step_check(now_ns);
        }
        if let Some(until) = self.thinking_until_ns {
            if now_ns < until {
                return Some(until);
            }
            self.thinking_until_ns = None;
        }
        if self.quiescing {
            if self.in_flight > 0 || self.write_back > 0 {
                return None;
            }
            self.quiescing = false;
            if std::mem::take(&mut self.step_after_quiesce) {
                let stepper = self.stepper.as_mut().expect("a stepped job");
                if stepper.drained(now_ns) == StepAction::Done {
                    self.stop(0, String::new());
                    return None;
                }
                // The step's rate starts afresh (fio's setup_rate).
                self.next_issue_ns = [now_ns; 3];
                self.held = None;
            }
            if std::mem::take(&mut self.reset_after_quiesce) {
                self.reset_stats = true;
                self.account_from_ns = now_ns;
            }
            if std::mem::take(&mut self.think_after_quiesce) {
                self.thinking_until_ns = Some(now_ns + self.job.thinktime_ns);
                return self.thinking_until_ns;
            }
        }
        if self.draining {
            if self.in_flight > self.refill_at {
                return None;
            }
            self.draining = false;
        }
        loop {
            if self.in_flight >= self.depth_now() {
                self.draining = self.in_flight >= self.depth && self.refill_at + 1 < self.depth;
                return None;
            }
            if self.write_back >= WRITE_BACK_REQUESTS {
                return None;
            }
            let fsync_due = self.job.fsync_every_writes > 0 && self.writes_since_flush >= self.job.fsync_every_writes;
            if fsync_due {
                self.writes_since_flush = 0;
                let issue = self.issue(Op::Flush, 0, 0);
                out.push(issue);
                continue;
            }
            // Only jobs that verify pay for it here (the job path is hot).
            if self.verify.is_some() {
                match self.verify_step(now_ns, out) {
                    VerifyStep::Issued => continue,
                    VerifyStep::Wait => return None,
                    VerifyStep::None if self.verify_phase != VerifyPhase::Off => return None,
                    VerifyStep::None if self.verify.as_ref().is_some_and(|v| v.after_writes()) && self.loop_done() => {
                        // A loop whose writes left nothing to read back yet (all in flight when it was checked).
                        if self.in_flight > 0 || self.write_back > 0 {
                            return None;
                        }
                        self.next_loop_end += self.loop_len.unwrap_or(0);
                    }
                    VerifyStep::None => {}
                }
            }
            if !self.more_data(now_ns) {
                self.held = None;
                if self.job.flushes_at_end() && !self.end_flush_issued && self.in_flight == 0 && self.write_back == 0 {
                    self.end_flush_issued = true;
                    let issue = self.issue(Op::Flush, 0, 0);
                    out.push(issue);
                }
                return None;
            }
            if let Some(flow) = &self.flow_group {
                if flow.ahead(self.flow_issued, self.job.flow_weight) {
                    let wait = if self.job.flow_sleep_ns > 0 { self.job.flow_sleep_ns } else { FLOW_RETRY_NS };
                    return Some(now_ns + wait);
                }
            }
            let io = match self.held.take() {
                Some(io) => io,
                None => self.generator.next(&mut self.rng),
            };
            let dir = io.op.index();
            if now_ns < self.next_issue_ns[dir] {
                self.held = Some(io);
                return Some(self.next_issue_ns[dir]);
            }
            if let Some(gap) = self.generator.mqsim_interval_ns() {
                // An MQSim flow's one stream of arrivals, whatever their direction, each due a drawn time after
                // the one before was due.
                self.next_issue_ns = [self.next_issue_ns[dir] + gap; 3];
            } else if let Some(gap) = self.rate_gap_ns(dir, io.len_bytes) {
                // Linear: on a fixed grid from the start, so that a late issue does not push later ones back.
                let base = self.next_issue_ns[dir].max(self.start_ns);
                self.next_issue_ns[dir] = base + gap;
            }
            let mut issue = self.issue(io.op, io.offset_bytes, io.len_bytes);
            if io.op == Op::Trim && self.job.num_range > 1 {
                issue.trim_ranges = true;
                self.trim_ranges.push_back(self.generator.take_trim_ranges().into());
            }
            out.push(issue);
            if let Some(flow) = &self.flow_group {
                flow.issued.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.flow_issued += 1;
            }
            self.issued_ios += 1;
            self.issued_bytes += io.len_bytes;
            self.issued_by_dir_ios[dir] += 1;
            if io.op == Op::Write {
                self.writes_since_flush += 1;
            }
            if self.job.thinktime_ns > 0 {
                self.since_think += 1;
                if self.since_think >= self.job.thinktime_blocks {
                    self.since_think = 0;
                    self.quiescing = true;
                    self.think_after_quiesce = true;
                    return None;
                }
            }
        }
    }

    /// Ask the engine for a wake-up at `at`, unless one at or before it is already asked.
    fn wake_request(&mut self, at: Option<u64>) -> Option<u64> {
        let at = at?;
        match self.wake_asked_ns {
            Some(asked) if asked <= at => None,
            _ => {
                self.wake_asked_ns = Some(at);
                Some(at)
            }
        }
    }

    /// A wake-up: the start, the end of a think time or of a rate gap. Returns the next wake-up to ask for.
    pub fn wake(&mut self, now_ns: u64, out: &mut Vec<Issue>) -> Option<u64> {
        if self.wake_asked_ns.is_some_and(|at| at <= now_ns) {
            self.wake_asked_ns = None;
        }
        if !self.started {
            self.started = true;
            self.cycle_start_ns = self.account_from_ns;
            self.steady = crate::steady_state::SteadyState::new(
                self.job.steadystate,
                self.job.steadystate_duration_ns,
                self.job.steadystate_interval_ns,
                self.start_ns + self.job.steadystate_ramp_ns,
            );
            if let Some(search) = &mut self.search {
                search.new_window(now_ns);
            }
            if let (Some(spec), None) = (self.job.iodepth_stepped, &self.search) {
                self.stepper = Some(crate::stepped_depth::Stepper::new(spec, self.depth, now_ns));
            }
            // An MQSim BANDWIDTH flow's first request comes a drawn time after its start.
            let first_ns = self.start_ns + self.generator.mqsim_interval_ns().unwrap_or(0);
            self.next_issue_ns = [first_ns; 3];
        }
        let next = self.fill(now_ns, out);
        let next = self.with_step_deadline(now_ns, next);
        self.wake_request(next)
    }

    /// Join a flow group (fio's flow_id / flow).
    pub fn join_flow(&mut self, group: std::sync::Arc<FlowGroup>) {
        self.flow_group = Some(group);
    }

    /// Another job's exitall: issue nothing more; what is in flight completes.
    pub fn end_now(&mut self) {
        self.stop(0, String::new());
    }

    /// Whether this job ends the others when it finishes (exitall), and which.
    pub fn exits_others(&self) -> Option<ExitWhat> {
        self.job.exitall.then_some(self.job.exit_what)
    }

    fn stop(&mut self, errno: i32, message: String) {
        self.stopped = true;
        self.held = None;
        self.thinking_until_ns = None;
        if self.failure.is_none() && errno != 0 {
            self.failure = Some(JobFailure { errno, message });
        }
    }

    /// rate_min / rate_iops_min: check the cycle that ended.
    fn check_min_rate(&mut self, now_ns: u64) {
        if now_ns < self.cycle_start_ns + self.job.ratecycle_ns {
            return;
        }
        let elapsed_s = (now_ns - self.cycle_start_ns) as f64 / 1e9;
        for dir in 0..3 {
            let (min_bps, min_iops) = (self.job.rate_min_bytes_per_s[dir], self.job.rate_iops_min[dir]);
            let name = ["read", "write", "trim"][dir];
            if self.issued_by_dir_ios[dir] == 0 {
                continue; // fio checks only the directions the job does
            }
            if min_bps > 0 && (self.cycle_bytes[dir] as f64 / elapsed_s) < min_bps as f64 {
                let got = self.cycle_bytes[dir] as f64 / elapsed_s;
                self.stop(5, format!("{name} rate {got:.0} B/s fell below rate_min {min_bps} B/s"));
            }
            if min_iops > 0 && (self.cycle_ios[dir] as f64 / elapsed_s) < min_iops as f64 {
                let got = self.cycle_ios[dir] as f64 / elapsed_s;
                self.stop(5, format!("{name} rate {got:.1} IOPS fell below rate_iops_min {min_iops}"));
            }
        }
        self.cycle_start_ns = now_ns;
        self.cycle_bytes = [0; 3];
        self.cycle_ios = [0; 3];
    }

    /// One of this process's requests completed. Returns the wake-up to ask for, if any.
    pub fn complete(&mut self, now_ns: u64, req: &Request, out: &mut Vec<Issue>) -> Option<u64> {
        if req.op == Op::Write && !req.sync {
            self.write_back -= 1;
        } else {
            self.in_flight -= 1;
        }
        if req.op == Op::Write {
            if let Some(log) = &mut self.verify {
                log.written(req.offset_bytes, req.len_bytes);
            }
        }
        if req.verify && req.error == EILSEQ {
            self.verify_failures += 1;
            let message = format!(
                "verify: {} block(s) read back did not hold what was written there (the first at offset {})",
                self.verify_failures,
                self.first_verify_failure_bytes.get_or_insert(req.offset_bytes)
            );
            if self.job.verify_fatal {
                self.stop(EILSEQ, message);
            } else {
                // fio goes on checking the rest and reports the job failed at the end.
                self.failure = Some(JobFailure { errno: EILSEQ, message });
            }
        }
        // As fio's account_io_completion: once the ramp is over.
        if req.op != Op::Flush && now_ns >= self.account_from_ns {
            let limit_ns = self.job.max_latency_ns[req.op.index()];
            if limit_ns > 0 && req.total_ns() > limit_ns {
                let message = format!(
                    "{} latency of {} ns exceeds max_latency ({limit_ns} ns)",
                    ["read", "write", "trim"][req.op.index()],
                    req.total_ns()
                );
                self.stop(ETIMEDOUT, message);
            }
        }
        if let Some(steady) = self.steady.as_mut().filter(|_| req.op != Op::Flush) {
            if steady.observe(now_ns, req.len_bytes) {
                self.stop(0, String::new()); // steady state reached: the job is done
            }
        }
        if let Some(stepper) = self.stepper.as_mut() {
            stepper.on_completion(req.op, req.total_ns());
        }
        if self.checks_min_rate && req.op != Op::Flush && now_ns >= self.account_from_ns {
            let dir = req.op.index();
            self.cycle_bytes[dir] += req.len_bytes;
            self.cycle_ios[dir] += 1;
            self.check_min_rate(now_ns);
        }
        // While quiescing after a depth change, completions belong to the old depth: the search ignores them.
        if req.op != Op::Flush && !self.quiescing {
            if let Some(search) = &mut self.search {
                match search.on_completion(now_ns, req.total_ns()) {
                    SearchStep::Continue => {}
                    SearchStep::Quiesce => self.quiescing = true,
                    SearchStep::FinalRun => {
                        self.quiescing = true;
                        self.reset_after_quiesce = true;
                    }
                    SearchStep::Done => self.stop(0, String::new()),
                    SearchStep::Failed => {
                        let target = search.target_ns;
                        self.stop(
                            ETIMEDOUT,
                            format!("latency of {} ns exceeds the target {target} ns at depth 1", req.total_ns()),
                        )
                    }
                }
            }
        }
        let next = self.fill(now_ns, out);
        let next = self.with_step_deadline(now_ns, next);
        self.wake_request(next)
    }
}
