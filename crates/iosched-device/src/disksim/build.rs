//! A hard-disk model from DiskSim parameter files: the instantiated `disksim_disk`, its `dm_disk` model
//! (`dm_layout_g1` or `dm_layout_g4` layout, `dm_mech_g1` mechanics, a `.seek` file for extracted seek curves), its cache and
//! overheads. Keys of those blocks that the model does not use are reported as warnings, never silently
//! misread; everything outside the disk (buses, controllers, drivers, statistics) is ignored, except the
//! buses' block transfer times, which bound the disk's.

use super::layout_g4;
use super::params::{read_file, Block, Loc, ParamError, ParamFile, Value};
use super::simpledisk;
use crate::hdd::layout::{Layout, Mapping, Sparing, Zone};
use crate::hdd::params::{CacheParams, ExtraDisconnect, HddParams, Overheads};
use crate::hdd::seek::SeekCurve;
use crate::simpledisk::SimpleDiskParams;
use std::path::Path;

/// The model and the warnings met while building it.
pub struct Built {
    pub params: HddParams,
    pub warnings: Vec<String>,
}

pub(super) const MS: f64 = 1e6;

/// Keys of `disksim_disk` that the model reads.
const DISK_KEYS: &[&str] = &[
    "Model",
    "Per-request overhead time",
    "Time scale for overheads",
    "Bulk sector transfer time",
    "Hold bus entire read xfer",
    "Hold bus entire write xfer",
    "Allow read hits on write data",
    "Max queue length",
    "Number of buffer segments",
    "Maximum number of write segments",
    "Segment size (in blks)",
    "Enable caching in buffer",
    "Buffer continuous read",
    "Minimum read-ahead (blks)",
    "Maximum read-ahead (blks)",
    "Read-ahead on idle hit",
    "Fast write level",
    "Read hit over. after read",
    "Read hit over. after write",
    "Read miss over. after read",
    "Read miss over. after write",
    "Write hit over. after read",
    "Write hit over. after write",
    "Write miss over. after read",
    "Write miss over. after write",
    "Read completion overhead",
    "Write completion overhead",
    "First reselect overhead",
    "Other reselect overhead",
    "Minimum seek delay",
    "Data preparation overhead",
    "High (read) water mark",
    "Low (write) water mark",
    "Set watermark by reqsize",
    "Extra write disconnect",
    "Extradisc command overhead",
    "Extradisc disconnect overhead",
    "Extradisc inter-disconnect delay",
    "Extradisc seek delta",
    "Extradisc 2nd disconnect overhead",
    "Write disconnect overhead",
    "Read disconnect afterread",
    "Stop prefetch in sector",
    "Read disconnect afterwrite",
    "Read any free blocks",
    "Read-ahead over requested",
    "Immed transfer partial hit",
    "Use separate write segment",
    "Print stats",
    "Scheduler",
    "Avg sectors per cylinder",
];

/// Keys of `disksim_disk` known to DiskSim whose effect this model does not reproduce (they are read past
/// with a warning when they differ from their neutral value).
const DISK_KEYS_NOT_MODELLED: &[(&str, f64)] = &[
    ("Allow almost read hits", 0.0),
    ("Allow sneaky full read hits", 0.0),
    ("Allow sneaky partial read hits", 0.0),
    ("Allow sneaky intermediate read hits", 0.0),
    ("Allow write prebuffering", 0.0),
    ("Preseeking level", 0.0),
    ("Never disconnect", 0.0),
    ("Calc sector by sector", 1.0),
    ("Immediate buffer read", 0.0),
    ("Immediate buffer write", 0.0),
    ("Combine seq writes", 1.0),
    ("Disconnect write if seek", 0.0),
    ("Write hit stop prefetch", 1.0),
    ("Read directly to buffer", 1.0),
];

const MODEL_KEYS: &[&str] =
    &["Number of data surfaces", "Number of cylinders", "Block count", "Layout Model", "Mechanical Model"];
const LAYOUT_KEYS: &[&str] = &["LBN-to-PBN mapping scheme", "Sparing scheme used", "Rangesize for sparing", "Zones"];
const ZONE_KEYS: &[&str] = &[
    "First cylinder number",
    "Last cylinder number",
    "Blocks per track",
    "Offset of first block",
    "Empty space at zone front",
    "Skew for track switch",
    "Skew for cylinder switch",
    "Number of spares",
    "slips",
    "defects",
];
const MECH_KEYS: &[&str] = &[
    "Access time type",
    "Seek type",
    "Single cylinder seek time",
    "Average seek time",
    "Full strobe seek time",
    "Full seek curve",
    "Add. write settling delay",
    "HPL seek equation values",
    "First ten seek times",
    "Head switch time",
    "Rotation speed (in rpms)",
    "Percent error in rpms",
];

