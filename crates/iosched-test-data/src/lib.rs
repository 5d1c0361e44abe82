//! Where iosched's tests find the data others wrote (drive files, traces, job files): the folder named by
//! `IOSCHED_TEST_DATA`, else `../shared/data` beside the repository. A test that needs a part of it calls
//! [`dir`] and skips, saying so on stderr, when the part is absent; `.ci/run` sets the variable and fails if
//! the folder is missing, so CI never skips.
//!
//! The reference simulators others wrote (DiskSim, MQSim: source, inputs and a build script) are in the folder
//! named by `IOSCHED_TEST_PEERS`, else `peers` beside the data folder; [`peer`] finds a part of it the same way.

use std::path::{Path, PathBuf};

/// The shared test data folder (it may not exist).
pub fn root() -> PathBuf {
    std::env::var("IOSCHED_TEST_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
}

/// `root()/part` if it is a folder; otherwise `None`, after saying on stderr that the test is skipped.
pub fn dir(part: &str) -> Option<PathBuf> {
    let d = root().join(part);
    if d.is_dir() {
        Some(d)
    } else {
        eprintln!("SKIPPED: test data '{part}' not found at {} (set IOSCHED_TEST_DATA)", d.display());
        None
    }
}

/// The reference simulators' folder (it may not exist): `IOSCHED_TEST_PEERS`, else `peers` beside [`root`].
pub fn peers_root() -> PathBuf {
    std::env::var("IOSCHED_TEST_PEERS").map(PathBuf::from).unwrap_or_else(|_| root().join("../peers"))
}

/// `peers_root()/part` if it is a folder; otherwise `None`, after saying on stderr that the test is skipped.
pub fn peer(part: &str) -> Option<PathBuf> {
    let d = peers_root().join(part);
    if d.is_dir() {
        Some(d)
    } else {
        eprintln!("SKIPPED: reference simulator '{part}' not found at {} (set IOSCHED_TEST_PEERS)", d.display());
        None
    }
}
