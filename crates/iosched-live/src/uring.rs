//! A real file or block device as an iosched [`Device`], driven through io_uring on the real clock.
//!
//! Each request the engine submits becomes one submission-queue entry (read, write, fsync for a flush,
//! fallocate punching a hole for a trim), tagged with the engine's tag. Entries are handed to the kernel four
//! at a time as the engine submits, and the rest when it waits. The file is opened with O_DIRECT where the file
//! system allows it (the page cache would otherwise answer reads the policy thinks it scheduled);
//! [`UringDevice::direct`] says which.
//!
//! The clock is the monotonic time since the device was opened, in ns: the engine's time 0 is the open.
//! A request that fails, or reads or writes fewer bytes than asked (past the end of a block device), completes
//! alone with its errno (EIO for a short transfer) and is counted; the others go on.

use io_uring::{opcode, types, IoUring};
use iosched_core::policy::StatValue;
use iosched_core::request::{Op, Request};
use iosched_device::{Completion, Device};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use thiserror::Error;

/// O_DIRECT needs buffers aligned to the logical block size; 4096 covers every device in use.
const BUFFER_ALIGN: usize = 4096;

/// Entries handed to the kernel at once while the engine dispatches.
const SUBMIT_BATCH: u32 = 4;

/// The user_data of the ring's own timeout entries (tags are below the depth).
const TIMER_MARK: u64 = u64::MAX;

#[derive(Debug, Error)]
pub enum OpenError {
    #[error("cannot open {path}: {source}")]
    Open { path: PathBuf, source: std::io::Error },
    #[error("cannot set up io_uring ({source}); the live engine needs Linux 5.11 or later with io_uring enabled")]
    Ring { source: std::io::Error },
}

/// A buffer aligned for O_DIRECT.
struct AlignedBuf {
    ptr: *mut u8,
    len: usize,
}

// The buffer is owned memory; the pointer is handed to the kernel only while the ring owns the request.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    fn new(len: usize) -> AlignedBuf {
        let len = len.max(BUFFER_ALIGN).next_multiple_of(BUFFER_ALIGN);
        let layout = Layout::from_size_align(len, BUFFER_ALIGN).expect("aligned layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "out of memory for a {len}-byte I/O buffer");
        AlignedBuf { ptr, len }
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: ptr points at len owned bytes.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        let layout = Layout::from_size_align(self.len, BUFFER_ALIGN).expect("aligned layout");
        // SAFETY: allocated in new() with this layout.
        unsafe { dealloc(self.ptr, layout) };
    }
}

/// What a tag is doing: the request's length, for checking short transfers.
#[derive(Clone, Copy)]
struct InFlight {
    op: Op,
    len_bytes: u64,
}

#[derive(Default)]
struct Counters {
    submitted: u64,
    completed: u64,
    errors: u64,
    short_transfers: u64,
    enters: u64,
}

pub struct UringDevice {
    path: PathBuf,
    file: File,
    direct: bool,
    capacity_bytes: u64,
    depth: u32,
    ring: IoUring,
    /// One buffer per tag, grown to the largest request it has carried.
    buffers: Vec<Option<AlignedBuf>>,
    in_flight: Vec<Option<InFlight>>,
    /// Entries pushed but not yet handed to the kernel.
    unsubmitted: u32,
    /// Completions read from the ring, waiting for `advance`.
    ready: Vec<Completion>,
    /// Deadlines (ns) of the timeout entries on the ring that have not fired, earliest first. Waiting for "a
    /// completion or time T" is a wait for one completion with a timeout entry for T on the ring: a timed
    /// io_uring_enter costs a timer set-up per call (12 % of the IOPS in measurement), an entry only when T moves
    /// earlier.
    timers: Vec<u64>,
    /// The timeout entries' timespecs, kept until the kernel has read them at submission; boxed so that their
    /// addresses, which the entries carry, stay put when the vector grows.
    #[allow(clippy::vec_box)]
    timer_specs: Vec<Box<types::Timespec>>,
    opened: Instant,
    counters: Counters,
}

