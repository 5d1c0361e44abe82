//! Where each logical block lives on a hard disk: zones of cylinders with their own sectors per track,
//! spare sectors and where they sit (the sparing scheme), slipped sectors (skipped, pushing later blocks
//! along) and remapped defects, and the angle of each sector given track and cylinder skew.
//!
//! The model is DiskSim's "g1" layout (diskmodel/layout_g1.c): physical sectors of a zone are numbered
//! cylinder by cylinder, surface by surface; the first `deadspace` are unused; spares are reserved per track,
//! cylinder, range of cylinders or zone; a slip makes the physical sector it names unusable and shifts the
//! following blocks of its sparing unit by one. Angles are fractions of a revolution. Track skew accumulates
//! per head switch and cylinder skew per cylinder switch, as DiskSim counts them.

use super::track_table::TrackTable;
use std::sync::Arc;

/// How spare sectors are laid out (DiskSim's "Sparing scheme used", 0-10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sparing {
    /// 0: no spares.
    None,
    /// 1: `spares` whole tracks at the end of each zone; slips name tracks of the zone.
    Tracks,
    /// 2, 4, 5, 6: `spares` sectors per cylinder, at its end or front; slips shift within the cylinder (or
    /// to the end of the zone).
    SectorsPerCylinder { at_front: bool, slip_to_end: bool },
    /// 3: `spares` sectors at the end of every track.
    SectorsPerTrack,
    /// 7: one spare per slip at the end of the zone.
    SectorsAtEnd,
    /// 8: `spares` sectors at the end of every range of `range_cylinders` cylinders.
    SectorsPerRange { range_cylinders: u32 },
    /// 9, 10: `spares` sectors at the end of the zone (10: plus one per slip).
    SectorsPerZone { slip_to_end: bool },
}

impl Sparing {
    /// From DiskSim's scheme number; `None` for an unknown one.
    pub fn from_disksim(scheme: i64, range_cylinders: u32) -> Option<Sparing> {
        Some(match scheme {
            0 => Sparing::None,
            1 => Sparing::Tracks,
            2 => Sparing::SectorsPerCylinder { at_front: false, slip_to_end: false },
            3 => Sparing::SectorsPerTrack,
            4 => Sparing::SectorsPerCylinder { at_front: false, slip_to_end: true },
            5 => Sparing::SectorsPerCylinder { at_front: true, slip_to_end: false },
            6 => Sparing::SectorsPerCylinder { at_front: true, slip_to_end: true },
            7 => Sparing::SectorsAtEnd,
            8 => Sparing::SectorsPerRange { range_cylinders: range_cylinders.max(1) },
            9 => Sparing::SectorsPerZone { slip_to_end: false },
            10 => Sparing::SectorsPerZone { slip_to_end: true },
            _ => return None,
        })
    }

    /// Whether slips also shift the skew of later tracks (DiskSim does this for per-cylinder and per-track
    /// sparing).
    fn slips_push_skew(self) -> bool {
        matches!(self, Sparing::SectorsPerCylinder { .. } | Sparing::SectorsPerTrack)
    }
}

/// The order of tracks within a cylinder (DiskSim's "LBN-to-PBN mapping scheme", 0-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// 0: every cylinder from surface 0 up.
    Normal,
    /// 1: odd cylinders of each zone (counting from the zone's first) run from the last surface down, so a
    /// cylinder switch stays on the same surface.
    CylinderSwitchOnSurfaceByZone,
    /// 2: the same for odd cylinder numbers.
    CylinderSwitchOnSurface,
}

impl Mapping {
    pub fn from_disksim(scheme: i64) -> Option<Mapping> {
        match scheme {
            0 => Some(Mapping::Normal),
            1 => Some(Mapping::CylinderSwitchOnSurfaceByZone),
            2 => Some(Mapping::CylinderSwitchOnSurface),
            _ => None,
        }
    }
}

/// A zone: cylinders with the same sectors per track.
#[derive(Clone, Debug, PartialEq)]
pub struct Zone {
    pub first_cylinder: u32,
    pub last_cylinder: u32,
    pub sectors_per_track: u32,
    /// Angle of sector 0 of the zone's first track, in sectors.
    pub first_block_offset_sectors: f64,
    /// Unused physical sectors at the zone's front.
    pub deadspace_sectors: u64,
    pub track_skew_sectors: f64,
    pub cylinder_skew_sectors: f64,
    pub spares: u64,
    /// Sorted; physical sector numbers within the zone (track numbers for track sparing).
    pub slips: Vec<u64>,
    /// (defective physical sector, the spare it is remapped to), within the zone.
    pub defects: Vec<(u64, u64)>,
}

