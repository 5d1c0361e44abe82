//! The drive's write path: a write's command overhead, its data over the bus in chunks of what the segment has
//! room for, the media write sector by sector as the data comes (or the destage after a fast write), appends
//! to a destage under way, and the low write water mark at which the drive reconnects for more data.

use super::*;

impl Hdd {
    /// Blocks of a `blocks`-block write that may be left in the buffer, not yet on the media, when the drive
    /// reconnects for more of its data (DiskSim's disk_buffer_set_segment and disk_request_needs_bus: the low
    /// water mark, a share of the request rounded down but at least one block, or of the segment rounded up).
    fn write_watermark_blocks(&self, blocks: u64) -> u64 {
        let segment = self.p.cache.segment_blocks;
        if self.p.read_watermark_of_request {
            ((blocks.min(segment) as f64 * self.p.write_watermark) as u64).max(1)
        } else {
            (segment as f64 * self.p.write_watermark + 0.9999999999) as u64
        }
    }

    /// A forced-unit-access write (`fua`) completes only once it is on the media, as with write caching off.
    pub(super) fn serve_write(
        &mut self,
        t_ns: f64,
        lbn: u64,
        blocks: u64,
        after_read: bool,
        fua: bool,
        o: &Overheads,
    ) -> f64 {
        let end = lbn + blocks;
        let c = self.p.cache;
        // As DiskSim (disk_buffer_transfer_size): at any fast write level above 0 a write completes once its data is
        // in the buffer; level 1 only restricts which queued appends may join a destage, which a drive serving one
        // command at a time never meets.
        let fast = c.enabled && c.fast_write_level >= 1 && !fua;
        self.destage.retain(|r| r.end_ns() > t_ns);
        self.resumed_from = None;
        // As DiskSim: the write-hit overhead when the write completes from the buffer, else the write-miss one.
        let overhead = o.per_request_ns
            + o.data_prep_ns
            + match (fast, after_read) {
                (true, true) => o.write_hit_after_read_ns,
                (true, false) => o.write_hit_after_write_ns,
                (false, true) => o.write_miss_after_read_ns,
                (false, false) => o.write_miss_after_write_ns,
            };
        self.stream_continues_at = None;
        let idle = self.arm_free_ns <= t_ns;
        let reading = self.read_ahead.as_ref().map(|r| r.segment);
        let stopped_after_ns = self.stop_read_ahead(t_ns);
        // Overwritten data leaves the other segments: as DiskSim's disk_buffer_set_segment, a segment holding any
        // of the blocks is emptied, unless it was reading ahead when the write came (its read-ahead stops, and it
        // keeps its blocks, the overwritten ones too, so a later read may hit data older than the write: emptying
        // it as well helps cheetah9LP's real trace, 0.0986 -> 0.0953 ms, and hurts atlas10k's, 0.0913 -> 0.0938).
        for (i, s) in self.segments.iter_mut().enumerate() {
            if s.end > s.start && lbn < s.end && end > s.start && Some(i) != reading {
                s.end = s.start;
            }
        }
        // When the data starts to move, and the earliest the actuator may start for this write (after the command
        // overhead; the data preparation only delays the data). With an extra write disconnect the drive takes
        // the command, disconnects, waits, and reselects to take the data, paying the data preparation overhead
        // on that reselection (as DiskSim's disk_check_bus does).
        // Which writes take it is the rule of CMU's DiskSim 4.0 release (disk_buffer_select_segment; the Western
        // Digital build the reference figures come from has it commented out, so no write takes it there, while
        // the drive's trace labels these writes "Trip"): a write on an idle drive whose segment is the most
        // recently used one, last used by a write, and which does not start at that segment's end. Every command
        // uses a segment, so "most recently used and last used by a write" means the previous command was a write
        // to this segment.
        // - With a separate write segment, every write goes there: the rule takes every write that follows a
        //   write and does not continue it.
        // - Without one, DiskSim gives a write that misses the cache the least recently used segment unless the
        //   write overlaps the data of one (its segment list keeps the most recently used at the tail), so with
        //   write-through writes the rule takes a write overlapping the blocks of the write just before it.
        // Approximation: only write-through writes are considered; a fast write's segment may still be dirty,
        // which DiskSim's segment choice treats otherwise.
        let takes = idle
            && !after_read
            && self.last_write.is_some_and(|(s, e)| match self.write_segment() {
                Some(_) => lbn != e,
                None => lbn < e && end > s,
            });
        let extra = o.extra_write_disconnect.filter(|_| !fast && takes && self.p.refinements.extra_write_disconnect);
        // A write that continues the one being destaged, while the segment has room for it past what is not yet
        // on the media, appends its data to that segment at once (DiskSim's BUFFER_APPEND, a "stoppable" access).
        // Any other write that finds the actuator destaging takes the command, disconnects, and reconnects for its
        // data once the actuator is free; its media access starts then too (disk_write_arrive).
        let segment_blocks = c.segment_blocks;
        let streams = self.p.refinements.write_stream;
        let appends = c.enabled
            && !idle
            && self.last_write.is_some_and(|(_, e)| e == lbn)
            && self.unwritten_from(t_ns).is_some_and(|f| streams || lbn - f.min(lbn) < segment_blocks)
            // As DiskSim: a write joins only as the next command the drive would serve, so not while an earlier
            // append still waits for its own media access (disk_buffer_stopable_access asks the queue).
            && (streams || t_ns >= self.append_pending_until_ns);
        let waits = !idle && !appends;
        let (data_start, mechanics_start) = match extra {
            Some(x) => (
                t_ns + x.command_ns + x.disconnect_ns + x.inter_disconnect_ns + o.first_reselect_ns + o.data_prep_ns,
                t_ns + x.command_ns + x.seek_delta_ns,
            ),
            None if waits => {
                let disconnected = t_ns + overhead - o.data_prep_ns + if fast { o.write_disconnect_ns } else { 0.0 };
                let free = self.arm_free_ns.max(t_ns + overhead - o.data_prep_ns);
                (disconnected.max(free) + o.first_reselect_ns + o.data_prep_ns, free)
            }
            None => (t_ns + overhead, t_ns + overhead - o.data_prep_ns),
        };
        let per_block = self.p.bus_write_ns_per_block;
        // As DiskSim: the actuator positions while the data arrives, for a fast write as for a write-through.
        let media_start = self.after_stop_ns(mechanics_start, stopped_after_ns);
        // An append goes on from where the access it joins ends (its blocks follow that access's last one).
        let media_start = if appends { media_start.max(self.arm_free_ns) } else { media_start };
        // DiskSim's minimum seek delay: a floor on positioning for a write, unless it appends to a write whose
        // media access is still going on (a sequential write stream).
        let minimum = if appends { 0.0 } else { o.minimum_seek_ns };
        // The data goes over the bus in chunks of what the segment has room for (all of it, unless it appends to
        // a segment still holding data not yet on the media; disk_buffer_transfer_size); a sector is written only
        // if its block is in.
        let room = match self.unwritten_from(data_start) {
            Some(_) if appends && streams => blocks,
            Some(f) if appends => segment_blocks.saturating_sub(lbn - f.min(lbn)).max(1),
            _ => segment_blocks.max(1),
        };
        let first_chunk = blocks.min(room);
        self.last_write = Some((lbn, end));
        self.runs.clear();
        let chunk_end = data_start + first_chunk as f64 * per_block;
        let data = self.write_data(data_start, first_chunk, per_block);
        let mut media_end = self.media(media_start, lbn, first_chunk, true, minimum, Some(data));
        let mut in_buffer = chunk_end;
        if appends && streams {
            // The write stream refinement: each block goes in once the block a segment before it is on the media.
            // (The media access above takes the blocks as arriving at the bus rate; a block held back so waits for
            // one a whole segment earlier to be written, which the head reaches well before it reaches this one.)
            let mut t = data_start;
            for k in 0..blocks {
                let gate = (lbn + k + 1).checked_sub(segment_blocks).and_then(|b| self.written_ns(b)).unwrap_or(0.0);
                t = t.max(gate) + per_block;
            }
            in_buffer = t;
        }
        let own_access = appends && !streams;
        if first_chunk < blocks && !own_access {
            // The drive disconnects after the first chunk and reconnects for the rest once the media has written
            // all but the write water mark of what is in.
            let rest = blocks - first_chunk;
            let left = self.write_watermark_blocks(blocks);
            let reconnect_ns = (lbn + first_chunk)
                .checked_sub(left + 1)
                .filter(|&b| b >= lbn)
                .and_then(|b| self.runs.iter().find(|r| b >= r.lbn && b < r.lbn + r.blocks).map(|r| r.done_ns(b)))
                .unwrap_or(media_start);
            let rest_start =
                (chunk_end + o.write_disconnect_ns).max(reconnect_ns) + o.first_reselect_ns + o.data_prep_ns;
            in_buffer = rest_start + rest.min(segment_blocks) as f64 * per_block;
            let data = self.write_data(rest_start, rest, per_block);
            media_end = self.media(media_end, lbn + first_chunk, rest, true, 0.0, Some(data));
        }
        if own_access {
            // As DiskSim: the destage under way goes on writing what the segment holds, the appended blocks too,
            // until it catches up with the data (the next block not in as its sector passes); then the append's
            // own media access starts there and writes all its blocks again, from its first one.
            // The data crosses the bus in chunks of what the segment has room for (disk_buffer_transfer_size): at
            // the end of each chunk, as much more as the destage has made room for since. Once there is no room,
            // the drive disconnects, and reconnects for the rest once the append's own access has written all but
            // the write water mark of what is in (disk_request_needs_bus), the media writing the rest as it comes.
            let half_turn = 0.5 * self.period_ns;
            let mut continued: Vec<Run> = Vec::new();
            let mut caught_up_ns = media_start;
            let mut caught_up = false;
            // The runs the destage goes on with: those before the first break (a wait of a turn for data).
            let keep_unbroken =
                |runs: &[Run], continued: &mut Vec<Run>, caught_up_ns: &mut f64, caught_up: &mut bool| {
                    for r in runs {
                        if *caught_up || r.start_ns - *caught_up_ns > half_turn {
                            *caught_up = true;
                            break;
                        }
                        *caught_up_ns = r.end_ns();
                        continued.push(*r);
                    }
                };
            keep_unbroken(&self.runs, &mut continued, &mut caught_up_ns, &mut caught_up);
            let (mut sent, mut sent_ns) = (first_chunk, chunk_end);
            while sent < blocks {
                let first_unwritten = match self.unwritten_from(sent_ns) {
                    Some(f) if f < lbn => f,
                    _ => continued.iter().find(|r| sent_ns < r.end_ns()).map_or_else(
                        || continued.last().map_or(lbn, |r| r.lbn + r.blocks),
                        |r| {
                            let done = ((sent_ns - r.start_ns).max(0.0) / r.sector_ns).floor() as u64;
                            r.lbn + done.min(r.blocks)
                        },
                    ),
                };
                let room = segment_blocks.saturating_sub(lbn + sent - first_unwritten);
                if room == 0 {
                    break;
                }
                let n = room.min(blocks - sent);
                if !caught_up {
                    self.runs.clear();
                    let data = WriteData { t0_ns: sent_ns, per_block_ns: per_block, not_before_ns: 0.0 };
                    self.media(caught_up_ns, lbn + sent, n, true, 0.0, Some(data));
                    let runs = std::mem::take(&mut self.runs);
                    keep_unbroken(&runs, &mut continued, &mut caught_up_ns, &mut caught_up);
                    self.runs = runs;
                }
                sent += n;
                sent_ns += n as f64 * per_block;
            }
            in_buffer = sent_ns;
            self.runs.clear();
            // The chunks follow each other without a break: block k is in at data_start + (k + 1) x per block.
            let data = self.write_data(data_start, sent, per_block);
            media_end = self.media(caught_up_ns, lbn, sent, true, 0.0, Some(data));
            if sent < blocks {
                let rest = blocks - sent;
                // The drive reconnects once the access has written all but the water mark of what is in (it checks
                // as the access begins and at each sector).
                let left = self.write_watermark_blocks(blocks);
                let reconnect_ns = match (lbn + sent).checked_sub(left + 1).filter(|&b| b >= lbn) {
                    Some(b) => self
                        .runs
                        .iter()
                        .find(|r| b >= r.lbn && b < r.lbn + r.blocks)
                        .map_or(media_end, |r| r.done_ns(b)),
                    // Already so as the access begins.
                    None => caught_up_ns,
                };
                let rest_start = reconnect_ns + o.first_reselect_ns + o.data_prep_ns;
                in_buffer = rest_start + rest as f64 * per_block;
                let data = WriteData { t0_ns: rest_start, per_block_ns: per_block, not_before_ns: 0.0 };
                media_end = self.media(media_end, lbn + sent, rest, true, 0.0, Some(data));
            }
            self.append_pending_until_ns = caught_up_ns;
        }
        self.destage.extend_from_slice(&self.runs);
        if self.p.refinements.reads_before_destage {
            self.destage_writes.push((lbn, end));
            let destage = &self.destage;
            self.destage_writes.retain(|&(s, e)| destage.iter().any(|r| r.lbn < e && r.lbn + r.blocks > s));
        }
        self.arm_free_ns = media_end;
        let segment = self.victim(self.write_segments(), data_start);
        let seg = &mut self.segments[segment];
        seg.start = lbn;
        seg.end = if c.read_hits_on_write_data && c.enabled { end } else { lbn };
        seg.dirty_until_ns = media_end;
        self.touch(segment);
        if fast {
            self.stats.fast_writes += 1;
            self.last_service = "buffered";
            in_buffer + o.write_complete_ns
        } else {
            self.stats.write_throughs += 1;
            self.last_service = "through";
            // The drive disconnected once the data was in; it reselects to report completion when the media write
            // is done and that disconnection is over. As DiskSim's disk_check_bus: the first-reselect overhead,
            // or the other-reselect one for a write that took the extra disconnect (its second reselection).
            let (disconnect_ns, reselect_ns) = match extra {
                Some(x) => (x.second_disconnect_ns, o.other_reselect_ns),
                None => (o.write_disconnect_ns, o.first_reselect_ns),
            };
            media_end.max(in_buffer + disconnect_ns) + reselect_ns + o.write_complete_ns
        }
    }