fn err(loc: &Loc, message: String) -> ParamError {
    ParamError::new(loc.clone(), message)
}

fn warn_unknown(block: &Block, known: &[&str], warnings: &mut Vec<String>) {
    for (key, loc) in block.unknown_keys(known) {
        let not_modelled = DISK_KEYS_NOT_MODELLED.iter().find(|(k, _)| k.eq_ignore_ascii_case(&key));
        match not_modelled {
            Some((_, neutral)) => {
                if let Ok(v) = block.number(&key) {
                    if v != *neutral {
                        warnings.push(format!("{loc}: '{key}' = {v} is not modelled; ignored"));
                    }
                }
            }
            None => warnings.push(format!("{loc}: unknown key '{key}' in {}; ignored", block.display_name())),
        }
    }
}

/// Build the hard disk a `.parv` file describes.
pub fn load(parv: &Path) -> Result<Built, ParamError> {
    let file = read_file(parv)?;
    build(&file, parv)
}

/// The device a .parv file describes: a disk with a geometry, or DiskSim's fixed-access-time disk.
// One is built per file read: the size of the disk's variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Drive {
    Disk(HddParams),
    Simple(SimpleDiskParams),
}

impl Drive {
    /// A fresh device of these parameters.
    pub fn device(&self) -> Box<dyn crate::Device> {
        match self {
            Drive::Disk(p) => Box::new(crate::hdd::disk::Hdd::new(p.clone())),
            Drive::Simple(p) => Box::new(crate::simpledisk::SimpleDisk::new(p.clone())),
        }
    }

    pub fn blocks(&self) -> u64 {
        match self {
            Drive::Disk(p) => p.layout.blocks(),
            Drive::Simple(p) => p.blocks,
        }
    }

    /// The cache segment's blocks; None for a device without a cache.
    pub fn segment_blocks(&self) -> Option<u64> {
        match self {
            Drive::Disk(p) => Some(p.cache.segment_blocks),
            Drive::Simple(_) => None,
        }
    }

    /// The refinements in force (none for the simple disk, which has none).
    pub fn refinements(&self) -> Vec<&'static str> {
        match self {
            Drive::Disk(p) => p.refinements.enabled(),
            Drive::Simple(_) => Vec::new(),
        }
    }
}

/// Build the device a `.parv` file describes, with the warnings met reading it.
pub fn load_drive(parv: &Path) -> Result<(Drive, Vec<String>), ParamError> {
    let file = read_file(parv)?;
    build_drive(&file, parv)
}

/// Build the device `file` (read from `parv`) describes, with the warnings met reading it.
pub fn build_drive(file: &ParamFile, parv: &Path) -> Result<(Drive, Vec<String>), ParamError> {
    match find_device(file, parv)? {
        Found::Disk(_) => build(file, parv).map(|b| (Drive::Disk(b.params), b.warnings)),
        Found::Simple(b) => simpledisk::build(b, file, parv).map(|(p, mut w)| {
            w.extend(several_devices_warning(file, b));
            (Drive::Simple(p), w)
        }),
    }
}

/// How many devices an `instantiate` line's names make: `[ disk0 .. disk8 ]` is nine, `[ disk, cache_disk ]` two.
fn instance_count(names: &[String]) -> u64 {
    let number = |name: &str| -> Option<u64> {
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        name[name.len() - digits..].parse().ok()
    };
    let mut count = 0u64;
    let mut i = 0;
    while i < names.len() {
        if names[i] == ".." && i > 0 && i + 1 < names.len() {
            // The range's first name is counted already.
            if let (Some(a), Some(b)) = (number(&names[i - 1]), number(&names[i + 1])) {
                count = count.saturating_add(b.saturating_sub(a));
            }
            i += 2;
            continue;
        }
        count = count.saturating_add(1);
        i += 1;
    }
    count
}

