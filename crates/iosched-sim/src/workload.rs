//! A workload ready to simulate: fio jobs expanded into one flow per clone, and timed request lists, checked
//! against the device's capacity.

use iosched_core::request::{IoClass, Op};
use iosched_workload::job::{JobSpec, Location};
use thiserror::Error;

/// One request of an open-loop (timed) source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedIo {
    pub at_ns: u64,
    pub op: Op,
    pub offset_bytes: u64,
    pub len_bytes: u64,
    /// The process or stream that issued it, as the source numbers them; each becomes its own flow.
    pub stream: u32,
    pub class: IoClass,
    pub level: u8,
    pub sync: bool,
    /// Forced unit access: past the drive's caches (a write complete once on the media, a read from it).
    pub fua: bool,
}

/// One source of requests.
#[derive(Clone, Debug)]
pub enum SourceSpec {
    /// A closed-loop fio job clone: one flow. `clone` numbers the clones of one job from 0 (offset_increment);
    /// `group` is fio's group id; `wave` counts stonewalls: a wave starts when every job of the one before
    /// has finished.
    Job { spec: Box<JobSpec>, clone: u32, group: u32, wave: u32 },
    /// Requests issued at given times whatever the device does (open loop), sorted by time.
    Timed { name: String, requests: Vec<TimedIo> },
    /// Requests issued in order, keeping `depth` outstanding (closed loop); their times are not used.
    Closed { name: String, requests: Vec<TimedIo>, depth: u32 },
}

/// How a trace is replayed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Replay {
    /// At the recorded times, multiplied by `time_scale` (0.5: twice as fast).
    Open { time_scale: f64 },
    /// In order, `depth` outstanding at a time.
    Closed { depth: u32 },
    /// Everything at time 0, in trace order.
    AsFastAsPossible,
}

impl Replay {
    /// `open`, `open:SCALE`, `closed:N` or `afap`.
    pub fn parse(text: &str) -> Result<Replay, String> {
        let wanted = "open, open:SCALE (for example open:0.5), closed:N (for example closed:32) or afap";
        match text.split_once(':') {
            None if text == "open" => Ok(Replay::Open { time_scale: 1.0 }),
            None if text == "afap" => Ok(Replay::AsFastAsPossible),
            // A scale past 1000 would carry a long trace's times past what 64-bit nanoseconds hold.
            Some(("open", scale)) => match scale.parse::<f64>() {
                Ok(s) if s.is_finite() && (1e-6..=1e3).contains(&s) => Ok(Replay::Open { time_scale: s }),
                _ => {
                    Err(format!("--replay expects {wanted}; the scale must be from 0.000001 to 1000, found '{scale}'"))
                }
            },
            Some(("closed", depth)) => match depth.parse::<u32>() {
                Ok(d) if (1..=65536).contains(&d) => Ok(Replay::Closed { depth: d }),
                _ => Err(format!("--replay expects {wanted}; the depth must be 1 to 65536, found '{depth}'")),
            },
            _ => Err(format!("--replay expects {wanted}, found '{text}'")),
        }
    }
}