/// For sorted slips s_0 < s_1 < ..., the logical offset from which slip i pushes blocks along: s_i - i. A
/// logical offset x lies at physical x + #{i : s_i - i <= x} (one binary search instead of a fixed point).
fn slip_thresholds(slips: &[u64]) -> Vec<u64> {
    slips.iter().enumerate().map(|(i, s)| s - i as u64).collect()
}

/// A physical block address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pbn {
    pub cylinder: u32,
    pub head: u32,
    pub sector: u32,
}

#[derive(Clone, Debug)]
pub struct Layout {
    pub surfaces: u32,
    pub cylinders: u32,
    pub mapping: Mapping,
    pub sparing: Sparing,
    pub zones: Vec<Zone>,
    /// First LBN of each zone, and one past the last of the last zone.
    zone_first_lbn: Vec<u64>,
    /// Per zone, [`slip_thresholds`] of its slips.
    slip_thresholds: Vec<Vec<u64>>,
    /// A layout given track by track (DiskSim's g4) instead of by zones; shared, as it can be large.
    tracks: Option<Arc<TrackTable>>,
}

impl Zone {
    fn cylinders(&self) -> u64 {
        (self.last_cylinder - self.first_cylinder + 1) as u64
    }

    fn sectors_per_cylinder(&self, surfaces: u32) -> u64 {
        self.sectors_per_track as u64 * surfaces as u64
    }

    /// Logical blocks the zone holds (DiskSim's blksinband).
    fn blocks(&self, surfaces: u32, sparing: Sparing) -> u64 {
        let spt = self.sectors_per_track as u64;
        let cyls = self.cylinders();
        let raw = cyls * spt * surfaces as u64;
        let slips = self.slips.len() as u64;
        let spare = match sparing {
            Sparing::None => 0,
            Sparing::Tracks => self.spares * spt,
            Sparing::SectorsPerTrack => self.spares * cyls * surfaces as u64,
            Sparing::SectorsPerCylinder { slip_to_end: false, .. } => self.spares * cyls,
            Sparing::SectorsPerCylinder { slip_to_end: true, .. } => self.spares * cyls + slips,
            Sparing::SectorsAtEnd => slips,
            Sparing::SectorsPerRange { range_cylinders } => self.spares * (cyls / range_cylinders as u64),
            Sparing::SectorsPerZone { slip_to_end: false } => self.spares,
            Sparing::SectorsPerZone { slip_to_end: true } => self.spares + slips,
        };
        raw.saturating_sub(self.deadspace_sectors).saturating_sub(spare)
    }
}

/// A layout that cannot hold its blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError(pub String);

impl Layout {
    pub fn new(
        surfaces: u32,
        cylinders: u32,
        mapping: Mapping,
        sparing: Sparing,
        mut zones: Vec<Zone>,
    ) -> Result<Layout, LayoutError> {
        if surfaces == 0 || zones.is_empty() {
            return Err(LayoutError("a disk needs at least one surface and one zone".into()));
        }
        let mut first = Vec::with_capacity(zones.len() + 1);
        let mut lbn = 0u64;
        for (i, z) in zones.iter_mut().enumerate() {
            if z.first_cylinder > z.last_cylinder || z.last_cylinder >= cylinders {
                return Err(LayoutError(format!(
                    "zone {}: cylinders {}-{} do not fit the disk's {cylinders}",
                    i + 1,
                    z.first_cylinder,
                    z.last_cylinder
                )));
            }
            if z.sectors_per_track == 0 {
                return Err(LayoutError(format!("zone {}: 0 blocks per track", i + 1)));
            }
            z.slips.sort_unstable();
            z.slips.dedup();
            // Each slip uses a spare of its sparing unit; more slips than spares would put two blocks in one
            // sector (DiskSim asserts the same).
            let spt = z.sectors_per_track as u64;
            let unit = match sparing {
                Sparing::SectorsPerTrack => Some(spt),
                Sparing::SectorsPerCylinder { .. } => Some(spt * surfaces as u64),
                Sparing::SectorsPerRange { range_cylinders } => Some(spt * surfaces as u64 * range_cylinders as u64),
                _ => None,
            };
            let too_many = match (sparing, unit) {
                (_, Some(unit)) => z.slips.chunk_by(|a, b| a / unit == b / unit).any(|c| c.len() as u64 > z.spares),
                (Sparing::Tracks, None) => z.slips.len() + z.defects.len() > z.spares as usize,
                (Sparing::SectorsPerZone { slip_to_end: false }, None) => z.slips.len() as u64 > z.spares,
                _ => false,
            };
            if too_many {
                return Err(LayoutError(format!(
                    "zone {}: more slips than spares in one sparing unit ({} spares)",
                    i + 1,
                    z.spares
                )));
            }
            first.push(lbn);
            lbn += z.blocks(surfaces, sparing);
        }
        first.push(lbn);
        if lbn == 0 {
            return Err(LayoutError("the zones hold no blocks".into()));
        }
        let slip_thresholds = zones.iter().map(|z| slip_thresholds(&z.slips)).collect();
        Ok(Layout {
            surfaces,
            cylinders,
            mapping,
            sparing,
            zones,
            zone_first_lbn: first,
            slip_thresholds,
            tracks: None,
        })
    }

