//! The discrete-event engine: virtual time in integer nanoseconds, a policy, a device, and the processes of a
//! workload. With a live device ([`Device::is_live`], `iosched run`) the same engine runs on the real clock:
//! instead of jumping to the next event it waits on the device until a completion or the next event's time.
//!
//! The loop takes the earliest of the device's next internal event and the earliest scheduled event (a
//! process wake-up, a policy timer, a policy switch), handles it, then fills the device: while the device has
//! room, it asks the policy for a request. Events at the same time are handled device first, then in the
//! order they were scheduled, so a run is a pure function of its inputs and seed.
//!
//! Flushes are barriers, kept by the engine and never shown to a policy: when a flush arrives, later arrivals
//! are held back; the policy is told a barrier is pending and drained; the flush goes to the device once
//! nothing else is in flight; when it completes, the held requests enter the policy in arrival order.
//!
//! A policy switch hands every request the old policy holds to the new one in their enqueue order; completions
//! of requests the old policy dispatched go to the new one.
//!
//! A live run also answers its [`Controls`]: stats and configure requests between waits, and the stop flag, after
//! which the jobs issue nothing more and the run ends once what was issued has completed.
//!
//! [`serve`] runs the live engine for an [`Inlet`] instead of a workload: requests from outside (a FUSE mount's
//! programs) enter as they arrive, each flow the inlet names is reported as a job, and the run lasts until the
//! inlet closes and everything it sent has completed.

use crate::control::{ControlMessage, ControlReply, ControlRequest, Controls, POLL_INTERVAL_NS};
use crate::inlet::{Arrival, Inlet};
use crate::source::{ClosedProcess, FlowGroup, Issue, JobFailure, JobProcess, TimedProcess};
use crate::workload::{job_region, SourceSpec, Workload, WorkloadError};
use iosched_core::policy::{Dispatch, DispatchContext, Policy};
use iosched_core::request::{FlowId, IoClass, Op, Request, RequestId, LEVEL_DEFAULT, NOT_YET_NS};
use iosched_core::results::{JobResult, RunResult, StepResult};
use iosched_core::rng::SimRng;
use iosched_core::snapshot::{FlowSnapshot, FlowsSnapshot};
use iosched_core::stats::FlowRecorder;
use iosched_device::{Completion, Device};
use iosched_workload::job::ExitWhat;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::atomic::Ordering;
use thiserror::Error;

mod live;
mod report;

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct SimConfig {
    pub seed: u64,
    /// Keep a [`LogEntry`] for every request (tests and trace writing; costs memory per request).
    pub record_log: bool,
}

/// Replace the policy at a time.
pub struct PolicySwitch {
    pub at_ns: u64,
    pub policy: Box<dyn Policy>,
}

/// What happened to one request, in the engine's sequence numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// Final state, with all timestamps. `req.id` is the arrival order.
    pub req: Request,
    /// Index of the workload source that issued it.
    pub source: u32,
    /// Order of entry into a policy (`NOT_YET_NS` for flushes, which never enter one).
    pub enqueue_seq: u64,
    /// Dispatch and completion share one counter, so "completed before dispatched" compares them directly.
    pub dispatch_seq: u64,
    pub complete_seq: u64,
    /// How many policy switches had happened when it was enqueued.
    pub policy_generation: u32,
}

#[derive(Debug, Error)]
pub enum SimError {
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    #[error("policy {policy} stalled: {queued} requests held, nothing in flight and no timer set (a policy bug)")]
    Stalled { policy: String, queued: usize },
    #[error("device {device} stalled: {in_flight} requests submitted to it never completed and it has no event left (a device model bug)")]
    DeviceStalled { device: String, in_flight: u32 },
    #[error("cannot give each member of the volume its own {0}")]
    PerMember(String),
}

