//! The drive's rules, one test each, on small made-up drives.

use super::*;
use crate::hdd::params::ExtraDisconnect;
use crate::hdd::preset;

fn drive() -> Hdd {
    Hdd::new(preset::load("sata7200").unwrap())
}

/// Block k of a write in the buffer at t0 + (k + 1) x per_block, with no other condition.
fn data(t0_ns: f64, per_block_ns: f64) -> WriteData {
    WriteData { t0_ns, per_block_ns, not_before_ns: 0.0 }
}

#[test]
fn a_write_that_may_not_start_yet_waits_whole_turns_and_then_runs_unbroken() {
    let mut d = drive();
    let sector = d.period_ns / 1000.0;
    // Every block is in long before its sector, but nothing may be written before start + 1.2 turns: the
    // first sector is next under the head two turns after start, and the 8 sectors then go in one pass.
    let start = 1e6;
    let not_before_ns = start + 1.2 * d.period_ns;
    let end = d.write_runs(start, 0, 8, sector, WriteData { t0_ns: 0.0, per_block_ns: 10.0, not_before_ns });
    assert_eq!(d.runs.len(), 1, "{:?}", d.runs);
    assert!((d.runs[0].start_ns - (start + 2.0 * d.period_ns)).abs() < 1e-6);
    assert!((end - (start + 2.0 * d.period_ns + 8.0 * sector)).abs() < 1e-6);
}

/// The sata7200 preset with DiskSim's extra write disconnect, write-through writes and overheads that make
/// the effects below easy to see: a slow bus (1 ms a block), no minimum seek delay.
fn drive_with_extra_disconnect() -> Hdd {
    let mut p = preset::load("sata7200").unwrap();
    p.cache.fast_write_level = 0;
    p.bus_write_ns_per_block = 1e6;
    p.overheads.minimum_seek_ns = 0.0;
    p.overheads.first_reselect_ns = 0.3e6;
    p.overheads.other_reselect_ns = 0.1e6;
    p.overheads.extra_write_disconnect = Some(ExtraDisconnect {
        command_ns: 0.5e6,
        disconnect_ns: 0.1e6,
        inter_disconnect_ns: 2e6,
        seek_delta_ns: 0.0,
        second_disconnect_ns: 0.0,
    });
    // CMU's rule for which writes take it (off by default, see Refinements).
    p.refinements.extra_write_disconnect = true;
    Hdd::new(p)
}

fn write(d: &mut Hdd, at_ns: f64, lbn: u64, blocks: u64) -> f64 {
    d.serve(at_ns, &Request::new(0, Op::Write, lbn * SECTOR_BYTES, blocks * SECTOR_BYTES, 0))
}

#[test]
fn on_a_drive_with_extra_disconnects_a_write_reaches_the_media_only_with_enough_blocks_in() {
    // 8 blocks at 1 ms each: the first sector may be written once all 8 are in (min(8, 10)); 60 blocks:
    // once 15 are in. Without extra disconnects the first block alone is enough.
    for (blocks, needed) in [(8u64, 8u64), (60, 15)] {
        for extra in [true, false] {
            let mut d = drive_with_extra_disconnect();
            if !extra {
                d.p.overheads.extra_write_disconnect = None;
            }
            let t = 1e9;
            write(&mut d, t, 500_000, blocks);
            let data_start = t + d.p.overheads.write_miss_after_read_ns + d.p.overheads.data_prep_ns;
            let first = d.runs.first().expect("the write's runs").start_ns;
            let wanted = if extra { needed } else { 1 };
            assert!(
                first >= data_start + wanted as f64 * 1e6 - 1e-6,
                "{blocks} blocks, extra disconnect {extra}: first sector at {first}, data from {data_start}"
            );
            // And no later than a turn after that: the drive does not wait for more.
            assert!(first < data_start + wanted as f64 * 1e6 + d.period_ns + 1e-6);
        }
    }
}

