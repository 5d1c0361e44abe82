//! Where a logical page is placed when a drive's static allocation is not the default: MQSim's
//! `Plane_Allocation_Scheme` (the order in which a flow's consecutive pages move through channels, chips (ways),
//! dies and planes: CWDP, PDWC and the other 22 orders) over each flow's own flash resources (a workload
//! flow's Channel_IDs, Chip_IDs, Die_IDs and Plane_IDs), as Address_Mapping_Unit_Page_Level.cpp allocates
//! (../shared/peers/mqsim/src/ssd; the reference).
//!
//! A flow's pages are numbered from the start of its logical range, and its `k`-th page goes, for the scheme's
//! first letter, to that resource list's entry `k % n`, then the next letter's entry `(k / n) % m`, and so on.
//! iosched numbers an MQSim chip as a die (`chip x channels + channel`) and an MQSim die as a plane group, and
//! the FTL's pool of a plane is `die + dies x (group + groups x plane)`; so CWDP over every resource is
//! `lpn % pools`, the FTL's default, for which no map is built.

/// A flow's logical range and the resources its pages go to (ids by dimension: channel, chip, die, plane).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolDomain {
    pub first_lpn: u64,
    pub end_lpn: u64,
    pub ids: [Vec<u32>; 4],
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolMap {
    /// The dimensions (0 channel, 1 chip, 2 die, 3 plane), the fastest-moving first.
    pub order: [usize; 4],
    /// The drive's channels, chips per channel, dies per chip and planes per die.
    pub counts: [u32; 4],
    /// By logical range, in order; pages past the last are placed as by the first.
    pub domains: Vec<PoolDomain>,
}

impl PoolMap {
    /// The order of a scheme's letters (C channel, W way or chip, D die, P plane), or None when it is not one
    /// of the 24 orders of the four.
    pub fn order_of(scheme: &str) -> Option<[usize; 4]> {
        let mut order = [0; 4];
        let mut seen = [false; 4];
        if scheme.len() != 4 {
            return None;
        }
        for (slot, c) in order.iter_mut().zip(scheme.chars()) {
            let dim = "CWDP".find(c.to_ascii_uppercase())?;
            if std::mem::replace(&mut seen[dim], true) {
                return None;
            }
            *slot = dim;
        }
        Some(order)
    }

    /// The flow whose range holds `lpn` (the first for pages past every range).
    pub fn domain_of(&self, lpn: u64) -> &PoolDomain {
        self.domains.iter().find(|d| lpn >= d.first_lpn && lpn < d.end_lpn).unwrap_or(&self.domains[0])
    }

    /// The FTL pool (a plane) of logical page `lpn`.
    pub fn pool_of(&self, lpn: u64) -> u32 {
        let d = self.domain_of(lpn);
        let mut k = lpn.saturating_sub(d.first_lpn);
        let mut at = [0u32; 4];
        for &dim in &self.order {
            let ids = &d.ids[dim];
            at[dim] = ids[(k % ids.len() as u64) as usize];
            k /= ids.len() as u64;
        }
        let [channels, chips, groups, _] = self.counts;
        let die = at[1] * channels + at[0];
        die + channels * chips * (at[2] + groups * at[3])
    }

    /// Logical pages each pool holds under the map (of `pools`).
    pub fn pages_per_pool(&self, pools: u32) -> Vec<u64> {
        let mut count = vec![0u64; pools as usize];
        for d in &self.domains {
            let cycle: u64 = d.ids.iter().map(|ids| ids.len() as u64).product();
            let pages = d.end_lpn - d.first_lpn;
            // Every pool of the domain takes pages / cycle pages, and the first pages % cycle one more.
            for k in 0..cycle.min(pages) {
                let pool = self.pool_of(d.first_lpn + k) as usize;
                count[pool] += pages / cycle + (k < pages % cycle) as u64;
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(counts: [u32; 4]) -> [Vec<u32>; 4] {
        counts.map(|n| (0..n).collect())
    }

    #[test]
    fn cwdp_over_every_resource_is_the_ftls_default() {
        let counts = [8, 4, 2, 2];
        let map = PoolMap {
            order: PoolMap::order_of("CWDP").unwrap(),
            counts,
            domains: vec![PoolDomain { first_lpn: 0, end_lpn: 10_000, ids: all(counts) }],
        };
        for lpn in 0..1000 {
            assert_eq!(map.pool_of(lpn) as u64, lpn % 128, "lpn {lpn}");
        }
        assert_eq!(map.pages_per_pool(128).iter().sum::<u64>(), 10_000);
    }

    #[test]
    fn pdwc_moves_through_planes_first_and_a_flow_stays_on_its_channels() {
        let counts = [8, 4, 2, 2];
        let mut ids = all(counts);
        ids[0] = vec![4, 5];
        let map = PoolMap {
            order: PoolMap::order_of("pdwc").unwrap(),
            counts,
            domains: vec![PoolDomain { first_lpn: 100, end_lpn: 200, ids }],
        };
        // Page 0 of the flow: channel 4, chip 0, die 0, plane 0; page 1 the same die's plane 1 (pool + 32 x 2).
        assert_eq!(map.pool_of(100), 4);
        assert_eq!(map.pool_of(101), 4 + 32 * 2);
        // Page 2: die 1 (group 1), plane 0.
        assert_eq!(map.pool_of(102), 4 + 32);
        // After 2 x 2 x 4 pages, the next channel.
        assert_eq!(map.pool_of(116), 5);
        assert!((100..200).all(|lpn| [4, 5].contains(&(map.pool_of(lpn) % 8))));
        assert_eq!(PoolMap::order_of("CWDD"), None);
        assert_eq!(PoolMap::order_of("CWD"), None);
    }
}
