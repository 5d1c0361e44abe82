//! MQSim's device file (`ssdconfig.xml`, an `Execution_Parameter_Set`) read unchanged into an SSD model:
//! `--device mqsim:FILE.xml[,Tag=value...][,conform=mqsim|refined]`, where any of MQSim's tags can be set after
//! the file name.
//!
//! How MQSim's drive maps onto iosched's (what MQSim's code does, which is the reference; see
//! ../shared/peers/mqsim/src):
//! - A unit of flash parallelism in iosched (a "die") is one MQSim *chip*: MQSim's transaction scheduler sends a
//!   chip one command at a time, and its counters show no die-interleaved commands under the shipped workloads
//!   (`Issued_Flash_Interleaved_*_CMD` = 0; its TSU tries only the die of the transaction at the head of the
//!   queue), so a chip's dies add capacity, not concurrency. Planes: pages stripe over the chip's dies and
//!   planes after the channels and chips (CWDP), each plane has its own write frontier, and one program takes
//!   pages of one die's different planes when they fall on the same page of their blocks, as MQSim's
//!   multi-plane commands do (about 1 % of programs under random writes, 12 % on the tpcc trace).
//! - Pages are MQSim's `Page_Capacity`, mapped statically to dies channel first (MQSim's CWDP allocation).
//! - Logical capacity is the physical pages times (1 - `Overprovisioning_Ratio`), as MQSim's address mapping
//!   unit computes it; cleaning starts on a plane when its free blocks fall under `GC_Exec_Threshold` of its
//!   blocks (see Cleaning below).
//! - Page read and program latencies are the mean over the page types the technology has (LSB/MSB for MLC,
//!   plus CSB for TLC): iosched does not yet tell page types apart, and says so when they differ.
//! - The data cache, as MQSim's write cache uses it ([`super::write_cache`]): `Data_Cache_Capacity` of pages,
//!   cold writes written back at once, hot ones kept, at most one page per plane of write-back in flight (its
//!   back-pressure depth), on one DRAM channel timed by the `Data_Cache_DRAM_*` settings.
//! - The mapping cache (CMT): `CMT_Capacity` / MQSim's entry size entries; a miss reads the translation page
//!   (one sector over the channel) before the access, and evicting a changed entry programs its translation
//!   page with every changed entry of it. `Ideal_Mapping_Table=true` keeps the whole table in DRAM.
//! - Preconditioning: with `Enabled_Preconditioning=false` (as shipped) MQSim writes nothing before a scenario:
//!   a page is mapped when it is first written or read, a read of a page never written taking a page at its
//!   plane's write frontier, unprogrammed, and reading flash there (online_create_entry_for_reads), a changed
//!   mapping entry to write back later; its mapping table is on flash from the start. iosched does the same
//!   with `conform=mqsim`, so a small drive fills only with what the run writes and reads (test
//!   `without_preconditioning_a_small_drive_holds_only_what_the_run_writes_as_mqsims_does`); with
//!   `conform=refined` it writes each flow's `Initial_Occupancy_Percentage` of its range first (the data the
//!   workload says is there), and reads of it cost what MQSim's first reads cost.
//!   With `Enabled_Preconditioning=true` MQSim lays the occupied pages out in a steady state, nearly every block
//!   written and holding a mix of valid and stale pages, so cleaning starts with the first writes. With
//!   `conform=mqsim` iosched lays them out as MQSim's code computes it ([`super::ftl::mqsim_layout`]): as many
//!   pages as MQSim occupies (a uniform flow whose working set is short of 1.1 times its occupancy takes 90 %
//!   of its range), the mean-field distribution of valid pages per block (Van Houdt, SIGMETRICS 2013, with
//!   RGA's candidate count, 30 for greedy), shifted to each plane's pages and placed block by block as MQSim
//!   places them (test `a_plane_is_laid_out_as_mqsims_preconditioning_lays_it_out`), in MQSim's block numbers
//!   (its frontiers take blocks 0-2 first, the layout fills 0, then 3 onwards; test
//!   `a_plane_numbers_its_blocks_as_mqsim_hands_them_out`); a streaming flow's blocks
//!   wholly valid or wholly stale. A uniform synthetic flow's occupied pages are MQSim's own: its preconditioning
//!   draws the flow's requests again from the flow's seeds until it holds enough pages (test
//!   `mqsims_preconditioning_occupies_the_pages_the_flows_first_requests_touch`); other flows' are picked
//!   uniformly by iosched's numbers. A trace flow is laid out as uniform traffic over its range (MQSim picks the
//!   trace's own addresses first). With `conform=refined` it gets there by writing: after the fill, uniformly
//!   random overwrites of twice each flow's occupied range (a streaming flow's: one sequential overwrite).
//! - Cleaning is per plane, as in MQSim's FTL: each plane is a pool of its own blocks with its own write
//!   frontiers, cleaning under MQSim's threshold (`GC_Exec_Threshold` of its blocks rounded down, at least the
//!   ten victims a plane may have under way), its victims drawn and its copies written within the plane. The
//!   policy is the file's: RGA is MQSim's (the fewest valid pages among log2(blocks per plane) blocks drawn at
//!   random; with `conform=mqsim` drawn from MQSim's own generator with its seed, 432, and its rules, test
//!   `mqsims_rga_takes_the_victim_mqsims_draws_give`), others greedy with a warning. With `conform=refined` a die cleans one victim before programming
//!   more whenever one of its planes is under the threshold, each victim's block free at once. With
//!   `conform=mqsim` cleaning follows MQSim's GC_and_WL_Unit_Page_Level and its transaction scheduler:
//!   - when it starts: a plane checks each time a write frontier fills and it takes the next (a write takes its
//!     page when the write is dispatched to the flash, a copy when its read is done), and under its threshold
//!     with fewer than ten victims under way takes one; a victim's block is free again only once erased, and a
//!     plane then short of ten free blocks checks again; user writes to a plane with fewer than ten free blocks
//!     wait for an erase there;
//!   - static wear-leveling, as MQSim's code runs it whatever the file says (its SSD_Device passes the device
//!     settings one argument early, so the GC unit keeps its defaults: static wear-leveling on, threshold 100,
//!     seed 432): after each erase, when the first block with the most erases is numbered 100 or more above
//!     the first with the fewest (MQSim compares block numbers, not erase counts), the plane's coldest block
//!     (the lowest-numbered never erased) is relocated and erased (83 times in MQSim and 84 in iosched on
//!     BENCHMARKS.md's 128 KiB preconditioned run);
//!   - how it runs (`Use_Copyback_for_GC=false`): each valid page is read out over the channel, then written
//!     back in; a die serves its cleaning reads, then writes, then erases before any user read or write (MQSim's
//!     cleaning is always urgent without `Preemptible_GC_Enabled`); and one command takes pages (or victims, for
//!     erases) of a die's other planes at the same page of their blocks, as MQSim's multi-plane commands do.
//!   - each copy is given its page of the cleaning block when its read is done (MQSim's
//!     Allocate_new_page_for_gc), so the plane's free blocks fall, and its cleaning frontier fills, as the
//!     copies run; a victim is taken only while the plane can hold its copies (MQSim takes it anyway and stops
//!     with an error when a copy finds no free block).
//!   - user reads and writes of the class whose turn it is join a cleaning command on the planes of its die it
//!     leaves free, at the same page, as MQSim's TSU fills a command from its second source queue.
//!   - approximated: a host write to a page whose copy has not been read makes the copy unnecessary (MQSim holds
//!     the write until the copy is done).
//!
//!   With the same requests (a synthetic flow draws MQSim's own random numbers,
//!   crates/iosched-workload/src/mqsim_random.rs), the preconditioned runs of BENCHMARKS.md ("Cleaning per
//!   plane ...") agree with MQSim within 8 % on mean response time, except where every request writes a page on
//!   every plane (1 MiB writes, BENCHMARKS.md "MQSim's cleaning victim by victim").
//! - Channels, as MQSim's flash interface and transaction scheduler arbitrate them (`conform=mqsim`): a chip gets
//!   a command only when its channel is idle, every waiting data-out going first (translation pages' before
//!   user data's), the channel's chips offered each idle moment round robin, and a command's own cycles
//!   (address, and for a program its data-in) taking the channel, at the times MQSim's ONFI NV-DDR2 channel
//!   computes from its default timings. So a chip that has sent its data waits while its channel's other chips
//!   send theirs, and large reads at depth reach about half the channels' rate (test
//!   `large_random_reads_at_depth_go_at_mqsims_pace`). `conform=refined` lets a die start its next operation
//!   while the channel moves others' data, as a controller that queues commands does.
//! - Translation write-back, as MQSim does it (`conform=mqsim`, the default for these files): MQSim's
//!   transaction schedulers (all three) queue the program of a written-back translation page but never issue
//!   it, so only the read that merges the page reaches flash, and the page then stays among its "departing"
//!   entries, served from DRAM for the rest of the run. `conform=refined` programs the page and lets it leave
//!   DRAM, as a drive must.
//! - The host link: `PCIe_Lane_Count` x `PCIe_Lane_Bandwidth` GB/s; NVMe queue of `IO_Queue_Depth`. iosched
//!   charges no firmware time per command (MQSim has none besides its PCIe messages).
//!   - approximated: iosched's link is one resource that both directions share, moving a command's data only.
//!     MQSim's PCIe_Link queues each direction apart, adds 28 bytes to every packet of up to 128 bytes of
//!     payload (PCIe_Link.h), and moves NVMe's queue entries and doorbells as messages of their own.