    /// A layout given track by track (hdd/track_table.rs).
    pub fn from_tracks(surfaces: u32, cylinders: u32, table: TrackTable) -> Layout {
        Layout {
            surfaces,
            cylinders,
            mapping: Mapping::Normal,
            sparing: Sparing::None,
            zones: Vec::new(),
            zone_first_lbn: vec![0, table.blocks()],
            slip_thresholds: Vec::new(),
            tracks: Some(Arc::new(table)),
        }
    }

    /// The track-by-track table, for a layout given that way.
    pub fn track_table(&self) -> Option<&TrackTable> {
        self.tracks.as_deref()
    }

    /// The most sectors any track has (the densest zone's).
    pub fn most_sectors_per_track(&self) -> u32 {
        match &self.tracks {
            Some(t) => t.most_sectors_per_track(),
            None => self.zones.iter().map(|z| z.sectors_per_track).max().unwrap_or(1),
        }
    }

    /// Logical blocks on the disk.
    pub fn blocks(&self) -> u64 {
        *self.zone_first_lbn.last().expect("one entry per zone plus the end")
    }

    /// The zone holding `lbn` (which must be below [`Layout::blocks`]).
    pub fn zone_of(&self, lbn: u64) -> usize {
        self.zone_first_lbn.partition_point(|first| *first <= lbn) - 1
    }

    /// The sparing unit of a zone: (sectors per unit, spares at its front, spares at its back); `None` for a
    /// whole-zone unit.
    fn unit(&self, z: &Zone) -> Option<(u64, u64, u64)> {
        let spt = z.sectors_per_track as u64;
        let spc = z.sectors_per_cylinder(self.surfaces);
        match self.sparing {
            Sparing::SectorsPerTrack => Some((spt, 0, z.spares)),
            Sparing::SectorsPerCylinder { at_front: true, .. } => Some((spc, z.spares, 0)),
            Sparing::SectorsPerCylinder { at_front: false, .. } => Some((spc, 0, z.spares)),
            Sparing::SectorsPerRange { range_cylinders } => Some((spc * range_cylinders as u64, 0, z.spares)),
            _ => None,
        }
    }

    /// The zone of `lbn` and its physical sector within the zone, before defect remapping.
    fn physical(&self, lbn: u64) -> (usize, u64) {
        let zi = self.zone_of(lbn);
        let z = &self.zones[zi];
        let offset = lbn - self.zone_first_lbn[zi];
        let spt = z.sectors_per_track as u64;
        let shifted = offset + z.deadspace_sectors;
        let thresholds = &self.slip_thresholds[zi];
        let past = |x: u64| x + thresholds.partition_point(|t| *t <= x) as u64;
        let physical = match (self.sparing, self.unit(z)) {
            (Sparing::Tracks, _) => past(shifted / spt) * spt + shifted % spt,
            (_, None) => past(shifted),
            (_, Some((unit, front, back))) => {
                let usable = unit - front - back;
                let u = shifted / usable;
                let start = u * unit;
                let lo = z.slips.partition_point(|s| *s < start);
                let hi = z.slips.partition_point(|s| *s < start + unit);
                // Slips in a unit with front spares use them up, so the unit's blocks stay inside it.
                let used_front = ((hi - lo) as u64).min(front);
                past_slips(&z.slips[lo..hi], start + front - used_front + shifted % usable)
            }
        };
        (zi, physical)
    }

