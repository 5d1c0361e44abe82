//! The timed SSD: commands through firmware, the host link, the write buffer (or data cache), the mapping cache
//! and the flash dies.
//!
//! - A command costs `command_ns` of firmware time, then:
//!   - a read looks up each page's mapping (a miss in the mapping cache, when there is one, first reads the
//!     translation page), then reads each mapped page on its die: tR, then the bytes asked for over the die's
//!     channel once it is free; then moves its data to the host over the link. Unmapped pages cost no flash
//!     time; pages the data cache holds come from DRAM;
//!   - a write reserves room in the write buffer (waiting, in order, while it is full), moves its data over
//!     the link, and completes; its pages are programmed later. Without a buffer it completes when its last
//!     page is programmed. With a data cache ([`super::write_cache`]) it moves its data, then is taken in page
//!     by page as the write-back in flight allows, and completes after its DRAM write;
//!   - a flush completes when every buffered page is on flash;
//!   - a queued trim unmaps its pages and costs `trim_ns + trim_ns_per_mib x MiB`; a non-queued trim first
//!     waits for every other command and the write buffer to drain (only the commands with
//!     `trim_drains_buffer=0`), and the drive accepts nothing until it is done ([`Device::can_accept`]).
//! - A die does one operation at a time and picks, when free: a translation-page read; a read (by the
//!   commands' priority as `flash_classes` says: real-time first, or NVMe's weighted round robin among the
//!   classes, [`priority_classes`]); else, if its free blocks are under the threshold or a cleaning is under way, the next
//!   garbage-collection step (copy up to `program_pages` valid pages: tR each then one tPROG; or the victim's
//!   erase; with MQSim's cleaning, user reads or programs at the same page of the planes a cleaning command
//!   leaves free go with it); else a translation-page program; else a program of up to `program_pages` buffered pages (their
//!   bytes over the channel, then tPROG; with planes, only pages at the same page of their planes' blocks; each
//!   write stream at its own frontier of a plane, `write_streams`).
//!   So reads wait behind at most the operation in progress on their die, and programs wait behind cleaning:
//!   the two effects seed 002 is about.
//! - The host link is one resource shared by both directions, at the per-direction rates.
//!
//! This file has the host side (commands, link, buffer, mapping waits, trims); the dies are in [`dies`], the
//! DRAM caches in [`caches`] and the per-flow NVMe submission queues in [`submission_queues`].

use super::event_queue::{EventQueue, Packed};
use super::ftl::mqsim_layout::LaidOutFlow;
use super::ftl::{Ftl, FtlGeometry, GcWork, Ppn};
use super::mapping_cache::MappingCache;
use super::params::{Aging, FlashClasses, Precondition, SsdParams, TrimMode};
use super::write_cache::{WriteCache, WriteCacheParams};
use crate::device::{Completion, Device};
use iosched_core::policy::StatValue;
use iosched_core::request::{Op, Request};
use iosched_core::units;
use priority_classes::{ClassQueues, FlashClass};
use std::collections::VecDeque;

mod caches;
mod dies;
mod priority_classes;
mod submission_queues;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// Firmware is done with the command in this slot.
    CommandReady(u32),
    /// The die's current operation ends.
    DieDone(u32),
    /// The die has read its page into its register (tR): its data now waits for the channel.
    Sensed(u32),
    /// The host link finished moving this command's data.
    LinkDone(u32),
    /// The trim in this slot is done.
    TrimDone(u32),
    /// The write cache's DRAM finished an access for this command.
    DramDone(u32),
    /// This channel was to go idle now: data waiting goes out, else its waiting dies get their turns
    /// (`channel_commands`).
    ChannelIdle(u32),
}

impl Packed for Event {
    fn pack(self) -> (u8, u32) {
        match self {
            Event::CommandReady(i) => (0, i),
            Event::DieDone(i) => (1, i),
            Event::Sensed(i) => (2, i),
            Event::LinkDone(i) => (3, i),
            Event::TrimDone(i) => (4, i),
            Event::DramDone(i) => (5, i),
            Event::ChannelIdle(i) => (6, i),
        }
    }

