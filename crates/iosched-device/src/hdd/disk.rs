//! The hard disk as a device: one actuator whose position and the platter's rotation are tracked in absolute
//! time, a cache of segments with read-ahead and write-back, command overheads and a host bus. It follows the
//! rules of DiskSim 4.0's disk controller and cache (disksim_diskctlr.c, disksim_diskcache.c), checked request by
//! request against DiskSim itself (`iosched validate --against-disksim`); where it departs from them on purpose,
//! the departure is a named refinement ([`Refinements`](crate::hdd::params::Refinements)), and
//! `conform=disksim` turns them all off.
//!
//! What happens to a command (one at a time, in arrival order; further commands wait in the drive's queue; the
//! read path is in [`read`], the write path in [`write`]):
//! - A read whose blocks are all in a segment is a hit: the read-hit overhead (after a read or after a
//!   write, whichever the previous command was), then the bus transfer, then the completion overhead. A hit
//!   that finds the actuator destaging a write waits for it, as every command that is not a continuation does.
//! - A read that starts inside what a running read-ahead has read is served by that stream: no seek; each
//!   block goes over the bus once it is in the buffer, at once (no water mark). If it runs past the read-ahead's
//!   limit, the read-ahead is taken further first, without a break. Until a read has gone to the host, the
//!   read-ahead behind it may not overwrite what the host has not taken (segments are circular: they keep
//!   their last blocks), and a sector it may not take passes by. A read-ahead that has finished is data in its
//!   segment like any other.
//! - A read larger than its segment is served the same ways (a hit, a partial hit, a join of the read-ahead, as
//!   DiskSim counts them, whatever the size), and the ring holds back its own blocks too: the media may not read
//!   a block while the one a segment before it has not crossed the bus (read.rs, read_through_segment).
//! - A read whose first blocks are in a segment (a partial hit, "Immed transfer partial hit") sends those at
//!   once after the read-hit overhead, while the media reads the rest from the segment's end, with a seek and
//!   rotational wait as for a miss.
//! - Any other read is a miss: the read-miss overhead, then the actuator (once free of background work and
//!   after stopping any read-ahead: the stopped access's last sector or seek is added to the overhead) seeks,
//!   waits for the first sector to come round (the rotational position is a function of absolute time), and
//!   reads track by track, switching heads and cylinders with their skews. Blocks go over the bus as they
//!   arrive (at the bus's per-sector time, after a reselection overhead when the drive disconnected). The drive
//!   then reads ahead into the segment as far as its continuous-read level says (levels 1-3: the maximum
//!   read-ahead past the request, within its track at level 1 and its cylinder at level 2; level 4: to the end
//!   of the track after the request, not bounded by the maximum), and stops when another command needs the
//!   actuator (at once or at the end of the sector under the head, as "Stop prefetch in sector" says; a seek
//!   under way is finished first). A miss takes an empty segment before the least recently used one.
//! - A write with fast writes (any level above 0) completes once its data is in the buffer; the drive destages
//!   it to the media in the background, and a later command that needs the actuator waits for that. A write
//!   that continues the one being destaged joins it (an append) while its segment has room past the data not
//!   yet on the media and no earlier append still waits. Without fast writes a write completes after the media
//!   write. A write empties the other segments holding its blocks, except one reading ahead as it came.
//!   With refinement `reads_before_destage` (on by default; disk/destage.rs), a read that needs the media pauses
//!   the destage once the write being written is on the media, and a read the buffer holds does not wait.
//! - A write's data comes over the bus after its command overhead (and, on a drive with DiskSim's "extra write
//!   disconnect", after a disconnect and a reselection when the refinement `extra_write_disconnect` marks the
//!   write). Each sector is written only if its block is in the buffer as the sector comes under the head, else
//!   the pass goes on from it one turn later; on a drive with extra write disconnects the first sector also
//!   waits until 10 blocks (15 for a write of 45 or more) are in, as DiskSim's disk_buffer_block_available says.
//!   A write positions from the end of its command overhead.
//! - Writes add the write settling delay to every seek or head switch they need.
//! - With a separate write segment (refinement `separate_write_segment`), every write uses that segment and
//!   reads use the others.
//! - Every transfer to the host starts with the data preparation overhead; a command that disconnected pays a
//!   reselection overhead first and cannot reselect before its disconnection is over.
//!
//! Approximations, against DiskSim's disk controller: segments hold one contiguous range each; the drive serves
//! its queue first come first served; disconnection and reselection are charged as fixed overheads, not as bus
//! arbitration; the rotation rate has no error term (DiskSim's fixed-point angle drifts; the model's does not);
//! a read's bus transfer follows the media block by block once it has started, which is DiskSim's behaviour
//! while the bus is slower than the media (with a faster bus DiskSim waits for the water mark again, and the
//! DiskSim file reader warns).

