//! The FTL's tests: cleaning policies against their formulas, MQSim's cleaning, fills, mappings and streams.

use super::*;

fn geometry(op: f64, policy: GcPolicy) -> FtlGeometry {
    let pools = 4;
    let blocks_per_pool = 512;
    let pages_per_block = 128;
    let physical = (pools * blocks_per_pool * pages_per_block) as f64;
    FtlGeometry {
        pools,
        blocks_per_pool,
        pages_per_block,
        logical_pages: (physical / (1.0 + op)) as u64,
        gc_free_blocks: 2,
        gc_policy: policy,
    }
}

#[test]
fn randomized_greedy_cleans_between_random_and_greedy() {
    // Drawing every block is greedy (same victims, same counts); drawing one is a random victim, which copies
    // far more; MQSim's eight candidates sit in between, near greedy.
    let wa = |policy| {
        let mut f = Ftl::new(geometry(0.15, policy)).unwrap();
        f.fill_sequential();
        f.random_overwrites(2 * f.geometry().logical_pages, 7);
        f.reset_counters();
        f.random_overwrites(f.geometry().logical_pages, 8);
        f.counters()
    };
    let greedy = wa(GcPolicy::Greedy);
    assert_eq!(wa(GcPolicy::Randomized { candidates: 512 }), greedy);
    let (one, eight) = (wa(GcPolicy::Randomized { candidates: 1 }), wa(GcPolicy::Randomized { candidates: 8 }));
    let (g, r, d8) = (greedy.write_amplification(), one.write_amplification(), eight.write_amplification());
    assert!(r > 1.5 * g, "random victims {r} against greedy {g}");
    assert!(d8 > g && d8 < 1.25 * g, "eight candidates {d8} against greedy {g}");
}

/// One pool of 256 blocks of 4 pages, 250 blocks' worth of logical pages (fill_sequential fills 0-249 in order).
fn small_plane(gc_policy: GcPolicy) -> FtlGeometry {
    FtlGeometry {
        pools: 1,
        blocks_per_pool: 256,
        pages_per_block: 4,
        logical_pages: 250 * 4,
        gc_free_blocks: 2,
        gc_policy,
    }
}

/// MQSim's RGA, drawn from its GC unit's generator (seed 432 draws blocks 125, 179, 115, 249, 168, 17, 161,
/// 229 first, as MQSim's own RandomGenerator does): the victim starts as the lowest-numbered drawn block and
/// gives way only to a full block with more stale pages, so of two with most stale pages the lower wins;
/// with no stale page among them MQSim skips the cleaning.
#[test]
fn mqsims_rga_takes_the_victim_mqsims_draws_give() {
    let g = small_plane(GcPolicy::Randomized { candidates: 8 });
    let mut f = Ftl::new(g).unwrap();
    f.fill_sequential(); // blocks 0-249 full, in order
    f.seed_mqsim_rga(432);
    let mut work = GcWork::default();
    assert!(!f.take_victim(0, &mut work), "no stale page among the drawn: MQSim skips");
    let mut f = Ftl::new(g).unwrap();
    f.fill_sequential();
    for lpn in [17 * 4, 125 * 4, 125 * 4 + 1, 161 * 4, 161 * 4 + 1, 200 * 4, 200 * 4 + 1, 200 * 4 + 2] {
        f.trim(lpn); // 200 has the most stale pages but is not drawn
    }
    f.seed_mqsim_rga(432);
    assert!(f.take_victim(0, &mut work));
    assert_eq!(work.erased, 125 * 4, "125 and 161 have two stale pages each: the lower-numbered");
    assert_eq!(work.copies.len(), 2);
    assert_eq!(f.erasing(0), 1);
}

