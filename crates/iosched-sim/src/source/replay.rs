//! The processes that replay a list of requests (a trace or an MQSim trace flow): [`TimedProcess`] at the
//! requests' own times, [`ClosedProcess`] in order with a fixed number outstanding.

use super::Issue;
use crate::workload::TimedIo;
use iosched_core::request::FlowId;

/// An open-loop list of requests (a trace replayed at its times), each issued when due whatever the device does.
pub struct TimedProcess {
    requests: Vec<TimedIo>,
    /// Flow of each stream number.
    flows: Vec<(u32, FlowId)>,
    next: usize,
}

impl TimedProcess {
    /// `flows` maps each stream number of `requests` to its flow.
    pub fn new(requests: Vec<TimedIo>, mut flows: Vec<(u32, FlowId)>) -> TimedProcess {
        flows.sort_unstable();
        TimedProcess { requests, flows, next: 0 }
    }

    /// When the first request is due.
    pub fn first_ns(&self) -> Option<u64> {
        self.requests.first().map(|r| r.at_ns)
    }

    /// Issue everything due by `now_ns`; returns when the next request is due.
    pub fn wake(&mut self, now_ns: u64, out: &mut Vec<Issue>) -> Option<u64> {
        while let Some(r) = self.requests.get(self.next) {
            if r.at_ns > now_ns {
                return Some(r.at_ns);
            }
            out.push(issue_of(r, flow_of(&self.flows, r.stream)));
            self.next += 1;
        }
        None
    }
}

/// Flows of a request list's streams: (stream, flow), sorted by stream.
fn flow_of(flows: &[(u32, FlowId)], stream: u32) -> FlowId {
    let at = flows.binary_search_by_key(&stream, |(s, _)| *s);
    flows[at.expect("every stream was given a flow")].1
}

fn issue_of(r: &TimedIo, flow: FlowId) -> Issue {
    Issue {
        op: r.op,
        offset_bytes: r.offset_bytes,
        len_bytes: r.len_bytes,
        flow,
        class: r.class,
        level: r.level,
        sync: r.sync,
        verify: false,
        fua: r.fua,
        trim_ranges: false,
    }
}

/// A list of requests issued in order, a fixed number outstanding (a trace replayed closed-loop).
pub struct ClosedProcess {
    requests: Vec<TimedIo>,
    flows: Vec<(u32, FlowId)>,
    next: usize,
    depth: u32,
    in_flight: u32,
}

impl ClosedProcess {
    pub fn new(requests: Vec<TimedIo>, mut flows: Vec<(u32, FlowId)>, depth: u32) -> ClosedProcess {
        flows.sort_unstable();
        ClosedProcess { requests, flows, next: 0, depth: depth.max(1), in_flight: 0 }
    }

    /// Issue while fewer than the depth are outstanding.
    pub fn fill(&mut self, out: &mut Vec<Issue>) {
        while self.in_flight < self.depth {
            let Some(r) = self.requests.get(self.next) else { return };
            out.push(issue_of(r, flow_of(&self.flows, r.stream)));
            self.next += 1;
            self.in_flight += 1;
        }
    }

    pub fn complete(&mut self, out: &mut Vec<Issue>) {
        self.in_flight -= 1;
        self.fill(out);
    }
}
