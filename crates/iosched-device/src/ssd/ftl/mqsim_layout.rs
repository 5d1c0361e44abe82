//! MQSim's preconditioning layout: the occupied pages placed straight into blocks whose numbers of valid pages
//! follow a computed steady state, as MQSim's FTL does when `Enabled_Preconditioning` is set, instead of aging
//! the drive by writing (the FTL's own `random_overwrites_in`).
//!
//! Source: MQSim's FTL.cpp (Perform_precondition, step 2), utils/Helper_Functions.cpp (Euler_estimation,
//! Combination_count) and Address_Mapping_Unit_Page_Level.cpp (Allocate_address_for_preconditioning). As there:
//! - The distribution of valid pages per block is B. Van Houdt's mean-field model of d-choices cleaning
//!   (SIGMETRICS 2013), started from a binomial and stepped by Euler's method; d is RGA's candidate count, 30
//!   for greedy and FIFO. A streaming flow's blocks are wholly valid (share rho) or wholly stale.
//!   rho = occupancy x (1 - over-provisioning) / (1 - the cleaning threshold's blocks / blocks per plane).
//! - Per plane, the blocks to fill are (blocks per plane - threshold / 2) x the flow's share of the plane; the
//!   distribution is shifted by whole pages so its mean matches the plane's occupied pages, each count's blocks
//!   are its share of the goal rounded down (the pages left over go to the first count's blocks), and blocks are
//!   filled from the most valid pages down, each taking the plane's highest logical pages left. Every other page
//!   of a filled block is stale.
//! - Each plane had its write frontiers (data, translation and cleaning, per flow) taken from its pool first,
//!   and each flow's blocks are filled through its own data frontier. Here each of the FTL's pools is one of
//!   MQSim's planes, and its free blocks are the plane's pool: each flow's write stream has its data and
//!   cleaning blocks opened in the place of MQSim's frontiers, and the translation frontiers are set aside, used
//!   by nobody (MQSim never programs translation pages).
//!
//! Where MQSim's layout cannot place every page of a plane (MQSim then stops with an error), the rest are
//! written afterwards as a drive writes them. Approximations: the occupied pages are picked uniformly as MQSim
//! picks them, by iosched's own random numbers (so the same number per plane, not the same pages); a streaming
//! flow's are the first of its range, where MQSim's run starts at a random address. Hot/cold flows are laid out
//! as uniform ones (MQSim shifts their distribution by their hot share).

use super::{Ftl, Ppn};
use iosched_core::rng::SimRng;

/// How MQSim's preconditioning lays a drive out (the numbers it takes from the device file).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MqsimLayout {
    pub blocks_per_plane: u32,
    /// MQSim's block_pool_gc_threshold (a plane cleans when its free blocks fall under it): the layout leaves
    /// half of it free per plane and takes it out of rho. (iosched's cleaning keeps its own threshold.)
    pub gc_threshold_blocks: u32,
    /// Candidates of the mean-field model (RGA's, or 30 for greedy).
    pub candidates: u32,
    /// Sectors (512 bytes) in a page: where a flow's sectors fall.
    pub sectors_per_page: u64,
    /// MQSim's Overprovisioning_Ratio (a share of the physical pages).
    pub overprovisioning_ratio: f64,
    /// Whether a flow's share of a plane is 1 / the flows (NVMe) or 1 (SATA).
    pub shared_planes: bool,
    /// The workload's flows (each has its own write frontiers in every plane).
    pub flows: u32,
}

/// One flow to lay out: `pages` occupied logical pages among `first_page..first_page + range_pages` (at
/// random, or the first ones when the flow streams), and its occupancy as its workload states it (a share of
/// its own logical range; MQSim's rho takes that, not the pages it ends up placing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaidOutFlow {
    pub first_page: u64,
    pub range_pages: u64,
    pub pages: u64,
    pub occupancy: f64,
    pub streaming: bool,
    /// The flow's write stream (its place among the workload's flows): its blocks are filled through its own
    /// data frontier.
    pub stream: u16,
    /// A flow whose occupied pages MQSim draws with its own random numbers ([`MqsimFlowAddresses`]): those
    /// exact pages, in place of `pages` picked uniformly from `range_pages`.
    pub addresses: Option<MqsimFlowAddresses>,
}

