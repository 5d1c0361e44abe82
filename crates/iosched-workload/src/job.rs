//! A job, as fio defines one: what to issue (directions, pattern, sizes, region) and how (engine, depth,
//! think time, limits). Readers (fio job files now, other front ends later) fill this type; the engines run it.

use iosched_core::request::{IoClass, Op, LEVEL_DEFAULT};

pub use iosched_core::input::Location;

/// Which directions a job issues (fio's rw without the rand prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwMode {
    Read,
    Write,
    Trim,
    /// Reads and writes mixed by `rwmix_read_percent`.
    ReadWrite,
    /// Each block trimmed, then written (trimwrite).
    TrimWrite,
}

/// One entry of fio's cmdprio_bssplit: `percent` of the I/Os of `block_bytes` carry a priority, the entry's own
/// class and level or, where the entry gives none, the job's `cmdprio_class` / `cmdprio`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CmdprioSplit {
    pub block_bytes: u64,
    pub percent: u32,
    pub class_level: Option<(IoClass, u8)>,
}

/// The SCSI command fio's sg engine sends for a write (sg_write_mode), as it reaches the device model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SgWriteMode {
    /// WRITE (and WRITE STREAM: the stream id is a placement hint the models do not use).
    Write,
    /// WRITE AND VERIFY: the drive writes the data to the media and checks it there before it completes;
    /// modelled as a forced-unit-access write (the check's read-back is not timed).
    WriteAndVerify,
    /// WRITE SAME (with or without NDOB): one block (or none) crosses the bus and the drive writes it over the
    /// whole range; modelled as a write of the range (the bus carries the range's length).
    WriteSame,
    /// VERIFY (any BYTCHK): the drive reads the range from its media and checks it; modelled as a
    /// forced-unit-access read of the range, reported under reads (fio counts it as a write).
    Verify,
}

/// How the I/O engine submits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Engine {
    /// fio's ioengine name.
    pub name: String,
    /// psync-style: one I/O at a time, the job waits for each (iodepth has no effect).
    pub synchronous: bool,
}

impl Default for Engine {
    fn default() -> Self {
        Engine { name: "psync".to_string(), synchronous: true }
    }
}

/// A size that may be a share of the device (fio's `size=50%`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeSpec {
    Bytes(u64),
    /// Per cent of the device capacity (1-100).
    Percent(u32),
}

impl SizeSpec {
    pub fn bytes(self, capacity_bytes: u64) -> u64 {
        match self {
            SizeSpec::Bytes(b) => b,
            SizeSpec::Percent(p) => (capacity_bytes as u128 * p as u128 / 100) as u64,
        }
    }
}

/// When a job has issued enough.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoLimit {
    /// Once over the region (`size`), as fio does by default.
    Region,
    /// io_size: this many bytes.
    Bytes(u64),
    /// number_ios: this many I/Os.
    Ios(u64),
    /// io_size=N%: this share of the region.
    RegionPercent(u32),
}

/// How a job picks block sizes for one direction.
#[derive(Clone, Debug, PartialEq)]
pub enum BlockSizes {
    Fixed(u64),
    /// bsrange: a multiple of `min` in `min..=max`, uniformly.
    Range {
        min: u64,
        max: u64,
    },
    /// bssplit: (size, per cent) pairs whose shares add up to 100.
    Split(Vec<(u64, u32)>),
}

impl BlockSizes {
    pub fn min_bytes(&self) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range { min, .. } => *min,
            BlockSizes::Split(v) => v.iter().map(|(b, _)| *b).min().unwrap_or(0),
        }
    }

    pub fn max_bytes(&self) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range { max, .. } => *max,
            BlockSizes::Split(v) => v.iter().map(|(b, _)| *b).max().unwrap_or(0),
        }
    }
}