    fn unpack(kind: u8, id: u32) -> Self {
        match kind {
            0 => Event::CommandReady(id),
            1 => Event::DieDone(id),
            2 => Event::Sensed(id),
            3 => Event::LinkDone(id),
            4 => Event::TrimDone(id),
            5 => Event::DramDone(id),
            _ => Event::ChannelIdle(id),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Command {
    tag: u32,
    op: Op,
    /// The flow that submitted it (its submission queue, with a fetch window).
    flow: u32,
    first_page: u64,
    pages: u64,
    offset_bytes: u64,
    bytes: u64,
    /// Flash operations (page reads, or unbuffered page programs) still to finish.
    outstanding: u64,
    /// Pages of a write the write cache or the write buffer has taken.
    admitted_pages: u64,
    /// Pages of a buffered write whose data is on the link now (room reserved for them).
    linking_pages: u64,
    /// DRAM accesses of the write cache still to finish for this command.
    dram_pending: u32,
    /// The class its page reads are queued in on a die ([`priority_classes`]; its programs' is
    /// [`FlashClasses::program_class`] of it).
    class: FlashClass,
    /// Forced unit access: a write goes to flash before it completes (past the buffer and the write cache), a
    /// read is read from flash (not from the write cache).
    fua: bool,
}

impl Command {
    /// The command's bytes that fall in page `lpn` (pages of `page_bytes`).
    fn bytes_in_page(&self, lpn: u64, page_bytes: u64) -> u64 {
        let start = self.offset_bytes.max(lpn * page_bytes);
        let end = (self.offset_bytes + self.bytes).min((lpn + 1) * page_bytes);
        end.saturating_sub(start)
    }
}

#[derive(Clone, Copy, Debug)]
struct PendingProgram {
    lpn: u64,
    /// With planes: the plane (within the die's unit) and the page of its block it will be written to.
    plane: u16,
    page_in_block: u32,
    /// The write's bytes in this page (what the write buffer holds for it).
    bytes: u32,
    /// The class it is queued in on its die.
    class: FlashClass,
    /// The write stream whose open block of its plane it goes to ([`SsdParams::write_streams`]).
    stream: u16,
    /// The write waiting for this page when there is no write buffer.
    slot: Option<u32>,
    /// When the program was queued for its die (for the mean program turnaround).
    queued_ns: u64,
    /// The FTL has given the page its place already (`mqsim_cleaning`: when it was queued, as MQSim allocates
    /// a write's page when it dispatches it); otherwise that happens when the program starts.
    placed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DieOp {
    Idle,
    /// User page reads (`Die::user_reading`), of one plane or, as one multi-plane read, several.
    Read,
    Program,
    /// A translation page read for the mapping cache.
    MappingRead {
        translation_page: u64,
    },
    /// A translation page written back.
    MappingProgram,
    /// Cleaning copies made inside the die (copyback).
    GcCopy,
    /// Cleaning copies' pages read out (`gc_moving`), their data then moved over the channel.
    GcRead,
    /// Cleaning copies' pages written back in (`gc_moving`).
    GcWrite,
    /// Cleaning victims' erase (`erasing`: each block's first page).
    Erase,
}

#[derive(Debug)]
struct Die {
    op: DieOp,
    op_started_ns: u64,
    op_end_ns: u64,
    /// Page reads by class: the command, the page, the bytes the command wants from it, when it was queued.
    reads: ClassQueues<(u32, Ppn, u32, u64)>,
    /// The user reads the operation in progress senses: one page, or pages at the same place of the blocks of
    /// one group's planes, read together (MQSim's multi-plane read, TSU_Base::issue_command_to_chip).
    user_reading: Vec<(u32, Ppn, u32, u64)>,
    mapping_reads: VecDeque<u64>,
    mapping_programs: u32,
    /// Programs of user data by class.
    programs: ClassQueues<PendingProgram>,
    /// Garbage collection under way: copies left (to read, with `gc_copies_over_channel`), then the erase.
    gc_copies: VecDeque<(Ppn, Ppn)>,
    /// With `gc_copies_over_channel`: copies read out, waiting to be written back in.
    gc_writes: VecDeque<(Ppn, Ppn)>,
    /// The copies the operation in progress reads or writes.
    gc_moving: Vec<(Ppn, Ppn)>,
    /// The victims the erase in progress erases.
    erasing: Vec<Ppn>,
    /// Victims whose erase is due once their copies are done: each block's first page.
    gc_erases: VecDeque<Ppn>,
    /// Waits for its channel to go idle before its next command (`channel_commands`).
    waiting_for_channel: bool,
    /// Programs taken by the operation in progress.
    programming: Vec<PendingProgram>,
    /// Bytes a read in progress moves over the channel once sensed.
    sensed_bytes: u64,
    busy_ns: u64,
}

#[derive(Clone, Debug, Default)]
struct SsdStats {
    host_read_bytes: u64,
    host_write_bytes: u64,
    reads_behind_program_or_erase: u64,
    read_wait_behind_program_or_erase_ns: u64,
    trims: u64,
    buffer_full_waits: u64,
    flash_page_reads: u64,
    mapping_reads: u64,
    mapping_programs: u64,
    /// Translation pages written back (each with a read to merge it; programmed only without
    /// `mapping_writeback_held`): MQSim's Issued_Flash_Program_CMD_For_Mapping, which counts them queued.
    mapping_writebacks: u64,
    multi_page_programs: u64,
    /// Page reads of user data and page programs (user and translation data, not cleaning), with the sums of
    /// their turnarounds: from being queued for the die to the read's data out or the program's end (MQSim's
    /// Average_*_Transaction_Turnaround_Time).
    read_transactions: u64,
    read_turnaround_ns: u64,
    program_transactions: u64,
    program_turnaround_ns: u64,
}

/// What waits for a translation page to arrive from flash.
#[derive(Clone, Copy, Debug)]
enum MappingWaiter {
    Read { slot: u32, lpn: u64, bytes: u32 },
    Program(PendingProgram),
}

pub struct Ssd {
    p: SsdParams,
    ftl: Ftl,
    dies: Vec<Die>,
    channel_free_ns: Vec<u64>,
    /// Per channel (`channel_commands`): how many dies wait for it to go idle, when it is next
    /// looked at, and which of its dies the next idle moment is offered to first.
    channel_waiters: Vec<u32>,
    channel_turn: Vec<u32>,
    /// Per channel: dies whose sensed data waits for it, translation pages and user data.
    mapping_data_out: Vec<VecDeque<u32>>,
    user_data_out: Vec<VecDeque<u32>>,
    channel_check_ns: Vec<Option<u64>>,
    link_free_ns: u64,
    events: EventQueue<Event>,
    slots: Vec<Option<Command>>,
    free_slots: Vec<u32>,
    in_flight: u32,
    buffer_capacity_bytes: u64,
    buffer_used_bytes: u64,
    /// Writes waiting for buffer room, in arrival order.
    buffer_waiters: VecDeque<u32>,
    /// The write taking its data into the buffer as room frees (it did not fit whole); later writes wait.
    buffer_filling: Option<u32>,
    /// Buffered pages not yet on flash.
    unprogrammed_pages: u64,
    flush_waiters: Vec<u32>,
    /// A non-queued trim waiting for the drive to drain, or running.
    blocking_trim: Option<u32>,
    blocking_trim_started: bool,
    /// The ranges of trims of several ranges (Dataset Management with several ranges), by tag.
    trim_ranges: std::collections::HashMap<u32, Box<[(u64, u64)]>>,
    done: Vec<Completion>,
    gc_work: GcWork,
    stats: SsdStats,
    last_event_ns: u64,
    /// Mapping caches: none, one, or one per equal part of the logical space (MQSim's per-flow tables).
    mapping: Vec<MappingCache>,
    /// Data caches: none, one, or one per equal part of the logical space (MQSim's EQUAL_PARTITIONING).
    cache: Vec<WriteCache>,
    /// When the data caches' one DRAM channel is free.
    dram_free_ns: u64,
    /// With planes: each plane's next page in its open block, by die then plane.
    plane_frontiers: Vec<u32>,
    /// While a command's pages are being queued on their dies (all at once, as MQSim dispatches a request's
    /// transactions together), the dies to start afterwards; so a die sees every page of the command it holds
    /// and can read those of its planes together.
    held_kicks: Vec<u32>,
    /// Whether kicks are being held ([`Ssd::holding_kicks`]).
    holding_kicks: bool,
    /// Writes waiting for a data cache's back-pressure, in arrival order, by cache.
    cache_waiters: Vec<VecDeque<u32>>,
    /// Translation pages being read, with what waits for each.
    /// (smallvec: nearly always one waiter, so no allocation for it.)
    mapping_waiters: rustc_hash::FxHashMap<u64, smallvec::SmallVec<[MappingWaiter; 2]>>,
    /// With a fetch window per flow: each flow's submission queue, by flow id ([`submission_queues`]).
    submission_queues: Vec<submission_queues::FlowQueue>,
    /// Flows whose window freed during the event being handled, with commands waiting.
    freed_windows: Vec<u32>,
}

/// Steady-state FTLs already built, by geometry and seed: preconditioning rewrites the whole drive three times,
/// and the runs of an experiment or a sweep all want the same drive. Cloning one is a copy of its maps.
static STEADY_STATES: std::sync::Mutex<Vec<(FtlGeometry, u64, Ftl)>> = std::sync::Mutex::new(Vec::new());
/// The most steady-state drives kept (each costs its mapping tables: 8 bytes a page).
const STEADY_STATES_KEPT: usize = 4;

/// A drive filled sequentially, then randomly overwritten twice, with its counters reset. The lock is held while
/// one is built, so that runs starting together build it once.
fn steady_state(g: FtlGeometry, seed: u64) -> Result<Ftl, String> {
    let mut cache = STEADY_STATES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, ftl)) = cache.iter().find(|(cg, cs, _)| *cg == g && *cs == seed) {
        return Ok(ftl.clone());
    }
    let mut ftl = Ftl::new(g)?;
    ftl.fill_sequential();
    ftl.random_overwrites(2 * g.logical_pages, seed);
    ftl.reset_counters();
    if cache.len() == STEADY_STATES_KEPT {
        cache.remove(0);
    }
    cache.push((g, seed, ftl.clone()));
    Ok(ftl)
}

/// Write the occupied ranges before the run: laid out as MQSim's preconditioning lays them out (`mqsim_layout`),
/// or filled and then, when the drive ages what is written, aged by writing.
fn occupy(ftl: &mut Ftl, p: &SsdParams) {
    if let Some(layout) = p.mqsim_layout.filter(|_| p.age_occupied) {
        // Each flow's range is an equal part of the logical space, its occupancy a share of that part.
        let flow_pages = ftl.geometry().logical_pages as f64 / layout.flows.max(1) as f64;
        let flows: Vec<LaidOutFlow> = p
            .occupied_pages
            .iter()
            .map(|o| LaidOutFlow {
                first_page: o.first_page,
                range_pages: o.precondition_range_pages,
                pages: o.precondition_pages,
                occupancy: (o.pages as f64 / flow_pages).min(1.0),
                streaming: o.aging == Aging::Sequential,
                stream: o.stream,
                addresses: o.mqsim_addresses,
            })
            .collect();
        ftl.lay_out_as_mqsim(&layout, &flows, p.seed);
        return;
    }
    let ranges: Vec<(u64, u64)> = p.occupied_pages.iter().map(|o| (o.first_page, o.pages)).collect();
    ftl.fill_ranges(&ranges);
    if p.age_occupied {
        for (i, o) in p.occupied_pages.iter().enumerate() {
            match o.aging {
                Aging::Random => ftl.random_overwrites_in(o.first_page, o.pages, 2 * o.pages, p.seed + i as u64),
                Aging::Sequential => ftl.fill_range(o.first_page, o.pages),
            }
        }
    }
}

impl Ssd {
    pub fn new(p: SsdParams) -> Result<Ssd, String> {
        // Events name a die or a command slot in 24 bits (slots are bounded by queue_depth, at most 65536).
        if p.dies() > super::event_queue::MAX_ID {
            return Err(format!(
                "{} dies is more than this model addresses ({})",
                p.dies(),
                super::event_queue::MAX_ID
            ));
        }
        let mut ftl = match p.precondition {
            Precondition::Fresh => Ftl::new(p.ftl_geometry())?,
            Precondition::Steady => steady_state(p.ftl_geometry(), p.seed)?,
        };
        if let Some(map) = &p.pool_map {
            if p.precondition == Precondition::Steady {
                return Err("a steady-state preset with another page allocation is not modelled".into());
            }
            ftl.set_pool_map(map.clone())?;
        }
        ftl.seed_cleaning(p.seed);
        ftl.set_write_streams(p.write_streams);
        // MQSim's drive without preconditioning holds no data: a page is mapped when first written or read.
        if !p.occupied_pages.is_empty() && !p.maps_on_first_read {
            occupy(&mut ftl, &p);
            ftl.reset_counters();
        }
        // MQSim's cleaning draws RGA's candidates from its GC unit's generator, and opens write frontiers as soon
        // as the last is full; a drive nothing was written to has its frontiers taken as MQSim's starts.
        if let Some(m) = p.mqsim_cleaning {
            if p.maps_on_first_read {
                ftl.open_frontiers_as_mqsim(p.write_streams as u32);
            }
            ftl.seed_mqsim_rga(m.rga_seed);
            ftl.open_blocks_eagerly();
            // Over the channel, a copy is given its page when its read is done, as MQSim does.
            if p.gc_copies_over_channel {
                ftl.place_copies_when_read(m.victims_under_way);
            }
        }
        let streams = ftl.write_streams();
        let cache_parts = p.write_cache_parts.max(1) as u64;
        let mapping_parts = p.mapping_cache_parts.max(1);
        let mapping_entries =
            if p.mapping_cache_divided { (p.cmt_entries / mapping_parts as u64).max(1) } else { p.cmt_entries };
        let dies = (0..p.dies())
            .map(|_| Die {
                op: DieOp::Idle,
                op_started_ns: 0,
                op_end_ns: 0,
                reads: ClassQueues::default(),
                user_reading: Vec::new(),
                mapping_reads: VecDeque::new(),
                mapping_programs: 0,
                programs: ClassQueues::default(),
                gc_copies: VecDeque::new(),
                gc_erases: VecDeque::new(),
                gc_writes: VecDeque::new(),
                gc_moving: Vec::new(),
                erasing: Vec::new(),
                waiting_for_channel: false,
                programming: Vec::new(),
                sensed_bytes: 0,
                busy_ns: 0,
            })
            .collect();
        Ok(Ssd {
            channel_free_ns: vec![0; p.channels as usize],
            channel_waiters: vec![0; p.channels as usize],
            channel_turn: vec![0; p.channels as usize],
            mapping_data_out: vec![VecDeque::new(); p.channels as usize],
            user_data_out: vec![VecDeque::new(); p.channels as usize],
            channel_check_ns: vec![None; p.channels as usize],
            buffer_capacity_bytes: p.write_buffer_bytes,
            mapping: (0..if p.cmt_entries > 0 { mapping_parts } else { 0 })
                .map(|_| MappingCache::new(mapping_entries, p.translation_entries_per_page, p.mapping_writeback_held))
                .collect(),
            mapping_waiters: rustc_hash::FxHashMap::default(),
            cache: p
                .write_cache
                .iter()
                .flat_map(|c| {
                    let part =
                        WriteCacheParams { capacity_pages: (c.capacity_pages / cache_parts).max(1), ..c.clone() };
                    (0..cache_parts).map(move |_| WriteCache::new(part.clone()))
                })
                .collect(),
            dram_free_ns: 0,
            plane_frontiers: vec![0; (p.dies() * p.plane_groups * p.program_pages) as usize * streams as usize],
            cache_waiters: vec![VecDeque::new(); cache_parts as usize],
            held_kicks: Vec::new(),
            holding_kicks: false,
            ftl,
            dies,
            link_free_ns: 0,
            events: EventQueue::default(),
            slots: Vec::new(),
            free_slots: Vec::new(),
            in_flight: 0,
            buffer_used_bytes: 0,
            buffer_waiters: VecDeque::new(),
            buffer_filling: None,
            unprogrammed_pages: 0,
            flush_waiters: Vec::new(),
            blocking_trim: None,
            blocking_trim_started: false,
            trim_ranges: std::collections::HashMap::new(),
            done: Vec::new(),
            submission_queues: Vec::new(),
            freed_windows: Vec::new(),
            gc_work: GcWork::default(),
            stats: SsdStats::default(),
            last_event_ns: 0,
            p,
        })
    }

    /// Start a command the drive has taken (fetched from its submission queue).
    fn start_command(&mut self, now_ns: u64, tag: u32, req: &Request) {
        let page = self.p.page_bytes;
        let first_page = req.offset_bytes / page;
        let end_page = (req.offset_bytes + req.len_bytes).div_ceil(page).max(first_page + 1);
        let logical = self.ftl.geometry().logical_pages;
        let command = Command {
            tag,
            op: req.op,
            flow: req.flow.0,
            first_page: first_page.min(logical),
            pages: end_page.min(logical) - first_page.min(logical),
            offset_bytes: req.offset_bytes,
            bytes: req.len_bytes,
            outstanding: 0,
            admitted_pages: 0,
            linking_pages: 0,
            dram_pending: 0,
            class: self.p.flash_classes.read_class(req),
            fua: req.fua,
        };
        let slot = match self.free_slots.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(command);
                s
            }
            None => {
                self.slots.push(Some(command));
                (self.slots.len() - 1) as u32
            }
        };
        self.in_flight += 1;
        if req.op == Op::Trim && self.p.trim == TrimMode::NonQueued {
            self.blocking_trim = Some(slot);
            self.maybe_start_blocking_trim(now_ns);
        } else if self.p.command_ns == 0 && matches!(req.op, Op::Read | Op::Write) {
            // No firmware time: start at once (a read or write always completes through a later event).
            self.command_ready(now_ns, slot);
        } else {
            self.schedule(now_ns + self.p.command_ns, Event::CommandReady(slot));
        }
    }

