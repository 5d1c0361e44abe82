//! The drive's read path: hits, partial hits and misses, the read water mark at which the bus transfer starts,
//! and read-ahead after a read (how far, behind the host's transfer, continued by a later read of the stream).

use super::*;

impl Hdd {
    /// Blocks of a `blocks`-block read that must be buffered before its bus transfer starts.
    fn read_watermark_blocks(&self, blocks: u64) -> u64 {
        let segment = self.p.cache.segment_blocks;
        // As DiskSim's disk_buffer_set_segment: a share of the request rounded down, or of the segment rounded up.
        let share = if self.p.read_watermark_of_request {
            (blocks.min(segment) as f64 * self.p.read_watermark) as u64
        } else {
            (segment as f64 * self.p.read_watermark + 0.9999999999) as u64
        };
        share.clamp(1, blocks)
    }

    /// The read-hit overhead: the fast path when the read continues the stream of the previous read that
    /// went to the media, the slower one otherwise. The measured Cheetah 9LP shows this (sequential hits
    /// after a media read take 0.49 ms, any other hit about 0.67 ms); DiskSim's parameters name the two
    /// overheads "after read" and "after write".
    fn read_hit_overhead(&self, lbn: u64, o: &Overheads) -> f64 {
        // DiskSim: by the previous command's type.
        let by_previous = if self.last_was_read { o.read_hit_after_read_ns } else { o.read_hit_after_write_ns };
        if self.p.refinements.stream_hit_overhead && self.last_was_read && self.stream_continues_at != Some(lbn) {
            // Off the media stream: the slower of the drive's two hit paths.
            by_previous.max(o.read_hit_after_write_ns)
        } else {
            by_previous
        }
    }