/// A synthetic flow of an MQSim workload whose addresses MQSim takes as uniform (RANDOM_UNIFORM, or
/// RANDOM_HOTCOLD with a hot region over 30 %) and whose requests have a FIXED size: what MQSim's
/// preconditioning needs to draw the pages it occupies (FTL::Perform_precondition, step 1). It runs the flow's
/// address generator again from the flow's seed, as the flow itself will, so the occupied pages are those
/// the flow's first requests touch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MqsimFlowAddresses {
    /// The flow's Seed (its address generator is seeded with the next number).
    pub seed: u32,
    /// The flow's first and last sector, as its requests are drawn (MQSim's start_lsa_on_device and
    /// end_lsa_on_device: the flow's part of the logical space times its working set).
    pub first_sector: u64,
    pub last_sector: u64,
    pub size_sectors: u64,
    pub align_sectors: Option<u64>,
    /// Initial_Occupancy_Percentage and Working_Set_Percentage, as shares.
    pub occupancy: f64,
    pub working_set: f64,
    /// Sectors of the flow's part of the logical space (what the occupancy is a share of).
    pub flow_sectors: u64,
}

/// The logical pages MQSim's preconditioning occupies for `f`, ascending, numbered from the flow's first
/// sector's page: as Perform_precondition, the range is the flow's first sector to one before its last (it
/// takes Max_LHA - 1), the occupancy share of the flow's pages is wanted, and when the range is short of 1.1
/// times that, the range widens by the working set and, if still short, 90 % of it is wanted. Requests are
/// drawn (Uniform_ulong over the range; one running past its end starts at its first sector; aligned down) and
/// each one's pages kept until that many distinct pages are held.
pub fn mqsim_preconditioned_pages(f: &MqsimFlowAddresses, sectors_per_page: u64) -> Vec<u64> {
    use iosched_core::mqsim_rng::MqsimRandom;
    let spp = sectors_per_page.max(1);
    let align = f.align_sectors.filter(|&a| a > 0);
    let mut min_sector = f.first_sector;
    let mut max_sector = f.last_sector.saturating_sub(1);
    if let Some(a) = align {
        if min_sector % a != 0 {
            min_sector += a - min_sector % a;
        }
        if max_sector % a != 0 {
            max_sector -= min_sector % a; // MQSim's expression (zero once the first sector is aligned)
        }
    }
    let min_page = min_sector / spp;
    let mut max_page = (max_sector / spp).saturating_sub(1);
    let mut wanted = (f.occupancy * (f.flow_sectors / spp) as f64) as u64;
    if ((max_page - min_page.min(max_page)) as f64) < 1.1 * wanted as f64 {
        let working_set = if f.working_set > 0.0 { f.working_set } else { 1.0 };
        max_sector = min_sector + ((max_sector - min_sector) as f64 / working_set) as u64;
        if let Some(a) = align {
            if max_sector % a != 0 {
                max_sector -= min_sector % a;
            }
        }
        max_page = max_sector / spp;
        if ((max_page - min_page.min(max_page)) as f64) < 1.1 * wanted as f64 {
            wanted = (0.9 * (max_page - min_page.min(max_page)) as f64) as u64;
        }
    }
    // Pages counted from the first sector's, over the range the draws can reach.
    let span_pages = (max_sector - min_sector + f.size_sectors) / spp + 2;
    let wanted = wanted.min(span_pages);
    let mut held = vec![0u64; span_pages.div_ceil(64) as usize];
    let mut count = 0u64;
    let mut address = MqsimRandom::new(f.seed.wrapping_add(1) as i32);
    // The draws reach every page of the range, so `wanted` (at most 90 % of it when it is short) is reached;
    // the bound on requests only guards a range too small for the flow's requests.
    let mut requests_left = 64 * span_pages + 1_000;
    while count < wanted && requests_left > 0 {
        requests_left -= 1;
        let mut start = address.uniform_u64(min_sector, max_sector);
        if start + f.size_sectors > max_sector {
            start = min_sector;
        }
        if let Some(a) = align {
            start -= start % a;
        }
        let offset = start.saturating_sub(min_sector);
        let (first, last) = (offset / spp, (offset + f.size_sectors.max(1) - 1) / spp);
        for page in first..=last.min(span_pages - 1) {
            let (word, bit) = ((page / 64) as usize, page % 64);
            if held[word] >> bit & 1 == 0 {
                held[word] |= 1 << bit;
                count += 1;
            }
        }
    }
    let mut pages = Vec::with_capacity(count as usize);
    for (w, &word) in held.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            pages.push(w as u64 * 64 + bits.trailing_zeros() as u64);
            bits &= bits - 1;
        }
    }
    pages
}

