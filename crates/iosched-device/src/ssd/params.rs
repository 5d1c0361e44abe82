//! SSD parameters: geometry, flash timing, host interface, FTL settings; the built-in presets and the
//! `ssd:PRESET[,key=value...]` keys that change them.
//!
//! Modelling choices every preset shares (and that the docs repeat):
//! - A page is the unit of mapping and of reads (4 KiB here). A die programs up to `program_pages` pages at
//!   once in one tPROG: this stands for multi-plane and multi-page programming without modelling planes one
//!   by one (planes count only toward capacity).
//! - A write smaller than a page is charged as a whole-page program; the read of the old page that a real
//!   read-modify-write needs is not charged.
//! - Garbage-collection copies stay on their die (copyback: tR then tPROG per program unit, no channel time);
//!   an MQSim file under `conform=mqsim` moves them over the channel instead (`gc_copies_over_channel`).

use super::ftl::mqsim_layout::MqsimLayout;
use super::ftl::{FtlGeometry, GcPolicy};
use crate::spec::{choice, int_in, name_of, queue_depth, ON_OFF};
use iosched_core::units;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrimMode {
    /// NCQ / NVMe: the trim is one command among others.
    Queued,
    /// As the ATA driver of seed 002 issues them: the drive waits for its queue to drain, runs the trim, and
    /// takes no new command until it is done.
    NonQueued,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precondition {
    /// Empty: nothing mapped, every block free, no garbage collection until the drive fills.
    Fresh,
    /// A sequential fill of the whole logical space, then uniformly random page overwrites of twice the
    /// logical space: the steady state of a drive that has been in use.
    Steady,
}

/// How a workload's occupied range is aged before the run when the device ages it (MQSim's
/// `Enabled_Preconditioning`): brought to the steady state the flow's own writes would leave it in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aging {
    /// Uniformly random page overwrites within the range, twice its size: blocks left holding a greedy
    /// cleaner's steady-state mix of valid and stale pages (MQSim computes that mix from a mean-field model).
    Random,
    /// One sequential overwrite of the range: blocks either wholly valid or wholly stale, as MQSim's
    /// preconditioning leaves them for a streaming flow.
    Sequential,
}

/// A logical page range written before the run (a workload's occupancy, MQSim's Initial_Occupancy_Percentage),
/// and how it is aged when the drive ages what is written (`SsdParams::age_occupied`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Occupied {
    pub first_page: u64,
    pub pages: u64,
    pub aging: Aging,
    /// With MQSim's preconditioning layout (`SsdParams::mqsim_layout`): the pages it occupies instead, picked
    /// among the first `precondition_range_pages` from `first_page`.
    pub precondition_range_pages: u64,
    pub precondition_pages: u64,
    /// A flow whose occupied pages MQSim's layout draws with MQSim's own random numbers.
    pub mqsim_addresses: Option<super::ftl::mqsim_layout::MqsimFlowAddresses>,
    /// The flow's place among the workload's flows (its write stream in MQSim's layout).
    pub stream: u16,
}

/// How a die orders the user reads and programs of commands of different I/O priorities (the drive's own
/// scheduling; the host's scheduler is a policy above it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashClasses {
    /// Every user read and program in arrival order (MQSim's OUT_OF_ORDER scheduling, and its SATA interface).
    InOrder,
    /// Real-time commands' reads before the others, which go in arrival order, as do all programs (iosched's
    /// presets: a drive serves the commands of a real-time submission queue first; Linux does not weigh the
    /// others, and buffered writes are programmed later whatever their class).
    RealTimeFirst,
    /// Real-time first, then best-effort levels 0-3, 4-6 and 7 (and idle) by NVMe's weighted round robin, 4:2:1,
    /// as MQSim's PRIORITY_OUT_OF_ORDER scheduling serves its HIGH, MEDIUM and LOW flows (ssd/drive/
    /// priority_classes.rs).
    WeightedRoundRobin,
}

/// The channel time of a command's own cycles: a read's, an erase's and a one-plane program's command and
/// address cycles, and what each further plane of a multi-plane program adds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelCommandNs {
    pub read: u64,
    pub erase: u64,
    pub program: u64,
    pub program_extra_plane: u64,
}