/// A file that instantiates several disks (DiskSim's arrays, a disk with a cache disk, three different drives)
/// is simulated as one drive, `chosen`: say so, with the logical organisation that is left out.
fn several_devices_warning(file: &ParamFile, chosen: &Block) -> Option<String> {
    let is_device = |t: &str| {
        file.block_named(t).is_some_and(|b| matches!(b.type_name.as_str(), "disksim_disk" | "disksim_simpledisk"))
    };
    let lines: Vec<&(Vec<String>, String, Loc)> = file.instances.iter().filter(|(_, t, _)| is_device(t)).collect();
    let devices = lines.iter().fold(0u64, |n, (names, _, _)| n.saturating_add(instance_count(names)));
    if devices <= 1 {
        return None;
    }
    let loc = &lines[0].2;
    let organised = file
        .blocks
        .iter()
        .filter(|b| b.type_name == "disksim_logorg")
        .filter_map(|b| {
            let word = |key: &str| b.word(key).ok().map(|(w, _)| w.to_string());
            let (scheme, redundancy) = (word("Distribution scheme")?, word("Redundancy scheme")?);
            (scheme != "Asis" || redundancy != "Noredun")
                .then(|| format!(" and organises them ({}: {scheme}, {redundancy})", b.display_name()))
        })
        .next()
        .unwrap_or_default();
    Some(format!(
        "{loc}: the file instantiates {devices} disks{organised}; iosched simulates one drive, {} (for several disks \
         joined end to end, use volume:N:disksim:FILE)",
        chosen.display_name()
    ))
}

enum Found<'a> {
    Disk(&'a Block),
    Simple(&'a Block),
}

/// The disk a file instantiates (or, failing that, the first it defines); a `disksim_simpledisk` where it has no
/// `disksim_disk`.
fn find_device<'a>(file: &'a ParamFile, parv: &Path) -> Result<Found<'a>, ParamError> {
    for (_, type_name, loc) in &file.instances {
        if let Some(b) = file.block_named(type_name) {
            if b.type_name == "disksim_disk" {
                return Ok(Found::Disk(b));
            }
        } else if !["Stats"].contains(&type_name.as_str())
            && file.blocks.iter().all(|b| b.name.as_deref() != Some(type_name))
        {
            return Err(err(loc, format!("instantiate names '{type_name}', which no block defines")));
        }
    }
    if let Some(b) = file.blocks.iter().find(|b| b.type_name == "disksim_disk") {
        return Ok(Found::Disk(b));
    }
    // DiskSim's other devices: the simple disk is modelled; the others are named rather than said to be absent.
    let instantiated = |b: &&Block| file.instances.iter().any(|(_, t, _)| b.name.as_deref() == Some(t.as_str()));
    let of_type = |type_name: &'static str| {
        let all = || file.blocks.iter().filter(move |b| b.type_name == type_name);
        all().find(instantiated).or_else(|| all().next())
    };
    if let Some(b) = of_type("disksim_simpledisk") {
        return Ok(Found::Simple(b));
    }
    let other = |type_name: &'static str, what: &str| {
        of_type(type_name).map(|b| {
            err(
                &b.loc,
                format!(
                    "{}: {what} is not modelled; iosched simulates disksim_disk and disksim_simpledisk devices",
                    b.display_name()
                ),
            )
        })
    };
    Err(other("memsmodel_mems", "a MEMS storage device")
        .or_else(|| other("ssdmodel_ssd", "DiskSim's SSD extension (for flash, use --device ssd:... or mqsim:...)"))
        .unwrap_or_else(|| err(&Loc::file(parv), "no disksim_disk block: expected a disk to simulate".into())))
}

fn find_disk<'a>(file: &'a ParamFile, parv: &Path) -> Result<&'a Block, ParamError> {
    match find_device(file, parv)? {
        Found::Disk(b) => Ok(b),
        Found::Simple(b) => Err(err(
            &b.loc,
            format!(
                "{}: DiskSim's fixed-access-time disk, where a disksim_disk (a drive with a geometry and a cache) is \
                 needed here",
                b.display_name()
            ),
        )),
    }
}

/// The longest time a drive file may give (ms): 100 s, far above any real drive's, so that every product of times
/// stays far from overflowing the simulator's ns clock.
pub(super) const MS_MAX: f64 = 100_000.0;

/// The largest sector count (skews, offsets, water marks) a drive file may give.
const SECTORS_MAX: f64 = 1e9;

