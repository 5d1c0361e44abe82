//! iosched's own hard-disk presets: a few lines of TOML that describe a drive the way a data sheet does (rpm,
//! surfaces, cylinders, zones from outer to inner sectors per track, seek times, cache, bus, overheads), from
//! which the full model is generated. Each preset file says where its numbers come from.
//!
//! Generated: cylinders split evenly into zones whose sectors per track fall linearly from outer to inner;
//! track skew = the sectors that pass during a head switch and a write's settling, plus one; cylinder skew =
//! those that pass during a one-cylinder seek (or a head switch, if longer) and a write's settling, plus one
//! (skews sized for writes, as drives lay them out, so that a sequential write crosses tracks without losing a
//! turn; a read crossing them has the settling time to spare); Lee's seek curve through the three seek times;
//! read-ahead until the segment is full (DiskSim's continuous-read level 3), at most `read_ahead_sectors` past a
//! read.

use crate::hdd::layout::{Layout, Mapping, Sparing, Zone};
use crate::hdd::params::{CacheParams, HddParams, Overheads};
use crate::hdd::seek::SeekCurve;
use iosched_core::units::SECTOR_BYTES;
use serde::Deserialize;

/// The presets built in, by name.
pub const BUILT_IN: &[(&str, &str)] = &[("sata7200", include_str!("../../presets/hdd/sata7200.toml"))];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Preset {
    rpm: f64,
    surfaces: u32,
    cylinders: u32,
    zones: u32,
    outer_sectors_per_track: u32,
    inner_sectors_per_track: u32,
    head_switch_ms: f64,
    write_settle_ms: f64,
    bus_mb_per_s: f64,
    queue_depth: u32,
    seek: SeekPreset,
    cache: CachePreset,
    overheads: OverheadPreset,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeekPreset {
    single_cylinder_ms: f64,
    average_ms: f64,
    full_stroke_ms: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CachePreset {
    segments: u32,
    segment_sectors: u64,
    read_ahead_sectors: u64,
    write_back: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OverheadPreset {
    read_miss_ms: f64,
    read_hit_ms: f64,
    write_ms: f64,
}

/// Build a disk from preset text; `source` names it in errors and in the model's name.
pub fn from_toml(text: &str, source: &str) -> Result<HddParams, String> {
    let p: Preset = toml::from_str(text).map_err(|e| format!("{source}: {}", e.to_string().trim_end()))?;
    let check = |ok: bool, what: &str| if ok { Ok(()) } else { Err(format!("{source}: {what}")) };
    check(p.surfaces >= 1 && p.cylinders >= 1, "surfaces and cylinders: expected at least 1")?;
    check(p.zones >= 1 && p.zones <= p.cylinders, "zones: expected 1 to the number of cylinders")?;
    check(
        p.inner_sectors_per_track >= 1 && p.outer_sectors_per_track >= p.inner_sectors_per_track,
        "sectors per track: expected outer >= inner >= 1",
    )?;
    check(p.cache.segments >= 1 && p.cache.segment_sectors >= 1, "cache: expected at least one segment")?;
    check(p.queue_depth >= 1, "queue_depth: expected at least 1")?;
    // Every number that becomes a time or a rate: finite, in range, said with the line it is on.
    let in_range = |key: &str, value: f64, min: f64, max: f64, unit: &str| {
        if value.is_finite() && value >= min && value <= max {
            return Ok(());
        }
        let at = line_of(text, key).map_or(source.to_string(), |line| format!("{source}:{line}"));
        // Far-out values in exponent form, so that 1e300 is not printed as 301 digits.
        let found = if value.is_finite() && value.abs() >= 1e9 { format!("{value:e}") } else { value.to_string() };
        Err(format!("{at}: {key}: expected {min} to {max} {unit}, found {found}"))
    };
    in_range("rpm", p.rpm, 1.0, 1e6, "revolutions a minute")?;
    in_range("bus_mb_per_s", p.bus_mb_per_s, 1e-3, 1e6, "MB/s")?;
    for (key, value) in [
        ("head_switch_ms", p.head_switch_ms),
        ("write_settle_ms", p.write_settle_ms),
        ("single_cylinder_ms", p.seek.single_cylinder_ms),
        ("average_ms", p.seek.average_ms),
        ("full_stroke_ms", p.seek.full_stroke_ms),
        ("read_miss_ms", p.overheads.read_miss_ms),
        ("read_hit_ms", p.overheads.read_hit_ms),
        ("write_ms", p.overheads.write_ms),
    ] {
        in_range(key, value, 0.0, 1e5, "ms")?;
    }
    let period_ms = 60_000.0 / p.rpm;
    let mut zones = Vec::with_capacity(p.zones as usize);
    for z in 0..p.zones {
        let first = (p.cylinders as u64 * z as u64 / p.zones as u64) as u32;
        let last = (p.cylinders as u64 * (z as u64 + 1) / p.zones as u64) as u32 - 1;
        let fraction = if p.zones == 1 { 0.0 } else { z as f64 / (p.zones - 1) as f64 };
        let spt = (p.outer_sectors_per_track as f64
            - fraction * (p.outer_sectors_per_track - p.inner_sectors_per_track) as f64)
            .round() as u32;
        let sector_ms = period_ms / spt as f64;
        // The sectors that pass while a write moves to the next track by taking `move_ms` and settling, plus one.
        let skew_sectors = |move_ms: f64| ((move_ms + p.write_settle_ms) / sector_ms).ceil() + 1.0;
        zones.push(Zone {
            first_cylinder: first,
            last_cylinder: last,
            sectors_per_track: spt,
            first_block_offset_sectors: 0.0,
            deadspace_sectors: 0,
            track_skew_sectors: skew_sectors(p.head_switch_ms),
            cylinder_skew_sectors: skew_sectors(p.seek.single_cylinder_ms.max(p.head_switch_ms)),
            spares: 0,
            slips: Vec::new(),
            defects: Vec::new(),
        });
    }
    let layout = Layout::new(p.surfaces, p.cylinders, Mapping::Normal, Sparing::None, zones)
        .map_err(|e| format!("{source}: {}", e.0))?;
    let ms = 1e6;
    let bus_ns = SECTOR_BYTES as f64 / (p.bus_mb_per_s * 1e6) * 1e9;
    Ok(HddParams {
        name: format!("hdd:{source}"),
        layout,
        seek: SeekCurve::lee(p.seek.single_cylinder_ms, p.seek.average_ms, p.seek.full_stroke_ms, p.cylinders),
        head_switch_ns: p.head_switch_ms * ms,
        write_settle_ns: p.write_settle_ms * ms,
        rpm: p.rpm,
        bus_read_ns_per_block: bus_ns,
        bus_write_ns_per_block: bus_ns,
        read_watermark: 0.0,
        read_watermark_of_request: true,
        write_watermark: 0.0,
        overheads: Overheads {
            read_hit_after_read_ns: p.overheads.read_hit_ms * ms,
            read_hit_after_write_ns: p.overheads.read_hit_ms * ms,
            read_miss_after_read_ns: p.overheads.read_miss_ms * ms,
            read_miss_after_write_ns: p.overheads.read_miss_ms * ms,
            write_hit_after_read_ns: p.overheads.write_ms * ms,
            write_hit_after_write_ns: p.overheads.write_ms * ms,
            write_miss_after_read_ns: p.overheads.write_ms * ms,
            write_miss_after_write_ns: p.overheads.write_ms * ms,
            ..Overheads::default()
        },
        cache: CacheParams {
            enabled: true,
            segments: p.cache.segments,
            segment_blocks: p.cache.segment_sectors,
            write_segments: p.cache.segments,
            continuous_read: 3,
            read_ahead_min_blocks: 0,
            read_ahead_max_blocks: p.cache.read_ahead_sectors.min(p.cache.segment_sectors),
            read_ahead_over_requested: 1,
            fast_write_level: if p.cache.write_back { 2 } else { 0 },
            read_hits_on_write_data: true,
            read_ahead_on_idle_hit: false,
            immediate_partial_hits: true,
            stop_read_ahead_in_sector: false,
            separate_write_segment: false,
            read_free_blocks: false,
        },
        queue_depth: p.queue_depth,
        refinements: Default::default(),
    })
}

/// The line (from 1) on which `key` is set, if it is.
fn line_of(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| l.trim_start().strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('=')))
        .map(|i| i + 1)
}

/// A built-in preset by name, or a preset file.
pub fn load(name_or_path: &str) -> Result<HddParams, String> {
    if let Some((_, text)) = BUILT_IN.iter().find(|(n, _)| *n == name_or_path) {
        return from_toml(text, name_or_path);
    }
    if name_or_path.ends_with(".toml") {
        let text = std::fs::read_to_string(name_or_path).map_err(|e| format!("cannot read {name_or_path}: {e}"))?;
        return from_toml(&text, name_or_path);
    }
    let known: Vec<&str> = BUILT_IN.iter().map(|(n, _)| *n).collect();
    let hint = iosched_core::suggest::did_you_mean(name_or_path, known.iter().copied());
    Err(format!("unknown hdd preset '{name_or_path}'{hint} (built in: {}; or give a .toml file)", known.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sata7200_has_the_stated_geometry() {
        let p = load("sata7200").unwrap();
        let gb = p.layout.blocks() as f64 * 512.0 / 1e9;
        assert!((249.0..=252.0).contains(&gb), "{gb} GB");
        // Average over random cylinder pairs, as data sheets quote it: 8.9 ms within 5 %.
        let avg = p.seek.average_ms(p.layout.cylinders);
        assert!((avg / 8.9 - 1.0).abs() < 0.05, "{avg}");
        assert_eq!(p.layout.sectors_per_track(0, 0), 1320);
        assert_eq!(p.layout.sectors_per_track(120_999, 0), 700);
    }

    #[test]
    fn bad_presets_are_explained() {
        let good = BUILT_IN[0].1;
        let err = from_toml(&good.replace("rpm = 7200", "rpm = \"fast\""), "x.toml").unwrap_err();
        assert!(err.starts_with("x.toml: ") && err.contains("rpm"), "{err}");
        let err = from_toml(&format!("{good}\nturbo = 1\n"), "x.toml").unwrap_err();
        assert!(err.contains("turbo"), "{err}");
        let err = from_toml(&good.replace("inner_sectors_per_track = 700", "inner_sectors_per_track = 2000"), "x.toml")
            .unwrap_err();
        assert!(err.contains("outer >= inner"), "{err}");
        assert!(load("sata9000").unwrap_err().contains("built in: sata7200"));
    }

    #[test]
    fn non_finite_negative_and_huge_times_are_refused_with_their_line() {
        let good = BUILT_IN[0].1;
        for key in ["head_switch_ms", "read_miss_ms", "average_ms", "rpm", "bus_mb_per_s"] {
            let line = line_of(good, key).unwrap();
            for value in ["nan", "inf", "-1.0", "1e300"] {
                let text: String = good
                    .lines()
                    .enumerate()
                    .map(|(i, l)| if i + 1 == line { format!("{key} = {value}\n") } else { format!("{l}\n") })
                    .collect();
                let err = from_toml(&text, "x.toml").unwrap_err();
                assert!(err.starts_with(&format!("x.toml:{line}: {key}: expected")), "{key}={value}: {err}");
            }
        }
    }
}