/// How a job of several files picks the file of its next I/O: fio's file_service_type (io_u.c's get_next_file).
#[derive(Clone, Debug, PartialEq)]
pub enum FileService {
    /// The next file in turn after every `per_pick` I/Os (`roundrobin[:N]`, fio's default with N = 1).
    RoundRobin { per_pick: u32 },
    /// A file drawn uniformly for every `per_pick` I/Os (`random[:N]`).
    Random { per_pick: u32 },
    /// Each file through (as many bytes as it holds) before the next (`sequential`).
    Sequential,
    /// A file drawn for every I/O by a skewed distribution (`zipf[:theta]`, `pareto[:h]`, `normal[:dev]`).
    Skewed(Distribution),
}

impl Default for FileService {
    fn default() -> Self {
        FileService::RoundRobin { per_pick: 1 }
    }
}

/// fio's random_distribution: which blocks random I/O picks.
#[derive(Clone, Debug, PartialEq)]
pub enum Distribution {
    Uniform,
    /// zipf:theta (theta > 0, != 1 allowed).
    Zipf {
        theta: f64,
    },
    /// pareto:h (0 < h < 1).
    Pareto {
        h: f64,
    },
    /// normal:sd, the standard deviation as a per cent of the region, centred in it.
    Normal {
        sd_percent: f64,
    },
    /// zoned: (access per cent, region per cent) pairs, in order from the region's start.
    Zoned(Vec<(f64, f64)>),
    /// sequence:i,j,k (fio 3.40 and later): the blocks of these indices in turn, over and over (see
    /// `random_sequence_stride`).
    Sequence(Vec<u64>),
}

/// rate_process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateProcess {
    /// Evenly spaced issues.
    Linear,
    /// Exponentially distributed gaps (arrivals of a Poisson process).
    Poisson,
}

/// latency_target, latency_window, latency_percentile: fio's search for the deepest queue that meets a
/// latency target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatencyTarget {
    pub target_ns: u64,
    pub window_ns: u64,
    /// Share of I/Os in a window that must meet the target (fio's default: 100).
    pub percentile: f64,
}

/// iodepth_mode=stepped:LOW-HIGH/STEP[,RAMP/RUN] (fio's lat_target.c): a probe at the full depth measures
/// the job's IOPS, then steps at STEP, 2 x STEP, ... up to HIGH per cent of them, each ramped then run (see
/// iosched-sim's stepped_depth). LOW is read as fio reads it and, as in fio's code, not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SteppedDepth {
    pub low_percent: u32,
    pub high_percent: u32,
    pub step_percent: u32,
    pub ramp_ns: u64,
    pub run_ns: u64,
}

impl Default for LatencyTarget {
    fn default() -> Self {
        LatencyTarget { target_ns: 0, window_ns: 0, percentile: 100.0 }
    }
}

/// fio's steadystate criterion: what is sampled each second, and how it is judged over the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyStateCriterion {
    /// Bandwidth (KiB/s) rather than IOPS.
    pub bandwidth: bool,
    /// The least-squares slope of the samples, rather than every sample's distance from their mean.
    pub slope: bool,
    pub limit: f64,
    /// The limit is a percentage of the window's mean.
    pub percent: bool,
}

impl Default for SteadyStateCriterion {
    /// fio's default, iops_slope:0.01%.
    fn default() -> Self {
        SteadyStateCriterion { bandwidth: false, slope: true, limit: 0.01, percent: true }
    }
}

/// Which jobs exitall stops (fio's exit_what).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExitWhat {
    /// The jobs running in the same stonewall group (fio's default).
    #[default]
    Group,
    /// Every job running now; the next stonewall group still starts (fio's `stonewall`; with one group
    /// running at a time, the same as `group`).
    Stonewall,
    /// Every job, the later stonewall groups too.
    All,
}

