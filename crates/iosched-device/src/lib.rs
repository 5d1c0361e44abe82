//! Device models: what a request costs and when it completes.
//!
//! - [`device`]: the [`Device`] interface the engines drive.
//! - [`simple`]: a fixed-latency, fixed-bandwidth device for tests and analytic checks.
//! - [`simpledisk`]: DiskSim's fixed-access-time disk (`disksim_simpledisk`), timed as DiskSim times it.
//! - [`spec`]: device specs as users write them (`simple,latency_us=100`), parsed into models.
//! - [`sata_hba`]: MQSim's SATA host adapter, a fixed processing time per command and per completion.
//! - [`volume`]: several disks concatenated into one volume (LVM linear), each with its own queue.

pub mod catalogue;
pub mod device;
pub mod disksim;
pub mod hdd;
pub mod sata_hba;
pub mod simple;
pub mod simpledisk;
pub mod spec;
pub mod ssd;
pub mod volume;

pub use device::{Completion, Device};
pub use spec::{load_spec, parse_spec, SpecError};
