//! DiskSim 4.0 drive files: the parameter syntax ([`params`]), the hard-disk model they describe ([`build`]),
//! DiskSim's fixed-access-time disk ([`simpledisk`]) and the statistic distributions DiskSim's demerit figure is
//! computed from ([`statdefs`]).

pub mod build;
pub mod layout_g4;
pub mod params;
pub mod simpledisk;
pub mod statdefs;