/// MQSim's Combination_count: n choose k in floating point.
fn combinations(n: f64, k: f64) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = if k * 2.0 > n { n - k } else { k };
    if k == 0.0 {
        return 1.0;
    }
    let mut result = n;
    let mut i = 2.0;
    while i <= k {
        result *= n - i + 1.0;
        result /= i;
        i += 1.0;
    }
    result
}

/// The steady-state share of blocks with each number of valid pages (0..=b) under d-choices cleaning of
/// uniformly random writes at fill `rho`: MQSim's binomial start and Euler_estimation (step 0.001, at most
/// 10,000 steps, until no term moves by 1e-10), including its handling of the last terms (the tail sums at
/// b and b + 1 are zeroed by the first step, which leaves them unset).
pub fn mean_field_distribution(pages_per_block: u32, rho: f64, candidates: u32) -> Vec<f64> {
    let b = pages_per_block as usize;
    let mu: Vec<f64> = (0..=b)
        .map(|i| combinations(b as f64, i as f64) * rho.powf(i as f64) * (1.0 - rho).powf((b - i) as f64))
        .collect();
    let (h, max_diff, steps) = (0.001, 1e-10, 10_000);
    let d = candidates as f64;
    // w0[i]: the share of blocks with at least i valid pages.
    let mut w0 = vec![0.0; b + 2];
    let mut w = vec![0.0; b + 2];
    w0[0] = 1.0;
    w[0] = 1.0;
    for i in 1..=b + 1 {
        w0[i] = mu[i.min(b + 1)..].iter().sum();
    }
    let mut diff = f64::MAX;
    let mut step = 0;
    while step < steps && diff > max_diff {
        let sigma: f64 = (1..=b).map(|j| w0[j].powf(d)).sum();
        for i in 1..b {
            w[i] = w0[i]
                + h * (1.0
                    - w0[i].powf(d)
                    - (b as f64 - sigma) * ((i as f64 * (w0[i] - w0[i + 1])) / (b as f64 * rho)));
        }
        diff = (w[0] - w0[0]).abs();
        for i in 1..=b {
            diff = diff.max((w[i] - w0[i]).abs());
        }
        w0[1..].copy_from_slice(&w[1..]);
        step += 1;
    }
    (0..=b).map(|i| w0[i] - w0[i + 1]).collect()
}

/// A streaming flow's blocks: wholly stale (1 - rho) or wholly valid (rho).
pub fn streaming_distribution(pages_per_block: u32, rho: f64) -> Vec<f64> {
    let b = pages_per_block as usize;
    (0..=b)
        .map(|i| {
            if i == 0 {
                1.0 - rho
            } else if i == b {
                rho
            } else {
                0.0
            }
        })
        .collect()
}

