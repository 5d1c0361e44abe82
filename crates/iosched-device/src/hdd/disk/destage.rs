//! Refinement `reads_before_destage`: a read that needs the media pauses the destage of fast-written data once
//! the write being written is on the media; the rest waits in the buffer until the actuator has nothing else to
//! do (the read and the read-ahead after it are done) or a write or flush needs it (see
//! [`Refinements`](crate::hdd::params::Refinements) for why).

use super::*;

/// Fast-written blocks whose destage a read paused, all in the buffer: ranges (first block, blocks) in the
/// order the destage would have written them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Paused {
    ranges: Vec<(u64, u64)>,
}

impl Hdd {
    /// If the refinement is on and a destage is under way at `t_ns`, stop it where the drive would: once the
    /// write whose blocks it is writing (or positioning for) is on the media. A resumed destage that has not
    /// yet reached its first sector is called off at once, the actuator where it was. What is left waits in the
    /// buffer.
    pub(super) fn pause_destage(&mut self, t_ns: f64) -> Option<Paused> {
        if !self.p.refinements.reads_before_destage || self.arm_free_ns <= t_ns {
            return None;
        }
        let first = self.unwritten_from(t_ns)?;
        let i = self.destage.iter().position(|r| first >= r.lbn && first < r.lbn + r.blocks && t_ns < r.end_ns())?;
        let origin = self.resumed_from.take().filter(|_| i == 0 && t_ns <= self.destage[0].start_ns);
        let (cut, stop_ns, arm) = match origin {
            Some(arm) => (first, t_ns, arm),
            None => {
                // The write being written is finished.
                let write_end = self.destage_writes.iter().find(|&&(s, e)| first >= s && first < e).map(|w| w.1)?;
                let last = self.destage.iter().find(|r| write_end > r.lbn && write_end <= r.lbn + r.blocks)?;
                let pbn = self.p.layout.lbn_to_pbn(write_end - 1);
                (write_end, last.done_ns(write_end - 1), Arm { cylinder: pbn.cylinder, head: pbn.head })
            }
        };
        // What is left, as contiguous ranges in the destage's order; the runs keep what comes before the cut.
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        let mut kept = Vec::with_capacity(self.destage.len());
        let mut past_cut = false;
        for r in self.destage.iter().skip(i) {
            let (lbn, blocks) = if past_cut || r.lbn >= cut {
                past_cut = true;
                (r.lbn, r.blocks)
            } else if r.lbn + r.blocks > cut {
                past_cut = true;
                kept.push(Run { blocks: cut - r.lbn, ..*r });
                (cut, r.lbn + r.blocks - cut)
            } else {
                kept.push(*r);
                continue;
            };
            match ranges.last_mut() {
                Some(last) if last.0 + last.1 == lbn => last.1 += blocks,
                _ => ranges.push((lbn, blocks)),
            }
        }
        if ranges.is_empty() {
            return None; // the destage ends with this write: the read waits for it, as in DiskSim
        }
        self.destage.truncate(i);
        self.destage.extend(kept);
        self.arm = arm;
        self.arm_free_ns = stop_ns;
        self.append_pending_until_ns = self.append_pending_until_ns.min(stop_ns);
        Some(Paused { ranges })
    }

    /// Before a command at `t_ns`: resume a paused destage where the drive would have. When the actuator went
    /// idle before `t_ns` (the read and its read-ahead done), the destage went on from then; a write or flush
    /// needs it now (a read-ahead still running stops for it); a read while the read-ahead runs leaves it paused.
    pub(super) fn settle_paused_destage(&mut self, t_ns: f64, op: Op) {
        if self.paused.is_none() || op == Op::Trim {
            return;
        }
        let background_end_ns = self
            .read_ahead
            .as_ref()
            .and_then(|ra| ra.runs.last().map(Run::end_ns))
            .unwrap_or(self.arm_free_ns)
            .max(self.arm_free_ns);
        if op == Op::Read && t_ns < background_end_ns {
            return;
        }
        let start_ns = if t_ns < background_end_ns {
            self.stop_read_ahead(t_ns);
            self.arm_free_ns.max(t_ns)
        } else {
            // A finished read-ahead is data in its segment.
            self.stop_read_ahead(background_end_ns);
            background_end_ns
        };
        let paused = self.paused.take().expect("checked above");
        self.resume_destage(start_ns, paused);
    }

    /// Resume a paused destage at `start_ns`, the actuator free: the blocks are all in the buffer.
    fn resume_destage(&mut self, start_ns: f64, paused: Paused) {
        self.runs.clear();
        self.resumed_from = Some(self.arm);
        let data = WriteData { t0_ns: start_ns, per_block_ns: 0.0, not_before_ns: start_ns };
        let mut end_ns = start_ns;
        for (lbn, blocks) in paused.ranges {
            end_ns = self.media(end_ns, lbn, blocks, true, 0.0, Some(data));
        }
        self.destage.retain(|r| r.end_ns() > start_ns);
        self.destage.append(&mut self.runs);
        for s in self.segments.iter_mut().filter(|s| s.dirty_until_ns > start_ns) {
            s.dirty_until_ns = end_ns;
        }
        self.arm_free_ns = end_ns;
    }
}
