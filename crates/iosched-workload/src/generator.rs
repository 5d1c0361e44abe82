//! What a job issues next: direction, offset and size, from its spec and a deterministic random stream.
//!
//! - Direction: fixed, or read with probability rwmixread.
//! - Size: fixed (bs), a multiple of the minimum in a range (bsrange), or picked by share (bssplit).
//! - Offset: the region is split into `nrfiles` equal files, each I/O going to the file file_service_type picks
//!   (round robin by default, as fio's). Sequential I/O keeps one cursor per file and direction that wraps at the
//!   file's end, skipping the rw `:N` suffix's bytes after each I/O. Random I/O (with percentage_random's share) picks a
//!   block-aligned offset in the file by random_distribution and moves the cursor after it (fio's last_pos); with
//!   a `:N` suffix, N I/Os share each random pick (the next blocks for rw_sequencer=sequential, the same block
//!   for identical).
//! - Skewed distributions follow fio's: zipf by Gray et al.'s method with zeta(n) summed exactly up to 10^7 terms
//!   and by the integral beyond (fio caps the same way), pareto as n x u^(ln h / ln(1-h)); both spread the hot
//!   blocks over the file with a hash, as fio does. normal is centred on the file with its deviation a share of
//!   it. Uniform random picks keep fio's random map (each block once per pass, see [`crate::random_map`])
//!   unless norandommap; skewed distributions draw with replacement, as fio's do.
//! - sprandom (fio's preconditioning) gives the writes' blocks itself (see [`crate::sprandom`]) and ends the job.

use crate::job::{BlockSizes, Distribution, FileService, JobSpec, RwMode};
use crate::mqsim_random::MqsimFlowDraws;
use crate::random_map::RandomMap;
use crate::sprandom::SpRandom;
use iosched_core::request::Op;
use iosched_core::rng::SimRng;

/// One I/O to issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextIo {
    pub op: Op,
    pub offset_bytes: u64,
    pub len_bytes: u64,
}

/// Block-index sampler for one random distribution over `blocks` blocks.
#[derive(Clone, Debug)]
enum BlockPicker {
    Uniform,
    Zipf {
        theta: f64,
        zeta_n: f64,
        zeta_2: f64,
        scramble: u64,
    },
    Pareto {
        power: f64,
        scramble: u64,
    },
    Normal {
        sd_fraction: f64,
    },
    /// (cumulative access share, zone start fraction, zone length fraction)
    Zoned(Vec<(f64, f64, f64)>),
    /// The given block indices in turn; with `stride`, repetition k adds k x the sequence's length. `issued`
    /// counts the picks so far.
    Sequence {
        blocks: Vec<u64>,
        stride: bool,
        issued: u64,
    },
}

/// Above this many terms, zeta(n) is completed by an integral (the terms change slowly there).
const ZETA_EXACT_TERMS: u64 = 10_000_000;

fn zeta(n: u64, theta: f64) -> f64 {
    let exact = n.min(ZETA_EXACT_TERMS);
    let mut sum = 0.0;
    for i in 1..=exact {
        sum += (i as f64).powf(-theta);
    }
    if n > exact {
        // Integral of x^-theta from exact + 0.5 to n + 0.5 (midpoint rule for the remaining terms).
        let (a, b) = (exact as f64 + 0.5, n as f64 + 0.5);
        sum += if (theta - 1.0).abs() < 1e-12 {
            (b / a).ln()
        } else {
            (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta)
        };
    }
    sum
}

