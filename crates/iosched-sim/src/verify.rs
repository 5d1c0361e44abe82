//! fio's verify, as far as it reaches the device: the blocks a job writes are logged as their writes complete
//! and read back — all of them after the writes of each loop (do_verify, fio's do_verify() after do_io()), and a
//! batch of them during the writes whenever enough wait (verify_backlog / verify_backlog_batch, fio's
//! get_next_verify from do_io()). The check of the data is the host's work and takes no simulated time.
//!
//! Order, as fio's log.c keeps its history: in write order when a random map makes each block written once per
//! pass; otherwise (sequential writes, norandommap) sorted by offset, a block written again replacing the
//! overlapping older entries (fio's rb-tree). One departure: fio logs a block when its write is issued and
//! skips it while in flight; here it is logged when the write completes, so where a scheduler reorders writes
//! the write-order log follows completions.

use iosched_workload::job::JobSpec;
use std::collections::{BTreeMap, VecDeque};

/// A block to read back: (offset, length) in bytes.
pub type Block = (u64, u64);

pub struct VerifyLog {
    /// Read everything back after the writes of each loop.
    after_writes: bool,
    backlog: u64,
    backlog_batch: u64,
    /// Write order (a random map), or sorted by offset.
    in_order: Option<VecDeque<Block>>,
    sorted: BTreeMap<u64, u64>,
    /// Reads left in the current backlog batch.
    batch_left: u64,
}

impl VerifyLog {
    /// None when the job does not verify (verify=none, or neither do_verify nor verify_backlog).
    pub fn of(job: &JobSpec) -> Option<VerifyLog> {
        job.verify.as_ref()?;
        if !job.do_verify && job.verify_backlog == 0 {
            return None;
        }
        Some(VerifyLog {
            after_writes: job.do_verify,
            backlog: job.verify_backlog,
            backlog_batch: if job.verify_backlog_batch > 0 { job.verify_backlog_batch } else { job.verify_backlog },
            in_order: job.keeps_random_map().then(VecDeque::new),
            sorted: BTreeMap::new(),
            batch_left: 0,
        })
    }

    /// Whether everything written is read back after the writes.
    pub fn after_writes(&self) -> bool {
        self.after_writes
    }

    pub fn len(&self) -> usize {
        match &self.in_order {
            Some(list) => list.len(),
            None => self.sorted.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A write completed: its block waits to be read back.
    pub fn written(&mut self, offset_bytes: u64, len_bytes: u64) {
        if let Some(list) = &mut self.in_order {
            list.push_back((offset_bytes, len_bytes));
            return;
        }
        let end = offset_bytes + len_bytes;
        // Older entries the new block overlaps are dropped: what is on the device now is the new data. Entries
        // never overlap one another, so walking down from the block's end, the overlapping ones come first.
        let overlapping: Vec<u64> = self
            .sorted
            .range(..end)
            .rev()
            .take_while(|(at, len)| **at + **len > offset_bytes)
            .map(|(at, _)| *at)
            .collect();
        for at in overlapping {
            self.sorted.remove(&at);
        }
        self.sorted.insert(offset_bytes, len_bytes);
    }

    /// The next block to read back.
    pub fn take_next(&mut self) -> Option<Block> {
        match &mut self.in_order {
            Some(list) => list.pop_front(),
            None => self.sorted.pop_first(),
        }
    }

    /// During the writes: the next block of a backlog batch, starting a batch when verify_backlog blocks wait.
    pub fn next_of_backlog(&mut self) -> Option<Block> {
        if self.backlog == 0 {
            return None;
        }
        if self.batch_left == 0 && self.len() as u64 >= self.backlog {
            self.batch_left = self.backlog_batch;
        }
        if self.batch_left == 0 {
            return None;
        }
        let block = self.take_next();
        self.batch_left = if block.is_some() { self.batch_left - 1 } else { 0 };
        block
    }

    /// The verify phase ran out of time: what is left is not read.
    pub fn drop_rest(&mut self) {
        if let Some(list) = &mut self.in_order {
            list.clear();
        }
        self.sorted.clear();
        self.batch_left = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iosched_workload::job::JobSpec;

    fn job(random_percent: u32, random_map: bool) -> JobSpec {
        JobSpec { verify: Some("crc32c".into()), random_percent, random_map, ..JobSpec::default() }
    }

    #[test]
    fn random_writes_with_a_map_are_read_back_in_write_order() {
        let mut log = VerifyLog::of(&job(100, true)).unwrap();
        for at in [40960, 0, 8192] {
            log.written(at, 4096);
        }
        assert_eq!(
            [log.take_next(), log.take_next(), log.take_next(), log.take_next()],
            [Some((40960, 4096)), Some((0, 4096)), Some((8192, 4096)), None]
        );
    }

    #[test]
    fn without_a_map_blocks_come_back_sorted_and_an_overwrite_counts_once() {
        let mut log = VerifyLog::of(&job(100, false)).unwrap();
        for (at, len) in [(40960, 4096), (0, 8192), (4096, 4096), (40960, 4096)] {
            log.written(at, len);
        }
        // (0, 8192) is overlapped by (4096, 4096) and dropped; 40960 written twice is read once.
        assert_eq!(log.len(), 2);
        assert_eq!(
            [log.take_next(), log.take_next(), log.take_next()],
            [Some((4096, 4096)), Some((40960, 4096)), None]
        );
    }

    #[test]
    fn a_backlog_batch_starts_when_enough_blocks_wait() {
        let mut j = job(0, true);
        j.verify_backlog = 3;
        j.verify_backlog_batch = 2;
        let mut log = VerifyLog::of(&j).unwrap();
        log.written(0, 4096);
        log.written(4096, 4096);
        assert_eq!(log.next_of_backlog(), None, "two wait, the backlog is three");
        log.written(8192, 4096);
        assert_eq!(log.next_of_backlog(), Some((0, 4096)));
        assert_eq!(log.next_of_backlog(), Some((4096, 4096)));
        assert_eq!(log.next_of_backlog(), None, "the batch of two is done; one waits");
        assert_eq!(log.len(), 1);
    }

    #[test]
    fn no_verify_no_log() {
        assert!(VerifyLog::of(&JobSpec::default()).is_none());
        let mut j = job(0, true);
        j.do_verify = false;
        assert!(VerifyLog::of(&j).is_none(), "do_verify=0 without a backlog reads nothing back");
    }
}
