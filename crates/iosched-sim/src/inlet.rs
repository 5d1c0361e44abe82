//! Requests from outside the engine: the programs behind a FUSE mount, whose reads, writes and fsyncs arrive when
//! they arrive, on another thread, and wait for their answer.
//!
//! An [`Inlet`] is the engine's side of that traffic. Between waits on the device the live engine takes what has
//! arrived, tells the inlet the id each request got, and hands the inlet every completion, after which the inlet
//! answers the program. Each flow the inlet names (a process) is reported as a job of its own. The inlet's other
//! side must wake the engine's device wait when it queues an arrival (the mount's device watches an eventfd).

use crate::source::Issue;
use iosched_core::request::{FlowId, Request, RequestId};

/// One request from outside, with the inlet's own token for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// Flows are numbered densely from 0 by the inlet, in the order it first sees them.
    pub issue: Issue,
    pub token: u64,
}

pub trait Inlet: Send {
    /// Append what has arrived since the last call (without blocking); false once nothing more can arrive (the
    /// mount is gone), decided before the arrivals are taken so that none is left behind.
    fn take(&mut self, out: &mut Vec<Arrival>) -> bool;

    /// The request `token` entered the engine as `id`.
    fn admitted(&mut self, token: u64, id: RequestId);

    /// The engine is stopping and did not take `token`: the inlet fails it.
    fn refused(&mut self, token: u64);

    /// A request has completed (`req.error` set): answer its issuer.
    fn completed(&mut self, req: &Request);

    /// What to call a flow in reports (a process: its pid and command).
    fn flow_name(&self, flow: FlowId) -> String;
}
