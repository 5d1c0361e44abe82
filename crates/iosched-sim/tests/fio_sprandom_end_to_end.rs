//! fio's sprandom preconditioning through the engine (fio's examples/sprandom.fio with bs=4k): the job writes
//! the physical size (size x (1 + spr_op)) and ends by itself, every logical block is written, and the share of
//! each region's writes that are written again in the next region falls from the cleaned block's invalid share
//! (1 - 1 / (0.5 / op + 0.7): 24.8 % at op 0.15) in the first region to none in the last.

mod common;

use iosched_core::request::Op;
use iosched_sim::SimOutput;
use iosched_workload::fio::parse_str;
use std::collections::HashMap;

const EXAMPLE: &str = "[global]\nioengine=libaio\nrw=randwrite\nbs=4k\nblockalign=4k\ndirect=1\nnorandommap=1\n\
                       iodepth=64\nsize=512m\n[preconditioning]\nsprandom=1\nspr_op=0.15\nspr_num_regions=100\n";

fn run(jobs: &str) -> SimOutput {
    common::run_fio_text(jobs, "simple,latency_us=20")
}

#[test]
fn sprandom_writes_the_physical_size_and_invalidates_region_by_region() {
    let out = run(EXAMPLE);
    let mut writes: Vec<_> = out.log.iter().map(|e| e.req).filter(|r| r.op == Op::Write).collect();
    writes.sort_by_key(|r| r.id.0);
    let logical_blocks = (512u64 << 20) / 4096;
    let physical_blocks = (logical_blocks as f64 * 1.15).ceil() as usize;
    assert!(writes.iter().all(|r| r.len_bytes == 4096 && r.offset_bytes % 4096 == 0));
    assert!(
        writes.len() <= physical_blocks && writes.len() > physical_blocks * 99 / 100,
        "{} writes for {physical_blocks} physical blocks",
        writes.len()
    );
    let mut count: HashMap<u64, u32> = HashMap::new();
    for w in &writes {
        *count.entry(w.offset_bytes / 4096).or_default() += 1;
    }
    assert_eq!(count.len() as u64, logical_blocks, "every logical block is written");

    // Per region of physical / 100 writes: the share written again later.
    let region = physical_blocks / 100;
    let mut next_write: HashMap<u64, usize> = HashMap::new();
    let mut rewritten = vec![false; writes.len()];
    for (i, w) in writes.iter().enumerate().rev() {
        rewritten[i] = next_write.insert(w.offset_bytes, i).is_some();
    }
    // Over five regions at a time (a region here is about 1,500 writes).
    let share = |first: usize| {
        let span = &rewritten[first * region..((first + 5) * region).min(writes.len())];
        span.iter().filter(|x| **x).count() as f64 / span.len() as f64
    };
    let (head, middle, tail) = (share(0), share(48), share(95));
    assert!((0.225..0.26).contains(&head), "regions 0-4: {head:.3} rewritten, the model says 0.244");
    assert!((0.115..0.145).contains(&middle), "regions 48-52: {middle:.3} rewritten, the model says 0.129");
    assert!(tail < 0.012, "regions 95-99: {tail:.3} rewritten, the model says 0.006");
}

#[test]
fn sprandom_refuses_what_fio_refuses() {
    for (job, expected) in [
        ("[a]\nrw=randread\nbs=4k\nsize=1m\nsprandom=1\n", "rw=randwrite"),
        ("[a]\nrw=randwrite\nbs=4k\nsize=1m\nnorandommap=0\nsprandom=1\n", "norandommap"),
        ("[a]\nrw=randwrite\nbs=4k\nsize=1m\nrandom_generator=tausworthe\nsprandom=1\n", "lfsr"),
        ("[a]\nrw=randwrite\nbs=12k\nsize=1m\nsprandom=1\n", "power-of-two"),
        ("[a]\nrw=randwrite\nbs=4k\nsize=1m\nsprandom=1\nspr_op=0\n", "spare share"),
    ] {
        let err = parse_str(job, "bad.fio").unwrap_err();
        assert!(err.to_string().contains(expected), "{job}: {err}");
        assert!(err.to_string().contains("bad.fio:"), "{err}");
    }
}