/// A 64-bit mixing function (SplitMix64's finaliser): spreads consecutive ranks over the file.
fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl BlockPicker {
    fn new(job: &JobSpec, blocks: u64, rng: &mut SimRng) -> BlockPicker {
        BlockPicker::of(&job.distribution, job.random_sequence_stride, blocks, rng)
    }

    fn of(distribution: &Distribution, sequence_stride: bool, blocks: u64, rng: &mut SimRng) -> BlockPicker {
        match distribution {
            Distribution::Uniform => BlockPicker::Uniform,
            Distribution::Zipf { theta } => BlockPicker::Zipf {
                theta: *theta,
                zeta_n: zeta(blocks, *theta),
                zeta_2: zeta(2, *theta),
                scramble: rng.next_u64(),
            },
            Distribution::Pareto { h } => {
                BlockPicker::Pareto { power: h.ln() / (1.0 - h).ln(), scramble: rng.next_u64() }
            }
            Distribution::Normal { sd_percent } => BlockPicker::Normal { sd_fraction: sd_percent / 100.0 },
            Distribution::Zoned(zones) => {
                let total_access: f64 = zones.iter().map(|z| z.0).sum();
                let mut cumulative = 0.0;
                let mut start = 0.0;
                let mut out = Vec::with_capacity(zones.len());
                for (access, size) in zones {
                    cumulative += access / total_access;
                    out.push((cumulative, start / 100.0, size / 100.0));
                    start += size;
                }
                BlockPicker::Zoned(out)
            }
            Distribution::Sequence(blocks) => {
                BlockPicker::Sequence { blocks: blocks.clone(), stride: sequence_stride, issued: 0 }
            }
        }
    }

    /// A block index in `0..blocks`.
    fn pick(&mut self, blocks: u64, rng: &mut SimRng) -> u64 {
        if blocks <= 1 {
            return 0;
        }
        match self {
            BlockPicker::Uniform => rng.below(blocks),
            &mut BlockPicker::Zipf { theta, zeta_n, zeta_2, scramble } => {
                let n = blocks as f64;
                let u = rng.unit_f64();
                let uz = u * zeta_n;
                let rank = if uz < 1.0 {
                    0
                } else if uz < 1.0 + 0.5f64.powf(theta) {
                    1
                } else {
                    let alpha = 1.0 / (1.0 - theta);
                    let eta = (1.0 - (2.0 / n).powf(1.0 - theta)) / (1.0 - zeta_2 / zeta_n);
                    ((n * (eta * u - eta + 1.0).powf(alpha)) as u64).min(blocks - 1)
                };
                (mix64(rank) ^ scramble) % blocks
            }
            &mut BlockPicker::Pareto { power, scramble } => {
                let rank = ((blocks - 1) as f64 * rng.unit_f64().powf(power)) as u64;
                (mix64(rank) ^ scramble) % blocks
            }
            &mut BlockPicker::Normal { sd_fraction } => {
                // Box-Muller; redraw outside the file.
                loop {
                    let u1 = rng.unit_f64().max(f64::MIN_POSITIVE);
                    let u2 = rng.unit_f64();
                    let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
                    let x = 0.5 + z * sd_fraction;
                    if (0.0..1.0).contains(&x) {
                        return ((x * blocks as f64) as u64).min(blocks - 1);
                    }
                }
            }
            BlockPicker::Zoned(zones) => {
                let u = rng.unit_f64();
                let zone = zones.iter().find(|z| u < z.0).or(zones.last()).expect("zoned has zones");
                let first = (zone.1 * blocks as f64) as u64;
                let len = ((zone.2 * blocks as f64) as u64).max(1);
                (first + rng.below(len)).min(blocks - 1)
            }
            BlockPicker::Sequence { blocks: sequence, stride, issued } => {
                let len = sequence.len() as u64;
                let (round, at) = (*issued / len, *issued % len);
                *issued += 1;
                let base = if *stride { round.saturating_mul(len) } else { 0 };
                base.saturating_add(sequence[at as usize]) % blocks
            }
        }
    }
}

pub struct IoGenerator {
    rw: RwMode,
    random_percent: u32,
    rw_suffix: u64,
    rw_back_bytes: u64,
    sequencer_identical: bool,
    rwmix_read_percent: u32,
    block_sizes: [BlockSizes; 3],
    align_bytes: [u64; 3],
    region_start_bytes: u64,
    file_len_bytes: u64,
    files: u32,
    file_choice: FileChoice,
    /// Per file, per direction: the next sequential offset relative to the file.
    cursors_bytes: Vec<[u64; 3]>,
    pickers: [BlockPicker; 3],
    /// Remaining I/Os of the current random pick (the `:N` suffix), per direction, and where it is.
    run_left: [u64; 3],
    /// (file, start, end) of the run's last I/O, relative to the file.
    run_at: [(u32, u64, u64); 3],
    /// trimwrite: the block just trimmed, to be written next.
    write_after_trim: Option<NextIo>,
    /// zonemode=strided: the zone I/O stays in, and how much it has transferred there.
    zones: Option<Strided>,
    /// fio's random map, one per file, when the job keeps one (see [`RandomMap`]), and its block size.
    maps: Vec<RandomMap>,
    map_block_bytes: u64,
    /// sprandom: the preconditioning order of the writes (over the first file), and its block size.
    sprandom: Option<(SpRandom, u64)>,
    /// num_range: ranges per trim command, and the ranges of the last trim drawn when it is above 1.
    num_range: u32,
    trim_ranges: Vec<(u64, u64)>,
    /// An MQSim flow's own draws, with the region's end: they give every I/O instead of the rules above.
    mqsim: Option<(MqsimFlowDraws, u64)>,
}