#[test]
fn only_a_write_over_the_previous_writes_blocks_takes_the_extra_disconnect() {
    // DiskSim's rule: the extra disconnect (and its reselection) delays the data of a write that overlaps
    // the write just before it; a write elsewhere, or one after a read, starts its data after the command
    // overhead. The write completes with the other-reselect overhead when it took the extra disconnect, else
    // with the first-reselect one.
    let cases = [(500_000u64, true), (600_000, false), (500_004, true), (500_008, false)];
    for (lbn, takes) in cases {
        let mut d = drive_with_extra_disconnect();
        let first_done = write(&mut d, 1e9, 500_000, 8);
        let t = first_done + 50e6;
        let done = write(&mut d, t, lbn, 8);
        let o = d.p.overheads;
        let x = o.extra_write_disconnect.unwrap();
        let data_start = if takes {
            t + x.command_ns + x.disconnect_ns + x.inter_disconnect_ns + o.first_reselect_ns + o.data_prep_ns
        } else {
            t + o.write_miss_after_write_ns + o.data_prep_ns
        };
        let first = d.runs.first().unwrap().start_ns;
        assert!(first >= data_start + 8e6 - 1e-6, "write at {lbn}: first sector {first}, data from {data_start}");
        assert!(first < data_start + 8e6 + d.period_ns + 1e-6, "write at {lbn}");
        let media_end = d.runs.last().unwrap().end_ns();
        let reselect = if takes { o.other_reselect_ns } else { o.first_reselect_ns };
        assert!((done - (media_end + reselect + o.write_complete_ns)).abs() < 1e-3, "write at {lbn}");
    }
    // After a read, never.
    let mut d = drive_with_extra_disconnect();
    let first_done = write(&mut d, 1e9, 500_000, 8);
    let read_done = read(&mut d, first_done + 50e6, 700_000, 8);
    let t = read_done + 50e6;
    let done = write(&mut d, t, 500_000, 8);
    let o = d.p.overheads;
    let data_start = t + o.write_miss_after_read_ns + o.data_prep_ns;
    assert!(d.runs.first().unwrap().start_ns < data_start + 8e6 + d.period_ns + 1e-6);
    // Its completion shows it: the first-reselect overhead, not the extra disconnect's other-reselect one.
    let media_end = d.runs.last().unwrap().end_ns();
    assert!((done - (media_end + o.first_reselect_ns + o.write_complete_ns)).abs() < 1e-3, "after a read");
}

#[test]
fn a_write_whose_data_keeps_ahead_of_the_head_is_one_pass() {
    let mut d = drive();
    let sector = d.period_ns / 1000.0;
    // Every block in the buffer well before its sector: one unbroken pass of 8 sectors.
    let end = d.write_runs(1e6, 0, 8, sector, data(0.0, 10.0));
    assert_eq!(d.runs.len(), 1);
    assert!((end - (1e6 + 8.0 * sector)).abs() < 1e-6);
}

#[test]
fn a_sector_whose_block_has_not_arrived_costs_a_turn_mid_track() {
    let mut d = drive();
    let sector = d.period_ns / 1000.0;
    // The bus brings a block every two sector times: block 0 is in just as its sector starts, block 1 is in
    // at start + 2 sectors but its sector starts at start + 1 sector, so the pass breaks after block 0 and
    // goes on from block 1 one turn later.
    let start = 1e6;
    let end = d.write_runs(start, 0, 2, sector, data(start - 2.0 * sector, 2.0 * sector));
    assert_eq!(d.runs.len(), 2, "{:?}", d.runs);
    assert_eq!((d.runs[0].blocks, d.runs[1].blocks), (1, 1));
    assert!((d.runs[1].start_ns - (start + sector + d.period_ns)).abs() < 1e-6);
    assert!((end - (start + 2.0 * sector + d.period_ns)).abs() < 1e-6);
}