/// fio's flow: the jobs that share a flow_id, each with a weight (flow > 0), issue in proportion to it.
fn join_flow_groups(workload: &Workload, sources: &mut [SourceState]) {
    let weighted = |spec: &SourceSpec| match spec {
        SourceSpec::Job { spec: job, .. } if job.flow_weight > 0 => Some((job.flow_id, job.flow_weight as u64)),
        _ => None,
    };
    let mut weights: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
    for (id, weight) in workload.sources.iter().filter_map(weighted) {
        *weights.entry(id).or_default() += weight;
    }
    let groups: std::collections::BTreeMap<u32, std::sync::Arc<FlowGroup>> = weights
        .into_iter()
        .map(|(id, total_weight)| (id, std::sync::Arc::new(FlowGroup { total_weight, issued: Default::default() })))
        .collect();
    for (source, spec) in sources.iter_mut().zip(&workload.sources) {
        if let (Some((id, _)), Process::Job(job)) = (weighted(spec), &mut source.process) {
            job.join_flow(groups[&id].clone());
        }
    }
}

/// On a volume of several disks, each member gets its own instance of the policy ([`crate::per_member`]).
fn per_member(policy: Box<dyn Policy>, device: &dyn Device) -> Result<Box<dyn Policy>, SimError> {
    match device.members() {
        Some(layout) if layout.count > 1 => crate::per_member::PerMember::new(policy, layout)
            .map(|p| Box::new(p) as Box<dyn Policy>)
            .map_err(SimError::PerMember),
        _ => Ok(policy),
    }
}

