//! A volume of several disks (`volume:N:SPEC`, LVM's linear layout) gives each disk its own instance of the
//! policy, as Linux schedules each disk under a device-mapper volume: a sequential reader on one disk is not held
//! up by another disk's anticipation, and each disk keeps its own queue depth.

use iosched_core::registry;
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::fio::parse_str;

/// Two sequential readers; on a two-disk volume the first reads the first disk, the second the second.
const JOBS: &str = "[global]\ndirect=1\ntime_based\nruntime=5\nrw=read\nbs=128k\n\
                    [a]\noffset=0\nsize=10%\n[b]\noffset=50%\nsize=10%\n";

fn mb_per_s(policy: &str, device: &str) -> (f64, f64) {
    let jobs = parse_str(JOBS, "two-readers.fio").unwrap();
    let out = simulate(
        &Workload::from_jobs(&jobs),
        registry::create(policy).unwrap(),
        parse_spec(device).unwrap(),
        Vec::new(),
        &SimConfig { seed: 1, record_log: false },
    )
    .unwrap();
    let r = &out.result;
    (r.jobs[0].bw_bytes_per_s(0) / 1e6, r.jobs[1].bw_bytes_per_s(0) / 1e6)
}

#[test]
fn each_disk_of_a_volume_streams_on_its_own_under_an_anticipating_policy() {
    for policy in ["as", "cfq", "noop"] {
        let (one_a, one_b) = mb_per_s(policy, "hdd:sata7200");
        let (vol_a, vol_b) = mb_per_s(policy, "volume:2:hdd:sata7200");
        eprintln!("{policy}: one disk {one_a:.1} + {one_b:.1} MB/s; a volume of two {vol_a:.1} + {vol_b:.1} MB/s");
        // Alone on its disk, each reader streams at the preset's sequential rate (72 MB/s at the start of the
        // disk, a little less in the middle), whatever the policy.
        assert!(vol_a > 60.0 && vol_b > 60.0, "{policy}: {vol_a:.1} and {vol_b:.1} MB/s");
        assert!(vol_a + vol_b > 1.5 * (one_a + one_b), "{policy}: the volume moved no more than one disk");
    }
}

#[test]
fn a_volume_spec_names_its_mistakes() {
    for (spec, expected) in [
        ("volume:0:hdd:sata7200", "expected a number from 1 to 64"),
        ("volume:three:hdd:sata7200", "expected a number from 1 to 64"),
        ("volume:3", "expected volume:N:SPEC"),
        ("volume:2:volume:2:hdd:sata7200", "cannot be volumes"),
        ("volume:2:hdd:nosuch", "nosuch"),
    ] {
        let err = parse_spec(spec).err().unwrap_or_else(|| panic!("{spec} was accepted")).to_string();
        assert!(err.contains(expected), "{spec}: {err}");
    }
}
