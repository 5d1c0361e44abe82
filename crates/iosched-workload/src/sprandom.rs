//! fio's sprandom: SanDisk's pseudo-random preconditioning (fio 3.41, sprandom.c), which brings a flash drive
//! to the steady state of uniform random writes in about one drive write instead of several.
//!
//! The idea (Desnoyers, "Analytic Models of SSD Write Performance", ACM ToS 2012): at steady state under greedy
//! cleaning, a block's share of valid pages times the share of the drive holding such blocks is constant. fio
//! turns that into a target validity per region of the drive's physical space (`spr_num_regions` regions of
//! `size x (1 + spr_op)` bytes): the write amplification is approximated as `0.5 / op + 0.7`, the block cleaned
//! has validity `1 - 1 / WA`, validities from 1 down to that are spaced evenly, the curve `f(v) = v_gc / v` is
//! resampled to regions of equal size, and the order reversed so the least valid region is written first.
//!
//! Writes then cover the logical blocks once each in a pseudo-random order (fio's LFSR; here a keyed
//! permutation, see [`BlockPermutation`]), region by region of `region bytes / bs` writes. Each write is kept,
//! with the region's invalid share as its probability, to be written again (so invalidated) in the next region:
//! those rewrites come first in the next region (after its first new block, as in fio), which is filled up with
//! new blocks. The job ends when the last
//! region is written or every block has been written, whichever comes first; fio sets the job's size to the
//! physical size, which bounds it too.
//!
//! Departures, named: the permutation is not fio's LFSR (a different order of the same blocks, as with any
//! other seed); the buffer of blocks to rewrite has no fixed capacity (fio sizes it at six standard deviations
//! and stops if it overflows); past the last region fio reads its invalid share one past the end of its array,
//! here the last region's share is used.

use iosched_core::rng::SimRng;
use std::collections::VecDeque;

/// fio's precision for a region's invalid share: parts in 10,000.
const PARTS: u32 = 10_000;

/// The job options (sprandom=1, spr_op, spr_num_regions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpRandomSpec {
    /// The drive's spare space as a share of the logical (0.15: 15 %).
    pub over_provisioning: f64,
    pub regions: u32,
}

impl Default for SpRandomSpec {
    /// fio's defaults.
    fn default() -> SpRandomSpec {
        SpRandomSpec { over_provisioning: 0.15, regions: 100 }
    }
}

impl SpRandomSpec {
    /// The physical size of a drive of `logical_bytes` with this spare space, rounded up to `block_bytes`.
    pub fn physical_bytes(&self, logical_bytes: u64, block_bytes: u64) -> u64 {
        let size = logical_bytes + (logical_bytes as f64 * self.over_provisioning).ceil() as u64;
        size.div_ceil(block_bytes.max(1)) * block_bytes.max(1)
    }

    /// The invalid share of each region, in parts of 10,000, in the order they are written.
    pub fn invalid_parts(&self) -> Vec<u32> {
        let n = self.regions.max(1) as usize;
        let wa = 0.5 / self.over_provisioning + 0.7;
        let gc_validity = 1.0 - 1.0 / wa;
        let validity: Vec<f64> = linspace(1.0, gc_validity, n);
        // The cumulative size of regions of each validity (f = v_gc / v, up to a constant), as x.
        let mut x = Vec::with_capacity(n);
        let mut acc = 0.0;
        for v in &validity {
            acc += 1.0 / v;
            x.push(acc);
        }
        let resampled: Vec<f64> =
            linspace(x[0], x[n - 1], n).into_iter().map(|at| interpolate(at, &x, &validity)).collect();
        resampled.iter().rev().map(|v| ((1.0 - v) * PARTS as f64).round() as u32).collect()
    }
}

fn linspace(start: f64, end: f64, n: usize) -> Vec<f64> {
    if n == 1 {
        return vec![start];
    }
    let step = (end - start) / (n as f64 - 1.0);
    (0..n).map(|i| start + i as f64 * step).collect()
}

/// Linear interpolation of `y` over increasing `x`, clamped to the ends.
fn interpolate(at: f64, x: &[f64], y: &[f64]) -> f64 {
    if at <= x[0] {
        return y[0];
    }
    if at >= x[x.len() - 1] {
        return y[y.len() - 1];
    }
    let i = x.partition_point(|v| *v <= at).clamp(1, x.len() - 1);
    let (x1, x2, y1, y2) = (x[i - 1], x[i], y[i - 1], y[i]);
    if (x2 - x1).abs() < 1e-9 {
        y1
    } else {
        y1 + (y2 - y1) * (at - x1) / (x2 - x1)
    }
}

/// Every index in `0..n` once, in a pseudo-random order, with constant memory: a keyed bijection on the
/// smallest power of two holding `n` (odd multiplications, additions and xor-shifts, each invertible modulo a
/// power of two), walking past values of `n` or more. fio uses a maximal-length LFSR for the same purpose.
#[derive(Clone, Debug)]
pub struct BlockPermutation {
    n: u64,
    bits: u32,
    mask: u64,
    keys: [u64; 3],
    counter: u64,
}

impl BlockPermutation {
    pub fn new(n: u64, rng: &mut SimRng) -> BlockPermutation {
        let bits = (64 - n.saturating_sub(1).leading_zeros()).max(1);
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        BlockPermutation { n, bits, mask, keys: [rng.next_u64(), rng.next_u64(), rng.next_u64()], counter: 0 }
    }