/// The result of a run.
pub struct SimOutput {
    pub result: RunResult,
    /// One entry per request, by arrival order, if [`SimConfig::record_log`].
    pub log: Vec<LogEntry>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EventKind {
    SourceWake(u32),
    PolicyTimer,
    Switch(u32),
}

enum Process {
    Job(Box<JobProcess>),
    Timed(TimedProcess),
    Closed(ClosedProcess),
    /// A flow of the inlet's: it issues nothing itself.
    Inlet,
}

struct SourceState {
    name: String,
    first_flow: u32,
    process: Process,
    recorder: FlowRecorder,
    /// Results count from here (the start, after ramp_time).
    start_ns: u64,
    last_completion_ns: u64,
    /// fio's group id, the stonewall wave, and whether the group is reported as one job.
    group: u32,
    wave: u32,
    group_reporting: bool,
    /// A job that has finished (timed sources never count).
    done: bool,
    /// The job's own options as written.
    options: Vec<(String, String)>,
    /// Where its requests are now, for live views.
    queues: SourceQueues,
}

/// A source's requests in the engine now, and the class and level of its latest. (How many of them are at the
/// device is counted from the device's slots when a live view asks, not kept on every dispatch.)
struct SourceQueues {
    /// Arrived and not completed (in the policy, behind a barrier or at the device).
    outstanding: u32,
    class: IoClass,
    level: u8,
    /// When its first request arrived (live views give rates only for flows present most of an interval).
    first_arrival_ns: Option<u64>,
}

impl Default for SourceQueues {
    fn default() -> Self {
        SourceQueues { outstanding: 0, class: IoClass::Be, level: LEVEL_DEFAULT, first_arrival_ns: None }
    }
}

/// Flush barrier state.
#[derive(Default)]
struct Barrier {
    /// The flush being waited for, if any.
    flush: Option<Request>,
    /// It is at the device.
    dispatched: bool,
    /// Arrivals after it, in order (may contain further flushes).
    held: VecDeque<Request>,
}

struct Engine {
    now_ns: u64,
    policy: Box<dyn Policy>,
    device: Box<dyn Device>,
    device_depth: u32,
    device_rotational: bool,
    in_flight: u32,
    /// In-flight requests by tag.
    slots: Vec<Option<Request>>,
    free_tags: Vec<u32>,
    events: BinaryHeap<Reverse<(u64, u64, EventKind)>>,
    event_seq: u64,
    timer_armed_ns: Option<u64>,
    barrier: Barrier,
    sources: Vec<SourceState>,
    /// Source index of each flow.
    flow_source: Vec<u32>,
    switches: Vec<Option<Box<dyn Policy>>>,
    policy_generation: u32,
    next_request_id: u64,
    completed: u64,
    issue_buf: Vec<Issue>,
    /// The ranges of trims of several ranges (fio's num_range) by request, until they reach the device.
    trim_ranges: std::collections::HashMap<RequestId, Box<[(u64, u64)]>>,
    completion_buf: Vec<Completion>,
    log: Option<Vec<LogEntry>>,
    enqueue_seq: u64,
    /// Counts dispatches and completions together.
    device_seq: u64,
    /// Jobs not yet finished in each stonewall wave, and the wave running.
    wave_left: Vec<u32>,
    wave: u32,
    global_options: Vec<(String, String)>,
    seed: u64,
    controls: Controls,
    /// The stop flag was seen: sources issue nothing more (arrive drops it) and are not woken again.
    stopping: bool,
    /// When it was seen: a job's reported runtime ends there (or at its last completion, if later), not at the
    /// runtime it planned.
    stopped_at_ns: Option<u64>,
    inlet: Option<Box<dyn Inlet>>,
    /// More may arrive through the inlet.
    inlet_open: bool,
    arrival_buf: Vec<Arrival>,
    /// Live only: since when the policy has held requests with nothing in flight and no timer set.
    stalled_since_ns: Option<u64>,
    /// Jobs with a wait_for that were started (their waitee done).
    waiter_started: Vec<u32>,
}

/// On a live engine, how long a policy may hold requests with nothing in flight and no timer set (which no later
/// event can change but an arrival) before they are failed with EIO, so that the programs waiting on them get an
/// error instead of hanging. Every policy here either dispatches or arms a timer when the device is idle; one that
/// does neither has a bug, which a simulated run reports as [`SimError::Stalled`] at its end.
pub const LIVE_STALL_NS: u64 = 1_000_000_000;

/// What a request failed by the engine itself completes with (Linux's EIO).
const EIO: i32 = 5;

/// Run `workload` through `policy` to `device`.
pub fn simulate(
    workload: &Workload,
    policy: Box<dyn Policy>,
    device: Box<dyn Device>,
    switches: Vec<PolicySwitch>,
    config: &SimConfig,
) -> Result<SimOutput, SimError> {
    simulate_controlled(workload, policy, device, switches, config, Controls::default())
}

/// [`simulate`] with controls: a live run answers them (a simulated one ignores them).
pub fn simulate_controlled(
    workload: &Workload,
    policy: Box<dyn Policy>,
    device: Box<dyn Device>,
    switches: Vec<PolicySwitch>,
    config: &SimConfig,
    controls: Controls,
) -> Result<SimOutput, SimError> {
    workload.check(device.capacity_bytes())?;
    let mut engine = Engine::new(workload, policy, device, config)?;
    engine.controls = controls;
    for (i, switch) in switches.into_iter().enumerate() {
        engine.schedule(switch.at_ns, EventKind::Switch(i as u32));
        engine.switches.push(Some(switch.policy));
    }
    engine.run()?;
    Ok(engine.finish())
}

/// Run the live engine for `inlet`'s requests through `policy` to `device` (which must be live and wake its wait
/// when the inlet has something new), answering `controls`, until the inlet closes and all it sent has completed.
pub fn serve(
    inlet: Box<dyn Inlet>,
    policy: Box<dyn Policy>,
    device: Box<dyn Device>,
    config: &SimConfig,
    controls: Controls,
) -> Result<SimOutput, SimError> {
    assert!(device.is_live(), "serve() needs a live device: arrivals come on the real clock");
    let mut engine = Engine::new(&Workload { sources: Vec::new() }, policy, device, config)?;
    engine.controls = controls;
    engine.inlet = Some(inlet);
    engine.inlet_open = true;
    engine.run()?;
    Ok(engine.finish())
}

impl Engine {
    fn new(
        workload: &Workload,
        policy: Box<dyn Policy>,
        device: Box<dyn Device>,
        config: &SimConfig,
    ) -> Result<Engine, SimError> {
        let capacity = device.capacity_bytes();
        let mut sources = Vec::with_capacity(workload.sources.len());
        let mut flow_source = Vec::new();
        let mut wakes = Vec::new();
        let mut wave_left: Vec<u32> = Vec::new();
        let mut global_options = Vec::new();
        for (index, spec) in workload.sources.iter().enumerate() {
            let first_flow = flow_source.len() as u32;
            let (mut group, mut wave, mut group_reporting) = (0, 0, false);
            let mut options = Vec::new();
            let (process, start_ns) = match spec {
                SourceSpec::Job { spec: job, clone, group: g, wave: w } => {
                    (group, wave, group_reporting) = (*g, *w, job.group_reporting);
                    options = job.options_written(false);
                    if global_options.is_empty() {
                        global_options = job.options_written(true);
                    }
                    let region = job_region(job, *clone, capacity)?;
                    let rng = match job.randseed {
                        Some(seed) => SimRng::new(seed, *clone as u64),
                        None => SimRng::new(config.seed, index as u64),
                    };
                    let mut process = JobProcess::new(FlowId(first_flow), job, region, rng);
                    flow_source.push(index as u32);
                    if wave_left.len() <= *w as usize {
                        wave_left.resize(*w as usize + 1, 0);
                    }
                    wave_left[*w as usize] += 1;
                    if *w == 0 && job.wait_for.is_none() {
                        wakes.push((process.start_at(0), index as u32));
                    }
                    let start = process.account_from_ns();
                    (Process::Job(Box::new(process)), start)
                }
                SourceSpec::Timed { requests, .. } | SourceSpec::Closed { requests, .. } => {
                    let flows = crate::workload::streams_of(requests)
                        .iter()
                        .map(|s| {
                            flow_source.push(index as u32);
                            (*s, FlowId(flow_source.len() as u32 - 1))
                        })
                        .collect();
                    if let SourceSpec::Closed { depth, .. } = spec {
                        if !requests.is_empty() {
                            wakes.push((0, index as u32));
                        }
                        (Process::Closed(ClosedProcess::new(requests.clone(), flows, *depth)), 0)
                    } else {
                        let process = TimedProcess::new(requests.clone(), flows);
                        let start = process.first_ns().unwrap_or(0);
                        if process.first_ns().is_some() {
                            wakes.push((start, index as u32));
                        }
                        (Process::Timed(process), start)
                    }
                }
            };
            sources.push(SourceState {
                name: spec.name().to_string(),
                first_flow,
                process,
                recorder: FlowRecorder::default(),
                start_ns,
                last_completion_ns: start_ns,
                group,
                wave,
                group_reporting,
                done: false,
                options,
                queues: SourceQueues::default(),
            });
        }
        join_flow_groups(workload, &mut sources);
        let depth = device.queue_depth().max(1);
        let rotational = device.rotational();
        let policy = per_member(policy, device.as_ref())?;
        let mut engine = Engine {
            now_ns: 0,
            policy,
            device,
            device_depth: depth,
            device_rotational: rotational,
            in_flight: 0,
            slots: vec![None; depth as usize],
            free_tags: (0..depth).rev().collect(),
            events: BinaryHeap::new(),
            event_seq: 0,
            timer_armed_ns: None,
            barrier: Barrier::default(),
            sources,
            flow_source,
            switches: Vec::new(),
            policy_generation: 0,
            next_request_id: 0,
            completed: 0,
            issue_buf: Vec::new(),
            trim_ranges: std::collections::HashMap::new(),
            completion_buf: Vec::new(),
            log: config.record_log.then(Vec::new),
            enqueue_seq: 0,
            device_seq: 0,
            wave_left,
            wave: 0,
            global_options,
            seed: config.seed,
            controls: Controls::default(),
            stopping: false,
            stopped_at_ns: None,
            inlet: None,
            inlet_open: false,
            arrival_buf: Vec::new(),
            stalled_since_ns: None,
            waiter_started: Vec::new(),
        };
        for (at, index) in wakes {
            engine.schedule(at, EventKind::SourceWake(index));
        }
        Ok(engine)
    }