/// fio's zonemode=strided (io_u.c): I/O keeps to `[start, start + range)` of each file until `size` bytes were
/// transferred there, then the zone moves `range + skip` on, wrapping to the file's start past its end. The job
/// still transfers its whole size (fio 3.33 reading 10 MiB in 1 MiB zones with 1 MiB skips reads the five zones
/// twice); random I/O in zones does the same here, where fio 3.33's random map ends it sooner.
#[derive(Clone, Debug)]
struct Strided {
    range: u64,
    size: u64,
    skip: u64,
    start: u64,
    transferred: u64,
}

/// Which file the next I/O goes to (fio's get_next_file): the file in use keeps the I/Os until its pick is spent
/// (`per_pick` I/Os) or, for `sequential`, until it has had as many bytes as it holds.
#[derive(Clone, Debug)]
struct FileChoice {
    how: FileHow,
    current: u32,
    /// I/Os left to the current pick (round robin and random), or bytes issued in the current file (sequential).
    left: u64,
}

#[derive(Clone, Debug)]
enum FileHow {
    RoundRobin(u32),
    Random(u32),
    Sequential,
    Skewed(BlockPicker),
}

impl FileChoice {
    fn new(service: &FileService, files: u32, rng: &mut SimRng) -> FileChoice {
        let how = match service {
            FileService::RoundRobin { per_pick } => FileHow::RoundRobin((*per_pick).max(1)),
            FileService::Random { per_pick } => FileHow::Random((*per_pick).max(1)),
            FileService::Sequential => FileHow::Sequential,
            // One job's files are few: no random map, so a skewed draw can repeat a file.
            FileService::Skewed(d) => FileHow::Skewed(BlockPicker::of(d, false, files as u64, rng)),
        };
        // The first file comes first, as in fio; round robin's first pick reaches it as the one after the last.
        let current = if matches!(how, FileHow::RoundRobin(_)) { files.max(1) - 1 } else { 0 };
        FileChoice { how, current, left: 0 }
    }

    /// The file of an I/O of `len_bytes`, in a job of `files` files of `file_len_bytes` each.
    fn next(&mut self, files: u32, file_len_bytes: u64, len_bytes: u64, rng: &mut SimRng) -> u32 {
        if files <= 1 {
            return 0;
        }
        match &mut self.how {
            FileHow::RoundRobin(_) | FileHow::Random(_) if self.left > 0 => self.left -= 1,
            FileHow::RoundRobin(per_pick) => {
                self.current = (self.current + 1) % files;
                self.left = *per_pick as u64 - 1;
            }
            FileHow::Random(per_pick) => {
                self.current = rng.below(files as u64) as u32;
                self.left = *per_pick as u64 - 1;
            }
            FileHow::Sequential => {
                if self.left >= file_len_bytes {
                    self.current = (self.current + 1) % files;
                    self.left = 0;
                }
                self.left += len_bytes;
            }
            FileHow::Skewed(picker) => self.current = picker.pick(files as u64, rng) as u32,
        }
        self.current
    }
}

impl IoGenerator {
    /// A generator over `[region_start, region_start + region_len)`; the region must hold one block of the
    /// largest size in each file.
    pub fn new(job: &JobSpec, region_start_bytes: u64, region_len_bytes: u64, rng: &mut SimRng) -> IoGenerator {
        let files = job.nrfiles.max(1);
        let file_len_bytes = region_len_bytes / files as u64;
        let align_bytes =
            job.block_align_bytes.unwrap_or_else(|| [0, 1, 2].map(|d| job.block_sizes[d].min_bytes().max(1)));
        let pickers = [0, 1, 2].map(|d| {
            let blocks = (file_len_bytes / align_bytes[d].max(1)).max(1);
            BlockPicker::new(job, blocks, rng)
        });
        // The map's block is the smallest block size, as fio's.
        let map_block_bytes = job.block_sizes.iter().map(BlockSizes::min_bytes).min().unwrap_or(1).max(1);
        let maps = if job.keeps_random_map() {
            (0..files).map(|_| RandomMap::new((file_len_bytes / map_block_bytes).max(1))).collect()
        } else {
            Vec::new()
        };
        let sprandom = job.sprandom.then(|| {
            let bs = job.block_sizes[Op::Write.index()].min_bytes().max(1);
            (SpRandom::new(&job.sprandom_spec, (file_len_bytes / bs).max(1), bs, rng), bs)
        });
        IoGenerator {
            rw: job.rw,
            random_percent: job.random_percent,
            rw_suffix: job.rw_suffix,
            rw_back_bytes: job.rw_back_bytes,
            sequencer_identical: job.sequencer_identical,
            rwmix_read_percent: job.rwmix_read_percent,
            block_sizes: job.block_sizes.clone(),
            align_bytes,
            region_start_bytes,
            file_len_bytes,
            files,
            file_choice: FileChoice::new(&job.file_service, files, rng),
            cursors_bytes: vec![[0; 3]; files as usize],
            pickers,
            run_left: [0; 3],
            run_at: [(0, 0, 0); 3],
            write_after_trim: None,
            zones: job.zone_strided.then(|| Strided {
                range: if job.zone_range_bytes > 0 { job.zone_range_bytes } else { job.zone_size_bytes }
                    .min(file_len_bytes),
                size: job.zone_size_bytes.max(1),
                skip: job.zone_skip_bytes,
                start: 0,
                transferred: 0,
            }),
            maps,
            map_block_bytes,
            sprandom,
            num_range: job.num_range.max(1),
            trim_ranges: Vec::new(),
            mqsim: job.mqsim_draws.map(|d| (MqsimFlowDraws::new(d), region_start_bytes + region_len_bytes)),
        }
    }