/// When a plane cleans as MQSim's GC_and_WL_Unit_Page_Level has it. A plane under its threshold takes one victim
/// each time it opens a block (for host writes or for copies), while it has fewer than `victims_under_way`
/// victims not yet erased; a victim's block is free again only once erased, and a plane then short of
/// `victims_under_way` free blocks checks again; user writes to a plane with fewer than `victims_under_way` free
/// blocks wait for an erase there (Stop_servicing_writes). iosched's own rule (none of this): a die cleans one
/// victim at a time, before its next program, until its pools are back at their threshold, each victim's block
/// free at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MqsimCleaning {
    pub victims_under_way: u32,
    /// The seed of the generator RGA draws its candidates from (MQSim's GC unit's).
    pub rga_seed: i32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SsdParams {
    pub preset: String,
    pub channels: u32,
    pub dies_per_channel: u32,
    pub pages_per_block: u32,
    pub page_bytes: u64,
    /// Pages one program operation writes (multi-plane / multi-page programming).
    pub program_pages: u32,
    /// Planes whose write frontiers the drive tracks, per die (0: none; any `program_pages` buffered pages
    /// program together). With planes, a die's unit holds `plane_groups` groups (MQSim's dies in a chip) of
    /// `program_pages` planes, pages stripe over them after the dies, and one operation programs pages of one
    /// group's different planes only when they fall on the same page of their blocks (MQSim's multi-plane rule).
    pub plane_groups: u32,
    /// A page read's and a page program's flash time; with `page_types`, their mean over the page types, which
    /// translation pages are charged (where they live is not modelled).
    pub read_ns: u64,
    pub program_ns: u64,
    pub erase_ns: u64,
    /// Pages whose read and program times depend on their place in the block (multi-level cells: MQSim's
    /// Flash_Chip charges MLC and TLC pages by type); None: every page costs `read_ns` and `program_ns`.
    pub page_types: Option<PageTypes>,
    /// Flash channel (ONFI bus) rate, bytes per second.
    pub channel_bytes_per_s: u64,
    /// What the controller and host link move per second, per direction.
    pub host_read_bytes_per_s: u64,
    pub host_write_bytes_per_s: u64,
    /// Firmware time to take a command.
    pub command_ns: u64,
    pub queue_depth: u32,
    /// MQSim's Queue_Fetch_Size: the commands of a flow's submission queue the drive fetches and holds at once
    /// (the rest wait in the flow's queue, their time counted; other flows' commands do not wait for them).
    /// `queue_depth` is then each flow's submission queue (MQSim's IO_Queue_Depth), times the flows.
    pub fetch_window_per_flow: Option<u32>,
    /// How a die orders its user reads and programs by the commands' I/O priority.
    pub flash_classes: FlashClasses,
    /// Write streams the drive keeps apart: each has its own open block in every plane for its writes (and for
    /// the cleaning of its blocks), so the flows' pages do not mix in a block (MQSim's NVMe interface, a stream
    /// per flow: Flash_Block_Manager's Data_wf and GC_wf per stream; NVMe's streams directive). Flow `f` writes
    /// in stream `f % write_streams`; 1 mixes every write, as most drives do.
    pub write_streams: u16,
    /// The static allocation's order of channels, chips, dies and planes (0-3), the fastest-moving first
    /// (MQSim's Plane_Allocation_Scheme; [0, 1, 2, 3] is CWDP, `lpn % pools`).
    pub allocation_order: [usize; 4],
    /// Where logical pages go when not by `lpn % pools`: another allocation order, or a workload's flows each on
    /// part of the flash (built with the workload's flows known).
    pub pool_map: Option<super::ftl::pool_map::PoolMap>,
    /// The first logical page of each flow of the workload when their ranges are not equal parts (flows on
    /// different resources); empty: equal parts.
    pub flow_first_lpns: Vec<u64>,
    /// Logical capacity.
    pub capacity_bytes: u64,
    /// Over-provisioning: the spare the cleaning works with, as a share of the logical capacity; the drive has
    /// its cleaning reserve on top (see [`SsdParams::ftl_geometry`]).
    pub op: f64,
    /// A pool (a die, or a plane with `cleaning_per_plane`) cleans when its free blocks fall under this.
    pub gc_free_blocks: u32,
    pub gc_policy: GcPolicy,
    /// DRAM write buffer (0: a write completes when it is on flash). A write that does not fit in the room left
    /// takes its data as room frees, later writes waiting behind it.
    pub write_buffer_bytes: u64,
    pub trim: TrimMode,
    /// With [`TrimMode::NonQueued`]: the trim also waits for the write buffer to be on flash (true, the
    /// presets' assumption), or only for the commands at the drive (false). Which a drive does is its
    /// firmware's choice: ATA asks only that the host drain its queue before a non-queued command.
    /// Approximation: a page of the trimmed range still in the buffer is programmed after the trim and stays
    /// mapped (as with a queued trim); a drive would drop it, so cleaning here may copy a few pages more.
    pub trim_drains_buffer: bool,
    pub trim_ns: u64,
    pub trim_ns_per_mib: u64,
    pub precondition: Precondition,
    pub seed: u64,
    /// Logical page ranges written in order before the run, on top of `precondition`: a drive filled to a
    /// workload's occupancy (MQSim's Initial_Occupancy_Percentage).
    pub occupied_pages: Vec<Occupied>,
    /// Whether the occupied ranges are then aged to a steady state, each as its `aging` says (MQSim's
    /// Enabled_Preconditioning); otherwise they are as freshly written, every other block free.
    pub age_occupied: bool,
    /// With `age_occupied`: lay the occupied pages out as MQSim's preconditioning computes their steady state
    /// (ssd/ftl/mqsim_layout.rs, `conform=mqsim`) rather than aging them by writing.
    pub mqsim_layout: Option<MqsimLayout>,
    /// The physical blocks of a die when a device file gives the geometry (MQSim's files): then the logical
    /// capacity is what remains after over-provisioning, and `op` is not applied again.
    pub physical_blocks_per_die: Option<u32>,
    /// Mapping entries the controller's DRAM caches (MQSim's CMT); 0: the whole table is in DRAM. A lookup that
    /// misses reads the entry's translation page from flash first (`mapping_read_bytes` over the channel), and
    /// evicting a changed entry programs its translation page.
    pub cmt_entries: u64,
    /// Mapping caches of `cmt_entries` each, one per equal part of the logical space (1: one for the drive).
    /// MQSim gives each flow its own whole-size table (its SHARED mode declares the shared table inside the
    /// loop over flows), which `conform=mqsim` follows for the flows of a workload.
    pub mapping_cache_parts: u32,
    /// Whether a workload's flows each get a mapping cache (`mapping_cache_parts` = the number of flows), as
    /// MQSim's SHARED mode in effect gives them.
    pub mapping_cache_per_flow: bool,
    /// Whether the parts share `cmt_entries` between them (each holds its equal share, MQSim's
    /// `CMT_Sharing_Mode` EQUAL_PARTITIONING) rather than each holding them all.
    pub mapping_cache_divided: bool,
    /// Mapping entries one translation page holds.
    pub translation_entries_per_page: u64,
    pub mapping_read_bytes: u64,
    /// How a translation page written back behaves: `false`, it is read then programmed and leaves DRAM (what
    /// a drive does); `true`, as MQSim does: only its merge read reaches flash, and the page stays in DRAM.
    pub mapping_writeback_held: bool,
    /// MQSim's drive without preconditioning (`Enabled_Preconditioning=false`, `conform=mqsim`): nothing is
    /// written before the run (`occupied_pages` are not filled), and a read of a page never written maps it, to
    /// a page at its die's write frontier that is then read from flash, so the entry the read brings into the
    /// mapping cache is dirty, a change to write back.
    pub maps_on_first_read: bool,
    /// With a value: a die gets its next command only while its channel is idle, data waiting on the channel
    /// going first (translation pages' before user data's), the channel's dies offered each idle moment round
    /// robin, and each command's own cycles (these times) taking the channel, as MQSim's flash interface and
    /// transaction scheduler issue commands (`conform=mqsim`). None: a die starts its next operation at once
    /// (a controller that queues commands) and command cycles cost nothing.
    pub channel_commands: Option<ChannelCommandNs>,
    /// A cleaning copy reads its page out over the channel and writes it back in, one page per command (MQSim's
    /// GC with `Use_Copyback_for_GC=false`); otherwise copies stay inside the die (copyback), as many per program
    /// as a multi-plane program takes.
    pub gc_copies_over_channel: bool,
    /// While a die has cleaning to do, it serves no user read before it (MQSim's cleaning in its urgent mode, which
    /// `Preemptible_GC_Enabled=false` makes permanent); otherwise user reads go first and cleaning before programs.
    pub cleaning_before_reads: bool,
    /// Each plane keeps its own free blocks, write frontiers and cleaning (MQSim's FTL: a block pool per plane,
    /// cleaning triggered and its victims drawn per plane, copies staying in the plane); otherwise a die's
    /// planes are one pool. Needs planes (`plane_groups` > 0).
    pub cleaning_per_plane: bool,
    /// MQSim's cleaning lifecycle instead of iosched's (conform=mqsim, with `cleaning_per_plane`).
    pub mqsim_cleaning: Option<MqsimCleaning>,
    /// A DRAM data cache with hot/cold separation in place of the write buffer (MQSim's write cache).
    pub write_cache: Option<super::write_cache::WriteCacheParams>,
    /// Data caches, one per equal part of the logical space, each with its equal share of the capacity and a
    /// back-pressure bound of its own, sharing one DRAM channel (1: one for the drive). MQSim's
    /// `Data_Cache_Sharing_Mode` EQUAL_PARTITIONING gives each flow its own.
    pub write_cache_parts: u32,
    /// Whether a workload's flows each get a data cache (`write_cache_parts` = the number of flows).
    pub write_cache_per_flow: bool,
}

