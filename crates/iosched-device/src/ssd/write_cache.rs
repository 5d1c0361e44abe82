//! A DRAM data cache that separates hot from cold writes, as MQSim's "advanced" data cache manager does in its
//! write-cache mode (../shared/peers/mqsim/src/ssd/Data_Cache_Manager_Flash_Advanced.cpp; the reference):
//!
//! - A page written whose address was not written since the last reset of a filter (every second of simulated
//!   time) is cold: its write-back to flash starts at once. A page written again within the window is hot: it
//!   stays dirty in DRAM, and goes to flash only when the least recently used slot is evicted for room.
//! - Write-backs in flight are bounded (MQSim's back-pressure: one page per plane, counted in sectors); a write
//!   whose pages cannot all start their write-back waits, in order, for earlier ones to finish.
//! - Reads of a page the cache holds are served from DRAM.
//! - DRAM is one channel serving one access at a time; an access of `bytes` costs tRCD + tCL + a burst time
//!   per two bursts (DDR), and a row's tRP per extra row, as MQSim estimates it.
//!
//! Flushes wait for write-backs in flight; hot dirty pages stay in DRAM (MQSim models no flush, and treats the
//! cache as safe).

use super::slab_lru::SlabLru;
use rustc_hash::FxHashSet;

/// MQSim's sector, the unit of its back-pressure.
const SECTOR_BYTES: u64 = 512;

#[derive(Clone, Debug, PartialEq)]
pub struct WriteCacheParams {
    pub capacity_pages: u64,
    /// Write-back in flight allowed, in sectors.
    pub backpressure_sectors: u64,
    /// How long an address stays hot after a write.
    pub window_ns: u64,
    pub dram_row_bytes: u64,
    pub dram_burst_bytes: u64,
    pub dram_burst_ns: f64,
    pub dram_trcd_ns: u64,
    pub dram_tcl_ns: u64,
    pub dram_trp_ns: u64,
}

impl WriteCacheParams {
    /// What a DRAM access of `bytes` costs (MQSim's estimate, in its integer steps).
    pub fn dram_access_ns(&self, bytes: u64) -> u64 {
        let burst = self.dram_burst_bytes.max(1);
        if bytes <= self.dram_row_bytes {
            self.dram_trcd_ns + self.dram_tcl_ns + ((bytes / burst / 2) as f64 * self.dram_burst_ns) as u64
        } else {
            let row = self.dram_row_bytes.max(1);
            let per_row = self.dram_trcd_ns
                + self.dram_tcl_ns
                + ((row / burst / 2) as f64 * self.dram_burst_ns) as u64
                + self.dram_trp_ns;
            (per_row as f64 * (bytes / row / 2) as f64) as u64
                + self.dram_trcd_ns
                + self.dram_tcl_ns
                + ((bytes % row) as f64 / (burst as f64 * self.dram_burst_ns)) as u64
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// Holds data not yet on its way to flash.
    dirty: bool,
    writebacks_in_flight: u32,
}

/// What admitting one page did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Admitted {
    /// A dirty page evicted for this one, to program now: (logical page, bytes). MQSim queues its program as
    /// URGENT (Data_Cache_Manager_Flash_Advanced::write_to_destage_buffer).
    pub evicted: Option<(u64, u32)>,
    /// This page, cold, written back at once: (logical page, bytes). Its program has the write's class.
    pub written_back: Option<(u64, u32)>,
    /// Bytes read from DRAM for an eviction.
    pub eviction_read_bytes: u64,
}

pub struct WriteCache {
    pub p: WriteCacheParams,
    slots: SlabLru<Slot>,
    recent: FxHashSet<u64>,
    next_reset_ns: u64,
    in_flight_sectors: u64,
    pub hot_writes: u64,
    pub read_hits: u64,
}

impl WriteCache {
    pub fn new(p: WriteCacheParams) -> WriteCache {
        WriteCache {
            slots: SlabLru::new(p.capacity_pages.clamp(1, u32::MAX as u64 - 1) as usize),
            recent: FxHashSet::default(),
            next_reset_ns: 0,
            in_flight_sectors: 0,
            hot_writes: 0,
            read_hits: 0,
            p,
        }
    }

    /// Whether a write-back may start now (MQSim checks before each page).
    pub fn has_room(&self) -> bool {
        self.in_flight_sectors < self.p.backpressure_sectors
    }

