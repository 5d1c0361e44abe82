//! fio's num_range through the engine (fio's examples/uring-cmd-trim-multi-range.fio): a trim of several ranges
//! is one command (NVMe Dataset Management) of num_range ranges, each drawn as a trim of its own would be. The
//! SSD model deallocates every range and costs the command once, so a drive trims the same blocks with an
//! eighth of the commands, and faster.

mod common;

use iosched_core::policy::StatValue;
use iosched_core::request::Op;
use iosched_sim::SimOutput;
use iosched_workload::fio::parse_str;

const SSD: &str = "ssd:nvme,capacity_gib=1,trim=queued";

fn run(jobs: &str, device: &str) -> SimOutput {
    common::run_fio_text(jobs, device)
}

fn stat(out: &SimOutput, name: &str) -> u64 {
    match out.result.device_stats.iter().find(|(k, _)| k == name) {
        Some((_, StatValue::Count(n))) => *n,
        other => panic!("{name}: {other:?}"),
    }
}

/// Write 8 MiB, then trim all of it at random in 4 KiB ranges, `num_range` per command.
fn fill_then_trim(num_range: u32) -> SimOutput {
    run(
        &format!(
            "[global]\nioengine=io_uring_cmd\ncmd_type=nvme\nsize=8m\niodepth=32\n[fill]\nrw=write\nbs=128k\n\
             [trim]\nstonewall\nrw=randtrim\nbs=4k\nnum_range={num_range}\n"
        ),
        SSD,
    )
}

#[test]
fn a_multi_range_trim_is_one_command_that_deallocates_every_range() {
    let (single, multi) = (fill_then_trim(1), fill_then_trim(8));
    let trims = |out: &SimOutput| out.log.iter().map(|e| e.req).filter(|r| r.op == Op::Trim).collect::<Vec<_>>();
    assert_eq!(trims(&single).len(), 2048);
    assert_eq!(trims(&multi).len(), 256, "8 MiB in commands of 8 ranges of 4 KiB");
    assert!(trims(&multi).iter().all(|r| r.len_bytes == 32768), "each command counts its 8 ranges' bytes");
    // Every block of the written 8 MiB is deallocated either way (the random map gives each block once).
    for out in [&single, &multi] {
        assert_eq!(stat(out, "trimmed_bytes"), 8 << 20);
    }
    assert_eq!((stat(&single, "trims"), stat(&multi, "trims")), (2048, 256));
    // One command's cost for eight ranges: the trims take less time.
    let trim_time = |out: &SimOutput| {
        let t = trims(out);
        t.iter().map(|r| r.completed_ns).max().unwrap() - t.iter().map(|r| r.queued_ns).min().unwrap()
    };
    assert!(trim_time(&multi) * 2 < trim_time(&single), "{} vs {} ns", trim_time(&multi), trim_time(&single));
}

#[test]
fn the_example_job_runs_and_sequential_ranges_follow_each_other() {
    // fio's example with its sizes: bs=4k randtrim and bssplit sequential trim, 8 ranges each.
    let example = "[global]\nfilename=/dev/ng0n1\nioengine=io_uring_cmd\ncmd_type=nvme\nsize=10M\niodepth=32\n\
                   thread=1\nstonewall=1\n\n[write_bs]\nbs=4096\nrw=randtrim\nnum_range=8\n\n[write_bssplit]\n\
                   bssplit=4k/10:64k/50:32k/40\nrw=trim\nnum_range=8\n";
    let out = run(example, SSD);
    let trims: Vec<_> = out.log.iter().map(|e| e.req).filter(|r| r.op == Op::Trim).collect();
    assert!(!trims.is_empty());
    assert_eq!(out.result.requests_completed, out.result.requests_submitted);
    // rw=trim: each command's 8 ranges continue one another, so a command starts where the one before ended
    // (until the job wraps at its 10 MiB), and is 8 of the split's sizes long.
    let mut sequential: Vec<_> = trims.iter().filter(|r| r.flow.0 == 1).collect();
    sequential.sort_by_key(|r| r.id.0);
    assert!(sequential.len() > 4, "{} sequential commands", sequential.len());
    assert!(sequential.iter().all(|r| (8 * 4096..=8 * 65536).contains(&r.len_bytes)), "{sequential:?}");
    for pair in sequential.windows(2).filter(|p| p[1].offset_bytes != 0) {
        assert_eq!(pair[1].offset_bytes, pair[0].offset_bytes + pair[0].len_bytes, "{pair:?}");
    }
    // On a volume (this job stays on its first member; splitting across members is volume.rs's unit test).
    let out = run(example, "volume:2:ssd:nvme,capacity_gib=1,trim=queued");
    assert_eq!(out.result.requests_completed, out.result.requests_submitted);
}

#[test]
fn num_range_is_refused_where_fio_refuses_it() {
    for (job, expected) in [
        ("[a]\nioengine=libaio\nrw=randtrim\nbs=4k\nsize=1m\nnum_range=8\n", "ioengine=libaio cannot send"),
        ("[a]\nioengine=io_uring_cmd\nrw=trimwrite\nbs=4k\nsize=1m\nnum_range=8\n", "trimwrite"),
        ("[a]\nioengine=io_uring_cmd\nrw=randtrim\nbs=4k\nsize=1m\nnum_range=300\n", "num_range"),
    ] {
        let err = parse_str(job, "bad.fio").unwrap_err().to_string();
        assert!(err.contains(expected) && err.contains("bad.fio:"), "{job}: {err}");
    }
}
