//! fio options that change the command a request reaches the device as, through the engine:
//! - cmdprio_bssplit: the share of each block size's I/Os that carry a priority, and which one (fio's
//!   examples/cmdprio-bssplit.fio, both of its formats);
//! - readfua / writefua: forced unit access, which the disk and the SSD serve from and to the media;
//! - sg_write_mode: SCSI VERIFY reaches the device as a media read, WRITE SAME and WRITE AND VERIFY as writes;
//! - random_distribution=sequence (fio 3.40's): the offsets are the given blocks in turn, strided or not.

mod common;

use iosched_core::request::{IoClass, Op};
use iosched_sim::SimOutput;
use iosched_workload::fio::parse_str;

fn run(jobs: &str, device: &str) -> SimOutput {
    common::run_fio_text(jobs, device)
}

/// How many requests carry each (class, level).
type PriorityCounts = Vec<((IoClass, u8), usize)>;

/// Requests of `op` and `len_bytes`, and how many of them carry each (class, level).
fn priorities(out: &SimOutput, op: Op, len_bytes: u64) -> (usize, PriorityCounts) {
    let mut counts: PriorityCounts = Vec::new();
    let mut total = 0;
    for e in out.log.iter().filter(|e| e.req.op == op && e.req.len_bytes == len_bytes) {
        total += 1;
        let key = (e.req.class, e.req.level);
        match counts.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => counts.push((key, 1)),
        }
    }
    counts.sort();
    (total, counts)
}

fn share(counts: &[((IoClass, u8), usize)], key: (IoClass, u8), total: usize) -> f64 {
    counts.iter().find(|(k, _)| *k == key).map_or(0, |(_, n)| *n) as f64 / total as f64
}

const BSSPLIT: &str = "[global]\nrw=randrw\nioengine=libaio\niodepth=16\ndirect=1\nnumber_ios=6000\n\
                       bssplit=64k/40:1024k/60,1024k/100\n";

#[test]
fn cmdprio_bssplit_gives_each_block_size_its_share_of_priorities() {
    // The simple format: every 64 KiB read carries cmdprio_class/cmdprio; nothing else does.
    let out = run(
        &format!("{BSSPLIT}[simple]\ncmdprio_bssplit=64k/100:1024k/0,1024k/0\ncmdprio_class=1\ncmdprio=0\n"),
        "simple,latency_us=50",
    );
    let (n, counts) = priorities(&out, Op::Read, 64 << 10);
    assert!(n > 500, "{n} reads of 64 KiB");
    assert_eq!(counts, vec![((IoClass::Rt, 0), n)], "every 64 KiB read is RT 0");
    let (_, counts) = priorities(&out, Op::Read, 1 << 20);
    assert_eq!(counts.len(), 1, "{counts:?}");
    assert_eq!(counts[0].0, (IoClass::Be, 4), "1 MiB reads keep the job's priority");
    let (_, counts) = priorities(&out, Op::Write, 1 << 20);
    assert_eq!(counts[0].0, (IoClass::Be, 4));

    // The advanced format, with the job's own default of BE 7: a quarter of the 64 KiB reads RT 1, three
    // quarters IDLE 2.
    let out = run(
        &format!("{BSSPLIT}[adv]\nprioclass=2\nprio=7\ncmdprio_bssplit=64k/25/1/1:64k/75/3/2:1024k/0,1024k/0\n"),
        "simple,latency_us=50",
    );
    let (n, counts) = priorities(&out, Op::Read, 64 << 10);
    let (rt, idle) = (share(&counts, (IoClass::Rt, 1), n), share(&counts, (IoClass::Idle, 2), n));
    eprintln!("64 KiB reads: {n}, RT 1 {rt:.3}, IDLE 2 {idle:.3}; {counts:?}");
    assert!((rt - 0.25).abs() < 0.04 && (idle - 0.75).abs() < 0.04, "{counts:?}");
    assert_eq!(counts.len(), 2, "no 64 KiB read is left at the default: {counts:?}");
    let (_, counts) = priorities(&out, Op::Write, 1 << 20);
    assert_eq!(counts.iter().map(|c| c.0).collect::<Vec<_>>(), vec![(IoClass::Be, 7)]);

    // A share below 100 leaves the rest at the job's priority.
    let out = run(&format!("{BSSPLIT}[part]\ncmdprio_bssplit=64k/50:1024k/10\ncmdprio_class=3,1\n"), "simple");
    let (n, counts) = priorities(&out, Op::Read, 64 << 10);
    let idle = share(&counts, (IoClass::Idle, 0), n);
    assert!((idle - 0.5).abs() < 0.05, "{counts:?}");
    let (n, counts) = priorities(&out, Op::Write, 1 << 20);
    let rt = share(&counts, (IoClass::Rt, 0), n);
    assert!((rt - 0.1).abs() < 0.03, "writes take the write class: {counts:?}");
}

