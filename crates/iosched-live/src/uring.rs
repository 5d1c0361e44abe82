//! A real file or block device as an iosched [`Device`], driven through io_uring on the real clock.
//!
//! Each request the engine submits becomes one submission-queue entry (read, write, fsync for a flush,
//! fallocate punching a hole for a trim), tagged with the engine's tag, on a [`Ring`]. The file is opened with O_DIRECT where the file
//! system allows it (the page cache would otherwise answer reads the policy thinks it scheduled);
//! [`UringDevice::direct`] says which.
//!
//! The clock is the monotonic time since the device was opened, in ns: the engine's time 0 is the open.
//! A request that fails, or reads or writes fewer bytes than asked (past the end of a block device), completes
//! alone with its errno (EIO for a short transfer) and is counted; the others go on. If the ring itself fails
//! (io_uring_enter refuses for good), every request on it and every later one completes with EIO; the process
//! goes on.

use crate::buffer::AlignedBuf;
use crate::ring::{Ring, RING_FAILED_ERRNO};
use io_uring::{opcode, types};
use iosched_core::policy::StatValue;
use iosched_core::request::{Op, Request};
use iosched_device::{Completion, Device};
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum OpenError {
    #[error("cannot open {path}: {source}")]
    Open { path: PathBuf, source: std::io::Error },
    #[error("cannot set up io_uring ({source}); the live engine needs Linux 5.11 or later with io_uring enabled")]
    Ring { source: std::io::Error },
}

/// What a tag is doing: the request's length, for checking short transfers.
#[derive(Clone, Copy)]
struct InFlight {
    op: Op,
    offset_bytes: u64,
    len_bytes: u64,
    /// A verify read: its data is checked against the pattern writes leave (see `fill_pattern`).
    verify: bool,
}

#[derive(Default)]
struct Counters {
    submitted: u64,
    completed: u64,
    errors: u64,
    short_transfers: u64,
    /// Verify reads whose data was not what was written there.
    verify_failures: u64,
    /// Completions for a tag not in flight: a bug of iosched's or the kernel's, reported and counted.
    unknown_completions: u64,
}

pub struct UringDevice {
    path: PathBuf,
    file: File,
    direct: bool,
    capacity_bytes: u64,
    depth: u32,
    ring: Ring,
    /// One buffer per tag, grown to the largest request it has carried.
    buffers: Vec<Option<AlignedBuf>>,
    in_flight: Vec<Option<InFlight>>,
    /// Completions read from the ring, waiting for `advance`.
    ready: Vec<Completion>,
    counters: Counters,
    /// Whether policies are told the device pays for seeks, and why (said in the description).
    rotational: bool,
    rotational_why: String,
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
        let ring = Ring::new(2 * depth, path.display().to_string()).map_err(|source| OpenError::Ring { source })?;
        Ok(UringDevice {
            path: path.to_path_buf(),
            file,
            direct,
            capacity_bytes,
            depth,
            ring,
            buffers: (0..depth).map(|_| None).collect(),
            in_flight: vec![None; depth as usize],
            ready: Vec::new(),
            counters: Counters::default(),
            rotational: false,
            rotational_why: "non-rotational".to_string(),
        })
    }

    /// Tell policies whether the target pays for seeks (see [`crate::block_queue::decide_rotational`]); `why` is
    /// said in the device's description.
    pub fn set_rotational(&mut self, rotational: bool, why: String) {
        self.rotational = rotational;
        self.rotational_why = why;
    }

    /// Whether the file is open with O_DIRECT.
    pub fn direct(&self) -> bool {
        self.direct
    }

    /// The device's clock: ns since it was opened.
    pub fn clock_ns(&self) -> u64 {
        self.ring.clock_ns()
    }

    /// Whether any request is at the kernel or waiting to be collected.
    pub fn busy(&self) -> bool {
        self.counters.submitted > self.counters.completed || !self.ready.is_empty()
    }

    /// Read completed entries off the ring.
    fn reap(&mut self) {
        let (in_flight, counters, ready, buffers) =
            (&mut self.in_flight, &mut self.counters, &mut self.ready, &self.buffers);
        self.ring.reap(|user_data, result| {
            let tag = user_data as u32;
            let Some(req) = in_flight.get_mut(tag as usize).and_then(Option::take) else {
                counters.unknown_completions += 1;
                eprintln!(
                    "iosched: a completion (result {result}) for entry {user_data:#x}, which is not in flight; ignored"
                );
                return;
            };
            let error = if result < 0 {
                -result
            } else if matches!(req.op, Op::Read | Op::Write) && (result as u64) < req.len_bytes {
                counters.short_transfers += 1;
                libc::EIO
            } else if req.verify && !holds_pattern(buffers[tag as usize].as_ref(), req.offset_bytes, req.len_bytes) {
                // fio reports a block that fails its check with EILSEQ.
                counters.verify_failures += 1;
                libc::EILSEQ
            } else {
                0
            };
            if error != 0 {
                counters.errors += 1;
            }
            counters.completed += 1;
            ready.push(Completion { tag, error });
        });
        if self.ring.failed() {
            // Nothing more will come off the ring: what it still had fails (the ring's error is in the log).
            for (tag, slot) in self.in_flight.iter_mut().enumerate() {
                if slot.take().is_some() {
                    self.counters.errors += 1;
                    self.counters.completed += 1;
                    self.ready.push(Completion { tag: tag as u32, error: RING_FAILED_ERRNO });
                }
            }
        }
    }
}

