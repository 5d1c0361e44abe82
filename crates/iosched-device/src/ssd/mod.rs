//! Solid-state drive model: parallel flash dies behind channels, a page-mapping FTL with garbage collection,
//! an optional DRAM write buffer, and a host interface with a command queue and queued or non-queued trims.
//!
//! - [`ftl`]: where logical pages live; greedy or cost-benefit cleaning; trim; write amplification.
//! - [`params`]: geometry and timing, the presets (`nvme`, `netflix`) with their assumptions, spec keys.
//! - [`mqsim_file`]: MQSim's device file (`mqsim:FILE.xml`) read into these parameters.
//! - [`mapping_cache`]: the mapping entries the controller keeps in DRAM (MQSim's CMT).
//! - [`write_cache`]: a DRAM cache that writes cold data back at once and keeps hot data (MQSim's).
//! - [`slab_lru`]: the least-recently-used map both caches keep their entries in.
//! - [`event_queue`]: the drive's pending events, packed one integer each.
//! - [`drive`]: the timed device the engines drive.

pub mod drive;
pub mod event_queue;
pub mod ftl;
pub mod mapping_cache;
pub mod mqsim_file;
pub mod params;
pub mod slab_lru;
pub mod write_cache;

pub use drive::Ssd;
pub use params::SsdParams;
