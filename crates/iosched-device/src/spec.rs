//! Device specs as users write them: `KIND[:PRESET][,key=value...]`: `simple,latency_us=50,queue_depth=1`,
//! `hdd:sata7200` (a built-in preset, or `hdd:FILE.toml`), `disksim:FILE.parv` (any DiskSim drive),
//! `ssd:nvme` or `ssd:netflix` with keys such as `capacity_gib`, `op`, `precondition=fresh|steady`, and
//! `mqsim:FILE.xml[,Tag=value...]` (MQSim's device file, any of its tags set after the name).

use crate::device::Device;
use crate::disksim::build::Drive;
use crate::hdd::disk::Hdd;
use crate::hdd::params::{HddParams, Refinements};
use crate::simple::{SimpleDevice, SimpleParams};
use crate::simpledisk::SimpleDiskParams;
use iosched_core::suggest::did_you_mean;
use iosched_core::units;
use std::path::Path;
use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("device spec '{spec}': {reason}")]
pub struct SpecError {
    pub spec: String,
    pub reason: String,
}

/// The spec used when none is given.
pub const DEFAULT_SPEC: &str = "simple";

/// The keys of `simple`, with what they mean.
pub const SIMPLE_KEYS: &[(&str, &str)] = &[
    ("latency_us", "fixed cost of every request, microseconds (default 100)"),
    ("bandwidth_mb_per_s", "transfer rate of the shared channel, MB/s of 10^6 bytes (default 500)"),
    ("flush_us", "cost of a cache flush, microseconds (default 100)"),
    ("queue_depth", "most requests outstanding (default 32)"),
    ("capacity_gib", "addressable size, GiB (default 1024)"),
];

/// Build the device a spec names, with any warnings met reading its files.
pub fn load_spec(spec: &str) -> Result<(Box<dyn Device>, Vec<String>), SpecError> {
    let err = |reason: String| SpecError { spec: spec.to_string(), reason };
    if let Some(rest) = spec.strip_prefix("volume:") {
        return load_volume(spec, rest);
    }
    let (head, pairs) = split_keys(spec).map_err(err)?;
    let (kind, preset) = match head.split_once(':') {
        Some((k, p)) => (k, Some(p)),
        None => (head, None),
    };
    let available = "available: simple, hdd:PRESET, disksim:FILE.parv, ssd:PRESET, mqsim:FILE.xml, volume:N:SPEC";
    match (kind, preset) {
        ("simple", None) => Ok((Box::new(SimpleDevice::new(simple_params(&pairs).map_err(err)?)), Vec::new())),
        ("simple", Some(p)) => Err(err(format!("simple has no presets (found ':{p}'); set keys instead"))),
        ("hdd", Some(name)) => {
            let mut params = crate::hdd::preset::load(name).map_err(err)?;
            apply_hdd_keys(&mut params, &pairs).map_err(err)?;
            Ok((Box::new(Hdd::new(params)), Vec::new()))
        }
        ("disksim", Some(file)) => {
            let (mut drive, warnings) =
                crate::disksim::build::load_drive(Path::new(file)).map_err(|e| err(e.to_string()))?;
            apply_disksim_keys(&mut drive, &pairs).map_err(err)?;
            Ok((drive.device(), warnings))
        }
        ("hdd" | "disksim", None) => Err(err(format!("{kind} needs a preset or file: {kind}:NAME"))),
        ("ssd", Some(name)) => {
            let mut params = crate::ssd::params::preset(name).map_err(err)?;
            crate::ssd::params::apply_keys(&mut params, &pairs).map_err(err)?;
            let warnings = params.op_warning().into_iter().collect();
            Ok((Box::new(crate::ssd::Ssd::new(params).map_err(err)?), warnings))
        }
        ("mqsim", Some(file)) => {
            let device = crate::ssd::mqsim_file::load(Path::new(file), &pairs).map_err(err)?;
            let drive: Box<dyn Device> = Box::new(crate::ssd::Ssd::new(device.params).map_err(err)?);
            Ok((with_sata_hba(drive, device.sata_processing_ns), device.warnings))
        }
        ("mqsim", None) => Err(err("mqsim needs a device file: mqsim:ssdconfig.xml[,Tag=value...]".to_string())),
        ("ssd", None) => Err(err(format!("ssd needs a preset: ssd:NAME ({})", crate::ssd::params::PRESETS.join(", ")))),
        ("", _) => Err(err("empty spec; expected a kind such as 'simple'".to_string())),
        (other, _) => {
            let hint = did_you_mean(other, ["simple", "hdd", "disksim", "ssd", "mqsim"]);
            Err(err(format!("unknown device kind '{other}'{hint}; {available}")))
        }
    }
}