pub fn build(file: &ParamFile, parv: &Path) -> Result<Built, ParamError> {
    let mut warnings = Vec::new();
    let disk = find_disk(file, parv)?;
    warnings.extend(several_devices_warning(file, disk));
    warn_unknown(disk, DISK_KEYS, &mut warnings);
    let model = disk.typed_block("Model", "dm_disk")?;
    warn_unknown(model, MODEL_KEYS, &mut warnings);
    let surfaces = model.int("Number of data surfaces", 1, 1 << 16)? as u32;
    let cylinders = model.int("Number of cylinders", 1, 1 << 30)? as u32;

    // Layout.
    let lay = model.block("Layout Model")?;
    let layout = if lay.type_name == "dm_layout_g4" {
        let blocks = model.int("Block count", 1, i32::MAX as i64)? as u64;
        layout_g4::layout(lay, surfaces, cylinders, blocks, &mut warnings)?
    } else {
        g1_layout(model, surfaces, cylinders, &mut warnings)?
    };
    let most_sectors_per_track = layout.most_sectors_per_track();

    // Mechanics.
    let mech = model.typed_block("Mechanical Model", "dm_mech_g1")?;
    warn_unknown(mech, MECH_KEYS, &mut warnings);
    if let Ok((kind, loc)) = mech.word("Access time type") {
        if kind != "trackSwitchPlusRotation" {
            warnings.push(format!("{loc}: Access time type '{kind}' is modelled as trackSwitchPlusRotation"));
        }
    }
    let (seek_type, seek_loc) = mech.word("Seek type")?;
    let seek = match seek_type {
        "constant" => SeekCurve::Constant { ms: mech.number_in("Average seek time", 0.0, MS_MAX, "ms")? },
        "linear" => SeekCurve::Linear {
            single_ms: mech.number_in("Single cylinder seek time", 0.0, MS_MAX, "ms")?,
            full_ms: mech.number_in("Full strobe seek time", 0.0, MS_MAX, "ms")?,
            cylinders,
        },
        "curve" => SeekCurve::lee(
            mech.number_in("Single cylinder seek time", 0.0, MS_MAX, "ms")?,
            mech.number_in("Average seek time", 0.0, MS_MAX, "ms")?,
            mech.number_in("Full strobe seek time", 0.0, MS_MAX, "ms")?,
            cylinders,
        ),
        "hpl" | "hplplus10" => {
            let v = numbers(mech, "HPL seek equation values", 6)?;
            let first_ten = if seek_type == "hplplus10" {
                let t = numbers(mech, "First ten seek times", 10)?;
                Some(t.try_into().expect("ten numbers"))
            } else {
                None
            };
            SeekCurve::Hpl { v: v.try_into().expect("six numbers"), first_ten }
        }
        "extracted" => {
            let (name, loc) = mech.word("Full seek curve")?;
            let path = Path::new(&mech.loc.file).parent().unwrap_or(Path::new(".")).join(name);
            SeekCurve::Extracted { points: read_seek_file(&path, loc)? }
        }
        other => {
            return Err(err(
                seek_loc,
                format!("Seek type: expected constant, linear, curve, hpl, hplplus10 or extracted, found '{other}'"),
            ))
        }
    };
    let rpm = mech.number("Rotation speed (in rpms)")?;
    if !(rpm > 0.0 && rpm < 1e6) {
        return Err(err(
            &mech.get("Rotation speed (in rpms)").expect("read above").loc,
            format!("Rotation speed (in rpms): expected above 0 and below 1e6, found {rpm:e}"),
        ));
    }
    let rpm_error = mech.number_in_or("Percent error in rpms", -100.0, 100.0, "%", 0.0)?;
    if rpm_error != 0.0 {
        warnings.push(format!(
            "{}: Percent error in rpms = {rpm_error} is not modelled; the nominal speed is used",
            mech.loc
        ));
    }

    // Overheads, bus, cache.
    let scale = disk.number_in_or("Time scale for overheads", 0.0, 1000.0, "times", 1.0)?;
    let ms =
        |key: &str| -> Result<f64, ParamError> { Ok(disk.number_in_or(key, 0.0, MS_MAX, "ms", 0.0)? * MS * scale) };
    let overheads = Overheads {
        read_hit_after_read_ns: ms("Read hit over. after read")?,
        read_hit_after_write_ns: ms("Read hit over. after write")?,
        read_miss_after_read_ns: ms("Read miss over. after read")?,
        read_miss_after_write_ns: ms("Read miss over. after write")?,
        write_hit_after_read_ns: ms("Write hit over. after read")?,
        write_hit_after_write_ns: ms("Write hit over. after write")?,
        write_miss_after_read_ns: ms("Write miss over. after read")?,
        write_miss_after_write_ns: ms("Write miss over. after write")?,
        read_complete_ns: ms("Read completion overhead")?,
        write_complete_ns: ms("Write completion overhead")?,
        per_request_ns: ms("Per-request overhead time")?,
        first_reselect_ns: ms("First reselect overhead")?,
        other_reselect_ns: ms("Other reselect overhead")?,
        minimum_seek_ns: ms("Minimum seek delay")?,
        data_prep_ns: ms("Data preparation overhead")?,
        write_disconnect_ns: ms("Write disconnect overhead")?,
        read_disconnect_after_read_ns: ms("Read disconnect afterread")?,
        read_disconnect_after_write_ns: ms("Read disconnect afterwrite")?,
        extra_write_disconnect: if disk.int_or("Extra write disconnect", 0, 1, 0)? == 1 {
            Some(ExtraDisconnect {
                command_ns: ms("Extradisc command overhead")?,
                disconnect_ns: ms("Extradisc disconnect overhead")?,
                inter_disconnect_ns: ms("Extradisc inter-disconnect delay")?,
                seek_delta_ns: ms("Extradisc seek delta")?,
                second_disconnect_ns: ms("Extradisc 2nd disconnect overhead")?,
            })
        } else {
            None
        },
    };
    // The disk's bulk transfer time, bounded below by the slowest bus.
    let bulk_ms = disk.number_in_or("Bulk sector transfer time", 0.0, MS_MAX, "ms", 0.0)?;
    let (bus_read_ms, bus_write_ms) = slowest_bus_ms(file, bulk_ms)?;
    // Where the read time in force is set, for the warning below.
    let key_loc = |b: &Block, key: &str| b.get(key).map_or_else(|| b.loc.clone(), |v| v.loc.clone());
    let bus_read_loc = file
        .blocks
        .iter()
        .filter(|b| b.type_name == "disksim_bus")
        .find(|b| bus_read_ms > bulk_ms && b.number("Read block transfer time").ok() == Some(bus_read_ms))
        .map_or_else(|| key_loc(disk, "Bulk sector transfer time"), |b| key_loc(b, "Read block transfer time"));
    // The model paces a read's bus transfer block by block behind the media. That is DiskSim's behaviour only
    // while the bus is the slower of the two (as on the three validated drives shipped in ../shared/data); a
    // faster bus catches up with the media, and then DiskSim waits for the high water mark again (and, with
    // "Hold bus entire read xfer" = 0, disconnects and reselects). Say so rather than model it silently.
    let media_ms_per_block = 60_000.0 / rpm / most_sectors_per_track as f64;
    if bus_read_ms < media_ms_per_block {
        warnings.push(format!(
            "{bus_read_loc}: the bus moves a block in {bus_read_ms} ms, faster than the media ({media_ms_per_block:.4} ms a \
             block in the densest zone); a read whose transfer catches up with the media is paced block by block \
             here, while DiskSim then waits for the high water mark again and, with 'Hold bus entire read xfer' = \
             0, disconnects and reselects: not modelled"
        ));
    }
    let read_watermark =
        disk.number_in_or("High (read) water mark", 0.0, SECTORS_MAX, "(a fraction or blocks)", 0.0)?;
    let read_watermark_of_request = disk.int_or("Set watermark by reqsize", 0, 1, 1)? == 1;
    let write_watermark =
        disk.number_in_or("Low (write) water mark", 0.0, SECTORS_MAX, "(a fraction or blocks)", 0.0)?;
    let segments = disk.int_or("Number of buffer segments", 1, 1 << 16, 1)? as u32;
    let segment_blocks = disk.int_or("Segment size (in blks)", 1, 1 << 30, 256)? as u64;
    let cache = CacheParams {
        enabled: disk.int_or("Enable caching in buffer", 0, 2, 1)? != 0,
        segments,
        segment_blocks,
        write_segments: disk.int_or("Maximum number of write segments", 1, segments as i64, 1)? as u32,
        continuous_read: disk.int_or("Buffer continuous read", 0, 4, 0)? as u8,
        read_ahead_min_blocks: disk.int_or("Minimum read-ahead (blks)", 0, 1 << 30, 0)? as u64,
        read_ahead_max_blocks: disk.int_or("Maximum read-ahead (blks)", 0, 1 << 30, 0)? as u64,
        read_ahead_over_requested: disk.int_or("Read-ahead over requested", -1, 1, 1)? as i8,
        fast_write_level: disk.int_or("Fast write level", 0, 2, 0)? as u8,
        read_hits_on_write_data: disk.int_or("Allow read hits on write data", 0, 1, 0)? != 0,
        read_ahead_on_idle_hit: disk.int_or("Read-ahead on idle hit", 0, 1, 0)? != 0,
        read_free_blocks: disk.int_or("Read any free blocks", 0, 1, 0)? != 0,
        immediate_partial_hits: disk.int_or("Immed transfer partial hit", 0, 1, 1)? != 0,
        stop_read_ahead_in_sector: disk.int_or("Stop prefetch in sector", 0, 1, 0)? != 0,
        separate_write_segment: disk.int_or("Use separate write segment", 0, 1, 0)? != 0,
    };
    if cache.separate_write_segment && segments < 2 {
        let loc = disk.get("Use separate write segment").map(|v| v.loc.clone()).unwrap_or_else(|| Loc::file(parv));
        warnings.push(format!("{loc}: 'Use separate write segment' needs two buffer segments or more; ignored"));
    }
    let queue_depth = disk.int_or("Max queue length", 0, 1 << 16, 1)?.max(1) as u32;
    warn_drive_queue(disk, queue_depth, &mut warnings)?;
    Ok(Built {
        params: HddParams {
            name: format!("disksim:{}", parv.display()),
            layout,
            seek,
            head_switch_ns: mech.number_in("Head switch time", 0.0, MS_MAX, "ms")? * MS,
            // Negative in two of DiskSim's validated drives (dec_rz26, -0.483 ms): the settling the head switch
            // already includes, taken back.
            write_settle_ns: mech.number_in_or("Add. write settling delay", -MS_MAX, MS_MAX, "ms", 0.0)? * MS,
            rpm,
            bus_read_ns_per_block: bus_read_ms * MS,
            bus_write_ns_per_block: bus_write_ms * MS,
            read_watermark,
            read_watermark_of_request,
            write_watermark,
            overheads,
            cache,
            queue_depth,
            refinements: Default::default(),
        },
        warnings,
    })
}