/// Read and program times by page type (LSB, CSB, MSB) of a multi-level-cell flash, and which type each page of
/// a block is, as MQSim's Flash_Chip::Get_command_execution_latency numbers them.
#[derive(Clone, Debug, PartialEq)]
pub struct PageTypes {
    /// 2 (MLC: LSB and MSB pages alternate) or 3 (TLC).
    pub bits_per_cell: u32,
    pub read_ns: [u64; 3],
    pub program_ns: [u64; 3],
}

impl PageTypes {
    /// The type (0 LSB, 1 CSB or MSB for MLC, 2 MSB) of the `page`th page of a block. MLC: even pages LSB, odd
    /// MSB. TLC: pages 0-5 LSB, 6-7 CSB, then pairs of pages LSB, CSB, MSB in turn (MQSim's order, after
    /// Yaakobi et al., "Characterization and Error-Correcting Codes for TLC Flash Memories", ICNC 2012).
    pub fn of_page(&self, page: u32) -> usize {
        match self.bits_per_cell {
            2 => (page % 2) as usize,
            _ if page <= 5 => 0,
            _ if page <= 7 => 1,
            _ => ((page - 8) / 2 % 3) as usize,
        }
    }
}

impl SsdParams {
    /// The flash time of reading the `page`th page of a block.
    pub fn read_ns_at(&self, page: u32) -> u64 {
        self.page_types.as_ref().map_or(self.read_ns, |t| t.read_ns[t.of_page(page)])
    }

