//! simpledisk: DiskSim 4.0's fixed-access-time disk (`disksim_simpledisk`, src/disksim_simpledisk.c), timed as
//! DiskSim's code times it. Every request costs the same media access whatever its address; what varies is its
//! transfer (blocks times the slower of the disk's and the buses' block transfer times) and the bus messages it
//! sends, each `bus_transaction_ns` on its way up.
//!
//! A request submitted at t is taken by the drive at t + `command_overhead_ns` (the overhead of a request that
//! arrives while another is served overlaps that service). The drive serves one request at a time, first come,
//! first served; it starts a request when it is taken or when the one before has completed, whichever is later.
//! From its start, with L the bus transaction latency and X the transfer:
//! - read: media access, then (unless it never disconnects) a reconnect message L, the transfer X and the
//!   completion message L: access + [L] + X + L;
//! - write: a ready-to-transfer (or reconnect) message L and the transfer X, then (unless it never disconnects)
//!   a disconnect it does not wait for, the media access, a reconnect message [L] and the completion message L:
//!   L + X + access + [L] + L.
//!
//! These are DiskSim's event chains (simpledisk_request_arrive, _access_complete, _reconnect_done,
//! _bustransfer_complete, _completion_done) with the controller and driver passing messages on at once, as the
//! shipped synthsimpledisk.parv's do; the_simple_disk_takes_disksims_times (iosched-sim's
//! tests/disksim_conformance.rs) holds them against DiskSim's own times.
//!
//! DiskSim's simpledisk has no cache and no flush or trim command: here a flush or a trim, after its command
//! overhead, waits for the requests before it and completes with one message (an approximation: the drive has
//! nothing to write back or unmap).

use crate::device::{Completion, Device};
use iosched_core::policy::StatValue;
use iosched_core::request::{Op, Request};
use iosched_core::units::SECTOR_BYTES;
use std::collections::VecDeque;

/// A `disksim_simpledisk`, its times in ns.
#[derive(Clone, Debug, PartialEq)]
pub struct SimpleDiskParams {
    /// What the drive is called in reports (its file and block).
    pub name: String,
    pub blocks: u64,
    /// "Access time": the media access of every request.
    pub access_ns: f64,
    /// "Command overhead": from a request's arrival to the drive taking it.
    pub command_overhead_ns: f64,
    /// "Bus transaction latency": each message the drive sends up (ready, reconnect, completion).
    pub bus_transaction_ns: f64,
    /// A block's transfer: "Bulk sector transfer time", or the slowest bus on the drive's path where that is
    /// slower (DiskSim's simpledisk_get_blktranstime), for reads and for writes.
    pub read_ns_per_block: f64,
    pub write_ns_per_block: f64,
    /// "Never disconnect": the drive holds the bus through the media access, saving a reconnect.
    pub never_disconnect: bool,
    /// "Max queue length": most requests queued at the drive (at least 1).
    pub queue_depth: u32,
}

impl SimpleDiskParams {
    /// How long the drive works on a request it starts, ns.
    pub fn service_ns(&self, op: Op, blocks: u64) -> f64 {
        let message = self.bus_transaction_ns;
        let reconnect = if self.never_disconnect { 0.0 } else { message };
        match op {
            Op::Read => self.access_ns + reconnect + blocks as f64 * self.read_ns_per_block + message,
            Op::Write => message + blocks as f64 * self.write_ns_per_block + self.access_ns + reconnect + message,
            Op::Flush | Op::Trim => message,
        }
    }
}

pub struct SimpleDisk {
    p: SimpleDiskParams,
    /// Requests taken or about to be: (tag, when the drive takes it, its service), in arrival order.
    queue: VecDeque<(u32, f64, f64)>,
    /// The request being served: (tag, completion time).
    current: Option<(u32, f64)>,
    reads: u64,
    writes: u64,
    busy_ns: f64,
}

impl SimpleDisk {
    pub fn new(p: SimpleDiskParams) -> SimpleDisk {
        SimpleDisk { p, queue: VecDeque::new(), current: None, reads: 0, writes: 0, busy_ns: 0.0 }
    }

    pub fn params(&self) -> &SimpleDiskParams {
        &self.p
    }

    /// Start the next queued request, the drive being free from `free_ns`.
    fn start_next(&mut self, free_ns: f64) {
        if self.current.is_some() {
            return;
        }
        if let Some((tag, taken_ns, service_ns)) = self.queue.pop_front() {
            let start_ns = taken_ns.max(free_ns);
            self.busy_ns += service_ns;
            self.current = Some((tag, start_ns + service_ns));
        }
    }
}

impl Device for SimpleDisk {
    fn describe(&self) -> String {
        self.p.name.clone()
    }

