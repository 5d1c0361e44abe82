//! What a run reports: per flow and direction, the policy's and the device's statistics. Both engines produce
//! this; the report crate renders it as a table or as fio's JSON.

use crate::policy::StatValue;
use crate::stats::{FlowRecorder, LatencySummary};
use crate::units;
use serde::Serialize;

/// One direction of one job.
#[derive(Clone, Debug, Serialize)]
pub struct DirectionResult {
    pub ios: u64,
    pub bytes: u64,
    pub errors: u64,
    /// The errno of the first failed request (0 if none failed).
    pub first_errno: i32,
    pub total: LatencySummary,
    pub queue_wait: LatencySummary,
    pub service: LatencySummary,
}

/// One job (a flow: a fio job clone or a trace stream).
#[derive(Clone, Debug, Serialize)]
pub struct JobResult {
    pub name: String,
    pub flow: u32,
    pub group: u32,
    /// From the job's start to its last completion.
    pub runtime_ns: u64,
    /// read, write, trim.
    pub directions: [DirectionResult; 3],
    pub flushes: DirectionResult,
    /// Why the job stopped early, as fio reports it: an errno (0: it did not) and a message.
    pub error_code: i32,
    pub error_message: String,
    /// The job's own options as written (fio's "job options").
    pub options: Vec<(String, String)>,
    /// iodepth_mode=stepped: each step's result, in order (empty otherwise).
    pub steps: Vec<StepResult>,
}

/// One step of fio's iodepth_mode=stepped: the share of the probed IOPS it was limited to, the depth it ran at,
/// and what it achieved in its run, per direction (read, write, trim).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepResult {
    pub percent: u32,
    pub depth: u32,
    /// The rate limit (0: none, at 100 % and above).
    pub rate_iops: [u64; 3],
    pub iops: [u64; 3],
    pub mean_latency_ns: [f64; 3],
}

impl JobResult {
    /// fio's "error": the errno the job stopped with, else that of a failed I/O (the first failed read's, else the
    /// first failed write's, trim's, flush's); 0 for a job that did not fail.
    pub fn fio_error(&self) -> i32 {
        if self.error_code != 0 {
            return self.error_code;
        }
        self.directions.iter().chain([&self.flushes]).map(|d| d.first_errno).find(|e| *e != 0).unwrap_or(0)
    }

    pub fn from_recorder(name: String, flow: u32, group: u32, runtime_ns: u64, rec: &FlowRecorder) -> JobResult {
        let dir = |d: &crate::stats::DirectionRecorder| DirectionResult {
            ios: d.ios,
            bytes: d.bytes,
            errors: d.errors,
            first_errno: d.first_errno,
            total: d.total.summary(),
            queue_wait: d.queue_wait.summary(),
            service: d.service.summary(),
        };
        JobResult {
            name,
            flow,
            group,
            runtime_ns,
            directions: [dir(&rec.directions[0]), dir(&rec.directions[1]), dir(&rec.directions[2])],
            flushes: dir(&rec.flushes),
            error_code: 0,
            error_message: String::new(),
            options: Vec::new(),
            steps: Vec::new(),
        }
    }

    /// Bytes per second of one direction over the job's runtime.
    pub fn bw_bytes_per_s(&self, dir: usize) -> f64 {
        units::bytes_per_s(self.directions[dir].bytes, self.runtime_ns)
    }

    /// I/Os per second of one direction over the job's runtime.
    pub fn iops(&self, dir: usize) -> f64 {
        if self.runtime_ns == 0 {
            0.0
        } else {
            self.directions[dir].ios as f64 * units::NS_PER_S as f64 / self.runtime_ns as f64
        }
    }
}

/// A whole run.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub policy: String,
    /// Every tunable of the policy as it was at the end of the run.
    pub policy_tunables: Vec<(String, String)>,
    pub policy_stats: Vec<(String, StatValue)>,
    /// The device spec, canonical.
    pub device: String,
    pub device_stats: Vec<(String, StatValue)>,
    pub seed: u64,
    pub requests_submitted: u64,
    pub requests_completed: u64,
    /// Virtual (or real) time from start to the last completion.
    pub elapsed_ns: u64,
    /// The run was live (real I/O on the real clock, `iosched run`), not simulated.
    pub real_time: bool,
    pub jobs: Vec<JobResult>,
    /// The [global] options as written (fio's "global options").
    pub global_options: Vec<(String, String)>,
    /// Policy switches during the run; `policy` is the one in place at the end.
    pub policy_switches: u32,
}