    /// The ranges of the trim `next` last returned, when num_range asks for several per command (the
    /// trim's offset is the first's, its length their total); empty otherwise.
    pub fn take_trim_ranges(&mut self) -> Vec<(u64, u64)> {
        std::mem::take(&mut self.trim_ranges)
    }

    /// Nothing more to issue: sprandom's preconditioning is over (other jobs end by size or time).
    pub fn exhausted(&self) -> bool {
        self.sprandom.as_ref().is_some_and(|(s, _)| s.peek().is_none())
    }

    /// The part of each file I/O may reach now: the current zone under zonemode=strided, else all of it.
    fn window(&self) -> (u64, u64) {
        match &self.zones {
            Some(z) => (z.start, (z.start + z.range).min(self.file_len_bytes)),
            None => (0, self.file_len_bytes),
        }
    }

    /// After an I/O of `len_bytes`: under zonemode=strided, move to the next zone once this one had its share.
    fn account_zone(&mut self, len_bytes: u64) {
        let Some(z) = self.zones.as_mut() else { return };
        z.transferred += len_bytes;
        if z.transferred < z.size {
            return;
        }
        z.transferred = 0;
        z.start += z.range + z.skip;
        if z.start + self.block_sizes.iter().map(BlockSizes::min_bytes).max().unwrap_or(1) > self.file_len_bytes {
            z.start = 0;
        }
        let start = z.start;
        for cursors in &mut self.cursors_bytes {
            *cursors = [start; 3];
        }
        self.run_left = [0; 3];
    }

    /// The direction of the next I/O.
    fn next_op(&self, rng: &mut SimRng) -> Op {
        match self.rw {
            RwMode::Read => Op::Read,
            RwMode::Write => Op::Write,
            RwMode::Trim => Op::Trim,
            RwMode::ReadWrite => {
                if rng.percent(self.rwmix_read_percent) {
                    Op::Read
                } else {
                    Op::Write
                }
            }
            // fio's trimwrite: each block is trimmed, then written.
            RwMode::TrimWrite => Op::Trim,
        }
    }

    fn next_len(&self, dir: usize, rng: &mut SimRng) -> u64 {
        let len = match &self.block_sizes[dir] {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range { min, max } => min * (1 + rng.below(max / min)),
            BlockSizes::Split(shares) => {
                let mut roll = rng.below(100) as u32;
                let mut pick = shares.last().expect("bssplit has entries").0;
                for (bytes, percent) in shares {
                    if roll < *percent {
                        pick = *bytes;
                        break;
                    }
                    roll -= percent;
                }
                pick
            }
        };
        len.min(self.file_len_bytes)
    }

    pub fn next(&mut self, rng: &mut SimRng) -> NextIo {
        if let Some((draws, region_end_bytes)) = &mut self.mqsim {
            return Self::mqsim_next(draws, self.region_start_bytes, *region_end_bytes);
        }
        if let Some(trimmed) = self.write_after_trim.take() {
            return NextIo { op: Op::Write, ..trimmed };
        }
        let op = self.next_op(rng);
        let mut io = self.next_for(op, rng);
        if op == Op::Trim && self.num_range > 1 {
            self.more_trim_ranges(&mut io, rng);
        }
        if self.rw == RwMode::TrimWrite {
            self.write_after_trim = Some(io);
        }
        io
    }

    /// An MQSim BANDWIDTH flow's time to its next request, from MQSim's own draws (None otherwise).
    pub fn mqsim_interval_ns(&mut self) -> Option<u64> {
        self.mqsim.as_mut()?.0.next_interval_ns()
    }