#[test]
fn cmdprio_bssplit_is_exclusive_with_cmdprio_percentage_and_checks_its_entries() {
    let err = parse_str("[a]\nrw=read\ncmdprio_percentage=10\ncmdprio_bssplit=4k/10\n", "j.fio").unwrap_err();
    assert!(err.to_string().contains("exclusive"), "{err}");
    let err = parse_str("[a]\nrw=read\ncmdprio_bssplit=4k/60:4k/50/1/0\n", "j.fio").unwrap_err();
    assert!(err.to_string().contains("at most 100") && err.to_string().contains("j.fio:3"), "{err}");
    let err = parse_str("[a]\nrw=read\ncmdprio_bssplit=4k/10/1\n", "j.fio").unwrap_err();
    assert!(err.to_string().contains("size/percent/class/level"), "{err}");
    let err = parse_str("[a]\nrw=write\nsg_write_mode=scramble\n", "j.fio").unwrap_err();
    assert!(err.to_string().contains("write_same_ndob"), "{err}");
    // fio 3.41's fifth field, a priority hint (a command duration limit descriptor): read, checked, not modelled.
    let jobs =
        parse_str("[a]\nrw=read\nbssplit=1M/40:2M/60\ncmdprio_bssplit=1M/10/2/0/1:1M/90/2/0/0:2M/100/2/0/3\n", "j")
            .unwrap();
    assert_eq!(jobs[0].cmdprio_bssplit[0].len(), 3);
    let err = parse_str("[a]\nrw=read\ncmdprio_bssplit=4k/10/2/0/x\n", "j.fio").unwrap_err();
    assert!(err.to_string().contains("j.fio:3"), "{err}");
}

#[test]
fn io_uring_cmds_write_modes_reach_the_device_as_the_nvme_command_does() {
    let job = |mode: &str| {
        format!("[n]\nioengine=io_uring_cmd\ncmd_type=nvme\nrw=write\nbs=4k\nnumber_ios=20\nwrite_mode={mode}\n")
    };
    for (mode, want) in [
        ("write", (Op::Write, false)),
        ("zeroes", (Op::Write, false)),
        ("uncor", (Op::Write, false)),
        ("verify", (Op::Read, true)),
    ] {
        let out = run(&job(mode), "ssd:nvme,capacity_gib=1");
        let mut ops: Vec<(Op, bool)> = out.log.iter().map(|e| (e.req.op, e.req.fua)).collect();
        ops.dedup();
        assert_eq!((out.log.len(), ops), (20, vec![want]), "{mode}");
    }
    let err = parse_str("[a]\nrw=write\nwrite_mode=scribble\n", "j.fio").unwrap_err();
    assert!(err.to_string().contains("uncor") && err.to_string().contains("j.fio:3"), "{err}");
}

/// Mean device time of the requests of `op`, in µs.
fn mean_service_us(out: &SimOutput, op: Op) -> f64 {
    let times: Vec<u64> = out.log.iter().filter(|e| e.req.op == op).map(|e| e.req.service_ns()).collect();
    assert!(!times.is_empty(), "no {op:?} requests");
    times.iter().sum::<u64>() as f64 / times.len() as f64 / 1e3
}

#[test]
fn forced_unit_access_goes_to_the_media_on_a_disk() {
    // Sequential 4 KiB writes: the drive's write cache takes them at bus speed; with writefua each one waits
    // for the media, and consecutive blocks have just passed under the head: about a revolution each.
    let writes = "[w]\nrw=write\nbs=4k\nsize=1m\nioengine=psync\ndirect=1\n";
    let cached = mean_service_us(&run(writes, "hdd:sata7200"), Op::Write);
    let fua = mean_service_us(&run(&format!("{writes}writefua=1\n"), "hdd:sata7200"), Op::Write);
    eprintln!("4 KiB sequential writes: cached {cached:.0} µs, writefua {fua:.0} µs");
    assert!(cached < 1000.0 && fua > 5000.0, "cached {cached:.0} µs, fua {fua:.0} µs");

    // One 4 KiB block read again and again: a buffer hit each time, unless readfua sends each to the media,
    // where the block comes round once a revolution (8.3 ms at 7200 rpm).
    let reads = "[r]\nrw=read\nbs=4k\nsize=4k\nloops=200\nioengine=psync\ndirect=1\n";
    let hit = mean_service_us(&run(reads, "hdd:sata7200"), Op::Read);
    let fua = mean_service_us(&run(&format!("{reads}readfua=1\n"), "hdd:sata7200"), Op::Read);
    eprintln!("one 4 KiB block re-read: {hit:.0} µs, readfua {fua:.0} µs");
    assert!(hit < 500.0 && (7000.0..9500.0).contains(&fua), "hit {hit:.0} µs, fua {fua:.0} µs");
}