#[test]
fn with_a_separate_write_segment_every_write_after_a_write_it_does_not_continue_takes_the_extra_disconnect() {
    // DiskSim's rule with a separate write segment: every write goes to it, so after a write it is the most
    // recently used segment, last used by a write; the extra disconnect is for a write that does not start
    // at that segment's end (the previous write's end). After a read, the read's segment is the most
    // recently used one: never.
    let cases = [(600_000u64, true), (500_004, true), (500_008, false), (400_000, true)];
    for (lbn, takes) in cases {
        for read_between in [false, true] {
            let mut p = drive_with_extra_disconnect().p;
            p.cache.separate_write_segment = true;
            p.refinements.separate_write_segment = true;
            let mut d = Hdd::new(p);
            let mut t = write(&mut d, 1e9, 500_000, 8) + 50e6;
            if read_between {
                t = read(&mut d, t, 900_000, 8) + 50e6;
            }
            let done = write(&mut d, t, lbn, 8);
            let o = d.p.overheads;
            let reselect = if takes && !read_between { o.other_reselect_ns } else { o.first_reselect_ns };
            let media_end = d.runs.last().unwrap().end_ns();
            assert!(
                (done - (media_end + reselect + o.write_complete_ns)).abs() < 1e-3,
                "write at {lbn}, read between {read_between}: done {done}, media end {media_end}"
            );
        }
    }
}

#[test]
fn a_write_that_finds_a_destage_waits_for_it_unless_it_continues_it() {
    // As DiskSim's disk_write_arrive: the destage of the first write cannot be stopped, so a second write
    // elsewhere disconnects and takes its data only once the actuator is free; a write that continues the
    // first (an append to the segment being destaged) goes in at once. Three write segments: a free segment is
    // not what it waits for.
    let mut p = preset::load("sata7200").unwrap();
    p.cache.fast_write_level = 2;
    p.cache.write_segments = 3;
    for (second_at, waits) in [(900_000u64, true), (100_064, false)] {
        let mut d = Hdd::new(p.clone());
        let first_done = write(&mut d, 0.0, 100_000, 64);
        let destaged_ns = d.arm_free_ns;
        assert!(destaged_ns > first_done + 1e6, "the first write completed before its destage");
        let second_done = write(&mut d, first_done, second_at, 64);
        let data_ns = 64.0 * d.p.bus_write_ns_per_block;
        if waits {
            assert!(second_done >= destaged_ns + data_ns, "at {second_at}: done {second_done}, destaged {destaged_ns}");
        } else {
            assert!(second_done < first_done + 2e6 + data_ns, "at {second_at}: done {second_done}");
        }
    }
}

#[test]
fn a_separate_write_segment_keeps_reads_and_writes_apart() {
    // Two segments: with a separate write segment, reads have one. A write neither evicts the read data
    // nor can be read back from the buffer; two reads elsewhere replace each other.
    let mut p = preset::load("sata7200").unwrap();
    p.cache.segments = 2;
    p.cache.fast_write_level = 0;
    p.cache.read_ahead_on_idle_hit = false;
    // Read-ahead short enough to leave a read's blocks in its (circular) segment.
    p.cache.read_ahead_max_blocks = 64;
    // (The refinement that honours the key; off by default.)
    p.refinements.separate_write_segment = true;
    for separate in [false, true] {
        p.cache.separate_write_segment = separate;
        // A read, two writes elsewhere (without a write segment the second takes the read's segment), the
        // read again, then a read of the second write's blocks.
        let mut d = Hdd::new(p.clone());
        let mut t = read(&mut d, 0.0, 100_000, 8) + 50e6;
        t = write(&mut d, t, 300_000, 8) + 50e6;
        t = write(&mut d, t, 500_000, 8) + 50e6;
        t = read(&mut d, t, 100_000, 8) + 50e6;
        assert_eq!(d.stats.read_hits, u64::from(separate), "separate {separate}: the writes left the read alone");
        t = read(&mut d, t, 500_000, 8) + 50e6;
        assert_eq!(d.stats.read_hits, 1, "separate {separate}: a read of write data");
        // Reads at two places, then the first again: a hit only with two segments for reads.
        let mut d = Hdd::new(p.clone());
        t = read(&mut d, t, 100_000, 8) + 50e6;
        t = read(&mut d, t, 700_000, 8) + 50e6;
        read(&mut d, t, 100_000, 8);
        assert_eq!(d.stats.read_hits, u64::from(!separate), "separate {separate}: reads in one segment");
    }
}