impl Device for UringDevice {
    fn describe(&self) -> String {
        format!(
            "live:{}{}, {}",
            self.path.display(),
            if self.direct { " (O_DIRECT)" } else { " (buffered)" },
            self.rotational_why
        )
    }

    fn queue_depth(&self) -> u32 {
        self.depth
    }

    fn capacity_bytes(&self) -> u64 {
        self.capacity_bytes
    }

    fn rotational(&self) -> bool {
        self.rotational
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
                    // Forced unit access: RWF_DSYNC, which Linux sends as a FUA write where the device takes
                    // one (else as a write and a cache flush). A FUA read has no user-space form: it is a read.
                    let flags = if req.fua { libc::RWF_DSYNC } else { 0 };
                    opcode::Write::new(fd, buf.ptr, len as u32).offset(req.offset_bytes).rw_flags(flags).build()
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
        self.in_flight[tag as usize] = Some(InFlight {
            op: req.op,
            offset_bytes: req.offset_bytes,
            len_bytes: req.len_bytes,
            verify: req.verify && req.op == Op::Read,
        });
        self.counters.submitted += 1;
        // The ring has room for every tag, and a tag is reused only after its completion was reaped.
        self.ring.push(entry);
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
            ("verify_failures".to_string(), StatValue::Count(c.verify_failures)),
            ("unknown_completions".to_string(), StatValue::Count(c.unknown_completions)),
            ("ring_transient_errors".to_string(), StatValue::Count(self.ring.transient_errors)),
            ("ring_enters".to_string(), StatValue::Count(self.ring.enters)),
        ]
    }

    fn is_live(&self) -> bool {
        true
    }

    fn wait(&mut self, until_ns: Option<u64>) -> u64 {
        self.reap();
        let in_flight = self.counters.submitted > self.counters.completed;
        let now = self.ring.wait(until_ns, !self.ready.is_empty(), in_flight);
        self.reap();
        now
    }
}

/// Whether a read's buffer holds what a write of the same place put there (`fill_pattern`).
fn holds_pattern(buf: Option<&AlignedBuf>, offset_bytes: u64, len_bytes: u64) -> bool {
    let Some(buf) = buf else { return false };
    let data = buf.written(len_bytes as usize);
    data.chunks_exact(8).enumerate().all(|(i, word)| word == (offset_bytes + 8 * i as u64).to_le_bytes())
}