    fn schedule(&mut self, at_ns: u64, kind: EventKind) {
        self.events.push(Reverse((at_ns, self.event_seq, kind)));
        self.event_seq += 1;
    }

    fn run(&mut self) -> Result<(), SimError> {
        if self.device.is_live() {
            return self.run_live();
        }
        loop {
            let device_next = self.device.next_event_ns();
            let event_next = self.events.peek().map(|Reverse((t, _, _))| *t);
            let device_first = match (device_next, event_next) {
                (None, None) => break,
                (Some(d), Some(e)) => d <= e,
                (Some(_), None) => true,
                (None, Some(_)) => false,
            };
            if device_first {
                let at = device_next.expect("checked above");
                debug_assert!(at >= self.now_ns, "device event in the past");
                self.now_ns = self.now_ns.max(at);
                let mut done = std::mem::take(&mut self.completion_buf);
                self.device.advance(self.now_ns, &mut done);
                for c in done.drain(..) {
                    self.on_completion(c);
                }
                self.completion_buf = done;
            } else {
                let Reverse((at, _, kind)) = self.events.pop().expect("checked above");
                if kind == EventKind::PolicyTimer {
                    if self.timer_armed_ns != Some(at) {
                        continue; // superseded by an earlier timer
                    }
                    self.timer_armed_ns = None;
                    if self.policy.queued() == 0
                        && self.in_flight == 0
                        && self.events.is_empty()
                        && device_next.is_none()
                    {
                        break; // the run is over: a policy's tick or idle wait does not lengthen it
                    }
                }
                self.now_ns = self.now_ns.max(at);
                self.handle(kind);
            }
            self.fill_device();
        }
        self.check_drained()
    }