    fn queue_depth(&self) -> u32 {
        self.p.queue_depth.max(1)
    }

    fn capacity_bytes(&self) -> u64 {
        self.p.blocks * SECTOR_BYTES
    }

    fn submit(&mut self, now_ns: u64, tag: u32, req: &Request) {
        let blocks = req.len_bytes.div_ceil(SECTOR_BYTES).max(1);
        match req.op {
            Op::Read => self.reads += 1,
            Op::Write => self.writes += 1,
            _ => {}
        }
        let taken_ns = now_ns as f64 + self.p.command_overhead_ns;
        self.queue.push_back((tag, taken_ns, self.p.service_ns(req.op, blocks)));
        // An idle drive has been free since before now, and the request is taken after now.
        self.start_next(0.0);
    }

    fn next_event_ns(&self) -> Option<u64> {
        self.current.map(|(_, done)| done.ceil() as u64)
    }

    fn advance(&mut self, now_ns: u64, completed: &mut Vec<Completion>) {
        while let Some((tag, done)) = self.current {
            if done.ceil() as u64 > now_ns {
                break;
            }
            self.current = None;
            completed.push(Completion { tag, error: 0 });
            self.start_next(done);
        }
    }

    fn stats(&self) -> Vec<(String, StatValue)> {
        vec![
            ("reads".into(), StatValue::Count(self.reads)),
            ("writes".into(), StatValue::Count(self.writes)),
            ("busy_ns".into(), StatValue::Count(self.busy_ns.round() as u64)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// synthsimpledisk.parv's drive with a bus latency and a transfer time, as the tests against DiskSim set them.
    fn params(never_disconnect: bool) -> SimpleDiskParams {
        SimpleDiskParams {
            name: "test".into(),
            blocks: 100_000,
            access_ns: 9.5e6,
            command_overhead_ns: 0.5e6,
            bus_transaction_ns: 0.1e6,
            read_ns_per_block: 0.01e6,
            write_ns_per_block: 0.03e6,
            never_disconnect,
            queue_depth: 4,
        }
    }

    fn run(d: &mut SimpleDisk, submits: &[(u64, Op, u64)]) -> Vec<(u32, u64)> {
        let mut done = Vec::new();
        let mut out = Vec::new();
        for (tag, &(at, op, blocks)) in submits.iter().enumerate() {
            while let Some(t) = d.next_event_ns().filter(|t| *t <= at) {
                d.advance(t, &mut done);
                out.extend(done.drain(..).map(|c| (c.tag, t)));
            }
            d.submit(at, tag as u32, &Request::new(tag as u64, op, 0, blocks * SECTOR_BYTES, 0));
        }
        while let Some(t) = d.next_event_ns() {
            d.advance(t, &mut done);
            out.extend(done.drain(..).map(|c| (c.tag, t)));
        }
        out
    }

    #[test]
    fn a_lone_request_costs_overhead_access_transfer_and_its_messages() {
        // The figures DiskSim 4.0 prints for these requests (IOdriver Physical access time), 10 blocks each.
        for (nd, op, ms) in
            [(false, Op::Read, 10.3), (true, Op::Read, 10.2), (false, Op::Write, 10.6), (true, Op::Write, 10.5)]
        {
            let mut d = SimpleDisk::new(params(nd));
            let out = run(&mut d, &[(0, op, 10)]);
            assert_eq!(out, vec![(0, (ms * 1e6_f64).round() as u64)], "{op:?} never_disconnect={nd}");
        }
    }

    #[test]
    fn queued_requests_go_first_come_first_served_their_overheads_overlapping_the_service() {
        let mut d = SimpleDisk::new(params(false));
        // Three reads at once: each taken at 0.5 ms, served one after the other.
        let out = run(&mut d, &[(0, Op::Read, 10), (0, Op::Read, 10), (0, Op::Read, 10)]);
        let one = 9.8e6; // 9.5 + 0.1 + 0.1 + 0.1
        assert_eq!(out, vec![(0, 10_300_000), (1, (0.5e6 + 2.0 * one) as u64), (2, (0.5e6 + 3.0 * one) as u64)]);
        // A request that arrives after the drive went idle waits for its own overhead only.
        let mut d = SimpleDisk::new(params(false));
        let out = run(&mut d, &[(0, Op::Read, 10), (20_000_000, Op::Read, 10)]);
        assert_eq!(out[1], (1, 30_300_000));
    }

    #[test]
    fn a_flush_waits_for_the_requests_before_it() {
        let mut d = SimpleDisk::new(params(false));
        let out = run(&mut d, &[(0, Op::Write, 10), (0, Op::Flush, 0)]);
        assert_eq!(out, vec![(0, 10_600_000), (1, 10_700_000)]);
    }
}