#[test]
fn a_first_block_not_yet_in_waits_whole_turns() {
    let mut d = drive();
    let sector = d.period_ns / 1000.0;
    // Block 0 arrives 2.5 turns after the head first passes its sector: the write starts 3 turns later.
    let start = 1e6;
    let end = d.write_runs(start, 0, 1, sector, data(start + 2.5 * d.period_ns - sector, sector));
    assert!((d.runs[0].start_ns - (start + 3.0 * d.period_ns)).abs() < 1e-6);
    assert!((end - d.runs[0].end_ns()).abs() < 1e-6);
}

fn read(d: &mut Hdd, at_ns: f64, lbn: u64, blocks: u64) -> f64 {
    d.serve(at_ns, &Request::new(0, Op::Read, lbn * SECTOR_BYTES, blocks * SECTOR_BYTES, 0))
}

/// The sata7200 preset without read-ahead, so that a read leaves exactly its own blocks in its segment.
fn drive_without_read_ahead(immediate_partial_hits: bool) -> Hdd {
    let mut p = preset::load("sata7200").unwrap();
    p.cache.continuous_read = 0;
    p.cache.immediate_partial_hits = immediate_partial_hits;
    Hdd::new(p)
}

#[test]
fn the_read_watermark_is_a_share_of_the_request_or_of_a_segment() {
    // A 16-block read miss on a fresh drive whose bus (1 ms a block) is far slower than the media: the read
    // completes a fixed time after its transfer starts, and the transfer starts once the watermark is in.
    let completion = |of_request: bool, watermark: f64| {
        let mut d = drive_without_read_ahead(true);
        d.p.bus_read_ns_per_block = 1e6;
        d.p.read_watermark_of_request = of_request;
        d.p.read_watermark = watermark;
        read(&mut d, 0.0, 0, 16)
    };
    let segment = drive_without_read_ahead(true).p.cache.segment_blocks as f64;
    assert!(segment >= 32.0, "the test needs segments of 32 blocks or more, has {segment}");
    let half_of_request = completion(true, 0.5);
    let whole_request = completion(true, 1.0);
    assert!(whole_request > half_of_request, "{whole_request} vs {half_of_request}");
    // Half a segment is more than the request: the transfer waits for all of it.
    assert_eq!(completion(false, 0.5), whole_request);
    // 8 blocks' worth of segment (rounded up, as DiskSim) is the same mark as half of this request.
    assert_eq!(completion(false, 7.5 / segment), half_of_request);
}

#[test]
fn a_partial_hit_is_never_slower_than_a_miss_and_skips_the_wait_for_blocks_it_holds() {
    // 400 blocks at 100,000, then 400 starting half-way in (200 in the buffer), at 100 moments spread over
    // one turn. As a miss the drive waits for block 100,200 to come round; as a partial hit only for
    // 100,400. Both then read on to 100,599, so the partial hit is never later, and is most of a turn
    // earlier whenever the head is between the two when the command starts (200 of the track's sectors).
    let period_ns = 60e9 / 7200.0;
    let mut saved = Vec::new();
    for step in 0..100 {
        let mut ends = Vec::new();
        for immediate in [true, false] {
            let mut d = drive_without_read_ahead(immediate);
            let later = read(&mut d, 0.0, 100_000, 400) + 50e6 + period_ns * step as f64 / 100.0;
            ends.push(read(&mut d, later, 100_200, 400) - later);
            assert_eq!(d.stats.read_partial_hits, u64::from(immediate));
            let segment = d.segments.iter().find(|s| s.end == 100_600).expect("the segment holds the request's end");
            assert!(segment.start <= 100_200, "{segment:?}");
        }
        assert!(ends[0] <= ends[1] + 1.0, "step {step}: partial hit {} ns, as a miss {} ns", ends[0], ends[1]);
        saved.push(ends[1] - ends[0]);
    }
    let big = saved.iter().filter(|s| **s > 0.5 * period_ns).count();
    assert!((5..=60).contains(&big), "more than half a turn saved in {big} of 100 cases: {saved:?}");
}