/// One fio job (before numjobs cloning).
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    pub name: String,
    pub defined_at: Location,
    pub rw: RwMode,
    /// Share of I/Os at a random offset (100 for randread and friends, 0 for sequential; percentage_random).
    pub random_percent: u32,
    /// The `:N` suffix of rw: for sequential I/O, bytes skipped after each I/O (N is a size); for random I/O,
    /// how many I/Os share each new offset (rw_sequencer=sequential: consecutive blocks; identical: the same).
    pub rw_suffix: u64,
    /// A negative `:N` of sequential I/O (`rw=read:-8k`): after each I/O the offset moves back N from its end, so
    /// the job walks backwards, wrapping to the end of its region as fio does.
    pub rw_back_bytes: u64,
    pub sequencer_identical: bool,
    pub rwmix_read_percent: u32,
    /// Block sizes per direction: read, write, trim.
    pub block_sizes: [BlockSizes; 3],
    /// Offsets of random I/O are multiples of this, per direction (blockalign; default: the minimum size).
    pub block_align_bytes: Option<[u64; 3]>,
    /// The region's length; `None` means from `offset` to the end of the device (or filesize x nrfiles).
    pub size: Option<SizeSpec>,
    pub offset: SizeSpec,
    /// Clone k starts at offset + k x this.
    pub offset_increment: SizeSpec,
    /// Each file's size; the region is split into `nrfiles` files, served as `file_service` says.
    pub filesize: Option<SizeSpec>,
    pub nrfiles: u32,
    /// Which file each I/O goes to (file_service_type).
    pub file_service: FileService,
    pub io_limit: IoLimit,
    /// Passes over the region (loops).
    pub loops: u32,
    pub iodepth: u32,
    /// Once the queue is full, refill only when it has drained to this (iodepth_low; default: iodepth - 1).
    pub iodepth_low: Option<u32>,
    pub engine: Engine,
    /// fio's filename: the file or block device a live run (`iosched run`) reads and writes. Simulation ignores it
    /// (the simulated device is the target).
    pub filename: Option<String>,
    /// O_DIRECT (direct=1 or buffered=0). Buffered writes are asynchronous write-back.
    pub direct: bool,
    /// O_SYNC writes (sync=1): synchronous even when buffered.
    pub sync_writes: bool,
    pub runtime_ns: Option<u64>,
    pub time_based: bool,
    /// Results exclude the first ramp_time (the job runs ramp_time + runtime).
    pub ramp_ns: u64,
    /// Pause, with the job's queue drained, after every `thinktime_blocks` I/Os.
    pub thinktime_ns: u64,
    pub thinktime_blocks: u32,
    /// The part of the think time spent spinning (no different from sleeping in simulated time).
    pub thinktime_spin_ns: u64,
    pub numjobs: u32,
    /// Issue a flush after every N writes (fsync or fdatasync; 0: never).
    pub fsync_every_writes: u32,
    /// Issue a flush when the job ends.
    pub end_fsync: bool,
    /// Issue a flush as the job closes its files, when it writes (fsync_on_close: fio fsyncs a dirty file as it
    /// closes it). The files close when the job ends (loops above 1 are refused with it); a job of several files
    /// flushes once, as a flush of the device covers them all.
    pub fsync_on_close: bool,
    pub startdelay_ns: u64,
    /// rate, per direction, bytes per second (0: unlimited).
    pub rate_bytes_per_s: [u64; 3],
    /// rate_iops, per direction (0: unlimited).
    pub rate_iops: [u64; 3],
    /// rate_min / rate_iops_min per direction: the job fails if a ratecycle falls below them.
    pub rate_min_bytes_per_s: [u64; 3],
    pub rate_iops_min: [u64; 3],
    /// max_latency per direction, ns (0: none): a request whose latency, from its submission to its completion,
    /// exceeds it fails the job with ETIMEDOUT (fio's lat_fatal); what the job has in flight completes.
    pub max_latency_ns: [u64; 3],
    pub ratecycle_ns: u64,
    pub rate_process: RateProcess,
    pub class: IoClass,
    pub level: u8,
    /// cmdprio_percentage: this share of I/Os (per direction: read, write) carries `cmdprio_class` / `cmdprio`
    /// instead.
    pub cmdprio_percent: [u32; 2],
    pub cmdprio_class: [IoClass; 2],
    pub cmdprio_level: [u8; 2],
    /// cmdprio_bssplit, per direction: shares of the I/Os of each block size that carry a priority (exclusive
    /// with `cmdprio_percent`).
    pub cmdprio_bssplit: [Vec<CmdprioSplit>; 2],
    /// readfua / writefua: every read / write is sent with forced unit access.
    pub fua: [bool; 2],
    /// sg_write_mode: which SCSI command the sg engine sends for a write.
    pub sg_write_mode: SgWriteMode,
    pub distribution: Distribution,
    /// random_sequence_stride: under `Distribution::Sequence`, each repetition moves on by the sequence's length
    /// (a group of blocks), wrapping at the region's end.
    pub random_sequence_stride: bool,
    /// randseed: the job's own seed instead of the run's.
    pub randseed: Option<u64>,
    pub latency_target: Option<LatencyTarget>,
    /// stonewall / wait_for_previous: start once every job before has finished (a new group).
    pub stonewall: bool,
    pub new_group: bool,
    /// Report the group as one job.
    pub group_reporting: bool,
    /// exitall: when this job finishes, the others stop (which ones: `exit_what`).
    pub exitall: bool,
    pub exit_what: ExitWhat,
    /// steadystate (ss): the criterion; steadystate_duration (ss_dur): the window (0: no detection);
    /// steadystate_ramp_time (ss_ramp): time before sampling starts.
    pub steadystate: SteadyStateCriterion,
    pub steadystate_duration_ns: u64,
    pub steadystate_ramp_ns: u64,
    /// steadystate_check_interval (ss_interval): how often the window takes a sample (fio's default 1 s).
    pub steadystate_interval_ns: u64,
    /// flow control between jobs: the group (flow_id), this job's weight in it (flow; 0: not in one), and how
    /// long a job that is ahead of its share waits before it tries again (flow_sleep).
    pub flow_id: u32,
    pub flow_weight: u32,
    pub flow_sleep_ns: u64,
    /// verify: the check fio runs on data read back (crc32c, md5, meta, pattern, ...; None: verify=none, fio's
    /// default). What the job writes is read back: all of it after the writes of each loop (do_verify), and
    /// verify_backlog_batch blocks (default verify_backlog) whenever verify_backlog written blocks wait. The
    /// check itself is the host's work: in simulation only the reads reach the device.
    pub verify: Option<String>,
    pub do_verify: bool,
    pub verify_backlog: u64,
    pub verify_backlog_batch: u64,
    /// verify_fatal: the job stops at the first block that fails its check (else it checks the rest).
    pub verify_fatal: bool,
    /// fio's random map (on unless norandommap): uniform random I/O uses each block once per pass (see
    /// `random_map`); the flag also decides the order of verify's reads (fio's write order with a map, else
    /// sorted by offset).
    pub random_map: bool,
    /// sprandom (with spr_op, spr_num_regions): fio's preconditioning order for a flash drive (see
    /// [`crate::sprandom`]); the job writes the region's physical size, `size x (1 + spr_op)`.
    pub sprandom: bool,
    /// num_range: a trim is one command of this many ranges (each drawn as a trim of its own would be).
    pub num_range: u32,
    /// iodepth_mode=stepped (None: fio's default, a fixed depth).
    pub iodepth_stepped: Option<SteppedDepth>,
    pub sprandom_spec: crate::sprandom::SpRandomSpec,
    /// Not a fio option: the job is a synthetic flow of an MQSim workload file, and draws its directions and
    /// addresses as MQSim's flow does (see [`crate::mqsim_random`]) instead of from iosched's random stream.
    pub mqsim_draws: Option<crate::mqsim_random::MqsimDraws>,
    /// fill_device: the job writes until the device is full: its region runs from its offset to the end of the
    /// device, whatever its size says.
    pub fill_device: bool,
    /// wait_for: the job starts once every clone of the named (earlier) job has finished.
    pub wait_for: Option<String>,
    /// zonemode=strided: I/O stays in a zone of `zone_range_bytes` (zonerange; default zonesize) until
    /// `zone_size_bytes` (zonesize) were transferred, then skips `zone_skip_bytes` (zoneskip) past the zone's
    /// end to the next one, wrapping at the end; the job transfers its whole size, as fio does.
    pub zone_strided: bool,
    pub zone_range_bytes: u64,
    pub zone_size_bytes: u64,
    pub zone_skip_bytes: u64,
    /// write_lat_log: the prefix of the latency log files.
    pub write_lat_log: Option<String>,
    /// write_bw_log / write_iops_log: the prefixes of the bandwidth and IOPS log files.
    pub write_bw_log: Option<String>,
    pub write_iops_log: Option<String>,
    /// log_offset: the logs carry each I/O's offset (a column between block size and priority).
    pub log_offset: bool,
    /// write_hist_log: the prefix of the latency histogram log; log_hist_msec its window (0: none written, as
    /// fio), log_hist_coarseness how many of fio's buckets each column merges (2^coarseness).
    pub write_hist_log: Option<String>,
    pub log_hist_ms: u64,
    pub log_hist_coarseness: u32,
    /// log_avg_msec: average latency log entries over windows of this many ms (0: one entry per I/O).
    pub log_avg_ms: u64,
    /// Every option as written, in order: for error messages after parsing (where it was set) and for fio's
    /// "global options" and "job options" in the JSON output.
    pub written: Vec<WrittenOption>,
}

