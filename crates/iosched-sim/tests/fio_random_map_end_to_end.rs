//! fio's random map through the engine: uniform random I/O uses each block once per pass, as fio 3.33 does
//! (`fio --rw=randwrite --bs=4k --size=1m --ioengine=null --write_iolog=...`: 256 writes, each of the 256 blocks
//! once; with `bssplit=4k/50:16k/50`, 1 MiB in writes of 4, 8, 12 and 16 KiB, each 4 KiB block once, the 8 and
//! 12 KiB ones cut where the next block was already written). norandommap and skewed distributions draw with
//! replacement.

mod common;

use iosched_core::request::Op;
use iosched_sim::SimOutput;
use std::collections::BTreeMap;

fn run(jobs: &str) -> SimOutput {
    common::run_fio_text(jobs, "simple,latency_us=20")
}

/// How many times each 4 KiB block was written, the bytes written and the sizes seen.
fn coverage(out: &SimOutput) -> (BTreeMap<u64, u32>, u64, Vec<u64>) {
    let mut blocks = BTreeMap::new();
    let (mut bytes, mut sizes) = (0, Vec::new());
    for r in out.log.iter().map(|e| e.req).filter(|r| r.op == Op::Write) {
        bytes += r.len_bytes;
        sizes.push(r.len_bytes);
        for b in r.offset_bytes / 4096..(r.offset_bytes + r.len_bytes).div_ceil(4096) {
            *blocks.entry(b).or_insert(0) += 1;
        }
    }
    sizes.sort_unstable();
    sizes.dedup();
    (blocks, bytes, sizes)
}

#[test]
fn random_writes_use_each_block_once_per_pass() {
    let (blocks, bytes, _) = coverage(&run("[a]\nrw=randwrite\nbs=4k\nsize=1m\n"));
    assert_eq!((blocks.len(), bytes), (256, 1 << 20));
    assert!(blocks.values().all(|n| *n == 1), "a block written twice in one pass");

    // Two passes (io_size twice the size): each block twice.
    let (blocks, _, _) = coverage(&run("[a]\nrw=randwrite\nbs=4k\nsize=1m\nio_size=2m\n"));
    assert!(blocks.len() == 256 && blocks.values().all(|n| *n == 2), "{blocks:?}");

    // Mixed sizes: I/Os are cut at the first block already used, so the pass is still each block once.
    let (blocks, bytes, sizes) = coverage(&run("[b]\nrw=randwrite\nbssplit=4k/50:16k/50\nsize=1m\n"));
    assert_eq!((blocks.len(), bytes), (256, 1 << 20));
    assert!(blocks.values().all(|n| *n == 1));
    assert!(sizes.contains(&8192) || sizes.contains(&12288), "no write was cut: {sizes:?}");
}

#[test]
fn norandommap_and_skewed_distributions_draw_with_replacement() {
    for job in [
        "[a]\nrw=randwrite\nbs=4k\nsize=1m\nnorandommap\n",
        "[a]\nrw=randwrite\nbs=4k\nsize=1m\nrandom_distribution=zipf:1.2\n",
    ] {
        let (blocks, bytes, _) = coverage(&run(job));
        assert_eq!(bytes, 1 << 20);
        // 256 draws of 256 blocks with replacement leave about 1/e of them untouched.
        assert!(blocks.len() < 220, "{job}: {} distinct blocks", blocks.len());
    }
}
