//! elevator: a one-way elevator (C-LOOK) with an optional batch limit.
//!
//! Source: FreeBSD's `bioq_disksort` (sys/kern/subr_disk.c), which CAM uses for rotating media (seed 002,
//! section V). Requests are kept sorted by offset and served in ascending order from the last dispatched
//! offset; when nothing lies ahead, the head wraps to the lowest queued offset.
//!
//! Seed 002 names "no way to limit the elevator's car size" as a defect: a stream of requests just ahead of the
//! head (a sequential reader) starves everything behind it. The `batch` tunable is FreeBSD's later answer
//! (`bioq_batchsize`): after `batch` requests have been sorted into the current car, later arrivals queue
//! behind it in a new car, sorted among themselves, and a car is served to its end before the next begins.
//! A request is therefore overtaken by at most `batch` later arrivals. With `batch = 0` (the default, as in
//! the original) there is one car and no bound.
//!
//! The head is the offset of the last dispatched request: an arrival at or above it joins the current sweep,
//! one below it waits for the wrap.
//!
//! Cost: O(log n) per enqueue and dispatch, with two binary min-heaps per car (this sweep, next sweep); a car
//! that becomes the one in service is split at the head once, so every request moves between heaps at most
//! once. Retired cars are kept for reuse, so a steady state allocates nothing.

use super::sorted_fifo::in_arrival_order;
use crate::policy::{Dispatch, DispatchContext, Policy, StatValue, WaitBound};
use crate::request::Request;
use crate::tunable::{self, TunableError, TunableKind, TunableSpec};
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

const TUNABLES: &[TunableSpec] = &[TunableSpec {
    name: "batch",
    kind: TunableKind::Int { min: 0, max: 1 << 30, unit: "requests" },
    default: "0",
    description: "requests sorted into one sweep before later arrivals wait for the next (0 = unlimited)",
}];

/// A queued request, ordered by (offset, arrival sequence).
struct Entry {
    offset_bytes: u64,
    seq: u64,
    req: Request,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.offset_bytes, self.seq).cmp(&(other.offset_bytes, other.seq))
    }
}

type MinHeap = BinaryHeap<Reverse<Entry>>;

/// The requests of one car: those at or above the head (served first, ascending) and those below it (served
/// after the wrap). A car not yet in service keeps everything in `ahead` until it is split at the head.
#[derive(Default)]
struct Car {
    ahead: MinHeap,
    behind: MinHeap,
    inserted: u64,
}

impl Car {
    fn len(&self) -> usize {
        self.ahead.len() + self.behind.len()
    }

    /// Move everything below `head_bytes` from `ahead` to `behind`.
    fn split_at(&mut self, head_bytes: u64) {
        while self.ahead.peek().is_some_and(|Reverse(e)| e.offset_bytes < head_bytes) {
            let entry = self.ahead.pop().expect("peeked");
            self.behind.push(entry);
        }
    }
}

pub struct Elevator {
    batch_requests: u64,
    /// Front is in service; back takes arrivals. Never empty.
    cars: VecDeque<Car>,
    /// Emptied cars, kept so that steady state does not allocate.
    spare: Vec<Car>,
    /// Offset of the last dispatched request.
    head_bytes: u64,
    enqueue_seq: u64,
    queued: usize,
    dispatched: u64,
    wraps: u64,
}

impl Default for Elevator {
    fn default() -> Self {
        Elevator::new()
    }
}

impl Elevator {
    pub fn new() -> Elevator {
        Elevator {
            batch_requests: 0,
            cars: VecDeque::from([Car::default()]),
            spare: Vec::new(),
            head_bytes: 0,
            enqueue_seq: 0,
            queued: 0,
            dispatched: 0,
            wraps: 0,
        }
    }

    /// Retire an empty front car; the next one is split at the head as it comes into service.
    fn advance_car(&mut self) {
        while self.cars.len() > 1 && self.cars.front().is_some_and(|car| car.len() == 0) {
            let mut done = self.cars.pop_front().expect("checked");
            done.inserted = 0;
            self.spare.push(done);
            let head = self.head_bytes;
            self.cars.front_mut().expect("checked").split_at(head);
        }
    }
}