    /// When a write's blocks are in the buffer, for the media: a chunk of `blocks` whose transfer starts at
    /// `start_ns`, block k in once k + 1 blocks have crossed the bus (DiskSim's disk_buffer_update_outbuffer counts
    /// them so at each sector).
    fn write_data(&self, start_ns: f64, blocks: u64, per_block_ns: f64) -> WriteData {
        let needed = self.buffered_before_media(blocks);
        WriteData { t0_ns: start_ns, per_block_ns, not_before_ns: start_ns + needed as f64 * per_block_ns }
    }

    /// When block `lbn` of the destage under way is on the media, if it is part of it.
    fn written_ns(&self, lbn: u64) -> Option<f64> {
        self.destage.iter().find(|r| lbn >= r.lbn && lbn < r.lbn + r.blocks).map(|r| r.done_ns(lbn))
    }

    /// The first block of the destage under way that is not yet on the media at `t_ns`.
    pub(super) fn unwritten_from(&self, t_ns: f64) -> Option<u64> {
        let r = self.destage.iter().find(|r| t_ns < r.end_ns())?;
        let done = if t_ns <= r.start_ns { 0 } else { ((t_ns - r.start_ns) / r.sector_ns).floor() as u64 };
        Some(r.lbn + done.min(r.blocks))
    }

    /// Blocks of a `blocks`-block write that must be in the buffer before any of it goes to the media. DiskSim
    /// 4.0 (disk_buffer_block_available) ties this to a drive with extra write disconnects: a write of fewer than
    /// 45 blocks waits for min(blocks, 10) of them, a longer one for 15; other drives write each block as soon as
    /// it is in.
    fn buffered_before_media(&self, blocks: u64) -> u64 {
        if self.p.overheads.extra_write_disconnect.is_none() {
            return 0;
        }
        if blocks < 45 {
            blocks.min(10)
        } else {
            15
        }
    }
}