    fn schedule(&mut self, at_ns: u64, event: Event) {
        self.events.push(at_ns, event);
    }

    fn cmd(&self, slot: u32) -> &Command {
        self.slots[slot as usize].as_ref().expect("live command slot")
    }

    fn complete(&mut self, slot: u32) {
        let c = self.slots[slot as usize].take().expect("a command completes once");
        self.free_slots.push(slot);
        self.in_flight -= 1;
        if c.op != Op::Read {
            self.serviced(c.flow);
        }
        self.done.push(Completion { tag: c.tag, error: 0 });
    }

    fn link(&mut self, now_ns: u64, slot: u32, bytes: u64, read: bool) {
        let rate = if read { self.p.host_read_bytes_per_s } else { self.p.host_write_bytes_per_s };
        let start = now_ns.max(self.link_free_ns);
        self.link_free_ns = start + units::transfer_ns(bytes, rate);
        self.schedule(self.link_free_ns, Event::LinkDone(slot));
    }

    fn page_transfer_ns(&self, pages: u64) -> u64 {
        units::transfer_ns(pages * self.p.page_bytes, self.p.channel_bytes_per_s)
    }

    fn channel_of(&self, die: u32) -> usize {
        (die % self.p.channels) as usize
    }

    fn command_ready(&mut self, now_ns: u64, slot: u32) {
        let c = *self.cmd(slot);
        match c.op {
            Op::Read => {
                // Every page counts as outstanding until it is read or found unmapped.
                self.slots[slot as usize].as_mut().unwrap().outstanding = c.pages + 1;
                self.holding_kicks(now_ns, |ssd| ssd.queue_page_reads(now_ns, slot));
                self.read_page_done(now_ns, slot);
            }
            Op::Write => {
                if self.buffer_capacity_bytes == 0 || !self.cache.is_empty() || c.fua {
                    self.link(now_ns, slot, c.bytes, false);
                } else if !(self.buffer_waiters.is_empty()
                    && self.buffer_filling.is_none()
                    && self.take_into_buffer(now_ns, slot))
                {
                    self.stats.buffer_full_waits += 1;
                    self.buffer_waiters.push_back(slot);
                }
            }
            Op::Flush => {
                if self.unprogrammed_pages == 0 {
                    self.complete(slot);
                } else {
                    self.flush_waiters.push(slot);
                }
            }
            Op::Trim => {
                self.apply_trim(&c);
                let at = now_ns + self.trim_cost_ns(&c);
                self.schedule(at, Event::TrimDone(slot));
            }
        }
    }