/// A part of the logical space written before a run: `start` and `len` as shares of the logical capacity, and
/// how the drive ages it when its device file asks for preconditioning (MQSim's Enabled_Preconditioning).
#[derive(Clone, Debug, PartialEq)]
pub struct Filled {
    pub start: f64,
    pub len: f64,
    pub aging: crate::ssd::params::Aging,
    /// Where MQSim's preconditioning layout (`conform=mqsim`) puts the occupied pages instead: picked among
    /// the first `precondition_range` of the logical space from `start`, `precondition_len` of it (both shares
    /// of the logical space).
    pub precondition_range: f64,
    pub precondition_len: f64,
    /// A synthetic flow of an MQSim workload whose occupied pages MQSim's layout draws as MQSim does (see
    /// [`crate::ssd::ftl::mqsim_layout::MqsimFlowAddresses`]); None: picked uniformly.
    pub mqsim_addresses: Option<crate::ssd::ftl::mqsim_layout::MqsimFlowAddresses>,
    /// The flash the flow's pages go to on an MQSim device file (its workload's Channel_IDs, Chip_IDs, Die_IDs,
    /// Plane_IDs; None: all of a kind).
    pub resources: crate::ssd::mqsim_file::FlowResources,
}

/// How an MQSim device file lays out a workload's flows: its partition of the logical space among them, and
/// whether its interface gives them one stream.
#[derive(Clone, Debug)]
pub struct FlowRanges {
    /// The first and last logical sector of each flow, as MQSim partitions its logical space among them given
    /// each flow's resources ([`crate::ssd::mqsim_file::MqsimDevice::flow_sector_ranges`]).
    pub ranges: Vec<(u64, u64)>,
    /// The drive's logical sectors.
    pub sectors: u64,
    /// Whether some flow uses only part of the flash (then its range is not an equal part of the drive's).
    pub partial: bool,
    /// A SATA interface: one stream, every flow's commands counted as the first flow's (its caching mode).
    pub one_stream: bool,
}

/// For an MQSim device file (`mqsim:FILE,...`): its partition of the logical space among the flows; None for
/// other devices.
pub fn mqsim_flow_sector_ranges(
    spec: &str,
    flows: &[crate::ssd::mqsim_file::FlowResources],
) -> Result<Option<FlowRanges>, SpecError> {
    let err = |reason: String| SpecError { spec: spec.to_string(), reason };
    let (head, pairs) = split_keys(spec).map_err(err)?;
    let Some(("mqsim", file)) = head.split_once(':') else { return Ok(None) };
    let device = crate::ssd::mqsim_file::load(Path::new(file), &pairs).map_err(err)?;
    let ranges = device.flow_sector_ranges(flows).map_err(err)?;
    let counts = device.counts();
    let partial = device
        .resource_ids(flows)
        .map_err(err)?
        .iter()
        .any(|ids| ids.iter().zip(counts).any(|(list, n)| list.len() != n as usize));
    Ok(Some(FlowRanges {
        ranges,
        sectors: device.params.capacity_bytes / crate::ssd::mqsim_file::SECTOR_BYTES,
        partial,
        one_stream: device.sata,
    }))
}

