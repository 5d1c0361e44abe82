//! The timed SSD's DRAM: the data caches (pages taken in as room under the back-pressure bound allows, written
//! back, and the one DRAM channel their accesses take) and the mapping caches (a lookup, the read of a missing
//! entry's translation page, the write-back of a changed one), each one for the drive or one per flow's range.

use super::*;

impl Ssd {
    /// Which of `parts` equal parts of the logical space (a workload's flows' ranges) `lpn` is in; with the
    /// flows' own ranges known (`flow_first_lpns`), which flow's.
    pub(super) fn part_of(&self, lpn: u64, parts: usize) -> usize {
        let firsts = &self.p.flow_first_lpns;
        if firsts.len() == parts && parts > 1 {
            return firsts.partition_point(|&first| first <= lpn).saturating_sub(1);
        }
        let logical = self.ftl.geometry().logical_pages.max(1);
        // In 64 bits: pages are under 2^32 (FtlGeometry::check) and parts are flows, so the product fits.
        ((lpn * parts as u64 / logical) as usize).min(parts.max(1) - 1)
    }

    /// The data cache `lpn` goes to (there is at least one).
    pub(super) fn cache_for(&mut self, lpn: u64) -> &mut WriteCache {
        let part = self.part_of(lpn, self.cache.len());
        &mut self.cache[part]
    }

    /// Reserve the data caches' DRAM channel for an access of `bytes`; returns when it ends. One channel serves
    /// every cache, an access at a time, in the order they come (MQSim takes partitions' queues in turn).
    pub(super) fn dram(&mut self, now_ns: u64, bytes: u64) -> u64 {
        let cost = self.cache[0].p.dram_access_ns(bytes);
        self.dram_free_ns = now_ns.max(self.dram_free_ns) + cost;
        self.dram_free_ns
    }

    /// The mapping cache that holds `lpn`'s entry, if there is one.
    pub(super) fn mapping_for(&mut self, lpn: u64) -> Option<&mut MappingCache> {
        if self.mapping.is_empty() {
            return None;
        }
        let part = self.part_of(lpn, self.mapping.len());
        self.mapping.get_mut(part)
    }

    /// Whether `lpn`'s mapping entry is at hand (always, without a mapping cache).
    pub(super) fn mapped_entry_cached(&mut self, lpn: u64) -> bool {
        self.mapping_for(lpn).is_none_or(|m| m.lookup(lpn))
    }