    /// Queue each page of read `slot` where it is found: the data cache, or its die once its mapping is at hand
    /// (read first from flash when the mapping cache misses it).
    fn queue_page_reads(&mut self, now_ns: u64, slot: u32) {
        let c = *self.cmd(slot);
        let page = self.p.page_bytes;
        for lpn in c.first_page..c.first_page + c.pages {
            let bytes = c.bytes_in_page(lpn, page).max(1) as u32;
            let cached = !c.fua && !self.cache.is_empty() && {
                let part = self.part_of(lpn, self.cache.len());
                self.cache[part].holds(lpn)
            };
            if cached {
                let at = self.dram(now_ns, bytes as u64);
                self.schedule(at, Event::DramDone(slot));
            } else if self.mapped_entry_cached(lpn) {
                // As when the entry arrives from flash: a first read maps the page, and the entry is
                // (re)cached, an entry of a held translation page taking a slot as MQSim's departing
                // entries do.
                self.mapping_arrived(now_ns, MappingWaiter::Read { slot, lpn, bytes });
            } else {
                self.wait_for_mapping(now_ns, lpn, MappingWaiter::Read { slot, lpn, bytes });
            }
        }
    }

    /// Start the link transfer of as many of a buffered write's next pages as the buffer has room for (a page
    /// larger than the whole buffer goes alone into the empty buffer), reserving their room. A write that does
    /// not fit whole takes the rest as room frees, as drives take a command's data (SATA's DMA Setup FIS per
    /// chunk, NVMe's data pointers fetched as needed), and later writes wait behind it. Returns whether any page
    /// was taken.
    fn take_into_buffer(&mut self, now_ns: u64, slot: u32) -> bool {
        let c = *self.cmd(slot);
        let (mut pages, mut bytes) = (0, 0);
        while c.admitted_pages + pages < c.pages {
            let b = c.bytes_in_page(c.first_page + c.admitted_pages + pages, self.p.page_bytes);
            let used = self.buffer_used_bytes + bytes;
            if used + b > self.buffer_capacity_bytes && used > 0 {
                break;
            }
            (pages, bytes) = (pages + 1, bytes + b);
        }
        if pages == 0 {
            return false;
        }
        self.buffer_used_bytes += bytes;
        self.slots[slot as usize].as_mut().expect("write in flight").linking_pages = pages;
        if c.admitted_pages + pages < c.pages {
            self.buffer_filling = Some(slot);
        }
        self.link(now_ns, slot, bytes, false);
        true
    }

