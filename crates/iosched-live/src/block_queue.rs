//! What the kernel says about the block device under a live target: whether it is rotational
//! (`queue/rotational`) and how many requests its queue takes (`queue/nr_requests`), read from sysfs.
//!
//! A block device target is looked up by its own device number; a regular file (or a directory, for a mount) by
//! the device its file system sits on. A partition has no queue of its own: its disk's is used, as the kernel
//! does. A file system with no single block device under it (tmpfs, overlayfs, btrfs's anonymous device
//! numbers, NFS) gives nothing, and the caller decides (non-rotational, unless told).

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The queue of the block device under a path, as sysfs shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockQueue {
    /// The sysfs queue folder read, for example /sys/devices/virtual/block/loop0/queue.
    pub sysfs: PathBuf,
    pub rotational: Option<bool>,
    pub nr_requests: Option<u32>,
}

/// The queue of the block device `path` is, or sits on; None when there is none to be found.
pub fn of_path(path: &Path) -> Option<BlockQueue> {
    let meta = std::fs::metadata(path).ok()?;
    let dev = if meta.file_type().is_block_device() { meta.rdev() } else { meta.dev() };
    of_device(libc::major(dev), libc::minor(dev), Path::new("/sys"))
}

/// The queue of device `major:minor` under the sysfs root `sys` (a parameter for tests).
pub fn of_device(major: u32, minor: u32, sys: &Path) -> Option<BlockQueue> {
    if major == 0 {
        return None; // an anonymous device: no block device under the file system
    }
    let device = sys.join(format!("dev/block/{major}:{minor}")).canonicalize().ok()?;
    // A partition's folder sits inside its disk's and has no queue of its own.
    let queue = [device.join("queue"), device.parent()?.join("queue")].into_iter().find(|q| q.is_dir())?;
    let read = |name: &str| std::fs::read_to_string(queue.join(name)).ok().map(|t| t.trim().to_string());
    Some(BlockQueue {
        rotational: read("rotational").and_then(|t| match t.as_str() {
            "0" => Some(false),
            "1" => Some(true),
            _ => None,
        }),
        nr_requests: read("nr_requests").and_then(|t| t.parse().ok()),
        sysfs: queue,
    })
}

/// Whether a live target is rotational, and why: `forced` (the command line's `--rotational`) wins, then the
/// kernel's flag; with neither, non-rotational. The words go into the device's description in reports.
pub fn decide_rotational(forced: Option<bool>, queue: Option<&BlockQueue>) -> (bool, String) {
    let word = |r: bool| if r { "rotational" } else { "non-rotational" };
    match (forced, queue.and_then(|q| q.rotational.map(|r| (r, q)))) {
        (Some(r), _) => (r, format!("{} (--rotational)", word(r))),
        (None, Some((r, q))) => (r, format!("{} ({})", word(r), q.sysfs.join("rotational").display())),
        (None, None) => (false, "non-rotational (no block device found under the target)".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sysfs tree with a disk `8:0` (rotational, 64 requests) and its partition `8:1`.
    fn fake_sys(name: &str) -> PathBuf {
        let sys = iosched_test_data::scratch(&format!("sysfs-{name}"));
        let disk = sys.join("devices/pci0/host0/block/sda");
        std::fs::create_dir_all(disk.join("queue")).unwrap();
        std::fs::create_dir_all(disk.join("sda1")).unwrap();
        std::fs::write(disk.join("queue/rotational"), "1\n").unwrap();
        std::fs::write(disk.join("queue/nr_requests"), "64\n").unwrap();
        std::fs::create_dir_all(sys.join("dev/block")).unwrap();
        std::os::unix::fs::symlink(&disk, sys.join("dev/block/8:0")).unwrap();
        std::os::unix::fs::symlink(disk.join("sda1"), sys.join("dev/block/8:1")).unwrap();
        sys
    }

    #[test]
    fn a_disk_and_its_partition_share_the_disks_queue() {
        let sys = fake_sys("partition");
        for minor in [0, 1] {
            let q = of_device(8, minor, &sys).unwrap();
            assert_eq!((q.rotational, q.nr_requests), (Some(true), Some(64)), "8:{minor}");
            assert!(q.sysfs.ends_with("block/sda/queue"), "{}", q.sysfs.display());
        }
        assert_eq!(of_device(8, 2, &sys), None, "no such device");
        assert_eq!(of_device(0, 5, &sys), None, "an anonymous device");
    }

    #[test]
    fn the_command_line_wins_then_the_kernel_then_non_rotational() {
        let sys = fake_sys("decide");
        let q = of_device(8, 0, &sys);
        assert!(!decide_rotational(Some(false), q.as_ref()).0);
        let (r, why) = decide_rotational(None, q.as_ref());
        assert!(r && why.starts_with("rotational (") && why.ends_with("queue/rotational)"), "{why}");
        assert!(!decide_rotational(None, None).0);
    }

    #[test]
    fn this_machines_root_file_system_has_an_answer_or_none() {
        // Whatever the machine, looking up a real path does not fail; where / is on a block device, the flag is
        // read from its queue.
        if let Some(q) = of_path(Path::new("/")) {
            assert!(q.sysfs.ends_with("queue"), "{}", q.sysfs.display());
        }
    }
}