    /// A forced-unit-access read (`fua`) is served from the media: it neither hits nor joins the buffer.
    pub(super) fn serve_read(
        &mut self,
        t_ns: f64,
        lbn: u64,
        blocks: u64,
        after_read: bool,
        fua: bool,
        o: &Overheads,
    ) -> f64 {
        // As DiskSim: every data transfer to the host starts with the data preparation overhead.
        let prep = o.data_prep_ns;
        let end = lbn + blocks;
        let c = self.p.cache;
        let may_hit = c.enabled && !fua;
        // A read-ahead that has finished is plain data in its segment: a read of it is a hit or a partial hit
        // below, and reading on after a hit is "Read-ahead on idle hit"'s business, as for any other segment.
        if self.read_ahead.as_ref().is_some_and(|ra| ra.runs.last().is_none_or(|r| r.end_ns() <= t_ns)) {
            self.stop_read_ahead(t_ns);
        }
        // Served by the read-ahead still running? A read that starts in what it has read joins it (DiskSim's
        // access swap: a whole or partial hit on a reading segment); if it runs past the limit, the read-ahead is
        // taken further first, without a break (DiskSim raises the segment's read-ahead limit for each read that
        // joins). A read starting right where the read-ahead is, on a block not yet read, is a miss in DiskSim
        // (unless "Allow almost read hits"): it stops the read-ahead and positions again.
        let joins = self.read_ahead.as_ref().is_some_and(|ra| {
            let seg = &self.segments[ra.segment];
            let valid_end = ra.valid_end(t_ns);
            let valid_start = seg.start.max(valid_end.saturating_sub(c.segment_blocks));
            let inside = lbn < valid_end || (self.p.refinements.join_at_read_ahead_frontier && lbn == valid_end);
            may_hit && lbn >= valid_start && inside
        });
        let beyond_limit = joins && end > self.read_ahead.as_ref().map_or(0, ReadAhead::limit);
        if beyond_limit {
            // As DiskSim (disk_read_arrive): the media may move once the read-miss overhead is over, hit or not.
            let miss_overhead = if after_read { o.read_miss_after_read_ns } else { o.read_miss_after_write_ns };
            let resume_ns = t_ns + o.per_request_ns + miss_overhead;
            self.extend_read_ahead(lbn, end, t_ns, resume_ns);
        }
        if let Some(ra) = self.read_ahead.as_ref().filter(|_| joins) {
            let buffered_end = ra.valid_end(t_ns);
            let first_ready = buffered_end > lbn;
            let overhead = o.per_request_ns
                + if first_ready {
                    self.read_hit_overhead(lbn, o)
                } else if after_read {
                    o.read_miss_after_read_ns
                } else {
                    o.read_miss_after_write_ns
                };
            let start = t_ns + overhead + prep;
            let avail = |b: u64| ra.done_ns(b).unwrap_or(start);
            // As a hit, the transfer starts with what is in the buffer and follows the media (no water mark: that
            // is for reconnecting); only a read not yet able to send a block waits for the water mark.
            let first_ns =
                if first_ready { start } else { start.max(avail(lbn + self.read_watermark_blocks(blocks) - 1)) };
            let through_segment = end > lbn + c.segment_blocks;
            let bus_end = if through_segment {
                // Larger than its segment: the read-ahead, now this read's, may not run a segment ahead of the
                // host (see read_through_segment). Its limit is raised first, as DiskSim raises it when the read
                // takes the segment over (the segment's start then decides a level-4 read-ahead's last track).
                if !beyond_limit {
                    self.extend_read_ahead(lbn, end, t_ns, t_ns);
                }
                let mut ra = self.read_ahead.take().expect("joined a read-ahead");
                let limit = ra.limit();
                let runs = std::mem::take(&mut ra.runs);
                let from = runs.first().map_or(lbn, |r| r.lbn);
                let (bus_end, gated) = self.read_through_segment((lbn, end), limit, from, start, first_ns, runs);
                ra.runs = gated;
                // Forget what had been read when the read came and has left the segment.
                ra.forget_read_before(ra.limit().saturating_sub(c.segment_blocks), t_ns);
                self.read_ahead = Some(ra);
                bus_end
            } else {
                self.bus_transfer_end(first_ns, (lbn..end).map(avail))
            };
            let segment = self.read_ahead.as_ref().expect("joined a read-ahead").segment;
            self.touch(segment);
            self.stats.read_stream_hits += 1;
            self.last_service = "stream";
            // A read the media had to be sent further for is a media read: the next one continuing it is
            // the drive's sequential stream.
            self.stream_continues_at = beyond_limit.then_some(end);
            if !beyond_limit && !through_segment {
                // Keep pace with the reader (a read beyond the limit has just taken the read-ahead as far).
                self.extend_read_ahead(lbn, end, t_ns, t_ns);
            }
            if !through_segment {
                self.hold_read_ahead_behind_host((lbn, end), (first_ns, bus_end));
            }
            return bus_end + o.read_complete_ns;
        }
        // A hit in a segment?
        let hit = self.find_holding(self.read_segments(), t_ns, |s, e| lbn >= s && end <= e);
        if let Some(segment) = hit.filter(|_| may_hit) {
            self.touch(segment);
            self.stats.read_hits += 1;
            self.last_service = "hit";
            let hit_overhead = self.read_hit_overhead(lbn, o);
            self.stream_continues_at = None;
            // With reads_before_destage a hit is served from the buffer while the destage goes on.
            let start = if self.arm_free_ns > t_ns && !self.p.refinements.reads_before_destage {
                // As DiskSim (disk_read_arrive): while the actuator does work that cannot be stopped (a destage),
                // even a hit disconnects after the read-miss overhead, and reconnects to send its data once that
                // work is done.
                let (command, disconnect) = if after_read {
                    (o.read_miss_after_read_ns, o.read_disconnect_after_read_ns)
                } else {
                    (o.read_miss_after_write_ns, o.read_disconnect_after_write_ns)
                };
                (t_ns + o.per_request_ns + command + disconnect).max(self.arm_free_ns) + o.first_reselect_ns + prep
            } else {
                t_ns + o.per_request_ns + hit_overhead + prep
            };
            let done = start + blocks as f64 * self.p.bus_read_ns_per_block + o.read_complete_ns;
            // As DiskSim: the read-ahead after a hit may move the media once the read-miss overhead is over.
            let miss_overhead = if after_read { o.read_miss_after_read_ns } else { o.read_miss_after_write_ns };
            let media_ns = t_ns + o.per_request_ns + miss_overhead;
            if c.read_ahead_on_idle_hit && self.arm_free_ns <= media_ns {
                // A read-ahead running elsewhere stops for this one (disk_activate_read).
                let stopped_after_ns = self.stop_read_ahead(t_ns);
                let seg_end = self.segments[segment].end;
                let start_ns = self.after_stop_ns(media_ns, stopped_after_ns);
                self.start_read_ahead(segment, seg_end, start_ns, (lbn, end));
            }
            return done;
        }
        // A partial hit: the first blocks are in a segment. They go over the bus at once (DiskSim's "Immed
        // transfer partial hit") while the media reads on from the segment's end into the same segment.
        // Data not yet destaged counts too: a segment holds write data only where reads may hit it.
        let partial = self
            .find_holding(self.read_segments(), t_ns, |s, e| lbn >= s && lbn < e)
            .filter(|_| may_hit && c.immediate_partial_hits);
        // With reads_before_destage, the destage under way stops for this read and resumes after it.
        let paused = self.pause_destage(t_ns);
        // As DiskSim: while the actuator destages, the drive disconnects after the read-miss overhead even for a
        // partial hit, and sends the blocks it holds once it has the actuator.
        let waits_for_destage = self.arm_free_ns > t_ns;
        // A miss.
        let overhead = o.per_request_ns
            + match (partial.is_some() && !waits_for_destage, after_read) {
                (true, _) => self.read_hit_overhead(lbn, o),
                (false, true) => o.read_miss_after_read_ns,
                (false, false) => o.read_miss_after_write_ns,
            };
        let command_done = t_ns + overhead;
        let buffered_ns = if waits_for_destage { self.arm_free_ns } else { command_done };
        let stopped_after_ns = self.stop_read_ahead(t_ns);
        // As DiskSim: the media may move once the read-miss overhead is over, for a partial hit too.
        let miss_overhead = if after_read { o.read_miss_after_read_ns } else { o.read_miss_after_write_ns };
        let media_start = self.after_stop_ns(t_ns + o.per_request_ns + miss_overhead, stopped_after_ns);
        let (segment, media_from) = match partial {
            Some(segment) => {
                self.stats.read_partial_hits += 1;
                self.last_service = "partial";
                (segment, self.segments[segment].end)
            }
            None => {
                self.stats.read_misses += 1;
                self.last_service = "miss";
                (self.victim(self.read_segments(), media_start), lbn)
            }
        };
        let total = if c.enabled { self.read_ahead_target(lbn, end, lbn) - media_from } else { blocks };
        // The request's blocks first; the read-ahead after them depends on how fast the host takes them.
        self.runs.clear();
        self.media(media_start, media_from, end - media_from, false, 0.0, None);
        let mut runs = std::mem::take(&mut self.runs);
        let request_end_ns =
            runs.iter().find(|r| end > r.lbn && end <= r.lbn + r.blocks).map_or(media_start, |r| r.done_ns(end - 1));
        let avail = |b: u64| {
            if b < media_from {
                return buffered_ns; // in the buffer
            }
            runs.iter().find(|r| b >= r.lbn && b < r.lbn + r.blocks).map_or(request_end_ns, |r| r.done_ns(b))
        };
        let mark_ns = avail(lbn + self.read_watermark_blocks(blocks) - 1);
        // Enough in the buffer (a partial hit): no disconnection, so no reselection either. Otherwise the drive
        // reselects once the watermark is in and its disconnection is over.
        // A partial hit sends the blocks it holds at once (DiskSim's "Immed transfer partial hit": no water mark),
        // the rest following the media.
        let bus_start = if (mark_ns <= command_done || partial.is_some()) && !waits_for_destage {
            command_done + prep
        } else {
            let disconnect =
                if after_read { o.read_disconnect_after_read_ns } else { o.read_disconnect_after_write_ns };
            mark_ns.max(command_done + disconnect) + o.first_reselect_ns + prep
        };
        let through_segment = c.enabled && end > lbn + c.segment_blocks && end > media_from;
        let bus_end = if through_segment {
            // Larger than its segment: the media may not run a segment ahead of the host, nor the read-ahead
            // after it.
            let target = media_from + total;
            if target > end {
                let first_on_track_ns = self.first_on_track_ns;
                let t = runs.last().map_or(media_start, Run::end_ns);
                self.runs.clear();
                self.media(t, end, target - end, false, 0.0, None);
                runs.append(&mut self.runs);
                self.first_on_track_ns = first_on_track_ns;
            }
            let (bus_end, gated) =
                self.read_through_segment((lbn, end), target, media_from, buffered_ns, bus_start, runs);
            runs = gated;
            bus_end
        } else {
            self.bus_transfer_end(bus_start, (lbn..end).map(avail))
        };
        let request_end_ns =
            runs.iter().find(|r| end > r.lbn && end <= r.lbn + r.blocks).map_or(request_end_ns, |r| r.done_ns(end - 1));
        if media_from + total > end && !through_segment {
            let first_on_track_ns = self.first_on_track_ns;
            self.read_ahead_behind_host(&mut runs, (lbn, end), media_from + total, (bus_start, bus_end));
            self.first_on_track_ns = first_on_track_ns;
        }
        self.stream_continues_at = Some(end);
        self.arm_free_ns = request_end_ns;
        // Read any free blocks: the sectors of the first track that passed under the head while it waited for
        // the first requested one are in the buffer too, with refinement free_blocks_before_request. DiskSim reads
        // the key, but its runs keep none of them: on the Atlas 10K's real trace, per request, it waits for the
        // first sector and misses on re-reads of the blocks before it (iosched with conform=disksim agrees with it
        // within 0.020 ms there, 0.155 when it kept the blocks of a head landing past the first sector).
        let mut first_kept = lbn;
        if c.enabled && c.read_free_blocks && partial.is_none() {
            if let Some(first) = runs.first() {
                let passed = ((first.start_ns - self.first_on_track_ns) / first.sector_ns).floor() as u64;
                let before_on_track = self.p.layout.lbn_to_pbn(lbn).sector as u64;
                if self.p.refinements.free_blocks_before_request {
                    first_kept = lbn - passed.min(before_on_track).min(c.segment_blocks.saturating_sub(total));
                }
            }
        }
        let seg = &mut self.segments[segment];
        // A partial hit's segment keeps its older blocks as far as its size allows (the segment is circular: the
        // last segment's worth of what it holds, as the read-ahead goes on).
        seg.end = if c.enabled { end } else { lbn };
        seg.start = match partial {
            Some(_) => seg.start.max(seg.end.saturating_sub(c.segment_blocks)),
            None => first_kept,
        };
        seg.dirty_until_ns = 0.0;
        self.touch(segment);
        if c.enabled && media_from + total > end {
            // What is left past the request is the read-ahead: trim the runs in place.
            runs.retain_mut(|r| {
                if r.lbn + r.blocks <= end {
                    return false;
                }
                if r.lbn < end {
                    let skip = end - r.lbn;
                    r.start_ns += skip as f64 * r.sector_ns;
                    r.blocks -= skip;
                    r.lbn = end;
                }
                true
            });
            if !runs.is_empty() {
                self.read_ahead = Some(ReadAhead { segment, runs, on_track_ns: 0.0 });
                runs = std::mem::take(&mut self.spare_runs);
            }
        }
        runs.clear();
        self.runs = runs;
        if paused.is_some() {
            self.paused = paused;
        }
        bus_end + o.read_complete_ns
    }