use crate::device::{Completion, Device};
use crate::hdd::layout::Pbn;
use crate::hdd::params::{HddParams, Overheads};
use iosched_core::policy::StatValue;
use iosched_core::request::{Op, Request};
use iosched_core::units::SECTOR_BYTES;
use std::collections::VecDeque;

/// A run of blocks read or written in one pass over a track.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    lbn: u64,
    blocks: u64,
    /// When the first block's sector starts passing under the head.
    start_ns: f64,
    sector_ns: f64,
}

impl Run {
    /// When block `lbn` (in this run) is fully under the head.
    fn done_ns(&self, lbn: u64) -> f64 {
        self.start_ns + (lbn - self.lbn + 1) as f64 * self.sector_ns
    }

    fn end_ns(&self) -> f64 {
        self.start_ns + self.blocks as f64 * self.sector_ns
    }
}

/// When a write's data is in the drive's buffer: block k of the request at `t0_ns + (k + 1) x per_block_ns`, and
/// none of it may go to the media before `not_before_ns`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct WriteData {
    t0_ns: f64,
    per_block_ns: f64,
    not_before_ns: f64,
}

/// Read-ahead in progress into a segment.
#[derive(Clone, Debug)]
struct ReadAhead {
    segment: usize,
    runs: Vec<Run>,
    /// When the head is on the first run's track (a read-ahead started from elsewhere seeks there first).
    on_track_ns: f64,
}

impl ReadAhead {
    /// One past the last block in the buffer at `t_ns`.
    fn valid_end(&self, t_ns: f64) -> u64 {
        let mut end = self.runs.first().map_or(0, |r| r.lbn);
        for r in &self.runs {
            if t_ns >= r.end_ns() {
                end = r.lbn + r.blocks;
            } else {
                if t_ns > r.start_ns {
                    end = r.lbn + ((t_ns - r.start_ns) / r.sector_ns).floor() as u64;
                }
                break;
            }
        }
        end
    }

    fn limit(&self) -> u64 {
        self.runs.last().map_or(0, |r| r.lbn + r.blocks)
    }

    fn done_ns(&self, lbn: u64) -> Option<f64> {
        self.runs.iter().find(|r| lbn >= r.lbn && lbn < r.lbn + r.blocks).map(|r| r.done_ns(lbn))
    }

    /// Forget the leading runs read by `now_ns` that lie wholly before `keep_from` (they have left the circular
    /// segment). Runs still to be read stay, whatever their place: valid_end counts from the first run kept.
    fn forget_read_before(&mut self, keep_from: u64, now_ns: f64) {
        let gone = self.runs.iter().take_while(|r| r.end_ns() <= now_ns && r.lbn + r.blocks <= keep_from).count();
        self.runs.drain(..gone);
    }
}