    /// Take one page of a write (`bytes` of it) into the cache.
    pub fn admit(&mut self, now_ns: u64, lpn: u64, bytes: u32, page_bytes: u64) -> Admitted {
        let mut out = Admitted::default();
        if self.slots.get_mut(lpn).is_none() {
            // A new slot, the least recent leaving for it when the cache is full.
            if let Some((old, slot)) = self.slots.push_new(lpn, Slot::default()) {
                if slot.dirty {
                    out.evicted = Some((old, page_bytes as u32));
                    out.eviction_read_bytes += page_bytes;
                    self.in_flight_sectors += page_bytes.div_ceil(SECTOR_BYTES);
                }
            }
        }
        let slot = self.slots.peek_mut(lpn).expect("just inserted");
        if self.recent.insert(lpn) {
            // Cold: written back at once.
            slot.writebacks_in_flight += 1;
            slot.dirty = false;
            out.written_back = Some((lpn, bytes));
            self.in_flight_sectors += (bytes as u64).div_ceil(SECTOR_BYTES);
        } else {
            slot.dirty = true;
            self.hot_writes += 1;
        }
        if now_ns > self.next_reset_ns {
            self.recent.clear();
            self.next_reset_ns = now_ns + self.p.window_ns;
        }
        out
    }

    /// A write-back of `lpn` (`bytes`) is on flash: its room is free, and a slot with nothing newer leaves.
    pub fn written_back(&mut self, lpn: u64, bytes: u32) {
        self.in_flight_sectors = self.in_flight_sectors.saturating_sub((bytes as u64).div_ceil(SECTOR_BYTES));
        if let Some(slot) = self.slots.peek_mut(lpn) {
            slot.writebacks_in_flight = slot.writebacks_in_flight.saturating_sub(1);
            if slot.writebacks_in_flight == 0 && !slot.dirty {
                self.slots.remove(lpn);
            }
        }
    }

    /// Whether a read of `lpn` is served from DRAM.
    pub fn holds(&mut self, lpn: u64) -> bool {
        let hit = self.slots.get_mut(lpn).is_some();
        self.read_hits += hit as u64;
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> WriteCacheParams {
        WriteCacheParams {
            capacity_pages: 2,
            backpressure_sectors: 32,
            window_ns: 1_000_000_000,
            dram_row_bytes: 8192,
            dram_burst_bytes: 1,
            dram_burst_ns: 10.0,
            dram_trcd_ns: 13,
            dram_tcl_ns: 13,
            dram_trp_ns: 13,
        }
    }

    #[test]
    fn cold_writes_go_back_at_once_and_hot_ones_stay_until_evicted() {
        let mut c = WriteCache::new(params());
        // At time 0 the filter is not reset (MQSim resets it after the first write past each second).
        assert_eq!(c.admit(0, 7, 4096, 8192).written_back, Some((7, 4096)));
        assert_eq!(c.admit(0, 7, 4096, 8192), Admitted::default()); // hot: stays dirty
        assert!(c.holds(7));
        c.written_back(7, 4096); // the cold copy is on flash; the newer data stays
        assert!(c.holds(7));
        assert_eq!(c.admit(0, 8, 4096, 8192).written_back, Some((8, 4096)));
        // Room for a third page evicts 7 (least recent), which is dirty: written back with its page.
        let a = c.admit(0, 9, 4096, 8192);
        assert_eq!((a.evicted, a.written_back), (Some((7, 8192)), Some((9, 4096))));
        assert_eq!(a.eviction_read_bytes, 8192);
        assert!(!c.holds(7));
    }

    #[test]
    fn back_pressure_counts_sectors_in_flight() {
        let mut c = WriteCache::new(params());
        c.admit(0, 1, 8192, 8192);
        assert!(c.has_room());
        c.admit(0, 2, 8192, 8192);
        assert!(!c.has_room()); // 32 sectors in flight
        c.written_back(1, 8192);
        assert!(c.has_room());
    }

    #[test]
    fn dram_time_is_mqsims_estimate() {
        // 4 KiB at 100 MT/s, 1-byte bursts: 13 + 13 + 2048 x 10 ns.
        assert_eq!(params().dram_access_ns(4096), 20_506);
    }
}
