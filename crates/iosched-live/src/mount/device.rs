//! The device behind a mount: the real files underneath, through io_uring, one request per engine request.
//!
//! A request's work (which open file, where, which buffer) is in the [`IoTable`] under its id: a read or write at
//! its offset in its own file (a short read at the end of a file is a success: the program gets what there was),
//! an fsync (fdatasync) for a flush. While the engine sleeps, the ring also watches the [`Doorbell`]'s eventfd, so
//! that a wait for completions ends as soon as something new arrives.
//!
//! Latency: a program with one request at a time (psync) pays every hand-over between the file system thread and
//! the engine's, and a thread woken from sleep costs tens of microseconds on a VM. So while the mount is busy (some
//! request submitted, completed or arrived in the last [`BUSY_WINDOW_NS`]) the device polls, up to [`SPIN_NS`] at a
//! time, for completions and arrivals (the doorbell's count, no system call) before it sleeps; an idle mount costs
//! no CPU. Read buffers come from a [`BufferPool`] (fresh 128 KiB buffers cost page faults and TLB shoot-downs).

use super::doorbell::Doorbell;
use super::pending::{IoTable, Work};
use crate::buffer::BufferPool;
use crate::emulate::RealDevice;
use crate::ring::{Ring, RING_FAILED_ERRNO};
use io_uring::{opcode, types};
use iosched_core::policy::StatValue;
use iosched_core::request::Request;
use iosched_device::{Completion, Device};
use std::os::fd::AsRawFd;
use std::sync::Arc;

/// How long a wait polls before sleeping, while the mount is busy.
pub const SPIN_NS: u64 = 200_000;

/// The mount counts as busy this long after its last submission, completion or arrival.
pub const BUSY_WINDOW_NS: u64 = 2_000_000;

/// The user_data of the eventfd's poll entry (tags are below the depth).
const WAKE_MARK: u64 = u64::MAX - 1;

pub struct MountDevice {
    ring: Ring,
    table: IoTable,
    /// Where read buffers come from (and go back to once the program has its data).
    buffers: BufferPool,
    /// Rung by the file system thread when it queues a request.
    doorbell: Arc<Doorbell>,
    poll_armed: bool,
    /// The last wait ended because requests arrived.
    woken: bool,
    /// The last submission, completion or arrival (ns).
    busy_at_ns: u64,
    depth: u32,
    capacity_bytes: u64,
    /// The request id each tag carries.
    tags: Vec<Option<u64>>,
    ready: Vec<Completion>,
    submitted: u64,
    completed: u64,
    errors: u64,
    /// Whether policies are told the files underneath pay for seeks, and why (said in the description).
    rotational: bool,
    rotational_why: String,
}

impl MountDevice {
    /// Tell policies whether the files underneath pay for seeks (see
    /// [`crate::block_queue::decide_rotational`]); `why` is said in the device's description.
    pub fn set_rotational(&mut self, rotational: bool, why: String) {
        self.rotational = rotational;
        self.rotational_why = why;
    }

    pub fn new(
        table: IoTable,
        buffers: BufferPool,
        doorbell: Arc<Doorbell>,
        depth: u32,
        capacity_bytes: u64,
    ) -> std::io::Result<MountDevice> {
        let depth = depth.max(1);
        Ok(MountDevice {
            ring: Ring::new(2 * depth + 2, "the mount's files".to_string())?,
            table,
            buffers,
            doorbell,
            poll_armed: false,
            woken: false,
            busy_at_ns: 0,
            depth,
            capacity_bytes,
            tags: vec![None; depth as usize],
            ready: Vec::new(),
            submitted: 0,
            completed: 0,
            errors: 0,
            rotational: false,
            rotational_why: "non-rotational".to_string(),
        })
    }

    fn reap(&mut self) {
        let (tags, table, ready) = (&mut self.tags, &self.table, &mut self.ready);
        let (mut woke, mut errors, mut completed) = (false, 0, 0);
        self.ring.reap(|user_data, result| {
            if user_data == WAKE_MARK {
                woke = true;
                return;
            }
            let tag = user_data as u32;
            let Some(id) = tags.get_mut(tag as usize).and_then(Option::take) else {
                return; // cannot happen: every entry carries a tag in flight
            };
            if let Some(io) = table.lock().expect("the I/O table's users do not panic").get_mut(&id) {
                io.result = result;
            }
            let error = if result < 0 { -result } else { 0 };
            errors += u64::from(error != 0);
            completed += 1;
            ready.push(Completion { tag, error });
        });
        if self.ring.failed() {
            // Nothing more will come off the ring: what it still had fails (the ring's error is in the log).
            let mut table = table.lock().expect("the I/O table's users do not panic");
            for (tag, slot) in tags.iter_mut().enumerate() {
                if let Some(id) = slot.take() {
                    if let Some(io) = table.get_mut(&id) {
                        io.result = -RING_FAILED_ERRNO;
                    }
                    errors += 1;
                    completed += 1;
                    ready.push(Completion { tag: tag as u32, error: RING_FAILED_ERRNO });
                }
            }
        }
        self.errors += errors;
        self.completed += completed;
        if completed > 0 {
            self.busy_at_ns = self.ring.clock_ns();
        }
        if woke {
            self.poll_armed = false;
            self.doorbell.reset();
        }
        self.answer_doorbell();
    }

