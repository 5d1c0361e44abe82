//! A page-mapping flash translation layer with garbage collection: where each logical page lives, which
//! physical pages are valid, and which block to clean next. No timing: the drive model ([`super::drive`]) asks
//! it where to read and program and charges the die time; preconditioning drives it directly.
//!
//! The FTL manages its blocks in pools, each with its own free blocks, write frontiers and cleaning: a pool is
//! one die, or (the drive says which) one plane of a die, as MQSim's FTL keeps a block pool per plane. Layout
//! follows MQSim's static allocation: logical page `lpn` belongs to pool `lpn % pools`, so each pool is an
//! independent FTL over its share of the logical space. Within a pool, host writes append to an open block and
//! garbage-collection copies append to a separate open block. When a pool's free blocks fall under
//! `gc_free_blocks`, it cleans one victim: greedy (fewest valid pages), cost-benefit (lowest
//! u / ((1 - u) x age), age in blocks written since the victim was last written) or randomized greedy (the
//! fewest valid pages among a few blocks drawn at random), copies the victim's valid pages and erases it. Trim
//! invalidates mappings without writing.
//!
//! Mappings are stored as `value + 1` with 0 for "none", so the tables come from zeroed memory the operating
//! system hands out lazily: a large drive costs memory only where it is touched. A fill of a fresh drive
//! ([`Ftl::fill_ranges`]) is kept as arithmetic (ssd/ftl/fill.rs); then 0 means "as the fill left it" and an explicit
//! `u32::MAX` means none.

use iosched_core::mqsim_rng::MqsimRandom;
use iosched_core::rng::SimRng;

mod fill;
pub mod mqsim_layout;
pub mod pool_map;

/// A table entry that says "nothing here" where 0 would mean "as the fill left it".
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcPolicy {
    Greedy,
    CostBenefit,
    /// Randomized greedy (MQSim's RGA, Van Houdt's d-choices): the fewest valid pages among `candidates`
    /// blocks of the pool drawn at random (MQSim draws log2 of a plane's blocks from the plane). When none drawn
    /// is full, greedy over the pool (MQSim would skip cleaning until its next block allocation).
    Randomized {
        candidates: u32,
    },
}

/// The shape the FTL manages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FtlGeometry {
    /// Units with their own free blocks, frontiers and cleaning (dies, or planes); `lpn` is in pool
    /// `lpn % pools`.
    pub pools: u32,
    pub blocks_per_pool: u32,
    pub pages_per_block: u32,
    pub logical_pages: u64,
    /// Clean when a pool has fewer free blocks than this.
    pub gc_free_blocks: u32,
    pub gc_policy: GcPolicy,
}

impl FtlGeometry {
    pub fn physical_pages(&self) -> u64 {
        self.pools as u64 * self.blocks_per_pool as u64 * self.pages_per_block as u64
    }

    /// Physical over logical capacity minus one.
    pub fn over_provisioning(&self) -> f64 {
        self.physical_pages() as f64 / self.logical_pages as f64 - 1.0
    }

    /// Why this geometry cannot work, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        if self.pools == 0 || self.blocks_per_pool == 0 || self.pages_per_block == 0 {
            return Err("pools, blocks and pages per block must be at least 1".into());
        }
        if self.physical_pages() > u32::MAX as u64 - 1 {
            return Err(format!("{} physical pages is more than this FTL addresses (2^32 - 2)", self.physical_pages()));
        }
        if self.gc_free_blocks < 2 || self.gc_free_blocks + 2 >= self.blocks_per_pool {
            return Err(format!(
                "gc_free_blocks {} must be at least 2 and leave room in a pool of {} blocks",
                self.gc_free_blocks, self.blocks_per_pool
            ));
        }
        // Each pool needs room for its share of logical pages beside its two open blocks and one free block.
        // (A threshold above the spare this leaves, as MQSim's files allow, keeps a full pool cleaning.)
        let per_pool_logical = self.logical_pages.div_ceil(self.pools as u64);
        let usable = (self.blocks_per_pool - 3) as u64 * self.pages_per_block as u64;
        if per_pool_logical > usable {
            return Err(format!(
                "over-provisioning {:.3} is too small: a pool holds {usable} pages beyond its reserve, its share of the \
                 logical space is {per_pool_logical}",
                self.over_provisioning()
            ));
        }
        Ok(())
    }
}

/// A physical page: (pool, block within pool, page within block) flattened.
pub type Ppn = u64;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FtlCounters {
    pub host_pages: u64,
    pub gc_pages: u64,
    pub erases: u64,
    pub trimmed_pages: u64,
}

impl FtlCounters {
    /// (host + garbage-collection programs) / host programs; 1 before any write.
    pub fn write_amplification(&self) -> f64 {
        if self.host_pages == 0 {
            1.0
        } else {
            (self.host_pages + self.gc_pages) as f64 / self.host_pages as f64
        }
    }
}