/// MQSim's static wear-leveling compares block numbers, not erase counts: erasing block 50 leaves it idle
/// (50 - 0 < 100), and so does erasing 150 after it (the first block with the most erases is still 50);
/// erasing block 150 first sets it off, and it relocates the coldest block (0, the lowest-numbered never
/// erased); once that is erased the first block with the most erases (0) is below the first with the fewest
/// (1), the unsigned difference wraps, and block 1 goes next.
#[test]
fn mqsims_static_wear_leveling_relocates_the_coldest_block_once_a_block_100_up_is_erased() {
    let g = small_plane(GcPolicy::Greedy);
    let mut f = Ftl::new(g).unwrap();
    f.fill_sequential(); // blocks 0-249 full, in order
    let mut work = GcWork::default();
    let clean = |f: &mut Ftl, block: u64| {
        let mut work = GcWork::default();
        for page in 0..4 {
            f.trim(block * 4 + page); // the only block with stale pages: greedy takes it
        }
        assert!(f.take_victim(0, &mut work));
        assert_eq!(work.erased, block * 4);
        f.erased(work.erased);
    };
    clean(&mut f, 50);
    assert!(!f.take_static_wear_leveling(0, &mut work), "block 50 is fewer than 100 above block 0");
    clean(&mut f, 150);
    assert!(!f.take_static_wear_leveling(0, &mut work), "the first block with the most erases is still 50");
    let mut f = Ftl::new(g).unwrap();
    f.fill_sequential();
    clean(&mut f, 150);
    assert!(f.take_static_wear_leveling(0, &mut work));
    assert_eq!((work.erased, work.copies.len()), (0, 4), "block 0 relocated, its four valid pages moved");
    f.erased(work.erased);
    assert!(f.take_static_wear_leveling(0, &mut work));
    assert_eq!(work.erased, 4, "then block 1");
}

#[test]
fn lambert_formula_matches_the_reference_table() {
    for (op, wa) in [(0.07, 7.82), (0.10, 5.68), (0.28, 2.48), (0.30, 2.36), (1.0, 1.26)] {
        let got = lambert_w_write_amplification(op);
        assert!((got - wa).abs() < 0.01, "op {op}: {got} vs {wa}");
    }
}

#[test]
fn mapping_tracks_overwrites_and_trims() {
    let mut f = Ftl::new(geometry(0.28, GcPolicy::Greedy)).unwrap();
    let a = f.write(5);
    assert_eq!(f.lookup(5), Some(a));
    let b = f.write(5);
    assert_ne!(a, b);
    assert_eq!(f.lookup(5), Some(b));
    f.trim(5);
    assert_eq!(f.lookup(5), None);
    assert_eq!(f.counters().trimmed_pages, 1);
    assert_eq!(f.pool_of_ppn(b), f.pool_of_lpn(5));
}

#[test]
fn random_overwrites_in_a_range_age_only_that_range_and_leave_cleaning_under_way() {
    let g = geometry(0.07, GcPolicy::Greedy);
    let n = g.logical_pages;
    let (first, pages) = (n / 4, n / 2);
    let mut f = Ftl::new(g).unwrap();
    f.fill_ranges(&[(first, pages)]);
    let before = f.counters();
    f.random_overwrites_in(first, pages, 2 * pages, 7);
    let aged = f.counters();
    assert_eq!(aged.host_pages - before.host_pages, 2 * pages);
    // Half the drive's data, rewritten twice over, fills the spare: cleaning has run.
    assert!(aged.erases > 0 && aged.gc_pages > 0, "{aged:?}");
    for lpn in 0..n {
        assert_eq!(f.lookup(lpn).is_some(), (first..first + pages).contains(&lpn), "lpn {lpn}");
    }
    // Over the whole drive, the same pages as random_overwrites.
    let (mut a, mut b) = (Ftl::new(g).unwrap(), Ftl::new(g).unwrap());
    a.random_overwrites(1000, 3);
    b.random_overwrites_in(0, n, 1000, 3);
    for lpn in 0..n {
        assert_eq!(a.lookup(lpn), b.lookup(lpn), "lpn {lpn}");
    }
}

