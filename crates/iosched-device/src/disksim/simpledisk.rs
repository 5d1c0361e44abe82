//! A `disksim_simpledisk` block read into [`SimpleDiskParams`]: DiskSim's fixed-access-time disk, with the
//! keys DiskSim's loader knows for it (src/modules/disksim_simpledisk_param). Unknown keys are warnings; the
//! drive's own queue is served first come, first served, as the disk's is.

use super::build::{slowest_bus_ms, warn_drive_queue, MS, MS_MAX};
use super::params::{Block, ParamError, ParamFile};
use crate::simpledisk::SimpleDiskParams;
use std::path::Path;

/// The keys of `disksim_simpledisk`.
const KEYS: &[&str] = &[
    "Scheduler",
    "Max queue length",
    "Block count",
    "Bus transaction latency",
    "Bulk sector transfer time",
    "Never disconnect",
    "Print stats",
    "Command overhead",
    "Access time",
    "Constant access time",
];

/// The simple disk `block` of `file` describes, and the warnings met reading it.
pub fn build(block: &Block, file: &ParamFile, parv: &Path) -> Result<(SimpleDiskParams, Vec<String>), ParamError> {
    let mut warnings = Vec::new();
    for (key, loc) in block.unknown_keys(KEYS) {
        warnings.push(format!("{loc}: unknown key '{key}' in {}; ignored", block.display_name()));
    }
    let blocks = block.int("Block count", 1, i64::from(i32::MAX))? as u64;
    let ms = |key: &str| -> Result<f64, ParamError> { Ok(block.number_in_or(key, 0.0, MS_MAX, "ms", 0.0)? * MS) };
    let bulk_ms = block.number_in_or("Bulk sector transfer time", 0.0, MS_MAX, "ms", 0.0)?;
    let (read_ms, write_ms) = slowest_bus_ms(file, bulk_ms)?;
    let queue_depth = block.int_or("Max queue length", 0, 1 << 16, 1)?.max(1) as u32;
    warn_drive_queue(block, queue_depth, &mut warnings)?;
    let params = SimpleDiskParams {
        name: format!("disksim:{}", parv.display()),
        blocks,
        // "Constant access time" is DiskSim's synonym for it.
        access_ns: match block.get("Access time") {
            None if block.get("Constant access time").is_some() => {
                block.number_in("Constant access time", 0.0, MS_MAX, "ms")? * MS
            }
            _ => block.number_in("Access time", 0.0, MS_MAX, "ms")? * MS,
        },
        command_overhead_ns: ms("Command overhead")?,
        bus_transaction_ns: ms("Bus transaction latency")?,
        read_ns_per_block: read_ms * MS,
        write_ns_per_block: write_ms * MS,
        never_disconnect: block.int_or("Never disconnect", 0, 1, 0)? != 0,
        queue_depth,
    };
    Ok((params, warnings))
}

#[cfg(test)]
mod tests {
    use super::super::build::{load_drive, Drive};

    const DRIVE: &str =
        "disksim_bus BUS1 {\n  Read block transfer time = 0.02,\n  Write block transfer time = 0.0\n}\n\
        disksim_simpledisk SD0 {\n  Block count = 100000,\n  Access time = 9.5,\n  Command overhead = 0.5,\n\
        Bus transaction latency = 0.1,\n  Bulk sector transfer time = 0.01,\n  Never disconnect = 0,\n\
        Print stats = 1,\n  Max queue length = 4,\n  Spin speed = 3\n}\n\
        instantiate [ sd0 ] as SD0\ninstantiate [ bus1 ] as BUS1\n";

    fn load(text: &str) -> Result<(Drive, Vec<String>), String> {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("iosched-simpledisk-test-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sd.parv");
        std::fs::write(&path, text).unwrap();
        let drive = load_drive(&path).map_err(|e| e.to_string());
        std::fs::remove_dir_all(&dir).unwrap();
        drive
    }

    #[test]
    fn reads_every_key_and_bounds_the_transfer_by_the_slowest_bus() {
        let (Drive::Simple(p), warnings) = load(DRIVE).unwrap() else { panic!("not a simple disk") };
        assert_eq!((p.blocks, p.queue_depth, p.never_disconnect), (100_000, 4, false));
        assert_eq!((p.access_ns, p.command_overhead_ns, p.bus_transaction_ns), (9.5e6, 0.5e6, 0.1e6));
        // Reads at the bus's 0.02 ms a block, writes at the disk's own 0.01.
        assert_eq!((p.read_ns_per_block, p.write_ns_per_block), (0.02e6, 0.01e6));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains(":14: unknown key 'Spin speed'"), "{warnings:?}");
    }

    #[test]
    fn a_bad_value_names_its_line_and_what_was_expected() {
        let e = load(&DRIVE.replace("Access time = 9.5", "Access time = soon")).err().unwrap();
        assert!(e.contains("sd.parv:7") && e.contains("Access time: expected a number"), "{e}");
        let e = load(&DRIVE.replace("Block count = 100000", "Block count = 0")).err().unwrap();
        assert!(e.contains("sd.parv:6") && e.contains("Block count: expected an integer from 1"), "{e}");
        let e = load(&DRIVE.replace("  Access time = 9.5,\n", "")).err().unwrap();
        assert!(e.contains("has no 'Access time'"), "{e}");
    }
}
