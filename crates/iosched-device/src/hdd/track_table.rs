//! A disk's geometry given track by track: DiskSim's "g4" layout (diskmodel/layout_g4.c), the form DIXtrac
//! writes for drives whose heads differ in sectors per track and whose LBNs run up and down the cylinders.
//!
//! The file describes the tracks as a tree: track patterns (`TP`: first and last usable sector, sectors per
//! track), index nodes (`IDX`) whose entries repeat a child (a track pattern on one head, or another index node)
//! over a run of LBNs, each repetition `cyllen` cylinders on (or back, for a negative `cylrunlen`) and `alen` of a
//! turn further round, and the root, the last index node, whose entries hold absolute LBNs and cylinders.
//! `Slips` lists (physical LBN, sectors slipped there) and `Remaps` (LBN, count, destination sector, its track's
//! sectors per track). DiskSim walks the tree for every lookup; here it is unrolled once into one entry per
//! track instance, in physical LBN order, so that a lookup is a binary search. What DiskSim computes is kept:
//!
//! - An LBN moves past every slip at or before it, counting the slips it passes (slipcount's fixed point); then
//!   it lies in the track instance whose physical LBNs hold it, at that track's first usable sector plus its
//!   offset there. An LBN in a remapped range goes to the remap's destination instead.
//! - The angle of a track's first usable sector is the sum along its path of each entry's offset plus its
//!   repetition times `alen`, in DiskSim's 32-bit fixed point (wrapping at a whole turn, as its arithmetic does);
//!   the sectors after it are 1/spt of a turn apart in floating point, as the disk model times its runs
//!   ([`TrackTable::sector_angle`] says why).
//!
//! Approximations: DiskSim requires a track pattern's first usable sector to be 0 for its LBNs to map (its
//! lookup accepts an offset into the track only from `low` on, then adds `low` again); a pattern with another
//! first sector is refused here rather than mapped differently.

use super::layout::Pbn;

/// The most track instances a layout may unroll to (each takes 32 bytes): about 10 TB of 4,000-sector tracks.
pub const MAX_TRACKS: usize = 5_000_000;
/// DiskSim's G4_ALLOC_PATH: the deepest path from the root to a track.
const MAX_DEPTH: usize = 16;

/// A track pattern (`TP` entry): usable sectors `low..=high` of `spt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrackPattern {
    pub low: u32,
    pub high: u32,
    pub spt: u32,
}

/// What an index entry repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Child {
    /// A track pattern (index into the patterns), on one head.
    Track { pattern: usize, head: u32 },
    /// Another index node (index into the nodes).
    Index(usize),
}

/// An `IDX` entry: its child repeated every `len` LBNs over `runlen` LBNs, each repetition `cyllen` cylinders
/// further (back when `cylrunlen` is negative) and `alen` turns further round; `lbn`, `cyl` and `off` are
/// relative to the enclosing repetition (absolute at the root).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexEntry {
    pub lbn: u64,
    pub cyl: i64,
    pub off_turns: f64,
    pub len: u64,
    pub cyllen: i64,
    pub alen_turns: f64,
    pub runlen: u64,
    pub cylrunlen: i64,
    pub child: Child,
}

/// A remapped range of LBNs (`Remaps` entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Remap {
    pub lbn: u64,
    pub count: u64,
    pub dest: Pbn,
    pub spt: u32,
}

/// One track instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Track {
    /// Physical LBN (slipped sectors counted) of its first usable sector.
    first_plbn: u64,
    /// LBNs it holds.
    count: u32,
    cylinder: u32,
    head: u32,
    low: u32,
    spt: u32,
    /// Angle of sector `low`, in 2^-32 of a turn.
    angle_low: u32,
}

/// The unrolled layout.
#[derive(Clone, Debug)]
pub struct TrackTable {
    blocks: u64,
    tracks: Vec<Track>,
    /// Indices into `tracks` sorted by (cylinder, head).
    by_position: Vec<u32>,
    /// (physical LBN, slips up to and including it), as DiskSim keeps them, with (0, 0) first.
    slips: Vec<(u64, u64)>,
    remaps: Vec<Remap>,
}