/// What a write puts in its buffer: each 8-byte word holds its own byte offset in the file, so that a read can
/// tell where the data it got was written for.
fn fill_pattern(buf: &mut [u8], offset_bytes: u64) {
    for (i, word) in buf.chunks_exact_mut(8).enumerate() {
        word.copy_from_slice(&(offset_bytes + 8 * i as u64).to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_file(name: &str) -> PathBuf {
        let dir = iosched_test_data::scratch(&format!("uring-{name}"));
        let path = dir.join(name);
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        path
    }

    /// The device on a 1 MiB file, or None (said loudly) where the kernel refuses io_uring.
    fn open(name: &str) -> Option<UringDevice> {
        match UringDevice::open(&temp_file(name), 8, false) {
            Ok(device) => Some(device),
            Err(e @ OpenError::Ring { .. }) => {
                iosched_test_data::skip(&e.to_string());
                None
            }
            Err(e) => panic!("{e}"),
        }
    }

    fn stat(device: &UringDevice, name: &str) -> u64 {
        match device.stats().into_iter().find(|(n, _)| n == name) {
            Some((_, StatValue::Count(n))) => n,
            other => panic!("{name}: {other:?}"),
        }
    }

    /// Submit reads on tags 0..n and collect completions until every one is in (or 5 s pass).
    fn read_all(device: &mut UringDevice, n: u32) -> Vec<Completion> {
        let now = device.wait(Some(0));
        for tag in 0..n {
            device.submit(now, tag, &Request::new(u64::from(tag), Op::Read, u64::from(tag) * 4096, 4096, 0));
        }
        let mut got = Vec::new();
        let started = std::time::Instant::now();
        while got.len() < n as usize && started.elapsed().as_secs() < 5 {
            let now = device.wait(Some(device.clock_ns() + 10_000_000));
            device.advance(now, &mut got);
        }
        got.sort_by_key(|c| c.tag);
        got
    }

    #[test]
    fn a_ring_short_of_memory_for_now_retries_and_loses_nothing() {
        let Some(mut device) = open("transient") else { return };
        device.ring.injected = vec![libc::ENOMEM, libc::EAGAIN, libc::EAGAIN];
        let got = read_all(&mut device, 8);
        assert_eq!(
            got.iter().map(|c| (c.tag, c.error)).collect::<Vec<_>>(),
            (0..8).map(|t| (t, 0)).collect::<Vec<_>>()
        );
        assert_eq!(stat(&device, "ring_transient_errors"), 3);
    }

    #[test]
    fn a_failed_ring_fails_its_requests_and_not_the_process() {
        let Some(mut device) = open("failed") else { return };
        device.ring.injected = vec![libc::EBADFD];
        let got = read_all(&mut device, 8);
        assert_eq!(got.len(), 8, "every request completes once: {got:?}");
        assert!(got.iter().all(|c| c.error == libc::EIO), "{got:?}");
        // Later requests fail at once too; waiting does not block.
        let got = read_all(&mut device, 3);
        assert_eq!(
            got.iter().map(|c| (c.tag, c.error)).collect::<Vec<_>>(),
            (0..3).map(|t| (t, libc::EIO)).collect::<Vec<_>>()
        );
        assert_eq!(stat(&device, "errors"), 11);
    }

    #[test]
    fn a_completion_for_a_tag_not_in_flight_is_counted_not_taken_for_a_request() {
        let Some(mut device) = open("unknown") else { return };
        device.ring.inject_completion(5, 4096);
        let mut got = Vec::new();
        let now = device.wait(Some(0));
        device.advance(now, &mut got);
        assert!(got.is_empty(), "{got:?}");
        assert_eq!(stat(&device, "unknown_completions"), 1);
        assert_eq!(read_all(&mut device, 2).iter().map(|c| c.error).collect::<Vec<_>>(), vec![0, 0]);
    }
}