    /// Handle a due event (a policy timer only if it is the one armed).
    fn handle(&mut self, kind: EventKind) {
        match kind {
            EventKind::SourceWake(index) => self.wake_source(index),
            EventKind::PolicyTimer => self.policy.timer(self.now_ns),
            EventKind::Switch(index) => self.switch_policy(index),
        }
    }

    /// At the end of a run nothing may be left held: a policy that keeps requests with nothing in flight and no
    /// timer set has stalled, and so has a simulated device that holds requests with no event left.
    fn check_drained(&self) -> Result<(), SimError> {
        let held = self.policy.queued() + self.barrier.held.len() + self.barrier.flush.is_some() as usize;
        if held > 0 {
            return Err(SimError::Stalled { policy: self.policy.name().to_string(), queued: held });
        }
        // The run ends when neither the engine nor the device has an event left: a request still at the device
        // then can never complete.
        if self.in_flight > 0 && !self.device.is_live() {
            return Err(SimError::DeviceStalled { device: self.device.describe(), in_flight: self.in_flight });
        }
        Ok(())
    }

    fn wake_source(&mut self, index: u32) {
        let mut out = std::mem::take(&mut self.issue_buf);
        let source = &mut self.sources[index as usize];
        let next = match &mut source.process {
            Process::Job(job) => job.wake(self.now_ns, &mut out),
            Process::Timed(timed) => timed.wake(self.now_ns, &mut out),
            Process::Closed(closed) => {
                closed.fill(&mut out);
                None
            }
            Process::Inlet => None, // never scheduled: an inlet's flows issue from outside
        };
        if let Some(at) = next {
            self.schedule(at, EventKind::SourceWake(index));
        }
        for issue in out.drain(..) {
            self.arrive(issue);
        }
        self.issue_buf = out;
        self.after_job_step(index);
    }