#[test]
fn a_read_joining_a_running_read_ahead_past_its_limit_takes_it_further_without_a_break() {
    let mut d = Hdd::new(preset::load("sata7200").unwrap());
    let first_done = read(&mut d, 0.0, 200_000, 8);
    let ra = d.read_ahead.as_ref().expect("reading ahead");
    let (limit, old_end_ns) = (ra.limit(), ra.runs.last().unwrap().end_ns());
    // While it reads ahead, once 32 blocks short of its limit: a read of those 32 and 64 more.
    let at_ns = ra.done_ns(limit - 32).unwrap();
    assert!(at_ns > first_done && at_ns < old_end_ns);
    read(&mut d, at_ns, limit - 32, 96);
    assert_eq!((d.stats.read_stream_hits, d.stats.read_misses, d.stats.read_partial_hits), (1, 1, 0));
    let ra = d.read_ahead.as_ref().unwrap();
    assert!(ra.limit() >= limit + 64);
    // The block past the old limit is read on from where the read-ahead stopped: at most a head or cylinder
    // switch later, not a rotational wait for it to come round.
    let next_ns = ra.done_ns(limit).expect("read by the extended read-ahead");
    assert!(next_ns - old_end_ns < 0.5 * 60e9 / 7200.0, "{} ns after the old limit", next_ns - old_end_ns);
}

#[test]
fn a_stopped_read_ahead_frees_the_actuator_as_disksims_stop_in_sector_says() {
    for stop_in_sector in [false, true] {
        let mut p = preset::load("sata7200").unwrap();
        p.cache.stop_read_ahead_in_sector = stop_in_sector;
        // Mid-sector: at once, or at the end of the sector.
        let mut d = Hdd::new(p.clone());
        read(&mut d, 0.0, 200_000, 8);
        let r = d.read_ahead.as_ref().unwrap().runs[0];
        let t = r.start_ns + 2.5 * r.sector_ns;
        d.stop_read_ahead(t);
        let expected = if stop_in_sector { t } else { r.start_ns + 3.0 * r.sector_ns };
        assert!((d.arm_free_ns - expected).abs() < 1e-6, "stop in sector {stop_in_sector}: {}", d.arm_free_ns);
        // During a head switch between two tracks of the read-ahead: the switch is finished first, and the
        // next command starts from the new track.
        let mut d = Hdd::new(p);
        read(&mut d, 0.0, 200_000, 8);
        let runs = d.read_ahead.as_ref().unwrap().runs.clone();
        let (prev, next) = runs
            .windows(2)
            .map(|w| (w[0], w[1]))
            .find(|(a, b)| b.start_ns > a.end_ns() + 1.0)
            .expect("the read-ahead crosses a track");
        let (from, to) = (d.p.layout.lbn_to_pbn(prev.lbn), d.p.layout.lbn_to_pbn(next.lbn));
        let switched_ns = prev.end_ns() + d.seek_ns(Arm { cylinder: from.cylinder, head: from.head }, to, false);
        assert!(switched_ns > prev.end_ns() && switched_ns <= next.start_ns + 1e-6);
        d.stop_read_ahead((prev.end_ns() + switched_ns) / 2.0);
        assert!((d.arm_free_ns - switched_ns).abs() < 1e-6, "{} against {switched_ns}", d.arm_free_ns);
        assert_eq!(d.arm, Arm { cylinder: to.cylinder, head: to.head });
    }
}

#[test]
fn a_read_past_a_finished_read_ahead_is_a_partial_hit() {
    let mut d = Hdd::new(preset::load("sata7200").unwrap());
    read(&mut d, 0.0, 300_000, 8);
    let ra = d.read_ahead.as_ref().unwrap();
    let (limit, old_end_ns) = (ra.limit(), ra.runs.last().unwrap().end_ns());
    read(&mut d, old_end_ns + 20e6, limit - 32, 96);
    assert_eq!((d.stats.read_stream_hits, d.stats.read_misses, d.stats.read_partial_hits), (0, 1, 1));
}