#[derive(Clone)]
struct Pool {
    free: Vec<u32>,
    /// Per write stream ([`Ftl::set_write_streams`]): the block its host writes go to, and the block the valid
    /// pages of its blocks go to when they are cleaned.
    host_open: smallvec::SmallVec<[Option<u32>; 2]>,
    gc_open: smallvec::SmallVec<[Option<u32>; 2]>,
    /// Blocks opened in this pool, for cost-benefit ages.
    blocks_opened: u64,
    /// Victims whose pages have moved but whose erase has not been done ([`Ftl::take_victim`]).
    under_erase: smallvec::SmallVec<[u32; 10]>,
    /// Blocks nobody writes or cleans: MQSim's translation frontiers and other flows' frontiers, in a pool laid
    /// out as MQSim's ([`mqsim_layout`]).
    set_aside: smallvec::SmallVec<[u32; 4]>,
    /// Per write stream, with copies placed when read ([`Ftl::place_copies_when_read`]): victims' valid pages
    /// not yet given a page of the stream's cleaning block.
    unplaced: smallvec::SmallVec<[u32; 2]>,
}

impl Pool {
    /// Whether block `b` is a write frontier (of any stream): it is not cleaned.
    fn is_open(&self, b: u32) -> bool {
        self.host_open.contains(&Some(b)) || self.gc_open.contains(&Some(b))
    }

    fn open_blocks(&self) -> u32 {
        self.host_open.iter().chain(&self.gc_open).filter(|b| b.is_some()).count() as u32
    }
}

#[derive(Clone)]
pub struct Ftl {
    g: FtlGeometry,
    /// lpn -> ppn + 1.
    l2p: Vec<u32>,
    /// While few pages are mapped, or a fill holds most of the mapping and few pages have moved since, their
    /// entries live here rather than in `l2p`: random writes over a large drive then touch a small map, not
    /// hundreds of MiB of table (each first touch a page fault). Moved into `l2p` once they are more than a
    /// 32nd of it.
    /// (Keys are u32: logical pages number fewer than physical, which `check` keeps under 2^32.)
    l2p_changes: Option<rustc_hash::FxHashMap<u32, u32>>,
    /// ppn -> lpn + 1 while the page is valid.
    p2l: Vec<u32>,
    /// Per global block: valid pages, pages written, when it was opened.
    valid: Vec<u32>,
    written: Vec<u32>,
    opened_at: Vec<u64>,
    /// Per global block: times erased (MQSim's static wear-leveling looks at them).
    erase_counts: Vec<u32>,
    /// Per global block: the write stream it was opened for (its cleaning copies go to that stream's block).
    block_stream: Vec<u16>,
    pools: Vec<Pool>,
    counters: FtlCounters,
    fill: Option<Box<fill::Fill>>,
    /// Draws candidates for randomized cleaning.
    cleaning_rng: SimRng,
    /// With MQSim's cleaning: its GC unit's generator, which RGA then draws from as MQSim does
    /// ([`Ftl::seed_mqsim_rga`]).
    mqsim_rga: Option<MqsimRandom>,
    /// A block filled opens the next at once, as MQSim's write frontiers do ([`Ftl::open_blocks_eagerly`]);
    /// otherwise the next write opens it.
    open_eagerly: bool,
    /// A victim's valid pages are given their new pages one by one as the drive reads them
    /// ([`Ftl::place_copies_when_read`], with the free blocks under which host writes stop); otherwise all at
    /// once when the victim is taken.
    place_when_read: Option<u32>,
    /// Where logical pages go when not by `lpn % pools` (MQSim's other allocation schemes, flows on some of
    /// the flash); [`Ftl::set_pool_map`].
    pool_map: Option<Box<pool_map::PoolMap>>,
}

/// What cleaning one victim did, for the drive to charge: valid pages copied (from, to), then one erase.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GcWork {
    pub copies: Vec<(Ppn, Ppn)>,
    /// The erased block's first page.
    pub erased: Ppn,
}

impl Ftl {
    pub fn new(g: FtlGeometry) -> Result<Ftl, String> {
        g.check()?;
        let blocks = g.pools as usize * g.blocks_per_pool as usize;
        let pools = (0..g.pools)
            .map(|_| Pool {
                free: (0..g.blocks_per_pool).rev().collect(),
                host_open: smallvec::smallvec![None],
                gc_open: smallvec::smallvec![None],
                blocks_opened: 0,
                under_erase: smallvec::SmallVec::new(),
                set_aside: smallvec::SmallVec::new(),
                unplaced: smallvec::smallvec![0],
            })
            .collect();
        Ok(Ftl {
            g,
            l2p: vec![0; g.logical_pages as usize],
            // Sparse until a 32nd of the pages is mapped: a large drive that a run touches only in part (MQSim's
            // drive without preconditioning) keeps a small map, not a table of hundreds of MiB touched at random.
            l2p_changes: Some(rustc_hash::FxHashMap::default()),
            p2l: vec![0; g.physical_pages() as usize],
            valid: vec![0; blocks],
            written: vec![0; blocks],
            opened_at: vec![0; blocks],
            erase_counts: vec![0; blocks],
            block_stream: vec![0; blocks],
            pools,
            counters: FtlCounters::default(),
            fill: None,
            cleaning_rng: SimRng::new(1, 0x96a),
            mqsim_rga: None,
            open_eagerly: false,
            place_when_read: None,
            pool_map: None,
        })
    }

    pub fn geometry(&self) -> &FtlGeometry {
        &self.g
    }

    pub fn counters(&self) -> FtlCounters {
        self.counters
    }

    pub fn reset_counters(&mut self) {
        self.counters = FtlCounters::default();
    }

    pub fn pool_of_lpn(&self, lpn: u64) -> u32 {
        match &self.pool_map {
            None => (lpn % self.g.pools as u64) as u32,
            Some(map) => map.pool_of(lpn),
        }
    }