/// A block's transfer time for reads and for writes (ms): the drive's own `bulk_ms`, or the slowest bus of the
/// file where that is slower (a transfer takes the longest of the two ends' and the bus's block times).
pub(super) fn slowest_bus_ms(file: &ParamFile, bulk_ms: f64) -> Result<(f64, f64), ParamError> {
    let (mut read_ms, mut write_ms) = (bulk_ms, bulk_ms);
    for b in file.blocks.iter().filter(|b| b.type_name == "disksim_bus") {
        read_ms = read_ms.max(b.number_in_or("Read block transfer time", 0.0, MS_MAX, "ms", 0.0)?);
        write_ms = write_ms.max(b.number_in_or("Write block transfer time", 0.0, MS_MAX, "ms", 0.0)?);
    }
    Ok((read_ms, write_ms))
}

/// DiskSim's request scheduling algorithms (disksim_ioqueue.h), numbered from 1.
const SCHEDULING_POLICIES: &[&str] = &[
    "FCFS",
    "ELEVATOR_LBN",
    "CYCLE_LBN",
    "SSTF_LBN",
    "ELEVATOR_CYL",
    "CYCLE_CYL",
    "SSTF_CYL",
    "SPTF_OPT",
    "SPCTF_OPT",
    "SATF_OPT",
    "WPTF_OPT",
    "WPCTF_OPT",
    "WATF_OPT",
    "ASPTF_OPT",
    "ASPCTF_OPT",
    "ASATF_OPT",
    "VSCAN_LBN",
    "VSCAN_CYL",
    "PRI_VSCAN_LBN",
    "PRI_ASPTF_OPT",
    "PRI_ASPCTF_OPT",
    "SDF_APPROX",
    "SDF_EXACT",
    "SPTF_ROT_OPT",
    "SPTF_ROT_WEIGHT",
    "SPTF_SEEK_WEIGHT",
    "TSPS",
    "BATCH_FCFS",
];

