//! The `Policy` interface: the hooks every scheduling algorithm implements, used unchanged by the simulated and
//! the live engine.
//!
//! It follows FreeBSD geom_sched's hooks (`gs_start`, `gs_next`, `gs_done`, a timer) and CAM's
//! `cam_iosched_next_bio`. A policy never reads a clock, sleeps, does I/O or allocates per request on its hot
//! path: the engine passes `now_ns` in, and a policy that wants to wait (anticipation, idling, a rate limiter)
//! answers [`Dispatch::WaitUntil`]. The engine, not the policy, enforces the device queue depth and flush
//! barriers: flushes never reach a policy, and `dispatch` is only asked when the device has room.

use crate::request::Request;
use crate::tunable::{TunableError, TunableSpec};
use serde::Serialize;

/// The answer to "what should the device do next?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// Send this request to the device now.
    Request(Request),
    /// Nothing before this time (ns). The engine calls [`Policy::timer`] at or after it, then asks again.
    /// The time must be later than `now_ns`.
    WaitUntil(u64),
    /// Nothing to dispatch, and no reason to be woken: ask again after the next enqueue or completion.
    Nothing,
}

/// What the engine tells a policy when it asks for a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DispatchContext {
    /// Requests at the device now.
    pub in_flight: u32,
    /// The most the device takes at once (the engine never asks when `in_flight == device_depth`).
    pub device_depth: u32,
    /// A flush is waiting for everything the policy holds: do not hold requests back for anticipation,
    /// batching or idling. Rate limits may still apply.
    pub barrier_pending: bool,
    /// The device pays for seeks (a hard disk); see `Device::rotational`.
    pub rotational: bool,
}

/// How long a request can wait in a policy: the bound the property tests assert on adversarial workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitBound {
    /// At most this many requests enqueued after a request are dispatched before it.
    Overtakes(u64),
    /// The policy makes no promise with its current tunables (the reason is in its description).
    Unbounded,
}

/// A statistic a policy exposes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StatValue {
    Count(u64),
    Value(f64),
}

/// Several parts' statistics as one (the disks of a volume, a policy instance per disk): counters summed by
/// name, values averaged over the `parts` parts, in the order names first appear.
pub fn merge_stats<K: PartialEq>(
    stats: impl IntoIterator<Item = Vec<(K, StatValue)>>,
    parts: usize,
) -> Vec<(K, StatValue)> {
    let n = parts.max(1) as f64;
    let mut out: Vec<(K, StatValue)> = Vec::new();
    for (name, value) in stats.into_iter().flatten() {
        match (out.iter_mut().find(|(k, _)| *k == name), value) {
            (Some((_, StatValue::Count(c))), StatValue::Count(v)) => *c += v,
            (Some((_, StatValue::Value(x))), StatValue::Value(v)) => *x += v / n,
            (Some(_), _) => {}
            (None, StatValue::Value(v)) => out.push((name, StatValue::Value(v / n))),
            (None, v) => out.push((name, v)),
        }
    }
    out
}

/// A scheduling algorithm.
pub trait Policy: Send {
    /// The registry name.
    fn name(&self) -> &'static str;

    /// A request enters the scheduler. `req.queued_ns == now_ns`. Never a flush.
    fn enqueue(&mut self, now_ns: u64, req: Request);

    /// The device has room: which request next, if any?
    fn dispatch(&mut self, now_ns: u64, ctx: &DispatchContext) -> Dispatch;

    /// A request this policy dispatched has completed (timestamps filled in).
    fn complete(&mut self, now_ns: u64, req: &Request);

    /// A time asked for with [`Dispatch::WaitUntil`] has come. The engine asks for a dispatch right after.
    fn timer(&mut self, now_ns: u64) {
        let _ = now_ns;
    }

    /// Requests held now.
    fn queued(&self) -> usize;

    /// Hand over every held request, in the order they were enqueued, and forget them. Used when the policy is
    /// switched: the engine enqueues them into the new policy in this order, so nothing is lost or reordered
    /// across a flush. Requests already dispatched are not returned; their completions go to the old policy's
    /// successor, which must accept completions of requests it never saw.
    fn drain(&mut self) -> Vec<Request>;

    /// The tunables this policy has, with defaults and one-line descriptions.
    fn tunables(&self) -> &'static [TunableSpec];

    /// A tunable's current value, as text that [`Policy::set_tunable`] accepts.
    fn tunable(&self, name: &str) -> Result<String, TunableError>;

    /// Every tunable's current value, for reports: by default one pair per [`TunableSpec`]. A policy with
    /// per-flow tunables (bfq's `weight.FLOW`) lists the ones that are set instead of the pattern.
    fn tunable_values(&self) -> Vec<(String, String)> {
        self.tunables().iter().map(|t| (t.name.to_string(), self.tunable(t.name).unwrap_or_default())).collect()
    }

    /// Set a tunable, validated; on error nothing changes.
    fn set_tunable(&mut self, name: &str, value: &str) -> Result<(), TunableError>;

    /// The bound on waiting with the current tunables.
    fn wait_bound(&self) -> WaitBound;

    /// Counters and gauges, by name, in a stable order.
    fn stats(&self) -> Vec<(&'static str, StatValue)> {
        Vec::new()
    }
}

#[cfg(test)]
mod merge_tests {
    use super::*;

    #[test]
    fn merged_stats_sum_counters_and_average_values() {
        let a = vec![("hits", StatValue::Count(3)), ("busy", StatValue::Value(0.5))];
        let b = vec![("busy", StatValue::Value(1.0)), ("hits", StatValue::Count(4)), ("only_b", StatValue::Count(1))];
        let merged = merge_stats([a, b], 2);
        assert_eq!(
            merged,
            vec![("hits", StatValue::Count(7)), ("busy", StatValue::Value(0.75)), ("only_b", StatValue::Count(1))]
        );
    }
}
