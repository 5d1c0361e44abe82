//! B-WF2Q+'s service tree: the order in which bfq serves the busy queues of one class. Each entity (a queue) has
//! a virtual start S and finish F (F = S + its budget / its weight, in virtual time); the tree's virtual time V
//! advances by the service the device gives divided by the sum of the busy entities' weights. An entity is
//! eligible once S <= V; among the eligible the smallest F is served next, and with none eligible V jumps to the
//! smallest S.
//!
//! Source: Linux block/bfq-wf2q.c (bfq_calc_finish, bfq_update_vtime, __bfq_lookup_next_entity) and Valente and
//! Checconi's B-WF2Q+ (IEEE Transactions on Computers, 2010). BFQ keeps the entities in one augmented red-black
//! tree ordered by F with the smallest S of each subtree; here two ordered maps (eligible by F, the rest by S)
//! give the same choice at O(log N). Virtual time is fixed point, service << SERVICE_SHIFT / weight, as BFQ's
//! WFQ_SERVICE_SHIFT.

use std::collections::BTreeMap;

/// Fixed-point shift of virtual time, as BFQ's WFQ_SERVICE_SHIFT.
pub const SERVICE_SHIFT: u32 = 22;

/// The virtual time `service_sectors` of service takes at `weight` (bfq_delta).
pub fn virtual_time(service_sectors: u64, weight: u64) -> u128 {
    ((service_sectors as u128) << SERVICE_SHIFT) / weight.max(1) as u128
}

/// The busy entities of one class, by key.
#[derive(Default)]
pub struct ServiceTree {
    vtime: u128,
    weight_sum: u64,
    eligible: BTreeMap<(u128, u64), ()>,
    ineligible: BTreeMap<(u128, u64), u128>,
}

impl ServiceTree {
    /// The tree's virtual time V.
    pub fn vtime(&self) -> u128 {
        self.vtime
    }

    /// A busy entity's weight joins (or, with `joins` false, leaves) the sum V advances by.
    pub fn count_weight(&mut self, weight: u64, joins: bool) {
        if joins {
            self.weight_sum += weight;
        } else {
            self.weight_sum -= weight;
        }
    }

    pub fn insert(&mut self, key: u64, start: u128, finish: u128) {
        if start <= self.vtime {
            self.eligible.insert((finish, key), ());
        } else {
            self.ineligible.insert((start, key), finish);
        }
    }

    pub fn remove(&mut self, key: u64, start: u128, finish: u128) {
        if self.eligible.remove(&(finish, key)).is_none() {
            self.ineligible.remove(&(start, key));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.eligible.is_empty() && self.ineligible.is_empty()
    }

    /// Every entity out and the weight sum back to 0; V stays.
    pub fn clear(&mut self) {
        self.eligible.clear();
        self.ineligible.clear();
        self.weight_sum = 0;
    }

    /// Make every entity with S <= V eligible; with none eligible, V jumps to the smallest S.
    pub fn update_eligible(&mut self) {
        if self.eligible.is_empty() {
            if let Some((&(start, _), _)) = self.ineligible.iter().next() {
                self.vtime = self.vtime.max(start);
            }
        }
        while let Some((&(start, key), &finish)) = self.ineligible.iter().next() {
            if start > self.vtime {
                break;
            }
            self.ineligible.remove(&(start, key));
            self.eligible.insert((finish, key), ());
        }
    }

    /// Every entity in the order B-WF2Q+ would serve them now: the eligible by F, then the others by S. Call
    /// [`ServiceTree::update_eligible`] first.
    pub fn in_order(&self) -> impl Iterator<Item = u64> + '_ {
        self.eligible.keys().map(|&(_, key)| key).chain(self.ineligible.keys().map(|&(_, key)| key))
    }

    /// The eligible entity with the smallest F.
    pub fn peek(&mut self) -> Option<u64> {
        self.update_eligible();
        self.eligible.keys().next().map(|&(_, key)| key)
    }

    /// The device served `sectors`: V advances by them over the busy weight.
    pub fn served(&mut self, sectors: u64) {
        if self.weight_sum > 0 {
            self.vtime += virtual_time(sectors, self.weight_sum);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eligible_entity_with_the_smallest_finish_goes_first_and_v_jumps_when_none_is_eligible() {
        let mut t = ServiceTree::default();
        // Two entities of weight 1 and 3 start at V = 0 with a budget of 30 sectors: F = 30 and 10.
        for (key, weight) in [(1u64, 1u64), (2, 3)] {
            t.insert(key, 0, virtual_time(30, weight));
            t.count_weight(weight, true);
        }
        assert_eq!(t.peek(), Some(2));
        // Serving 2's 30 sectors moves V by 30 / (1 + 3); it comes back with S = its old F, not yet eligible.
        t.remove(2, 0, virtual_time(30, 3));
        t.served(30);
        assert_eq!(t.vtime(), virtual_time(30, 4));
        t.insert(2, virtual_time(30, 3), virtual_time(30, 3) + virtual_time(30, 3));
        assert_eq!(t.peek(), Some(1), "2 is not eligible: its S is past V");
        assert_eq!(t.in_order().collect::<Vec<_>>(), vec![1, 2]);
        // With 1 gone and none eligible, V jumps to 2's start.
        t.remove(1, 0, virtual_time(30, 1));
        t.count_weight(1, false);
        assert_eq!(t.peek(), Some(2));
        assert_eq!(t.vtime(), virtual_time(30, 3));
        t.clear();
        assert!(t.is_empty() && t.peek().is_none());
    }
}