/// One option line of a job file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenOption {
    pub key: String,
    /// The value as written; a bare flag has an empty one.
    pub value: String,
    pub location: Location,
    /// Set in a [global] section (inherited) rather than in the job's own.
    pub in_global: bool,
}

impl Default for JobSpec {
    fn default() -> Self {
        JobSpec {
            name: String::new(),
            defined_at: Location::default(),
            rw: RwMode::Read,
            random_percent: 0,
            rw_suffix: 0,
            rw_back_bytes: 0,
            sequencer_identical: false,
            rwmix_read_percent: 50,
            block_sizes: [BlockSizes::Fixed(4096), BlockSizes::Fixed(4096), BlockSizes::Fixed(4096)],
            block_align_bytes: None,
            size: None,
            offset: SizeSpec::Bytes(0),
            offset_increment: SizeSpec::Bytes(0),
            filesize: None,
            nrfiles: 1,
            file_service: FileService::default(),
            io_limit: IoLimit::Region,
            loops: 1,
            iodepth: 1,
            iodepth_low: None,
            engine: Engine::default(),
            filename: None,
            direct: false,
            sync_writes: false,
            runtime_ns: None,
            time_based: false,
            ramp_ns: 0,
            thinktime_ns: 0,
            thinktime_blocks: 1,
            thinktime_spin_ns: 0,
            numjobs: 1,
            fsync_every_writes: 0,
            end_fsync: false,
            fsync_on_close: false,
            startdelay_ns: 0,
            rate_bytes_per_s: [0; 3],
            rate_iops: [0; 3],
            rate_min_bytes_per_s: [0; 3],
            rate_iops_min: [0; 3],
            max_latency_ns: [0; 3],
            ratecycle_ns: 1_000_000_000,
            rate_process: RateProcess::Linear,
            class: IoClass::Be,
            level: LEVEL_DEFAULT,
            cmdprio_percent: [0; 2],
            cmdprio_class: [IoClass::Rt; 2],
            cmdprio_level: [0; 2],
            cmdprio_bssplit: [Vec::new(), Vec::new()],
            fua: [false; 2],
            sg_write_mode: SgWriteMode::Write,
            distribution: Distribution::Uniform,
            random_sequence_stride: false,
            randseed: None,
            latency_target: None,
            stonewall: false,
            new_group: false,
            group_reporting: false,
            exitall: false,
            exit_what: ExitWhat::Group,
            steadystate: SteadyStateCriterion::default(),
            steadystate_duration_ns: 0,
            steadystate_ramp_ns: 0,
            steadystate_interval_ns: 1_000_000_000,
            flow_id: 0,
            flow_weight: 0,
            flow_sleep_ns: 0,
            verify: None,
            do_verify: true,
            verify_backlog: 0,
            verify_backlog_batch: 0,
            verify_fatal: false,
            random_map: true,
            sprandom: false,
            num_range: 1,
            iodepth_stepped: None,
            sprandom_spec: crate::sprandom::SpRandomSpec::default(),
            mqsim_draws: None,
            fill_device: false,
            wait_for: None,
            zone_strided: false,
            zone_range_bytes: 0,
            zone_size_bytes: 0,
            zone_skip_bytes: 0,
            write_lat_log: None,
            write_bw_log: None,
            write_iops_log: None,
            log_offset: false,
            write_hist_log: None,
            log_hist_ms: 0,
            log_hist_coarseness: 0,
            log_avg_ms: 0,
            written: Vec::new(),
        }
    }
}

