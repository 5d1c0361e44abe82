//! A running engine's live view of its flows, for `iosched top` and the metrics endpoint: counts since the start
//! (a viewer takes rates from two snapshots) and the queues as they are at the moment it is taken.

use crate::request::IoClass;
use serde::{Deserialize, Serialize};

/// Completed requests of one direction since the flow's start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectionCounts {
    pub ios: u64,
    pub bytes: u64,
    pub errors: u64,
    /// The sum of their latencies, arrival to completion.
    pub latency_sum_ns: u64,
}

impl DirectionCounts {
    /// What completed between `earlier` and `self` (counts only grow).
    pub fn since(&self, earlier: &DirectionCounts) -> DirectionCounts {
        DirectionCounts {
            ios: self.ios.saturating_sub(earlier.ios),
            bytes: self.bytes.saturating_sub(earlier.bytes),
            errors: self.errors.saturating_sub(earlier.errors),
            latency_sum_ns: self.latency_sum_ns.saturating_sub(earlier.latency_sum_ns),
        }
    }

    pub fn add(&mut self, other: &DirectionCounts) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.errors += other.errors;
        self.latency_sum_ns += other.latency_sum_ns;
    }
}

/// One flow (a job, or a process using a mount).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowSnapshot {
    /// Its index in the run (stable while the run lasts).
    pub flow: u32,
    pub name: String,
    /// The class and level of its latest request.
    pub class: IoClass,
    pub level: u8,
    pub reads: DirectionCounts,
    pub writes: DirectionCounts,
    pub trims: DirectionCounts,
    pub flushes: DirectionCounts,
    /// Requests waiting in the policy (or behind a flush barrier) now.
    pub queued: u32,
    /// Requests at the device now.
    pub in_flight: u32,
    /// When its first request arrived, on the engine's clock (None: none yet).
    #[serde(default)]
    pub first_ns: Option<u64>,
}

impl FlowSnapshot {
    /// Reads, writes and trims together (flushes move no data).
    pub fn data(&self) -> DirectionCounts {
        let mut all = self.reads;
        all.add(&self.writes);
        all.add(&self.trims);
        all
    }
}

/// Every flow of a running engine at one moment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowsSnapshot {
    pub policy: String,
    pub device: String,
    /// The engine's clock when it was taken (ns since the run started).
    pub elapsed_ns: u64,
    pub policy_switches: u32,
    pub flows: Vec<FlowSnapshot>,
}