use super::ftl::mqsim_layout::MqsimLayout;
use super::ftl::GcPolicy;
use super::params::{ChannelCommandNs, FlashClasses, MqsimCleaning, PageTypes, Precondition, SsdParams, TrimMode};
use super::write_cache::WriteCacheParams;
use iosched_core::units;
use std::collections::BTreeMap;
use std::path::Path;

/// MQSim's sector: the unit of its addresses and of its back-pressure accounting.
pub const SECTOR_BYTES: u64 = 512;

/// The seed of MQSim's GC unit's generator: always its constructor's default. SSD_Device.cpp passes the
/// device file's `Seed` (post-incremented) one argument early, where GC_and_WL_Unit_Page_Level takes
/// dynamic_wearleveling_enabled, so the seed parameter keeps its default of 432 whatever the file says. Found
/// by matching the first candidates MQSim's RGA drew (a print in a local build) against this generator.
const MQSIM_GC_SEED: i32 = 432;

/// Cleaning operations MQSim lets a plane have under way (its SSD_Device.cpp passes 10); its cleaning threshold is
/// never lower.
const MQSIM_GC_UNDER_WAY_PER_PLANE: u32 = 10;

/// The channel time of a command's own cycles, as MQSim's ONFI NV-DDR2 channel computes it from its default
/// timings (ONFI_Channel_NVDDR2: t_CS 20, t_WC 25, t_WB 100, t_RR 20, t_ADL 70, t_WPST 6, t_WPSTH 15, t_CALS 15,
/// t_DBSY 500 ns; the device file does not set them): a one-plane read t_CS + 6 t_WC + t_WB + t_RR, an erase
/// t_CS + 4 t_WC + t_WB, a one-plane program t_CS + 6 t_WC + t_ADL + t_WPST + t_WPSTH + t_WB, and each further
/// plane of a program 5 t_WC + t_ADL + t_WPST + t_CALS + t_WB + t_DBSY.
const ONFI_COMMANDS: ChannelCommandNs = ChannelCommandNs {
    read: 20 + 6 * 25 + 100 + 20,
    erase: 20 + 4 * 25 + 100,
    program: 20 + 6 * 25 + 70 + 6 + 15 + 100,
    program_extra_plane: 5 * 25 + 70 + 6 + 15 + 100 + 500,
};

/// A device file read: the drive, and what the model does not honour.
#[derive(Debug)]
pub struct MqsimDevice {
    pub params: SsdParams,
    pub warnings: Vec<String>,
    /// MQSim's logical sectors per plane: its sectors less over-provisioning, before flows share it.
    pub logical_sectors_per_plane: f64,
    pub planes: u64,
    /// A SATA host interface: one stream, so flows share every resource.
    pub sata: bool,
    /// With SATA, the host adapter's time to hand over each command and each completion (MQSim's
    /// SATA_Processing_Delay; [`crate::sata_hba`]).
    pub sata_processing_ns: u64,
}

/// A flow's flash resources: its channel, chip, die and plane ids (None: all of that kind).
pub type FlowResources = [Option<Vec<u32>>; 4];

impl MqsimDevice {
    /// The drive's channels, chips per channel, dies per chip and planes per die.
    pub fn counts(&self) -> [u32; 4] {
        let p = &self.params;
        [p.channels, p.dies_per_channel, p.plane_groups, p.program_pages]
    }

    /// Each flow's resource ids, every kind listed (a list not given: all), checked against the drive; SATA
    /// flows use every resource, as MQSim's SATA interface has one stream.
    pub fn resource_ids(&self, flows: &[FlowResources]) -> Result<Vec<[Vec<u32>; 4]>, String> {
        let counts = self.counts();
        let kinds = ["channel", "chip", "die", "plane"];
        flows
            .iter()
            .enumerate()
            .map(|(flow, r)| {
                let mut ids: [Vec<u32>; 4] = Default::default();
                for k in 0..4 {
                    ids[k] = match &r[k] {
                        Some(_) if self.sata => (0..counts[k]).collect(),
                        Some(list) => list.clone(),
                        None => (0..counts[k]).collect(),
                    };
                    if let Some(&bad) = ids[k].iter().find(|&&id| id >= counts[k]) {
                        return Err(format!(
                            "flow {flow}: {} id {bad}: the drive has {} {}s (0 to {})",
                            kinds[k],
                            counts[k],
                            kinds[k],
                            counts[k] - 1
                        ));
                    }
                }
                Ok(ids)
            })
            .collect()
    }