    /// The flash time of programming the `page`th page of a block.
    pub fn program_ns_at(&self, page: u32) -> u64 {
        self.page_types.as_ref().map_or(self.program_ns, |t| t.program_ns[t.of_page(page)])
    }

    pub fn dies(&self) -> u32 {
        self.channels * self.dies_per_channel
    }

    /// The FTL's pools per die: its planes with `cleaning_per_plane`, else the die is one.
    pub fn pools_per_die(&self) -> u32 {
        if self.cleaning_per_plane {
            self.plane_groups * self.program_pages
        } else {
            1
        }
    }

    /// With planes (`plane_groups` > 0): the plane of its die that logical page `lpn` is written to, in MQSim's
    /// CWDP order (after the channels and chips, the chip's dies, that is plane groups, then their planes).
    pub fn plane_of(&self, lpn: u64) -> u32 {
        self.plane_of_stripe(lpn / self.dies() as u64)
    }

    /// The plane of the pages whose `lpn / dies` is `stripe` (planes numbered group by group; 0 without planes).
    pub fn plane_of_stripe(&self, stripe: u64) -> u32 {
        if self.plane_groups == 0 {
            return 0;
        }
        let (groups, per_group) = (self.plane_groups as u64, self.program_pages as u64);
        ((stripe % groups) * per_group + (stripe / groups) % per_group) as u32
    }

