//! The vocabulary of iosched, shared by the simulated and the live engine.
//!
//! - [`request`]: a request, its operation, its flow, its I/O class and level.
//! - [`policy`]: the [`Policy`] interface every scheduling algorithm implements.
//! - [`tunable`]: tunables by name, validated, with defaults and descriptions.
//! - [`registry`]: the policies by name.
//! - [`policies`]: the algorithms themselves, one file each.
//! - [`stats`]: latency recording and percentiles; [`results`]: what a run reports; [`snapshot`]: a running
//!   engine's live view of its flows.
//! - [`rng`]: the deterministic random-number source of simulations; [`mqsim_rng`]: MQSim's generator, where
//!   iosched draws what MQSim draws.
//! - [`units`]: time and size conversions, done at the edges only.

pub mod input;
pub mod mqsim_rng;
pub mod policies;
pub mod policy;
pub mod registry;
pub mod request;
pub mod results;
pub mod rng;
pub mod snapshot;
pub mod stats;
pub mod suggest;
pub mod tunable;
pub mod units;

pub use policy::{Dispatch, DispatchContext, Policy, StatValue, WaitBound};
pub use request::{FlowId, IoClass, Op, Request, RequestId};
pub use tunable::{TunableError, TunableKind, TunableSpec};
