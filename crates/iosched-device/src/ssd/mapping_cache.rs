//! The controller's cache of mapping entries (a demand-based FTL's "cached mapping table", as DFTL and MQSim's
//! page-level mapping unit keep it): which logical pages' entries are in DRAM, least recently used first out.
//!
//! The flash side of the mapping table is translation pages of `entries_per_page` consecutive logical pages. A
//! lookup that misses needs its translation page read from flash (the drive charges that) and takes its slot at
//! once, evicting then (MQSim's Reserve_slot_for_lpn); an entry changed by a write is dirty, and evicting a
//! dirty entry writes its translation page back once with every dirty entry of that page, which become clean
//! (MQSim's write-back of a translation page; with MQSim's held write-back they also become the most recent).

use super::slab_lru::SlabLru;
// FxHash (rustc-hash): the keys are page numbers the simulator makes, not input an attacker picks, and SipHash's
// cost showed as a tenth of a write-heavy MQSim run.
use rustc_hash::FxHashSet;

/// The mark of a slot reserved for an entry whose translation page is being read.
const WAITING: u32 = u32::MAX;

pub struct MappingCache {
    /// Logical page -> 0 when clean, [`WAITING`] while reserved for an entry on its way from flash, else 1 + the
    /// generation of its translation page when it was changed.
    entries: SlabLru<u32>,
    /// Per translation page, how many times it was written back: an entry changed in an earlier generation
    /// was written back with its page and is clean (so a write-back cleans every entry of the page at once).
    generation: Vec<u32>,
    entries_per_page: u64,
    /// Translation pages held in DRAM for good once written back (MQSim: its schedulers never issue the
    /// program of a translation page, and the page stays among its "departing" entries, served from DRAM).
    /// `None`: a written-back page leaves DRAM. With it, a write-back also makes the page's changed entries the
    /// most recent, as MQSim's does (it takes each one's address with Retrieve_ppa, which moves it to the front of
    /// its LRU list), so the entries evicted next are other pages' and each eviction of a changed entry writes
    /// another page back.
    held: Option<FxHashSet<u64>>,
    /// With `held`: per translation page, the entries made dirty in its current generation (some perhaps since
    /// evicted), so that a write-back finds them without looking up every entry of the page.
    dirty_lists: Vec<Vec<u32>>,
    pub hits: u64,
    pub misses: u64,
}

impl MappingCache {
    pub fn new(entries: u64, entries_per_page: u64, hold_written_back: bool) -> MappingCache {
        MappingCache {
            entries: SlabLru::new(entries.clamp(1, u32::MAX as u64 - 1) as usize),
            generation: Vec::new(),
            entries_per_page: entries_per_page.max(1),
            held: hold_written_back.then(FxHashSet::default),
            dirty_lists: Vec::new(),
            hits: 0,
            misses: 0,
        }
    }

    /// The translation page that holds `lpn`'s entry.
    pub fn translation_page(&self, lpn: u64) -> u64 {
        lpn / self.entries_per_page
    }