    /// After a job acted: forget its results if it asked, and note when it has finished; the last job of a
    /// stonewall wave to finish starts the next wave.
    fn after_job_step(&mut self, index: u32) {
        let source = &mut self.sources[index as usize];
        let Process::Job(job) = &mut source.process else {
            return;
        };
        if job.take_stats_reset() {
            source.recorder = FlowRecorder::default();
            source.start_ns = job.account_from_ns();
            source.last_completion_ns = source.start_ns;
        }
        if source.done || !job.finished(self.now_ns) {
            return;
        }
        source.done = true;
        let exits = job.exits_others();
        let wave = source.wave as usize;
        self.wave_left[wave] -= 1;
        if let Some(what) = exits {
            self.exit_others(index, what);
        }
        self.start_waiters();
        if self.wave_left[wave] > 0 || wave as u32 != self.wave {
            return;
        }
        // Start the next wave that has jobs.
        while (self.wave as usize) + 1 < self.wave_left.len() {
            self.wave += 1;
            if self.wave_left[self.wave as usize] == 0 {
                continue;
            }
            let now = self.now_ns;
            let mut wakes = Vec::new();
            for (i, s) in self.sources.iter_mut().enumerate() {
                if let (Process::Job(job), true) = (&mut s.process, s.wave == self.wave) {
                    if job.waits_for().is_some() {
                        continue; // started by start_waiters once its waitee is done
                    }
                    let start = job.start_at(now);
                    s.start_ns = job.account_from_ns();
                    s.last_completion_ns = s.start_ns;
                    wakes.push((start, i as u32));
                }
            }
            for (at, i) in wakes {
                self.schedule(at, EventKind::SourceWake(i));
            }
            break;
        }
        self.start_waiters();
    }

    /// fio's wait_for: start the jobs of the running wave whose waitee's clones have all finished.
    fn start_waiters(&mut self) {
        if self.stopping {
            return;
        }
        let now = self.now_ns;
        let mut ready = Vec::new();
        for (i, s) in self.sources.iter().enumerate() {
            let Process::Job(job) = &s.process else { continue };
            let Some(waitee) = job.waits_for() else { continue };
            if s.done || s.wave != self.wave || self.waiter_started.contains(&(i as u32)) {
                continue;
            }
            let waitee_done = self.sources.iter().all(|o| match &o.process {
                Process::Job(j) if j.job_name() == waitee => o.done,
                _ => true,
            });
            if waitee_done {
                ready.push(i as u32);
            }
        }
        for i in ready {
            self.waiter_started.push(i);
            let s = &mut self.sources[i as usize];
            let Process::Job(job) = &mut s.process else { continue };
            let start = job.start_at(now);
            s.start_ns = job.account_from_ns();
            s.last_completion_ns = s.start_ns;
            self.schedule(start, EventKind::SourceWake(i));
        }
    }

    /// fio's exitall: job `index` finished, so the jobs running beside it in its stonewall group (exit_what
    /// group or stonewall) or every job (all) issue nothing more; what they have in flight completes.
    fn exit_others(&mut self, index: u32, what: ExitWhat) {
        if what == ExitWhat::All && !self.stopping {
            self.stopping = true;
            self.stopped_at_ns = Some(self.now_ns);
        }
        let wave = self.sources[index as usize].wave;
        let others: Vec<u32> = (0..self.sources.len() as u32)
            .filter(|&i| i != index && !self.sources[i as usize].done && self.sources[i as usize].wave == wave)
            .collect();
        for i in others {
            if let Process::Job(job) = &mut self.sources[i as usize].process {
                job.end_now();
                self.after_job_step(i);
            }
        }
    }