/// Build the device a spec names with parts of its logical space written first, in order: `(start, length)`
/// as shares of the logical capacity (a workload's occupancy, such as MQSim's Initial_Occupancy_Percentage),
/// one per flow of the workload, each flow's range an equal part of the logical space.
/// Only SSDs keep what was written; other kinds are built as they are, with a warning.
pub fn load_spec_filled(spec: &str, filled: &[Filled]) -> Result<(Box<dyn Device>, Vec<String>), SpecError> {
    let err = |reason: String| SpecError { spec: spec.to_string(), reason };
    let (head, pairs) = split_keys(spec).map_err(err)?;
    // MQSim's SATA host adapter, in front of the drive (0: none).
    let mut sata_processing_ns = 0;
    let (mut params, mut warnings) = match head.split_once(':') {
        Some(("ssd", name)) => {
            let mut params = crate::ssd::params::preset(name).map_err(err)?;
            crate::ssd::params::apply_keys(&mut params, &pairs).map_err(err)?;
            let warnings: Vec<String> = params.op_warning().into_iter().collect();
            (params, warnings)
        }
        Some(("mqsim", file)) => {
            let device = crate::ssd::mqsim_file::load(Path::new(file), &pairs).map_err(err)?;
            let mut params = device.params.clone();
            let mut warnings = device.warnings.clone();
            place_flows(&device, filled, &mut params, &mut warnings).map_err(err)?;
            sata_processing_ns = device.sata_processing_ns;
            // MQSim's NVMe interface gives each flow a stream, and each stream its own write frontiers.
            if !device.sata {
                params.write_streams = filled.len().clamp(1, u16::MAX as usize) as u16;
            }
            if device.sata && filled.len() > 1 && params.age_occupied {
                warnings.push(format!(
                    "{file}: SATA with preconditioning and several flows: MQSim itself stopped with a segmentation \
                     fault on such a workload (its shipped scenario 1 of two flows), so there may be no MQSim figure \
                     to compare with; iosched preconditions each flow's range"
                ));
            }
            if device.sata && params.write_cache_per_flow {
                // EQUAL_PARTITIONING gives each flow's stream its share of the data cache, but over SATA every
                // transaction is stream 0's: one cache of one flow's share.
                params.write_cache_per_flow = false;
                if let Some(c) = params.write_cache.as_mut() {
                    c.capacity_pages = (c.capacity_pages / filled.len().max(1) as u64).max(1);
                }
            }
            (params, warnings)
        }
        _ => {
            let (device, mut warnings) = load_spec(spec)?;
            if filled.iter().any(|f| f.len > 0.0) {
                warnings.push(format!("{spec}: only SSD models are preconditioned; the occupancy is not applied"));
            }
            return Ok((device, warnings));
        }
    };
    let pages = params.capacity_bytes / params.page_bytes;
    if params.mapping_cache_per_flow {
        params.mapping_cache_parts = filled.len().max(1) as u32;
    }
    if params.fetch_window_per_flow.is_some() {
        // NVMe: a submission queue of IO_Queue_Depth per flow, the drive fetching a window of each.
        params.queue_depth = params.queue_depth.saturating_mul(filled.len().max(1) as u32);
    }
    if params.write_cache_per_flow {
        params.write_cache_parts = filled.len().max(1) as u32;
    }
    params.occupied_pages = filled
        .iter()
        .enumerate()
        .filter(|(_, f)| f.len > 0.0)
        .map(|(stream, f)| crate::ssd::params::Occupied {
            stream: stream as u16,
            first_page: (f.start * pages as f64) as u64,
            pages: (f.len * pages as f64) as u64,
            aging: f.aging,
            precondition_range_pages: (f.precondition_range * pages as f64) as u64,
            precondition_pages: (f.precondition_len * pages as f64) as u64,
            mqsim_addresses: f.mqsim_addresses,
        })
        .collect();
    if let Some(layout) = params.mqsim_layout.as_mut() {
        layout.flows = filled.len().max(1) as u32;
    }
    let device = with_sata_hba(Box::new(crate::ssd::Ssd::new(params).map_err(err)?), sata_processing_ns);
    warnings.dedup();
    Ok((device, warnings))
}

/// An MQSim drive behind its SATA host adapter, when the file has one that takes time.
fn with_sata_hba(drive: Box<dyn Device>, processing_ns: u64) -> Box<dyn Device> {
    match processing_ns {
        0 => drive,
        ns => Box::new(crate::sata_hba::SataHba::new(drive, ns)),
    }
}