    /// The FTL's shape. `op` is the spare the cleaning works with: each die holds its share of the logical
    /// space, `op` times that share rounded to whole blocks, and on top of both the cleaning reserve, which a
    /// steady-state die never fills: the `gc_free_blocks` it keeps free and one more for the unwritten halves of
    /// its two open blocks (host and cleaning). So uniform random overwrites meet the write amplification the
    /// Lambert-W formula gives for `op` at any capacity large enough that a die's spare is not a block or two
    /// ([`SsdParams::op_warning`]). A device file's geometry (`physical_blocks_per_die`) is taken as it is,
    /// a die's blocks shared by its pools. With `cleaning_per_plane`, pool `lpn % pools` is one plane: the
    /// pool's die is `pool % dies` and every page of it is on the same plane ([`SsdParams::plane_of`]).
    pub fn ftl_geometry(&self) -> FtlGeometry {
        let logical_pages = self.capacity_bytes / self.page_bytes;
        if let Some(blocks_per_die) = self.physical_blocks_per_die {
            return FtlGeometry {
                pools: self.dies() * self.pools_per_die(),
                blocks_per_pool: blocks_per_die / self.pools_per_die(),
                pages_per_block: self.pages_per_block,
                logical_pages,
                gc_free_blocks: self.gc_free_blocks,
                gc_policy: self.gc_policy,
            };
        }
        let logical_blocks = self.logical_blocks_per_die();
        let spare = (logical_blocks as f64 * self.op).round() as u64;
        FtlGeometry {
            pools: self.dies(),
            blocks_per_pool: (logical_blocks + spare) as u32 + self.gc_free_blocks + 1,
            pages_per_block: self.pages_per_block,
            logical_pages,
            gc_free_blocks: self.gc_free_blocks,
            gc_policy: self.gc_policy,
        }
    }

    /// Blocks a die needs for its share of the logical space.
    fn logical_blocks_per_die(&self) -> u64 {
        (self.capacity_bytes / self.page_bytes).div_ceil(self.dies() as u64).div_ceil(self.pages_per_block as u64)
    }

    /// Why the drive, scaled this far down, cannot honour `op`: a die's spare is whole blocks, and when it is
    /// only a few the spare differs from `op` by more than a tenth (the write amplification by more still).
    pub fn op_warning(&self) -> Option<String> {
        if self.physical_blocks_per_die.is_some() {
            return None;
        }
        let logical_blocks = self.logical_blocks_per_die();
        let wanted = logical_blocks as f64 * self.op;
        let spare = wanted.round();
        let honoured = spare / logical_blocks as f64;
        ((spare - wanted).abs() > 0.1 * wanted).then(|| {
            format!(
                "ssd:{}: at capacity_gib={} a die holds {logical_blocks} blocks of data and {spare} spare, over-provisioning \
                 {honoured:.3} rather than op={}; a larger capacity (or op) honours it",
                self.preset,
                self.capacity_bytes as f64 / units::GIB as f64,
                self.op
            )
        })
    }

    /// The canonical spec: every setting a key can change, so that it builds the same drive again.
    pub fn describe(&self) -> String {
        if self.preset.starts_with("mqsim:") {
            return self.preset.clone(); // the file and its settings (its seed is its Seed tag)
        }
        format!(
            "ssd:{},capacity_gib={},op={},precondition={},queue_depth={},trim={},gc={},gc_free_blocks={},\
             write_buffer_mib={},seed={}",
            self.preset,
            self.capacity_bytes as f64 / units::GIB as f64,
            self.op,
            name_of(PRECONDITIONS, &self.precondition),
            self.queue_depth,
            name_of(TRIM_MODES, &self.trim),
            name_of(GC_POLICIES, &self.gc_policy),
            self.gc_free_blocks,
            self.write_buffer_bytes as f64 / units::MIB as f64,
            self.seed,
        )
    }
}

const PRECONDITIONS: &[(&str, Precondition)] = &[("fresh", Precondition::Fresh), ("steady", Precondition::Steady)];
const TRIM_MODES: &[(&str, TrimMode)] = &[("queued", TrimMode::Queued), ("nonqueued", TrimMode::NonQueued)];
const GC_POLICIES: &[(&str, GcPolicy)] = &[("greedy", GcPolicy::Greedy), ("cost_benefit", GcPolicy::CostBenefit)];

const US: u64 = units::NS_PER_US;