impl JobSpec {
    /// Requests the job keeps in flight at most.
    pub fn effective_depth(&self) -> u32 {
        if self.engine.synchronous {
            1
        } else {
            self.iodepth.max(1)
        }
    }

    /// Whether requests of `op` are synchronous (the issuer waits for them): reads, flushes and trims always;
    /// writes when direct or O_SYNC. Buffered writes are asynchronous write-back.
    pub fn is_sync(&self, op: Op) -> bool {
        match op {
            Op::Write => self.direct || self.sync_writes,
            Op::Read | Op::Trim | Op::Flush => true,
        }
    }

    /// Whether the job keeps fio's random map: random I/O, unless norandommap, a distribution other than uniform,
    /// or a blockalign other than the block size turns it off (fio's init.c); not under zonemode=strided here.
    pub fn keeps_random_map(&self) -> bool {
        let aligned_to_size =
            self.block_align_bytes.is_none_or(|a| (0..3).all(|d| a[d] == self.block_sizes[d].min_bytes().max(1)));
        self.random_map
            && !self.sprandom
            && self.random_percent > 0
            && self.distribution == Distribution::Uniform
            && aligned_to_size
            && !self.zone_strided
    }

    /// Whether the job ends with a flush: end_fsync, or fsync_on_close where it writes.
    pub fn flushes_at_end(&self) -> bool {
        self.end_fsync
            || (self.fsync_on_close && matches!(self.rw, RwMode::Write | RwMode::ReadWrite | RwMode::TrimWrite))
    }

    /// Whether a write of this job is write-back: the job does not wait for it.
    pub fn writes_are_write_back(&self) -> bool {
        !self.is_sync(Op::Write)
    }

    /// The largest block any direction uses.
    pub fn max_block_bytes(&self) -> u64 {
        self.block_sizes.iter().map(|b| b.max_bytes()).max().unwrap_or(0)
    }

    /// Where an option was set, if it was.
    pub fn location_of(&self, option: &str) -> Option<&Location> {
        self.written.iter().rev().find(|o| o.key == option).map(|o| &o.location)
    }

    /// (key, value) of the options written in [global] sections (`in_global`) or in the job's own section.
    pub fn options_written(&self, in_global: bool) -> Vec<(String, String)> {
        self.written.iter().filter(|o| o.in_global == in_global).map(|o| (o.key.clone(), o.value.clone())).collect()
    }
}