    /// The first and last logical sector of each flow, as MQSim's Logical_Address_Partitioning_Unit gives
    /// them: a flow's sectors are, over the planes it uses, each plane's logical sectors divided among the flows
    /// that use that plane, rounded down plane by plane, and the flows' ranges follow one another. With SATA too:
    /// SSD_Device.cpp partitions the space among all the flows (each on every plane), although the interface
    /// has one stream.
    pub fn flow_sector_ranges(&self, flows: &[FlowResources]) -> Result<Vec<(u64, u64)>, String> {
        let ids = self.resource_ids(flows)?;
        let counts = self.counts();
        let plane_index =
            |c: u32, w: u32, d: u32, p: u32| (((c * counts[1] + w) * counts[2] + d) * counts[3] + p) as usize;
        let mut users = vec![0u32; counts.iter().product::<u32>() as usize];
        let each = |ids: &[Vec<u32>; 4], f: &mut dyn FnMut(usize)| {
            for &c in &ids[0] {
                for &w in &ids[1] {
                    for &d in &ids[2] {
                        for &p in &ids[3] {
                            f(plane_index(c, w, d, p));
                        }
                    }
                }
            }
        };
        for flow in &ids {
            each(flow, &mut |i| users[i] += 1);
        }
        let mut first = 0;
        let mut ranges = Vec::new();
        for flow in &ids {
            let mut sectors = 0u64;
            each(flow, &mut |i| {
                sectors += (self.logical_sectors_per_plane / users[i] as f64) as u64;
            });
            ranges.push((first, first + sectors.max(1) - 1));
            first += sectors;
        }
        if ranges.is_empty() {
            let all = (self.logical_sectors_per_plane as u64 * self.planes).max(1);
            ranges.push((0, all - 1));
        }
        Ok(ranges)
    }
}

/// Every setting MQSim's parser reads, with whether iosched's model honours it.
const HONOURED: &[&str] = &[
    "PCIe_Lane_Bandwidth",
    "PCIe_Lane_Count",
    "SATA_Processing_Delay",
    "Seed",
    "Enabled_Preconditioning",
    "HostInterface_Type",
    "IO_Queue_Depth",
    "Queue_Fetch_Size",
    "Caching_Mechanism",
    "Data_Cache_Capacity",
    "Data_Cache_DRAM_Row_Size",
    "Data_Cache_DRAM_Data_Rate",
    "Data_Cache_DRAM_Data_Busrt_Size",
    "Data_Cache_DRAM_tRCD",
    "Data_Cache_DRAM_tCL",
    "Data_Cache_DRAM_tRP",
    "Data_Cache_Sharing_Mode",
    "CMT_Sharing_Mode",
    "Plane_Allocation_Scheme",
    "Transaction_Scheduling_Policy",
    "Address_Mapping",
    "Ideal_Mapping_Table",
    "CMT_Capacity",
    "Overprovisioning_Ratio",
    "GC_Exec_Threshold",
    "GC_Block_Selection_Policy",
    "Flash_Channel_Count",
    "Flash_Channel_Width",
    "Channel_Transfer_Rate",
    "Chip_No_Per_Channel",
    "Memory_Type",
    "Flash_Technology",
    "Page_Read_Latency_LSB",
    "Page_Read_Latency_CSB",
    "Page_Read_Latency_MSB",
    "Page_Program_Latency_LSB",
    "Page_Program_Latency_CSB",
    "Page_Program_Latency_MSB",
    "Block_Erase_Latency",
    "Die_No_Per_Chip",
    "Plane_No_Per_Die",
    "Block_No_Per_Plane",
    "Page_No_Per_Block",
    "Page_Capacity",
    "Use_Copyback_for_GC",
    "Preemptible_GC_Enabled",
];

/// Settings MQSim reads that change nothing in MQSim's own runs either, so none in iosched's (read, checked
/// where iosched reads them, and not warned about), as its code shows:
const WITHOUT_EFFECT_IN_MQSIM: &[&str] = &[
    // Its response-time log file only (IO_Flow_Base).
    "Enable_ResponseTime_Logging",
    "ResponseTime_Logging_Period_Length",
    // SSD_Device.cpp passes the GC unit its arguments one place early, so the unit keeps its own defaults
    // (dynamic wear-leveling on, static on with threshold 100), which conform=mqsim follows (module header).
    "Dynamic_Wearleveling_Enabled",
    "Static_Wearleveling_Enabled",
    "Static_Wearleveling_Threshold",
    // Suspension: both transaction schedulers' switch on the chip's status falls through, with no break, to
    // `default: return false`, so no read or write is ever issued to a programming or erasing chip and nothing
    // is suspended (TSU_OutofOrder.cpp, TSU_Priority_OutOfOrder.cpp).
    "CMD_Suspension_Support",
    "Preferred_suspend_erase_time_for_read",
    "Prefered_suspend_erase_time_for_read",
    "Preferred_suspend_erase_time_for_write",
    "Preferred_suspend_write_time_for_read",
    "Suspend_Erase_Time",
    "Suspend_Program_Time",
    // Sizes a statistics histogram (Stats.cpp) only.
    "Block_PE_Cycles_Limit",
    // Read and written back to its output, used nowhere else.
    "Page_Metadat_Capacity",
    // NV-DDR2 is the only protocol MQSim builds.
    "Flash_Comm_Protocol",
];

/// Settings MQSim acts on that iosched does not model, each named in a warning where it applies: the hard
/// cleaning threshold (with preemptible cleaning).
const NOT_MODELLED: &[&str] = &["GC_Hard_Threshold"];

/// One setting: its text and where it was given.
struct Setting {
    value: String,
    at: String,
}

struct Settings<'a> {
    file: &'a str,
    map: BTreeMap<String, Setting>,
}