impl SourceSpec {
    pub fn name(&self) -> &str {
        match self {
            SourceSpec::Job { spec, .. } => &spec.name,
            SourceSpec::Timed { name, .. } | SourceSpec::Closed { name, .. } => name,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum WorkloadError {
    #[error("{location}: {message}")]
    AtLocation { location: Location, message: String },
    #[error("{0}")]
    Other(String),
}

#[derive(Clone, Debug, Default)]
pub struct Workload {
    pub sources: Vec<SourceSpec>,
}

impl Workload {
    /// fio jobs, each cloned `numjobs` times. A stonewall starts a new wave and a new group; new_group starts
    /// a new group only.
    pub fn from_jobs(jobs: &[JobSpec]) -> Workload {
        let mut sources = Vec::new();
        let (mut group, mut wave) = (0u32, 0u32);
        for (index, job) in jobs.iter().enumerate() {
            if index > 0 && job.stonewall {
                wave += 1;
                group += 1;
            } else if index > 0 && job.new_group {
                group += 1;
            }
            for clone in 0..job.numjobs.max(1) {
                sources.push(SourceSpec::Job { spec: Box::new(job.clone()), clone, group, wave });
            }
        }
        Workload { sources }
    }

    /// Add an open-loop source; its requests are sorted by time (stably).
    pub fn add_timed(&mut self, name: &str, mut requests: Vec<TimedIo>) {
        requests.sort_by_key(|r| r.at_ns);
        self.sources.push(SourceSpec::Timed { name: name.to_string(), requests });
    }

    /// Add a trace, replayed as `replay` says; each stream of the trace becomes a flow.
    pub fn add_trace(&mut self, name: &str, trace: &iosched_workload::trace::Trace, replay: Replay) {
        let requests = trace.records.iter().map(|r| TimedIo {
            at_ns: match replay {
                Replay::Open { time_scale } => (r.at_ns as f64 * time_scale).round() as u64,
                Replay::Closed { .. } | Replay::AsFastAsPossible => 0,
            },
            op: r.op,
            offset_bytes: r.offset_bytes,
            len_bytes: r.len_bytes,
            stream: r.stream,
            class: IoClass::Be,
            level: iosched_core::request::LEVEL_DEFAULT,
            sync: r.sync,
            fua: false,
        });
        match replay {
            Replay::Closed { depth } => {
                self.sources.push(SourceSpec::Closed { name: name.to_string(), requests: requests.collect(), depth })
            }
            _ => self.add_timed(name, requests.collect()),
        }
    }

    /// The flows this workload makes, in the order the engine numbers them (flow N is element N): one per job
    /// clone, named after the job (`name.K` for clone K of a job with numjobs > 1), and one per stream of a
    /// timed or closed source (`name:stream`).
    pub fn flow_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for source in &self.sources {
            match source {
                SourceSpec::Job { spec, clone, .. } => {
                    names.push(if spec.numjobs > 1 { format!("{}.{clone}", spec.name) } else { spec.name.clone() })
                }
                SourceSpec::Timed { name, requests } | SourceSpec::Closed { name, requests, .. } => {
                    names.extend(streams_of(requests).iter().map(|s| format!("{name}:{s}")));
                }
            }
        }
        names
    }

    /// Give every job the same runtime (the command line's `--runtime`).
    pub fn override_runtime(&mut self, runtime_ns: u64) {
        for source in &mut self.sources {
            if let SourceSpec::Job { spec, .. } = source {
                spec.runtime_ns = Some(runtime_ns);
            }
        }
    }

    /// Check that every source fits a device of `capacity_bytes`.
    pub fn check(&self, capacity_bytes: u64) -> Result<(), WorkloadError> {
        for source in &self.sources {
            match source {
                SourceSpec::Job { spec, clone, .. } => {
                    // Checked here rather than when the file is read: a command line's --runtime gives one.
                    if spec.time_based && spec.runtime_ns.is_none() {
                        let location = spec.location_of("time_based").cloned().unwrap_or(spec.defined_at.clone());
                        let message =
                            format!("job '{}': time_based needs a runtime (runtime=, or --runtime)", spec.name);
                        return Err(WorkloadError::AtLocation { location, message });
                    }
                    job_region(spec, *clone, capacity_bytes)?;
                }
                SourceSpec::Timed { name, requests } | SourceSpec::Closed { name, requests, .. } => {
                    for (i, r) in requests.iter().enumerate() {
                        if r.op != Op::Flush && r.offset_bytes.saturating_add(r.len_bytes) > capacity_bytes {
                            return Err(WorkloadError::Other(format!(
                                "{name}: request {} ends at byte {}, past the device's {capacity_bytes} bytes",
                                i + 1,
                                r.offset_bytes.saturating_add(r.len_bytes)
                            )));
                        }
                        if r.op != Op::Flush && r.len_bytes == 0 {
                            return Err(WorkloadError::Other(format!("{name}: request {} has length 0", i + 1)));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The streams of a timed or closed source, in the order they become flows: ascending, each once.
pub(crate) fn streams_of(requests: &[TimedIo]) -> Vec<u32> {
    let mut streams: Vec<u32> = requests.iter().map(|r| r.stream).collect();
    streams.sort_unstable();
    streams.dedup();
    streams
}

/// The region `(start, len)` clone `clone` of a job covers on a device of `capacity_bytes`: from offset (plus
/// clone x offset_increment) for size, or filesize x nrfiles, or to the end of the device.
pub fn job_region(spec: &JobSpec, clone: u32, capacity_bytes: u64) -> Result<(u64, u64), WorkloadError> {
    let at = |option: &str| spec.location_of(option).cloned().unwrap_or_else(|| spec.defined_at.clone());
    let start = spec
        .offset
        .bytes(capacity_bytes)
        .saturating_add(spec.offset_increment.bytes(capacity_bytes).saturating_mul(clone as u64));
    if start >= capacity_bytes {
        return Err(WorkloadError::AtLocation {
            location: at(if clone > 0 { "offset_increment" } else { "offset" }),
            message: format!(
                "job '{}': {}offset {start} is past the end of the device ({capacity_bytes} bytes); the job is \
                 written for a larger device: give one with --device (a preset's capacity_gib=)",
                spec.name,
                if clone > 0 {
                    format!("clone {clone} starts at offset + {clone} x offset_increment: ")
                } else {
                    String::new()
                }
            ),
        });
    }
    let len = match (spec.size, spec.filesize) {
        _ if spec.fill_device => capacity_bytes - start,
        (Some(size), _) => size.bytes(capacity_bytes),
        (None, Some(file)) => file.bytes(capacity_bytes).saturating_mul(spec.nrfiles.max(1) as u64),
        (None, None) => capacity_bytes - start,
    };
    if start.saturating_add(len) > capacity_bytes {
        return Err(WorkloadError::AtLocation {
            location: at("size"),
            message: format!(
                "job '{}': offset {start} + size {len} is past the end of the device ({capacity_bytes} bytes)",
                spec.name
            ),
        });
    }
    let bs = spec.max_block_bytes().max(1);
    let files = spec.nrfiles.max(1) as u64;
    if len / files < bs {
        return Err(WorkloadError::AtLocation {
            location: at("size"),
            message: format!(
                "job '{}': each of its {files} file(s) of {} bytes is smaller than the block size {bs}",
                spec.name,
                len / files
            ),
        });
    }
    Ok((start, len))
}

#[cfg(test)]
mod replay_tests {
    use super::Replay;

    #[test]
    fn replay_modes_read_and_out_of_range_scales_are_refused() {
        assert_eq!(Replay::parse("open:0.5"), Ok(Replay::Open { time_scale: 0.5 }));
        assert_eq!(Replay::parse("closed:32"), Ok(Replay::Closed { depth: 32 }));
        for bad in ["open:1e300", "open:nan", "open:inf", "open:-1", "open:0", "closed:0", "closed:1e3", "fast"] {
            let e = Replay::parse(bad).unwrap_err();
            assert!(e.starts_with("--replay expects"), "{bad}: {e}");
        }
        assert!(Replay::parse("open:1e300").unwrap_err().contains("0.000001 to 1000"));
    }
}