#[test]
fn a_fill_kept_as_arithmetic_behaves_as_the_page_by_page_fill() {
    let g = geometry(0.07, GcPolicy::Greedy);
    let n = g.logical_pages;
    let ranges = [(0, n / 3), (n / 2, n / 3 + 7)];
    let mut quick = Ftl::new(g).unwrap();
    quick.fill_ranges(&ranges);
    assert!(quick.fill.is_some(), "a fresh drive takes the arithmetic fill");
    let mut slow = Ftl::new(g).unwrap();
    for &(first, pages) in &ranges {
        slow.fill_range(first, pages);
    }
    for lpn in 0..n {
        assert_eq!(quick.lookup(lpn), slow.lookup(lpn), "lpn {lpn}");
    }
    // Overwrites, trims and cleaning then go the same way.
    let mut work = GcWork::default();
    for f in [&mut quick, &mut slow] {
        f.reset_counters();
        let mut rng = SimRng::new(3, 1);
        for i in 0..3 * n {
            let lpn = rng.below(n);
            if i % 17 == 0 {
                f.trim(lpn);
            } else {
                f.write(lpn);
                let pool = f.pool_of_lpn(lpn);
                f.collect_until_ok(pool, &mut work);
            }
        }
    }
    assert!(quick.counters().erases > 0);
    assert_eq!(quick.counters(), slow.counters());
    for lpn in 0..n {
        assert_eq!(quick.lookup(lpn), slow.lookup(lpn), "lpn {lpn}");
        if let Some(ppn) = quick.lookup(lpn) {
            assert_eq!(quick.owner(ppn).map(|(owner, _)| owner), Some(lpn));
        }
    }
}

#[test]
fn gc_keeps_every_logical_page_readable() {
    let mut f = Ftl::new(geometry(0.07, GcPolicy::Greedy)).unwrap();
    f.fill_sequential();
    f.random_overwrites(f.geometry().logical_pages * 2, 7);
    assert!(f.counters().erases > 0);
    // Every logical page maps to a page that maps back to it.
    for lpn in 0..f.geometry().logical_pages {
        let ppn = f.lookup(lpn).expect("written pages stay mapped");
        assert_eq!(f.owner(ppn).map(|(owner, _)| owner), Some(lpn));
    }
    let valid: u64 = f.valid.iter().map(|v| *v as u64).sum();
    assert_eq!(valid, f.geometry().logical_pages);
}

#[test]
fn too_little_over_provisioning_is_an_error() {
    let mut g = geometry(0.0, GcPolicy::Greedy);
    g.logical_pages = g.physical_pages();
    assert!(Ftl::new(g).err().unwrap().contains("over-provisioning"));
}

/// One pool of 64 blocks of 8 pages, 400 logical pages, greedy cleaning.
fn one_pool_of_64_blocks_of_8_pages() -> FtlGeometry {
    FtlGeometry {
        pools: 1,
        blocks_per_pool: 64,
        pages_per_block: 8,
        logical_pages: 400,
        gc_free_blocks: 4,
        gc_policy: GcPolicy::Greedy,
    }
}