/// Close to MQSim's default SSD: 8 channels x 4 chips x 2 dies, 2 planes of 2048 blocks, 2 MiB blocks
/// (MQSim: 256 pages of 8 KiB; here 512 pages of 4 KiB), read 75 us, program 750 us, erase 3.8 ms, an ONFI
/// channel at 333 MT/s x 8 bits, 7 % over-provisioning (logical = MQSim's physical / 1.07), NVMe with a
/// queue of 1024 and PCIe 3.0 x4 (about 3.2 GB/s each way). MQSim programs a multi-plane page pair (16 KiB)
/// per tPROG: `program_pages` = 4. No DRAM write buffer in MQSim's default (it has a data cache; not modelled).
fn nvme() -> SsdParams {
    let physical_bytes = 64u64 * 2 * 2048 * 2 * units::MIB;
    SsdParams {
        preset: "nvme".into(),
        channels: 8,
        dies_per_channel: 8,
        pages_per_block: 512,
        page_bytes: 4096,
        program_pages: 4,
        plane_groups: 0,
        read_ns: 75 * US,
        program_ns: 750 * US,
        erase_ns: 3800 * US,
        page_types: None,
        channel_bytes_per_s: 333_000_000,
        host_read_bytes_per_s: 3_200_000_000,
        host_write_bytes_per_s: 3_200_000_000,
        command_ns: 5 * US,
        queue_depth: 1024,
        fetch_window_per_flow: None,
        flash_classes: FlashClasses::RealTimeFirst,
        write_streams: 1,
        allocation_order: [0, 1, 2, 3],
        pool_map: None,
        flow_first_lpns: Vec::new(),
        capacity_bytes: ((physical_bytes as f64 / 1.07) as u64) / units::GIB * units::GIB,
        op: 0.07,
        gc_free_blocks: 4,
        gc_policy: GcPolicy::Greedy,
        write_buffer_bytes: 0,
        trim: TrimMode::Queued,
        trim_drains_buffer: true,
        trim_ns: 20 * US,
        trim_ns_per_mib: 2 * US,
        precondition: Precondition::Fresh,
        seed: 1,
        occupied_pages: Vec::new(),
        age_occupied: false,
        mqsim_layout: None,
        physical_blocks_per_die: None,
        cmt_entries: 0,
        mapping_cache_parts: 1,
        mapping_cache_per_flow: false,
        mapping_cache_divided: false,
        translation_entries_per_page: 1024,
        mapping_read_bytes: 512,
        mapping_writeback_held: false,
        maps_on_first_read: false,
        channel_commands: None,
        gc_copies_over_channel: false,
        cleaning_before_reads: false,
        cleaning_per_plane: false,
        mqsim_cleaning: None,
        write_cache: None,
        write_cache_parts: 1,
        write_cache_per_flow: false,
    }
}

/// The drive of seed 002, from what the seed says about it: a SATA drive whose data sheet gives 300 MB/s
/// read and 400 MB/s write, 8 banks (here 4 channels x 2 dies), about 10 % over-provisioning, NCQ depth 32,
/// trims issued non-queued. Assumed, as for a 2014-class MLC drive: 16 KiB programmed per tPROG of 240 us
/// with the 4 KiB page transfers over a 200 MB/s channel (so the 8 dies sustain a little over 400 MB/s of
/// writes when fresh), tR 50 us, tBERS 3 ms, 1 MiB blocks, a 64 MiB DRAM write buffer, 10 us of firmware per
/// command, trims costing 2 ms plus 1 ms per MiB (the seed saw trims of up to 200 ms). The controller moves
/// host data at the data-sheet rates, which bind when the drive is fresh. The seed's drive holds over a
/// terabyte; the default here is 1 TiB, and experiments scale it down (`capacity_gib=`) to precondition fast.
fn netflix() -> SsdParams {
    SsdParams {
        preset: "netflix".into(),
        channels: 4,
        dies_per_channel: 2,
        pages_per_block: 256,
        page_bytes: 4096,
        program_pages: 4,
        plane_groups: 0,
        read_ns: 50 * US,
        program_ns: 240 * US,
        erase_ns: 3000 * US,
        page_types: None,
        channel_bytes_per_s: 200_000_000,
        host_read_bytes_per_s: 300_000_000,
        host_write_bytes_per_s: 400_000_000,
        command_ns: 10 * US,
        queue_depth: 32,
        fetch_window_per_flow: None,
        flash_classes: FlashClasses::RealTimeFirst,
        write_streams: 1,
        allocation_order: [0, 1, 2, 3],
        pool_map: None,
        flow_first_lpns: Vec::new(),
        capacity_bytes: 1024 * units::GIB,
        op: 0.10,
        gc_free_blocks: 4,
        gc_policy: GcPolicy::Greedy,
        write_buffer_bytes: 64 * units::MIB,
        trim: TrimMode::NonQueued,
        trim_drains_buffer: true,
        trim_ns: 2000 * US,
        trim_ns_per_mib: 1000 * US,
        precondition: Precondition::Fresh,
        seed: 1,
        occupied_pages: Vec::new(),
        age_occupied: false,
        mqsim_layout: None,
        physical_blocks_per_die: None,
        cmt_entries: 0,
        mapping_cache_parts: 1,
        mapping_cache_per_flow: false,
        mapping_cache_divided: false,
        translation_entries_per_page: 1024,
        mapping_read_bytes: 512,
        mapping_writeback_held: false,
        maps_on_first_read: false,
        channel_commands: None,
        gc_copies_over_channel: false,
        cleaning_before_reads: false,
        cleaning_per_plane: false,
        mqsim_cleaning: None,
        write_cache: None,
        write_cache_parts: 1,
        write_cache_per_flow: false,
    }
}