    /// A request enters the engine, with the id it gets (None: refused, the engine is stopping).
    fn arrive(&mut self, issue: Issue) -> Option<RequestId> {
        if self.stopping {
            return None; // stopped: what a source issues now is not sent (it never counts as submitted)
        }
        let req = Request {
            id: RequestId(self.next_request_id),
            op: issue.op,
            offset_bytes: issue.offset_bytes,
            len_bytes: issue.len_bytes,
            flow: issue.flow,
            class: issue.class,
            level: issue.level,
            sync: issue.sync,
            queued_ns: self.now_ns,
            dispatched_ns: NOT_YET_NS,
            completed_ns: NOT_YET_NS,
            error: 0,
            verify: issue.verify,
            fua: issue.fua,
        };
        self.next_request_id += 1;
        if issue.trim_ranges {
            let source = &mut self.sources[self.flow_source[req.flow.0 as usize] as usize];
            if let Process::Job(job) = &mut source.process {
                if let Some(ranges) = job.take_trim_ranges() {
                    self.trim_ranges.insert(req.id, ranges);
                }
            }
        }
        let queues = &mut self.sources[self.flow_source[req.flow.0 as usize] as usize].queues;
        queues.outstanding += 1;
        (queues.class, queues.level) = (req.class, req.level);
        queues.first_arrival_ns.get_or_insert(req.queued_ns);
        if let Some(log) = &mut self.log {
            log.push(LogEntry {
                req,
                source: self.flow_source[req.flow.0 as usize],
                enqueue_seq: NOT_YET_NS,
                dispatch_seq: NOT_YET_NS,
                complete_seq: NOT_YET_NS,
                policy_generation: 0,
            });
        }
        if self.barrier.flush.is_some() {
            self.barrier.held.push_back(req);
        } else if req.op == Op::Flush {
            self.barrier.flush = Some(req);
        } else {
            self.enqueue(req);
        }
        Some(req.id)
    }

    fn enqueue(&mut self, req: Request) {
        if let Some(log) = &mut self.log {
            let entry = &mut log[req.id.0 as usize];
            entry.enqueue_seq = self.enqueue_seq;
            entry.policy_generation = self.policy_generation;
        }
        self.enqueue_seq += 1;
        self.policy.enqueue(self.now_ns, req);
    }

    /// Ask the policy for requests while the device has room, keeping flush barriers.
    fn fill_device(&mut self) {
        while self.in_flight < self.device_depth && self.device.can_accept(self.now_ns) {
            if let Some(flush) = self.barrier.flush {
                if self.barrier.dispatched {
                    return; // nothing passes a flush at the device
                }
                if self.policy.queued() == 0 {
                    if self.in_flight == 0 {
                        self.barrier.dispatched = true;
                        self.submit(flush);
                    }
                    return;
                }
            }
            let ctx = DispatchContext {
                in_flight: self.in_flight,
                device_depth: self.device_depth,
                rotational: self.device_rotational,
                barrier_pending: self.barrier.flush.is_some(),
            };
            match self.policy.dispatch(self.now_ns, &ctx) {
                Dispatch::Request(req) => self.submit(req),
                Dispatch::WaitUntil(at_ns) => {
                    let at_ns = at_ns.max(self.now_ns + 1);
                    if self.timer_armed_ns.is_none_or(|armed| at_ns < armed) {
                        self.timer_armed_ns = Some(at_ns);
                        self.schedule(at_ns, EventKind::PolicyTimer);
                    }
                    return;
                }
                Dispatch::Nothing => return,
            }
        }
    }

    fn submit(&mut self, mut req: Request) {
        req.dispatched_ns = self.now_ns;
        let tag = self.free_tags.pop().expect("in_flight < depth leaves a free tag");
        match self.trim_ranges.is_empty() || req.op != Op::Trim {
            true => self.device.submit(self.now_ns, tag, &req),
            false => match self.trim_ranges.remove(&req.id) {
                Some(ranges) => self.device.submit_trim_ranges(self.now_ns, tag, &req, &ranges),
                None => self.device.submit(self.now_ns, tag, &req),
            },
        }
        self.slots[tag as usize] = Some(req);
        self.in_flight += 1;
        if let Some(log) = &mut self.log {
            log[req.id.0 as usize].dispatch_seq = self.device_seq;
        }
        self.device_seq += 1;
    }