    /// Whether `lpn`'s entry is cached (a use: it becomes the most recent), counted as a hit or a miss. An
    /// entry of a translation page held in DRAM is a hit, and is cached.
    pub fn lookup(&mut self, lpn: u64) -> bool {
        // A held page first: a small set, where the entries are a large one.
        let hit = self.held.as_ref().is_some_and(|h| h.contains(&(lpn / self.entries_per_page)))
            || self.entries.get_mut(lpn).is_some_and(|mark| *mark != WAITING);
        if hit {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
        hit
    }

    fn generation_of(&mut self, page: u64) -> &mut u32 {
        if page as usize >= self.generation.len() {
            self.generation.resize(page as usize + 1, 0);
        }
        &mut self.generation[page as usize]
    }

    fn is_dirty(&mut self, lpn: u64, mark: u32) -> bool {
        mark != 0 && mark != WAITING && mark - 1 == *self.generation_of(lpn / self.entries_per_page)
    }

    /// A miss: take a slot for `lpn`'s entry now, while its translation page is read (MQSim's
    /// Reserve_slot_for_lpn, which evicts the least recent entry at the miss, not when the page arrives). Returns
    /// the translation page to write back when this evicted a dirty entry. The entry stays a miss until
    /// [`Self::insert`] fills it.
    pub fn reserve(&mut self, lpn: u64) -> Option<u64> {
        if self.entries.contains(lpn) {
            return None;
        }
        let (evicted, mark) = self.entries.push_new(lpn, WAITING)?;
        self.evicted(evicted, mark, lpn)
    }

    /// What evicting `evicted` (with `mark`) for `new` writes back: its translation page, when the entry was
    /// dirty.
    fn evicted(&mut self, evicted: u64, mark: u32, new: u64) -> Option<u64> {
        if !self.is_dirty(evicted, mark) {
            return None;
        }
        let page = evicted / self.entries_per_page;
        if let Some(set) = self.held.as_mut() {
            set.insert(page);
            // MQSim's write-back takes every changed entry of the page (made recent) in address order, then the
            // slot it evicted for is reserved (the most recent of all).
            let generation = *self.generation_of(page);
            if let Some(dirty) = self.dirty_lists.get_mut(page as usize) {
                dirty.sort_unstable();
                dirty.dedup();
                for &lpn in dirty.iter() {
                    let lpn = lpn as u64;
                    self.entries.touch_if(lpn, |&m| m != 0 && m != WAITING && m - 1 == generation);
                }
                dirty.clear(); // its room kept for the page's next generation
            }
            self.entries.get_mut(new);
        }
        *self.generation_of(page) = self.generation_of(page).wrapping_add(1);
        Some(page)
    }

    /// Cache `lpn`'s entry (dirty when a write changed it). Returns the translation page to write back when
    /// this evicted a dirty entry.
    pub fn insert(&mut self, lpn: u64, dirty: bool) -> Option<u64> {
        let page = lpn / self.entries_per_page;
        let generation = *self.generation_of(page);
        let dirty_mark = if dirty { generation + 1 } else { 0 };
        if let Some(mark) = self.entries.get_mut(lpn) {
            // Reserved: the entry arrives. Cached: a write makes it dirty, unless it is already dirty in this
            // generation of its page.
            let already_dirty = *mark != WAITING && *mark != 0 && *mark - 1 == generation;
            if *mark == WAITING || (dirty && !already_dirty) {
                *mark = dirty_mark;
                if dirty {
                    self.note_dirty(page, lpn);
                }
            }
            return None;
        }
        if dirty {
            self.note_dirty(page, lpn);
        }
        let (evicted, mark) = self.entries.push_new(lpn, dirty_mark)?;
        self.evicted(evicted, mark, lpn)
    }

    /// With held write-backs: remember that `lpn`'s entry was made dirty in its page's current generation.
    fn note_dirty(&mut self, page: u64, lpn: u64) {
        if self.held.is_some() {
            if page as usize >= self.dirty_lists.len() {
                self.dirty_lists.resize_with(page as usize + 1, Vec::new);
            }
            self.dirty_lists[page as usize].push(lpn as u32); // logical pages fit in 32 bits (FtlGeometry::check)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recent_entry_leaves_and_a_dirty_one_writes_its_page_back_once() {
        let mut c = MappingCache::new(2, 10, false);
        assert!(!c.lookup(1));
        assert_eq!(c.insert(1, true), None);
        assert_eq!(c.insert(2, true), None); // same translation page as 1
        assert!(c.lookup(1)); // 2 is now the least recent
        assert_eq!(c.insert(30, false), Some(0)); // evicts dirty 2: page 0 written back, 1 made clean
        assert_eq!(c.insert(31, false), None); // evicts 1, now clean
        assert!(!c.lookup(1) && c.lookup(30) && c.lookup(31));
        assert_eq!((c.hits, c.misses), (3, 2));
    }

    #[test]
    fn a_held_translation_page_serves_every_entry_of_it_after_its_write_back() {
        let mut c = MappingCache::new(1, 10, true);
        c.insert(1, true);
        assert!(!c.lookup(5));
        assert_eq!(c.insert(20, false), Some(0)); // page 0 written back: held from now on
        assert!(c.lookup(5) && c.lookup(9) && !c.lookup(25));
        let mut c = MappingCache::new(1, 10, false);
        c.insert(1, true);
        c.insert(20, false);
        assert!(!c.lookup(5));
    }

    #[test]
    fn a_miss_takes_its_slot_at_once_and_stays_a_miss_until_its_entry_arrives() {
        let mut c = MappingCache::new(2, 10, false);
        c.insert(1, true);
        c.insert(2, false);
        // 1 is the least recent: the reservation for 30 evicts it (dirty: page 0 written back) at the miss.
        assert_eq!(c.reserve(30), Some(0));
        assert!(!c.lookup(30), "reserved, not arrived");
        assert_eq!(c.reserve(30), None, "already reserved");
        assert_eq!(c.insert(30, false), None, "the entry arrives into its slot");
        assert!(c.lookup(30) && c.lookup(2) && !c.lookup(1));
    }

    #[test]
    fn with_mqsims_write_back_the_pages_changed_entries_become_the_most_recent() {
        // Entries 1 and 2 of translation page 0 changed, then 20 (page 2) and 1 and 2 again... 1 is the least
        // recent when 40 comes: its eviction writes page 0 back, which takes 2 (changed) to the front, so the
        // next eviction is 20's, not 2's: MQSim retrieves every changed entry of the page it writes back.
        let run = |mqsim: bool| {
            let mut c = MappingCache::new(3, 10, mqsim);
            c.insert(1, true);
            c.insert(2, true);
            c.insert(20, true);
            assert_eq!(c.insert(40, false), Some(0)); // evicts 1: page 0 written back
            c.insert(50, false).map(|page| (page, c.lookup(2)))
        };
        assert_eq!(run(true), Some((2, true)), "20 leaves (page 2 written back); 2 stays");
        assert_eq!(run(false), None, "2 leaves, clean since page 0's write-back");
    }
}