    /// Writes waiting for buffer room take it in arrival order, until one does not fit whole.
    fn admit_buffer_waiters(&mut self, now_ns: u64) {
        while self.buffer_filling.is_none() {
            let Some(&slot) = self.buffer_waiters.front() else { break };
            if !self.take_into_buffer(now_ns, slot) {
                break;
            }
            self.buffer_waiters.pop_front();
        }
    }

    /// The write stream of the command in `slot` (stream 0 if the slot is empty).
    fn stream_of_slot(&self, slot: u32) -> u16 {
        self.slots[slot as usize].as_ref().map_or(0, |c| self.stream_of_flow(c.flow))
    }

    /// The write stream of a flow's writes ([`SsdParams::write_streams`]): its own where the drive keeps them
    /// apart (flows beyond the streams share them, modulo), else the one stream 0.
    fn stream_of_flow(&self, flow: u32) -> u16 {
        match self.p.write_streams {
            0 | 1 => 0,
            n => (flow % n as u32) as u16,
        }
    }

    /// The die a logical page is written to: its FTL pool's (a pool is a die, or a plane of die `pool % dies`).
    fn die_of_lpn(&self, lpn: u64) -> u32 {
        self.ftl.pool_of_lpn(lpn) % self.p.dies()
    }

    /// The die a physical page is on.
    fn die_of_ppn(&self, ppn: Ppn) -> u32 {
        self.ftl.pool_of_ppn(ppn) % self.p.dies()
    }

