//! A volume of several identical disks concatenated, as LVM's linear mapping (or md's linear personality) lays
//! them out: member i holds bytes [i x size, (i + 1) x size) of the volume. Each member is its own device with its
//! own queue; the engine gives each its own instance of the policy (Linux schedules each disk under a
//! device-mapper volume separately), see [`Members`].
//!
//! Spec: `volume:N:MEMBER_SPEC` (for example `volume:3:hdd:sata7200,queue_depth=1`; keys go to every member).
//! Approximation: a request that crosses from one member into the next is served whole by the member holding
//! its first byte (LVM splits such a request in two); a flush goes to every member and completes when the last
//! has finished.

use crate::device::{Completion, Device};
use iosched_core::policy::{merge_stats, StatValue};
use iosched_core::request::{Op, Request};

/// How a volume is laid out, for the engine that gives each member its own policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Members {
    pub count: u32,
    /// Bytes of each member.
    pub member_bytes: u64,
    /// Each member's queue depth.
    pub member_depth: u32,
}

impl Members {
    /// The member holding byte `offset_bytes` of the volume.
    pub fn member_of(&self, offset_bytes: u64) -> usize {
        ((offset_bytes / self.member_bytes.max(1)) as usize).min(self.count as usize - 1)
    }
}

pub struct Volume {
    members: Vec<Box<dyn Device>>,
    layout: Members,
    /// By the engine's tag: the member and how many of its parts are still out (a flush has one per member).
    outstanding: Vec<Option<(usize, u32)>>,
    /// Member tags: member m's tag t is the engine's tag `member_tags[m][t]`.
    member_tags: Vec<Vec<Option<u32>>>,
    done: Vec<Completion>,
}

impl Volume {
    /// `members` must be alike (the same spec); the volume's capacity is their sum.
    pub fn new(members: Vec<Box<dyn Device>>) -> Result<Volume, String> {
        let first = members.first().ok_or("a volume needs at least one member")?;
        let layout = Members {
            count: members.len() as u32,
            member_bytes: first.capacity_bytes(),
            member_depth: first.queue_depth().max(1),
        };
        let member_tags = members.iter().map(|m| vec![None; m.queue_depth().max(1) as usize + 1]).collect();
        Ok(Volume { members, layout, outstanding: Vec::new(), member_tags, done: Vec::new() })
    }

    pub fn layout(&self) -> Members {
        self.layout
    }

    fn member_tag(&mut self, member: usize, tag: u32) -> u32 {
        let tags = &mut self.member_tags[member];
        let free = tags.iter().position(Option::is_none).unwrap_or_else(|| {
            tags.push(None);
            tags.len() - 1
        });
        tags[free] = Some(tag);
        free as u32
    }

    fn submit_to(&mut self, member: usize, now_ns: u64, tag: u32, req: &Request) {
        let local_tag = self.member_tag(member, tag);
        let base = member as u64 * self.layout.member_bytes;
        let local = Request { offset_bytes: req.offset_bytes.saturating_sub(base), ..*req };
        self.members[member].submit(now_ns, local_tag, &local);
    }
}

impl Device for Volume {
    fn describe(&self) -> String {
        format!("volume:{}:{}", self.layout.count, self.members[0].describe())
    }

    fn queue_depth(&self) -> u32 {
        self.layout.member_depth * self.layout.count
    }

    fn capacity_bytes(&self) -> u64 {
        self.layout.member_bytes * self.layout.count as u64
    }

    fn rotational(&self) -> bool {
        self.members.iter().all(|m| m.rotational())
    }

    fn can_accept(&self, now_ns: u64) -> bool {
        self.members.iter().any(|m| m.can_accept(now_ns))
    }

    fn submit(&mut self, now_ns: u64, tag: u32, req: &Request) {
        if self.outstanding.len() <= tag as usize {
            self.outstanding.resize(tag as usize + 1, None);
        }
        if req.op == Op::Flush {
            self.outstanding[tag as usize] = Some((0, self.layout.count));
            for m in 0..self.members.len() {
                self.submit_to(m, now_ns, tag, req);
            }
        } else {
            let member = self.layout.member_of(req.offset_bytes);
            self.outstanding[tag as usize] = Some((member, 1));
            self.submit_to(member, now_ns, tag, req);
        }
    }