pub const PRESETS: &[&str] = &["nvme", "netflix"];

/// The keys `ssd:PRESET,key=value` accepts, with what they mean.
pub const SSD_KEYS: &[(&str, &str)] = &[
    ("capacity_gib", "logical capacity, GiB"),
    ("op", "over-provisioning: the spare cleaning works with, over the logical capacity (0.02 to 4)"),
    ("precondition", "fresh (empty) or steady (filled, then randomly overwritten twice)"),
    ("queue_depth", "most commands outstanding"),
    ("trim", "queued or nonqueued"),
    ("trim_drains_buffer", "with trim=nonqueued: 1 (on), the trim waits for the write buffer to be on flash; 0 (off), only for the commands at the drive"),
    ("gc", "greedy or cost_benefit"),
    ("gc_free_blocks", "clean a die when it has fewer free blocks than this"),
    ("write_buffer_mib", "DRAM write buffer, MiB (0: writes complete on flash)"),
    ("seed", "seed of the steady-state preconditioning"),
];

pub fn preset(name: &str) -> Result<SsdParams, String> {
    match name {
        "nvme" => Ok(nvme()),
        "netflix" => Ok(netflix()),
        _ => Err(format!(
            "unknown ssd preset '{name}'{} (built in: {})",
            iosched_core::suggest::did_you_mean(name, PRESETS.iter().copied()),
            PRESETS.join(", ")
        )),
    }
}