#[test]
fn each_write_stream_fills_blocks_of_its_own_and_its_blocks_are_cleaned_into_its_own() {
    // Two streams write alternately.
    let g = one_pool_of_64_blocks_of_8_pages();
    let mut f = Ftl::new(g).unwrap();
    f.set_write_streams(2);
    let block_of = |ppn: Ppn| (ppn / 8) as u32;
    let mut blocks = [Vec::new(), Vec::new()];
    for lpn in 0..32u64 {
        let stream = (lpn % 2) as u16;
        let ppn = f.write_in_stream(lpn, stream);
        blocks[stream as usize].push(block_of(ppn));
    }
    // Each stream's 16 pages fill two whole blocks of its own, page after page.
    for (s, b) in blocks.iter().enumerate() {
        assert!(b.chunks(8).all(|c| c.iter().all(|&x| x == c[0])), "stream {s}: {b:?}");
    }
    assert!(blocks[0].iter().all(|b| !blocks[1].contains(b)), "{blocks:?}");
    // A page never written, mapped on a first read of stream 1, takes stream 1's next page.
    let ppn = f.map_unwritten(100, 1);
    assert_eq!(ppn % 8, 0, "stream 1's third block begins");
    assert!(!blocks[0].contains(&block_of(ppn)));
    // Cleaning a block of stream 1 copies its valid pages into a cleaning block of stream 1 only.
    for lpn in (1..16).step_by(4) {
        f.write_in_stream(lpn, 1); // stale pages in stream 1's first block
    }
    let victim_block = blocks[1][0];
    let mut work = GcWork::default();
    f.move_valid_pages(0, victim_block, &mut work);
    assert_eq!(work.copies.len(), 4, "the first block's pages still valid");
    let gc_block = block_of(work.copies[0].1);
    assert!(work.copies.iter().all(|&(_, to)| block_of(to) == gc_block));
    assert_eq!(f.block_stream[f.global_block(0, gc_block)], 1);
    assert_eq!(f.pools[0].gc_open.as_slice(), [None, Some(gc_block)]);
}

#[test]
fn one_stream_mixes_every_write_and_streams_are_never_fewer() {
    let g = one_pool_of_64_blocks_of_8_pages();
    let mut f = Ftl::new(g).unwrap();
    let first: Vec<u64> = (0..8u64).map(|lpn| f.write(lpn) / 8).collect();
    assert!(first.iter().all(|&b| b == first[0]), "{first:?}");
    f.set_write_streams(3);
    f.set_write_streams(2);
    assert_eq!(f.write_streams(), 3);
    // Stream 0 keeps the block it had open; stream 2 opens one at its first write.
    assert_eq!(f.write_in_stream(8, 0) / 8, first[0] + 1, "stream 0's block was full: the next opens");
    assert_ne!(f.write_in_stream(9, 2) / 8, first[0] + 1);
}

#[test]
fn mqsims_drive_starts_with_each_flows_three_frontiers_taken_from_every_plane() {
    let mut f = Ftl::new(one_pool_of_64_blocks_of_8_pages()).unwrap();
    f.open_frontiers_as_mqsim(2);
    let d = &f.pools[0];
    // Flow s: data 3s, translation 3s + 1 (set aside), cleaning 3s + 2; the free blocks from 6, lowest first.
    assert_eq!(d.host_open.as_slice(), [Some(0), Some(3)]);
    assert_eq!(d.gc_open.as_slice(), [Some(2), Some(5)]);
    assert_eq!(d.set_aside.as_slice(), [1, 4]);
    assert_eq!((d.free.len(), d.free.last()), (58, Some(&6)));
    assert_eq!(f.write_in_stream(7, 1) / 8, 3, "flow 1 writes at its data frontier");
    // A drive written to is left as it is.
    let mut g = Ftl::new(one_pool_of_64_blocks_of_8_pages()).unwrap();
    g.write(0);
    g.open_frontiers_as_mqsim(2);
    assert_eq!(g.write_streams(), 1);
}