#[test]
fn a_read_served_by_the_read_ahead_holds_it_back_until_the_host_has_its_blocks() {
    // A 64-block circular segment and read-ahead 200 blocks past a read: a read of the next 8 blocks joins the
    // read-ahead, over a bus slower than the media (50 µs a block against 6.3); until it has gone to the host,
    // the read-ahead may not overwrite a block it has not taken (DiskSim's disk_buffer_block_available), so the
    // read of the next 9 blocks, arriving as it completes, still finds them in the segment.
    let mut p = preset::load("sata7200").unwrap();
    p.cache.segment_blocks = 64;
    p.cache.continuous_read = 3;
    p.cache.read_ahead_max_blocks = 200;
    p.bus_read_ns_per_block = 1_000.0;
    let mut d = Hdd::new(p);
    let lbn = 400_000;
    let first_done = read(&mut d, 0.0, lbn, 15);
    assert!(d.read_ahead.as_ref().is_some_and(|ra| ra.valid_end(first_done) < lbn + 64), "reading ahead");
    d.p.bus_read_ns_per_block = 50_000.0;
    let second_done = read(&mut d, first_done, lbn + 15, 8);
    assert_eq!(d.last_service(), Some("stream"));
    // Unheld, the read-ahead would be well past lbn + 23 + 64 by now.
    let ra = d.read_ahead.as_ref().unwrap();
    assert!(ra.valid_end(second_done) <= lbn + 23 + 64, "read ahead to {}", ra.valid_end(second_done) - lbn);
    read(&mut d, second_done, lbn + 23, 9);
    assert!(matches!(d.last_service(), Some("stream" | "hit")), "{:?}", d.last_service());
    assert_eq!(d.stats.read_misses, 1);
}

#[test]
fn an_append_sends_what_the_segment_has_room_for_and_the_rest_at_its_own_accesss_water_mark() {
    // DiskSim's appends (conform=disksim): a 64-block segment, a bus slower than the media (20 µs a block).
    let drive = || {
        let mut p = preset::load("sata7200").unwrap();
        p.cache.segment_blocks = 64;
        p.bus_write_ns_per_block = 20_000.0;
        p.refinements = crate::hdd::params::Refinements::DISKSIM;
        Hdd::new(p)
    };
    let turn_ns = 60e9 / 7200.0;
    let lbn = 30_000_000;
    // A 9-block write far from the head, then at once a 61-block write after it: 55 blocks fit beside the 9 not
    // yet on the media; the destage is still seeking when they are in, so the drive disconnects, and the last
    // 6 cross the bus once the append's own access comes round to its first sector, after the destage.
    let mut d = drive();
    let a_done = write(&mut d, 0.0, lbn, 9);
    let b_done = write(&mut d, a_done, lbn + 9, 61);
    assert_eq!(d.last_service(), Some("buffered"));
    assert!(b_done - a_done > turn_ns, "the rest waited {} ms", (b_done - a_done) / 1e6);
    // It reconnects once that access has written all but the low water mark of the 64 blocks in: one block
    // (the least there is), or with a water mark of half the request, 30 (61 x 0.5, rounded down): 29 sectors
    // earlier.
    let mut d = drive();
    d.p.write_watermark = 0.5;
    let a_done = write(&mut d, 0.0, lbn, 9);
    let b_done_half = write(&mut d, a_done, lbn + 9, 61);
    let sector_ns = d.destage[0].sector_ns;
    let earlier = (b_done - b_done_half) / sector_ns;
    assert!((earlier - 29.0).abs() < 0.01, "{earlier} sectors earlier");
    // A 40-block write after a 40-block write whose destage is under way: 34 blocks fit, and by the time they
    // are in, the destage has made room for the other 6, which follow at once.
    let mut d = drive();
    write(&mut d, 0.0, lbn, 40);
    let destage = d.destage[0];
    let at_ns = destage.start_ns + 10.0 * destage.sector_ns;
    let b_done = write(&mut d, at_ns, lbn + 40, 40);
    let bus_ns = 40.0 * 20_000.0;
    assert!(b_done - at_ns < bus_ns + 1e6, "took {} ms", (b_done - at_ns) / 1e6);
}