    /// Place logical pages as `map` says from now on (on a drive nothing has been written to yet). An error
    /// when a pool would then hold more logical pages than its blocks take beside the cleaning reserve.
    pub fn set_pool_map(&mut self, map: pool_map::PoolMap) -> Result<(), String> {
        let room = (self.g.blocks_per_pool as u64).saturating_sub(self.g.gc_free_blocks as u64 + 2)
            * self.g.pages_per_block as u64;
        let loads = map.pages_per_pool(self.g.pools);
        if let Some((pool, &most)) = loads.iter().enumerate().max_by_key(|(_, &n)| n).filter(|(_, &n)| n > room) {
            return Err(format!(
                "the flows' resources put {most} logical pages on plane {pool}, which holds {room} beside its \
                 cleaning reserve (flows sharing a plane share its space unevenly here; not modelled)"
            ));
        }
        self.pool_map = Some(Box::new(map));
        Ok(())
    }

    pub fn pool_of_ppn(&self, ppn: Ppn) -> u32 {
        (ppn / (self.g.blocks_per_pool as u64 * self.g.pages_per_block as u64)) as u32
    }

    /// Where a logical page lives, if it was written and not trimmed since.
    pub fn lookup(&self, lpn: u64) -> Option<Ppn> {
        self.locate(lpn).map(|(ppn, _)| ppn)
    }

    /// Where a logical page lives, and whether that copy is still the fill's: a table entry the fill's (0) means
    /// nothing wrote, trimmed or moved the page since, so the fill's copy of it is valid.
    fn locate(&self, lpn: u64) -> Option<(Ppn, bool)> {
        match self.l2p_entry(lpn) {
            0 => self.fill.as_ref().and_then(|f| f.ppn_of(lpn)).map(|ppn| (ppn, true)),
            NONE => None,
            p => Some((p as u64 - 1, false)),
        }
    }

    /// The logical page whose valid copy is at `ppn`, if any, and whether that copy is the fill's. The page the
    /// fill wrote at `ppn` is still valid exactly while its logical page's table entry is the fill's (0): a
    /// write, trim or cleaning move of the page sets the entry, and a block is erased only once its valid
    /// pages have moved. So nothing is kept per fill page, and a large fill costs no memory for pages nobody
    /// rewrites.
    fn owner(&self, ppn: Ppn) -> Option<(u64, bool)> {
        if let Some(lpn) = self.fill.as_ref().and_then(|f| f.lpn_of(ppn)) {
            if self.l2p_entry(lpn) == 0 {
                return Some((lpn, true));
            }
        }
        match self.p2l[ppn as usize] {
            0 => None,
            l => Some((l as u64 - 1, false)),
        }
    }

    fn l2p_entry(&self, lpn: u64) -> u32 {
        match &self.l2p_changes {
            Some(changes) => changes.get(&(lpn as u32)).copied().unwrap_or(0),
            None => self.l2p[lpn as usize],
        }
    }

    fn set_l2p_entry(&mut self, lpn: u64, entry: u32) {
        let Some(changes) = self.l2p_changes.as_mut() else {
            self.l2p[lpn as usize] = entry;
            return;
        };
        changes.insert(lpn as u32, entry);
        if changes.len() as u64 > self.g.logical_pages / 32 {
            for (lpn, entry) in self.l2p_changes.take().expect("changes") {
                let lpn = lpn as u64;
                self.l2p[lpn as usize] = entry;
            }
        }
    }

    /// The "none" entry: 0, or with a fill (where 0 means "as filled") the explicit marker.
    fn none(&self) -> u32 {
        if self.fill.is_some() {
            NONE
        } else {
            0
        }
    }

    pub fn free_blocks(&self, pool: u32) -> u32 {
        self.pools[pool as usize].free.len() as u32
    }

    /// Whether `pool` is below its free-block threshold.
    pub fn needs_gc(&self, pool: u32) -> bool {
        self.free_blocks(pool) < self.g.gc_free_blocks
    }

    fn global_block(&self, pool: u32, block: u32) -> usize {
        pool as usize * self.g.blocks_per_pool as usize + block as usize
    }

    /// The valid copy at `ppn` (the fill's when `fill_copy`, as [`Ftl::locate`] or [`Ftl::owner`] said) is no
    /// longer valid.
    fn invalidate(&mut self, ppn: Ppn, fill_copy: bool) {
        let block = (ppn / self.g.pages_per_block as u64) as usize;
        debug_assert_eq!(fill_copy, self.owner(ppn).is_some_and(|(_, fill)| fill));
        // A fill copy has no table entry to clear: its logical page's entry, set next by the caller, says it
        // is gone.
        if !fill_copy {
            self.p2l[ppn as usize] = 0;
        }
        self.valid[block] -= 1;
    }

    /// Append `lpn` to `stream`'s host or GC open block of the pool, opening a free block if needed.
    fn append(&mut self, pool: u32, lpn: u64, gc: bool, stream: u16) -> Ppn {
        let ppb = self.g.pages_per_block;
        let d = &self.pools[pool as usize];
        let s = stream as usize;
        let block = match if gc { d.gc_open[s] } else { d.host_open[s] } {
            Some(b) => b,
            None => self
                .open_block(pool, gc, stream)
                .expect("FTL invariant: a pool never runs out of free blocks (GC keeps a reserve)"),
        };
        let gb = self.global_block(pool, block);
        let page = self.written[gb];
        self.written[gb] += 1;
        self.valid[gb] += 1;
        if self.written[gb] == ppb {
            let d = &mut self.pools[pool as usize];
            if gc {
                d.gc_open[s] = None;
            } else {
                d.host_open[s] = None;
            }
            // MQSim takes the next write frontier as soon as one is full (Flash_Block_Manager), so the block is
            // opened, and the plane checked, at the write that fills the last one.
            if self.open_eagerly {
                self.open_block(pool, gc, stream);
            }
        }
        let ppn = gb as u64 * ppb as u64 + page as u64;
        self.p2l[ppn as usize] = (lpn + 1) as u32;
        self.set_l2p_entry(lpn, (ppn + 1) as u32);
        ppn
    }