    /// A read's page whose mapping is known: read it from its die, or (never written) it costs no flash time;
    /// but MQSim's drive without preconditioning (`maps_on_first_read`) maps such a page to one at its die's
    /// write frontier, unprogrammed, and reads flash there (its online_create_entry_for_reads).
    /// `ppn` is the page's mapping, looked up by the caller (None: never written).
    fn page_read_at(&mut self, now_ns: u64, slot: u32, lpn: u64, bytes: u32, ppn: Option<Ppn>) {
        let ppn = match ppn {
            Some(ppn) => ppn,
            None if self.p.maps_on_first_read => {
                let pool = self.ftl.pool_of_lpn(lpn);
                let opened = self.ftl.blocks_opened(pool);
                let ppn = self.ftl.map_unwritten(lpn, self.stream_of_slot(slot));
                if self.p.mqsim_cleaning.is_some() {
                    self.pool_opened_blocks(pool, opened);
                } else {
                    self.clean_if_short(self.die_of_ppn(ppn));
                }
                ppn
            }
            None => {
                self.read_page_done(now_ns, slot);
                return;
            }
        };
        let die = self.die_of_ppn(ppn);
        let d = &mut self.dies[die as usize];
        if matches!(d.op, DieOp::Program | DieOp::GcCopy | DieOp::GcWrite | DieOp::Erase) {
            self.stats.reads_behind_program_or_erase += 1;
            self.stats.read_wait_behind_program_or_erase_ns += d.op_end_ns.saturating_sub(now_ns);
        }
        let class = self.slots[slot as usize].as_ref().map_or(FlashClass::High, |c| c.class);
        d.reads.push_back(class, (slot, ppn, bytes, now_ns));
        self.kick(now_ns, die);
    }

    /// One page of a read is done (or needed no flash): once all are, its data goes to the host.
    fn read_page_done(&mut self, now_ns: u64, slot: u32) {
        let c = self.slots[slot as usize].as_mut().expect("read in flight");
        c.outstanding -= 1;
        if c.outstanding == 0 {
            let (bytes, flow) = (c.bytes, c.flow);
            // Serviced: MQSim's host interface fetches the flow's next command as the data starts out.
            self.serviced(flow);
            self.link(now_ns, slot, bytes, true);
        }
    }

    fn trim_cost_ns(&self, c: &Command) -> u64 {
        self.p.trim_ns + (c.bytes as u128 * self.p.trim_ns_per_mib as u128 / units::MIB as u128) as u64
    }