/// The valid pages of each block MQSim fills on one plane, in the order it fills them, for `pages` occupied
/// logical pages of the plane and a goal of `goal_blocks` blocks (Allocate_address_for_preconditioning).
pub fn plane_blocks(distribution: &[f64], goal_blocks: u32, pages: u64, pages_per_block: u32) -> Vec<u32> {
    let b = pages_per_block as i64;
    let goal = goal_blocks as f64;
    // Shift the distribution by whole pages so that its mean is the plane's.
    let model_mean: f64 = distribution.iter().enumerate().map(|(i, p)| p * i as f64 / b as f64).sum();
    let real_mean = pages as f64 / (goal * b as f64);
    let mut adjusted = distribution.to_vec();
    if (model_mean - real_mean).abs() * b as f64 > 0.9999 {
        let shift = ((real_mean - model_mean) * b as f64) as i64; // toward zero, as C's int()
        if shift > 0 {
            for i in 0..b {
                adjusted[i as usize] = if i < shift { 0.0 } else { distribution[(i - shift) as usize] };
            }
        } else {
            let shift = -shift;
            for i in 0..b {
                adjusted[i as usize] = if i < b - shift { distribution[(i + shift) as usize] } else { 0.0 };
            }
        }
    }
    let blocks_with = |v: i64| (adjusted[v as usize] * goal) as u64;
    let placed: u64 = (0..=b).map(|v| v as u64 * blocks_with(v)).sum();
    let mut unplaced = pages.saturating_sub(placed);
    let mut remaining_blocks = goal_blocks as u64;
    let mut pages_left = pages;
    let mut blocks = Vec::new();
    let mut v = b;
    while v >= 0 {
        let mut count = blocks_with(v);
        if count > 0 && unplaced > 0 && v > 0 {
            count += unplaced.div_ceil(v as u64);
            unplaced = 0;
        }
        if count <= remaining_blocks {
            remaining_blocks -= count;
        } else {
            count = remaining_blocks;
            remaining_blocks = 0;
        }
        for _ in 0..count {
            // MQSim lowers its loop's count here when the plane's pages run out, which also moves its loop on.
            if (pages_left as i64) < v {
                v = pages_left as i64;
            }
            blocks.push(v as u32);
            pages_left -= v as u64;
        }
        v -= 1;
    }
    blocks
}

/// A plane's blocks as MQSim's layout hands them out: each flow's three frontiers first (flow `s`'s data,
/// translation and cleaning frontiers are blocks 3s, 3s + 1 and 3s + 2), then the free blocks, lowest first
/// (its Get_a_free_block). A flow fills its data frontier, which then moves to the next free block.
#[derive(Clone, Debug)]
struct PlaneFrontiers {
    data: Vec<u32>,
    next_free: u32,
    /// Blocks filled so far (the order they were opened in).
    filled: u32,
}

impl PlaneFrontiers {
    fn new(streams: u32) -> PlaneFrontiers {
        PlaneFrontiers { data: (0..streams).map(|s| 3 * s).collect(), next_free: 3 * streams, filled: 0 }
    }

    /// The block `stream` fills next (its data frontier).
    fn to_fill(&self, stream: u16) -> u32 {
        self.data[stream as usize]
    }

    /// `stream` filled its data frontier: the next free block takes its place.
    fn filled(&mut self, stream: u16) {
        self.data[stream as usize] = self.next_free;
        self.next_free += 1;
        self.filled += 1;
    }
}

