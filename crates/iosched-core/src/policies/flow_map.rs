//! Maps keyed by flow (or by a flow and a direction), hashed with one multiply instead of SipHash: the keys are
//! small integers chosen by the engine, not by an adversary, and policies look a flow up several times per
//! request. A fixed hash also makes iteration order the same in every run. Also the keys cfq and bfq give their
//! queues ([`priority_queue_key`]).

use crate::request::Request;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map from flow keys (`u32` or `u64`) to per-flow state.
pub type FlowMap<K, V> = HashMap<K, V, BuildHasherDefault<FlowHasher>>;

/// Fibonacci hashing of integer keys.
#[derive(Default, Clone, Copy)]
pub struct FlowHasher(u64);

impl Hasher for FlowHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// The key of the queue a request goes to in cfq and bfq, as Linux keys theirs: its flow's sync queue, or the
/// async queue of its class and level, which every flow of that priority shares (cfq_async_queue_prio,
/// bfq_async_queue_prio).
pub fn priority_queue_key(req: &Request) -> u64 {
    if req.sync {
        sync_queue_key(req.flow.0)
    } else {
        // Above every flow's key (flow << 1 < 2^33), with the sync bit clear.
        (1u64 << 40) | ((req.class as u64) << 8) | (u64::from(req.level) << 1)
    }
}

/// The key of flow `flow`'s sync queue (see [`priority_queue_key`]).
pub fn sync_queue_key(flow: u32) -> u64 {
    (u64::from(flow) << 1) | 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_small_keys_spread_over_the_high_bits() {
        let mut seen = std::collections::HashSet::new();
        for key in 0u64..4096 {
            let mut h = FlowHasher::default();
            h.write_u64(key);
            seen.insert(h.finish() >> 52); // the bits hashbrown uses for its control bytes and buckets
        }
        assert!(seen.len() > 2000, "{}", seen.len());
    }
}