    /// Open a free block of `pool` for `stream`'s host writes or cleaning copies; None when none is free.
    fn open_block(&mut self, pool: u32, gc: bool, stream: u16) -> Option<u32> {
        let d = &mut self.pools[pool as usize];
        let b = d.free.pop()?;
        d.blocks_opened += 1;
        let opened = d.blocks_opened;
        if gc {
            d.gc_open[stream as usize] = Some(b);
        } else {
            d.host_open[stream as usize] = Some(b);
        }
        let gb = self.global_block(pool, b);
        self.opened_at[gb] = opened;
        self.block_stream[gb] = stream;
        Some(b)
    }

    /// Keep `streams` write streams apart from now on: each has its own open blocks in every pool for its host
    /// writes and for the cleaning of its blocks, as a multi-stream drive (MQSim's, a stream per flow) does.
    /// One stream (the default) mixes every write. What was written before is stream 0's; a stream added opens
    /// its blocks at its first write. Fewer streams than now is not a change this makes.
    pub fn set_write_streams(&mut self, streams: u16) {
        let streams = (streams.max(1) as usize).max(self.write_streams() as usize);
        for d in &mut self.pools {
            d.host_open.resize(streams, None);
            d.gc_open.resize(streams, None);
            d.unplaced.resize(streams, 0);
        }
    }

    /// The write streams kept apart ([`Ftl::set_write_streams`]).
    pub fn write_streams(&self) -> u16 {
        self.pools.first().map_or(1, |d| d.host_open.len() as u16)
    }

    /// A host write of one logical page: the old copy becomes invalid, the new one is appended on its pool
    /// (stream 0's block). Call [`Ftl::collect_into`] while [`Ftl::needs_gc`] says so.
    pub fn write(&mut self, lpn: u64) -> Ppn {
        self.write_in_stream(lpn, 0)
    }

    /// [`Ftl::write`] of a page of write stream `stream` (below [`Ftl::write_streams`]): appended on its pool's
    /// block of that stream.
    pub fn write_in_stream(&mut self, lpn: u64, stream: u16) -> Ppn {
        if let Some((old, fill_copy)) = self.locate(lpn) {
            self.invalidate(old, fill_copy);
        }
        self.counters.host_pages += 1;
        let pool = self.pool_of_lpn(lpn);
        self.append(pool, lpn, false, stream)
    }

    /// Map a logical page never written to a page appended on its pool's block of write stream `stream`,
    /// without programming it (no host page counted): MQSim's drive without preconditioning does this on a
    /// page's first read (at the reading flow's write frontier), then reads flash there.
    pub fn map_unwritten(&mut self, lpn: u64, stream: u16) -> Ppn {
        debug_assert!(self.locate(lpn).is_none(), "lpn {lpn} is mapped already");
        let pool = self.pool_of_lpn(lpn);
        self.append(pool, lpn, false, stream)
    }

    /// Trim one logical page.
    pub fn trim(&mut self, lpn: u64) {
        if let Some((old, fill_copy)) = self.locate(lpn) {
            self.invalidate(old, fill_copy);
            let none = self.none();
            self.set_l2p_entry(lpn, none);
            self.counters.trimmed_pages += 1;
        }
    }

    /// The block to clean on `pool`: a full block that is not open, by the configured policy.
    fn victim(&mut self, pool: u32) -> Option<u32> {
        if let (GcPolicy::Randomized { candidates }, Some(_)) = (self.g.gc_policy, &self.mqsim_rga) {
            return self.mqsim_rga_victim(pool, candidates);
        }
        if let GcPolicy::Randomized { candidates } = self.g.gc_policy {
            if let Some(block) = self.randomized_victim(pool, candidates) {
                return Some(block);
            }
        }
        match self.g.gc_policy {
            GcPolicy::CostBenefit => self.cost_benefit_victim(pool),
            GcPolicy::Greedy | GcPolicy::Randomized { .. } => self.greedy_victim(pool),
        }
    }

    /// The full block of `pool` with the fewest valid pages, the lowest-numbered of equals, that is not open or
    /// under erase. The cheap tests come first and an empty block ends the scan: a scan of every block per victim
    /// was most of the cleaning's time on large drives.
    fn greedy_victim(&self, pool: u32) -> Option<u32> {
        let d = &self.pools[pool as usize];
        let ppb = self.g.pages_per_block;
        let base = self.global_block(pool, 0);
        let mut best: Option<(u32, u32)> = None;
        for b in 0..self.g.blocks_per_pool {
            let gb = base + b as usize;
            let v = self.valid[gb];
            // Free (erased) blocks have written == 0.
            if self.written[gb] != ppb || best.is_some_and(|(bv, _)| v >= bv) {
                continue;
            }
            if d.is_open(b) || d.under_erase.contains(&b) {
                continue;
            }
            best = Some((v, b));
            if v == 0 {
                break; // none can have fewer
            }
        }
        best.map(|(_, b)| b)
    }