/// Keys of the drive's own queue (its `Scheduler` block) that change the order of a queue of more than one
/// request, with their neutral values.
const DRIVE_QUEUE_KEYS_NOT_MODELLED: &[(&str, f64)] = &[
    ("Sequential stream scheme", 0.0),
    ("Maximum concat size", 0.0),
    ("Overlapping request scheme", 0.0),
    ("Scheduling timeout scheme", 0.0),
    ("Scheduling priority scheme", 0.0),
];

/// The model serves the drive's own queue first come, first served (every drive DiskSim was validated on has a
/// queue of one request, or FCFS). A drive file whose queue holds more and is reordered says so.
pub(super) fn warn_drive_queue(disk: &Block, queue_depth: u32, warnings: &mut Vec<String>) -> Result<(), ParamError> {
    if disk.get("Scheduler").is_none() {
        return Ok(());
    }
    let queue = disk.typed_block("Scheduler", "disksim_ioqueue")?;
    let policy = queue.int_or("Scheduling policy", 1, SCHEDULING_POLICIES.len() as i64, 1)?;
    if queue_depth <= 1 {
        return Ok(());
    }
    if policy != 1 {
        let loc = queue.get("Scheduling policy").map(|v| v.loc.clone()).unwrap_or_else(|| queue.loc.clone());
        warnings.push(format!(
            "{loc}: 'Scheduling policy' = {policy} ({}): the drive's own queue (up to {queue_depth} requests) is \
             served first come, first served here; its reordering is not modelled",
            SCHEDULING_POLICIES[policy as usize - 1]
        ));
    }
    for (key, neutral) in DRIVE_QUEUE_KEYS_NOT_MODELLED {
        if let (Some(v), Ok(n)) = (queue.get(key), queue.number(key)) {
            if n != *neutral {
                warnings.push(format!(
                    "{}: '{key}' = {n} of the drive's own queue is not modelled (served first come, first served); \
                     ignored",
                    v.loc
                ));
            }
        }
    }
    Ok(())
}

