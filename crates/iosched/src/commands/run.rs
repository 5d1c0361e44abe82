//! `iosched run`: a fio job file live, real I/O through io_uring on the real clock, through a policy; the same
//! engine as `iosched sim` with a real device in place of a model.

use super::policy_with;
use super::signals::{catch_interrupts, STOP};
use super::sim::parse_switch;
use crate::cli::RunArgs;
use crate::error::{bad, CliError};
use iosched_device::Device;
use iosched_live::block_queue;
use iosched_live::control_socket::{ControlError, ControlServer};
use iosched_live::{EmulatedDevice, UringDevice};
use iosched_report::{fio_json, table};
use iosched_sim::{simulate_controlled, Controls, SimConfig, Workload};
use iosched_workload::job::{JobSpec, SizeSpec};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// The most requests at the target when the jobs do not say (the sum of their depths is used up to this).
const DEFAULT_DEPTH_CAP: u32 = 256;

pub fn run(args: &RunArgs) -> Result<(), CliError> {
    let jobs = super::parse_job_files(&args.jobfiles, &args.sections)?;
    let target = target(args, &jobs)?;
    refuse_multi_range_trims(&jobs)?;
    let policy = policy_with(&args.policy, &args.set)?;
    let switches = args.switch_at.iter().map(|s| parse_switch(s)).collect::<Result<Vec<_>, _>>()?;
    super::sim::check_flows(&Workload::from_jobs(&jobs).flow_names(), &args.policy, &args.set, &args.switch_at)?;
    let model = super::emulated_model(args.emulate.as_deref())?;
    lay_out(&target, needed_bytes(&jobs))?;
    let direct = jobs.iter().any(|j| j.direct);
    // What the kernel says of the block device under the target: rotational or not, and its queue's size.
    let queue = block_queue::of_path(&target);
    let cap = queue.as_ref().and_then(|q| q.nr_requests).filter(|n| *n > 0).unwrap_or(DEFAULT_DEPTH_CAP);
    let depth = match &model {
        Some(model) => model.queue_depth().max(1),
        None => args
            .queue_depth
            .unwrap_or_else(|| jobs.iter().map(|j| j.iodepth.max(1) * j.numjobs.max(1)).sum::<u32>().clamp(1, cap)),
    };
    // A target that cannot be opened is bad input; io_uring refused by the machine is a failure.
    let mut real = UringDevice::open(&target, depth, direct).map_err(|e| match e {
        iosched_live::uring::OpenError::Open { .. } => bad(e),
        iosched_live::uring::OpenError::Ring { .. } => CliError::Failed(e.to_string()),
    })?;
    let (rotational, why) = block_queue::decide_rotational(args.rotational, queue.as_ref());
    real.set_rotational(rotational, why);
    if direct && !real.direct() {
        eprintln!("iosched: warning: {} does not allow O_DIRECT; running buffered", target.display());
    }
    let device: Box<dyn Device> = match model {
        Some(model) => {
            if real.capacity_bytes() < model.capacity_bytes() {
                eprintln!(
                    "iosched: {} is {} MiB, the emulated device {} MiB: emulating its first {} MiB (a sparse file as \
                     large as the device emulates all of it: truncate -s {} FILE)",
                    target.display(),
                    real.capacity_bytes() >> 20,
                    model.capacity_bytes() >> 20,
                    real.capacity_bytes() >> 20,
                    model.capacity_bytes()
                );
            }
            Box::new(EmulatedDevice::new(model, Box::new(real)))
        }
        None => Box::new(real),
    };
    let mut workload = Workload::from_jobs(&jobs);
    if let Some(runtime) = &args.runtime {
        workload.override_runtime(super::parse_runtime_ns(runtime)?);
    }
    // `iosched configure TARGET` and `iosched stats TARGET` reach this run through its control socket.
    let (server, requests) = match ControlServer::start(&target) {
        Ok((server, requests)) => (Some(server), Some(requests)),
        Err(e @ ControlError::AlreadyRunning(_)) => return Err(bad(e)),
        Err(e) => {
            eprintln!("iosched: warning: no control socket ({e}); configure and stats cannot reach this run");
            (None, None)
        }
    };
    catch_interrupts();
    let controls = Controls { requests, stop: Some(&STOP) };
    let config = SimConfig { seed: args.seed, record_log: false };
    let out = simulate_controlled(&workload, policy, device, switches, &config, controls).map_err(super::sim_error)?;
    drop(server);
    if args.json {
        out!("{}", fio_json::to_string(&out.result));
    } else {
        out!("{}", table::render(&out.result));
    }
    if STOP.load(Ordering::Relaxed) {
        return Err(CliError::Interrupted(format!(
            "interrupted after {:.3} s: the jobs stopped issuing and every request issued completed ({} of {})",
            out.result.elapsed_ns as f64 / 1e9,
            out.result.requests_completed,
            out.result.requests_submitted
        )));
    }
    super::failed_jobs(&out.result)
}