    /// Park `waiter` until `lpn`'s translation page is read, reading it unless a read of it is under way.
    pub(super) fn wait_for_mapping(&mut self, now_ns: u64, lpn: u64, waiter: MappingWaiter) {
        let m = self.mapping_for(lpn).expect("a mapping cache");
        let page = m.translation_page(lpn);
        if let Some(written_back) = m.reserve(lpn) {
            self.write_back_translation_page(now_ns, written_back);
        }
        match self.mapping_waiters.entry(page) {
            // A read of the page is under way (for a miss, or to merge a write-back): wait for it.
            std::collections::hash_map::Entry::Occupied(mut e) => e.get_mut().push(waiter),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(smallvec::smallvec![waiter]);
                let die = self.translation_die(page);
                self.dies[die as usize].mapping_reads.push_back(page);
                self.kick(now_ns, die);
            }
        }
    }

    /// The mapping entry a waiter needed is at hand.
    pub(super) fn mapping_arrived(&mut self, now_ns: u64, waiter: MappingWaiter) {
        match waiter {
            MappingWaiter::Read { slot, lpn, bytes } => {
                // MQSim maps a page never written on its first read: a changed entry, and a page taken at its
                // plane's frontier (page_read_at takes it in the FTL).
                let ppn = self.ftl.lookup(lpn);
                let first_read = self.p.maps_on_first_read && ppn.is_none();
                if first_read {
                    self.advance_plane_frontier(lpn, self.stream_of_slot(slot));
                }
                self.cache_entry(now_ns, lpn, first_read);
                self.page_read_at(now_ns, slot, lpn, bytes, ppn);
            }
            MappingWaiter::Program(pp) => self.queue_program(now_ns, pp),
        }
    }

    /// Translation pages are spread over the dies like data pages: with a pool map, a flow's `k`-th translation
    /// page goes where the allocation puts the flow's `k`-th page (MQSim's allocate_plane_for_translation_write
    /// places a flow's translation page `mvpn` by the scheme over the flow's resources).
    pub(super) fn translation_die(&self, translation_page: u64) -> u32 {
        let dies = self.p.dies();
        match &self.p.pool_map {
            None => (translation_page % dies as u64) as u32,
            Some(map) => {
                let entries = self.p.translation_entries_per_page.max(1);
                let first = map.domain_of(translation_page * entries).first_lpn;
                let k = (translation_page * entries - first.min(translation_page * entries)) / entries;
                map.pool_of(first + k) % dies
            }
        }
    }

    /// Cache an entry; an eviction that needs a translation page written back queues that program.
    pub(super) fn cache_entry(&mut self, now_ns: u64, lpn: u64, dirty: bool) {
        let Some(m) = self.mapping_for(lpn) else { return };
        if let Some(page) = m.insert(lpn, dirty) {
            self.write_back_translation_page(now_ns, page);
        }
    }

    /// Write a translation page back: read what of it is not cached, then program it (unless, as in MQSim, the
    /// program never happens and the page stays in DRAM). The merge read counts as a read of the page under
    /// way: a miss on it meanwhile waits for it, as MQSim's ArrivingMappingEntries makes it wait.
    pub(super) fn write_back_translation_page(&mut self, now_ns: u64, page: u64) {
        self.mapping_waiters.entry(page).or_default();
        self.stats.mapping_writebacks += 1;
        let die = self.translation_die(page);
        let d = &mut self.dies[die as usize];
        d.mapping_reads.push_back(page);
        if !self.p.mapping_writeback_held {
            d.mapping_programs += 1;
        }
        self.kick(now_ns, die);
    }

    /// Take what the write cache has room for of a write's pages, starting their write-backs; their DRAM
    /// write follows. Returns whether every page is in.
    pub(super) fn admit_write(&mut self, now_ns: u64, slot: u32) -> bool {
        let c = *self.cmd(slot);
        let page = self.p.page_bytes;
        let mut batch_bytes = 0;
        let mut admitted = c.admitted_pages;
        while admitted < c.pages {
            let lpn = c.first_page + admitted;
            let cache = self.cache_for(lpn);
            if !cache.has_room() {
                break;
            }
            let bytes = c.bytes_in_page(lpn, page) as u32;
            let taken = cache.admit(now_ns, lpn, bytes, page);
            if taken.eviction_read_bytes > 0 {
                self.dram(now_ns, taken.eviction_read_bytes);
            }
            let classes = self.p.flash_classes;
            let programs = [
                taken.evicted.map(|e| (e, classes.eviction_class())),
                taken.written_back.map(|w| (w, classes.program_class(c.class))),
            ];
            for ((lpn, bytes), class) in programs.into_iter().flatten() {
                self.unprogrammed_pages += 1;
                let pp = PendingProgram {
                    lpn,
                    plane: 0,
                    page_in_block: 0,
                    bytes,
                    class,
                    stream: self.stream_of_flow(c.flow),
                    slot: None,
                    queued_ns: 0,
                    placed: false,
                };
                if self.mapped_entry_cached(lpn) {
                    self.queue_program(now_ns, pp);
                } else {
                    self.wait_for_mapping(now_ns, lpn, MappingWaiter::Program(pp));
                }
            }
            batch_bytes += bytes as u64;
            admitted += 1;
        }
        let dram_end = (batch_bytes > 0).then(|| self.dram(now_ns, batch_bytes));
        let cmd = self.slots[slot as usize].as_mut().expect("write in flight");
        cmd.admitted_pages = admitted;
        if let Some(at) = dram_end {
            cmd.dram_pending += 1;
            self.schedule(at, Event::DramDone(slot));
        } else if admitted == c.pages && cmd.dram_pending == 0 {
            self.complete(slot);
        }
        admitted == c.pages
    }

    /// A DRAM access for a command is done: a read's page, or a write's pages taken into the cache.
    pub(super) fn dram_done(&mut self, now_ns: u64, slot: u32) {
        let c = *self.cmd(slot);
        match c.op {
            Op::Read => self.read_page_done(now_ns, slot),
            _ => {
                let cmd = self.slots[slot as usize].as_mut().expect("write in flight");
                cmd.dram_pending -= 1;
                if cmd.dram_pending == 0 && cmd.admitted_pages == c.pages {
                    self.complete(slot);
                }
            }
        }
    }
}