#[derive(Clone, Debug, Default)]
struct Segment {
    start: u64,
    /// One past the last valid block (when no read-ahead is filling it).
    end: u64,
    last_used: u64,
    /// Holds data not yet on the media until this time.
    dirty_until_ns: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Arm {
    cylinder: u32,
    head: u32,
}

/// Counters of what the drive did.
#[derive(Clone, Debug, Default)]
struct HddStats {
    read_hits: u64,
    read_stream_hits: u64,
    read_partial_hits: u64,
    read_misses: u64,
    fast_writes: u64,
    write_throughs: u64,
    seeks: u64,
    media_blocks: u64,
}

pub struct Hdd {
    p: HddParams,
    period_ns: f64,
    arm: Arm,
    /// When the actuator is free of committed work (a miss's media access, a destage).
    arm_free_ns: f64,
    read_ahead: Option<ReadAhead>,
    segments: Vec<Segment>,
    use_counter: u64,
    last_was_read: bool,
    /// One past the last block of the previous command if it was a read that went to the media: a read
    /// starting there continues the drive's sequential stream.
    stream_continues_at: Option<u64>,
    /// The blocks of the most recent write, [start, end).
    last_write: Option<(u64, u64)>,
    /// One past the last block of the most recent read.
    last_read_end: Option<u64>,
    /// When the head reached the first track of the last media access (before the rotational wait).
    first_on_track_ns: f64,
    /// Commands waiting, in arrival order: (tag, request, arrival).
    queue: VecDeque<(u32, Request, f64)>,
    /// The command in service and its completion time.
    current: Option<(u32, f64)>,
    /// The runs of writes whose media access may not have finished (the destage under way), in order.
    destage: Vec<Run>,
    /// Until when the last write that joined a destage waits for its own media access (DiskSim).
    append_pending_until_ns: f64,
    /// Where the actuator was when a paused destage resumed, while no write has come since
    /// (refinement reads_before_destage).
    resumed_from: Option<Arm>,
    /// The writes whose blocks the destage under way writes, [start, end), in order (refinement
    /// reads_before_destage pauses a destage between two of them).
    destage_writes: Vec<(u64, u64)>,
    /// A destage a read paused, waiting for the actuator to have nothing else to do.
    paused: Option<destage::Paused>,
    /// Scratch for the runs of one media access.
    runs: Vec<Run>,
    /// A cleared run buffer kept for the next read-ahead, so that steady state does not allocate.
    spare_runs: Vec<Run>,
    stats: HddStats,
    /// What the command last begun was: hit, stream (joined the read-ahead), partial, miss, buffered, through.
    last_service: &'static str,
}

impl Hdd {
    pub fn new(p: HddParams) -> Hdd {
        let period_ns = 60e9 / p.rpm;
        let segments = vec![Segment::default(); p.cache.segments.max(1) as usize];
        Hdd {
            period_ns,
            arm: Arm { cylinder: 0, head: 0 },
            arm_free_ns: 0.0,
            read_ahead: None,
            segments,
            use_counter: 0,
            last_was_read: true,
            stream_continues_at: None,
            last_write: None,
            last_read_end: None,
            first_on_track_ns: 0.0,
            queue: VecDeque::new(),
            current: None,
            destage: Vec::new(),
            append_pending_until_ns: 0.0,
            resumed_from: None,
            destage_writes: Vec::new(),
            paused: None,
            runs: Vec::new(),
            spare_runs: Vec::new(),
            stats: HddStats::default(),
            last_service: "",
            p,
        }
    }

    fn seek_ns(&self, from: Arm, to: Pbn, write: bool) -> f64 {
        let distance = from.cylinder.abs_diff(to.cylinder);
        let mut t = self.p.seek.ms(distance) * 1e6;
        if from.head != to.head {
            t = t.max(self.p.head_switch_ns);
        }
        if write && t > 0.0 {
            t += self.p.write_settle_ns;
        }
        t
    }

    /// Time from `t_ns` until the start of the sector at `angle` passes under the head.
    fn rotational_wait_ns(&self, t_ns: f64, angle: f64) -> f64 {
        // Times are never negative, so truncation gives the fractional turn without a call to fmod.
        let turns = t_ns / self.period_ns;
        let position = turns - (turns as u64) as f64;
        let mut wait = angle - position;
        if wait < 0.0 {
            wait += 1.0;
        }
        if wait > 1.0 - 1e-9 {
            wait = 0.0;
        }
        wait * self.period_ns
    }