    fn apply_trim(&mut self, c: &Command) {
        match self.trim_ranges.remove(&c.tag) {
            Some(ranges) => {
                let (page, logical) = (self.p.page_bytes, self.ftl.geometry().logical_pages);
                for (offset, len) in ranges.iter() {
                    let end = (offset + len).div_ceil(page).min(logical);
                    for lpn in (offset / page).min(end)..end {
                        self.ftl.trim(lpn);
                    }
                }
            }
            None => {
                for lpn in c.first_page..c.first_page + c.pages {
                    self.ftl.trim(lpn);
                }
            }
        }
        self.stats.trims += 1;
    }

    fn link_done(&mut self, now_ns: u64, slot: u32) {
        let c = *self.cmd(slot);
        match c.op {
            Op::Read => {
                self.stats.host_read_bytes += c.bytes;
                self.complete(slot);
            }
            Op::Write if !self.cache.is_empty() && !c.fua => {
                self.stats.host_write_bytes += c.bytes;
                let part = self.part_of(c.first_page, self.cache.len());
                if self.cache_waiters[part].is_empty() && self.admit_write(now_ns, slot) {
                    return;
                }
                // It waits, in arrival order, for room in the cache of its first page not yet taken.
                let part = self.part_of(c.first_page + self.cmd(slot).admitted_pages, self.cache.len());
                if !self.cache_waiters[part].contains(&slot) {
                    self.stats.buffer_full_waits += 1;
                    self.cache_waiters[part].push_back(slot);
                }
            }
            Op::Write => {
                let buffered = self.buffer_capacity_bytes > 0 && self.cache.is_empty() && !c.fua;
                // The pages whose data just came: a buffered write's chunk, or an unbuffered write's whole.
                let (first, pages) =
                    if buffered { (c.first_page + c.admitted_pages, c.linking_pages) } else { (c.first_page, c.pages) };
                let mut linked_bytes = 0;
                for lpn in first..first + pages {
                    let bytes = c.bytes_in_page(lpn, self.p.page_bytes);
                    linked_bytes += bytes;
                    let waiter = if buffered { None } else { Some(slot) };
                    let pp = PendingProgram {
                        lpn,
                        plane: 0,
                        page_in_block: 0,
                        bytes: bytes as u32,
                        class: self.p.flash_classes.program_class(c.class),
                        stream: self.stream_of_flow(c.flow),
                        slot: waiter,
                        queued_ns: 0,
                        placed: false,
                    };
                    if self.mapped_entry_cached(lpn) {
                        self.queue_program(now_ns, pp);
                    } else {
                        self.wait_for_mapping(now_ns, lpn, MappingWaiter::Program(pp));
                    }
                }
                self.stats.host_write_bytes += linked_bytes;
                if !buffered {
                    self.slots[slot as usize].as_mut().unwrap().outstanding = c.pages;
                    return;
                }
                self.unprogrammed_pages += pages;
                let cmd = self.slots[slot as usize].as_mut().expect("write in flight");
                cmd.admitted_pages += pages;
                cmd.linking_pages = 0;
                if cmd.admitted_pages < c.pages {
                    self.take_into_buffer(now_ns, slot); // else it waits for room (buffer_drained)
                    return;
                }
                self.complete(slot);
                if self.buffer_filling == Some(slot) {
                    self.buffer_filling = None;
                    self.admit_buffer_waiters(now_ns);
                }
            }
            _ => unreachable!("only reads and writes use the link"),
        }
    }

    /// Admit writes waiting for buffer room; complete flushes once everything is on flash.
    fn buffer_drained(&mut self, now_ns: u64) {
        for part in 0..self.cache_waiters.len() {
            while let Some(&slot) = self.cache_waiters[part].front() {
                if self.admit_write(now_ns, slot) {
                    self.cache_waiters[part].pop_front();
                    continue;
                }
                // A write over two flows' ranges now waits for the other's cache.
                let c = self.cmd(slot);
                let next = self.part_of(c.first_page + c.admitted_pages, self.cache.len());
                if next == part {
                    break;
                }
                self.cache_waiters[part].pop_front();
                if !self.cache_waiters[next].contains(&slot) {
                    self.cache_waiters[next].push_back(slot);
                }
            }
        }
        match self.buffer_filling {
            // The write taking its data as room frees: its next chunk, unless one is on the link.
            Some(slot) if self.cmd(slot).linking_pages == 0 => {
                self.take_into_buffer(now_ns, slot);
            }
            Some(_) => {}
            None => self.admit_buffer_waiters(now_ns),
        }
        if self.unprogrammed_pages == 0 {
            for slot in std::mem::take(&mut self.flush_waiters) {
                self.complete(slot);
            }
        }
    }

    /// A non-queued trim starts once it is the only command and, with `trim_drains_buffer`, the buffer is on
    /// flash.
    fn maybe_start_blocking_trim(&mut self, now_ns: u64) {
        if let Some(slot) = self.blocking_trim {
            let buffer_ready = !self.p.trim_drains_buffer || self.unprogrammed_pages == 0;
            if !self.blocking_trim_started && self.in_flight == 1 && buffer_ready {
                self.blocking_trim_started = true;
                let c = *self.cmd(slot);
                self.apply_trim(&c);
                let at = now_ns + self.p.command_ns + self.trim_cost_ns(&c);
                self.schedule(at, Event::TrimDone(slot));
            }
        }
    }