/// Apply `key=value` settings to a preset.
pub fn apply_keys(p: &mut SsdParams, pairs: &[(&str, &str)]) -> Result<(), String> {
    for &(key, value) in pairs {
        let number = |min: f64, max: f64| match value.parse::<f64>() {
            Ok(v) if v >= min && v <= max => Ok(v),
            _ => Err(format!("{key}: expected {min} to {max}, found '{value}'")),
        };
        match key {
            "capacity_gib" => {
                let gib = number(0.0, 65536.0)?;
                if gib == 0.0 {
                    return Err(format!("capacity_gib: expected more than 0, found '{value}'"));
                }
                p.capacity_bytes = ((gib * units::GIB as f64) as u64 / p.page_bytes).max(1) * p.page_bytes;
            }
            "op" => p.op = number(0.02, 4.0)?,
            "precondition" => p.precondition = choice(key, value, PRECONDITIONS)?,
            "queue_depth" => p.queue_depth = queue_depth(value)?,
            "trim" => p.trim = choice(key, value, TRIM_MODES)?,
            "trim_drains_buffer" => p.trim_drains_buffer = choice(key, value, ON_OFF)?,
            "gc" => p.gc_policy = choice(key, value, GC_POLICIES)?,
            "gc_free_blocks" => p.gc_free_blocks = int_in(key, value, 2, 1024)?,
            "write_buffer_mib" => p.write_buffer_bytes = (number(0.0, 65536.0)? * units::MIB as f64) as u64,
            "seed" => p.seed = value.parse().map_err(|_| format!("seed: expected an integer, found '{value}'"))?,
            _ => {
                let known: Vec<&str> = SSD_KEYS.iter().map(|(k, _)| *k).collect();
                let hint = iosched_core::suggest::did_you_mean(key, known.iter().copied());
                return Err(format!("unknown ssd key '{key}'{hint} (known: {})", known.join(", ")));
            }
        }
    }
    p.ftl_geometry().check()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_types_follow_mqsims_numbering() {
        let t = |bits| PageTypes { bits_per_cell: bits, read_ns: [1, 2, 3], program_ns: [10, 20, 30] };
        let mlc: Vec<usize> = (0..6).map(|p| t(2).of_page(p)).collect();
        assert_eq!(mlc, [0, 1, 0, 1, 0, 1]);
        // TLC: 0-5 LSB, 6-7 CSB, then LSB, LSB, CSB, CSB, MSB, MSB, LSB, ...
        let tlc: Vec<usize> = (0..16).map(|p| t(3).of_page(p)).collect();
        assert_eq!(tlc, [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 0, 0]);
        let mut p = preset("nvme").unwrap();
        assert_eq!((p.read_ns_at(13), p.program_ns_at(13)), (p.read_ns, p.program_ns));
        p.page_types = Some(t(3));
        assert_eq!((p.read_ns_at(13), p.program_ns_at(13)), (3, 30));
    }

    #[test]
    fn op_is_the_spare_beside_the_data_with_the_cleaning_reserve_on_top() {
        // ssd:nvme has 64 dies of 2 MiB blocks: 64 GiB is 512 blocks of data a die.
        let mut p = preset("nvme").unwrap();
        apply_keys(&mut p, &[("capacity_gib", "64"), ("op", "0.07")]).unwrap();
        let g = p.ftl_geometry();
        assert_eq!(g.blocks_per_pool, 512 + 36 + p.gc_free_blocks + 1); // 0.07 x 512 = 35.8
        assert_eq!(p.op_warning(), None);
        // At 4 GiB a die's 32 blocks of data get 2 spare (0.062): said.
        apply_keys(&mut p, &[("capacity_gib", "4")]).unwrap();
        assert_eq!(p.ftl_geometry().blocks_per_pool, 32 + 2 + p.gc_free_blocks + 1);
        let warning = p.op_warning().expect("a warning");
        assert!(warning.contains("32 blocks of data and 2 spare") && warning.contains("0.062"), "{warning}");
        apply_keys(&mut p, &[("op", "0.28")]).unwrap(); // 8.96 -> 9
        assert_eq!(p.op_warning(), None);
    }

    #[test]
    fn the_description_is_a_spec_that_builds_the_same_drive() {
        for name in PRESETS {
            let mut p = preset(name).unwrap();
            apply_keys(&mut p, &[("capacity_gib", "2"), ("gc", "cost_benefit"), ("seed", "9"), ("op", "0.25")])
                .unwrap();
            let spec = p.describe();
            let rest = spec.strip_prefix(&format!("ssd:{name},")).unwrap();
            let pairs: Vec<(&str, &str)> = rest.split(',').map(|kv| kv.split_once('=').unwrap()).collect();
            let mut again = preset(name).unwrap();
            apply_keys(&mut again, &pairs).unwrap();
            assert_eq!(again, p, "{spec}");
        }
    }

    #[test]
    fn a_plane_pool_holds_pages_of_one_plane_of_one_die() {
        // MQSim's geometry: 2 channels x 2 chips, 2 dies a chip of 4 planes (plane_groups 2, program_pages 4).
        let mut p = preset("nvme").unwrap();
        (p.channels, p.dies_per_channel, p.plane_groups, p.program_pages) = (2, 2, 2, 4);
        p.cleaning_per_plane = true;
        p.physical_blocks_per_die = Some(8 * 64);
        let g = p.ftl_geometry();
        assert_eq!((g.pools, g.blocks_per_pool), (32, 64));
        let mut plane_of_pool = vec![None; g.pools as usize];
        for lpn in 0..10_000u64 {
            let pool = (lpn % g.pools as u64) as usize;
            assert_eq!(pool as u64 % p.dies() as u64, lpn % p.dies() as u64, "lpn {lpn}: the pool's die");
            let plane = *plane_of_pool[pool].get_or_insert(p.plane_of(lpn));
            assert_eq!(plane, p.plane_of(lpn), "lpn {lpn}: pool {pool} spans planes");
        }
        // Every plane of every die is one pool.
        let mut seen: Vec<(u64, u32)> =
            plane_of_pool.iter().enumerate().map(|(pool, plane)| (pool as u64 % 4, plane.unwrap())).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 32);
    }
}