    /// The next I/O as MQSim's flow draws it. Its addresses are MQSim's (the flows' logical ranges as MQSim
    /// partitions them); the few that fall outside this job's region (iosched's ranges are whole pages) are
    /// moved into it.
    fn mqsim_next(draws: &mut MqsimFlowDraws, region_start_bytes: u64, region_end_bytes: u64) -> NextIo {
        const SECTOR: u64 = 512;
        let r = draws.next_request();
        let len_bytes = (r.sectors * SECTOR).min(region_end_bytes - region_start_bytes);
        let offset_bytes = (r.sector * SECTOR).clamp(region_start_bytes, region_end_bytes - len_bytes);
        NextIo { op: if r.read { Op::Read } else { Op::Write }, offset_bytes, len_bytes }
    }

    /// fio's fill_multi_range_io_u: the trim `io` becomes a command of num_range ranges, each drawn as a trim
    /// of its own would be; `io` keeps the first's offset and takes their total length.
    #[cold]
    fn more_trim_ranges(&mut self, io: &mut NextIo, rng: &mut SimRng) {
        self.trim_ranges.clear();
        self.trim_ranges.push((io.offset_bytes, io.len_bytes));
        for _ in 1..self.num_range {
            let range = self.next_for(Op::Trim, rng);
            self.trim_ranges.push((range.offset_bytes, range.len_bytes));
        }
        io.len_bytes = self.trim_ranges.iter().map(|r| r.1).sum();
    }

    fn next_for(&mut self, op: Op, rng: &mut SimRng) -> NextIo {
        let io = self.next_in_window(op, rng);
        self.account_zone(io.len_bytes);
        io
    }