    /// A read larger than its segment (`request`; its blocks from `media_from` on read by the media along
    /// `runs`, which go on to the read-ahead's `target`; those before `media_from` already buffered at
    /// `buffered_ns`; the bus first free for it at `bus_start_ns`), served as DiskSim serves it: the segment is a
    /// ring the media fills and the bus empties, so the media may not read a block while the one a segment
    /// before it has not crossed the bus (disk_buffer_block_available, the bus's progress counted at each sector
    /// by disk_buffer_update_outbuffer), nor, past that, before the request is done. Such a sector passes by and
    /// the media reads it when it next comes round. Returns when the last block has crossed the bus, and the
    /// runs as the media read them, to `target`. The actuator's track-arrival time (first_on_track_ns) is left as
    /// it was.
    fn read_through_segment(
        &mut self,
        request: (u64, u64),
        target: u64,
        media_from: u64,
        buffered_ns: f64,
        bus_start_ns: f64,
        mut runs: Vec<Run>,
    ) -> (f64, Vec<Run>) {
        let (lbn, end) = request;
        let size = self.p.cache.segment_blocks;
        let per_block = self.p.bus_read_ns_per_block;
        // When each block of the request has crossed the bus (the bus takes a block as soon as it is buffered).
        let mut sent_ns: Vec<f64> = Vec::with_capacity((end - lbn) as usize);
        let mut bus_ns = bus_start_ns;
        let mut i = 0; // the run holding block b
        let first = lbn.max(media_from.min(end));
        for b in lbn..target.max(end) {
            let avail_ns = if b < first {
                buffered_ns
            } else {
                while i < runs.len() && runs[i].lbn + runs[i].blocks <= b {
                    i += 1;
                }
                if i == runs.len() {
                    break; // the plan stops short of the target (the end of the drive)
                }
                let r = runs[i];
                let sector_start_ns = r.start_ns + (b - r.lbn) as f64 * r.sector_ns;
                let gate_ns = if b >= lbn + size {
                    sent_ns.get((b - size - lbn) as usize).copied().unwrap_or(bus_ns)
                } else {
                    f64::NEG_INFINITY
                };
                if sector_start_ns < gate_ns - 1e-9 {
                    // Cut the plan here: the head is on block b's track, its sector passing; it reads it when
                    // the sector comes round after the bus has made room.
                    if b > r.lbn {
                        runs[i].blocks = b - r.lbn;
                        runs.truncate(i + 1);
                        i += 1;
                    } else {
                        runs.truncate(i);
                    }
                    let pbn = self.p.layout.lbn_to_pbn(b);
                    self.arm = Arm { cylinder: pbn.cylinder, head: pbn.head };
                    let first_on_track_ns = self.first_on_track_ns;
                    let saved = std::mem::take(&mut self.runs);
                    let to = target.max(end);
                    self.media(gate_ns, b, to - b, false, 0.0, None);
                    self.stats.media_blocks -= to - b;
                    runs.append(&mut self.runs);
                    self.runs = saved;
                    self.first_on_track_ns = first_on_track_ns;
                }
                runs[i].done_ns(b)
            };
            if b < end {
                bus_ns = bus_ns.max(avail_ns) + per_block;
                sent_ns.push(bus_ns);
            }
        }
        (bus_ns, runs)
    }