    /// Access `blocks` blocks from `lbn` with the actuator free from `start_ns`, appending one run per track
    /// to `self.runs`. Returns the end time. For a write, `data` = (t0, ns per block) says block k of the
    /// request is in the buffer at t0 + (k + 1) x ns: a track's pass starts only when every block of it will
    /// be in the buffer by the time its sector comes under the head.
    fn media(
        &mut self,
        start_ns: f64,
        lbn: u64,
        blocks: u64,
        write: bool,
        minimum_positioning_ns: f64,
        data: Option<WriteData>,
    ) -> f64 {
        let mut t = start_ns;
        let mut l = lbn;
        let end = (lbn + blocks).min(self.p.layout.blocks());
        let mut first = true;
        while l < end {
            let (pbn, n) = self.p.layout.locate(l, end - l);
            let mut seek = self.seek_ns(self.arm, pbn, write);
            if first {
                seek = seek.max(minimum_positioning_ns);
                if seek > 0.0 {
                    self.stats.seeks += 1;
                }
                first = false;
            }
            t += seek;
            let spt = self.p.layout.sectors_per_track(pbn.cylinder, pbn.head) as f64;
            let sector_ns = self.period_ns / spt;
            if l == lbn {
                self.first_on_track_ns = t;
            }
            t += self.rotational_wait_ns(t, self.p.layout.sector_angle(pbn));
            match data {
                None => {
                    let run = Run { lbn: l, blocks: n, start_ns: t, sector_ns };
                    t = run.end_ns();
                    self.runs.push(run);
                }
                Some(d) => {
                    let track = WriteData { t0_ns: d.t0_ns + (l - lbn) as f64 * d.per_block_ns, ..d };
                    t = self.write_runs(t, l, n, sector_ns, track)
                }
            }
            self.arm = Arm { cylinder: pbn.cylinder, head: pbn.head };
            l += n;
        }
        self.stats.media_blocks += end - lbn;
        t
    }

    /// Write `blocks` blocks from `lbn`, the head at the first one's sector at `start_ns`, as DiskSim writes: a
    /// sector is written when its block is in the buffer as the sector starts under the head; a sector whose
    /// block has not arrived passes by, and the write goes on from it one turn later. Block k of this track's
    /// blocks is in the buffer at `t0 + (k + 1) x per_block`. Appends one run per unbroken pass and returns
    /// the end time.
    fn write_runs(&mut self, start_ns: f64, lbn: u64, blocks: u64, sector_ns: f64, data: WriteData) -> f64 {
        let WriteData { t0_ns: t0, per_block_ns: per_block, not_before_ns } = data;
        let mut start = start_ns;
        let mut done = 0;
        while done < blocks {
            // How late block `done + k` is at its sector: linear in k, so a pass breaks where it turns positive.
            let lag0 = t0 + (done + 1) as f64 * per_block - start;
            // Too early for this pass's first sector: it comes round again whole turns later.
            let wait = lag0.max(not_before_ns - start);
            if wait > 1e-9 {
                start += (wait / self.period_ns).ceil() * self.period_ns;
                continue;
            }
            let slope = per_block - sector_ns;
            let unbroken =
                if slope > 0.0 { ((-lag0 / slope).floor() as u64 + 1).min(blocks - done) } else { blocks - done };
            let run = Run { lbn: lbn + done, blocks: unbroken, start_ns: start, sector_ns };
            self.runs.push(run);
            start = run.end_ns();
            done += unbroken;
        }
        start
    }

    /// Stop read-ahead at `t_ns`: keep what it read, free the actuator at the end of the sector under the head.
    /// Returns how long after `t_ns` the actuator is free, if a read-ahead was running.
    fn stop_read_ahead(&mut self, t_ns: f64) -> Option<f64> {
        let mut stopped_after_ns = None;
        if let Some(ra) = self.read_ahead.take() {
            let end = ra.valid_end(t_ns);
            let size = self.p.cache.segment_blocks;
            let seg = &mut self.segments[ra.segment];
            seg.end = seg.end.max(end).min(ra.limit());
            // The segment is circular (DiskSim's disk_buffer_segment_wrap): it keeps its last blocks.
            seg.start = seg.start.max(seg.end.saturating_sub(size));
            // As DiskSim's disk_buffer_stopable_access: a head switch or seek under way is finished (the next
            // command's positioning starts from its track, once it is done); otherwise the read-ahead stops now,
            // or at the end of what it is waiting on (the sector under the head, or the rotational wait).
            if let Some(r) = ra.runs.iter().find(|r| t_ns < r.end_ns()) {
                let pbn = self.p.layout.lbn_to_pbn(r.lbn);
                let track = Arm { cylinder: pbn.cylinder, head: pbn.head };
                let stop_now = self.p.cache.stop_read_ahead_in_sector;
                let free_ns = if t_ns > r.start_ns {
                    if stop_now {
                        t_ns
                    } else {
                        r.start_ns + ((t_ns - r.start_ns) / r.sector_ns).ceil() * r.sector_ns
                    }
                } else {
                    // Before this track's first sector: moving to the track, or waiting for the sector.
                    let prev = ra.runs.iter().take_while(|x| x.start_ns < r.start_ns).last();
                    // Its first track: the seek it began with (DiskSim finishes a seek under way, disk_buffer_
                    // stopable_access), then the track.
                    let arrived_ns = prev.map_or(ra.on_track_ns, |p| {
                        let from = self.p.layout.lbn_to_pbn(p.lbn);
                        p.end_ns() + self.seek_ns(Arm { cylinder: from.cylinder, head: from.head }, pbn, false)
                    });
                    // A pause on the same track, sectors passing while the read-ahead may not take them (it must
                    // not overwrite what the host has not taken yet): DiskSim still steps sector by sector, so
                    // the read-ahead stops at the end of the sector under the head.
                    let stalled = prev.is_some_and(|p| {
                        let from = self.p.layout.lbn_to_pbn(p.lbn);
                        (from.cylinder, from.head) == (pbn.cylinder, pbn.head) && p.lbn + p.blocks == r.lbn
                    });
                    if stalled && !stop_now {
                        r.start_ns - ((r.start_ns - t_ns) / r.sector_ns).floor() * r.sector_ns
                    } else if t_ns < arrived_ns {
                        arrived_ns
                    } else if stop_now {
                        t_ns
                    } else {
                        r.start_ns
                    }
                };
                self.arm_free_ns = self.arm_free_ns.max(free_ns);
                self.arm = track;
                stopped_after_ns = Some((free_ns - t_ns).max(0.0));
            }
            let mut runs = ra.runs;
            runs.clear();
            self.spare_runs = runs;
        }
        stopped_after_ns
    }