fn numbers(b: &Block, key: &str, count: usize) -> Result<Vec<f64>, ParamError> {
    let items = b.list(key)?;
    let loc = &b.get(key).expect("listed above").loc;
    if items.len() != count {
        return Err(err(loc, format!("{key}: expected {count} numbers, found {}", items.len())));
    }
    items
        .iter()
        .map(|i| match i.value {
            Value::Number(n) if n.is_finite() && n.abs() <= SECTORS_MAX => Ok(n),
            Value::Number(n) => Err(err(&i.loc, format!("{key}: expected numbers from -1e9 to 1e9, found {n:e}"))),
            ref other => Err(err(&i.loc, format!("{key}: expected numbers, found {}", other.describe()))),
        })
        .collect()
}

/// A `dm_layout_g1` layout: zones of cylinders (DiskSim's diskmodel/layout_g1.c).
fn g1_layout(model: &Block, surfaces: u32, cylinders: u32, warnings: &mut Vec<String>) -> Result<Layout, ParamError> {
    let lay = model.typed_block("Layout Model", "dm_layout_g1")?;
    warn_unknown(lay, LAYOUT_KEYS, warnings);
    let mapping_no = lay.int("LBN-to-PBN mapping scheme", 0, 4)?;
    let mapping = Mapping::from_disksim(mapping_no).ok_or_else(|| {
        err(
            &lay.get("LBN-to-PBN mapping scheme").expect("read above").loc,
            format!("LBN-to-PBN mapping scheme: {mapping_no} is not supported; expected 0, 1 or 2"),
        )
    })?;
    let range = lay.int_or("Rangesize for sparing", 1, 1 << 20, 1)? as u32;
    let scheme = lay.int("Sparing scheme used", 0, 10)?;
    let sparing = Sparing::from_disksim(scheme, range).expect("0-10 checked above");
    let mut zones = Vec::new();
    // The zone that reaches furthest: its last cylinder and where that is said.
    let mut furthest: Option<(u32, Loc)> = None;
    for item in lay.list("Zones")? {
        let Value::Block(z) = &item.value else {
            return Err(err(&item.loc, format!("Zones: expected zone blocks, found {}", item.value.describe())));
        };
        warn_unknown(z, ZONE_KEYS, warnings);
        let defects = z.int_list("defects", 0, i64::MAX)?;
        if defects.len() % 2 != 0 {
            return Err(err(
                &z.get("defects").expect("read above").loc,
                "defects: expected pairs (defect, spare), found an odd count".into(),
            ));
        }
        let last = z.int("Last cylinder number", 0, i32::MAX as i64)? as u32;
        if furthest.as_ref().is_none_or(|(f, _)| last > *f) {
            furthest = Some((last, z.get("Last cylinder number").expect("read above").loc.clone()));
        }
        zones.push(Zone {
            // DiskSim checks only that a zone's cylinders are not negative: the zones, not "Number of cylinders",
            // say where the blocks are (a zone past that number is warned about below).
            first_cylinder: z.int("First cylinder number", 0, i32::MAX as i64)? as u32,
            last_cylinder: last,
            sectors_per_track: z.int("Blocks per track", 1, 1 << 20)? as u32,
            first_block_offset_sectors: z.number_in_or("Offset of first block", 0.0, SECTORS_MAX, "sectors", 0.0)?,
            deadspace_sectors: z.int_or("Empty space at zone front", 0, i64::MAX, 0)? as u64,
            track_skew_sectors: z.number_in_or("Skew for track switch", 0.0, SECTORS_MAX, "sectors", 0.0)?,
            cylinder_skew_sectors: z.number_in_or("Skew for cylinder switch", 0.0, SECTORS_MAX, "sectors", 0.0)?,
            spares: z.int_or("Number of spares", 0, i64::MAX, 0)? as u64,
            slips: z.int_list("slips", 0, i64::MAX)?.into_iter().map(|v| v as u64).collect(),
            defects: defects.chunks(2).map(|p| (p[0] as u64, p[1] as u64)).collect(),
        });
    }
    let zones_loc = lay.get("Zones").expect("read above").loc.clone();
    // The geometry is the zones' (as in DiskSim's layout); "Number of cylinders" still scales the seek curves
    // that take it, as DiskSim's do.
    let zone_cylinders = furthest.as_ref().map_or(0, |(last, _)| last + 1);
    if let Some((last, loc)) = furthest.filter(|(last, _)| *last >= cylinders) {
        warnings.push(format!(
            "{loc}: a zone ends at cylinder {last} but 'Number of cylinders' = {cylinders}; the zones' {} \
             cylinders are used, as DiskSim does",
            last + 1
        ));
    }
    let layout = Layout::new(surfaces, cylinders.max(zone_cylinders), mapping, sparing, zones)
        .map_err(|e| err(&zones_loc, e.0))?;
    let stated = model.int_or("Block count", 0, i64::MAX, 0)? as u64;
    if stated != 0 && stated != layout.blocks() {
        warnings.push(format!(
            "{}: Block count says {stated} but the zones hold {}; using the zones' count, as DiskSim does",
            model.get("Block count").expect("read above").loc,
            layout.blocks()
        ));
    }
    Ok(layout)
}