    /// Read ahead from the end of `request` to `target`, appending to `runs` (the request's own, which end where
    /// the head is). As DiskSim's disk_buffer_block_available: until the request has gone to the host, the
    /// read-ahead may not overwrite what the host has not taken yet (the segment is circular), so block b waits
    /// for block b - segment size to have crossed the bus (the bus takes a block every `per block` from
    /// `bus.0`; the request completes at `bus.1`), and a sector whose block may not be read yet passes by, the
    /// read-ahead going on from it a turn later.
    fn read_ahead_behind_host(&mut self, runs: &mut Vec<Run>, request: (u64, u64), target: u64, bus: (f64, f64)) {
        let (lbn, end) = request;
        let (bus_start_ns, bus_end_ns) = bus;
        let size = self.p.cache.segment_blocks;
        let per_block = self.p.bus_read_ns_per_block;
        let mut t = runs.last().map_or(bus_start_ns, Run::end_ns);
        // [end, lbn + size): free; [lbn + size, end + size): behind the host; beyond: once the request is done.
        let free_until = (lbn + size).clamp(end, target);
        let behind_until = (end + size).clamp(free_until, target);
        self.runs.clear();
        if free_until > end {
            t = self.media(t, end, free_until - end, false, 0.0, None);
        }
        if behind_until > free_until {
            let host = WriteData { t0_ns: bus_start_ns, per_block_ns: per_block, not_before_ns: 0.0 };
            t = self.media(t, free_until, behind_until - free_until, false, 0.0, Some(host));
        }
        if target > behind_until {
            let done = WriteData { t0_ns: bus_end_ns, per_block_ns: 0.0, not_before_ns: bus_end_ns };
            self.media(t, behind_until, target - behind_until, false, 0.0, Some(done));
        }
        runs.append(&mut self.runs);
    }