impl Ftl {
    /// Lay the occupied pages of `flows` out as MQSim's preconditioning does (see the module's header), on a
    /// drive nothing has been written to, whose pools are MQSim's planes. The random picks follow `seed`.
    pub fn lay_out_as_mqsim(&mut self, layout: &MqsimLayout, flows: &[LaidOutFlow], seed: u64) {
        debug_assert!(
            self.pools.iter().all(|d| d.free.len() == self.g.blocks_per_pool as usize) && self.fill.is_none(),
            "MQSim's layout is of a drive nothing was written to"
        );
        debug_assert_eq!(self.g.blocks_per_pool, layout.blocks_per_plane, "each pool is a plane");
        let ppb = self.g.pages_per_block;
        let streams = layout.flows.max(1);
        if (self.write_streams() as u32) < streams {
            self.set_write_streams(streams as u16);
        }
        let share = if layout.shared_planes { 1.0 / streams as f64 } else { 1.0 };
        let threshold = layout.gc_threshold_blocks;
        let goal_blocks = ((layout.blocks_per_plane - threshold / 2) as f64 * share) as u32;
        let rho_divisor = 1.0 - threshold as f64 / layout.blocks_per_plane as f64;
        // Per pool, the flows' data frontiers and the next free block.
        let mut planes = vec![PlaneFrontiers::new(streams); self.g.pools as usize];
        let mut unplaced = Vec::new();
        let pools = self.g.pools as u64;
        for flow in flows {
            let rho = flow.occupancy * (1.0 - layout.overprovisioning_ratio) / rho_divisor;
            let distribution = if flow.streaming {
                streaming_distribution(ppb, rho)
            } else {
                mean_field_distribution(ppb, rho, layout.candidates)
            };
            let end = (flow.first_page + flow.range_pages).min(self.g.logical_pages);
            let range = end.saturating_sub(flow.first_page);
            let pages = flow.pages.min(range);
            // MQSim's own pages for the flow, where it draws them, each pool's in address order.
            let mut drawn: Vec<Vec<u64>> = Vec::new();
            if let Some(addresses) = &flow.addresses {
                drawn = vec![Vec::new(); self.g.pools as usize];
                let first_page = addresses.first_sector / layout.sectors_per_page;
                for page in mqsim_preconditioned_pages(addresses, layout.sectors_per_page) {
                    let lpn = first_page + page;
                    if lpn < self.g.logical_pages {
                        drawn[(lpn % pools) as usize].push(lpn);
                    }
                }
            }
            for pool in 0..self.g.pools {
                // The pool's occupied pages of this flow, in address order: its share of them, picked uniformly
                // among its pages of the range (Knuth's selection sampling), or its first ones.
                let first = flow.first_page + (pool as u64 + pools - flow.first_page % pools) % pools;
                let in_pool = if first < end { (end - 1 - first) / pools + 1 } else { 0 };
                let mut wanted = (pages as f64 * in_pool as f64 / range.max(1) as f64).round() as u64;
                let mut lpns = Vec::with_capacity(wanted as usize);
                if let Some(own) = drawn.get_mut(pool as usize) {
                    lpns = std::mem::take(own);
                } else {
                    let mut rng = SimRng::new(seed ^ (pool as u64) << 32, 0x1a7);
                    for (k, lpn) in (first..end).step_by(pools as usize).enumerate() {
                        let left = in_pool - k as u64;
                        if wanted > 0 && (flow.streaming || wanted >= left || rng.below(left) < wanted) {
                            wanted -= 1;
                            lpns.push(lpn);
                        }
                    }
                }
                let plane = &mut planes[pool as usize];
                for valid in plane_blocks(&distribution, goal_blocks, lpns.len() as u64, ppb) {
                    let block = plane.to_fill(flow.stream);
                    if block >= self.g.blocks_per_pool {
                        break; // never past the plane: what is left is written below
                    }
                    plane.filled(flow.stream);
                    let gb = self.global_block(pool, block);
                    let first_ppn: Ppn = gb as u64 * ppb as u64;
                    for page in 0..valid as u64 {
                        let lpn = lpns.pop().expect("a page for every valid slot");
                        self.p2l[(first_ppn + page) as usize] = (lpn + 1) as u32;
                        self.set_l2p_entry(lpn, (first_ppn + page + 1) as u32);
                    }
                    self.written[gb] = ppb;
                    self.valid[gb] = valid;
                    self.opened_at[gb] = plane.filled as u64; // in the order the layout fills them
                    self.block_stream[gb] = flow.stream;
                }
                unplaced.extend(lpns.into_iter().map(|lpn| (lpn, flow.stream)));
            }
        }
        self.open_frontiers(&planes, streams);
        // Pages MQSim's layout cannot place (it stops there: "It is not possible to assign PPA to all LPAs"):
        // written as a drive writes them, cleaning as it goes.
        let mut work = super::GcWork::default();
        for (lpn, stream) in unplaced {
            self.write_in_stream(lpn, stream);
            self.collect_until_ok(self.pool_of_lpn(lpn), &mut work);
        }
    }