impl UringDevice {
    /// Open `path` for reading and writing with `depth` requests at most in flight; O_DIRECT unless the file
    /// system refuses it (tmpfs, for one) or `direct` is false.
    pub fn open(path: &Path, depth: u32, direct: bool) -> Result<UringDevice, OpenError> {
        let open = |flags: i32| OpenOptions::new().read(true).write(true).custom_flags(flags).open(path);
        let (mut file, direct) = if direct {
            match open(libc::O_DIRECT) {
                Ok(f) => (f, true),
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                    (open(0).map_err(|source| OpenError::Open { path: path.to_path_buf(), source })?, false)
                }
                Err(source) => return Err(OpenError::Open { path: path.to_path_buf(), source }),
            }
        } else {
            (open(0).map_err(|source| OpenError::Open { path: path.to_path_buf(), source })?, false)
        };
        // The end of a regular file or of a block device alike.
        let capacity_bytes =
            file.seek(SeekFrom::End(0)).map_err(|source| OpenError::Open { path: path.to_path_buf(), source })?;
        let depth = depth.max(1);
        // Room for every tag plus timeout entries.
        let entries = (2 * depth).next_power_of_two().max(16);
        // One thread submits and reaps, so the kernel may run completion work when that thread waits (as fio
        // does) instead of interrupting it; older kernels without these flags get a plain ring.
        let ring = IoUring::builder()
            .setup_coop_taskrun()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .build(entries)
            .or_else(|_| IoUring::new(entries))
            .map_err(|source| OpenError::Ring { source })?;
        Ok(UringDevice {
            path: path.to_path_buf(),
            file,
            direct,
            capacity_bytes,
            depth,
            ring,
            buffers: (0..depth).map(|_| None).collect(),
            in_flight: vec![None; depth as usize],
            unsubmitted: 0,
            ready: Vec::new(),
            timers: Vec::new(),
            timer_specs: Vec::new(),
            opened: Instant::now(),
            counters: Counters::default(),
        })
    }

    /// Whether the file is open with O_DIRECT.
    pub fn direct(&self) -> bool {
        self.direct
    }

    /// The device's clock: ns since it was opened.
    pub fn clock_ns(&self) -> u64 {
        self.opened.elapsed().as_nanos() as u64
    }

    /// Whether any request is at the kernel or waiting to be collected.
    pub fn busy(&self) -> bool {
        self.counters.submitted > self.counters.completed || !self.ready.is_empty()
    }

    /// Read completed entries off the ring.
    fn reap(&mut self) {
        for cqe in self.ring.completion() {
            if cqe.user_data() == TIMER_MARK {
                // Timeouts fire in deadline order.
                if !self.timers.is_empty() {
                    self.timers.remove(0);
                }
                continue;
            }
            let tag = cqe.user_data() as u32;
            let Some(req) = self.in_flight.get_mut(tag as usize).and_then(Option::take) else {
                continue; // not one of ours (cannot happen: every entry carries a tag in flight)
            };
            let result = cqe.result();
            let error = if result < 0 {
                -result
            } else if matches!(req.op, Op::Read | Op::Write) && (result as u64) < req.len_bytes {
                self.counters.short_transfers += 1;
                libc::EIO
            } else {
                0
            };
            if error != 0 {
                self.counters.errors += 1;
            }
            self.counters.completed += 1;
            self.ready.push(Completion { tag, error });
        }
    }

    /// Hand pushed entries to the kernel and wait for at least `want` completions, or until `timeout`.
    fn enter(&mut self, want: usize, timeout: Option<Duration>) {
        self.counters.enters += 1;
        let result = match timeout {
            Some(t) => {
                let ts = types::Timespec::new().sec(t.as_secs()).nsec(t.subsec_nanos());
                let args = types::SubmitArgs::new().timespec(&ts);
                self.ring.submitter().submit_with_args(want, &args)
            }
            None => self.ring.submit_and_wait(want),
        };
        match result {
            Ok(_) => {
                self.unsubmitted = 0;
                self.timer_specs.clear();
            }
            // A timeout or a signal: what was pushed has been taken (ETIME comes after submission).
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME) | Some(libc::EINTR)) => {
                self.unsubmitted = 0;
                self.timer_specs.clear();
            }
            // The completion queue is full: empty it, and the caller retries.
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => self.reap(),
            Err(e) => panic!("io_uring_enter failed on {}: {e}", self.path.display()),
        }
    }
}

impl UringDevice {
    /// Put a timeout entry on the ring that completes `in_ns` from now (deadline `until_ns`).
    fn arm_timer(&mut self, until_ns: u64, in_ns: u64) {
        let spec = Box::new(types::Timespec::new().sec(in_ns / 1_000_000_000).nsec((in_ns % 1_000_000_000) as u32));
        let entry = opcode::Timeout::new(&*spec as *const types::Timespec).build().user_data(TIMER_MARK);
        while unsafe { self.ring.submission().push(&entry) }.is_err() {
            self.enter(0, None);
        }
        // Kept only once the entry is on the ring: an enter() above clears the specs already submitted, and the
        // box keeps this one's address when it moves into the vector.
        self.timer_specs.push(spec);
        self.unsubmitted += 1;
        let at = self.timers.partition_point(|t| *t <= until_ns);
        self.timers.insert(at, until_ns);
    }
}