    /// The full block of `pool` with the lowest u / ((1 - u) x age), u its share of valid pages, that is not open
    /// or under erase; a block with no valid page costs nothing to clean.
    fn cost_benefit_victim(&self, pool: u32) -> Option<u32> {
        let d = &self.pools[pool as usize];
        let ppb = self.g.pages_per_block;
        let mut best: Option<(f64, u32)> = None;
        for b in 0..self.g.blocks_per_pool {
            if d.is_open(b) || d.under_erase.contains(&b) {
                continue;
            }
            let gb = self.global_block(pool, b);
            if self.written[gb] != ppb {
                continue;
            }
            let v = self.valid[gb];
            let u = v as f64 / ppb as f64;
            let age = (d.blocks_opened - self.opened_at[gb]).max(1) as f64;
            let score = if v == 0 { f64::NEG_INFINITY } else { u / ((1.0 - u).max(1e-9) * age) };
            if best.is_none_or(|(s, _)| score < s) {
                best = Some((score, b));
            }
        }
        best.map(|(_, b)| b)
    }

    /// MQSim's RGA: `candidates` distinct blocks of the pool that are not open, drawn at random; of the full ones,
    /// the one with the fewest valid pages (the lowest-numbered of equals, as MQSim's ordered set keeps the
    /// first). None when no full block was drawn.
    fn randomized_victim(&mut self, pool: u32, candidates: u32) -> Option<u32> {
        let d = &self.pools[pool as usize];
        let blocks = self.g.blocks_per_pool;
        let eligible = blocks - d.open_blocks();
        let mut drawn: smallvec::SmallVec<[u32; 16]> = smallvec::SmallVec::new();
        while (drawn.len() as u32) < candidates.min(eligible) {
            let b = self.cleaning_rng.below(blocks as u64) as u32;
            if !d.is_open(b) && !drawn.contains(&b) {
                drawn.push(b);
            }
        }
        let ppb = self.g.pages_per_block;
        drawn
            .into_iter()
            .filter(|&b| self.written[self.global_block(pool, b)] == ppb)
            .min_by_key(|&b| (self.valid[self.global_block(pool, b)], b))
    }

    /// MQSim's RGA as its GC unit runs it (GC_and_WL_Unit_Page_Level::Check_gc_required), with its generator:
    /// `candidates` distinct blocks of the pool that may be cleaned (not a write frontier, not set aside, not a
    /// victim under way), each drawn as Uniform_uint(0, blocks - 1) and drawn again when it may not be or was
    /// drawn already. The victim starts as the lowest-numbered of them and gives way, in block order, to any
    /// full block with more stale pages. None, as MQSim then skips this cleaning, when the victim is not written
    /// or has no stale page (its draws are still spent).
    fn mqsim_rga_victim(&mut self, pool: u32, candidates: u32) -> Option<u32> {
        let d = &self.pools[pool as usize];
        let blocks = self.g.blocks_per_pool;
        let unsafe_blocks = d.under_erase.len() + d.set_aside.len() + 2 * d.host_open.len();
        let wanted = (candidates as usize).min(blocks as usize - unsafe_blocks.min(blocks as usize));
        let rng = self.mqsim_rga.as_mut().expect("MQSim's generator");
        let mut drawn: smallvec::SmallVec<[u32; 16]> = smallvec::SmallVec::new();
        while drawn.len() < wanted {
            let b = (blocks as f64 * rng.next_f64()) as u32;
            let frontier = d.is_open(b) || d.set_aside.contains(&b);
            if !frontier && !d.under_erase.contains(&b) && !drawn.contains(&b) {
                drawn.push(b);
            }
        }
        drawn.sort_unstable();
        let ppb = self.g.pages_per_block;
        let stale = |b: u32| {
            let gb = self.global_block(pool, b);
            self.written[gb] - self.valid[gb]
        };
        let mut victim = *drawn.first()?;
        for &b in &drawn {
            if stale(b) > stale(victim) && self.written[self.global_block(pool, b)] == ppb {
                victim = b;
            }
        }
        let gb = self.global_block(pool, victim);
        (self.written[gb] > 0 && stale(victim) > 0).then_some(victim)
    }

    /// From now on RGA draws its candidates from MQSim's generator for `seed`, as MQSim's GC unit does (one
    /// generator for every plane, drawn in the order the planes clean).
    pub fn seed_mqsim_rga(&mut self, seed: i32) {
        self.mqsim_rga = Some(MqsimRandom::new(seed));
    }

    /// From now on a block that fills opens the pool's next at once (MQSim's write frontiers), not at the next
    /// write.
    pub fn open_blocks_eagerly(&mut self) {
        self.open_eagerly = true;
    }

    /// Where randomized cleaning draws its candidates from (deterministic for a seed).
    pub fn seed_cleaning(&mut self, seed: u64) {
        self.cleaning_rng = SimRng::new(seed, 0x96a);
    }

    /// Clean one victim block on `pool`: copy its valid pages to the pool's GC block and erase it, saying what
    /// was done in `work` (its allocation reused). False if no block can be cleaned or the one chosen has no
    /// stale page.
    pub fn collect_into(&mut self, pool: u32, work: &mut GcWork) -> bool {
        work.copies.clear();
        let Some(victim) = self.victim(pool) else { return false };
        if self.valid[self.global_block(pool, victim)] == self.g.pages_per_block {
            return false; // nothing to gain: every page of the best block is valid
        }
        self.move_valid_pages(pool, victim, work);
        self.pools[pool as usize].under_erase.push(victim);
        self.erased(work.erased);
        true
    }