    fn handle(&mut self, now_ns: u64, event: Event) {
        match event {
            Event::CommandReady(slot) => self.command_ready(now_ns, slot),
            Event::DieDone(die) => self.die_done(now_ns, die),
            Event::ChannelIdle(ch) => self.channel_idle(now_ns, ch),
            Event::Sensed(die) => self.sensed(now_ns, die),
            Event::LinkDone(slot) => self.link_done(now_ns, slot),
            Event::DramDone(slot) => self.dram_done(now_ns, slot),
            Event::TrimDone(slot) => {
                if self.blocking_trim == Some(slot) {
                    self.blocking_trim = None;
                    self.blocking_trim_started = false;
                }
                self.complete(slot);
            }
        }
        self.maybe_start_blocking_trim(now_ns);
    }
}

/// A mean of nanosecond sums in µs (0 for none).
fn mean_us(sum_ns: u64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        sum_ns as f64 / count as f64 / 1e3
    }
}

impl Device for Ssd {
    fn describe(&self) -> String {
        self.p.describe()
    }

    fn queue_depth(&self) -> u32 {
        self.p.queue_depth
    }

    fn capacity_bytes(&self) -> u64 {
        self.p.capacity_bytes
    }

    fn can_accept(&self, _now_ns: u64) -> bool {
        self.blocking_trim.is_none()
    }

    fn submit(&mut self, now_ns: u64, tag: u32, req: &Request) {
        self.fetch_or_queue(now_ns, tag, req);
    }

    /// One command: its cost is that of one trim of the ranges' total length, and each range is deallocated.
    fn submit_trim_ranges(&mut self, now_ns: u64, tag: u32, req: &Request, ranges: &[(u64, u64)]) {
        self.trim_ranges.insert(tag, ranges.into());
        self.submit(now_ns, tag, req);
    }

    fn next_event_ns(&self) -> Option<u64> {
        self.events.next_ns()
    }

    fn advance(&mut self, now_ns: u64, completed: &mut Vec<Completion>) {
        while let Some((t, event)) = self.events.pop_due(now_ns) {
            self.last_event_ns = t;
            self.handle(t, event);
            self.fetch_freed(t);
            completed.append(&mut self.done);
        }
    }
    fn stats(&self) -> Vec<(String, StatValue)> {
        let f = self.ftl.counters();
        let page = self.p.page_bytes;
        let elapsed = self.last_event_ns.max(1);
        let busy: u64 = self.dies.iter().map(|d| d.busy_ns).sum();
        vec![
            ("write_amplification".into(), StatValue::Value(f.write_amplification())),
            ("host_write_bytes".into(), StatValue::Count(self.stats.host_write_bytes)),
            ("host_read_bytes".into(), StatValue::Count(self.stats.host_read_bytes)),
            ("nand_write_bytes".into(), StatValue::Count((f.host_pages + f.gc_pages) * page)),
            ("gc_copies".into(), StatValue::Count(f.gc_pages)),
            ("gc_erases".into(), StatValue::Count(f.erases)),
            ("trims".into(), StatValue::Count(self.stats.trims)),
            ("trimmed_bytes".into(), StatValue::Count(f.trimmed_pages * page)),
            ("reads_behind_program_or_erase".into(), StatValue::Count(self.stats.reads_behind_program_or_erase)),
            (
                "read_wait_behind_program_or_erase_ns".into(),
                StatValue::Count(self.stats.read_wait_behind_program_or_erase_ns),
            ),
            ("write_buffer_full_waits".into(), StatValue::Count(self.stats.buffer_full_waits)),
            ("flash_page_reads".into(), StatValue::Count(self.stats.flash_page_reads)),
            ("flash_page_programs".into(), StatValue::Count(f.host_pages + f.gc_pages)),
            ("mapping_reads".into(), StatValue::Count(self.stats.mapping_reads)),
            ("mapping_programs".into(), StatValue::Count(self.stats.mapping_programs)),
            ("mapping_writebacks".into(), StatValue::Count(self.stats.mapping_writebacks)),
            ("multi_page_programs".into(), StatValue::Count(self.stats.multi_page_programs)),
            (
                "flash_read_turnaround_us".into(),
                StatValue::Value(mean_us(self.stats.read_turnaround_ns, self.stats.read_transactions)),
            ),
            (
                "flash_program_turnaround_us".into(),
                StatValue::Value(mean_us(self.stats.program_turnaround_ns, self.stats.program_transactions)),
            ),
            ("write_cache_hot_writes".into(), StatValue::Count(self.cache.iter().map(|c| c.hot_writes).sum())),
            ("write_cache_read_hits".into(), StatValue::Count(self.cache.iter().map(|c| c.read_hits).sum())),
            ("mapping_cache_hits".into(), StatValue::Count(self.mapping.iter().map(|m| m.hits).sum())),
            ("mapping_cache_misses".into(), StatValue::Count(self.mapping.iter().map(|m| m.misses).sum())),
            ("die_utilisation".into(), StatValue::Value(busy as f64 / (elapsed as f64 * self.dies.len() as f64))),
        ]
    }
}