impl Settings<'_> {
    fn get(&self, tag: &str) -> Result<&Setting, String> {
        self.map.get(tag).ok_or_else(|| format!("{}: no <{tag}> (MQSim's device files give it)", self.file))
    }

    fn bad(&self, tag: &str, expected: &str) -> String {
        let s = &self.map[tag];
        format!("{}: <{tag}>: expected {expected}, found '{}'", s.at, s.value)
    }

    fn number(&self, tag: &str, min: f64, max: f64) -> Result<f64, String> {
        let s = self.get(tag)?;
        match s.value.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v >= min && v <= max => Ok(v),
            _ => Err(self.bad(tag, &format!("a number from {min} to {max}"))),
        }
    }

    fn int(&self, tag: &str, min: u64, max: u64) -> Result<u64, String> {
        let s = self.get(tag)?;
        match s.value.trim().parse::<u64>() {
            Ok(v) if v >= min && v <= max => Ok(v),
            _ => Err(self.bad(tag, &format!("an integer from {min} to {max}"))),
        }
    }

    fn word(&self, tag: &str, options: &[&str]) -> Result<String, String> {
        let v = self.get(tag)?.value.trim().to_ascii_uppercase();
        if options.contains(&v.as_str()) {
            Ok(v)
        } else {
            Err(self.bad(tag, &format!("one of {}", options.join(", "))))
        }
    }

    fn flag(&self, tag: &str) -> Result<bool, String> {
        match self.get(tag)?.value.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.bad(tag, "true or false")),
        }
    }

    /// A setting that MQSim would default when absent.
    fn or<T>(&self, tag: &str, default: T, read: impl FnOnce(&Self) -> Result<T, String>) -> Result<T, String> {
        if self.map.contains_key(tag) {
            read(self)
        } else {
            Ok(default)
        }
    }
}

/// Read `path` and apply `overrides` (MQSim tags with values, as the spec gives them).
pub fn load(path: &Path, overrides: &[(&str, &str)]) -> Result<MqsimDevice, String> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read MQSim device file {file}: {e}"))?;
    parse(&text, &file, overrides)
}

