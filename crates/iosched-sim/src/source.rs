//! The processes that issue a workload's requests.
//!
//! - [`JobProcess`]: a fio job clone in closed loop. It keeps up to its depth in flight (one for psync-style
//!   engines), waits `thinktime` after a completion before using the freed slot, issues a flush after every
//!   `fsync` writes and at the end with `end_fsync`, and stops issuing when its I/O limit or runtime is reached.
//! - [`TimedProcess`]: an open-loop list of requests issued at their times whatever the device does.
//!
//! Each step appends the requests to issue now to a buffer the engine owns and says when to be woken next.

use crate::workload::TimedIo;
use iosched_core::request::{FlowId, IoClass, Op};
use iosched_core::rng::SimRng;
use iosched_workload::generator::IoGenerator;
use iosched_workload::job::{IoLimit, JobSpec};

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
}

pub struct JobProcess {
    flow: FlowId,
    job: JobSpec,
    depth: u32,
    generator: IoGenerator,
    rng: SimRng,
    region_len_bytes: u64,
    start_ns: u64,
    started: bool,
    in_flight: u32,
    /// Slots freed by a completion, waiting out the think time.
    thinking: u32,
    issued_ios: u64,
    issued_bytes: u64,
    writes_since_flush: u32,
    end_flush_issued: bool,
}

impl JobProcess {
    pub fn new(flow: FlowId, job: &JobSpec, region: (u64, u64), rng: SimRng) -> JobProcess {
        JobProcess {
            flow,
            depth: job.effective_depth(),
            generator: IoGenerator::new(job, region.0, region.1),
            rng,
            region_len_bytes: region.1,
            start_ns: job.startdelay_ns,
            started: false,
            in_flight: 0,
            thinking: 0,
            issued_ios: 0,
            issued_bytes: 0,
            writes_since_flush: 0,
            end_flush_issued: false,
            job: job.clone(),
        }
    }

    /// When the job starts.
    pub fn start_ns(&self) -> u64 {
        self.start_ns
    }

    /// Whether the job may issue another data request at `now_ns`.
    fn may_issue_data(&self, now_ns: u64) -> bool {
        if let Some(runtime_ns) = self.job.runtime_ns {
            if now_ns >= self.start_ns + runtime_ns {
                return false;
            }
        }
        match self.job.io_limit {
            IoLimit::Region if self.job.time_based => true,
            IoLimit::Region => self.issued_bytes < self.region_len_bytes,
            IoLimit::Bytes(limit) => self.issued_bytes < limit,
            IoLimit::Ios(limit) => self.issued_ios < limit,
        }
    }

    fn issue(&self, op: Op, offset_bytes: u64, len_bytes: u64) -> Issue {
        Issue {
            op,
            offset_bytes,
            len_bytes,
            flow: self.flow,
            class: self.job.class,
            level: self.job.level,
            sync: self.job.is_sync(op),
        }
    }

    /// Use every free slot.
    fn fill(&mut self, now_ns: u64, out: &mut Vec<Issue>) {
        while self.in_flight + self.thinking < self.depth {
            let fsync_due = self.job.fsync_every_writes > 0 && self.writes_since_flush >= self.job.fsync_every_writes;
            if fsync_due {
                self.writes_since_flush = 0;
                out.push(self.issue(Op::Flush, 0, 0));
                self.in_flight += 1;
                continue;
            }
            if !self.may_issue_data(now_ns) {
                if self.job.end_fsync && !self.end_flush_issued && self.in_flight == 0 && self.thinking == 0 {
                    self.end_flush_issued = true;
                    out.push(self.issue(Op::Flush, 0, 0));
                    self.in_flight += 1;
                }
                break;
            }
            let io = self.generator.next(&mut self.rng);
            out.push(self.issue(io.op, io.offset_bytes, io.len_bytes));
            self.in_flight += 1;
            self.issued_ios += 1;
            self.issued_bytes += io.len_bytes;
            if io.op == Op::Write {
                self.writes_since_flush += 1;
            }
        }
    }

    /// A wake-up this process asked for: its start, or the end of a think time.
    pub fn wake(&mut self, now_ns: u64, out: &mut Vec<Issue>) {
        if !self.started {
            self.started = true;
        } else {
            self.thinking = self.thinking.saturating_sub(1);
        }
        self.fill(now_ns, out);
    }

    /// One of this process's requests completed. Returns when to wake it, if it thinks before the next issue.
    pub fn complete(&mut self, now_ns: u64, out: &mut Vec<Issue>) -> Option<u64> {
        self.in_flight -= 1;
        if self.job.thinktime_ns > 0 && self.may_issue_data(now_ns) {
            self.thinking += 1;
            return Some(now_ns + self.job.thinktime_ns);
        }
        self.fill(now_ns, out);
        None
    }
}

pub struct TimedProcess {
    requests: Vec<TimedIo>,
    /// Flow of each stream number.
    flows: Vec<(u32, FlowId)>,
    next: usize,
}

impl TimedProcess {
    /// `flows` maps each stream number of `requests` to its flow.
    pub fn new(requests: Vec<TimedIo>, mut flows: Vec<(u32, FlowId)>) -> TimedProcess {
        flows.sort_unstable();
        TimedProcess { requests, flows, next: 0 }
    }

    /// When the first request is due.
    pub fn first_ns(&self) -> Option<u64> {
        self.requests.first().map(|r| r.at_ns)
    }

    /// Issue everything due by `now_ns`; returns when the next request is due.
    pub fn wake(&mut self, now_ns: u64, out: &mut Vec<Issue>) -> Option<u64> {
        while let Some(r) = self.requests.get(self.next) {
            if r.at_ns > now_ns {
                return Some(r.at_ns);
            }
            let at = self.flows.binary_search_by_key(&r.stream, |(s, _)| *s);
            let flow = self.flows[at.expect("every stream was given a flow")].1;
            out.push(Issue {
                op: r.op,
                offset_bytes: r.offset_bytes,
                len_bytes: r.len_bytes,
                flow,
                class: r.class,
                level: r.level,
                sync: r.sync,
            });
            self.next += 1;
        }
        None
    }
}
