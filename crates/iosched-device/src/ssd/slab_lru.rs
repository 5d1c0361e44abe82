//! A least-recently-used map from page numbers to small values, kept in flat arrays: slots in a `Vec`, the
//! recency list as slot indices, a map from key to slot. Written here rather than taken from the lru crate
//! (used before): the mapping cache holds hundreds of thousands of entries of a few bytes and is used on
//! every flash access, and the crate's boxed nodes cost an allocation and a pointer chase more per use
//! (a tenth of a write-heavy MQSim scenario's time).
//!
//! Keys are logical page numbers, which the FTL keeps under 2^32 ([`super::ftl::FtlGeometry::check`]), so
//! they are held in 32 bits: a slot is 16 bytes and an index entry 8, where 64-bit keys made them 24 and 16,
//! and the tables the caches touch at random on every access are that much smaller.

use rustc_hash::FxHashMap;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Slot<V> {
    key: u32,
    value: V,
    prev: u32,
    next: u32,
}

pub struct SlabLru<V> {
    slots: Vec<Slot<V>>,
    index: FxHashMap<u32, u32>,
    capacity: usize,
    /// Most recent, least recent.
    head: u32,
    tail: u32,
    free: Vec<u32>,
}

/// A page number as a key (see the module's header for why it fits).
fn key32(key: u64) -> u32 {
    debug_assert!(key < u32::MAX as u64, "page {key} beyond 32 bits");
    key as u32
}

impl<V: Copy> SlabLru<V> {
    pub fn new(capacity: usize) -> SlabLru<V> {
        SlabLru {
            slots: Vec::new(),
            index: FxHashMap::default(),
            capacity: capacity.max(1),
            head: NIL,
            tail: NIL,
            free: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    fn unlink(&mut self, i: u32) {
        let Slot { prev, next, .. } = self.slots[i as usize];
        match prev {
            NIL => self.head = next,
            p => self.slots[p as usize].next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => self.slots[n as usize].prev = prev,
        }
    }

    fn push_front(&mut self, i: u32) {
        self.slots[i as usize].prev = NIL;
        self.slots[i as usize].next = self.head;
        match self.head {
            NIL => self.tail = i,
            h => self.slots[h as usize].prev = i,
        }
        self.head = i;
    }

    /// The value for `key`, made the most recent.
    pub fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        let i = *self.index.get(&key32(key))?;
        self.make_head(i);
        Some(&mut self.slots[i as usize].value)
    }

    /// Make `key` the most recent if its value passes `pred` (one lookup); whether it did.
    pub fn touch_if(&mut self, key: u64, pred: impl FnOnce(&V) -> bool) -> bool {
        let Some(&i) = self.index.get(&key32(key)) else { return false };
        if !pred(&self.slots[i as usize].value) {
            return false;
        }
        self.make_head(i);
        true
    }

    /// Make slot `i` the most recent.
    fn make_head(&mut self, i: u32) {
        if self.head != i {
            self.unlink(i);
            self.push_front(i);
        }
    }

    /// The value for `key`, its recency untouched.
    pub fn peek_mut(&mut self, key: u64) -> Option<&mut V> {
        let i = *self.index.get(&key32(key))?;
        Some(&mut self.slots[i as usize].value)
    }

    pub fn contains(&self, key: u64) -> bool {
        self.index.contains_key(&key32(key))
    }

    /// Insert a key that is not present as the most recent; when full, the least recent entry leaves and is
    /// returned.
    pub fn push_new(&mut self, key: u64, value: V) -> Option<(u64, V)> {
        debug_assert!(!self.contains(key));
        let mut evicted = None;
        if self.index.len() >= self.capacity {
            evicted = self.pop_lru();
        }
        let key = key32(key);
        let slot = Slot { key, value, prev: NIL, next: NIL };
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = slot;
                i
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        self.index.insert(key, i);
        self.push_front(i);
        evicted
    }

    /// Remove and return the least recent entry.
    pub fn pop_lru(&mut self) -> Option<(u64, V)> {
        let i = self.tail;
        if i == NIL {
            return None;
        }
        self.unlink(i);
        let Slot { key, value, .. } = self.slots[i as usize];
        self.index.remove(&key);
        self.free.push(i);
        Some((key as u64, value))
    }

    /// Remove `key`'s entry.
    pub fn remove(&mut self, key: u64) -> Option<V> {
        let i = self.index.remove(&key32(key))?;
        self.unlink(i);
        self.free.push(i);
        Some(self.slots[i as usize].value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_entry_leaves_first() {
        let mut c = SlabLru::new(3);
        for k in 1..=3 {
            assert_eq!(c.push_new(k, k * 10), None);
        }
        assert_eq!(c.get_mut(1).copied(), Some(10)); // 2 is now the least recent
        assert_eq!(c.peek_mut(2).copied(), Some(20)); // a peek does not refresh it
        assert_eq!(c.push_new(4, 40), Some((2, 20)));
        assert_eq!(c.remove(3), Some(30));
        assert_eq!(c.push_new(5, 50), None); // room left by the removal
        assert_eq!(c.pop_lru(), Some((1, 10)));
        assert_eq!(c.pop_lru(), Some((4, 40)));
        assert_eq!(c.pop_lru(), Some((5, 50)));
        assert_eq!(c.pop_lru(), None);
        assert_eq!(c.len(), 0);
    }
}