    /// Where `lbn` lives.
    pub fn lbn_to_pbn(&self, lbn: u64) -> Pbn {
        if let Some(t) = &self.tracks {
            return t.locate(lbn, 1).0;
        }
        let (zi, physical) = self.physical(lbn);
        let z = &self.zones[zi];
        let physical = z.defects.iter().find(|(bad, _)| *bad == physical).map_or(physical, |(_, spare)| *spare);
        self.pbn_in_zone(z, physical)
    }

    fn pbn_in_zone(&self, z: &Zone, physical: u64) -> Pbn {
        let spt = z.sectors_per_track as u64;
        let spc = z.sectors_per_cylinder(self.surfaces);
        let cylinder = z.first_cylinder + (physical / spc).min(z.cylinders() - 1) as u32;
        let track_in_cylinder = ((physical % spc) / spt) as u32;
        Pbn { cylinder, head: self.surface_order(z, cylinder, track_in_cylinder), sector: (physical % spt) as u32 }
    }

    /// The surface of the `n`th track of `cylinder` (and, being its own inverse, the position of a surface in
    /// the cylinder's track order).
    fn surface_order(&self, z: &Zone, cylinder: u32, n: u32) -> u32 {
        let reversed = match self.mapping {
            Mapping::Normal => false,
            Mapping::CylinderSwitchOnSurfaceByZone => (cylinder - z.first_cylinder) % 2 == 1,
            Mapping::CylinderSwitchOnSurface => cylinder % 2 == 1,
        };
        if reversed {
            self.surfaces - 1 - n
        } else {
            n
        }
    }

    /// Sectors per track at `cylinder` and `head` (the zone's, or the nearest zone before it for an unzoned
    /// cylinder; a track-by-track layout's own).
    pub fn sectors_per_track(&self, cylinder: u32, head: u32) -> u32 {
        if let Some(t) = &self.tracks {
            return t.sectors_per_track(cylinder, head);
        }
        self.zone_at(cylinder).sectors_per_track
    }

    fn zone_at(&self, cylinder: u32) -> &Zone {
        self.zones.iter().rev().find(|z| z.first_cylinder <= cylinder).unwrap_or(&self.zones[0])
    }

    /// Angle of the start of `pbn`'s sector, as a fraction of a revolution in [0, 1).
    pub fn sector_angle(&self, pbn: Pbn) -> f64 {
        if let Some(t) = &self.tracks {
            return t.sector_angle(pbn);
        }
        let z = self.zone_at(pbn.cylinder);
        let spt = z.sectors_per_track as f64;
        let cyl = (pbn.cylinder - z.first_cylinder) as f64;
        let track_in_cylinder = self.surface_order(z, pbn.cylinder, pbn.head);
        let head_switches = track_in_cylinder as f64 + (self.surfaces as f64 - 1.0) * cyl;
        let mut sectors = z.first_block_offset_sectors
            + head_switches * z.track_skew_sectors
            + cyl * z.cylinder_skew_sectors
            + pbn.sector as f64;
        if self.sparing.slips_push_skew() {
            let mut tracks = (pbn.cylinder - z.first_cylinder) as u64 * self.surfaces as u64;
            if self.sparing == Sparing::SectorsPerTrack {
                tracks += pbn.head as u64;
            }
            let cutoff = tracks * z.sectors_per_track as u64;
            sectors += z.slips.iter().filter(|s| **s < cutoff).count() as f64;
        }
        let turns = sectors / spt;
        if turns >= 0.0 {
            turns - (turns as u64) as f64
        } else {
            turns - turns.floor()
        }
    }

    /// Logical blocks from `lbn` that lie in consecutive sectors of its track, at most `max` (at least 1):
    /// what one pass over the track reads. A slip, a defect, the track's spares or the zone's end stop it.
    pub fn run_on_track(&self, lbn: u64, max: u64) -> u64 {
        self.locate(lbn, max).1
    }

