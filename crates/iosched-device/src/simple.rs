//! simple: a device for tests and analytic checks. Every request costs a fixed latency, then its transfer at a
//! fixed bandwidth over one shared channel; up to `queue_depth` requests overlap their latencies.
//!
//! Timing of a read or write submitted at t: ready = t + latency; it transfers from max(ready, channel free)
//! for len / bandwidth. A trim costs the latency only (no data moves); a flush costs `flush_latency`.
//! Completions come in submission order, so the arithmetic is easy to check:
//! - one request at a time: IOPS = 1 / (latency + bs / bandwidth);
//! - with depth d: IOPS = min(d / (latency + bs / bandwidth), bandwidth / bs).

use crate::device::{Completion, Device};
use iosched_core::policy::StatValue;
use iosched_core::request::{Op, Request};
use iosched_core::units;
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimpleParams {
    pub latency_ns: u64,
    pub bandwidth_bytes_per_s: u64,
    pub flush_latency_ns: u64,
    pub queue_depth: u32,
    pub capacity_bytes: u64,
}

impl Default for SimpleParams {
    fn default() -> Self {
        SimpleParams {
            latency_ns: 100 * units::NS_PER_US,
            bandwidth_bytes_per_s: 500_000_000,
            flush_latency_ns: 100 * units::NS_PER_US,
            queue_depth: 32,
            capacity_bytes: 1024 * units::GIB,
        }
    }
}

pub struct SimpleDevice {
    params: SimpleParams,
    channel_free_ns: u64,
    /// (completion time, tag), in completion order.
    in_flight: VecDeque<(u64, u32)>,
    busy_ns: u64,
    commands: u64,
}

impl SimpleDevice {
    pub fn new(params: SimpleParams) -> SimpleDevice {
        SimpleDevice { params, channel_free_ns: 0, in_flight: VecDeque::new(), busy_ns: 0, commands: 0 }
    }
}

impl Device for SimpleDevice {
    fn describe(&self) -> String {
        let p = &self.params;
        format!(
            "simple,latency_us={},bandwidth_mb_per_s={},flush_us={},queue_depth={},capacity_gib={}",
            p.latency_ns as f64 / units::NS_PER_US as f64,
            p.bandwidth_bytes_per_s as f64 / 1e6,
            p.flush_latency_ns as f64 / units::NS_PER_US as f64,
            p.queue_depth,
            p.capacity_bytes as f64 / units::GIB as f64,
        )
    }

    fn queue_depth(&self) -> u32 {
        self.params.queue_depth
    }

    fn capacity_bytes(&self) -> u64 {
        self.params.capacity_bytes
    }

    fn submit(&mut self, now_ns: u64, tag: u32, req: &Request) {
        let p = &self.params;
        let done_ns = match req.op {
            Op::Read | Op::Write => {
                let start_ns = (now_ns + p.latency_ns).max(self.channel_free_ns);
                let transfer_ns = units::transfer_ns(req.len_bytes, p.bandwidth_bytes_per_s);
                self.channel_free_ns = start_ns + transfer_ns;
                self.busy_ns += transfer_ns;
                self.channel_free_ns
            }
            Op::Trim => now_ns + p.latency_ns,
            Op::Flush => now_ns + p.flush_latency_ns,
        };
        // Keep completions in submission order (a trim cannot finish before an earlier read).
        let done_ns = self.in_flight.back().map_or(done_ns, |(last, _)| done_ns.max(*last));
        self.in_flight.push_back((done_ns, tag));
        self.commands += 1;
    }

    fn next_event_ns(&self) -> Option<u64> {
        self.in_flight.front().map(|(t, _)| *t)
    }

    fn advance(&mut self, now_ns: u64, completed: &mut Vec<Completion>) {
        while let Some(&(t, tag)) = self.in_flight.front() {
            if t > now_ns {
                break;
            }
            self.in_flight.pop_front();
            completed.push(Completion { tag, error: 0 });
        }
    }

    fn stats(&self) -> Vec<(String, StatValue)> {
        vec![
            ("commands".to_string(), StatValue::Count(self.commands)),
            ("channel_busy_ns".to_string(), StatValue::Count(self.busy_ns)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_all(dev: &mut SimpleDevice) -> Vec<(u64, u32)> {
        let mut out = Vec::new();
        let mut done = Vec::new();
        while let Some(t) = dev.next_event_ns() {
            dev.advance(t, &mut done);
            out.extend(done.drain(..).map(|c| (t, c.tag)));
        }
        out
    }

    #[test]
    fn latency_overlaps_and_transfer_serialises() {
        let mut dev = SimpleDevice::new(SimpleParams {
            latency_ns: 100_000,
            bandwidth_bytes_per_s: 1_000_000_000,
            ..SimpleParams::default()
        });
        // Two 1 MB reads at t=0: both ready at 100 us; transfers 1 ms each, back to back.
        dev.submit(0, 1, &Request::new(1, Op::Read, 0, 1_000_000, 0));
        dev.submit(0, 2, &Request::new(2, Op::Read, 0, 1_000_000, 0));
        assert_eq!(run_all(&mut dev), vec![(1_100_000, 1), (2_100_000, 2)]);
    }

    #[test]
    fn trim_and_flush_cost_latency_only_but_stay_in_order() {
        let mut dev = SimpleDevice::new(SimpleParams::default());
        dev.submit(0, 1, &Request::new(1, Op::Trim, 0, 1 << 30, 0));
        dev.submit(0, 2, &Request::new(2, Op::Flush, 0, 0, 0));
        assert_eq!(run_all(&mut dev), vec![(100_000, 1), (100_000, 2)]);
    }
}
