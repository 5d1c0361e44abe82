//! The fio options about a job's files, through the engine: file_service_type decides which of a job's files
//! each I/O goes to (fio's io_u.c get_next_file), and fsync_on_close ends a job that writes with a flush.

use iosched_core::registry;
use iosched_core::request::Op;
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, SimOutput, Workload};
use iosched_workload::fio::parse_str;

fn run(jobs: &str) -> SimOutput {
    let jobs = parse_str(jobs, "jobs.fio").unwrap();
    simulate(
        &Workload::from_jobs(&jobs),
        registry::create("noop").unwrap(),
        parse_spec("simple,latency_us=100,queue_depth=1").unwrap(),
        Vec::new(),
        &SimConfig { seed: 1, record_log: true },
    )
    .unwrap()
}

/// The file (0-3) of each data request, in the order the job issued them: four files of 64 KiB.
fn files(service: &str) -> Vec<u64> {
    let out = run(&format!("[j]\nrw=write\nbs=4k\nsize=256k\nnrfiles=4\nfile_service_type={service}\n"));
    let mut log: Vec<_> = out.log.iter().filter(|e| e.req.op == Op::Write).collect();
    log.sort_by_key(|e| e.req.id);
    log.iter().map(|e| e.req.offset_bytes / (64 << 10)).collect()
}

#[test]
fn each_io_goes_to_the_file_file_service_type_picks() {
    let rr = files("roundrobin:2");
    assert_eq!(rr.len(), 64, "the whole 256 KiB, once");
    assert_eq!(&rr[..10], &[0, 0, 1, 1, 2, 2, 3, 3, 0, 0]);
    // sequential: each file through before the next.
    let seq = files("sequential");
    assert_eq!(seq, (0..64).map(|i| i / 16).collect::<Vec<u64>>());
    // random:4: runs of four in one file; every file written whole, once (the job's size is the four files').
    let random = files("random:4");
    assert!(random.chunks(4).all(|run| run.iter().all(|f| *f == run[0])), "{random:?}");
    assert_ne!(random, rr);
}

#[test]
fn fsync_on_close_flushes_a_writing_job_once_at_its_end() {
    let flushes = |jobs: &str| {
        let out = run(jobs);
        let last_write = out.log.iter().filter(|e| e.req.op == Op::Write).map(|e| e.req.completed_ns).max();
        let flushes: Vec<u64> = out.log.iter().filter(|e| e.req.op == Op::Flush).map(|e| e.req.queued_ns).collect();
        (flushes, last_write)
    };
    let (f, last) = flushes("[w]\nrw=write\nbs=4k\nsize=64k\nfsync_on_close=1\n");
    assert_eq!(f.len(), 1, "one flush");
    assert!(f[0] >= last.unwrap(), "after the last write completes");
    assert!(flushes("[w]\nrw=write\nbs=4k\nsize=64k\n").0.is_empty());
    assert!(flushes("[r]\nrw=read\nbs=4k\nsize=64k\nfsync_on_close=1\n").0.is_empty(), "nothing dirty to flush");
}