/// On an MQSim device file, where the workload's flows' pages go: by `lpn % pools` when the allocation is
/// CWDP and every flow uses every resource; otherwise by a [`crate::ssd::ftl::pool_map::PoolMap`] over each
/// flow's range and resources.
fn place_flows(
    device: &crate::ssd::mqsim_file::MqsimDevice,
    filled: &[Filled],
    params: &mut crate::ssd::params::SsdParams,
    warnings: &mut Vec<String>,
) -> Result<(), String> {
    use crate::ssd::ftl::pool_map::{PoolDomain, PoolMap};
    let resources: Vec<_> = filled.iter().map(|f| f.resources.clone()).collect();
    let ids = device.resource_ids(&resources)?;
    let counts = device.counts();
    let everything = |ids: &[Vec<u32>; 4]| ids.iter().zip(counts).all(|(list, n)| list.len() == n as usize);
    if params.allocation_order == [0, 1, 2, 3] && ids.iter().all(everything) {
        return Ok(());
    }
    if device.sata && resources.iter().any(|r| r.iter().any(Option::is_some)) {
        warnings.push(format!(
            "{}: a SATA drive has one stream: the flows' resource lists do not apply (as in MQSim)",
            params.preset
        ));
    }
    let ranges = device.flow_sector_ranges(&resources)?;
    let sectors_per_page = params.page_bytes / crate::ssd::mqsim_file::SECTOR_BYTES;
    let logical_pages = params.capacity_bytes / params.page_bytes;
    let mut domains: Vec<PoolDomain> = ranges
        .iter()
        .zip(&ids)
        .map(|(&(first, last), ids)| PoolDomain {
            first_lpn: (first / sectors_per_page).min(logical_pages),
            end_lpn: ((last + 1) / sectors_per_page).min(logical_pages),
            ids: ids.clone(),
        })
        .collect();
    if domains.is_empty() {
        let all = counts.map(|n| (0..n).collect());
        domains.push(PoolDomain { first_lpn: 0, end_lpn: logical_pages, ids: all });
    }
    params.flow_first_lpns = domains.iter().map(|d| d.first_lpn).collect();
    params.pool_map = Some(PoolMap { order: params.allocation_order, counts, domains });
    if params.mqsim_layout.take().is_some() {
        warnings.push(format!(
            "{}: with another allocation than CWDP over all the flash, the occupied pages are aged by writing \
             rather than laid out as MQSim's preconditioning lays them",
            params.preset
        ));
    }
    Ok(())
}

/// A spec's `key=value` settings, in order.
pub type Settings<'a> = Vec<(&'a str, &'a str)>;

/// `HEAD,key=value,...` split into its head and its settings.
pub fn split_keys(spec: &str) -> Result<(&str, Settings<'_>), String> {
    let mut parts = spec.split(',');
    let head = parts.next().unwrap_or("").trim();
    let mut pairs = Vec::new();
    for part in parts {
        let (key, value) = part.split_once('=').ok_or_else(|| format!("expected key=value, found '{part}'"))?;
        pairs.push((key.trim(), value.trim()));
    }
    Ok((head, pairs))
}

/// `volume:N:MEMBER_SPEC`: N members of one spec, concatenated.
fn load_volume(spec: &str, rest: &str) -> Result<(Box<dyn Device>, Vec<String>), SpecError> {
    let err = |reason: String| SpecError { spec: spec.to_string(), reason };
    let (count, member) =
        rest.split_once(':').ok_or_else(|| err("expected volume:N:SPEC, for example volume:3:hdd:sata7200".into()))?;
    let count: u32 = count
        .parse()
        .ok()
        .filter(|n| (1..=64).contains(n))
        .ok_or_else(|| err(format!("volume: '{count}' members; expected a number from 1 to 64")))?;
    if member.starts_with("volume:") {
        return Err(err("a volume's members cannot be volumes".into()));
    }
    let mut members = Vec::new();
    let mut warnings = Vec::new();
    for _ in 0..count {
        let (device, w) = load_spec(member)?;
        if warnings.is_empty() {
            warnings = w;
        }
        members.push(device);
    }
    Ok((Box::new(crate::volume::Volume::new(members).map_err(err)?), warnings))
}

/// Build the device a spec names, dropping warnings (tests and callers that print none).
pub fn parse_spec(spec: &str) -> Result<Box<dyn Device>, SpecError> {
    load_spec(spec).map(|(device, _)| device)
}

/// An integer setting within `min..=max`.
pub(crate) fn int_in(key: &str, value: &str, min: u32, max: u32) -> Result<u32, String> {
    match value.parse::<u32>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!("{key}: expected an integer from {min} to {max}, found '{value}'")),
    }
}

pub(crate) fn queue_depth(value: &str) -> Result<u32, String> {
    int_in("queue_depth", value, 1, 65536)
}