    /// Each member holding part of a range gets one command with its parts (a range crossing into the next
    /// member is split there); the command completes when every member's has.
    fn submit_trim_ranges(&mut self, now_ns: u64, tag: u32, req: &Request, ranges: &[(u64, u64)]) {
        if self.outstanding.len() <= tag as usize {
            self.outstanding.resize(tag as usize + 1, None);
        }
        let member_bytes = self.layout.member_bytes.max(1);
        let mut per_member: Vec<Vec<(u64, u64)>> = vec![Vec::new(); self.members.len()];
        for &(offset, len) in ranges {
            let (mut at, end) = (offset, (offset + len).min(self.capacity_bytes()));
            while at < end {
                let member = self.layout.member_of(at);
                let member_end = ((member as u64 + 1) * member_bytes).min(end);
                per_member[member].push((at - member as u64 * member_bytes, member_end - at));
                at = member_end;
            }
        }
        let touched = per_member.iter().filter(|r| !r.is_empty()).count() as u32;
        if touched == 0 {
            return self.submit(now_ns, tag, req);
        }
        self.outstanding[tag as usize] = Some((0, touched));
        for (member, local) in per_member.into_iter().enumerate().filter(|(_, r)| !r.is_empty()) {
            let local_tag = self.member_tag(member, tag);
            let command = Request { offset_bytes: local[0].0, len_bytes: local.iter().map(|r| r.1).sum(), ..*req };
            self.members[member].submit_trim_ranges(now_ns, local_tag, &command, &local);
        }
    }

    fn next_event_ns(&self) -> Option<u64> {
        self.members.iter().filter_map(|m| m.next_event_ns()).min()
    }

    fn advance(&mut self, now_ns: u64, completed: &mut Vec<Completion>) {
        for m in 0..self.members.len() {
            self.done.clear();
            let mut done = std::mem::take(&mut self.done);
            self.members[m].advance(now_ns, &mut done);
            for c in done.drain(..) {
                let tag = self.member_tags[m][c.tag as usize].take().expect("a member completes what it was given");
                let entry = self.outstanding[tag as usize].as_mut().expect("an outstanding volume request");
                entry.1 -= 1;
                if entry.1 == 0 {
                    self.outstanding[tag as usize] = None;
                    completed.push(Completion { tag, error: c.error });
                }
            }
            self.done = done;
        }
    }

    fn members(&self) -> Option<Members> {
        Some(self.layout)
    }

    fn stats(&self) -> Vec<(String, StatValue)> {
        merge_stats(self.members.iter().map(|m| m.stats()), self.members.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::parse_spec;

    fn volume(n: usize) -> Volume {
        Volume::new((0..n).map(|_| parse_spec("simple,latency_us=100,queue_depth=2,capacity_gib=1").unwrap()).collect())
            .unwrap()
    }

    #[test]
    fn requests_go_to_the_member_holding_their_first_byte_and_come_back_under_their_own_tags() {
        let mut v = volume(3);
        assert_eq!(v.capacity_bytes(), 3 << 30);
        assert_eq!(v.queue_depth(), 6);
        let gib = 1u64 << 30;
        for (tag, offset) in [(7u32, 0u64), (3, gib + 4096), (9, 2 * gib + 8192), (4, 2 * gib)] {
            v.submit(0, tag, &Request::new(tag as u64, Op::Read, offset, 4096, 0));
        }
        assert_eq!(v.layout().member_of(gib + 4096), 1);
        let mut done = Vec::new();
        while let Some(t) = v.next_event_ns() {
            v.advance(t, &mut done);
        }
        let mut tags: Vec<u32> = done.iter().map(|c| c.tag).collect();
        tags.sort();
        assert_eq!(tags, vec![3, 4, 7, 9]);
    }

    #[test]
    fn a_trim_of_several_ranges_goes_to_each_member_holding_one_and_completes_once() {
        let members = (0..2).map(|_| parse_spec("ssd:nvme,capacity_gib=1,trim=queued").unwrap()).collect();
        let mut v = Volume::new(members).unwrap();
        let gib = 1u64 << 30;
        // One range on member 0, one crossing from member 0 into member 1.
        let ranges = [(4096u64, 4096u64), (gib - 8192, 16384)];
        v.submit_trim_ranges(0, 5, &Request::new(5, Op::Trim, 4096, 20480, 0), &ranges);
        let mut done = Vec::new();
        while let Some(t) = v.next_event_ns() {
            v.advance(t, &mut done);
        }
        assert_eq!(done, vec![Completion { tag: 5, error: 0 }]);
        let trims = v.stats().into_iter().find(|(k, _)| k == "trims").map(|(_, s)| s);
        assert_eq!(trims, Some(StatValue::Count(2)), "one command on each member");
    }

    #[test]
    fn a_flush_completes_once_every_member_has_flushed() {
        let mut v = volume(2);
        v.submit(0, 1, &Request::new(1, Op::Flush, 0, 0, 0));
        let mut done = Vec::new();
        while let Some(t) = v.next_event_ns() {
            v.advance(t, &mut done);
        }
        assert_eq!(done, vec![Completion { tag: 1, error: 0 }]);
    }
}
