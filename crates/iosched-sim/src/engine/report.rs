//! What the engine reports: the run's result per job (fio's groups merged as group_reporting asks) at the end or
//! of a run still going, and the live view of every flow.

use super::*;

impl Engine {
    /// Every source as a flow of the live view (sources that are a group of clones count as one).
    pub(super) fn snapshot(&self) -> FlowsSnapshot {
        let mut in_flight = vec![0u32; self.sources.len()];
        for req in self.slots.iter().flatten() {
            in_flight[self.flow_source[req.flow.0 as usize] as usize] += 1;
        }
        let flows = self
            .sources
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let d = &s.recorder.directions;
                FlowSnapshot {
                    flow: i as u32,
                    name: s.name.clone(),
                    class: s.queues.class,
                    level: s.queues.level,
                    reads: d[Op::Read.index()].counts(),
                    writes: d[Op::Write.index()].counts(),
                    trims: d[Op::Trim.index()].counts(),
                    flushes: s.recorder.flushes.counts(),
                    queued: s.queues.outstanding - in_flight[i],
                    in_flight: in_flight[i],
                    first_ns: s.queues.first_arrival_ns,
                }
            })
            .collect();
        FlowsSnapshot {
            policy: self.policy.name().to_string(),
            device: self.device.describe(),
            elapsed_ns: self.now_ns,
            policy_switches: self.policy_generation,
            flows,
        }
    }

    /// The report: at the end of the run, or (`so_far`) of a run still going, with every job's time up to now.
    pub(super) fn result(&self, so_far: bool) -> RunResult {
        // One report per source, except that a group_reporting group's jobs become one, named after its first,
        // over the union of their times, with the first failure among them.
        struct Report<'a> {
            source: &'a SourceState,
            start_ns: u64,
            end_ns: u64,
            recorder: FlowRecorder,
            failure: Option<JobFailure>,
            steps: Vec<StepResult>,
        }
        let mut reports: Vec<Report> = Vec::with_capacity(self.sources.len());
        for s in &self.sources {
            let steps = match &s.process {
                Process::Job(job) => job.steps().to_vec(),
                _ => Vec::new(),
            };
            let (failure, end_ns) = match &s.process {
                Process::Job(job) if so_far => (job.failure().cloned(), self.now_ns),
                Process::Job(job) => {
                    let planned = job.end_ns(s.last_completion_ns);
                    let stopped = self.stopped_at_ns.map_or(planned, |at| planned.min(at.max(s.last_completion_ns)));
                    (job.failure().cloned(), stopped)
                }
                Process::Inlet if so_far => (None, self.now_ns),
                Process::Timed(_) | Process::Closed(_) | Process::Inlet => (None, s.last_completion_ns),
            };
            let merged_into =
                reports.iter_mut().find(|r| s.group_reporting && r.source.group_reporting && r.source.group == s.group);
            match merged_into {
                Some(r) => {
                    r.start_ns = r.start_ns.min(s.start_ns);
                    r.end_ns = r.end_ns.max(end_ns);
                    r.recorder.merge(&s.recorder);
                    r.failure = r.failure.take().or(failure);
                    merge_steps(&mut r.steps, &steps);
                }
                None => reports.push(Report {
                    source: s,
                    start_ns: s.start_ns,
                    end_ns,
                    recorder: s.recorder.clone(),
                    failure,
                    steps,
                }),
            }
        }
        let jobs = reports
            .into_iter()
            .map(|r| {
                let s = r.source;
                let runtime = r.end_ns.saturating_sub(r.start_ns);
                let mut job = JobResult::from_recorder(s.name.clone(), s.first_flow, s.group, runtime, &r.recorder);
                if let Some(f) = r.failure {
                    job.error_code = f.errno;
                    job.error_message = f.message;
                }
                job.options = s.options.clone();
                job.steps = r.steps;
                job
            })
            .collect();
        let policy = &self.policy;
        RunResult {
            policy: policy.name().to_string(),
            policy_tunables: policy.tunable_values(),
            policy_stats: policy.stats().into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            device: self.device.describe(),
            device_stats: self.device.stats(),
            seed: self.seed,
            requests_submitted: self.next_request_id,
            requests_completed: self.completed,
            elapsed_ns: self.now_ns,
            real_time: self.device.is_live(),
            jobs,
            global_options: self.global_options.clone(),
            policy_switches: self.policy_generation,
        }
    }
}

/// group_reporting of stepped jobs: the group's steps, step by step: IOPS, rates and depths added, mean
/// latencies weighted by each job's I/Os.
fn merge_steps(into: &mut Vec<StepResult>, other: &[StepResult]) {
    if into.is_empty() {
        into.extend_from_slice(other);
        return;
    }
    for (a, b) in into.iter_mut().zip(other) {
        for d in 0..3 {
            let total = a.iops[d] + b.iops[d];
            if total > 0 {
                a.mean_latency_ns[d] =
                    (a.mean_latency_ns[d] * a.iops[d] as f64 + b.mean_latency_ns[d] * b.iops[d] as f64) / total as f64;
            }
            a.iops[d] = total;
            a.rate_iops[d] += b.rate_iops[d];
        }
        a.depth += b.depth;
    }
}