    /// MQSim's drive as it starts, before anything is written (without preconditioning): every plane has each
    /// of `streams` flows' three frontiers taken from its pool (Flash_Block_Manager_Base: data, translation and
    /// cleaning of flow s are blocks 3s, 3s + 1 and 3s + 2), the rest free, lowest first. Does nothing on a
    /// drive something was written to.
    pub fn open_frontiers_as_mqsim(&mut self, streams: u32) {
        let fresh = self.fill.is_none() && self.pools.iter().all(|d| d.free.len() == self.g.blocks_per_pool as usize);
        if !fresh {
            return;
        }
        let streams = streams.max(1);
        if (self.write_streams() as u32) < streams {
            self.set_write_streams(streams as u16);
        }
        let planes = vec![PlaneFrontiers::new(streams); self.g.pools as usize];
        self.open_frontiers(&planes, streams);
    }

    /// MQSim took each plane's write frontiers (data, translation and cleaning, per flow) from its pool first,
    /// lowest block numbers first, and each flow filled its data frontier, then the free block handed to it
    /// next (`planes`). Each stream's data block is opened where its MQSim data frontier then is and its
    /// cleaning block at its MQSim cleaning frontier; the translation frontiers are set aside. So the pool's
    /// blocks carry MQSim's numbers (what RGA draws), and its free blocks are MQSim's, in the order MQSim hands
    /// them out.
    fn open_frontiers(&mut self, planes: &[PlaneFrontiers], streams: u32) {
        let blocks = self.g.blocks_per_pool;
        for (pool, plane) in planes.iter().enumerate() {
            let within = |b: u32| Some(b).filter(|&b| b < blocks);
            let mut opened = plane.filled as u64;
            for s in 0..streams {
                for (gc, block) in [(false, within(plane.data[s as usize])), (true, within(3 * s + 2))] {
                    let Some(block) = block else { continue };
                    opened += 1;
                    let gb = self.global_block(pool as u32, block);
                    self.opened_at[gb] = opened;
                    self.block_stream[gb] = s as u16;
                    let d = &mut self.pools[pool];
                    if gc {
                        d.gc_open[s as usize] = Some(block);
                    } else {
                        d.host_open[s as usize] = Some(block);
                    }
                }
            }
            let d = &mut self.pools[pool];
            d.free = (plane.next_free.min(blocks)..blocks).rev().collect();
            d.blocks_opened = opened;
            d.set_aside = (0..streams).map(|s| 3 * s + 1).filter(|&b| b < blocks).collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MQSim's preconditioning draws a flow's requests again from its seed: on the 256-block drive at 12 %
    /// over-provisioning, a flow with Seed 798, 128 KiB requests aligned to 16 sectors, whose first three
    /// requests MQSim issues at sectors 59,380,208, 97,419,056 and 74,144,768 (see iosched-workload's
    /// mqsim_random tests). Wanting 40 pages, it takes those three requests' 48.
    #[test]
    fn mqsims_preconditioning_occupies_the_pages_the_flows_first_requests_touch() {
        let flow = MqsimFlowAddresses {
            seed: 798,
            first_sector: 0,
            last_sector: 118_111_487,
            size_sectors: 256,
            align_sectors: Some(16),
            occupancy: 40.5 / 7_381_968.0,
            working_set: 1.0,
            flow_sectors: 118_111_488,
        };
        let pages = mqsim_preconditioned_pages(&flow, 16);
        let mut expected: Vec<u64> =
            [59_380_208u64, 97_419_056, 74_144_768].iter().flat_map(|s| s / 16..s / 16 + 16).collect();
        expected.sort_unstable();
        assert_eq!(pages, expected);
    }

    #[test]
    fn the_mean_field_distribution_is_a_distribution_peaked_below_full_blocks() {
        let mu = mean_field_distribution(256, 0.877, 8);
        assert_eq!(mu.len(), 257);
        let sum: f64 = mu.iter().sum();
        assert!((sum - 1.0).abs() < 0.01, "sums to {sum}");
        let mean: f64 = mu.iter().enumerate().map(|(i, p)| p * i as f64).sum();
        assert!(mean > 0.8 * 256.0 && mean < 256.0, "mean valid pages {mean}");
    }

    /// MQSim's own layout of one plane of its shipped drive with 256 blocks a plane, 12 % over-provisioning,
    /// 95 % occupancy and RGA (8 candidates), as its Allocate_address_for_preconditioning placed it (a debug print
    /// of MQSim 2.0 built from ../shared/peers, plane 0 of chip 0): 51,865 pages, 241 of the 250 blocks filled,
    /// 46 with 242 valid pages, then one to four each from 241 down to 173, and a last with the 69 left.
    #[test]
    fn a_plane_is_laid_out_as_mqsims_preconditioning_lays_it_out() {
        let rho = 0.95 * (1.0 - 0.12) / (1.0 - 12.0 / 256.0);
        let blocks = plane_blocks(&mean_field_distribution(256, rho, 8), 250, 51_865, 256);
        assert_eq!(blocks.iter().map(|&v| v as u64).sum::<u64>(), 51_865);
        assert_eq!(blocks.len(), 241, "blocks filled");
        assert_eq!(blocks.iter().filter(|&&v| v == 242).count(), 46);
        assert_eq!(blocks.iter().filter(|&&v| v == 241).count(), 3);
        assert_eq!(blocks.iter().filter(|&&v| v == 204).count(), 4);
        assert_eq!(blocks.iter().filter(|&&v| v == 173).count(), 1);
        assert_eq!(blocks.iter().filter(|&&v| v == 172).count(), 0, "the 172s' block takes the 69 pages left");
        assert_eq!(*blocks.last().unwrap(), 69);
    }

    /// MQSim numbers a plane's blocks as it hands them out: its data, translation and cleaning frontiers take
    /// blocks 0, 1 and 2, the layout fills the data frontier (block 0) and then blocks 3, 4, ... in turn, and
    /// the data frontier ends on the next. Laid out here the same way, so RGA's draws name the same blocks.
    #[test]
    fn a_plane_numbers_its_blocks_as_mqsim_hands_them_out() {
        let g = super::super::FtlGeometry {
            pools: 2,
            blocks_per_pool: 64,
            pages_per_block: 16,
            logical_pages: (2.0 * 64.0 * 16.0 * 0.88) as u64,
            gc_free_blocks: 10,
            gc_policy: super::super::GcPolicy::Randomized { candidates: 6 },
        };
        let mut f = Ftl::new(g).unwrap();
        let layout = MqsimLayout {
            blocks_per_plane: 64,
            gc_threshold_blocks: 10,
            candidates: 6,
            sectors_per_page: 16,
            overprovisioning_ratio: 0.12,
            shared_planes: true,
            flows: 1,
        };
        let flow = LaidOutFlow {
            first_page: 0,
            range_pages: g.logical_pages,
            pages: g.logical_pages / 2,
            occupancy: 0.5,
            streaming: false,
            stream: 0,
            addresses: None,
        };
        f.lay_out_as_mqsim(&layout, &[flow], 1);
        for pool in 0..2 {
            let full = |b: u32| f.written[f.global_block(pool, b)] == 16;
            let filled = (0..64).filter(|&b| full(b)).count() as u32;
            assert!(filled > 10, "{filled} blocks filled");
            let written: Vec<u32> = (0..64).map(|b| f.written[f.global_block(pool, b)]).collect();
            assert!(full(0) && !full(1) && !full(2), "block 0 is filled first, 1 and 2 are frontiers: {written:?}");
            assert!((3..filled + 2).all(full), "then 3 onwards");
            let d = &f.pools[pool as usize];
            assert_eq!(
                (d.host_open.as_slice(), d.gc_open.as_slice()),
                ([Some(filled + 2)].as_slice(), [Some(2)].as_slice())
            );
            assert_eq!(d.set_aside.as_slice(), [1]);
            assert_eq!(d.free.last(), Some(&(filled + 3)), "the lowest free block is handed out first");
        }
    }

    #[test]
    fn a_streaming_flow_leaves_whole_blocks_valid() {
        let blocks = plane_blocks(&streaming_distribution(64, 0.5), 100, 64 * 50, 64);
        assert!(blocks.iter().all(|&v| v == 64 || v == 0), "{blocks:?}");
        assert_eq!(blocks.iter().map(|&v| v as u64).sum::<u64>(), 64 * 50);
    }
}
