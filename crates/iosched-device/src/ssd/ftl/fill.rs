//! A fill of logical page ranges written in order onto a fresh FTL, kept as arithmetic instead of tables: the
//! `k`-th page of pool `d` that the fill wrote sits at pool `d`'s `k`-th physical page (blocks are opened in
//! order, pages appended). The FTL consults it for table entries it has not written since (0), so filling most
//! of a large drive costs time and memory per block, not per page.

#[derive(Clone, Debug)]
pub struct Fill {
    pools: u64,
    pages_per_pool: u64,
    /// Logical ranges `[start, end)`, in the order they were written.
    ranges: Vec<(u64, u64)>,
    /// Per pool, per range: pages of that pool written before the range (the range's first index in the pool).
    prefix: Vec<u64>,
    /// Per pool: pages the fill wrote.
    count: Vec<u64>,
}

impl Fill {
    pub fn new(pools: u32, pages_per_pool: u64, ranges: &[(u64, u64)]) -> Fill {
        let pools = pools as u64;
        let mut prefix = vec![0; pools as usize * ranges.len()];
        let mut count = vec![0; pools as usize];
        for d in 0..pools {
            let mut total = 0;
            for (i, &(start, end)) in ranges.iter().enumerate() {
                prefix[(d as usize) * ranges.len() + i] = total;
                total += Self::pages_in(pools, d, start, end);
            }
            count[d as usize] = total;
        }
        Fill { pools, pages_per_pool, ranges: ranges.to_vec(), prefix, count }
    }

    /// Pages the fill wrote on each pool.
    pub fn pages_on_pool(&self, pool: u32) -> u64 {
        self.count[pool as usize]
    }

    /// The first logical page of pool `d` at or after `start`.
    fn first_in(pools: u64, d: u64, start: u64) -> u64 {
        start + (d + pools - start % pools) % pools
    }

    fn pages_in(pools: u64, d: u64, start: u64, end: u64) -> u64 {
        let first = Self::first_in(pools, d, start);
        if first < end {
            (end - 1 - first) / pools + 1
        } else {
            0
        }
    }

    /// Where the fill put `lpn`, if it wrote it.
    pub fn ppn_of(&self, lpn: u64) -> Option<u64> {
        let i = self.ranges.iter().position(|&(s, e)| lpn >= s && lpn < e)?;
        let d = lpn % self.pools;
        let first = Self::first_in(self.pools, d, self.ranges[i].0);
        let k = self.prefix[d as usize * self.ranges.len() + i] + (lpn - first) / self.pools;
        Some(d * self.pages_per_pool + k)
    }

    /// Which logical page the fill wrote at `ppn`, if any.
    pub fn lpn_of(&self, ppn: u64) -> Option<u64> {
        let d = ppn / self.pages_per_pool;
        let k = ppn % self.pages_per_pool;
        if k >= self.count[d as usize] {
            return None;
        }
        let n = self.ranges.len();
        let row = &self.prefix[d as usize * n..(d as usize + 1) * n];
        let i = row.partition_point(|&p| p <= k) - 1;
        // Empty ranges share their prefix with the next; the last with that prefix holds k.
        let first = Self::first_in(self.pools, d, self.ranges[i].0);
        Some(first + (k - row[i]) * self.pools)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_map_both_ways_as_an_in_order_fill_places_them() {
        let f = Fill::new(3, 100, &[(0, 10), (20, 25)]);
        // Pool 1 holds 1, 4, 7 then 22: its pages 0..4.
        assert_eq!(f.pages_on_pool(1), 4);
        assert_eq!(f.ppn_of(7), Some(100 + 2));
        assert_eq!(f.ppn_of(22), Some(100 + 3));
        assert_eq!(f.ppn_of(12), None);
        for lpn in (0..10).chain(20..25) {
            let ppn = f.ppn_of(lpn).unwrap();
            assert_eq!(f.lpn_of(ppn), Some(lpn), "lpn {lpn}");
        }
        assert_eq!(f.lpn_of(104), None);
        assert_eq!(f.pages_on_pool(0) + f.pages_on_pool(1) + f.pages_on_pool(2), 15);
    }
}