    /// MQSim's cleaning of one victim (GC_and_WL_Unit_Page_Level::Check_gc_required): copy the victim's valid
    /// pages to the pool's GC block (with [`Ftl::place_copies_when_read`], list them, each placed later by
    /// [`Ftl::place_copy`]), saying what was done in `work`, and leave the block to be erased: it returns to
    /// the pool's free blocks only at [`Ftl::erased`]. False, with nothing done, if no block can be cleaned, if
    /// the one chosen has no stale page (MQSim then skips the cleaning), or if the pool has no room for its
    /// copies (fewer than two free blocks; placed when read, see `room_for_copies`).
    pub fn take_victim(&mut self, pool: u32, work: &mut GcWork) -> bool {
        work.copies.clear();
        if self.place_when_read.is_none() && self.free_blocks(pool) < 2 {
            return false;
        }
        let Some(victim) = self.victim(pool) else { return false };
        let gb = self.global_block(pool, victim);
        if self.valid[gb] == self.g.pages_per_block {
            return false;
        }
        if !self.room_for_copies(pool, self.block_stream[gb], self.valid[gb]) {
            return false;
        }
        self.move_valid_pages(pool, victim, work);
        self.pools[pool as usize].under_erase.push(victim);
        true
    }

    /// Victims of `pool` taken and not yet erased.
    pub fn erasing(&self, pool: u32) -> u32 {
        self.pools[pool as usize].under_erase.len() as u32
    }

    /// Blocks `pool` has opened so far (for its host writes and cleaning copies).
    pub fn blocks_opened(&self, pool: u32) -> u64 {
        self.pools[pool as usize].blocks_opened
    }

    /// The victim whose first page is `first_ppn` is erased: its block is free again.
    pub fn erased(&mut self, first_ppn: Ppn) {
        let ppb = self.g.pages_per_block as u64;
        let pool = self.pool_of_ppn(first_ppn);
        let block = ((first_ppn / ppb) % self.g.blocks_per_pool as u64) as u32;
        let d = &mut self.pools[pool as usize];
        let at = d.under_erase.iter().position(|&b| b == block).expect("an erased block was a victim");
        d.under_erase.swap_remove(at);
        d.free.insert(0, block);
        self.counters.erases += 1;
        let gb = self.global_block(pool, block);
        debug_assert_eq!(self.valid[gb], 0, "an erased block holds no valid page");
        self.written[gb] = 0;
        self.erase_counts[gb] += 1;
    }

    /// MQSim's static wear-leveling as its code runs it after every erase (GC_and_WL_Unit_Base:
    /// check_static_wl_required, run_static_wearleveling), with its defaults, which every device file gets
    /// (SSD_Device passes its settings one argument early): enabled, threshold 100. Its "difference of erase
    /// counts" is the number of the first block with the most erases less the number of the first with the
    /// fewest (block numbers, in unsigned arithmetic), so while that is 100 or more (or negative, which wraps)
    /// each erase relocates the plane's coldest block: the lowest-numbered with the fewest erases, unless it is
    /// a write frontier or already under way. Its valid pages move as a victim's do
    /// and it is erased. Returns whether it took one (in `work`). A coldest block that is free is left alone
    /// (MQSim would erase it where it lies).
    pub fn take_static_wear_leveling(&mut self, pool: u32, work: &mut GcWork) -> bool {
        work.copies.clear();
        let count = |b: u32| self.erase_counts[self.global_block(pool, b)];
        let (mut min_b, mut max_b) = (0u32, 0u32);
        for b in 1..self.g.blocks_per_pool {
            if count(b) > count(max_b) {
                max_b = b;
            }
            if count(b) < count(min_b) {
                min_b = b;
            }
        }
        if max_b.wrapping_sub(min_b) < 100 {
            return false;
        }
        let d = &self.pools[pool as usize];
        let unsafe_block = d.is_open(min_b) || d.set_aside.contains(&min_b) || d.under_erase.contains(&min_b);
        let gb = self.global_block(pool, min_b);
        if unsafe_block || self.written[gb] == 0 {
            return false;
        }
        if !self.room_for_copies(pool, self.block_stream[gb], self.valid[gb]) {
            return false;
        }
        self.move_valid_pages(pool, min_b, work);
        self.pools[pool as usize].under_erase.push(min_b);
        true
    }

    /// Whether the free blocks and cleaning blocks of `pool` can take `more` copies of `stream`'s pages beside
    /// the copies not yet placed, with copies placed as they are read: a victim is taken only then, so that a
    /// copy always finds a page. Host writes may still take the free blocks down to one under the count at
    /// which they stop, so only that many count. (MQSim takes the victim anyway, and stops with an error when a
    /// plane has no free block left for a copy; in its runs that do not stop this never refuses a victim.)
    /// Copies placed when the victim is taken need no such room: always true then.
    fn room_for_copies(&self, pool: u32, stream: u16, more: u32) -> bool {
        let Some(writes_stop_under) = self.place_when_read else { return true };
        let ppb = self.g.pages_per_block;
        let d = &self.pools[pool as usize];
        let writes_stop_under = writes_stop_under.max(1);
        let blocks: u32 = (0..d.unplaced.len())
            .map(|s| {
                let want = d.unplaced[s] + if s == stream as usize { more } else { 0 };
                let room = d.gc_open[s].map_or(0, |b| ppb - self.written[self.global_block(pool, b)]);
                want.saturating_sub(room).div_ceil(ppb)
            })
            .sum();
        blocks <= (d.free.len() as u32).min(writes_stop_under - 1)
    }

