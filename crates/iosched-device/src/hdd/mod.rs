//! The hard-disk model: geometry ([`layout`], [`track_table`] for one given track by track), seek curves ([`seek`]), what decides a drive's timing
//! ([`params`]), and the drive itself ([`disk`]): its mechanics in absolute time, its cache and its command
//! overheads.

pub mod disk;
pub mod layout;
pub mod params;
pub mod preset;
pub mod seek;
pub mod track_table;
