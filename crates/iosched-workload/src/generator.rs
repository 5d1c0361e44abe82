//! What a job issues next: direction, offset and size, from its spec and a deterministic random stream.
//!
//! Sequential jobs keep one cursor per direction (as fio does) that wraps to the region's start at its end.
//! Random jobs pick a block-aligned offset uniformly in the region, with replacement: fio's default random map
//! (each block once per pass) is not modelled, which changes which blocks repeat, not the rate or the spread.

use crate::job::{JobSpec, RwMode};
use iosched_core::request::Op;
use iosched_core::rng::SimRng;

/// One I/O to issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextIo {
    pub op: Op,
    pub offset_bytes: u64,
    pub len_bytes: u64,
}

pub struct IoGenerator {
    rw: RwMode,
    random: bool,
    rwmix_read_percent: u32,
    block_size_bytes: [u64; 3],
    region_start_bytes: u64,
    region_len_bytes: u64,
    cursor_bytes: [u64; 3],
}

impl IoGenerator {
    /// A generator over `[region_start, region_start + region_len)`; the region must hold one block.
    pub fn new(job: &JobSpec, region_start_bytes: u64, region_len_bytes: u64) -> IoGenerator {
        IoGenerator {
            rw: job.rw,
            random: job.random,
            rwmix_read_percent: job.rwmix_read_percent,
            block_size_bytes: job.block_size_bytes,
            region_start_bytes,
            region_len_bytes,
            cursor_bytes: [0; 3],
        }
    }

    /// The direction of the next I/O.
    fn next_op(&self, rng: &mut SimRng) -> Op {
        match self.rw {
            RwMode::Read => Op::Read,
            RwMode::Write => Op::Write,
            RwMode::Trim => Op::Trim,
            RwMode::ReadWrite => {
                if rng.percent(self.rwmix_read_percent) {
                    Op::Read
                } else {
                    Op::Write
                }
            }
        }
    }

    pub fn next(&mut self, rng: &mut SimRng) -> NextIo {
        let op = self.next_op(rng);
        let dir = op.index();
        let len_bytes = self.block_size_bytes[dir].min(self.region_len_bytes);
        let relative = if self.random {
            let blocks = (self.region_len_bytes / len_bytes).max(1);
            rng.below(blocks) * len_bytes
        } else {
            if self.cursor_bytes[dir] + len_bytes > self.region_len_bytes {
                self.cursor_bytes[dir] = 0;
            }
            let at = self.cursor_bytes[dir];
            self.cursor_bytes[dir] += len_bytes;
            at
        };
        NextIo { op, offset_bytes: self.region_start_bytes + relative, len_bytes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_wraps_within_region() {
        let job = JobSpec { block_size_bytes: [4096; 3], ..JobSpec::default() };
        let mut g = IoGenerator::new(&job, 1 << 20, 3 * 4096);
        let mut rng = SimRng::new(1, 0);
        let offs: Vec<u64> = (0..4).map(|_| g.next(&mut rng).offset_bytes - (1 << 20)).collect();
        assert_eq!(offs, vec![0, 4096, 8192, 0]);
    }

    #[test]
    fn random_stays_aligned_in_region_and_mix_follows_percent() {
        let job = JobSpec { rw: RwMode::ReadWrite, random: true, rwmix_read_percent: 70, ..JobSpec::default() };
        let mut g = IoGenerator::new(&job, 8192, 1 << 20);
        let mut rng = SimRng::new(3, 0);
        let mut reads = 0;
        for _ in 0..10_000 {
            let io = g.next(&mut rng);
            assert!(io.offset_bytes >= 8192 && io.offset_bytes + io.len_bytes <= 8192 + (1 << 20));
            assert_eq!((io.offset_bytes - 8192) % 4096, 0);
            reads += (io.op == Op::Read) as u32;
        }
        assert!((6_800..7_200).contains(&reads), "{reads}");
    }
}
