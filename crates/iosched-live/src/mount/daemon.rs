//! A mount's life: open the source directory, mount the passthrough file system (over the source itself for
//! `iosched insert`, elsewhere for `iosched create`), run the engine for the requests it receives, answer the
//! control socket, and on `destroy` (or SIGTERM) take the mount away safely.
//!
//! Removal: the mount is detached at once (MNT_DETACH), so new opens of the path reach the directory underneath
//! again; requests in flight complete and are answered; files a program opened through the mount keep being
//! served until it closes them. When the kernel ends the FUSE session (the last of them closed), the engine
//! drains and the daemon exits with its report. Nothing admitted is dropped.
//!
//! If the daemon is killed instead, the kernel aborts the FUSE connection: programs get ENOTCONN ("transport
//! endpoint is not connected") rather than hanging, the dead mount stays until `iosched destroy` detaches it, and
//! what was written and fsynced is in the files underneath (writes are not cached by the daemon).

use super::device::MountDevice;
use super::doorbell::Doorbell;
pub use super::fs::CacheMode;
use super::fs::PassthroughFs;
use super::pending::MountInlet;
use crate::buffer::BufferPool;
use crate::control_socket::{ControlError, ControlServer, Outcome};
use crate::emulate::EmulatedDevice;
use crate::metrics::MetricsServer;
use fuser::{MountOption, Session};
use iosched_core::policy::Policy;
use iosched_core::results::RunResult;
use iosched_device::Device;
use iosched_sim::{ControlMessage, ControlReply, ControlRequest, Controls, SimConfig};
use std::collections::HashMap;
use std::ffi::CString;
use std::net::SocketAddr;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use thiserror::Error;

/// What the mounts' source field in /proc/self/mountinfo begins with (then the source directory).
pub const SOURCE_PREFIX: &str = "iosched:";

/// Requests in flight to the files underneath at once, unless a device model sets it.
pub const DEFAULT_QUEUE_DEPTH: u32 = 64;

/// Free I/O buffers the mount keeps for reuse: a full queue of 128 KiB requests, twice over (reads and writes).
const BUFFER_POOL_BYTES: usize = 2 * DEFAULT_QUEUE_DEPTH as usize * 128 * 1024;

/// How often the control relay looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(50);

