//! One policy instance per member of a volume ([`iosched_device::volume`]): Linux schedules each disk under a
//! device-mapper volume with its own elevator, so cfq idles, as anticipates and deadline batches per disk, and
//! one disk's decisions do not hold another's requests back. This wrapper is that: it routes each request to
//! the instance of the member that holds its first byte, keeps each member's own count of requests at its disk
//! against the member's queue depth, and asks the members in turn which request goes next.

use iosched_core::policy::{merge_stats, Dispatch, DispatchContext, Policy, StatValue, WaitBound};
use iosched_core::request::Request;
use iosched_core::tunable::{TunableError, TunableSpec};
use iosched_device::volume::Members;

pub struct PerMember {
    members: Vec<Box<dyn Policy>>,
    layout: Members,
    /// Requests each member has at its disk.
    in_flight: Vec<u32>,
    /// The member asked first next time (members take turns, so no disk waits on another's backlog).
    next: usize,
}

impl PerMember {
    /// Wrap `policy`: the other members get fresh instances of the same policy with the same tunables.
    pub fn new(policy: Box<dyn Policy>, layout: Members) -> Result<PerMember, String> {
        let settings = policy.tunable_values();
        let mut members = vec![policy];
        for _ in 1..layout.count {
            let copy = iosched_core::registry::create_with(
                members[0].name(),
                settings.iter().map(|(k, v)| (k.as_str(), v.as_str())),
            )
            .map_err(|e| e.to_string())?;
            members.push(copy);
        }
        Ok(PerMember { members, layout, in_flight: vec![0; layout.count as usize], next: 0 })
    }
}

impl Policy for PerMember {
    fn name(&self) -> &'static str {
        self.members[0].name()
    }

    fn enqueue(&mut self, now_ns: u64, req: Request) {
        let m = self.layout.member_of(req.offset_bytes);
        self.members[m].enqueue(now_ns, req);
    }

    fn dispatch(&mut self, now_ns: u64, ctx: &DispatchContext) -> Dispatch {
        let n = self.members.len();
        let mut wait: Option<u64> = None;
        for k in 0..n {
            let m = (self.next + k) % n;
            if self.in_flight[m] >= self.layout.member_depth || self.members[m].queued() == 0 {
                continue;
            }
            let member_ctx =
                DispatchContext { in_flight: self.in_flight[m], device_depth: self.layout.member_depth, ..*ctx };
            match self.members[m].dispatch(now_ns, &member_ctx) {
                Dispatch::Request(req) => {
                    self.in_flight[m] += 1;
                    self.next = (m + 1) % n;
                    return Dispatch::Request(req);
                }
                Dispatch::WaitUntil(at) => wait = Some(wait.map_or(at, |w| w.min(at))),
                Dispatch::Nothing => {}
            }
        }
        wait.map_or(Dispatch::Nothing, Dispatch::WaitUntil)
    }

    fn complete(&mut self, now_ns: u64, req: &Request) {
        let m = self.layout.member_of(req.offset_bytes);
        self.in_flight[m] = self.in_flight[m].saturating_sub(1);
        self.members[m].complete(now_ns, req);
    }

    fn timer(&mut self, now_ns: u64) {
        for m in &mut self.members {
            m.timer(now_ns);
        }
    }

    fn queued(&self) -> usize {
        self.members.iter().map(|m| m.queued()).sum()
    }

    fn drain(&mut self) -> Vec<Request> {
        let mut all: Vec<Request> = self.members.iter_mut().flat_map(|m| m.drain()).collect();
        all.sort_by_key(|r| r.id.0);
        all
    }

    fn tunables(&self) -> &'static [TunableSpec] {
        self.members[0].tunables()
    }

    fn tunable(&self, name: &str) -> Result<String, TunableError> {
        self.members[0].tunable(name)
    }

    fn set_tunable(&mut self, name: &str, value: &str) -> Result<(), TunableError> {
        for m in &mut self.members {
            m.set_tunable(name, value)?;
        }
        Ok(())
    }

    fn wait_bound(&self) -> WaitBound {
        self.members[0].wait_bound()
    }

    fn stats(&self) -> Vec<(&'static str, StatValue)> {
        merge_stats(self.members.iter().map(|m| m.stats()), self.members.len())
    }
}