#[test]
fn a_write_larger_than_a_segment_sends_the_rest_at_the_write_water_mark() {
    // A 100-block write into 64-block segments over a 20 µs bus: the first 64 go at once, the drive disconnects,
    // and reconnects for the other 36 once the media has written all but the low water mark of them (one block;
    // with half the request, 32, as min(100, 64) x 0.5): 31 sectors earlier.
    let done = |watermark: f64| {
        let mut p = preset::load("sata7200").unwrap();
        p.cache.segment_blocks = 64;
        p.bus_write_ns_per_block = 20_000.0;
        p.write_watermark = watermark;
        let mut d = Hdd::new(p);
        let done = write(&mut d, 0.0, 30_000_000, 100);
        (done, d.destage[0].sector_ns)
    };
    let (at_least_one, sector_ns) = done(0.0);
    let (half, _) = done(0.5);
    let earlier = (at_least_one - half) / sector_ns;
    assert!((earlier - 31.0).abs() < 0.01, "{earlier} sectors earlier");
}

/// The sata7200 preset with reads_before_destage as given, after `count` sequential 128 KiB writes from block
/// 1,000,000, each appended to the destage under way; and when the last completed.
fn sequential_writes(reads_first: bool, count: u64) -> (Hdd, f64) {
    let mut p = preset::load("sata7200").unwrap();
    p.refinements.reads_before_destage = reads_first;
    let mut d = Hdd::new(p);
    let mut t = 0.0;
    for k in 0..count {
        t = write(&mut d, t, 1_000_000 + k * 256, 256);
    }
    (d, t)
}

#[test]
fn with_reads_before_destage_a_read_waits_for_the_write_being_written_not_the_whole_stream() {
    // Eight sequential 128 KiB writes, each appended to the destage under way, then a read miss far away.
    // DiskSim's rule: the read waits until every appended write is on the media. The refinement: once the
    // write being written is, the rest staying in the buffer; a later write resumes the destage, and a flush
    // waits for all of it.
    let read_far = |reads_first: bool| {
        let (mut d, t) = sequential_writes(reads_first, 8);
        let destage_end_ns = d.arm_free_ns;
        let read_done = d.serve(t, &Request::new(1, Op::Read, 300_000_000 * SECTOR_BYTES, 8 * SECTOR_BYTES, 0));
        let flushed = d.serve(read_done, &Request::new(2, Op::Flush, 0, 0, 0));
        (t, destage_end_ns, read_done, flushed)
    };
    let (t, destage_end_ns, disksim_read, _) = read_far(false);
    assert!(destage_end_ns > t + 5e6, "the writes' destage should outlast them by several writes");
    assert!(disksim_read > destage_end_ns, "DiskSim's rule: the read after the whole destage");
    let (_, _, read, flush) = read_far(true);
    // It waits for one 128 KiB write on the media at most (under 2 ms at this drive's media rate), not for the
    // 7.5 ms of destage left.
    assert!(read < disksim_read - 5e6, "read done {read}, with DiskSim's rule {disksim_read}");
    // Nothing is lost: the flush waits for every block, which now goes to the media after the read.
    assert!(flush > read + 5e6, "flush {flush}, read {read}");
}

#[test]
fn with_reads_before_destage_a_read_the_buffer_holds_does_not_wait_for_the_destage() {
    let (mut d, t) = sequential_writes(true, 4);
    assert!(d.arm_free_ns > t + 2e6);
    // The last write's blocks are in the buffer: a hit.
    let done = d.serve(t, &Request::new(1, Op::Read, (1_000_000 + 3 * 256) * SECTOR_BYTES, 8 * SECTOR_BYTES, 0));
    assert_eq!(d.last_service, "hit");
    assert!(done < t + 1e6, "a hit waited {} ms for the destage", (done - t) / 1e6);
}