impl Device for UringDevice {
    fn describe(&self) -> String {
        format!("live:{}{}", self.path.display(), if self.direct { " (O_DIRECT)" } else { " (buffered)" })
    }

    fn queue_depth(&self) -> u32 {
        self.depth
    }

    fn capacity_bytes(&self) -> u64 {
        self.capacity_bytes
    }

    fn rotational(&self) -> bool {
        false
    }

    fn submit(&mut self, _now_ns: u64, tag: u32, req: &Request) {
        let fd = types::Fd(self.file.as_raw_fd());
        let len = req.len_bytes as usize;
        let entry = match req.op {
            Op::Read | Op::Write => {
                let slot = &mut self.buffers[tag as usize];
                if slot.as_ref().is_none_or(|b| b.len < len) {
                    *slot = Some(AlignedBuf::new(len));
                }
                let buf = slot.as_mut().expect("just made");
                if req.op == Op::Write {
                    fill_pattern(&mut buf.as_mut_slice()[..len], req.offset_bytes);
                    opcode::Write::new(fd, buf.ptr, len as u32).offset(req.offset_bytes).build()
                } else {
                    opcode::Read::new(fd, buf.ptr, len as u32).offset(req.offset_bytes).build()
                }
            }
            Op::Flush => opcode::Fsync::new(fd).build(),
            Op::Trim => opcode::Fallocate::new(fd, req.len_bytes)
                .offset(req.offset_bytes)
                .mode(libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE)
                .build(),
        }
        .user_data(u64::from(tag));
        self.in_flight[tag as usize] = Some(InFlight { op: req.op, len_bytes: req.len_bytes });
        self.counters.submitted += 1;
        // The ring has room for every tag, and a tag is reused only after its completion was reaped.
        while unsafe { self.ring.submission().push(&entry) }.is_err() {
            self.enter(0, None);
        }
        self.unsubmitted += 1;
        // Hand entries to the kernel four at a time rather than all at the next wait: requests reach the device
        // sooner (fio's io_uring engine does the same). Holding a whole dispatch round back cost 12 % of the IOPS.
        if self.unsubmitted >= SUBMIT_BATCH {
            self.enter(0, None);
        }
    }

    fn next_event_ns(&self) -> Option<u64> {
        (!self.ready.is_empty()).then(|| self.clock_ns())
    }

    fn advance(&mut self, _now_ns: u64, completed: &mut Vec<Completion>) {
        self.reap();
        completed.append(&mut self.ready);
    }

    fn stats(&self) -> Vec<(String, StatValue)> {
        let c = &self.counters;
        vec![
            ("submitted".to_string(), StatValue::Count(c.submitted)),
            ("completed".to_string(), StatValue::Count(c.completed)),
            ("errors".to_string(), StatValue::Count(c.errors)),
            ("short_transfers".to_string(), StatValue::Count(c.short_transfers)),
            ("ring_enters".to_string(), StatValue::Count(c.enters)),
        ]
    }

    fn is_live(&self) -> bool {
        true
    }

    fn wait(&mut self, until_ns: Option<u64>) -> u64 {
        self.reap();
        let in_flight = self.counters.submitted > self.counters.completed;
        if !self.ready.is_empty() {
            if self.unsubmitted > 0 {
                self.enter(0, None);
            }
            return self.clock_ns();
        }
        let now = self.clock_ns();
        match until_ns {
            Some(until) if until <= now && self.unsubmitted > 0 => self.enter(0, None),
            Some(until) if until <= now => {}
            Some(until) if in_flight => {
                if self.timers.first().is_none_or(|t| *t > until) {
                    self.arm_timer(until, until - now);
                }
                self.enter(1, None);
            }
            Some(until) => std::thread::sleep(Duration::from_nanos(until - now)),
            None if in_flight => self.enter(1, None),
            None => {}
        }
        self.reap();
        self.clock_ns()
    }
}

/// What a write puts in its buffer: each 8-byte word holds its own byte offset in the file, so that a read can
/// tell where the data it got was written for.
fn fill_pattern(buf: &mut [u8], offset_bytes: u64) {
    for (i, word) in buf.chunks_exact_mut(8).enumerate() {
        word.copy_from_slice(&(offset_bytes + 8 * i as u64).to_le_bytes());
    }
}
