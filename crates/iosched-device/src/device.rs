//! The interface between an engine and a device model.
//!
//! A device is an event source with its own queue: the engine submits requests (never more than
//! [`Device::queue_depth`] at once, and only while [`Device::can_accept`]), asks when the device's next internal
//! event happens ([`Device::next_event_ns`]: a completion, or something internal such as an SSD's garbage
//! collection step), and advances it to that time, collecting completions. A model never reads a clock.

use iosched_core::policy::StatValue;
use iosched_core::request::Request;

/// A request the device has finished, by the tag the engine gave it at submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub tag: u32,
    /// 0 for success, else an errno-style code: the request failed and only it is completed with the error.
    pub error: i32,
}

pub trait Device: Send {
    /// The canonical spec of this device (every parameter, so a report says exactly what ran).
    fn describe(&self) -> String;

    /// Most requests outstanding at once (SATA NCQ 32, a disk without queueing 1).
    fn queue_depth(&self) -> u32;

    /// Addressable bytes.
    fn capacity_bytes(&self) -> u64;

    /// Whether seeks cost time (a hard disk), as Linux's `queue/rotational`: policies that idle to save seeks
    /// (cfq, bfq) do so only on rotational devices.
    fn rotational(&self) -> bool {
        false
    }

    /// Whether a new command may be submitted now (a device blocked by a non-queued command says no).
    fn can_accept(&self, now_ns: u64) -> bool {
        let _ = now_ns;
        true
    }

    /// Start a request at `now_ns`. `tag` identifies it in the completion.
    fn submit(&mut self, now_ns: u64, tag: u32, req: &Request);

    /// Start a trim of several ranges in one command (NVMe Dataset Management or SCSI UNMAP with several
    /// ranges; fio's num_range): `ranges` are (offset, length), `req` the command, its length their total.
    /// By default a device serves it as a trim of its first range: right for devices whose trims keep no
    /// state and cost the same whatever they cover (the disk models, `simple`); the SSD model and volumes
    /// deallocate every range.
    fn submit_trim_ranges(&mut self, now_ns: u64, tag: u32, req: &Request, ranges: &[(u64, u64)]) {
        let (offset_bytes, len_bytes) = ranges.first().copied().unwrap_or((req.offset_bytes, req.len_bytes));
        self.submit(now_ns, tag, &Request { offset_bytes, len_bytes, ..*req });
    }

    /// When the next internal event happens, if any is pending.
    fn next_event_ns(&self) -> Option<u64>;

    /// Process every internal event due at or before `now_ns`, appending finished requests to `completed` in
    /// the order they finished.
    fn advance(&mut self, now_ns: u64, completed: &mut Vec<Completion>);

    /// Counters and gauges by name, in a stable order.
    fn stats(&self) -> Vec<(String, StatValue)> {
        Vec::new()
    }

    /// What the device made of the command it last began to serve, in a word ("hit", "miss", ...), for reports
    /// that break results down by it; `None` for a device that does not say.
    fn last_service(&self) -> Option<&'static str> {
        None
    }

    /// A volume of several disks: how it is laid out, so that the engine can give each member its own policy.
    fn members(&self) -> Option<crate::volume::Members> {
        None
    }

    /// Whether this is real I/O on the real clock (the live engine): its completions come when they come, not at
    /// times it can tell in advance, so the engine waits on it instead of jumping to [`Device::next_event_ns`].
    fn is_live(&self) -> bool {
        false
    }

    /// Live devices: block until a completion can be collected by [`Device::advance`] or the clock reaches
    /// `until_ns` (None: until a completion), and return the clock's time in ns since the device was opened.
    /// Simulated devices are never asked.
    fn wait(&mut self, until_ns: Option<u64>) -> u64 {
        until_ns.unwrap_or(0)
    }
}