    /// [`Layout::lbn_to_pbn`] and [`Layout::run_on_track`] at once, mapping the block once.
    pub fn locate(&self, lbn: u64, max: u64) -> (Pbn, u64) {
        if let Some(t) = &self.tracks {
            return t.locate(lbn, max);
        }
        let (zi, p) = self.physical(lbn);
        let z = &self.zones[zi];
        if let Some((_, spare)) = z.defects.iter().find(|(bad, _)| *bad == p) {
            return (self.pbn_in_zone(z, *spare), 1);
        }
        (self.pbn_in_zone(z, p), self.run_from(lbn, zi, p, max))
    }

    fn run_from(&self, lbn: u64, zi: usize, p: u64, max: u64) -> u64 {
        let z = &self.zones[zi];
        let spt = z.sectors_per_track as u64;
        let mut room = (spt - p % spt).min(max).min(self.zone_first_lbn[zi + 1] - lbn);
        if self.sparing != Sparing::Tracks {
            let next_slip = z.slips.partition_point(|s| *s <= p);
            if let Some(s) = z.slips.get(next_slip) {
                room = room.min(s - p);
            }
        }
        if let Some((unit, _, back)) = self.unit(z) {
            // Slips in the unit push its blocks into (and use up) spares at its back.
            let start = (p / unit) * unit;
            let slips =
                (z.slips.partition_point(|s| *s < start + unit) - z.slips.partition_point(|s| *s < start)) as u64;
            let usable_end = start + unit - back + slips.min(back);
            room = room.min(usable_end.saturating_sub(p).max(1));
        }
        if let Some(d) = z.defects.iter().map(|(bad, _)| *bad).filter(|d| *d > p && *d < p + room).min() {
            room = d - p;
        }
        room.max(1)
    }
}

