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
}

/// One fio job (before numjobs cloning).
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    pub name: String,
    pub defined_at: Location,
    pub rw: RwMode,
    /// randread, randwrite, randrw, randtrim.
    pub random: bool,
    pub rwmix_read_percent: u32,
    /// Block size per direction: read, write, trim.
    pub block_size_bytes: [u64; 3],
    /// The region's length; `None` means from `offset` to the end of the device.
    pub size: Option<SizeSpec>,
    pub offset: SizeSpec,
    pub io_limit: IoLimit,
    pub iodepth: u32,
    pub engine: Engine,
    /// O_DIRECT. Recorded; the simple simulation has no page cache, so it only affects the sync flag of writes.
    pub direct: bool,
    pub runtime_ns: Option<u64>,
    pub time_based: bool,
    /// Pause after each completion before the next issue.
    pub thinktime_ns: u64,
    pub numjobs: u32,
    /// Issue a flush after every N writes (0: never).
    pub fsync_every_writes: u32,
    /// Issue a flush when the job ends.
    pub end_fsync: bool,
    pub startdelay_ns: u64,
    pub class: IoClass,
    pub level: u8,
    /// Where each option was set, for error messages after parsing.
    pub option_lines: Vec<(String, Location)>,
}

impl Default for JobSpec {
    fn default() -> Self {
        JobSpec {
            name: String::new(),
            defined_at: Location::default(),
            rw: RwMode::Read,
            random: false,
            rwmix_read_percent: 50,
            block_size_bytes: [4096; 3],
            size: None,
            offset: SizeSpec::Bytes(0),
            io_limit: IoLimit::Region,
            iodepth: 1,
            engine: Engine::default(),
            direct: false,
            runtime_ns: None,
            time_based: false,
            thinktime_ns: 0,
            numjobs: 1,
            fsync_every_writes: 0,
            end_fsync: false,
            startdelay_ns: 0,
            class: IoClass::Be,
            level: LEVEL_DEFAULT,
            option_lines: Vec::new(),
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

    /// Whether requests of `op` are synchronous (the issuer waits for them): reads always; writes when the
    /// engine is synchronous and the I/O is direct. Buffered writes are asynchronous write-back.
    pub fn is_sync(&self, op: Op) -> bool {
        match op {
            Op::Read => true,
            Op::Write | Op::Trim => self.engine.synchronous && self.direct,
            Op::Flush => true,
        }
    }

    /// Where an option was set, if it was.
    pub fn location_of(&self, option: &str) -> Option<&Location> {
        self.option_lines.iter().rev().find(|(name, _)| name == option).map(|(_, loc)| loc)
    }
}
