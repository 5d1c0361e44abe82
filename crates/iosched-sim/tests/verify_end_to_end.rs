//! fio's verify through the engine: what a job writes is read back, as many reads and in the order fio issues
//! them. The counts are fio 3.33's own (`fio --name=v --filename=F --size=8m --rw=randwrite --bs=4k
//! --verify=crc32c --ioengine=psync` and the variants below, read from its JSON): 2048 writes and 2048 reads;
//! with loops=2, 4096 and 4096; sequential 64 KiB writes, 128 and 128; with norandommap, 1284 reads of 2048
//! writes (each block that was written, once: about 2048 x (1 - 1/e)).

use iosched_core::registry;
use iosched_core::request::Op;
use iosched_sim::{simulate, SimConfig, SimOutput, Workload};
use iosched_workload::fio::parse_str;

fn run(extra: &str) -> SimOutput {
    let text = format!("[v]\nsize=8m\nrw=randwrite\nbs=4k\nverify=crc32c\nioengine=psync\ndirect=1\n{extra}\n");
    let jobs = parse_str(&text, "v.fio").unwrap();
    simulate(
        &Workload::from_jobs(&jobs),
        registry::create("noop").unwrap(),
        iosched_device::parse_spec("simple,latency_us=50").unwrap(),
        Vec::new(),
        &SimConfig { seed: 1, record_log: true },
    )
    .unwrap()
}

/// (reads, writes) of the job.
fn counts(out: &SimOutput) -> (u64, u64) {
    let count = |op| out.log.iter().filter(|e| e.req.op == op).count() as u64;
    (count(Op::Read), count(Op::Write))
}

#[test]
fn everything_written_is_read_back_as_fio_does() {
    assert_eq!(counts(&run("")), (2048, 2048));
    assert_eq!(counts(&run("loops=2")), (4096, 4096));
    assert_eq!(counts(&run("rw=write\nbs=64k")), (128, 128));
    assert_eq!(counts(&run("do_verify=0")), (0, 2048), "do_verify=0 reads nothing back");
    assert_eq!(counts(&run("verify=none")), (0, 2048));
    let (reads, writes) = counts(&run("norandommap"));
    assert_eq!(writes, 2048);
    // Each block written, once (fio 3.33 gave 1284; the expectation is 2048 x (1 - 1/e) = 1295).
    assert!((1240..=1350).contains(&reads), "norandommap: {reads} blocks read back");
}

#[test]
fn the_read_back_follows_the_writes_in_write_order_and_each_loop_verifies_its_own() {
    let out = run("");
    let last_write_done = out.log.iter().filter(|e| e.req.op == Op::Write).map(|e| e.req.completed_ns).max().unwrap();
    let first_read = out.log.iter().filter(|e| e.req.op == Op::Read).map(|e| e.req.queued_ns).min().unwrap();
    assert!(first_read >= last_write_done, "reads start once the writes are done");
    let writes: Vec<u64> = out.log.iter().filter(|e| e.req.op == Op::Write).map(|e| e.req.offset_bytes).collect();
    let reads: Vec<u64> = out.log.iter().filter(|e| e.req.op == Op::Read).map(|e| e.req.offset_bytes).collect();
    assert_eq!(reads, writes, "random writes under a random map come back in write order");
    // norandommap: sorted by offset, as fio's rb-tree gives them.
    let sorted = run("norandommap");
    let reads: Vec<u64> = sorted.log.iter().filter(|e| e.req.op == Op::Read).map(|e| e.req.offset_bytes).collect();
    assert!(reads.windows(2).all(|w| w[0] < w[1]), "read back in offset order, each block once");
    // loops=2: the first loop's read-back comes before the second loop's writes.
    let looped = run("loops=2");
    let ops: Vec<Op> = looped.log.iter().map(|e| e.req.op).collect();
    let runs: Vec<(Op, usize)> = ops.chunk_by(|a, b| a == b).map(|c| (c[0], c.len())).collect();
    assert_eq!(runs, [(Op::Write, 2048), (Op::Read, 2048), (Op::Write, 2048), (Op::Read, 2048)]);
}

#[test]
fn a_backlog_reads_back_during_the_writes() {
    let out = run("verify_backlog=64\nverify_backlog_batch=16");
    let ops: Vec<Op> = out.log.iter().map(|e| e.req.op).collect();
    let first_read = ops.iter().position(|op| *op == Op::Read).unwrap();
    let last_write = ops.iter().rposition(|op| *op == Op::Write).unwrap();
    assert!(first_read < 100 && first_read < last_write, "reads begin once 64 blocks wait: at {first_read}");
    // Everything is still read back once: batches during the writes, the rest after them.
    assert_eq!(counts(&out), (2048, 2048));
    // Batches of 16: the reads during the writes come in runs of at most 16.
    let runs: Vec<usize> =
        ops[..last_write].chunk_by(|a, b| a == b).filter(|c| c[0] == Op::Read).map(|c| c.len()).collect();
    assert!(!runs.is_empty() && runs.iter().all(|n| *n <= 16), "{runs:?}");
}

#[test]
fn a_time_based_job_reads_back_after_its_runtime_within_a_runtime_of_its_own() {
    let text = "[v]\nsize=8m\nrw=randwrite\nbs=4k\nverify=md5\nioengine=psync\ndirect=1\ntime_based\nruntime=50ms\n";
    let jobs = parse_str(text, "v.fio").unwrap();
    let out = simulate(
        &Workload::from_jobs(&jobs),
        registry::create("noop").unwrap(),
        iosched_device::parse_spec("simple,latency_us=50").unwrap(),
        Vec::new(),
        &SimConfig { seed: 1, record_log: true },
    )
    .unwrap();
    let (reads, writes) = counts(&out);
    assert!(writes > 500, "{writes} writes in 50 ms of 50 us each");
    let read_times: Vec<(u64, u64)> =
        out.log.iter().filter(|e| e.req.op == Op::Read).map(|e| (e.req.queued_ns, e.req.completed_ns)).collect();
    let start = read_times.iter().map(|t| t.0).min().unwrap();
    let last_issue = read_times.iter().map(|t| t.0).max().unwrap();
    // The read-back has 50 ms of its own (fio restarts the job's clock for it): it reads what fits.
    assert!(last_issue < start + 50_000_000, "no read issued after the read-back's runtime");
    assert!(reads > writes * 8 / 10 && reads <= writes, "{reads} of {writes} written blocks read back in 50 ms");
}
