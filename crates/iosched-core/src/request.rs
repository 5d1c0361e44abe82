//! A request and the words that describe it: operation, flow, I/O class and level, timestamps.

use serde::{Deserialize, Serialize};

/// What a request asks the device to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
    /// Discard: the data in the range is no longer needed (ATA TRIM, SCSI UNMAP, NVMe deallocate).
    Trim,
    /// Cache flush. A barrier: the engine dispatches it only after everything queued before it has completed,
    /// and dispatches nothing queued after it until it completes. Policies never see flushes.
    Flush,
}

impl Op {
    /// Index into per-direction arrays (read 0, write 1, trim 2, flush 3).
    pub fn index(self) -> usize {
        match self {
            Op::Read => 0,
            Op::Write => 1,
            Op::Trim => 2,
            Op::Flush => 3,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
            Op::Flush => "flush",
        }
    }
}

/// I/O scheduling class, as ionice and Linux's ioprio set it. Ordered by priority: `Rt < Be < Idle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum IoClass {
    Rt,
    Be,
    Idle,
}

impl IoClass {
    /// From fio's and ioprio's numbering: 1 RT, 2 BE, 3 IDLE (0, "none", counts as BE).
    pub fn from_ioprio_class(class: u32) -> Option<IoClass> {
        match class {
            0 | 2 => Some(IoClass::Be),
            1 => Some(IoClass::Rt),
            3 => Some(IoClass::Idle),
            _ => None,
        }
    }
}

/// The highest priority level within a class; 0 is the most important.
pub const LEVEL_MAX: u8 = 7;
/// Level used when nothing sets one (Linux's default for a nice-0 process).
pub const LEVEL_DEFAULT: u8 = 4;

/// The unit of fairness: a process or thread, a fio job clone, a trace's stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Default)]
pub struct FlowId(pub u32);

/// Unique within one run, in order of arrival at the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Default)]
pub struct RequestId(pub u64);

/// A timestamp that has not happened yet.
pub const NOT_YET_NS: u64 = u64::MAX;

/// One I/O request. Small and `Copy`: policies keep requests by value in their own queues, so the hot path
/// does no allocation per request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub id: RequestId,
    pub op: Op,
    pub offset_bytes: u64,
    pub len_bytes: u64,
    pub flow: FlowId,
    pub class: IoClass,
    /// 0 (highest) to [`LEVEL_MAX`].
    pub level: u8,
    /// The issuer waits for it (a read, an O_DIRECT or O_SYNC write); asynchronous write-back is not sync.
    pub sync: bool,
    /// Entered the scheduler.
    pub queued_ns: u64,
    /// Sent to the device, or [`NOT_YET_NS`].
    pub dispatched_ns: u64,
    /// Completed by the device, or [`NOT_YET_NS`].
    pub completed_ns: u64,
    /// How the device completed it: 0, or the errno it failed with. Set with `completed_ns`.
    pub error: i32,
    /// A read of data the same job wrote earlier, to be checked (fio's verify): a live device checks what it
    /// reads and fails the request with EILSEQ when the data is not what was written there.
    pub verify: bool,
    /// Forced unit access (SCSI/NVMe FUA, fio's readfua/writefua): a write completes only once its data is on
    /// the media, and a read is served from the media, not from the drive's cache.
    pub fua: bool,
}

impl Request {
    /// A best-effort, level-4 request with no timestamps yet.
    pub fn new(id: u64, op: Op, offset_bytes: u64, len_bytes: u64, flow: u32) -> Request {
        Request {
            id: RequestId(id),
            op,
            offset_bytes,
            len_bytes,
            flow: FlowId(flow),
            class: IoClass::Be,
            level: LEVEL_DEFAULT,
            sync: op == Op::Read,
            queued_ns: NOT_YET_NS,
            dispatched_ns: NOT_YET_NS,
            completed_ns: NOT_YET_NS,
            error: 0,
            verify: false,
            fua: false,
        }
    }

    /// One past the last byte.
    pub fn end_bytes(&self) -> u64 {
        self.offset_bytes + self.len_bytes
    }

    /// Time spent in the scheduler, from queued to dispatched.
    pub fn queue_wait_ns(&self) -> u64 {
        self.dispatched_ns.saturating_sub(self.queued_ns)
    }

    /// Time at the device, from dispatched to completed.
    pub fn service_ns(&self) -> u64 {
        self.completed_ns.saturating_sub(self.dispatched_ns)
    }

    /// From queued to completed.
    pub fn total_ns(&self) -> u64 {
        self.completed_ns.saturating_sub(self.queued_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_order_by_priority() {
        assert!(IoClass::Rt < IoClass::Be && IoClass::Be < IoClass::Idle);
        assert_eq!(IoClass::from_ioprio_class(1), Some(IoClass::Rt));
        assert_eq!(IoClass::from_ioprio_class(3), Some(IoClass::Idle));
        assert_eq!(IoClass::from_ioprio_class(4), None);
    }

    #[test]
    fn request_is_small() {
        // Policies copy requests around; keep them within one cache line.
        assert!(std::mem::size_of::<Request>() <= 64, "{}", std::mem::size_of::<Request>());
    }

    #[test]
    fn durations() {
        let mut r = Request::new(1, Op::Read, 4096, 512, 3);
        r.queued_ns = 10;
        r.dispatched_ns = 15;
        r.completed_ns = 40;
        assert_eq!((r.queue_wait_ns(), r.service_ns(), r.total_ns()), (5, 25, 30));
        assert_eq!(r.end_bytes(), 4608);
    }
}