impl Policy for Elevator {
    fn name(&self) -> &'static str {
        "elevator"
    }

    fn enqueue(&mut self, _now_ns: u64, req: Request) {
        let back_is_full =
            self.batch_requests > 0 && self.cars.back().is_some_and(|car| car.inserted >= self.batch_requests);
        if back_is_full {
            let car = self.spare.pop().unwrap_or_default();
            self.cars.push_back(car);
        }
        let in_service = self.cars.len() == 1;
        let head = self.head_bytes;
        let car = self.cars.back_mut().expect("an elevator always has a car");
        let entry = Reverse(Entry { offset_bytes: req.offset_bytes, seq: self.enqueue_seq, req });
        if in_service && req.offset_bytes < head {
            car.behind.push(entry);
        } else {
            car.ahead.push(entry);
        }
        car.inserted += 1;
        self.enqueue_seq += 1;
        self.queued += 1;
    }

    fn dispatch(&mut self, _now_ns: u64, _ctx: &DispatchContext) -> Dispatch {
        self.advance_car();
        let car = self.cars.front_mut().expect("an elevator always has a car");
        if car.ahead.is_empty() {
            if car.behind.is_empty() {
                return Dispatch::Nothing;
            }
            std::mem::swap(&mut car.ahead, &mut car.behind);
            self.wraps += 1;
        }
        let Reverse(entry) = car.ahead.pop().expect("ahead is not empty");
        self.head_bytes = entry.offset_bytes;
        self.queued -= 1;
        self.dispatched += 1;
        Dispatch::Request(entry.req)
    }

    fn complete(&mut self, _now_ns: u64, _req: &Request) {}

    fn queued(&self) -> usize {
        self.queued
    }

    fn drain(&mut self) -> Vec<Request> {
        let mut held: Vec<(u64, Request)> = Vec::with_capacity(self.queued);
        for mut car in self.cars.drain(..) {
            for Reverse(e) in car.ahead.drain().chain(car.behind.drain()) {
                held.push((e.seq, e.req));
            }
            car.inserted = 0;
            self.spare.push(car);
        }
        self.cars.push_back(self.spare.pop().unwrap_or_default());
        self.queued = 0;
        in_arrival_order(held)
    }

    fn tunables(&self) -> &'static [TunableSpec] {
        TUNABLES
    }

    fn tunable(&self, name: &str) -> Result<String, TunableError> {
        tunable::find(self.name(), TUNABLES, name)?;
        Ok(self.batch_requests.to_string())
    }

    fn set_tunable(&mut self, name: &str, value: &str) -> Result<(), TunableError> {
        let spec = tunable::find(self.name(), TUNABLES, name)?;
        self.batch_requests = spec.parse_int(value)? as u64;
        Ok(())
    }

    fn wait_bound(&self) -> WaitBound {
        if self.batch_requests == 0 {
            WaitBound::Unbounded
        } else {
            WaitBound::Overtakes(self.batch_requests)
        }
    }

    fn stats(&self) -> Vec<(&'static str, StatValue)> {
        vec![
            ("queued", StatValue::Count(self.queued as u64)),
            ("dispatched", StatValue::Count(self.dispatched)),
            ("wraps", StatValue::Count(self.wraps)),
            ("cars", StatValue::Count(self.cars.len() as u64)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Op;

    fn take(p: &mut Elevator) -> u64 {
        match p.dispatch(0, &DispatchContext::default()) {
            Dispatch::Request(r) => r.offset_bytes,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sweeps_up_then_wraps_to_lowest() {
        let mut p = Elevator::new();
        let mut id = 0;
        let mut add = |p: &mut Elevator, off: u64| {
            p.enqueue(0, Request::new(id, Op::Read, off, 100, 0));
            id += 1;
        };
        add(&mut p, 5000);
        assert_eq!(take(&mut p), 5000); // head now at 5000
        for off in [7000, 100, 6000, 5100, 300] {
            add(&mut p, off);
        }
        let order: Vec<u64> = (0..5).map(|_| take(&mut p)).collect();
        assert_eq!(order, vec![5100, 6000, 7000, 100, 300]);
        assert_eq!(p.stats()[2], ("wraps", StatValue::Count(1)));
    }

    #[test]
    fn batch_limit_stops_a_stream_from_starving_a_request_behind_the_head() {
        for (batch, expect_served_within) in [(0u64, None), (4, Some(5))] {
            let mut p = Elevator::new();
            p.set_tunable("batch", &batch.to_string()).unwrap();
            p.enqueue(0, Request::new(0, Op::Read, 1_000_000, 4096, 0));
            assert_eq!(take(&mut p), 1_000_000);
            // A victim behind the head, then a sequential stream always just ahead of it.
            p.enqueue(0, Request::new(1, Op::Read, 0, 4096, 1));
            let mut next = 1_004_096;
            let mut served_at = None;
            for i in 0..100u64 {
                p.enqueue(0, Request::new(2 + i, Op::Read, next, 4096, 2));
                next += 4096;
                if take(&mut p) == 0 {
                    served_at = Some(i + 1);
                    break;
                }
            }
            match expect_served_within {
                None => assert_eq!(served_at, None, "unlimited car: the stream starves the victim"),
                Some(limit) => assert!(served_at.is_some_and(|n| n <= limit), "{served_at:?}"),
            }
        }
    }

    #[test]
    fn drain_returns_arrival_order() {
        let mut p = Elevator::new();
        p.set_tunable("batch", "2").unwrap();
        for (i, off) in [50u64, 10, 40, 20, 30].iter().enumerate() {
            p.enqueue(0, Request::new(i as u64, Op::Write, *off, 1, 0));
        }
        let ids: Vec<u64> = p.drain().iter().map(|r| r.id.0).collect();
        assert_eq!(ids, vec![0, 1, 2, 3, 4]);
        assert_eq!(p.queued(), 0);
        assert_eq!(p.dispatch(0, &DispatchContext::default()), Dispatch::Nothing);
    }

    #[test]
    fn tunable_is_validated() {
        let mut p = Elevator::new();
        assert!(p.set_tunable("batch", "-1").is_err());
        assert!(p.set_tunable("bach", "1").is_err());
        p.set_tunable("batch", "16").unwrap();
        assert_eq!(p.tunable("batch").unwrap(), "16");
        assert_eq!(p.wait_bound(), WaitBound::Overtakes(16));
    }
}