#[test]
fn forced_unit_access_writes_pass_the_ssds_write_cache() {
    let writes = "[w]\nrw=randwrite\nbs=4k\nsize=8m\nioengine=psync\ndirect=1\n";
    let cached = mean_service_us(&run(writes, "ssd:nvme,capacity_gib=1,write_buffer_mib=64"), Op::Write);
    let fua = mean_service_us(
        &run(&format!("{writes}writefua=1\n"), "ssd:nvme,capacity_gib=1,write_buffer_mib=64"),
        Op::Write,
    );
    eprintln!("4 KiB random writes on ssd:nvme with a 64 MiB buffer: cached {cached:.1} µs, writefua {fua:.1} µs");
    // The program time of a page is hundreds of µs; the cache takes a page in a few.
    assert!(fua > 5.0 * cached && fua > 100.0, "cached {cached:.1} µs, fua {fua:.1} µs");
}

#[test]
fn sg_write_modes_reach_the_device_as_the_scsi_command_does() {
    let job = |mode: &str| format!("[sg]\nioengine=sg\nrw=write\nbs=512\nnumber_ios=20\nsg_write_mode={mode}\n");
    let ops = |out: &SimOutput| -> Vec<(Op, bool)> {
        let mut v: Vec<(Op, bool)> = out.log.iter().map(|e| (e.req.op, e.req.fua)).collect();
        v.dedup();
        v
    };
    for (mode, want) in [
        ("write", (Op::Write, false)),
        ("write_stream", (Op::Write, false)),
        ("write_same_ndob", (Op::Write, false)),
        ("same", (Op::Write, false)),
        ("write_and_verify", (Op::Write, true)),
        ("verify", (Op::Write, true)),
        ("verify_bytchk_00", (Op::Read, true)),
        ("verify_bytchk_01", (Op::Read, true)),
        ("verify_bytchk_11", (Op::Read, true)),
    ] {
        let out = run(&job(mode), "hdd:sata7200");
        assert_eq!(out.log.len(), 20, "{mode}");
        assert_eq!(ops(&out), vec![want], "{mode}");
    }
}

#[test]
fn a_sequence_distribution_gives_its_blocks_in_turn() {
    // fio's examples/sequence-distribution.fio, and the offsets fio's own test (t/sequence.py) expects.
    let job = "[global]\nioengine=null\nrw=randread\nbs=4k\nsize=48k\nio_size=24k\n\
               [repeating]\nrandom_distribution=sequence:2,0,1\nrandom_sequence_stride=0\n\
               [strided]\nstonewall\nrandom_sequence_stride=1\nrandom_distribution=sequence:2,0,1\n";
    let out = run(job, "simple");
    let blocks = |source: u32| -> Vec<u64> {
        out.log.iter().filter(|e| e.source == source).map(|e| e.req.offset_bytes / 4096).collect()
    };
    assert_eq!(blocks(0), [2, 0, 1, 2, 0, 1]);
    assert_eq!(blocks(1), [2, 0, 1, 5, 3, 4], "each round moves on by the sequence's length");
    // Past the region's end the strided sequence wraps: 12 blocks, rounds 4 and 5 give 14 % 12 = 2, ...
    let wrap = run(&job.replace("io_size=24k", "io_size=72k"), "simple");
    let strided: Vec<u64> =
        wrap.log.iter().filter(|e| e.source == 1).map(|e| e.req.offset_bytes / 4096).skip(12).collect();
    assert_eq!(strided, [2, 0, 1, 5, 3, 4]);
    let err = parse_str("[a]\nrw=randread\nrandom_distribution=sequence:1,x\n", "j.fio").unwrap_err();
    assert!(err.to_string().contains("sequence:i,j,... of block indices"), "{err}");
}