    fn on_completion(&mut self, completion: Completion) {
        let mut req = self.slots[completion.tag as usize].take().expect("completion of a tag in flight");
        self.free_tags.push(completion.tag);
        self.in_flight -= 1;
        req.error = completion.error;
        self.finish_request(req, true);
    }

    /// A request is over: at the device (`from_device`), or failed by the engine while a policy held it.
    fn finish_request(&mut self, mut req: Request, from_device: bool) {
        self.completed += 1;
        req.completed_ns = self.now_ns;
        if let Some(log) = &mut self.log {
            let entry = &mut log[req.id.0 as usize];
            entry.req = req;
            entry.complete_seq = self.device_seq;
        }
        self.device_seq += 1;
        if req.op == Op::Flush {
            debug_assert_eq!(self.barrier.flush.map(|f| f.id), Some(req.id));
            self.barrier.flush = None;
            self.barrier.dispatched = false;
            while let Some(next) = self.barrier.held.pop_front() {
                if next.op == Op::Flush {
                    self.barrier.flush = Some(next);
                    break;
                }
                self.enqueue(next);
            }
        } else if from_device {
            self.policy.complete(self.now_ns, &req);
        }
        let index = self.flow_source[req.flow.0 as usize];
        let source = &mut self.sources[index as usize];
        source.queues.outstanding -= 1;
        let counted = match &source.process {
            Process::Job(job) => job.counts_completion(self.now_ns),
            Process::Timed(_) | Process::Closed(_) | Process::Inlet => true,
        };
        if counted {
            source.recorder.record(&req, req.error == 0);
            source.last_completion_ns = self.now_ns;
        }
        if let Process::Job(job) = &mut source.process {
            let mut out = std::mem::take(&mut self.issue_buf);
            let wake = job.complete(self.now_ns, &req, &mut out);
            if let Some(at) = wake.filter(|_| !self.stopping) {
                self.schedule(at, EventKind::SourceWake(index));
            }
            for issue in out.drain(..) {
                self.arrive(issue);
            }
            self.issue_buf = out;
            self.after_job_step(index);
        } else if let Process::Closed(closed) = &mut source.process {
            let mut out = std::mem::take(&mut self.issue_buf);
            closed.complete(&mut out);
            for issue in out.drain(..) {
                self.arrive(issue);
            }
            self.issue_buf = out;
        } else if let (Process::Inlet, Some(inlet)) = (&source.process, &mut self.inlet) {
            inlet.completed(&req);
        }
    }

    fn switch_policy(&mut self, index: u32) {
        if let Some(next) = self.switches[index as usize].take() {
            // A switch's policy was built and checked before the run; its per-disk copies are made the same way
            // as the running ones, so this does not fail, and if it did the running policy would simply stay.
            let _ = self.install_policy(next);
        }
    }

    /// The hand-over: every request the old policy holds enters the new one in its enqueue order.
    /// On a volume, `next` is copied per disk first; if that fails the running policy stays.
    fn install_policy(&mut self, next: Box<dyn Policy>) -> Result<(), SimError> {
        let mut next = per_member(next, self.device.as_ref())?;
        let held = self.policy.drain();
        std::mem::swap(&mut self.policy, &mut next);
        self.policy_generation += 1;
        self.timer_armed_ns = None;
        for req in held {
            self.enqueue(req);
        }
        Ok(())
    }

    fn finish(mut self) -> SimOutput {
        let result = self.result(false);
        SimOutput { result, log: self.log.take().unwrap_or_default() }
    }
}