    fn next_in_window(&mut self, op: Op, rng: &mut SimRng) -> NextIo {
        if let Some((spr, bs)) = self.sprandom.as_mut().filter(|_| op == Op::Write) {
            if let Some(block) = spr.take(rng) {
                return NextIo { op, offset_bytes: self.region_start_bytes + block * *bs, len_bytes: *bs };
            }
        }
        let dir = op.index();
        let (lo, hi) = self.window();
        let mut len_bytes = self.next_len(dir, rng).min(hi - lo);
        let file = self.file_choice.next(self.files, self.file_len_bytes, len_bytes, rng);
        let random = self.random_percent >= 100 || (self.random_percent > 0 && rng.percent(self.random_percent));
        let relative = if random {
            let align = self.align_bytes[dir].max(1);
            if self.run_left[dir] > 0 {
                // As fio's get_next_seq_offset: the run continues where the last I/O ended (so runs of mixed
                // sizes stay contiguous), or at the same block for rw_sequencer=identical; past the file's end,
                // fio falls back to a new random pick, and so does this.
                let (f, last_start, last_end) = self.run_at[dir];
                let at = if self.sequencer_identical { last_start } else { last_end };
                if at + len_bytes <= self.file_len_bytes {
                    self.run_left[dir] -= 1;
                    self.run_at[dir] = (f, at, at + len_bytes);
                    self.cursors_bytes[f as usize][dir] = at + len_bytes;
                    return NextIo {
                        op,
                        offset_bytes: self.region_start_bytes + f as u64 * self.file_len_bytes + at,
                        len_bytes,
                    };
                }
                self.run_left[dir] = 0;
            }
            let blocks = ((hi - lo - len_bytes) / align) + 1;
            let mut at = lo + self.pickers[dir].pick(blocks, rng) * align;
            if let Some(map) = self.maps.get_mut(file as usize) {
                // A used block gives way to the next free one; a full map starts a new pass.
                if map.is_full() {
                    map.clear();
                }
                let unit = self.map_block_bytes;
                let block = map.free_from(at / unit).expect("a map with room has a free block");
                at = block * unit;
                len_bytes = len_bytes.min(map.mark(block, len_bytes.div_ceil(unit)) * unit);
            }
            if self.rw_suffix > 1 {
                self.run_left[dir] = self.rw_suffix - 1;
                self.run_at[dir] = (file, at, at + len_bytes);
            }
            // As fio's last_pos: a sequential I/O after a random one (percentage_random) continues from it.
            self.cursors_bytes[file as usize][dir] = at + len_bytes;
            at
        } else {
            let cursor = &mut self.cursors_bytes[file as usize][dir];
            if *cursor < lo || *cursor + len_bytes > hi {
                *cursor = lo;
            }
            let at = *cursor;
            *cursor = match (at + len_bytes).checked_sub(self.rw_back_bytes) {
                Some(next) if self.rw_back_bytes == 0 => next + self.rw_suffix,
                Some(next) => next,
                // Backwards past the start: on from the end, as fio wraps a negative increment.
                None => self.file_len_bytes.saturating_sub(self.rw_back_bytes).min(self.file_len_bytes - len_bytes),
            };
            // fio marks the blocks of every I/O of a job that has random I/O, sequential ones too.
            if let Some(map) = self.maps.get_mut(file as usize) {
                map.mark(at / self.map_block_bytes, len_bytes.div_ceil(self.map_block_bytes));
            }
            at
        };
        NextIo { op, offset_bytes: self.region_start_bytes + file as u64 * self.file_len_bytes + relative, len_bytes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::BlockSizes;

    fn generator(job: &JobSpec, start: u64, len: u64) -> (IoGenerator, SimRng) {
        let mut rng = SimRng::new(3, 0);
        let g = IoGenerator::new(job, start, len, &mut rng);
        (g, rng)
    }

    #[test]
    fn a_negative_increment_reads_backwards_from_the_end_as_fio_does() {
        // rw=read:-8k with bs=4k (fio's examples/backwards-read.fio): 0, then the end less 8k, then 4k back each.
        let job = JobSpec { rw_back_bytes: 8192, ..JobSpec::default() };
        let (mut g, mut rng) = generator(&job, 0, 64 * 4096);
        let offs: Vec<u64> = (0..4).map(|_| g.next(&mut rng).offset_bytes / 4096).collect();
        assert_eq!(offs, vec![0, 62, 61, 60]);
    }

    /// fio 3.33's own offsets (`fio --rw=read --bs=64k --size=10m --zonemode=strided --zonesize=1m --zoneskip=1m
    /// --write_iolog=...`): blocks 0-15, 32-47, 64-79, 96-111, 128-143 of 64 KiB, then the same again.
    #[test]
    fn strided_zones_read_a_zone_then_skip_as_fio_does() {
        let job = JobSpec {
            rw: RwMode::Read,
            block_sizes: [BlockSizes::Fixed(65536), BlockSizes::Fixed(65536), BlockSizes::Fixed(65536)],
            zone_strided: true,
            zone_size_bytes: 1 << 20,
            zone_skip_bytes: 1 << 20,
            ..JobSpec::default()
        };
        let (mut g, mut rng) = generator(&job, 0, 10 << 20);
        let blocks: Vec<u64> = (0..160).map(|_| g.next(&mut rng).offset_bytes / 65536).collect();
        let zone = |first: u64| first..first + 16;
        let expected: Vec<u64> = [0, 32, 64, 96, 128].iter().flat_map(|f| zone(*f)).collect();
        assert_eq!(&blocks[..80], &expected[..]);
        assert_eq!(&blocks[80..], &expected[..], "past the end it starts over");
    }

    #[test]
    fn random_io_in_strided_zones_stays_in_the_zone() {
        let job = JobSpec {
            rw: RwMode::Read,
            random_percent: 100,
            block_sizes: [BlockSizes::Fixed(65536), BlockSizes::Fixed(65536), BlockSizes::Fixed(65536)],
            zone_strided: true,
            zone_range_bytes: 2 << 20,
            zone_size_bytes: 1 << 20,
            zone_skip_bytes: 1 << 20,
            ..JobSpec::default()
        };
        let (mut g, mut rng) = generator(&job, 0, 10 << 20);
        // Zones of 2 MiB every 3 MiB: 16 reads in [0, 2), 16 in [3, 5), 16 in [6, 8) MiB.
        for zone_start_mib in [0u64, 3, 6] {
            for _ in 0..16 {
                let io = g.next(&mut rng);
                let (lo, hi) = (zone_start_mib << 20, (zone_start_mib + 2) << 20);
                assert!(io.offset_bytes >= lo && io.offset_bytes + io.len_bytes <= hi, "{io:?} outside {lo}..{hi}");
            }
        }
    }

    #[test]
    fn sequential_wraps_within_region() {
        let job = JobSpec::default();
        let (mut g, mut rng) = generator(&job, 1 << 20, 3 * 4096);
        let offs: Vec<u64> = (0..4).map(|_| g.next(&mut rng).offset_bytes - (1 << 20)).collect();
        assert_eq!(offs, vec![0, 4096, 8192, 0]);
    }

    #[test]
    fn sequential_suffix_skips_holes_and_files_rotate() {
        let job = JobSpec { rw_suffix: 4096, ..JobSpec::default() };
        let (mut g, mut rng) = generator(&job, 0, 1 << 20);
        let offs: Vec<u64> = (0..3).map(|_| g.next(&mut rng).offset_bytes).collect();
        assert_eq!(offs, vec![0, 8192, 16384]);
        let job = JobSpec { nrfiles: 2, ..JobSpec::default() };
        let (mut g, mut rng) = generator(&job, 0, 1 << 20);
        let offs: Vec<u64> = (0..4).map(|_| g.next(&mut rng).offset_bytes).collect();
        assert_eq!(offs, vec![0, 512 << 10, 4096, (512 << 10) + 4096]);
    }

    #[test]
    fn file_service_type_picks_the_file_as_fio_does() {
        // Four files of 64 KiB (a region of 256 KiB), 4 KiB I/Os.
        let file_of = |service: FileService, n: usize| -> Vec<u64> {
            let job = JobSpec { nrfiles: 4, file_service: service, ..JobSpec::default() };
            let (mut g, mut rng) = generator(&job, 0, 256 << 10);
            (0..n).map(|_| g.next(&mut rng).offset_bytes / (64 << 10)).collect()
        };
        // fio's default, and with a count: the next file after every N I/Os.
        assert_eq!(file_of(FileService::default(), 6), vec![0, 1, 2, 3, 0, 1]);
        assert_eq!(file_of(FileService::RoundRobin { per_pick: 2 }, 9), vec![0, 0, 1, 1, 2, 2, 3, 3, 0]);
        // sequential: each file through (16 I/Os of 4 KiB) before the next, and round again.
        let seq = file_of(FileService::Sequential, 80);
        assert!(seq[..16].iter().all(|f| *f == 0) && seq[16..32].iter().all(|f| *f == 1), "{seq:?}");
        assert!(seq[48..64].iter().all(|f| *f == 3) && seq[64..].iter().all(|f| *f == 0), "{seq:?}");
        // random:4: runs of four I/Os in one file, the files drawn evenly.
        let random = file_of(FileService::Random { per_pick: 4 }, 40_000);
        assert!(random.chunks(4).all(|run| run.iter().all(|f| *f == run[0])));
        let mut counts = [0u32; 4];
        random.iter().for_each(|f| counts[*f as usize] += 1);
        assert!(counts.iter().all(|c| (9_000..11_000).contains(c)), "{counts:?}");
        let changes = random.chunks(4).zip(random.chunks(4).skip(1)).filter(|(a, b)| a[0] != b[0]).count();
        assert!((7_000..8_000).contains(&changes), "{changes} of 9,999 picks change file (3 in 4 should)");
        // zipf: one hot file takes most I/Os.
        let zipf = file_of(FileService::Skewed(Distribution::Zipf { theta: 1.1 }), 10_000);
        let mut counts = [0u32; 4];
        zipf.iter().for_each(|f| counts[*f as usize] += 1);
        counts.sort_unstable();
        assert!(counts[3] > 4_500 && counts[0] < 1_500, "{counts:?}");
    }

    #[test]
    fn a_sequential_io_after_a_random_one_continues_from_it() {
        // percentage_random=30: each I/O either jumps or follows the one before it, as fio's last_pos does, so
        // exactly the random ones (about 30 %) start away from where the previous I/O ended.
        let job = JobSpec { random_percent: 30, ..JobSpec::default() };
        let (mut g, mut rng) = generator(&job, 0, 1 << 30);
        let mut end = g.next(&mut rng);
        let mut jumps = 0;
        for _ in 0..10_000 {
            let io = g.next(&mut rng);
            jumps += (io.offset_bytes != end.offset_bytes + end.len_bytes) as u32;
            end = io;
        }
        assert!((2_800..3_200).contains(&jumps), "{jumps} jumps in 10,000");
    }

    #[test]
    fn random_stays_aligned_in_region_and_mix_follows_percent() {
        let job = JobSpec { rw: RwMode::ReadWrite, random_percent: 100, rwmix_read_percent: 70, ..JobSpec::default() };
        let (mut g, mut rng) = generator(&job, 8192, 1 << 20);
        let mut reads = 0;
        for _ in 0..10_000 {
            let io = g.next(&mut rng);
            assert!(io.offset_bytes >= 8192 && io.offset_bytes + io.len_bytes <= 8192 + (1 << 20));
            assert_eq!((io.offset_bytes - 8192) % 4096, 0);
            reads += (io.op == Op::Read) as u32;
        }
        assert!((6_800..7_200).contains(&reads), "{reads}");
    }

    #[test]
    fn random_suffix_groups_ios_per_pick() {
        let job = JobSpec { random_percent: 100, rw_suffix: 4, ..JobSpec::default() };
        let (mut g, mut rng) = generator(&job, 0, 1 << 30);
        let offs: Vec<u64> = (0..8).map(|_| g.next(&mut rng).offset_bytes).collect();
        for k in 1..4 {
            assert_eq!(offs[k], offs[0] + 4096 * k as u64);
            assert_eq!(offs[4 + k], offs[4] + 4096 * k as u64);
        }
        assert_ne!(offs[4], offs[3] + 4096);
    }

    /// fio continues a run where the last I/O ended, whatever its size: a run of mixed sizes has no holes
    /// and no overlaps (an earlier version stepped by the new I/O's size from the last one's start).
    #[test]
    fn random_suffix_runs_of_mixed_sizes_are_contiguous() {
        let split = BlockSizes::Split(vec![(4096, 50), (16384, 30), (65536, 20)]);
        let job = JobSpec {
            random_percent: 100,
            rw_suffix: 8,
            block_sizes: [split.clone(), split.clone(), split],
            ..JobSpec::default()
        };
        let (mut g, mut rng) = generator(&job, 0, 1 << 30);
        let ios: Vec<NextIo> = (0..800).map(|_| g.next(&mut rng)).collect();
        let mut sizes = std::collections::BTreeSet::new();
        for run in ios.chunks(8) {
            for pair in run.windows(2) {
                assert_eq!(pair[1].offset_bytes, pair[0].offset_bytes + pair[0].len_bytes, "{run:?}");
                sizes.insert(pair[0].len_bytes);
            }
        }
        assert!(sizes.len() >= 3, "the runs mix sizes: {sizes:?}");
    }

    #[test]
    fn block_size_range_and_split() {
        let job = JobSpec {
            block_sizes: [
                BlockSizes::Range { min: 4096, max: 16384 },
                BlockSizes::Fixed(4096),
                BlockSizes::Fixed(4096),
            ],
            ..JobSpec::default()
        };
        let (mut g, mut rng) = generator(&job, 0, 1 << 30);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..1000 {
            let len = g.next(&mut rng).len_bytes;
            assert_eq!(len % 4096, 0);
            seen.insert(len);
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![4096, 8192, 12288, 16384]);
        let split = BlockSizes::Split(vec![(4096, 80), (65536, 20)]);
        let job = JobSpec { block_sizes: [split.clone(), split.clone(), split], ..JobSpec::default() };
        let (mut g, mut rng) = generator(&job, 0, 1 << 30);
        let big = (0..10_000).filter(|_| g.next(&mut rng).len_bytes == 65536).count();
        assert!((1_800..2_200).contains(&big), "{big}");
    }

    /// Share of picks landing on the most popular 10 % of blocks.
    fn hot_share(distribution: Distribution) -> f64 {
        let job = JobSpec { random_percent: 100, distribution, ..JobSpec::default() };
        let blocks = 10_000u64;
        let (mut g, mut rng) = generator(&job, 0, blocks * 4096);
        let mut counts = vec![0u32; blocks as usize];
        let n = 200_000;
        for _ in 0..n {
            counts[(g.next(&mut rng).offset_bytes / 4096) as usize] += 1;
        }
        counts.sort_unstable_by(|a, b| b.cmp(a));
        counts[..(blocks / 10) as usize].iter().sum::<u32>() as f64 / n as f64
    }

    #[test]
    fn skewed_distributions_concentrate_accesses() {
        let uniform = hot_share(Distribution::Uniform);
        // With 20 picks per block, the busiest tenth of a uniform spread holds about 14 % by chance.
        assert!(uniform < 0.16, "uniform {uniform}");
        let zipf = hot_share(Distribution::Zipf { theta: 1.2 });
        assert!(zipf > 0.75, "zipf:1.2 {zipf}");
        let pareto = hot_share(Distribution::Pareto { h: 0.2 });
        assert!(pareto > 0.5, "pareto:0.2 {pareto}");
        let normal = hot_share(Distribution::Normal { sd_percent: 5.0 });
        assert!(normal > 0.3, "normal:5 {normal}");
    }

    #[test]
    fn zoned_sends_accesses_to_their_zones() {
        let job = JobSpec {
            random_percent: 100,
            distribution: Distribution::Zoned(vec![(60.0, 10.0), (40.0, 90.0)]),
            ..JobSpec::default()
        };
        let (mut g, mut rng) = generator(&job, 0, 1 << 30);
        let first_tenth = (0..20_000).filter(|_| g.next(&mut rng).offset_bytes < (1 << 30) / 10).count();
        assert!((11_600..12_400).contains(&first_tenth), "{first_tenth}");
    }

    #[test]
    fn zeta_tail_matches_the_exact_sum() {
        // The integral completion against a direct sum just past the exact limit's scale.
        let exact: f64 = (1..=2_000_000u64).map(|i| (i as f64).powf(-0.8)).sum();
        let head: f64 = (1..=1_000_000u64).map(|i| (i as f64).powf(-0.8)).sum();
        let (a, b) = (1_000_000.5f64, 2_000_000.5f64);
        let approx = head + (b.powf(0.2) - a.powf(0.2)) / 0.2;
        assert!((approx / exact - 1.0).abs() < 1e-9, "{approx} vs {exact}");
        assert!((zeta(2, 1.0) - 1.5).abs() < 1e-12);
    }
}
