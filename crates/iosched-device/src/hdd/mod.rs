//! The hard-disk model: geometry ([`layout`]), seek curves ([`seek`]), and the drive itself ([`disk`]): its
//! mechanics in absolute time, its cache and its command overheads.

pub mod disk;
pub mod layout;
pub mod preset;
pub mod seek;