    /// Whether requests arrived since the last look (noted in `woken`).
    fn answer_doorbell(&mut self) -> bool {
        if self.doorbell.answer() {
            self.busy_at_ns = self.ring.clock_ns();
            self.woken = true;
            return true;
        }
        false
    }

    /// While busy, poll up to [`SPIN_NS`] (or `until_ns`) for a completion or an arrival; true if one came.
    fn spin(&mut self, until_ns: Option<u64>) -> bool {
        let now = self.ring.clock_ns();
        if now.saturating_sub(self.busy_at_ns) > BUSY_WINDOW_NS {
            return false;
        }
        let end = until_ns.map_or(now + SPIN_NS, |u| u.min(now + SPIN_NS));
        loop {
            // Completions need a system call (the kernel posts them when asked); arrivals only a look at memory.
            if self.submitted > self.completed {
                self.ring.poll_completions();
                if self.ring.has_completions() {
                    return true;
                }
            }
            if self.answer_doorbell() {
                return true;
            }
            if self.ring.clock_ns() >= end {
                return false;
            }
            std::hint::spin_loop();
        }
    }
}

impl Device for MountDevice {
    fn describe(&self) -> String {
        format!("mount (the files underneath, through io_uring), {}", self.rotational_why)
    }

    fn rotational(&self) -> bool {
        self.rotational
    }

    fn queue_depth(&self) -> u32 {
        self.depth
    }

    fn capacity_bytes(&self) -> u64 {
        self.capacity_bytes
    }

    fn submit(&mut self, _now_ns: u64, tag: u32, req: &Request) {
        let mut table = self.table.lock().expect("the I/O table's users do not panic");
        let io = table.get_mut(&req.id.0).expect("a dispatched request was admitted");
        let fd = types::Fd(io.fd.as_raw_fd());
        let len = io.len_bytes as u32;
        let entry = match io.work {
            Work::Read => {
                // Allocated now rather than at arrival: a read waiting in the policy holds no memory.
                let buf = io.buf.insert(self.buffers.take(len as usize));
                opcode::Read::new(fd, buf.ptr, len).offset(io.file_offset_bytes).build()
            }
            Work::Write => {
                let buf = io.buf.as_ref().expect("a write carries its data");
                opcode::Write::new(fd, buf.ptr, len).offset(io.file_offset_bytes).build()
            }
            Work::Fsync { datasync: true } => opcode::Fsync::new(fd).flags(types::FsyncFlags::DATASYNC).build(),
            Work::Fsync { datasync: false } => opcode::Fsync::new(fd).build(),
        };
        drop(table);
        self.tags[tag as usize] = Some(req.id.0);
        self.submitted += 1;
        self.busy_at_ns = self.ring.clock_ns();
        // The buffer stays where it is while the request is in the table (it is heap memory the entry owns).
        self.ring.push(entry.user_data(u64::from(tag)));
    }

    fn next_event_ns(&self) -> Option<u64> {
        (!self.ready.is_empty()).then(|| self.ring.clock_ns())
    }

    fn advance(&mut self, _now_ns: u64, completed: &mut Vec<Completion>) {
        self.reap();
        completed.append(&mut self.ready);
    }

    fn stats(&self) -> Vec<(String, StatValue)> {
        vec![
            ("submitted".to_string(), StatValue::Count(self.submitted)),
            ("completed".to_string(), StatValue::Count(self.completed)),
            ("errors".to_string(), StatValue::Count(self.errors)),
            ("ring_enters".to_string(), StatValue::Count(self.ring.enters)),
        ]
    }

    fn is_live(&self) -> bool {
        true
    }

    fn wait(&mut self, until_ns: Option<u64>) -> u64 {
        self.woken = false;
        self.reap();
        if !self.poll_armed {
            let entry = opcode::PollAdd::new(types::Fd(self.doorbell.eventfd()), libc::POLLIN as u32).build();
            self.ring.push(entry.user_data(WAKE_MARK));
            self.poll_armed = true;
        }
        if self.ready.is_empty() && !self.woken && self.spin(until_ns) {
            self.reap();
            return self.ring.clock_ns();
        }
        let ready = !self.ready.is_empty() || self.woken;
        if !ready && !self.doorbell.sleep() {
            self.answer_doorbell();
            return self.ring.clock_ns();
        }
        let now = self.ring.wait(until_ns, ready, true);
        self.doorbell.awake();
        self.reap();
        now
    }
}

impl RealDevice for MountDevice {
    fn clock_ns(&self) -> u64 {
        self.ring.clock_ns()
    }

    fn busy(&self) -> bool {
        true // requests may arrive at any time
    }

    fn take_wake(&mut self) -> bool {
        std::mem::take(&mut self.woken)
    }
}