    /// When a command whose media access may start at `mechanics_ns` (its command overhead over) starts it, the
    /// read-ahead it stopped having left the actuator `stopped_after_ns` after its arrival. DiskSim adds
    /// the two delays (disk_check_hda: what is left of the overhead plus what is left of the stopped access);
    /// refinement overlap_stop_with_overhead lets them run at once.
    fn after_stop_ns(&self, mechanics_ns: f64, stopped_after_ns: Option<f64>) -> f64 {
        match stopped_after_ns {
            Some(after) if !self.p.refinements.overlap_stop_with_overhead => {
                (mechanics_ns + after).max(self.arm_free_ns)
            }
            _ => mechanics_ns.max(self.arm_free_ns),
        }
    }

    fn touch(&mut self, segment: usize) {
        self.use_counter += 1;
        self.segments[segment].last_used = self.use_counter;
    }

    /// The segment kept for writes, if the drive has one (segment 0).
    fn write_segment(&self) -> Option<usize> {
        (self.p.cache.separate_write_segment && self.p.refinements.separate_write_segment && self.segments.len() > 1)
            .then_some(0)
    }

    /// The segments a read may use: all of them but the write segment.
    fn read_segments(&self) -> std::ops::Range<usize> {
        self.write_segment().map_or(0, |w| w + 1)..self.segments.len()
    }

    /// The segments a write may use: the write segment, or all of them.
    fn write_segments(&self) -> std::ops::Range<usize> {
        self.write_segment().map_or(0..self.segments.len(), |w| w..w + 1)
    }

    /// The least recently used segment of `among` whose blocks at `t_ns`, [start, end), `holds` says yes to, as
    /// DiskSim's disk_buffer_select_read_segment takes the first of equally good segments in its list, where
    /// disk_buffer_set_segment puts each segment used at the end. A segment the read-ahead is filling holds the
    /// last segment's worth of what it has read by then (it is circular).
    fn find_holding(
        &self,
        among: std::ops::Range<usize>,
        t_ns: f64,
        holds: impl Fn(u64, u64) -> bool,
    ) -> Option<usize> {
        let size = self.p.cache.segment_blocks;
        let reading = self.read_ahead.as_ref().map(|ra| (ra.segment, ra));
        let mut best: Option<(u64, usize)> = None;
        for i in among {
            let s = &self.segments[i];
            if best.is_some_and(|(used, _)| used <= s.last_used) {
                continue;
            }
            let (start, end) = match reading {
                Some((r, ra)) if r == i => {
                    let end = s.end.max(ra.valid_end(t_ns));
                    (s.start.max(end.saturating_sub(size)), end)
                }
                _ => (s.start, s.end),
            };
            if end > start && holds(start, end) {
                best = Some((s.last_used, i));
            }
        }
        best.map(|(_, i)| i)
    }