    /// From now on a victim's valid pages are given their new pages one by one, as the drive reads them
    /// ([`Ftl::place_copy`]), as MQSim's GC unit allocates a copy's page when its read is done
    /// (Allocate_new_page_for_gc); until then they stay valid where they are, and a host write to one of them
    /// leaves nothing to copy. Host writes must stop while a pool has fewer than `writes_stop_under` free blocks
    /// and a victim under way (MQSim's Stop_servicing_writes), which leaves room for the copies.
    pub fn place_copies_when_read(&mut self, writes_stop_under: u32) {
        self.place_when_read = Some(writes_stop_under);
    }

    /// Whether copies are given their pages as they are read ([`Ftl::place_copies_when_read`]).
    pub fn places_copies_when_read(&self) -> bool {
        self.place_when_read.is_some()
    }

    /// With [`Ftl::place_copies_when_read`]: the victim's page `from` has been read; give its data a page of the
    /// cleaning block of its stream (which may open the next block). None when the page is no longer valid
    /// (written or trimmed since the victim was taken): nothing is copied.
    pub fn place_copy(&mut self, from: Ppn) -> Option<Ppn> {
        let ppb = self.g.pages_per_block as u64;
        let gb = (from / ppb) as usize;
        let pool = self.pool_of_ppn(from);
        let stream = self.block_stream[gb];
        let d = &mut self.pools[pool as usize];
        d.unplaced[stream as usize] -= 1;
        let (lpn, fill_copy) = self.owner(from)?;
        self.invalidate(from, fill_copy);
        self.counters.gc_pages += 1;
        Some(self.append(pool, lpn, true, stream))
    }

    /// Move the victim's valid pages to the pool's GC block of the victim's stream (recorded in `work`; MQSim's
    /// GC_wf of the block's Stream_id) and mark the block empty; with [`Ftl::place_copies_when_read`], only
    /// list them (each `(from, from)` until [`Ftl::place_copy`]).
    fn move_valid_pages(&mut self, pool: u32, victim: u32, work: &mut GcWork) {
        work.copies.clear();
        let ppb = self.g.pages_per_block as u64;
        let gb = self.global_block(pool, victim);
        let stream = self.block_stream[gb];
        let first = gb as u64 * ppb;
        work.erased = first;
        if self.place_when_read.is_some() {
            for ppn in first..first + ppb {
                if self.owner(ppn).is_some() {
                    work.copies.push((ppn, ppn));
                }
            }
            self.pools[pool as usize].unplaced[stream as usize] += work.copies.len() as u32;
            return;
        }
        self.warm_l2p_of_block(first, ppb);
        for ppn in first..first + ppb {
            if let Some((lpn, fill_copy)) = self.owner(ppn) {
                self.invalidate(ppn, fill_copy);
                let to = self.append(pool, lpn, true, stream);
                work.copies.push((ppn, to));
                self.counters.gc_pages += 1;
            }
        }
        debug_assert_eq!(self.valid[gb], 0);
        self.written[gb] = 0;
    }

    /// Speed only, no state changes: read the mapping-table entries of the logical pages a block holds before
    /// its pages move. The pages' logical numbers are scattered over a table larger than the processor's caches,
    /// so each move would wait for memory in turn; read here, in a loop whose loads do not depend on each other,
    /// the processor fetches many at once and the moves find them cached (about 2x faster preconditioning).
    fn warm_l2p_of_block(&self, first: Ppn, pages: u64) {
        if self.l2p_changes.is_some() {
            return; // a small hash map: cached already
        }
        let mut sum = 0u32;
        for ppn in first..first + pages {
            // The page's logical number as `owner` finds it, without its fill test of the table: through a call
            // to `owner` this loop made a 64 GiB preconditioning 17 % slower (scripts/bench-precondition.sh).
            let lpn = match self.p2l[ppn as usize] {
                0 => self.fill.as_ref().and_then(|f| f.lpn_of(ppn)),
                l => Some(l as u64 - 1),
            };
            if let Some(lpn) = lpn {
                sum = sum.wrapping_add(self.l2p[lpn as usize]);
            }
        }
        std::hint::black_box(sum);
    }

    /// Clean `pool` until it is back at its threshold.
    pub fn collect_until_ok(&mut self, pool: u32, work: &mut GcWork) {
        while self.needs_gc(pool) && self.collect_into(pool, work) {}
    }

    /// Write every logical page once, in order (a sequential fill).
    pub fn fill_sequential(&mut self) {
        let mut work = GcWork::default();
        for lpn in 0..self.g.logical_pages {
            self.write(lpn);
            let pool = self.pool_of_lpn(lpn);
            self.collect_until_ok(pool, &mut work);
        }
    }

