//! Solid-state drive model: parallel flash dies behind channels, a page-mapping FTL with garbage collection,
//! an optional DRAM write buffer, and a host interface with a command queue and queued or non-queued trims.
//!
//! - [`ftl`]: where logical pages live; greedy or cost-benefit cleaning; trim; write amplification.
//! - [`params`]: geometry and timing, the presets (`nvme`, `netflix`) with their assumptions, spec keys.
//! - [`drive`]: the timed device the engines drive.

pub mod drive;
pub mod ftl;
pub mod params;

pub use drive::Ssd;
pub use params::SsdParams;
