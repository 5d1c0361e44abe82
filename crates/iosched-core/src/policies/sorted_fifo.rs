//! Requests kept two ways at once, as deadline-style schedulers need: in offset order (for the elevator) and in
//! arrival order with a deadline each (for expiry). Shared by `deadline` and `as`.
//!
//! A request is keyed by (offset, arrival sequence). The FIFO is not updated when a request leaves by offset
//! order; its head skips such requests when it is next looked at, so each entry is dropped once.

use crate::request::Request;
use std::collections::{BTreeMap, VecDeque};

/// (offset in bytes, arrival sequence).
pub type Key = (u64, u64);

#[derive(Default)]
pub struct SortedFifo {
    by_offset: BTreeMap<Key, Request>,
    /// (key, deadline), in arrival order; may hold keys already removed.
    fifo: VecDeque<(Key, u64)>,
}

impl SortedFifo {
    pub fn len(&self) -> usize {
        self.by_offset.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_offset.is_empty()
    }

    /// Add `req`, the `seq`-th arrival, due by `deadline_ns`.
    pub fn insert(&mut self, seq: u64, req: Request, deadline_ns: u64) {
        let key = (req.offset_bytes, seq);
        self.by_offset.insert(key, req);
        self.fifo.push_back((key, deadline_ns));
    }

    /// The oldest request still queued, and its deadline.
    pub fn oldest(&mut self) -> Option<(Key, u64)> {
        while let Some(&(key, deadline_ns)) = self.fifo.front() {
            if self.by_offset.contains_key(&key) {
                return Some((key, deadline_ns));
            }
            self.fifo.pop_front();
        }
        None
    }

    pub fn get(&self, key: &Key) -> &Request {
        &self.by_offset[key]
    }

    /// The first request at or above `offset_bytes`.
    pub fn at_or_after(&self, offset_bytes: u64) -> Option<Key> {
        self.by_offset.range((offset_bytes, 0)..).next().map(|(k, _)| *k)
    }

    /// The last request below `offset_bytes`.
    pub fn before(&self, offset_bytes: u64) -> Option<Key> {
        self.by_offset.range(..(offset_bytes, 0)).next_back().map(|(k, _)| *k)
    }

    /// The request at the lowest offset.
    pub fn lowest(&self) -> Option<Key> {
        self.by_offset.keys().next().copied()
    }

    /// The elevator's next request from `head_bytes` (Linux's cfq_choose_req / bfq_choose_req): the nearest
    /// request ahead, or the nearest behind if it lies within `back_max_bytes` and its distance times
    /// `back_penalty` is shorter; with neither, the lowest.
    pub fn nearest_with_back_seek(&self, head_bytes: u64, back_max_bytes: u64, back_penalty: u64) -> Option<Key> {
        let forward = self.at_or_after(head_bytes);
        let backward = self.before(head_bytes).filter(|k| head_bytes - k.0 <= back_max_bytes);
        match (forward, backward) {
            (Some(f), Some(b)) => Some(if (head_bytes - b.0) * back_penalty < f.0 - head_bytes { b } else { f }),
            (Some(f), None) => Some(f),
            (None, Some(b)) => Some(b),
            (None, None) => self.lowest(),
        }
    }

    pub fn remove(&mut self, key: &Key) -> Request {
        self.by_offset.remove(key).expect("a key just found")
    }

    /// Move every request out, with its arrival sequence, into `held`.
    pub fn drain_into(&mut self, held: &mut Vec<(u64, Request)>) {
        held.extend(std::mem::take(&mut self.by_offset).into_iter().map(|((_, seq), r)| (seq, r)));
        self.fifo.clear();
    }
}

/// Requests with their arrival sequences, in arrival order (what [`crate::policy::Policy::drain`] returns).
pub fn in_arrival_order(mut held: Vec<(u64, Request)>) -> Vec<Request> {
    held.sort_unstable_by_key(|(seq, _)| *seq);
    held.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_order_and_arrival_order_stay_consistent() {
        let mut q = SortedFifo::default();
        for (seq, offset) in [(0u64, 300u64), (1, 100), (2, 200)] {
            q.insert(seq, Request::new(seq, crate::request::Op::Read, offset, 1, 0), 10 * seq);
        }
        assert_eq!(q.at_or_after(150), Some((200, 2)));
        assert_eq!(q.before(150), Some((100, 1)));
        assert_eq!(q.lowest(), Some((100, 1)));
        // Taking the oldest by offset order makes the FIFO skip it.
        // From 250: 300 is 50 ahead, 200 is 50 behind but costs 100 (penalty 2): ahead wins. From 220: 200 is
        // 20 behind (40 with the penalty), 300 is 80 ahead: back. Nothing ahead of 350: back to 300 if within
        // back_max, else the lowest.
        assert_eq!(q.nearest_with_back_seek(250, 1000, 2), Some((300, 0)));
        assert_eq!(q.nearest_with_back_seek(220, 1000, 2), Some((200, 2)));
        assert_eq!(q.nearest_with_back_seek(350, 1000, 2), Some((300, 0)));
        assert_eq!(q.nearest_with_back_seek(350, 10, 2), Some((100, 1)));
        q.remove(&(300, 0));
        assert_eq!(q.oldest(), Some(((100, 1), 10)));
        let mut held = Vec::new();
        q.drain_into(&mut held);
        assert!(q.is_empty() && q.oldest().is_none());
        let order: Vec<u64> = in_arrival_order(held).iter().map(|r| r.offset_bytes).collect();
        assert_eq!(order, vec![100, 200]);
    }
}