/// A DiskSim `.seek` file: "Seek distances measured: N" then N lines "distance, ms".
pub fn read_seek_file(path: &Path, from: &Loc) -> Result<Vec<(u32, f64)>, ParamError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| err(from, format!("cannot read seek curve {}: {e}", path.display())))?;
    let at = |line: usize| Loc { file: path.display().to_string(), line };
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let (_, header) =
        lines.next().ok_or_else(|| err(&at(1), "empty seek file: expected 'Seek distances measured: N'".into()))?;
    let count: usize = header
        .trim()
        .strip_prefix("Seek distances measured:")
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| err(&at(1), format!("expected 'Seek distances measured: N', found '{}'", header.trim())))?;
    let mut points: Vec<(u32, f64)> = Vec::with_capacity(count);
    for (i, line) in lines {
        let mut parts = line.split(',');
        let (d, t) = (parts.next().unwrap_or("").trim(), parts.next().unwrap_or("").trim());
        let d: u32 =
            d.parse().map_err(|_| err(&at(i + 1), format!("expected 'distance, ms', found '{}'", line.trim())))?;
        let t: f64 = t
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| err(&at(i + 1), format!("expected 'distance, ms', found '{}'", line.trim())))?;
        if points.last().is_some_and(|(pd, _)| *pd >= d) {
            return Err(err(
                &at(i + 1),
                format!("distances must increase, found {d} after {}", points.last().expect("checked").0),
            ));
        }
        points.push((d, t));
    }
    if points.len() != count {
        return Err(err(
            &at(text.lines().count()),
            format!("seek table truncated: the header says {count} distances, found {}", points.len()),
        ));
    }
    if points.is_empty() {
        return Err(err(&at(1), "the seek table has no distances".into()));
    }
    Ok(points)
}