/// Parse a device file's text; `file` names it in errors.
pub fn parse(text: &str, file: &str, overrides: &[(&str, &str)]) -> Result<MqsimDevice, String> {
    let doc = roxmltree::Document::parse(text).map_err(|e| format!("{file}: not XML: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "Execution_Parameter_Set" {
        let line = doc.text_pos_at(root.range().start).row;
        return Err(format!(
            "{file}:{line}: expected MQSim's <Execution_Parameter_Set> (a device file such as ssdconfig.xml), found <{}>",
            root.tag_name().name()
        ));
    }
    let mut settings = Settings { file, map: BTreeMap::new() };
    let mut unknown = Vec::new();
    let mut collect = |node: roxmltree::Node| {
        for child in node.children().filter(|n| n.is_element()) {
            let name = child.tag_name().name().to_string();
            if name == "Flash_Parameter_Set" {
                continue;
            }
            let line = doc.text_pos_at(child.range().start).row;
            if ![HONOURED, NOT_MODELLED, WITHOUT_EFFECT_IN_MQSIM].iter().any(|list| list.contains(&name.as_str())) {
                unknown.push(format!("<{name}> (line {line})"));
            }
            let value = child.text().unwrap_or("").trim().to_string();
            settings.map.insert(name, Setting { value, at: format!("{file}:{line}") });
        }
    };
    for section in root.children().filter(|n| n.is_element()) {
        match section.tag_name().name() {
            "Host_Parameter_Set" => collect(section),
            "Device_Parameter_Set" => {
                collect(section);
                for flash in section.children().filter(|n| n.has_tag_name("Flash_Parameter_Set")) {
                    collect(flash);
                }
            }
            other => {
                let line = doc.text_pos_at(section.range().start).row;
                return Err(format!(
                    "{file}:{line}: unexpected <{other}> (expected Host_Parameter_Set or Device_Parameter_Set)"
                ));
            }
        }
    }
    let mut hold_written_back = true;
    for &(tag, value) in overrides {
        if tag == "conform" {
            hold_written_back = match value {
                "mqsim" => true,
                "refined" => false,
                _ => return Err(format!("conform: expected mqsim or refined, found '{value}'")),
            };
            continue;
        }
        if ![HONOURED, NOT_MODELLED, WITHOUT_EFFECT_IN_MQSIM].iter().any(|list| list.contains(&tag)) {
            return Err(format!("unknown MQSim setting '{tag}' (settings iosched models: {})", HONOURED.join(", ")));
        }
        settings.map.insert(tag.to_string(), Setting { value: value.to_string(), at: format!("the spec's {tag}") });
    }
    let mut warnings = Vec::new();
    if !unknown.is_empty() {
        warnings.push(format!("{file}: MQSim does not read {} (ignored here too)", unknown.join(", ")));
    }
    let (mut params, logical_sectors_per_plane) = build(&settings, &mut warnings)?;
    // The spec that builds this drive again: the file and the settings given after it.
    params.preset = std::iter::once(format!("mqsim:{file}"))
        .chain(overrides.iter().map(|(k, v)| format!("{k}={v}")))
        .collect::<Vec<_>>()
        .join(",");
    params.mapping_writeback_held = hold_written_back;
    // MQSim's SHARED mode gives each flow a table of the whole size (conform=mqsim follows it; the refined
    // model shares one); EQUAL_PARTITIONING gives each flow its share in both.
    params.mapping_cache_per_flow = hold_written_back || params.mapping_cache_divided;
    // MQSim without preconditioning maps a page on its first read (a change to write back); iosched's drive
    // holds the data already, but follows MQSim's bookkeeping unless asked for the refined model.
    let preconditioning = settings.or("Enabled_Preconditioning", true, |s| s.flag("Enabled_Preconditioning"))?;
    params.maps_on_first_read = hold_written_back && !preconditioning;
    params.age_occupied = preconditioning;
    params.channel_commands = hold_written_back.then_some(ONFI_COMMANDS);
    // conform=mqsim: MQSim's cleaning (GC_and_WL_Unit_Page_Level, its TSUs): without copyback each valid page is
    // a read out over the channel and a write back in; without preemptible GC its cleaning is always urgent, so a
    // chip with cleaning queued serves its cleaning reads, writes and erase before user reads and writes.
    let copyback = settings.or("Use_Copyback_for_GC", false, |s| s.flag("Use_Copyback_for_GC"))?;
    let preemptible = settings.or("Preemptible_GC_Enabled", false, |s| s.flag("Preemptible_GC_Enabled"))?;
    params.gc_copies_over_channel = hold_written_back && !copyback;
    params.mqsim_cleaning = hold_written_back
        .then_some(MqsimCleaning { victims_under_way: MQSIM_GC_UNDER_WAY_PER_PLANE, rga_seed: MQSIM_GC_SEED });
    params.cleaning_before_reads = hold_written_back && !preemptible;
    // conform=mqsim: MQSim's preconditioning layout (the refined model ages the drive by writing).
    if !(hold_written_back && preconditioning) {
        params.mqsim_layout = None;
    }
    if hold_written_back && preemptible {
        warnings.push(format!(
            "{file}: Preemptible_GC_Enabled=true is modelled as cleaning that waits for user reads throughout \
             (MQSim makes it urgent again when a plane's free blocks fall under GC_Hard_Threshold)"
        ));
    }
    let planes = params.dies() as u64 * params.plane_groups as u64 * params.program_pages as u64;
    let sata = settings
        .or("HostInterface_Type", "NVME".to_string(), |s| s.word("HostInterface_Type", &["NVME", "SATA"]))?
        == "SATA";
    // MQSim's Host_Parameter_Set leaves the delay 0 when the file does not give it.
    let sata_processing_ns = if sata {
        settings.or("SATA_Processing_Delay", 0, |s| s.int("SATA_Processing_Delay", 0, 1 << 40))?
    } else {
        0
    };
    if sata {
        // SATA has one stream (Host_Interface_SATA's SATA_STREAM_ID): every flow's transactions are stream 0's,
        // with no priority class, which TSU_Priority_OutOfOrder queues as HIGH; and SSD_Device.cpp builds the
        // address mapping for one stream, so one mapping table, whole (EQUAL_PARTITIONING divides it by one).
        params.flash_classes = FlashClasses::InOrder;
        params.mapping_cache_per_flow = false;
        params.mapping_cache_divided = false;
    }
    Ok(MqsimDevice { params, warnings, logical_sectors_per_plane, planes, sata, sata_processing_ns })
}

/// The drive, and MQSim's logical sectors per plane.
fn build(s: &Settings, warnings: &mut Vec<String>) -> Result<(SsdParams, f64), String> {
    s.word("Memory_Type", &["FLASH"])?;
    s.or("Address_Mapping", "PAGE_LEVEL".to_string(), |s| s.word("Address_Mapping", &["PAGE_LEVEL"]))?;
    let channels = s.int("Flash_Channel_Count", 1, 1024)? as u32;
    let chips = s.int("Chip_No_Per_Channel", 1, 1024)? as u32;
    let dies_per_chip = s.int("Die_No_Per_Chip", 1, 64)? as u32;
    let planes = s.int("Plane_No_Per_Die", 1, 64)? as u32;
    let blocks_per_plane = s.int("Block_No_Per_Plane", 1, 1 << 20)? as u32;
    let pages_per_block = s.int("Page_No_Per_Block", 2, 1 << 16)? as u32;
    let page_bytes = s.int("Page_Capacity", SECTOR_BYTES, 1 << 20)?;
    if page_bytes % SECTOR_BYTES != 0 {
        return Err(s.bad("Page_Capacity", "a multiple of 512 bytes"));
    }
    let technology = s.word("Flash_Technology", &["SLC", "MLC", "TLC"])?;
    let types: &[&str] = match technology.as_str() {
        "SLC" => &["LSB"],
        "MLC" => &["LSB", "MSB"],
        _ => &["LSB", "CSB", "MSB"],
    };
    // Each page type's latency (MQSim truncates them to integer ns), and their mean for translation pages.
    let by_type = |what: &str| -> Result<[u64; 3], String> {
        let mut ns = [0; 3];
        for (i, t) in types.iter().enumerate() {
            ns[i] = s.number(&format!("Page_{what}_Latency_{t}"), 1.0, 1e10)? as u64;
        }
        Ok(ns)
    };
    let (read_by_type, program_by_type) = (by_type("Read")?, by_type("Program")?);
    let mean = |ns: &[u64; 3]| (ns[..types.len()].iter().sum::<u64>() as f64 / types.len() as f64).round() as u64;
    let (read_ns, program_ns) = (mean(&read_by_type), mean(&program_by_type));
    let uniform = |ns: &[u64; 3]| ns[..types.len()].iter().all(|&v| v == ns[0]);
    let page_types = (!(uniform(&read_by_type) && uniform(&program_by_type))).then_some(PageTypes {
        bits_per_cell: types.len() as u32,
        read_ns: read_by_type,
        program_ns: program_by_type,
    });
    let erase_ns = s.number("Block_Erase_Latency", 1.0, 1e11)? as u64;
    let width_bytes = s.int("Flash_Channel_Width", 1, 64)?;
    let transfer_mt_per_s = s.number("Channel_Transfer_Rate", 1.0, 1e6)?;
    let lane_gb_per_s = s.number("PCIe_Lane_Bandwidth", 0.001, 1000.0)?;
    let lanes = s.int("PCIe_Lane_Count", 1, 64)?;
    let host = s.or("HostInterface_Type", "NVME".to_string(), |s| s.word("HostInterface_Type", &["NVME", "SATA"]))?;
    let queue_depth = s.int("IO_Queue_Depth", 1, 65535)? as u32;
    // The transaction scheduler (SSD_Device.cpp): TSU_Priority_OutOfOrder serves the flows' priority classes,
    // URGENT first, then HIGH, MEDIUM and LOW by weighted round robin (FlashClasses::WeightedRoundRobin);
    // TSU_OutofOrder ignores them. (FLIN is commented out of MQSim's SSD_Device.cpp.)
    let scheduling = s.or("Transaction_Scheduling_Policy", "OUT_OF_ORDER".to_string(), |s| {
        s.word("Transaction_Scheduling_Policy", &["OUT_OF_ORDER", "PRIORITY_OUT_OF_ORDER"])
    })?;
    // The static allocation's order of channels (C), chips (W), dies (D) and planes (P), the fastest first.
    let allocation_order = match s.map.get("Plane_Allocation_Scheme") {
        None => [0, 1, 2, 3],
        Some(set) => super::ftl::pool_map::PoolMap::order_of(set.value.trim()).ok_or_else(|| {
            s.bad("Plane_Allocation_Scheme", "one of the 24 orders of C, W, D and P (CWDP, PDWC, ...)")
        })?,
    };
    // NVMe: the host interface fetches a flow's commands while fewer than this many are in the drive
    // (Host_Interface_NVMe.cpp, Input_Stream_Manager_NVMe).
    let fetch_window = (host == "NVME")
        .then(|| s.or("Queue_Fetch_Size", queue_depth as u64, |s| s.int("Queue_Fetch_Size", 1, 65535)))
        .transpose()?
        .map(|w| w as u32);
    let op = s.number("Overprovisioning_Ratio", 0.0, 0.9)?;
    let gc_threshold = s.number("GC_Exec_Threshold", 0.0, 0.9)?;
    let gc = s.or("GC_Block_Selection_Policy", "GREEDY".to_string(), |s| {
        s.word("GC_Block_Selection_Policy", &["GREEDY", "RGA", "RANDOM", "RANDOM_P", "RANDOM_PP", "FIFO"])
    })?;
    if gc != "GREEDY" && gc != "RGA" {
        warnings
            .push(format!("{}: GC_Block_Selection_Policy {gc} is modelled as greedy (the fewest valid pages)", s.file));
    }
    let caching =
        s.or("Caching_Mechanism", "ADVANCED".to_string(), |s| s.word("Caching_Mechanism", &["SIMPLE", "ADVANCED"]))?;
    let _ = caching; // Both write back eagerly with the same back-pressure bound; see the module's notes.
    let cache_bytes = s.int("Data_Cache_Capacity", 0, 1 << 50)?;
    let ideal_mapping = s.or("Ideal_Mapping_Table", false, |s| s.flag("Ideal_Mapping_Table"))?;
    let cmt_bytes = s.int("CMT_Capacity", 0, 1 << 50)?;
    // How the data cache and the mapping cache are shared among a workload's flows
    // (Data_Cache_Manager_Flash_Advanced.cpp, Address_Mapping_Unit_Page_Level.cpp): EQUAL_PARTITIONING gives
    // each flow an equal share of its own.
    let sharing = ["SHARED", "EQUAL_PARTITIONING"];
    let cache_divided = s
        .or("Data_Cache_Sharing_Mode", "SHARED".to_string(), |s| s.word("Data_Cache_Sharing_Mode", &sharing))?
        == "EQUAL_PARTITIONING";
    let cmt_divided = s.or("CMT_Sharing_Mode", "SHARED".to_string(), |s| s.word("CMT_Sharing_Mode", &sharing))?
        == "EQUAL_PARTITIONING";
    let seed = s.or("Seed", 321, |s| s.int("Seed", 0, u32::MAX as u64))?;
    // The DRAM's timing, each read once: a bad value is an error, never a silent default.
    let dram_rate_mt = s.number("Data_Cache_DRAM_Data_Rate", 1.0, 1e6)?;
    let dram_row_bytes = s.int("Data_Cache_DRAM_Row_Size", 1, 1 << 30)?;
    let dram_burst_bytes = s.int("Data_Cache_DRAM_Data_Busrt_Size", 1, 1 << 20)?;
    let dram_trcd_ns = s.int("Data_Cache_DRAM_tRCD", 0, 1 << 30)?;
    let dram_tcl_ns = s.int("Data_Cache_DRAM_tCL", 0, 1 << 30)?;
    let dram_trp_ns = s.int("Data_Cache_DRAM_tRP", 0, 1 << 30)?;
    let cache_params = |total_planes: u64| WriteCacheParams {
        capacity_pages: (cache_bytes / page_bytes).max(1),
        backpressure_sectors: total_planes * (page_bytes / SECTOR_BYTES),
        window_ns: units::NS_PER_S,
        dram_row_bytes,
        dram_burst_bytes,
        dram_burst_ns: 1e3 / dram_rate_mt,
        dram_trcd_ns,
        dram_tcl_ns,
        dram_trp_ns,
    };

    // Under 2^32 (each count's range); the FTL numbers physical pages in 32 bits.
    let total_planes = channels as u64 * chips as u64 * dies_per_chip as u64 * planes as u64;
    let physical_pages = total_planes.saturating_mul(blocks_per_plane as u64).saturating_mul(pages_per_block as u64);
    if physical_pages >= u32::MAX as u64 {
        return Err(format!(
            "{}: {channels} channels x {chips} chips x {dies_per_chip} dies x {planes} planes x {blocks_per_plane} blocks              x {pages_per_block} pages is {physical_pages} pages; iosched's FTL holds fewer than 2^32",
            s.file
        ));
    }
    let sectors_per_page = page_bytes / SECTOR_BYTES;
    // MQSim's address mapping unit: a cached entry holds the LPA and PPA and a sector bitmap; a translation
    // page holds entries of a PPA and a bitmap.
    let address_bits = (physical_pages as f64).log2();
    let cmt_entry_bytes = ((2.0 * address_bits + sectors_per_page as f64) / 8.0).ceil() as u64;
    let gtd_entry_bytes = ((address_bits + sectors_per_page as f64) / 8.0).ceil() as u64;
    let logical_sectors_per_plane =
        blocks_per_plane as f64 * pages_per_block as f64 * sectors_per_page as f64 * (1.0 - op);
    let logical_pages_per_plane = logical_sectors_per_plane as u64 / sectors_per_page;
    // Under 2^32, as the pages are (above).
    let blocks_per_die = dies_per_chip * planes * blocks_per_plane;
    // MQSim's block_pool_gc_threshold: the share of a plane's blocks rounded down, at least 1 and at least the
    // cleaning operations a plane may have under way (10, fixed in its SSD_Device.cpp). Each plane is a pool of
    // its own (cleaning_per_plane) and cleans under it.
    let mqsim_gc_threshold = ((gc_threshold * blocks_per_plane as f64) as u32).max(1).max(MQSIM_GC_UNDER_WAY_PER_PLANE);
    let gc_free_blocks = mqsim_gc_threshold;
    // RGA draws log2 of a plane's blocks, rounded down (GC_and_WL_Unit_Page_Level's rga_set_size).
    let rga_candidates = (blocks_per_plane as f64).log2() as u32;
    // MQSim's mean-field model takes RGA's candidate count and 30 for greedy and FIFO; its other policies have
    // models of their own, not followed here (such a drive is aged by writing).
    let model_candidates = match gc.as_str() {
        "RGA" => Some(rga_candidates),
        "GREEDY" | "FIFO" => Some(30),
        _ => None,
    };
    let mqsim_layout = model_candidates.map(|candidates| MqsimLayout {
        blocks_per_plane,
        gc_threshold_blocks: mqsim_gc_threshold,
        candidates,
        sectors_per_page,
        overprovisioning_ratio: op,
        shared_planes: host != "SATA",
        flows: 1,
    });
    if gc_free_blocks + 2 >= blocks_per_plane {
        return Err(s.bad("GC_Exec_Threshold", "a threshold that leaves blocks to write into"));
    }
    let params = SsdParams {
        preset: format!("mqsim:{}", s.file),
        channels,
        dies_per_channel: chips,
        pages_per_block,
        page_bytes,
        program_pages: planes,
        plane_groups: dies_per_chip,
        read_ns,
        program_ns,
        erase_ns,
        page_types,
        channel_bytes_per_s: (transfer_mt_per_s * 1e6) as u64 * width_bytes,
        host_read_bytes_per_s: (lane_gb_per_s * 1e9) as u64 * lanes,
        host_write_bytes_per_s: (lane_gb_per_s * 1e9) as u64 * lanes,
        command_ns: 0,
        queue_depth,
        fetch_window_per_flow: fetch_window,
        flash_classes: match scheduling.as_str() {
            "PRIORITY_OUT_OF_ORDER" => FlashClasses::WeightedRoundRobin,
            _ => FlashClasses::InOrder,
        },
        // A stream per flow over NVMe, set once the workload's flows are known (spec.rs); SATA has one.
        write_streams: 1,
        allocation_order,
        pool_map: None,
        flow_first_lpns: Vec::new(),
        capacity_bytes: logical_pages_per_plane * total_planes * page_bytes,
        op: op / (1.0 - op).max(1e-9),
        gc_free_blocks,
        gc_policy: if gc == "RGA" { GcPolicy::Randomized { candidates: rga_candidates } } else { GcPolicy::Greedy },
        write_buffer_bytes: 0,
        trim: TrimMode::Queued,
        trim_drains_buffer: true,
        trim_ns: 20 * units::NS_PER_US,
        trim_ns_per_mib: 2 * units::NS_PER_US,
        precondition: Precondition::Fresh,
        seed,
        occupied_pages: Vec::new(),
        age_occupied: false,
        mqsim_layout,
        physical_blocks_per_die: Some(blocks_per_die),
        mapping_cache_parts: 1,
        mapping_cache_per_flow: false,
        mapping_cache_divided: cmt_divided,
        cmt_entries: if ideal_mapping { 0 } else { (cmt_bytes / cmt_entry_bytes).max(1) },
        translation_entries_per_page: (page_bytes / gtd_entry_bytes).max(1),
        mapping_read_bytes: SECTOR_BYTES,
        mapping_writeback_held: true,
        maps_on_first_read: false,
        channel_commands: None,
        gc_copies_over_channel: false,
        cleaning_before_reads: false,
        cleaning_per_plane: true,
        mqsim_cleaning: None,
        write_cache: (cache_bytes >= page_bytes).then(|| cache_params(total_planes)),
        write_cache_parts: 1,
        write_cache_per_flow: cache_divided,
    };
    params.ftl_geometry().check().map_err(|e| format!("{}: {e}", s.file))?;
    Ok((params, logical_sectors_per_plane))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHIPPED: &str = include_str!("../../tests/data/mqsim-ssdconfig.xml");

    #[test]
    fn the_shipped_file_gives_mqsims_drive() {
        let d = parse(SHIPPED, "ssdconfig.xml", &[]).unwrap();
        let p = &d.params;
        assert_eq!((p.channels, p.dies_per_channel, p.page_bytes, p.pages_per_block), (8, 4, 8192, 256));
        assert_eq!(p.physical_blocks_per_die, Some(2 * 2 * 2048));
        assert_eq!((p.read_ns, p.program_ns, p.erase_ns), (75_000, 750_000, 3_800_000));
        assert_eq!(p.channel_bytes_per_s, 333_000_000);
        assert_eq!(p.host_read_bytes_per_s, 4_000_000_000);
        // 512 GiB physical, 7 % of it spare.
        let physical = 128u64 * 2048 * 256 * 8192;
        assert!((p.capacity_bytes as f64 / physical as f64 - 0.93).abs() < 1e-3, "{}", p.capacity_bytes);
        let cache = p.write_cache.as_ref().expect("a write cache");
        assert_eq!(cache.backpressure_sectors, 128 * 16); // one page per plane of write-back in flight
        assert_eq!(cache.capacity_pages, 256 * 1024 * 1024 / 8192);
        // 2^26 pages: a cached entry is ceil((52 + 16) / 8) = 9 bytes.
        assert_eq!(p.cmt_entries, 2 * 1024 * 1024 / 9);
        assert_eq!(p.translation_entries_per_page, 8192 / 6);
        // Each plane a pool of its 2,048 blocks.
        assert!(p.cleaning_per_plane);
        assert_eq!((p.ftl_geometry().pools, p.ftl_geometry().blocks_per_pool), (32 * 4, 2048));
        assert_eq!(p.gc_free_blocks, 102); // 5 % of 2,048, rounded down as MQSim does
                                           // Every setting of the shipped file is modelled or changes nothing in MQSim either: no warning.
        assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    }

    #[test]
    fn bad_values_name_the_file_line_and_what_was_expected() {
        let bad = SHIPPED.replace("<Page_No_Per_Block>256<", "<Page_No_Per_Block>many<");
        let e = parse(&bad, "x.xml", &[]).unwrap_err();
        assert!(e.starts_with("x.xml:") && e.contains("Page_No_Per_Block") && e.contains("'many'"), "{e}");
        let line: usize = e.split(':').nth(1).unwrap().parse().unwrap();
        assert_eq!(bad.lines().nth(line - 1).map(|l| l.contains("Page_No_Per_Block")), Some(true), "{e}");
        let e = parse("<a>", "y.xml", &[]).unwrap_err();
        assert!(e.starts_with("y.xml: not XML"), "{e}");
        let e = parse(&SHIPPED.replace("MLC", "QLC"), "x.xml", &[]).unwrap_err();
        assert!(e.contains("Flash_Technology") && e.contains("SLC, MLC, TLC"), "{e}");
        let e = parse(SHIPPED, "x.xml", &[("Page_Capacit", "4096")]).unwrap_err();
        assert!(e.contains("unknown MQSim setting 'Page_Capacit'"), "{e}");
    }

    #[test]
    fn non_finite_negative_and_huge_numbers_are_refused_with_the_line() {
        for (tag, value) in [
            ("Overprovisioning_Ratio", "nan"),
            ("Overprovisioning_Ratio", "-0.1"),
            ("Page_Read_Latency_LSB", "inf"),
            ("Block_Erase_Latency", "-5"),
            ("PCIe_Lane_Bandwidth", "1e300"),
            ("Block_No_Per_Plane", "18446744073709551616"),
            ("Channel_Transfer_Rate", "0"),
            // Once replaced by a default without a word; now refused.
            ("Data_Cache_DRAM_Row_Size", "0"),
        ] {
            let open = format!("<{tag}>");
            let start = SHIPPED.find(&open).unwrap() + open.len();
            let end = start + SHIPPED[start..].find('<').unwrap();
            let bad = format!("{}{value}{}", &SHIPPED[..start], &SHIPPED[end..]);
            let e = parse(&bad, "x.xml", &[]).unwrap_err();
            assert!(e.starts_with("x.xml:") && e.contains(tag) && e.contains(value), "{tag}={value}: {e}");
        }
        // A geometry past what the FTL numbers is refused, not overflowed.
        let huge = SHIPPED.replace("<Block_No_Per_Plane>2048<", "<Block_No_Per_Plane>1048576<");
        let e = parse(&huge, "x.xml", &[]).unwrap_err();
        assert!(e.contains("fewer than 2^32"), "{e}");
    }

    #[test]
    fn settings_after_the_file_name_change_the_drive() {
        let d = parse(SHIPPED, "ssdconfig.xml", &[("Overprovisioning_Ratio", "0.25"), ("Ideal_Mapping_Table", "true")])
            .unwrap();
        let physical = 128u64 * 2048 * 256 * 8192;
        assert!((d.params.capacity_bytes as f64 / physical as f64 - 0.75).abs() < 1e-3);
        assert_eq!(d.params.cmt_entries, 0);
        // The drive describes itself as the spec that builds it again.
        assert_eq!(d.params.describe(), "mqsim:ssdconfig.xml,Overprovisioning_Ratio=0.25,Ideal_Mapping_Table=true");
    }

    #[test]
    fn the_fetch_window_is_read_for_nvme_only() {
        let d = parse(SHIPPED, "ssdconfig.xml", &[]).unwrap();
        assert_eq!((d.params.queue_depth, d.params.fetch_window_per_flow), (65535, Some(512)));
        let d = parse(SHIPPED, "ssdconfig.xml", &[("HostInterface_Type", "SATA")]).unwrap();
        assert_eq!(d.params.fetch_window_per_flow, None);
        let e = parse(SHIPPED, "x.xml", &[("Queue_Fetch_Size", "0")]).unwrap_err();
        assert!(e.contains("Queue_Fetch_Size") && e.contains("from 1"), "{e}");
    }

    #[test]
    fn a_sata_drive_has_one_stream_behind_its_host_adapter() {
        let nvme = parse(SHIPPED, "ssdconfig.xml", &[]).unwrap();
        assert_eq!(nvme.sata_processing_ns, 0);
        let d = parse(SHIPPED, "ssdconfig.xml", &[("HostInterface_Type", "SATA")]).unwrap();
        // The shipped file's SATA_Processing_Delay; MQSim's static default when a file leaves it out.
        assert_eq!(d.sata_processing_ns, 400_000);
        let text = SHIPPED.replace("<SATA_Processing_Delay>400000</SATA_Processing_Delay>", "");
        assert_eq!(parse(&text, "x.xml", &[("HostInterface_Type", "SATA")]).unwrap().sata_processing_ns, 0);
        // One stream: no priority classes, one whole mapping table, even when the file partitions it.
        let d = parse(
            SHIPPED,
            "ssdconfig.xml",
            &[("HostInterface_Type", "SATA"), ("CMT_Sharing_Mode", "EQUAL_PARTITIONING")],
        )
        .unwrap();
        assert!(
            d.params.flash_classes == FlashClasses::InOrder
                && !d.params.mapping_cache_per_flow
                && !d.params.mapping_cache_divided
        );
        assert!(nvme.params.flash_classes == FlashClasses::WeightedRoundRobin && nvme.params.mapping_cache_per_flow);
        // The flows' logical ranges are partitioned as with NVMe on every resource (SSD_Device.cpp passes every
        // flow to the partitioning unit), whatever resources the workload names.
        let all: FlowResources = Default::default();
        let channel0 = [Some(vec![0]), None, None, None];
        assert_eq!(
            d.flow_sector_ranges(&[channel0, all.clone()]).unwrap(),
            nvme.flow_sector_ranges(&[all.clone(), all]).unwrap()
        );
    }

    #[test]
    fn flows_on_part_of_the_flash_get_mqsims_share_of_the_logical_space() {
        let d = parse(SHIPPED, "ssdconfig.xml", &[]).unwrap();
        assert_eq!(d.params.allocation_order, [0, 1, 2, 3]);
        let all: FlowResources = Default::default();
        let per_plane = d.logical_sectors_per_plane;
        // Two flows on every plane: half of each plane each.
        let both = d.flow_sector_ranges(&[all.clone(), all.clone()]).unwrap();
        assert_eq!(both[0], (0, (per_plane / 2.0) as u64 * 128 - 1));
        // Two flows on channels 0-3 and 4-7: each a whole plane on its 64.
        let half = |ids: Vec<u32>| [Some(ids), None, None, None];
        let split = d.flow_sector_ranges(&[half(vec![0, 1, 2, 3]), half(vec![7, 6, 5, 4])]).unwrap();
        assert_eq!(split[0], (0, per_plane as u64 * 64 - 1));
        assert_eq!(split[1], (per_plane as u64 * 64, per_plane as u64 * 128 - 1));
        // One flow on chip 0 only beside one on everything: chip 0's 32 planes are halved between them.
        let one_chip = [None, Some(vec![0]), None, None];
        let r = d.flow_sector_ranges(&[one_chip, all]).unwrap();
        assert_eq!(r[0].1 + 1, (per_plane / 2.0) as u64 * 32);
        assert_eq!(r[1].1 - r[1].0 + 1, (per_plane / 2.0) as u64 * 32 + per_plane as u64 * 96);
        // Ids past the drive's are refused.
        let e = d.flow_sector_ranges(&[[Some(vec![8]), None, None, None]]).unwrap_err();
        assert!(e.contains("channel id 8") && e.contains("0 to 7"), "{e}");
        // MQSim's 24 allocation orders, and nothing else.
        let d = parse(SHIPPED, "ssdconfig.xml", &[("Plane_Allocation_Scheme", "pdwc")]).unwrap();
        assert_eq!(d.params.allocation_order, [3, 2, 1, 0]);
        let e = parse(SHIPPED, "x.xml", &[("Plane_Allocation_Scheme", "CWDX")]).unwrap_err();
        assert!(e.contains("Plane_Allocation_Scheme") && e.contains("24 orders"), "{e}");
    }

    #[test]
    fn sharing_modes_give_each_flow_a_share_of_the_caches() {
        // Shipped: SHARED, which MQSim gives each flow a mapping cache of the whole size (conform=mqsim).
        let d = parse(SHIPPED, "ssdconfig.xml", &[]).unwrap();
        assert!(d.params.mapping_cache_per_flow && !d.params.mapping_cache_divided);
        assert!(!d.params.write_cache_per_flow);
        let d = parse(
            SHIPPED,
            "ssdconfig.xml",
            &[("Data_Cache_Sharing_Mode", "equal_partitioning"), ("CMT_Sharing_Mode", "EQUAL_PARTITIONING")],
        )
        .unwrap();
        assert!(d.params.write_cache_per_flow && d.params.mapping_cache_divided && d.params.mapping_cache_per_flow);
        // Read and modelled: no longer named as without effect.
        assert!(!d.warnings.iter().any(|w| w.contains("Data_Cache_Sharing_Mode") || w.contains("CMT_Sharing_Mode")));
        // The refined model shares one mapping cache, unless the file partitions it.
        let d = parse(SHIPPED, "ssdconfig.xml", &[("conform", "refined")]).unwrap();
        assert!(!d.params.mapping_cache_per_flow);
        let d = parse(SHIPPED, "ssdconfig.xml", &[("conform", "refined"), ("CMT_Sharing_Mode", "EQUAL_PARTITIONING")])
            .unwrap();
        assert!(d.params.mapping_cache_per_flow && d.params.mapping_cache_divided);
        // MQSim's words only; its CMT enum's name EQUAL_SIZE_PARTITIONING is not one of them.
        let bad = SHIPPED.replace("<CMT_Sharing_Mode>SHARED<", "<CMT_Sharing_Mode>EQUAL_SIZE_PARTITIONING<");
        let e = parse(&bad, "x.xml", &[]).unwrap_err();
        assert!(e.starts_with("x.xml:") && e.contains("CMT_Sharing_Mode") && e.contains("EQUAL_PARTITIONING"), "{e}");
    }
}