#[derive(Debug, Error)]
pub enum MountError {
    #[error("{0}")]
    Setup(String),
    #[error(transparent)]
    Control(#[from] ControlError),
    #[error("the engine failed: {0}")]
    Engine(String),
}

pub struct MountConfig {
    pub source: PathBuf,
    pub mountpoint: PathBuf,
    pub policy: Box<dyn Policy>,
    /// A device model whose timing the mount's requests get (`--emulate`).
    pub emulate: Option<Box<dyn Device>>,
    pub cache: CacheMode,
    pub queue_depth: u32,
    /// Whether policies are told the files underneath are on a rotational device (None: the kernel's flag of
    /// the block device under the source directory).
    pub rotational: Option<bool>,
    pub seed: u64,
    /// Serve Prometheus metrics on this loopback address.
    pub metrics: Option<SocketAddr>,
    /// Set (by a signal handler) to remove the mount as `destroy` does.
    pub stop: Option<&'static AtomicBool>,
}

/// What a ready mount tells whoever started it.
pub struct MountInfo {
    pub mountpoint: PathBuf,
    pub socket: PathBuf,
    pub device: String,
    /// Where the Prometheus endpoint listens, if asked for.
    pub metrics: Option<SocketAddr>,
}

/// Mount, call `ready` once programs can use the mount, serve until it is removed, and return the report.
pub fn run_mount(config: MountConfig, ready: impl FnOnce(&MountInfo)) -> Result<RunResult, MountError> {
    let setup = |what: String| MountError::Setup(what);
    let source = config.source.canonicalize().map_err(|e| setup(format!("{}: {e}", config.source.display())))?;
    let mountpoint =
        config.mountpoint.canonicalize().map_err(|e| setup(format!("{}: {e}", config.mountpoint.display())))?;
    for dir in [&source, &mountpoint] {
        if !dir.is_dir() {
            return Err(setup(format!("{}: not a directory", dir.display())));
        }
    }
    if is_mount_of_ours(&mountpoint) {
        return Err(setup(format!("{}: an iosched mount is already there", mountpoint.display())));
    }
    // The directory underneath, held before the mount covers it (for insert, source and mount point are one).
    let root = open_dir(&source)?;
    let (server, control) = ControlServer::start(&mountpoint)?;
    let (engine_requests, engine_control) = channel();
    let metrics = match config.metrics {
        Some(addr) => Some(MetricsServer::start(addr, engine_requests.clone()).map_err(setup)?),
        None => None,
    };

    let (to_engine, incoming) = channel();
    let doorbell = Arc::new(Doorbell::new().map_err(|e| setup(format!("cannot make an eventfd: {e}")))?);
    let table = Arc::new(Mutex::new(HashMap::new()));
    let closed = Arc::new(AtomicBool::new(false));
    let open_files = Arc::new(AtomicU64::new(0));

    let depth = config.queue_depth.max(config.emulate.as_ref().map_or(1, |m| m.queue_depth()));
    let buffers = BufferPool::new(BUFFER_POOL_BYTES);
    let mut real = MountDevice::new(table.clone(), buffers.clone(), doorbell.clone(), depth, u64::MAX >> 2)
        .map_err(|e| setup(format!("cannot set up io_uring ({e}); the mount needs Linux 5.11 or later")))?;
    let (rotational, why) =
        crate::block_queue::decide_rotational(config.rotational, crate::block_queue::of_path(&source).as_ref());
    real.set_rotational(rotational, why);
    let device: Box<dyn Device> = match config.emulate {
        Some(model) => Box::new(EmulatedDevice::new(model, Box::new(real))),
        None => Box::new(real),
    };
    let fs = PassthroughFs::new(
        root,
        to_engine,
        doorbell.clone(),
        buffers,
        device.capacity_bytes(),
        config.cache,
        open_files.clone(),
    )
    .map_err(|e| setup(format!("{}: {}", source.display(), std::io::Error::from_raw_os_error(e))))?;
    let options = [
        MountOption::FSName(format!("{SOURCE_PREFIX}{}", source.display())),
        MountOption::Subtype("iosched".to_string()),
        MountOption::DefaultPermissions,
        MountOption::RW,
    ];
    let mut session = Session::new(fs, &mountpoint, &options)
        .map_err(|e| setup(format!("cannot mount on {}: {e} (is fuse3 installed?)", mountpoint.display())))?;
    let session_thread = {
        let (closed, doorbell) = (closed.clone(), doorbell.clone());
        std::thread::Builder::new()
            .name("iosched-fuse".into())
            .spawn(move || {
                let result = session.run();
                drop(session); // the file system, and with it the sender, goes first
                closed.store(true, Ordering::Release);
                doorbell.ring();
                result
            })
            .map_err(|e| setup(format!("cannot start the file system thread: {e}")))?
    };
    {
        let (mountpoint, open_files, stop) = (mountpoint.clone(), open_files.clone(), config.stop);
        std::thread::Builder::new()
            .name("iosched-relay".into())
            .spawn(move || relay(control, engine_requests, &mountpoint, &open_files, stop))
            .map_err(|e| setup(format!("cannot start the control thread: {e}")))?;
    }
    ready(&MountInfo {
        mountpoint: mountpoint.clone(),
        socket: server.path().to_path_buf(),
        device: device.describe(),
        metrics: metrics.as_ref().map(MetricsServer::addr),
    });

    let inlet = Box::new(MountInlet::new(incoming, closed, table));
    let sim = SimConfig { seed: config.seed, record_log: false };
    let controls = Controls { requests: Some(engine_control), stop: None };
    let served = iosched_sim::serve(inlet, config.policy, device, &sim, controls);
    let ended = match served {
        Ok(output) => match session_thread.join() {
            Err(_) => Err(MountError::Engine("the file system thread panicked".into())),
            // The kernel ends a connection with ENODEV, or with ECONNABORTED once the FUSE_ABORT_ERROR flag was
            // negotiated (fs/fuse/dev.c, fuse_dev_do_read): the same teardown, which fuser reports as an error
            // in the versions before its fix (fuser pull request 708). Either way the session is over.
            Ok(Err(e)) if e.raw_os_error() == Some(libc::ECONNABORTED) => Ok(output.result),
            Ok(Err(e)) => Err(MountError::Engine(format!("reading FUSE requests: {e}"))),
            Ok(Ok(())) => Ok(output.result),
        },
        Err(e) => {
            // Leave nothing mounted that no one serves; exiting then aborts the FUSE connection.
            let _ = detach(&mountpoint);
            Err(MountError::Engine(e.to_string()))
        }
    };
    // A test build can be made to report a failed engine, so that the tests show `destroy` tells the outcome
    // rather than assuming success (a release build ignores the variable).
    let ended = match ended {
        Ok(_) if cfg!(debug_assertions) && std::env::var_os("IOSCHED_TEST_FAIL_ENGINE").is_some() => {
            Err(MountError::Engine("failed on purpose (IOSCHED_TEST_FAIL_ENGINE)".into()))
        }
        other => other,
    };
    server.finish(&outcome(&ended));
    ended
}

/// What `destroy` is told of how the engine ended.
fn outcome(ended: &Result<RunResult, MountError>) -> Outcome {
    match ended {
        Ok(result) => Outcome {
            ok: true,
            requests: result.requests_completed,
            errors: result.jobs.iter().flat_map(|j| j.directions.iter().chain([&j.flushes])).map(|d| d.errors).sum(),
            error: String::new(),
        },
        Err(e) => Outcome { ok: false, requests: 0, errors: 0, error: e.to_string() },
    }
}

/// Pass the controllers' requests to the engine, except `destroy` (and the stop flag), which it does itself.
fn relay(
    control: Receiver<ControlMessage>,
    engine: Sender<ControlMessage>,
    mountpoint: &Path,
    open_files: &AtomicU64,
    stop: Option<&'static AtomicBool>,
) {
    let mut detached = false;
    loop {
        if !detached && stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            detached = detach(mountpoint).is_ok();
        }
        match control.recv_timeout(STOP_POLL) {
            Ok(ControlMessage { request: ControlRequest::Destroy, reply }) => {
                let answer = match if detached { Ok(()) } else { detach(mountpoint) } {
                    Ok(()) => {
                        detached = true;
                        ControlReply::Destroyed { open_files: open_files.load(Ordering::Relaxed) }
                    }
                    Err(e) => ControlReply::Error(e),
                };
                let _ = reply.send(answer);
            }
            Ok(message) => {
                if let Err(returned) = engine.send(message) {
                    let _ = returned.0.reply.send(ControlReply::Error("the mount's engine has ended".into()));
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return, // the control socket is gone: the daemon is ending
        }
    }
}

fn open_dir(path: &Path) -> Result<OwnedFd, MountError> {
    let c = CString::new(path.as_os_str().as_bytes()).map_err(|_| MountError::Setup("a path with a NUL".into()))?;
    // SAFETY: a valid C string; open returns a new descriptor or -1.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(MountError::Setup(format!("{}: {}", path.display(), std::io::Error::last_os_error())));
    }
    // SAFETY: a new descriptor we own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Detach the mount at `mountpoint` (lazily: files open through it stay served until closed).
pub fn detach(mountpoint: &Path) -> Result<(), String> {
    let c = CString::new(mountpoint.as_os_str().as_bytes()).map_err(|_| "a path with a NUL".to_string())?;
    // SAFETY: a valid C string.
    if unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) } == 0 {
        return Ok(());
    }
    let direct = std::io::Error::last_os_error();
    // Not root: fusermount3 (setuid) unmounts what this user mounted.
    match std::process::Command::new("fusermount3").arg("-u").arg("-z").arg(mountpoint).status() {
        Ok(s) if s.success() => Ok(()),
        Ok(_) | Err(_) => Err(format!("cannot unmount {}: {direct}", mountpoint.display())),
    }
}

/// Whether an iosched mount is at `path` (as /proc/self/mountinfo lists it; a dead one too).
pub fn is_mount_of_ours(path: &Path) -> bool {
    let Ok(info) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return false;
    };
    info.lines().any(|line| {
        let fields: Vec<&str> = line.split(' ').collect();
        let Some(dash) = fields.iter().position(|f| *f == "-") else {
            return false;
        };
        fields.get(4).map(|m| unescape(m)) == Some(path.as_os_str().as_bytes().to_vec())
            && fields.get(dash + 1).is_some_and(|t| t.starts_with("fuse"))
            && fields.get(dash + 2).is_some_and(|s| s.starts_with(SOURCE_PREFIX))
    })
}

/// mountinfo escapes space, tab, newline and backslash as octal.
fn unescape(field: &str) -> Vec<u8> {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 4 <= bytes.len() {
            if let Ok(v) = u8::from_str_radix(&field[i + 1..i + 4], 8) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}