/// DiskSim's dm_angle_dtoi: a fraction of a turn (a whole part dropped) in 2^-32 of a turn.
fn angle_fixed(turns: f64) -> u32 {
    let t = if turns > 1.0 { turns - turns.trunc() } else { turns };
    // As the C cast does on x86-64 for 1.0 (2^32 does not fit): 0.
    let v = t * 4_294_967_296.0;
    if (0.0..4_294_967_296.0).contains(&v) {
        v as u32
    } else {
        0
    }
}

impl TrackTable {
    /// Unroll the tree whose root is the last of `nodes`. `blocks` is the drive's LBN count ("Block count").
    /// Errors say what is wrong in words a file's author can act on; the caller adds where.
    pub fn new(
        blocks: u64,
        patterns: &[TrackPattern],
        nodes: &[Vec<IndexEntry>],
        slips: &[(u64, u64)],
        remaps: Vec<Remap>,
    ) -> Result<TrackTable, String> {
        if blocks == 0 {
            return Err("Block count: expected the drive's number of blocks (a g4 layout needs it)".into());
        }
        for (i, p) in patterns.iter().enumerate() {
            if p.low != 0 {
                return Err(format!(
                    "TP entry {i}: first usable sector {}; DiskSim maps LBNs only onto patterns starting at 0",
                    p.low
                ));
            }
            if p.high < p.low || p.high >= p.spt {
                return Err(format!("TP entry {i}: sectors {}-{} do not fit {} per track", p.low, p.high, p.spt));
            }
        }
        let root = nodes.len().checked_sub(1).ok_or("IDX: expected at least one index node (the last is the root)")?;
        let mut tracks = Vec::new();
        unroll(patterns, nodes, root, Base { lbn: 0, cyl: 0, angle: 0, limit: u64::MAX }, 0, &mut tracks)?;
        // The tracks must tile the physical LBNs from 0 on.
        let mut next = 0u64;
        for t in &tracks {
            if t.first_plbn != next {
                return Err(format!(
                    "IDX: the tracks leave a gap or overlap at physical LBN {next} (a track starts at {})",
                    t.first_plbn
                ));
            }
            next += t.count as u64;
        }
        // (0, 0) first, as layout_g4_load does when the first slip is past 0; counts accumulate.
        let mut acc = Vec::with_capacity(slips.len() + 1);
        let mut total = 0u64;
        for &(off, n) in slips {
            if acc.last().is_some_and(|(prev, _): &(u64, u64)| *prev >= off) {
                return Err(format!("Slips: offsets must increase, found {off} after {}", acc.last().expect("").0));
            }
            total += n;
            acc.push((off, total));
        }
        if acc.first().is_none_or(|(off, _)| *off > 0) {
            acc.insert(0, (0, 0));
        }
        let mut by_position: Vec<u32> = (0..tracks.len() as u32).collect();
        by_position.sort_by_key(|i| {
            let t = &tracks[*i as usize];
            (t.cylinder, t.head, *i)
        });
        let table = TrackTable { blocks, tracks, by_position, slips: acc, remaps };
        let last = table.physical(blocks - 1);
        if last >= next {
            return Err(format!(
                "IDX: the tracks hold {next} physical LBNs, but Block count {blocks} with its slips needs {}",
                last + 1
            ));
        }
        Ok(table)
    }

    /// Logical blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Track instances the tree unrolled to.
    pub fn track_count(&self) -> usize {
        self.tracks.len()
    }

    /// Cylinders the tracks reach (one past the highest).
    pub fn cylinders(&self) -> u32 {
        self.tracks.iter().map(|t| t.cylinder + 1).max().unwrap_or(0)
    }

    /// The most sectors any track has.
    pub fn most_sectors_per_track(&self) -> u32 {
        self.tracks.iter().map(|t| t.spt).chain(self.remaps.iter().map(|r| r.spt)).max().unwrap_or(1)
    }

    /// DiskSim's slipcount: `lbn` plus the slips at or before where it lands.
    fn physical(&self, lbn: u64) -> u64 {
        let mut i = self.slips.partition_point(|(off, _)| *off <= lbn).saturating_sub(1);
        let mut count = self.slips[i].1;
        while let Some(&(off, c)) = self.slips.get(i) {
            if off > lbn + count {
                break;
            }
            count = c;
            i += 1;
        }
        lbn + count
    }

