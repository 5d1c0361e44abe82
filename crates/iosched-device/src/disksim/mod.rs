//! DiskSim 4.0 drive files: the parameter syntax ([`params`]) and the hard-disk model they describe
//! ([`build`]).

pub mod build;
pub mod params;