    /// A read served by the running read-ahead (`request`, crossing the bus from `bus.0`, done at `bus.1`) holds
    /// it back as a miss's read-ahead is held (see [`Self::read_ahead_behind_host`]): DiskSim's segment owner is
    /// now this read, so until it has gone to the host no block may overwrite one it has not taken. Where the
    /// planned runs would, they are cut at the first such sector and planned again from it, sectors passing by.
    fn hold_read_ahead_behind_host(&mut self, request: (u64, u64), bus: (f64, f64)) {
        let (lbn, end) = request;
        let (bus_start_ns, bus_end_ns) = bus;
        let size = self.p.cache.segment_blocks;
        let per_block = self.p.bus_read_ns_per_block;
        let Some(ra) = self.read_ahead.as_mut() else { return };
        let limit = ra.limit();
        // When block b may be read: once block b - size has crossed the bus (or the read is done).
        let gate = |b: u64| {
            if b < lbn + size {
                0.0
            } else if b < end + size {
                bus_start_ns + (b - size - lbn + 1) as f64 * per_block
            } else {
                bus_end_ns
            }
        };
        let mut cut = None;
        'runs: for (i, r) in ra.runs.iter().enumerate() {
            let from = r.lbn.max(lbn + size);
            for b in from..r.lbn + r.blocks {
                if r.start_ns + (b - r.lbn) as f64 * r.sector_ns < gate(b) - 1e-9 {
                    cut = Some((i, b));
                    break 'runs;
                }
            }
        }
        let Some((i, b_cut)) = cut else { return };
        // The head is where block b_cut - 1 ends; without it in the runs, leave the plan as it is.
        let before = if b_cut > ra.runs[i].lbn { Some(ra.runs[i]) } else { i.checked_sub(1).map(|j| ra.runs[j]) };
        let Some(before) = before.filter(|r| b_cut > r.lbn && b_cut <= r.lbn + r.blocks) else { return };
        let from_ns = before.done_ns(b_cut - 1);
        let run = &mut ra.runs[i];
        if b_cut > run.lbn {
            run.blocks = b_cut - run.lbn;
            ra.runs.truncate(i + 1);
        } else {
            ra.runs.truncate(i);
        }
        let pbn = self.p.layout.lbn_to_pbn(b_cut - 1);
        let first_on_track_ns = self.first_on_track_ns;
        self.arm = Arm { cylinder: pbn.cylinder, head: pbn.head };
        self.runs.clear();
        let mut t = from_ns;
        let behind_until = (end + size).clamp(b_cut, limit);
        if behind_until > b_cut {
            let host = WriteData {
                t0_ns: bus_start_ns + (b_cut - size - lbn) as f64 * per_block,
                per_block_ns: per_block,
                not_before_ns: 0.0,
            };
            t = self.media(t, b_cut, behind_until - b_cut, false, 0.0, Some(host));
        }
        if limit > behind_until {
            let done = WriteData { t0_ns: bus_end_ns, per_block_ns: 0.0, not_before_ns: bus_end_ns };
            self.media(t, behind_until, limit - behind_until, false, 0.0, Some(done));
        }
        let mut more = std::mem::take(&mut self.runs);
        if let Some(ra) = self.read_ahead.as_mut() {
            ra.runs.append(&mut more);
        }
        self.runs = more;
        // media() leaves the actuator's track at the end of the new plan, as the plan it replaces did.
        self.first_on_track_ns = first_on_track_ns;
    }

    /// Where read-ahead after a read of `[lbn, end)` stops (see [`CacheParams::continuous_read`]), as DiskSim's
    /// disk_buffer_get_max_readahead sets it and disk_initiate_seek bounds it: `segment_start` is the first block
    /// the segment holds.
    /// - Level 4 reads to the end of the track holding the block after the request, and one track further when
    ///   the segment began on an earlier track; the maximum read-ahead does not bound it.
    /// - Levels 1-3 read the maximum read-ahead past the request (without one: a segment past it, or with
    ///   "Read-ahead over requested" = 0, to the end of a segment from the request's start), level 1 no further
    ///   than its track, level 2 than its cylinder (a background read does not switch tracks or seek there).
    fn read_ahead_target(&self, lbn: u64, end: u64, segment_start: u64) -> u64 {
        let c = self.p.cache;
        let l = &self.p.layout;
        let blocks = l.blocks();
        let last = end - 1;
        let ahead = if c.read_ahead_max_blocks > 0 {
            end + c.read_ahead_max_blocks
        } else if c.read_ahead_over_requested == 0 {
            if end - lbn >= c.segment_blocks || c.segment_blocks - (end - lbn) < c.read_ahead_min_blocks {
                end + c.read_ahead_min_blocks
            } else {
                lbn + c.segment_blocks
            }
        } else {
            end + c.segment_blocks
        };
        let target = match c.continuous_read {
            0 => end,
            1 => ahead.min(self.track_end_lbn(last)),
            2 => {
                let cylinder = l.lbn_to_pbn(last).cylinder;
                let mut e = self.track_end_lbn(last);
                while e < blocks && l.lbn_to_pbn(e).cylinder == cylinder {
                    e = self.track_end_lbn(e);
                }
                ahead.min(e)
            }
            3 => ahead,
            _ => {
                if end >= blocks {
                    return blocks;
                }
                let (track_end, b) = self.track_end_and_pbn(end);
                let a = l.lbn_to_pbn(segment_start.min(end));
                if (a.cylinder, a.head) != (b.cylinder, b.head) {
                    let first = if segment_start == lbn { a } else { l.lbn_to_pbn(lbn) };
                    track_end + l.sectors_per_track(first.cylinder, first.head) as u64
                } else {
                    track_end
                }
            }
        };
        target.max(end).min(blocks)
    }

    /// One past the last block on `lbn`'s track.
    fn track_end_lbn(&self, lbn: u64) -> u64 {
        self.track_end_and_pbn(lbn).0
    }

    /// One past the last block on `lbn`'s track, and where `lbn` is.
    fn track_end_and_pbn(&self, lbn: u64) -> (u64, Pbn) {
        let l = &self.p.layout;
        let blocks = l.blocks();
        let (first, n) = l.locate(lbn, blocks - lbn);
        let mut x = lbn + n;
        // A run that reaches the track's last sector ends the track; one a slip or a spare cut short goes on.
        let mut last_sector = first.sector as u64 + n;
        while x < blocks && last_sector < l.sectors_per_track(first.cylinder, first.head) as u64 {
            let (p, n) = l.locate(x, blocks - x);
            if (p.cylinder, p.head) != (first.cylinder, first.head) {
                break;
            }
            x += n;
            last_sector = p.sector as u64 + n;
        }
        (x, first)
    }

    /// Continuous read: keep reading ahead of a reader the stream has just served (`[lbn, served_end)`); the
    /// segment keeps its most recent `segment_blocks`.
    /// If the read-ahead had already stopped at its limit when the read arrived (`now_ns`), it resumes no earlier
    /// than `resume_ns` (the sectors past the limit come round again from then on).
    fn extend_read_ahead(&mut self, lbn: u64, served_end: u64, now_ns: f64, resume_ns: f64) {
        let c = self.p.cache;
        let Some(ra) = &self.read_ahead else { return };
        let limit = ra.limit();
        let segment_start =
            self.segments[ra.segment].start.max(ra.valid_end(resume_ns).saturating_sub(c.segment_blocks));
        let target = self.read_ahead_target(lbn, served_end, segment_start);
        if target <= limit {
            return;
        }
        // Still reading when the read came: its limit is raised and it reads on without a break (DiskSim raises
        // the segment's read-ahead limit as the read takes the segment). Stopped at its limit: it starts again
        // once the command allows, the sectors past the limit coming round again.
        let last_end_ns = ra.runs.last().map_or(0.0, |r| r.end_ns());
        let from_ns = if last_end_ns > now_ns { last_end_ns } else { last_end_ns.max(resume_ns) };
        self.runs.clear();
        self.media(from_ns, limit, target - limit, false, 0.0, None);
        let mut more = std::mem::take(&mut self.runs);
        if let Some(ra) = &mut self.read_ahead {
            ra.runs.append(&mut more);
            // Forget runs read by now that have left the segment. Runs still to come stay, whatever their place:
            // the read-ahead has not read them yet (a read larger than the segment needs them all until it is
            // served, read_through_segment).
            ra.forget_read_before(target.saturating_sub(c.segment_blocks), now_ns);
        }
        // The segment keeps its last blocks as the read-ahead goes on (find_holding, stop_read_ahead).
        self.runs = more;
    }

    /// Read ahead from `from` into `segment` after a hit on `[hit.0, hit.1)`, the actuator free at `start_ns`.
    fn start_read_ahead(&mut self, segment: usize, from: u64, start_ns: f64, hit: (u64, u64)) {
        // As DiskSim's disk_initiate_seek: a background read at level 1 does not leave the track the actuator is
        // on, at level 2 its cylinder.
        if from < self.p.layout.blocks() {
            let to = self.p.layout.lbn_to_pbn(from);
            let leaves = match self.p.cache.continuous_read {
                1 => (to.cylinder, to.head) != (self.arm.cylinder, self.arm.head),
                2 => to.cylinder != self.arm.cylinder,
                _ => false,
            };
            if leaves {
                return;
            }
        }
        let n = self.read_ahead_target(hit.0, hit.1, self.segments[segment].start).saturating_sub(from);
        if n == 0 || from >= self.p.layout.blocks() {
            return;
        }
        let on_track_ns = start_ns + self.seek_ns(self.arm, self.p.layout.lbn_to_pbn(from), false);
        self.runs.clear();
        self.media(start_ns, from, n, false, 0.0, None);
        let runs = std::mem::replace(&mut self.runs, std::mem::take(&mut self.spare_runs));
        self.read_ahead = Some(ReadAhead { segment, runs, on_track_ns });
    }
}