    fn remap_of(&self, lbn: u64) -> Option<&Remap> {
        self.remaps.iter().find(|r| r.lbn <= lbn && lbn < r.lbn + r.count)
    }

    /// Where `lbn` lies, and how many LBNs from it lie in consecutive sectors of its track (at most `max`, at
    /// least 1): a slip, a remapped range or the track's end stops the run.
    pub fn locate(&self, lbn: u64, max: u64) -> (Pbn, u64) {
        if let Some(r) = self.remap_of(lbn) {
            let d = lbn - r.lbn;
            let pbn = Pbn { sector: r.dest.sector + d as u32, ..r.dest };
            return (pbn, (r.count - d).min(max).max(1));
        }
        let p = self.physical(lbn);
        let t = &self.tracks[self.tracks.partition_point(|t| t.first_plbn <= p) - 1];
        let on_track = p - t.first_plbn;
        let mut run = (t.count as u64 - on_track).min(max);
        if let Some(&(off, _)) = self.slips.get(self.slips.partition_point(|(off, _)| *off <= p)) {
            run = run.min(off - p);
        }
        if let Some(r) = self.remaps.iter().filter(|r| r.lbn > lbn).min_by_key(|r| r.lbn) {
            run = run.min(r.lbn - lbn);
        }
        (Pbn { cylinder: t.cylinder, head: t.head, sector: t.low + on_track as u32 }, run.max(1))
    }

    fn track_at(&self, cylinder: u32, head: u32) -> Option<&Track> {
        let i = self.by_position.partition_point(|i| {
            let t = &self.tracks[*i as usize];
            (t.cylinder, t.head) < (cylinder, head)
        });
        let t = &self.tracks[*self.by_position.get(i)? as usize];
        ((t.cylinder, t.head) == (cylinder, head)).then_some(t)
    }

    /// Sectors per track at (`cylinder`, `head`): a remap destination's own, else the track's (DiskSim's
    /// g4_spt_pbn); 1 where no track is.
    pub fn sectors_per_track(&self, cylinder: u32, head: u32) -> u32 {
        if let Some(r) = self.remaps.iter().find(|r| r.dest.cylinder == cylinder && r.dest.head == head) {
            return r.spt;
        }
        self.track_at(cylinder, head).map_or(1, |t| t.spt)
    }

    /// Angle of the start of `pbn`'s sector, a fraction of a turn in [0, 1) (DiskSim's g4_skew; 0 where no track
    /// is, as its lookup failing gives). The track's first sector is where DiskSim's fixed point puts it; the
    /// sectors after it are 1/spt of a turn apart in floating point, as the disk model times them (DiskSim's
    /// truncated fixed-point width puts sector s up to s x 2^-32 of a turn earlier, about 2 ns at most: enough,
    /// against the model's own timing, to make the sector after a run look just missed, a turn's wait).
    pub fn sector_angle(&self, pbn: Pbn) -> f64 {
        let Some(t) = self.track_at(pbn.cylinder, pbn.head) else { return 0.0 };
        let turns = t.angle_low as f64 / 4_294_967_296.0 + pbn.sector.saturating_sub(t.low) as f64 / t.spt as f64;
        turns - turns.floor()
    }
}

/// Where a repetition of an index node starts: physical LBN, cylinder and angle (2^-32 of a turn).
#[derive(Clone, Copy)]
struct Base {
    lbn: u64,
    cyl: i64,
    angle: u32,
    /// LBNs the repetition holds (a run's last repetition may be cut short): tracks past it are not reached.
    limit: u64,
}

