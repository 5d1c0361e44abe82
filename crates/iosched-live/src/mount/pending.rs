//! The reads, writes and fsyncs a mount has taken from programs and not yet answered, and the engine's inlet for
//! them.
//!
//! The file system thread turns each FUSE read, write or fsync into an [`Incoming`]: the engine's view of it (an
//! [`Issue`]: flow, class, level, placed offset) and the real work ([`PendingIo`]: the open file, the offset in
//! it, the buffer, the reply to send). It queues it for the engine and writes the device's eventfd. The engine's
//! [`MountInlet`] admits it (the pending I/O moves to the [`IoTable`] under the request id it got), the device
//! performs it when the policy dispatches it, and on completion the inlet answers the program. Every request is
//! answered exactly once: with its result, or with an error if the engine is stopping and refuses it.

use crate::buffer::AlignedBuf;
use fuser::{ReplyData, ReplyEmpty, ReplyWrite};
use iosched_core::request::{FlowId, Op, Request, RequestId};
use iosched_sim::inlet::{Arrival, Inlet};
use iosched_sim::source::Issue;
use std::collections::{HashMap, VecDeque};
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};

/// What the device does for a request.
pub enum Work {
    Read,
    Write,
    Fsync { datasync: bool },
}

impl Work {
    /// What policies see: an fsync is a flush (a barrier).
    pub fn op(&self) -> Op {
        match self {
            Work::Read => Op::Read,
            Work::Write => Op::Write,
            Work::Fsync { .. } => Op::Flush,
        }
    }
}

/// The program's reply, sent once the request completes.
pub enum Answer {
    Data(ReplyData),
    Written(ReplyWrite),
    Empty(ReplyEmpty),
}

impl Answer {
    /// Fail the program's request with `errno`.
    pub fn error(self, errno: i32) {
        match self {
            Answer::Data(r) => r.error(errno),
            Answer::Written(r) => r.error(errno),
            Answer::Empty(r) => r.error(errno),
        }
    }
}

pub struct PendingIo {
    /// The open file (shared with its handle, so that a release while the I/O runs does not close it).
    pub fd: Arc<OwnedFd>,
    pub file_offset_bytes: u64,
    pub len_bytes: usize,
    pub work: Work,
    /// The data to write; for a read, the room for its data, allocated by the device when it is dispatched.
    pub buf: Option<AlignedBuf>,
    pub answer: Answer,
    /// Bytes moved (or 0), or minus the errno: set by the device.
    pub result: i32,
}

/// One request from the file system thread.
pub struct Incoming {
    pub issue: Issue,
    pub io: PendingIo,
    /// The caller's process is new: its flow's name.
    pub new_flow: Option<String>,
}

/// Admitted requests by engine request id, shared by the inlet and the device (both on the engine's thread).
pub type IoTable = Arc<Mutex<HashMap<u64, PendingIo>>>;

pub struct MountInlet {
    incoming: Receiver<Incoming>,
    /// Set once the file system thread has ended (the mount is gone): nothing more comes.
    closed: Arc<AtomicBool>,
    /// Taken, not yet admitted, by token.
    waiting: VecDeque<(u64, PendingIo)>,
    next_token: u64,
    table: IoTable,
    names: Vec<String>,
}

impl MountInlet {
    pub fn new(incoming: Receiver<Incoming>, closed: Arc<AtomicBool>, table: IoTable) -> MountInlet {
        MountInlet { incoming, closed, waiting: VecDeque::new(), next_token: 0, table, names: Vec::new() }
    }

    fn take_waiting(&mut self, token: u64) -> PendingIo {
        let (t, io) = self.waiting.pop_front().expect("the engine admits what it took, in order");
        assert_eq!(t, token, "the engine admits arrivals in the order it took them");
        io
    }
}

impl Inlet for MountInlet {
    fn take(&mut self, out: &mut Vec<Arrival>) -> bool {
        let open = !self.closed.load(Ordering::Acquire);
        for incoming in self.incoming.try_iter() {
            if let Some(name) = incoming.new_flow {
                debug_assert_eq!(incoming.issue.flow.0 as usize, self.names.len());
                self.names.push(name);
            }
            let token = self.next_token;
            self.next_token += 1;
            self.waiting.push_back((token, incoming.io));
            out.push(Arrival { issue: incoming.issue, token });
        }
        open
    }

    fn admitted(&mut self, token: u64, id: RequestId) {
        let io = self.take_waiting(token);
        self.table.lock().expect("the I/O table's users do not panic").insert(id.0, io);
    }

    fn refused(&mut self, token: u64) {
        answer(self.take_waiting(token), libc::EIO);
    }

    fn completed(&mut self, req: &Request) {
        let io = self.table.lock().expect("the I/O table's users do not panic").remove(&req.id.0);
        let io = io.expect("a completed request was admitted");
        answer(io, req.error);
    }

    fn flow_name(&self, flow: FlowId) -> String {
        self.names.get(flow.0 as usize).cloned().unwrap_or_else(|| format!("flow {}", flow.0))
    }
}

/// Answer the program: with `error` if set, else with the device's result.
fn answer(io: PendingIo, error: i32) {
    let error = if error != 0 { error } else { (-io.result).max(0) };
    let moved = io.result.max(0) as usize;
    if error != 0 {
        return io.answer.error(error);
    }
    match io.answer {
        Answer::Data(reply) => {
            let buf = io.buf.as_ref().expect("a dispatched read has a buffer");
            reply.data(buf.written(moved.min(io.len_bytes)));
        }
        Answer::Written(reply) => reply.written(moved as u32),
        Answer::Empty(reply) => reply.ok(),
    }
}
