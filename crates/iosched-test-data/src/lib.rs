//! Where iosched's tests find the data others wrote (drive files, traces, job files): the folder named by
//! `IOSCHED_TEST_DATA`, else `../shared/data` beside the repository. A test that needs a part of it calls
//! [`dir`] and skips, saying so on stderr, when the part is absent.
//!
//! The one rule for tests that cannot run ([`skip`]): they say why, and where every test must run (`CI=true`,
//! as CI services set it, or `IOSCHED_REQUIRE_ALL=1`, as `.ci/run` sets it) they fail instead. So a green CI
//! run is one in which every test ran.
//!
//! The reference simulators others wrote (DiskSim, MQSim: source, inputs and a build script) are in the folder
//! named by `IOSCHED_TEST_PEERS`, else `peers` beside the data folder; [`peer`] finds a part of it the same way.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// This test process's scratch folder (`iosched-test-PID` in the system's temporary folder), removed when the
/// process exits, whether its tests passed or not.
fn scratch_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("iosched-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("a scratch folder in the temporary folder");
        extern "C" fn remove_at_exit() {
            if let Some(root) = ROOT.get() {
                let _ = std::fs::remove_dir_all(root);
            }
        }
        // The test harness ends with exit() (after a failure too), which runs atexit handlers; a static is never
        // dropped, so this is where the folder goes. SAFETY: registering a plain extern "C" function.
        unsafe {
            libc::atexit(remove_at_exit);
        }
        root
    })
}

/// A fresh, empty folder `name` for one test's files, inside this process's scratch folder: everything in it is
/// removed when the test process exits, so test runs leave nothing in /tmp.
pub fn scratch(name: &str) -> PathBuf {
    let dir = scratch_root().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// The shared test data folder (it may not exist).
pub fn root() -> PathBuf {
    std::env::var("IOSCHED_TEST_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
}

/// Whether every test must run here: `CI=true` or `IOSCHED_REQUIRE_ALL=1`.
pub fn required() -> bool {
    required_by(std::env::var("CI").ok().as_deref(), std::env::var("IOSCHED_REQUIRE_ALL").ok().as_deref())
}

fn required_by(ci: Option<&str>, require_all: Option<&str>) -> bool {
    ci.is_some_and(|v| v.eq_ignore_ascii_case("true")) || require_all == Some("1")
}

/// A test that cannot run here, for `reason`: said loudly on stderr, and where every test must run
/// ([`required`]), a failure.
pub fn skip(reason: &str) {
    if required() {
        panic!("this test cannot run here: {reason} (CI=true or IOSCHED_REQUIRE_ALL=1: every test must run)");
    }
    eprintln!("\n*** SKIPPED: {reason} ***\n");
}

/// `root()/part` if it is a folder; otherwise `None`, after [`skip`] says so.
pub fn dir(part: &str) -> Option<PathBuf> {
    let d = root().join(part);
    if d.is_dir() {
        Some(d)
    } else {
        skip(&format!("test data '{part}' not found at {} (set IOSCHED_TEST_DATA)", d.display()));
        None
    }
}

/// The reference simulators' folder (it may not exist): `IOSCHED_TEST_PEERS`, else `peers` beside [`root`].
pub fn peers_root() -> PathBuf {
    std::env::var("IOSCHED_TEST_PEERS").map(PathBuf::from).unwrap_or_else(|_| root().join("../peers"))
}

/// `peers_root()/part` if it is a folder; otherwise `None`, after [`skip`] says so.
pub fn peer(part: &str) -> Option<PathBuf> {
    let d = peers_root().join(part);
    if d.is_dir() {
        Some(d)
    } else {
        skip(&format!("reference simulator '{part}' not found at {} (set IOSCHED_TEST_PEERS)", d.display()));
        None
    }
}

/// Build the reference simulators (../shared/peers/build.sh) into `dest`, for a test that needs `part` of them;
/// `None`, after [`skip`] says so, where the peers are absent. A failed build fails the test. Call it once per
/// test process (a `OnceLock`): two builds into one folder would trip over each other.
pub fn build_peers(part: &str, dest: &Path) -> Option<PathBuf> {
    let source = peer(part)?;
    let script = peers_root().join("build.sh");
    let out = std::process::Command::new("bash").arg(&script).arg(dest).output().expect("bash runs");
    assert!(
        out.status.success(),
        "{} failed (for {}): {}{}",
        script.display(),
        source.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(dest.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ci_or_the_project_flag_requires_every_test() {
        assert!(required_by(Some("true"), None));
        assert!(required_by(Some("TRUE"), None));
        assert!(required_by(None, Some("1")));
        assert!(!required_by(Some("false"), Some("0")));
        assert!(!required_by(None, None));
    }
}