/// The tree under index node `node`, one entry per track instance, unrolled into `out` from `base`.
fn unroll(
    patterns: &[TrackPattern],
    nodes: &[Vec<IndexEntry>],
    node: usize,
    base: Base,
    depth: usize,
    out: &mut Vec<Track>,
) -> Result<(), String> {
    if depth >= MAX_DEPTH {
        return Err(format!("IDX: the tree is deeper than {MAX_DEPTH} nodes (a node that contains itself?)"));
    }
    if nodes[node].is_empty() {
        return Err(format!("IDX node {node}: expected at least one entry"));
    }
    for (j, e) in nodes[node].iter().enumerate() {
        let at = || format!("IDX node {node}, entry {j}");
        if e.len == 0 || e.runlen == 0 {
            return Err(format!("{}: its length and run length must be at least 1", at()));
        }
        let (off, alen) = (angle_fixed(e.off_turns), angle_fixed(e.alen_turns));
        let repetitions = e.runlen.div_ceil(e.len);
        for k in 0..repetitions {
            let offset = e.lbn + k * e.len;
            if offset >= base.limit {
                break;
            }
            let first = base.lbn + offset;
            let quot = if e.cylrunlen < 0 { -(k as i64) } else { k as i64 };
            let c = base.cyl + e.cyl + quot * e.cyllen;
            let a = base.angle.wrapping_add(off).wrapping_add((k as u32).wrapping_mul(alen));
            let len = e.len.min(e.runlen - k * e.len).min(base.limit - offset);
            match e.child {
                Child::Track { pattern, head } => {
                    let p = patterns.get(pattern).ok_or_else(|| format!("{}: no TP entry {pattern}", at()))?;
                    if len > (p.high - p.low + 1) as u64 {
                        return Err(format!(
                            "{}: {len} LBNs a track, but TP entry {pattern} has {} usable sectors",
                            at(),
                            p.high - p.low + 1
                        ));
                    }
                    let cylinder = u32::try_from(c).map_err(|_| format!("{}: cylinder {c} is out of range", at()))?;
                    if out.len() >= MAX_TRACKS {
                        return Err(format!("IDX: more than {MAX_TRACKS} tracks"));
                    }
                    out.push(Track {
                        first_plbn: first,
                        count: len as u32,
                        cylinder,
                        head,
                        low: p.low,
                        spt: p.spt,
                        angle_low: a,
                    });
                }
                Child::Index(child) => {
                    if child >= nodes.len() {
                        return Err(format!("{}: no IDX node {child}", at()));
                    }
                    unroll(patterns, nodes, child, Base { lbn: first, cyl: c, angle: a, limit: len }, depth + 1, out)?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(pattern: usize, head: u32) -> Child {
        Child::Track { pattern, head }
    }

    /// An entry one cylinder a repetition, at angle 0 with no turn between repetitions.
    fn entry(lbn: u64, cyl: i64, len: u64, runlen: u64, cylrunlen: i64, child: Child) -> IndexEntry {
        IndexEntry { lbn, cyl, off_turns: 0.0, len, cyllen: 1, alen_turns: 0.0, runlen, cylrunlen, child }
    }

    /// Two heads, 4 cylinders: head 0 runs cylinders 3 down to 0 with 10 sectors a track (9 usable), head 1
    /// runs 0 up to 3 with 8; both under one root entry covering cylinders 0-3.
    fn serpentine() -> TrackTable {
        let tp = [TrackPattern { low: 0, high: 8, spt: 10 }, TrackPattern { low: 0, high: 7, spt: 8 }];
        let zone = vec![
            IndexEntry { alen_turns: 0.25, ..entry(0, 3, 9, 36, -4, track(0, 0)) },
            IndexEntry { off_turns: 0.5, alen_turns: 0.125, ..entry(36, 0, 8, 32, 4, track(1, 1)) },
        ];
        let root = vec![IndexEntry {
            lbn: 0,
            cyl: 0,
            off_turns: 0.0,
            len: 68,
            cyllen: 4,
            alen_turns: 0.0,
            runlen: 68,
            cylrunlen: 4,
            child: Child::Index(0),
        }];
        TrackTable::new(66, &tp, &[zone, root], &[(20, 1), (50, 1)], Vec::new()).unwrap()
    }

    #[test]
    fn lbns_run_down_one_head_and_up_the_next_past_slips() {
        let t = serpentine();
        assert_eq!(t.locate(0, 100), (Pbn { cylinder: 3, head: 0, sector: 0 }, 9));
        assert_eq!(t.locate(9, 100), (Pbn { cylinder: 2, head: 0, sector: 0 }, 9));
        // Physical LBN 20 (cylinder 1, sector 2) is slipped: LBN 19 is the last before it, LBN 20 the next after.
        assert_eq!(t.locate(18, 100), (Pbn { cylinder: 1, head: 0, sector: 0 }, 2));
        assert_eq!(t.locate(20, 100).0, Pbn { cylinder: 1, head: 0, sector: 3 });
        // Head 1 starts at physical 36 = LBN 35, cylinder 0; physical 50 is slipped too.
        assert_eq!(t.locate(35, 100), (Pbn { cylinder: 0, head: 1, sector: 0 }, 8));
        assert_eq!(t.locate(43, 100), (Pbn { cylinder: 1, head: 1, sector: 0 }, 6));
        assert_eq!(t.locate(49, 100).0, Pbn { cylinder: 1, head: 1, sector: 7 });
        assert_eq!(t.locate(65, 100).0, Pbn { cylinder: 3, head: 1, sector: 7 });
        assert_eq!(t.sectors_per_track(2, 0), 10);
        assert_eq!(t.sectors_per_track(2, 1), 8);
    }

    #[test]
    fn angles_add_offsets_repetitions_and_sectors() {
        let t = serpentine();
        // Head 0's k-th track (cylinder 3 - k) starts k x 0.25 turns round; sector s adds s / 10.
        assert!((t.sector_angle(Pbn { cylinder: 3, head: 0, sector: 0 }) - 0.0).abs() < 1e-9);
        assert!((t.sector_angle(Pbn { cylinder: 1, head: 0, sector: 3 }) - 0.8).abs() < 1e-6);
        // Head 1: 0.5 + k x 0.125 + s / 8, modulo a turn.
        assert!((t.sector_angle(Pbn { cylinder: 3, head: 1, sector: 7 }) - (0.5 + 0.375 + 0.875 - 1.0)).abs() < 1e-6);
    }

    #[test]
    fn a_run_cut_short_reaches_only_the_tracks_it_holds() {
        // A child of two tracks (heads 0 and 1, 18 LBNs) repeated over 27 LBNs: the second repetition, on
        // cylinder 1, holds only its head-0 track; LBN 26 is its last.
        let tp = [TrackPattern { low: 0, high: 8, spt: 10 }];
        let child = vec![entry(0, 0, 9, 9, 1, track(0, 0)), entry(9, 0, 9, 9, 1, track(0, 1))];
        let root = vec![IndexEntry { cyllen: 1, ..entry(0, 0, 18, 27, 2, Child::Index(0)) }];
        let t = TrackTable::new(27, &tp, &[child, root], &[], Vec::new()).unwrap();
        assert_eq!(t.locate(18, 100), (Pbn { cylinder: 1, head: 0, sector: 0 }, 9));
        assert_eq!(t.locate(26, 100).0, Pbn { cylinder: 1, head: 0, sector: 8 });
        assert_eq!(t.tracks.len(), 3);
    }

    #[test]
    fn bad_trees_are_refused_with_what_is_wrong() {
        let tp = [TrackPattern { low: 0, high: 8, spt: 10 }];
        let gap = vec![vec![entry(0, 0, 9, 9, 1, track(0, 0)), entry(10, 1, 9, 9, 1, track(0, 0))]];
        assert!(TrackTable::new(18, &tp, &gap, &[], Vec::new()).unwrap_err().contains("gap or overlap"));
        let too_long = vec![vec![entry(0, 0, 12, 12, 1, track(0, 0))]];
        assert!(TrackTable::new(12, &tp, &too_long, &[], Vec::new()).unwrap_err().contains("9 usable sectors"));
        let short = vec![vec![entry(0, 0, 9, 9, 1, track(0, 0))]];
        assert!(TrackTable::new(10, &tp, &short, &[], Vec::new()).unwrap_err().contains("needs 10"));
        let cycle = vec![vec![IndexEntry { child: Child::Index(0), ..entry(0, 0, 9, 9, 1, track(0, 0)) }]];
        assert!(TrackTable::new(9, &tp, &cycle, &[], Vec::new()).unwrap_err().contains("deeper than"));
    }
}