    fn mix(&self, mut x: u64) -> u64 {
        let shift = self.bits.div_ceil(2).max(1);
        for key in self.keys {
            x = (x.wrapping_mul(key | 1).wrapping_add(key >> 7)) & self.mask;
            x ^= x >> shift;
        }
        x
    }
}

impl Iterator for BlockPermutation {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        while self.counter <= self.mask && self.counter < u64::MAX {
            let x = self.mix(self.counter);
            self.counter += 1;
            if x < self.n {
                return Some(x);
            }
        }
        None
    }
}

/// The offset generator: which block each write of the job goes to.
#[derive(Clone, Debug)]
pub struct SpRandom {
    blocks: BlockPermutation,
    invalid_parts: Vec<u32>,
    region_writes: u64,
    writes_left: u64,
    region: usize,
    /// Which of the two counts new rewrites are counted in (fio's two-phase buffer).
    phase: usize,
    rewrites_counted: [u64; 2],
    /// Blocks to write again in this region, and those kept in this region for the next.
    rewrites: VecDeque<u64>,
    kept: Vec<u64>,
    next: Option<u64>,
}

impl SpRandom {
    /// Over `logical_blocks` blocks of `block_bytes`.
    pub fn new(spec: &SpRandomSpec, logical_blocks: u64, block_bytes: u64, rng: &mut SimRng) -> SpRandom {
        let physical = spec.physical_bytes(logical_blocks * block_bytes, block_bytes);
        let region_writes = physical / spec.regions.max(1) as u64 / block_bytes.max(1);
        let mut s = SpRandom {
            blocks: BlockPermutation::new(logical_blocks, rng),
            invalid_parts: spec.invalid_parts(),
            region_writes,
            writes_left: region_writes,
            region: 0,
            phase: 0,
            rewrites_counted: [0; 2],
            rewrites: VecDeque::new(),
            kept: Vec::new(),
            next: None,
        };
        s.next = s.advance(rng);
        s
    }

    /// The block of the next write, or None: preconditioning is over.
    pub fn peek(&self) -> Option<u64> {
        self.next
    }

    /// Take the next write's block and work out the one after it.
    pub fn take(&mut self, rng: &mut SimRng) -> Option<u64> {
        let block = self.next?;
        self.next = self.advance(rng);
        Some(block)
    }

    /// Keep `block` to be written again in the next region, with the region's invalid share as probability.
    fn maybe_keep(&mut self, block: u64, rng: &mut SimRng) {
        let share = self.invalid_parts[self.region.min(self.invalid_parts.len() - 1)];
        if rng.below(PARTS as u64 + 1) <= share as u64 {
            self.kept.push(block);
            self.rewrites_counted[self.phase ^ 1] += 1;
        }
    }

    fn advance(&mut self, rng: &mut SimRng) -> Option<u64> {
        if let Some(block) = self.rewrites.pop_front() {
            self.maybe_keep(block, rng);
            return Some(block);
        }
        if self.writes_left == 0 {
            if self.region >= self.invalid_parts.len() {
                return None;
            }
            self.rewrites_counted[self.phase] = 0;
            self.region += 1;
            self.phase ^= 1;
            self.writes_left = self.region_writes.saturating_sub(self.rewrites_counted[self.phase]);
            // The kept blocks are written from the next call on; this one takes a new block (as fio's order).
            self.rewrites.extend(self.kept.drain(..));
        }
        let block = self.blocks.next()?;
        self.writes_left = self.writes_left.saturating_sub(1);
        self.maybe_keep(block, rng);
        Some(block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_permutation_gives_every_block_once() {
        for n in [1u64, 2, 3, 1000, 4096, 5000] {
            let mut rng = SimRng::new(1, 0);
            let mut seen: Vec<u64> = BlockPermutation::new(n, &mut rng).collect();
            assert_eq!(seen.len() as u64, n);
            let shuffled = seen.windows(2).filter(|w| w[1] != w[0] + 1).count();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>());
            if n >= 1000 {
                assert!(shuffled as u64 > n * 9 / 10, "n={n}: only {shuffled} jumps");
            }
        }
    }

    #[test]
    fn regions_run_from_least_valid_to_fully_valid() {
        // op 0.15: WA 0.5/0.15+0.7 = 4.0333, the cleaned block 1 - 1/4.0333 = 75.21 % valid: 2479 parts invalid.
        let parts = SpRandomSpec::default().invalid_parts();
        assert_eq!(parts.len(), 100);
        assert_eq!(parts[0], 2479, "{parts:?}");
        assert_eq!(*parts.last().unwrap(), 0);
        assert!(parts.windows(2).all(|w| w[0] >= w[1]), "{parts:?}");
    }

    #[test]
    fn every_block_is_written_and_the_rewrites_make_up_the_spare() {
        let spec = SpRandomSpec { over_provisioning: 0.25, regions: 50 };
        let blocks = 20_000u64;
        let mut rng = SimRng::new(7, 0);
        let mut spr = SpRandom::new(&spec, blocks, 4096, &mut rng);
        let mut writes = vec![0u32; blocks as usize];
        let mut total = 0u64;
        while let Some(b) = spr.take(&mut rng) {
            writes[b as usize] += 1;
            total += 1;
        }
        assert!(writes.iter().all(|w| *w >= 1), "a block was never written");
        // The rewrites come to about the spare space: total writes near the physical size in blocks.
        let physical_blocks = spec.physical_bytes(blocks * 4096, 4096) / 4096;
        let ratio = total as f64 / physical_blocks as f64;
        assert!((0.9..1.1).contains(&ratio), "{total} writes for {physical_blocks} physical blocks");
    }
}