    /// Write logical page ranges `(first, pages)` once each, in order. On a fresh drive where the fill leaves
    /// every pool above its cleaning threshold, this is arithmetic per block (ssd/ftl/fill.rs) rather than a write
    /// per page; otherwise the pages are written one by one.
    pub fn fill_ranges(&mut self, ranges: &[(u64, u64)]) {
        let logical = self.g.logical_pages;
        let ranges: Vec<(u64, u64)> =
            ranges.iter().map(|&(first, pages)| (first.min(logical), (first + pages).min(logical))).collect();
        let ppb = self.g.pages_per_block as u64;
        let pages_per_pool = self.g.blocks_per_pool as u64 * ppb;
        let fresh = self.fill.is_none()
            && self.pool_map.is_none()
            && self.pools.iter().all(|d| d.open_blocks() == 0 && d.free.len() == self.g.blocks_per_pool as usize);
        let fill = fill::Fill::new(self.g.pools, pages_per_pool, &ranges);
        let fits = (0..self.g.pools).all(|d| {
            fill.pages_on_pool(d).div_ceil(ppb) + self.g.gc_free_blocks as u64 <= self.g.blocks_per_pool as u64
        });
        if !(fresh && fits) {
            for (start, end) in ranges {
                self.fill_range(start, end - start);
            }
            return;
        }
        for pool in 0..self.g.pools {
            let pages = fill.pages_on_pool(pool);
            let used = pages.div_ceil(ppb) as u32;
            for b in 0..used {
                let gb = self.global_block(pool, b);
                let written = (pages - b as u64 * ppb).min(ppb) as u32;
                self.written[gb] = written;
                self.valid[gb] = written;
                self.opened_at[gb] = b as u64 + 1;
            }
            let d = &mut self.pools[pool as usize];
            d.free = (used..self.g.blocks_per_pool).rev().collect();
            d.blocks_opened = used as u64;
            d.host_open[0] = (pages % ppb != 0).then_some(used - 1);
        }
        self.fill = Some(Box::new(fill));
        self.l2p_changes = Some(rustc_hash::FxHashMap::default());
    }

    /// Write logical pages `first..first + pages` once, in order (a fill of part of the drive).
    pub fn fill_range(&mut self, first: u64, pages: u64) {
        let mut work = GcWork::default();
        for lpn in first..(first + pages).min(self.g.logical_pages) {
            self.write(lpn);
            let pool = self.pool_of_lpn(lpn);
            self.collect_until_ok(pool, &mut work);
        }
    }

    /// `count` uniformly random single-page overwrites (deterministic for a seed).
    pub fn random_overwrites(&mut self, count: u64, seed: u64) {
        self.random_overwrites_in(0, self.g.logical_pages, count, seed);
    }

    /// `count` uniformly random single-page overwrites of logical pages `first..first + pages` (deterministic
    /// for a seed; over the whole drive, the same pages as `random_overwrites`).
    pub fn random_overwrites_in(&mut self, first: u64, pages: u64, count: u64, seed: u64) {
        let first = first.min(self.g.logical_pages);
        let pages = pages.min(self.g.logical_pages - first);
        if pages == 0 {
            return;
        }
        let mut rng = SimRng::new(seed, 0x55d);
        let mut work = GcWork::default();
        // In batches whose table entries are read ahead (`warm_pages`); the pages and their order are the same.
        let mut batch = [0u64; 32];
        let mut left = count;
        while left > 0 {
            let n = left.min(batch.len() as u64) as usize;
            left -= n as u64;
            for lpn in &mut batch[..n] {
                *lpn = first + rng.below(pages);
            }
            self.warm_pages(&batch[..n]);
            for &lpn in &batch[..n] {
                self.write(lpn);
                let pool = self.pool_of_lpn(lpn);
                self.collect_until_ok(pool, &mut work);
            }
        }
    }

    /// Speed only, no state changes: read the table entries of logical pages about to be written, and of the
    /// physical pages they map to, in loops whose loads do not depend on each other (see
    /// [`Ftl::warm_l2p_of_block`]).
    fn warm_pages(&self, lpns: &[u64]) {
        if self.l2p_changes.is_some() {
            return;
        }
        let mut sum = 0u32;
        for &lpn in lpns {
            sum = sum.wrapping_add(self.l2p[lpn as usize]);
        }
        for &lpn in lpns {
            // A fill's copy has no entry in p2l to read ahead.
            if let Some((ppn, false)) = self.locate(lpn) {
                sum = sum.wrapping_add(self.p2l[ppn as usize]);
                sum = sum.wrapping_add(self.valid[(ppn / self.g.pages_per_block as u64) as usize]);
            }
        }
        std::hint::black_box(sum);
    }
}

/// Write amplification of greedy cleaning under uniform random overwrites for over-provisioning `op`
/// (Xiang and Kurkoski, arXiv 1110.4245): with alpha = 1 + op, WA = alpha / (alpha + W0(-alpha e^-alpha)).
pub fn lambert_w_write_amplification(op: f64) -> f64 {
    let alpha = 1.0 + op;
    let x = -alpha * (-alpha).exp();
    // W0 on [-1/e, 0) by Halley's iteration from a branch-point series start.
    let p = (2.0 * (std::f64::consts::E * x + 1.0)).max(0.0).sqrt();
    let mut w = -1.0 + p - p * p / 3.0 + 11.0 / 72.0 * p * p * p;
    for _ in 0..50 {
        let ew = w.exp();
        let f = w * ew - x;
        let next = w - f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0));
        if (next - w).abs() < 1e-15 {
            w = next;
            break;
        }
        w = next;
    }
    alpha / (alpha + w)
}

#[cfg(test)]
mod tests;