/// A trim of several ranges is one NVMe command, which fio sends only to an NVMe device (io_uring_cmd); a live
/// run punches holes in a file or device, one range at a time, so it refuses such jobs by name.
fn refuse_multi_range_trims(jobs: &[JobSpec]) -> Result<(), CliError> {
    use iosched_workload::job::RwMode;
    match jobs.iter().find(|j| j.num_range > 1 && matches!(j.rw, RwMode::Trim | RwMode::TrimWrite)) {
        Some(job) => Err(bad(format!(
            "{}: job '{}': num_range={}: a trim of several ranges in one command needs an NVMe device (fio's \
             io_uring_cmd); iosched run trims one range per request (iosched sim models the command)",
            job.location_of("num_range").unwrap_or(&job.defined_at),
            job.name,
            job.num_range
        ))),
        None => Ok(()),
    }
}

/// --target, or the one filename= the jobs share (relative to the first job file's folder).
fn target(args: &RunArgs, jobs: &[JobSpec]) -> Result<PathBuf, CliError> {
    if let Some(t) = &args.target {
        return Ok(t.clone());
    }
    match super::shared_filename(jobs.iter().map(|j| j.filename.as_deref())) {
        Some(name) => {
            // A relative name is relative to the job file, as a user reading the file would expect.
            let path = Path::new(name);
            Ok(if path.is_absolute() {
                path.to_path_buf()
            } else {
                args.jobfiles[0].parent().unwrap_or(Path::new(".")).join(path)
            })
        }
        _ => Err(bad(format!(
            "{}: a live run needs one target: give every job the same filename= or use --target PATH",
            args.jobfiles.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// The bytes the jobs reach, counting only sizes given in bytes (a size in per cent is of the target, which must
/// then exist already). The region is worked out as the simulator's job_region does: offset, plus the last
/// clone's offset_increment, plus size (or filesize x nrfiles).
fn needed_bytes(jobs: &[JobSpec]) -> u64 {
    let bytes = |s: SizeSpec| match s {
        SizeSpec::Bytes(b) => b,
        SizeSpec::Percent(_) => 0,
    };
    jobs.iter()
        .map(|j| {
            let len = match (j.size, j.filesize) {
                (Some(size), _) => bytes(size),
                (None, Some(file)) => bytes(file) * j.nrfiles.max(1) as u64,
                (None, None) => 0,
            };
            bytes(j.offset) + bytes(j.offset_increment) * (j.numjobs.max(1) as u64 - 1) + len
        })
        .max()
        .unwrap_or(0)
}

/// Make a regular file at least `bytes` long by writing it, as fio lays out its files: reads of a hole would
/// cost the device nothing. Block devices and long enough files are left alone.
fn lay_out(path: &Path, bytes: u64) -> Result<(), CliError> {
    // The target named cannot be made (no such folder, no permission, no room): the input names a bad place.
    let failed = |e: std::io::Error| bad(format!("cannot lay out {}: {e}", path.display()));
    let existing = match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => return Ok(()),
        Ok(m) => m.len(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
        Err(e) => return Err(failed(e)),
    };
    if existing > 0 && existing >= bytes {
        return Ok(());
    }
    if bytes == 0 {
        return Err(bad(format!(
            "{} is empty or does not exist, and no job gives its size in bytes (size= or filesize=) to lay it \
             out: give one, or make the file first (truncate -s 1G {})",
            path.display(),
            path.display()
        )));
    }
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(failed)?;
    eprintln!("iosched: laying out {} ({} MiB)", path.display(), bytes.div_ceil(1 << 20));
    let chunk = vec![0x5au8; 1 << 20];
    let mut at = existing;
    while at < bytes {
        let n = chunk.len().min((bytes - at) as usize);
        file.write_all(&chunk[..n]).map_err(failed)?;
        at += n as u64;
    }
    file.sync_all().map_err(failed)
}