/// With copies placed as they are read (MQSim's Allocate_new_page_for_gc when a copy's read is done), taking a
/// victim moves nothing: its valid pages stay where they are and the pool's free blocks stay as they were;
/// each page gets a page of the cleaning block only at place_copy, and a page written since has nothing to
/// copy. The victim is erased once every page has been placed or overwritten.
#[test]
fn copies_placed_when_read_take_their_pages_one_by_one() {
    let g = small_plane(GcPolicy::Randomized { candidates: 8 });
    let mut f = Ftl::new(g).unwrap();
    f.fill_sequential();
    for lpn in [125 * 4, 125 * 4 + 1] {
        f.trim(lpn);
    }
    f.seed_mqsim_rga(432);
    f.open_blocks_eagerly();
    f.place_copies_when_read(10);
    let free = f.free_blocks(0);
    let mut work = GcWork::default();
    assert!(f.take_victim(0, &mut work));
    assert_eq!(work.erased, 125 * 4);
    assert_eq!(work.copies, vec![(125 * 4 + 2, 125 * 4 + 2), (125 * 4 + 3, 125 * 4 + 3)], "listed, not moved");
    assert_eq!(f.free_blocks(0), free, "no cleaning block opened yet");
    assert_eq!(f.lookup(125 * 4 + 2), Some(125 * 4 + 2), "still valid where it was");
    assert_eq!(f.counters().gc_pages, 0);
    // The host overwrites one of them before its copy is read: nothing to place.
    f.write(125 * 4 + 3);
    let to = f.place_copy(125 * 4 + 2).expect("still valid: placed");
    assert_ne!(to / 4, 125, "in the cleaning block");
    assert_eq!(f.lookup(125 * 4 + 2), Some(to));
    assert_eq!(f.place_copy(125 * 4 + 3), None, "overwritten since the victim was taken");
    assert_eq!(f.counters().gc_pages, 1);
    f.erased(125 * 4);
    assert_eq!(f.erasing(0), 0);
}

/// With copies placed as they are read, a victim is taken only if the free blocks (no more than one under
/// the count at which host writes stop) and the cleaning block can hold its copies beside those not yet
/// placed, so that a copy always finds a page.
#[test]
fn a_victim_is_taken_only_with_room_for_its_copies() {
    let g = FtlGeometry { gc_free_blocks: 250, ..small_plane(GcPolicy::Randomized { candidates: 256 }) };
    let mut f = Ftl::new(g).unwrap();
    f.fill_sequential(); // 250 of 256 blocks full: 6 free (one of them opened for the next host write)
    f.trim(0); // block 0: one stale page, three to copy
    f.trim(4 * 7); // block 7 likewise
    f.seed_mqsim_rga(432);
    f.open_blocks_eagerly();
    // Host writes stop under 2 free blocks: only one counts for copies, and one victim's three copies fit.
    f.place_copies_when_read(2);
    let mut work = GcWork::default();
    assert!(f.take_victim(0, &mut work), "three copies fit in one block");
    assert!(!f.take_victim(0, &mut work), "six unplaced copies need two blocks: only one counts");
    assert_eq!(f.erasing(0), 1);
}

#[test]
fn random_overwrites_read_ahead_in_batches_change_nothing_but_speed() {
    // The batches of 32 whose table entries are read ahead (warm_pages, warm_l2p_of_block) write the same pages
    // in the same order as one draw and one write at a time: same mapping, same counters. 1001 random writes end
    // in a part batch; the fill and a range make cleaning and the fill's arithmetic copies take part.
    let g = geometry(0.07, GcPolicy::Greedy);
    let n = g.logical_pages;
    let (first, pages) = (n / 8, n / 2);
    let (mut batched, mut one_by_one) = (Ftl::new(g).unwrap(), Ftl::new(g).unwrap());
    for f in [&mut batched, &mut one_by_one] {
        f.fill_ranges(&[(0, n)]);
        f.random_overwrites_in(0, n, n, 11);
    }
    batched.random_overwrites_in(first, pages, 2 * pages + 1001, 5);
    let mut rng = SimRng::new(5, 0x55d);
    let mut work = GcWork::default();
    for _ in 0..2 * pages + 1001 {
        let lpn = first + rng.below(pages);
        one_by_one.write(lpn);
        let pool = one_by_one.pool_of_lpn(lpn);
        one_by_one.collect_until_ok(pool, &mut work);
    }
    assert!(batched.counters().gc_pages > 0, "cleaning ran: {:?}", batched.counters());
    assert_eq!(batched.counters(), one_by_one.counters());
    for lpn in 0..n {
        assert_eq!(batched.lookup(lpn), one_by_one.lookup(lpn), "lpn {lpn}");
    }
}
