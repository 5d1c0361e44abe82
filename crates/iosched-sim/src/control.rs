//! Talking to a running live engine: the messages a controller (the control socket of `iosched run`, the FUSE
//! mount's daemon) sends it, the replies, and the stop flag Ctrl-C sets.
//!
//! The engine polls its [`Controls`] between waits on the device (at least every [`POLL_INTERVAL_NS`]), so a
//! request is answered within that time even when no I/O is moving.

use iosched_core::results::RunResult;
use iosched_core::snapshot::FlowsSnapshot;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, Sender};

/// The longest the live engine waits on the device before looking at its controls again.
pub const POLL_INTERVAL_NS: u64 = 50_000_000;

/// What a controller asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlRequest {
    /// The report so far, as the run's final report would be.
    Stats,
    /// Switch to `policy` (with `settings` applied to the new one), handing over every queued request as a
    /// timed switch does; or, without a policy, change the running policy's tunables.
    Configure { policy: Option<String>, settings: Vec<(String, String)> },
    /// The live view of every flow (`iosched top`, the metrics endpoint).
    Flows,
    /// Remove a mount: handled by a mount's daemon (the engine of `iosched run` refuses it).
    Destroy,
}

/// The engine's answer.
#[derive(Clone, Debug)]
pub enum ControlReply {
    Stats(Box<RunResult>),
    Flows(Box<FlowsSnapshot>),
    /// The policy now running and its tunables.
    Configured {
        policy: String,
        tunables: Vec<(String, String)>,
    },
    /// The mount is detached; `open_files` were opened through it and are still open (served until closed).
    Destroyed {
        open_files: u64,
    },
    Error(String),
}

/// One request with the channel its reply goes back on.
pub struct ControlMessage {
    pub request: ControlRequest,
    pub reply: Sender<ControlReply>,
}

/// What a live run listens to besides its device.
#[derive(Default)]
pub struct Controls {
    pub requests: Option<Receiver<ControlMessage>>,
    /// Once set, the jobs issue nothing more; what was issued completes, then the run ends with its report.
    /// Static, so that a signal handler (Ctrl-C) may set it.
    pub stop: Option<&'static AtomicBool>,
}