    /// The least recently used segment of `among` that holds no unwritten data at `t_ns`.
    fn victim(&self, among: std::ops::Range<usize>, t_ns: f64) -> usize {
        let reading = self.read_ahead.as_ref().map(|r| r.segment);
        // As DiskSim's segment choice: an empty segment before a clean one, the least recently used first.
        among
            .clone()
            .filter(|i| Some(*i) != reading && self.segments[*i].dirty_until_ns <= t_ns)
            .min_by_key(|i| (self.segments[*i].end > self.segments[*i].start, self.segments[*i].last_used))
            .or_else(|| among.min_by_key(|i| self.segments[*i].last_used))
            .expect("a disk has at least one segment")
    }

    fn bus_transfer_end(&self, first_ns: f64, avail: impl Iterator<Item = f64>) -> f64 {
        let mut t = first_ns;
        for a in avail {
            t = t.max(a) + self.p.bus_read_ns_per_block;
        }
        t
    }

    /// Serve one command arriving at `t_ns`; returns its completion time.
    fn serve(&mut self, t_ns: f64, req: &Request) -> f64 {
        let lbn = req.offset_bytes / SECTOR_BYTES;
        let blocks = req.len_bytes.div_ceil(SECTOR_BYTES).max(1);
        let o = self.p.overheads;
        let after_read = self.last_was_read;
        self.settle_paused_destage(t_ns, req.op);
        let done = match req.op {
            Op::Read => self.serve_read(t_ns, lbn, blocks, after_read, req.fua, &o),
            Op::Write => self.serve_write(t_ns, lbn, blocks, after_read, req.fua, &o),
            Op::Trim => t_ns + o.per_request_ns + o.write_complete_ns,
            Op::Flush => {
                // Everything in the buffer reaches the media.
                let t = (t_ns + o.per_request_ns).max(self.arm_free_ns);
                t + o.write_complete_ns
            }
        };
        if matches!(req.op, Op::Read | Op::Write) {
            self.last_was_read = req.op == Op::Read;
        }
        if req.op == Op::Read {
            self.last_read_end = Some(lbn + blocks);
        }
        done
    }

    fn start_next(&mut self, now_ns: f64) {
        if self.current.is_some() {
            return;
        }
        if let Some((tag, req, arrival)) = self.queue.pop_front() {
            let done = self.serve(now_ns.max(arrival), &req);
            self.current = Some((tag, done));
        }
    }
}

impl Device for Hdd {
    fn describe(&self) -> String {
        self.p.name.clone()
    }

    fn rotational(&self) -> bool {
        true
    }

    fn queue_depth(&self) -> u32 {
        self.p.queue_depth.max(1)
    }

    fn capacity_bytes(&self) -> u64 {
        self.p.layout.blocks() * SECTOR_BYTES
    }

    fn submit(&mut self, now_ns: u64, tag: u32, req: &Request) {
        self.queue.push_back((tag, *req, now_ns as f64));
        self.start_next(now_ns as f64);
    }

    fn next_event_ns(&self) -> Option<u64> {
        self.current.map(|(_, done)| done.ceil() as u64)
    }

    fn advance(&mut self, now_ns: u64, completed: &mut Vec<Completion>) {
        while let Some((tag, done)) = self.current {
            if done.ceil() as u64 > now_ns {
                break;
            }
            self.current = None;
            completed.push(Completion { tag, error: 0 });
            self.start_next(done);
        }
    }

    fn last_service(&self) -> Option<&'static str> {
        Some(self.last_service).filter(|s| !s.is_empty())
    }

    fn stats(&self) -> Vec<(String, StatValue)> {
        let s = &self.stats;
        vec![
            ("read_hits".into(), StatValue::Count(s.read_hits)),
            ("read_stream_hits".into(), StatValue::Count(s.read_stream_hits)),
            ("read_partial_hits".into(), StatValue::Count(s.read_partial_hits)),
            ("read_misses".into(), StatValue::Count(s.read_misses)),
            ("fast_writes".into(), StatValue::Count(s.fast_writes)),
            ("write_throughs".into(), StatValue::Count(s.write_throughs)),
            ("seeks".into(), StatValue::Count(s.seeks)),
            ("media_blocks".into(), StatValue::Count(s.media_blocks)),
        ]
    }
}

mod destage;
mod read;
mod write;

#[cfg(test)]
mod tests;
