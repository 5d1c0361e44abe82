//! noop: one FIFO; dispatch the head. No tunables.
//!
//! Source: FreeBSD GEOM's default (no scheduler) and Linux's noop / none (block/noop-iosched.c). Requests reach
//! the device in the order they arrived; with a device queue depth above one, the device may still reorder.
//! Bound: nothing enqueued later is dispatched earlier (zero overtakes).

use crate::policy::{Dispatch, DispatchContext, Policy, StatValue, WaitBound};
use crate::request::Request;
use crate::tunable::{self, TunableError, TunableSpec};
use std::collections::VecDeque;

#[derive(Default)]
pub struct Noop {
    fifo: VecDeque<Request>,
    dispatched: u64,
}

impl Noop {
    pub fn new() -> Noop {
        Noop::default()
    }
}

impl Policy for Noop {
    fn name(&self) -> &'static str {
        "noop"
    }

    fn enqueue(&mut self, _now_ns: u64, req: Request) {
        self.fifo.push_back(req);
    }

    fn dispatch(&mut self, _now_ns: u64, _ctx: &DispatchContext) -> Dispatch {
        match self.fifo.pop_front() {
            Some(req) => {
                self.dispatched += 1;
                Dispatch::Request(req)
            }
            None => Dispatch::Nothing,
        }
    }

    fn complete(&mut self, _now_ns: u64, _req: &Request) {}

    fn queued(&self) -> usize {
        self.fifo.len()
    }

    fn drain(&mut self) -> Vec<Request> {
        self.fifo.drain(..).collect()
    }

    fn tunables(&self) -> &'static [TunableSpec] {
        &[]
    }

    fn tunable(&self, name: &str) -> Result<String, TunableError> {
        Err(tunable::unknown(self.name(), self.tunables(), name))
    }

    fn set_tunable(&mut self, name: &str, _value: &str) -> Result<(), TunableError> {
        Err(tunable::unknown(self.name(), self.tunables(), name))
    }

    fn wait_bound(&self) -> WaitBound {
        WaitBound::Overtakes(0)
    }

    fn stats(&self) -> Vec<(&'static str, StatValue)> {
        vec![("queued", StatValue::Count(self.fifo.len() as u64)), ("dispatched", StatValue::Count(self.dispatched))]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Op;

    #[test]
    fn serves_in_arrival_order() {
        let mut p = Noop::new();
        for (i, off) in [900u64, 100, 500].iter().enumerate() {
            p.enqueue(0, Request::new(i as u64, Op::Read, *off, 512, 0));
        }
        let ctx = DispatchContext::default();
        let order: Vec<u64> = (0..3)
            .map(|_| match p.dispatch(0, &ctx) {
                Dispatch::Request(r) => r.offset_bytes,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(order, vec![900, 100, 500]);
        assert_eq!(p.dispatch(0, &ctx), Dispatch::Nothing);
        assert!(p.set_tunable("x", "1").is_err());
    }
}