/// A setting that names one of `options`.
pub(crate) fn choice<T: Copy>(key: &str, value: &str, options: &[(&str, T)]) -> Result<T, String> {
    options.iter().find(|(name, _)| *name == value).map(|(_, v)| *v).ok_or_else(|| {
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        format!("{key}: expected {}, found '{value}'", names.join(" or "))
    })
}

/// The name `options` gives `value`.
pub(crate) fn name_of<T: PartialEq>(options: &[(&'static str, T)], value: &T) -> &'static str {
    options.iter().find(|(_, v)| v == value).map_or("?", |(n, _)| *n)
}

/// The `simple` device's parameters from its `key=value` settings.
fn simple_params(pairs: &[(&str, &str)]) -> Result<SimpleParams, String> {
    let mut params = SimpleParams::default();
    for &(key, value) in pairs {
        let number = |max: f64| -> Result<f64, String> {
            match value.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 && v <= max => Ok(v),
                _ => Err(format!("{key}: expected a number from 0 to {max}, found '{value}'")),
            }
        };
        match key {
            "latency_us" => params.latency_ns = (number(1e9)? * units::NS_PER_US as f64).round() as u64,
            "flush_us" => params.flush_latency_ns = (number(1e9)? * units::NS_PER_US as f64).round() as u64,
            "bandwidth_mb_per_s" => {
                let v = number(1e9)?;
                if v * 1e6 < 1.0 {
                    return Err(format!("{key}: expected a rate of at least 1 byte/s, found '{value}'"));
                }
                params.bandwidth_bytes_per_s = (v * 1e6).round() as u64;
            }
            "queue_depth" => params.queue_depth = queue_depth(value)?,
            "capacity_gib" => {
                let v = number(1e6)?;
                if v == 0.0 {
                    return Err(format!("{key}: expected a size above 0, found '{value}'"));
                }
                params.capacity_bytes = (v * units::GIB as f64) as u64;
            }
            _ => {
                let known: Vec<&str> = SIMPLE_KEYS.iter().map(|(k, _)| *k).collect();
                let hint = did_you_mean(key, known.iter().copied());
                return Err(format!("unknown key '{key}' for simple{hint} (keys: {})", known.join(", ")));
            }
        }
    }
    Ok(params)
}

/// The values a switch takes.
pub(crate) const ON_OFF: &[(&str, bool)] = &[("1", true), ("0", false), ("on", true), ("off", false)];

/// Apply a hard disk's `key=value` settings (those of `hdd:` and `disksim:` specs) to its parameters:
/// queue_depth; write_cache (on: a write completes when its data is in the drive's buffer, as SATA drives ship;
/// off: when it is on the media, as SCSI drives often ship and as `sdparm --clear WCE` or `hdparm -W0` leave a
/// drive); conform; one key per refinement. Each is added to the model's name, so reports say it.
pub fn apply_hdd_keys(params: &mut HddParams, pairs: &[(&str, &str)]) -> Result<(), String> {
    for &(key, value) in pairs {
        match key {
            "queue_depth" => params.queue_depth = queue_depth(value)?,
            "write_cache" => {
                let on = choice(key, value, ON_OFF)?;
                if on && !params.cache.enabled {
                    return Err("write_cache=on: this drive has no cache to write into (its model disables it)".into());
                }
                params.cache.fast_write_level = if on { 2 } else { 0 };
            }
            "conform" => {
                params.refinements =
                    choice(key, value, &[("disksim", Refinements::DISKSIM), ("refined", Refinements::REFINED)])?
            }
            other => {
                let on = choice(other, value, ON_OFF);
                if !params.refinements.set(other, on.clone().unwrap_or(false)) {
                    let refinements: Vec<&str> = Refinements::KEYS.iter().map(|(k, _)| *k).collect();
                    let hint = did_you_mean(
                        other,
                        ["queue_depth", "write_cache", "conform"].into_iter().chain(refinements.iter().copied()),
                    );
                    return Err(format!(
                        "unknown key '{other}' for a hard disk{hint} (keys: queue_depth, write_cache=on|off, \
                         conform=disksim|refined, {})",
                        refinements.join(", ")
                    ));
                }
                on?;
            }
        }
        params.name = format!("{},{key}={value}", params.name);
    }
    Ok(())
}

/// Set the keys of a `disksim:` spec: a disk's (see [`apply_hdd_keys`]), or the simple disk's.
pub fn apply_disksim_keys(drive: &mut Drive, pairs: &[(&str, &str)]) -> Result<(), String> {
    match drive {
        Drive::Disk(params) => apply_hdd_keys(params, pairs),
        Drive::Simple(params) => apply_simpledisk_keys(params, pairs),
    }
}

/// Set the keys of a `disksim:` spec whose file describes DiskSim's fixed-access-time disk: only `queue_depth`
/// means anything there.
fn apply_simpledisk_keys(params: &mut SimpleDiskParams, pairs: &[(&str, &str)]) -> Result<(), String> {
    for &(key, value) in pairs {
        match key {
            "queue_depth" => params.queue_depth = queue_depth(value)?,
            other => {
                return Err(format!(
                    "unknown key '{other}' for DiskSim's fixed-access-time disk (disksim_simpledisk): its only key \
                     is queue_depth"
                ))
            }
        }
        params.name = format!("{},{key}={value}", params.name);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_with_keys_describes_itself() {
        let dev = parse_spec("simple,latency_us=50,queue_depth=1").unwrap();
        assert_eq!(dev.queue_depth(), 1);
        assert!(dev.describe().contains("latency_us=50"), "{}", dev.describe());
        // The description is itself a valid spec that builds the same device.
        assert_eq!(parse_spec(&dev.describe()).unwrap().describe(), dev.describe());
    }

    /// How long one 8 KiB write at the middle of an idle disk takes to complete.
    fn one_write_ns(spec: &str) -> u64 {
        use iosched_core::request::{Op, Request};
        let mut dev = parse_spec(spec).unwrap();
        let req = Request::new(1, Op::Write, dev.capacity_bytes() / 2, 8192, 0);
        dev.submit(0, 7, &req);
        let mut done = Vec::new();
        let mut now_ns = 0;
        while done.is_empty() {
            now_ns = dev.next_event_ns().expect("the write completes");
            dev.advance(now_ns, &mut done);
        }
        assert_eq!(done[0].tag, 7);
        now_ns
    }

    #[test]
    fn write_cache_off_makes_a_write_wait_for_the_media() {
        // With the cache on (the preset's default), a write completes once its 16 sectors are in the buffer;
        // off, after the seek and rotation to its sectors (sata7200: 8.9 ms average seek, 4.2 ms rotation).
        let cached = one_write_ns("hdd:sata7200");
        let through = one_write_ns("hdd:sata7200,write_cache=off");
        assert!(cached < 1_000_000, "cached write took {cached} ns");
        assert!(through > 2_000_000, "write-through took {through} ns");
        assert_eq!(one_write_ns("hdd:sata7200,write_cache=on"), cached);
        assert!(parse_spec("hdd:sata7200,write_cache=off").unwrap().describe().contains("write_cache=off"));
        let err = parse_spec("hdd:sata7200,write_cache=maybe").err().unwrap().to_string();
        assert!(err.contains("write_cache"), "{err}");
        // A drive whose model has no cache cannot take one by a key: said, not ignored.
        let mut cacheless = crate::hdd::preset::load("sata7200").unwrap();
        cacheless.cache.enabled = false;
        let err = apply_hdd_keys(&mut cacheless, &[("write_cache", "on")]).unwrap_err();
        assert!(err.contains("no cache"), "{err}");
        assert!(apply_hdd_keys(&mut cacheless, &[("write_cache", "off")]).is_ok());
    }

    #[test]
    fn errors_name_what_is_wrong() {
        let cases = [
            ("simple,latency=5", "unknown key 'latency'"),
            ("simple,queue_depth=0", "queue_depth: expected an integer"),
            ("simple,latency_us", "expected key=value"),
            ("simple,bandwidth_mb_per_s=0", "at least 1 byte/s"),
            ("simple,bandwidth_mb_per_s=0.0000001", "at least 1 byte/s"),
            ("flash", "unknown device kind 'flash'"),
            ("", "empty spec"),
        ];
        for (spec, want) in cases {
            let got = parse_spec(spec).err().unwrap().to_string();
            assert!(got.contains(want), "{spec}: {got}");
        }
    }
}