/// The `base`-th usable position among positions from 0 when the sorted `slips` are skipped: the least p with
/// p - #{slips <= p} = base that is not itself a slip.
fn past_slips(slips: &[u64], base: u64) -> u64 {
    let mut p = base;
    loop {
        let next = base + slips.partition_point(|s| *s <= p) as u64;
        if next == p {
            return p;
        }
        p = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(first: u32, last: u32, spt: u32) -> Zone {
        Zone {
            first_cylinder: first,
            last_cylinder: last,
            sectors_per_track: spt,
            first_block_offset_sectors: 0.0,
            deadspace_sectors: 0,
            track_skew_sectors: 0.0,
            cylinder_skew_sectors: 0.0,
            spares: 0,
            slips: vec![],
            defects: vec![],
        }
    }

    #[test]
    fn plain_mapping_walks_sectors_heads_cylinders_zones() {
        let l = Layout::new(2, 4, Mapping::Normal, Sparing::None, vec![zone(0, 1, 10), zone(2, 3, 8)]).unwrap();
        assert_eq!(l.blocks(), 2 * 2 * 10 + 2 * 2 * 8);
        assert_eq!(l.lbn_to_pbn(0), Pbn { cylinder: 0, head: 0, sector: 0 });
        assert_eq!(l.lbn_to_pbn(13), Pbn { cylinder: 0, head: 1, sector: 3 });
        assert_eq!(l.lbn_to_pbn(20), Pbn { cylinder: 1, head: 0, sector: 0 });
        assert_eq!(l.lbn_to_pbn(40), Pbn { cylinder: 2, head: 0, sector: 0 });
        assert_eq!(l.run_on_track(13, 100), 7);
    }

    #[test]
    fn zone_spares_and_slips_shift_later_blocks() {
        let mut z = zone(0, 1, 10);
        z.spares = 3;
        z.slips = vec![5];
        let l = Layout::new(1, 2, Mapping::Normal, Sparing::SectorsPerZone { slip_to_end: false }, vec![z]).unwrap();
        assert_eq!(l.blocks(), 17);
        assert_eq!(l.lbn_to_pbn(4).sector, 4);
        assert_eq!(l.lbn_to_pbn(5).sector, 6); // physical 5 is slipped
        assert_eq!(l.run_on_track(3, 10), 2); // 3, 4 then the slip breaks the run
    }

    #[test]
    fn fast_runs_agree_with_block_by_block_mapping() {
        // Every sparing scheme, with slips and a defect: the run from each block equals the count of
        // consecutive sectors the mapping gives block by block.
        let schemes = [
            Sparing::None,
            Sparing::SectorsPerZone { slip_to_end: false },
            Sparing::SectorsPerCylinder { at_front: false, slip_to_end: false },
            Sparing::SectorsPerCylinder { at_front: true, slip_to_end: false },
            Sparing::SectorsPerTrack,
            Sparing::SectorsPerRange { range_cylinders: 2 },
        ];
        for sparing in schemes {
            let mut z = zone(0, 5, 12);
            z.spares = 3;
            z.slips = vec![3, 30, 77];
            z.defects = vec![(50, 140)];
            let l = Layout::new(2, 6, Mapping::Normal, sparing, vec![z]).unwrap();
            for lbn in 0..l.blocks() {
                let start = l.lbn_to_pbn(lbn);
                let mut slow = 1;
                while lbn + slow < l.blocks() {
                    let p = l.lbn_to_pbn(lbn + slow);
                    if p.cylinder != start.cylinder || p.head != start.head || p.sector != start.sector + slow as u32 {
                        break;
                    }
                    slow += 1;
                }
                let fast = l.run_on_track(lbn, u64::MAX);
                assert_eq!(fast, slow, "{sparing:?} lbn {lbn}");
                let pbn = l.lbn_to_pbn(lbn);
                assert!(pbn.cylinder < 6 && pbn.head < 2 && pbn.sector < 12, "{sparing:?} lbn {lbn}: {pbn:?}");
            }
        }
    }

    #[test]
    fn more_slips_than_spares_is_an_error() {
        let mut z = zone(0, 1, 10);
        z.spares = 1;
        z.slips = vec![2, 4];
        let err = Layout::new(1, 2, Mapping::Normal, Sparing::SectorsPerTrack, vec![z]).unwrap_err();
        assert!(err.0.contains("zone 1: more slips than spares"), "{}", err.0);
    }

    #[test]
    fn slip_thresholds_agree_with_the_fixed_point() {
        let slips = [3u64, 4, 9, 10, 11, 20];
        let t = slip_thresholds(&slips);
        for x in 0..40 {
            assert_eq!(x + t.partition_point(|v| *v <= x) as u64, past_slips(&slips, x), "{x}");
        }
    }

    #[test]
    fn past_slips_skips_each_slip() {
        assert_eq!(past_slips(&[5], 4), 4);
        assert_eq!(past_slips(&[5], 5), 6);
        assert_eq!(past_slips(&[5, 6, 9], 5), 7);
        assert_eq!(past_slips(&[5, 6, 9], 7), 10);
        assert_eq!(past_slips(&[], 7), 7);
    }

    #[test]
    fn track_sparing_skips_slipped_tracks_and_deadspace() {
        let mut z = zone(0, 3, 10);
        z.spares = 1;
        z.slips = vec![1];
        z.deadspace_sectors = 10;
        let l = Layout::new(1, 4, Mapping::Normal, Sparing::Tracks, vec![z]).unwrap();
        assert_eq!(l.blocks(), 40 - 10 - 10);
        // LBN 0 is on physical track 1 after the dead track, which is slipped: track 2.
        assert_eq!(l.lbn_to_pbn(0), Pbn { cylinder: 2, head: 0, sector: 0 });
    }

    #[test]
    fn skew_moves_the_first_sector_of_each_track() {
        let mut z = zone(0, 9, 100);
        z.track_skew_sectors = 10.0;
        z.cylinder_skew_sectors = 25.0;
        let l = Layout::new(2, 10, Mapping::Normal, Sparing::None, vec![z.clone()]).unwrap();
        assert_eq!(l.sector_angle(Pbn { cylinder: 0, head: 0, sector: 0 }), 0.0);
        assert!((l.sector_angle(Pbn { cylinder: 0, head: 1, sector: 0 }) - 0.10).abs() < 1e-12);
        // Cylinder 1, head 0: one head switch (on cylinder 0) and one cylinder switch: 10 + 25 sectors.
        assert!((l.sector_angle(Pbn { cylinder: 1, head: 0, sector: 5 }) - 0.40).abs() < 1e-12);
        // With cylinder switches on the same surface, cylinder 1 starts on head 1.
        let l = Layout::new(2, 10, Mapping::CylinderSwitchOnSurfaceByZone, Sparing::None, vec![z]).unwrap();
        assert_eq!(l.lbn_to_pbn(200), Pbn { cylinder: 1, head: 1, sector: 0 });
        assert_eq!(l.lbn_to_pbn(300), Pbn { cylinder: 1, head: 0, sector: 0 });
        assert!((l.sector_angle(Pbn { cylinder: 1, head: 1, sector: 5 }) - 0.40).abs() < 1e-12);
    }
}
