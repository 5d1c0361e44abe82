//! cam: the Netflix CAM I/O scheduler. Reads, writes and trims wait in three queues; a read bias prefers reads
//! over writes (and trims) a set number of times in a row; each class has a limiter (none, queue depth, IOPS or
//! bandwidth) refilled on a periodic tick; trims go one at a time or in batches; a control loop steers the write
//! limit from the read latency it measures; per-class statistics (latency EMA and variance, a 20-bucket latency
//! histogram, counters, a load average) are kept as the sysctls show them.
//!
//! Source: FreeBSD sys/cam/cam_iosched.c (CAM_IOSCHED_DYNAMIC) and Losh, "I/O Scheduling in FreeBSD's CAM
//! Subsystem" (seed 002). As there:
//! - Next request: a trim if one may go, else a write if one may go, else the head of the read queue if the read
//!   limiter admits it. Queues are FIFOs, or one-way elevators (bioq_disksort) with `sort_io_queue=1`.
//! - Read bias: while reads are queued and the current bias is above 0, a write (or trim) that could go is held
//!   back and the bias decremented; when a write or trim goes out the bias is reset to `read_bias`. So at most
//!   `read_bias` dispatch decisions favour reads before a waiting write.
//! - Limiters, per class, with min / max / current: `queue_depth` admits while fewer than current are at the
//!   device; `iops` grants current per second, spread over the ticks of the second, unspent grants discarded at
//!   each second (a tick grants at least one while the second's total is not yet granted); `bandwidth` (kB/s)
//!   adds current x 1000 / quanta bytes per tick while under 4 ticks' worth, and a request may take it negative.
//!   A current of 0 means unlimited (FreeBSD's failsafe).
//! - The tick (`quanta` per second, default 200: every 5 ms): steer, refill the limiters, update the load EMA.
//! - Trims: with trim_goal 0, one trim at a time (the next waits for the previous to complete); with trim_goal
//!   above 0, trims are held until trim_goal are queued or trim_ticks have passed since the last trim went, then
//!   the whole queued batch is released (the ada driver gathers it into one command; here the batch goes out
//!   back to back). A flush waiting behind held trims releases them.
//! - Steering, every control.steer_interval at a tick: `set_max` sets every class's current to its max;
//!   `read_latency` raises the write current by alpha percent when the read latency EMA is below lolat or fewer
//!   than 10 reads went out since the last steer, lowers it by alpha percent above hilat, then clamps it to
//!   [min, max]. Integer arithmetic as in FreeBSD, so a current of 1 to 4 cannot rise by 20 %.
//! - Statistics: latency is device service time (dispatch to completion); ema += (y - ema) >> alpha_bits; the
//!   exponentially weighted variance likewise; 20 latency buckets from 20 us doubling (the last holds 5.24 s
//!   and up); in, out, queued, pending, count (dispatched), errors; load = EMA (gain 2^-13 per tick) of the
//!   requests at the device plus those held by a limiter, divided by the device's queue depth.
//!
//! Differences, each deliberate:
//! - With `read_bias=0` (the default, as in current FreeBSD) there is no bias: of the read and write queue heads
//!   the limiters admit, the one that arrived first goes. Without limiters that is arrival order, the stock
//!   scheduler's; FreeBSD instead keeps writes on the read queue while the bias is 0, where a write limiter has
//!   no effect.
//! - The IOPS and bandwidth shares of a tick are exact fractions of current (they add up to current per second);
//!   FreeBSD truncates each tick's share, so 300 IOPS at 200 quanta admits 200 there.
//! - The trim class's limiter applies to trims (FreeBSD keeps its settings but never consults it).
//! - Ticks are counted from the first request the policy sees, on the simulated (or real) clock passed in;
//!   trim_ticks are kernel ticks taken as 1 ms (hz = 1000). With trim_goal above 0 and trim_ticks 0, FreeBSD can
//!   hold trims until some later I/O; here they are released when the device goes idle, so every request
//!   completes.
//! - The non-queued (non-NCQ) trim that drains the device queue is the device's behaviour, not the
//!   scheduler's: the SSD model's `trim=nonqueued` does it.
//!
//! Bound: none (a read limiter or the read bias lets writes or reads pass others indefinitely; trims go first).
//! Cost: O(1) per request with FIFO queues, O(log n) when sorting; a tick is O(1).

use super::sorted_fifo::in_arrival_order;
use crate::policy::{Dispatch, DispatchContext, Policy, StatValue, WaitBound};
use crate::request::{Op, Request};
use crate::tunable::{self, TunableError, TunableKind, TunableSpec};
use crate::units::{NS_PER_MS, NS_PER_S, NS_PER_US};
use std::collections::{BTreeMap, VecDeque};

const LIMITERS: &[&str] = &["none", "queue_depth", "iops", "bandwidth"];
const CONTROL_TYPES: &[&str] = &["set_max", "read_latency"];
/// FreeBSD's int sysctls.
const INT_MAX: i64 = i32::MAX as i64;

macro_rules! class_tunables {
    ($class:literal, $current:literal, $max:literal) => {
        [
            TunableSpec {
                name: concat!($class, ".limiter"),
                kind: TunableKind::Choice { choices: LIMITERS },
                default: "none",
                description: concat!("how ", $class, "s are limited: none, queue_depth, iops or bandwidth"),
            },
            TunableSpec {
                name: concat!($class, ".min"),
                kind: TunableKind::Int { min: 0, max: INT_MAX, unit: "limiter units" },
                default: "1",
                description: "lowest current the control loop may set (requests, IOPS or kB/s by limiter)",
            },
            TunableSpec {
                name: concat!($class, ".max"),
                kind: TunableKind::Int { min: 0, max: INT_MAX, unit: "limiter units" },
                default: $max,
                description: "highest current the control loop may set; set_max pins current to it",
            },
            TunableSpec {
                name: concat!($class, ".current"),
                kind: TunableKind::Int { min: 0, max: INT_MAX, unit: "limiter units" },
                default: $current,
                description: "the limit now (0 = unlimited); the control loop rewrites it every steer_interval",
            },
        ]
    };
}

const READ_TUNABLES: [TunableSpec; 4] = class_tunables!("read", "300000", "300000");
const WRITE_TUNABLES: [TunableSpec; 4] = class_tunables!("write", "300000", "300000");
const TRIM_TUNABLES: [TunableSpec; 4] = class_tunables!("trim", "1", "1");

const TUNABLES: &[TunableSpec] = &[
    TunableSpec {
        name: "read_bias",
        kind: TunableKind::Int { min: 0, max: INT_MAX, unit: "dispatches" },
        default: "0",
        description: "reads preferred in a row over a waiting write or trim (0 = no bias; the paper used 100)",
    },
    TunableSpec {
        name: "quanta",
        kind: TunableKind::Int { min: 1, max: 1000, unit: "ticks/s" },
        default: "200",
        description: "scheduler ticks per second: limiters refill and the control loop runs on ticks",
    },
    TunableSpec {
        name: "sort_io_queue",
        kind: TunableKind::Bool,
        default: "0",
        description: "keep each queue in one-way elevator order (FreeBSD does on rotating disks) instead of FIFO",
    },
    TunableSpec {
        name: "trim_goal",
        kind: TunableKind::Int { min: 0, max: INT_MAX, unit: "trims" },
        default: "0",
        description: "hold trims until this many are queued, then release them together (0 = one at a time)",
    },
    TunableSpec {
        name: "trim_ticks",
        kind: TunableKind::Int { min: 0, max: INT_MAX, unit: "ms" },
        default: "0",
        description: "with trim_goal, release held trims this long after the last trim went (kernel ticks, hz=1000)",
    },
    TunableSpec {
        name: "alpha_bits",
        kind: TunableKind::Int { min: 1, max: 16, unit: "bits" },
        default: "9",
        description: "latency EMA gain is 2^-alpha_bits (9: about the last 1025 samples)",
    },
    READ_TUNABLES[0],
    READ_TUNABLES[1],
    READ_TUNABLES[2],
    READ_TUNABLES[3],
    WRITE_TUNABLES[0],
    WRITE_TUNABLES[1],
    WRITE_TUNABLES[2],
    WRITE_TUNABLES[3],
    TRIM_TUNABLES[0],
    TRIM_TUNABLES[1],
    TRIM_TUNABLES[2],
    TRIM_TUNABLES[3],
    TunableSpec {
        name: "control.type",
        kind: TunableKind::Choice { choices: CONTROL_TYPES },
        default: "set_max",
        description: "control loop: set_max (current = max) or read_latency (steer the write limit)",
    },
    TunableSpec {
        name: "control.steer_interval",
        kind: TunableKind::Int { min: 1, max: INT_MAX, unit: "us" },
        default: "5000000",
        description: "how often the control loop runs",
    },
    TunableSpec {
        name: "control.lolat",
        kind: TunableKind::Int { min: 1, max: INT_MAX, unit: "us" },
        default: "5000",
        description: "read latency EMA below which the write limit is raised",
    },
    TunableSpec {
        name: "control.hilat",
        kind: TunableKind::Int { min: 1, max: INT_MAX, unit: "us" },
        default: "15000",
        description: "read latency EMA above which the write limit is lowered",
    },
    TunableSpec {
        name: "control.alpha",
        kind: TunableKind::Int { min: 0, max: 100, unit: "%" },
        default: "20",
        description: "how much one steering step changes the write limit (the loop's gain)",
    },
];

/// The latency histogram: bucket i holds latencies below 20 us << i; the last, everything from 5.24 s.
pub const LATENCY_BUCKETS: usize = 20;
const BUCKET_BASE_NS: u64 = 20 * NS_PER_US;

macro_rules! bucket_names {
    ($class:literal) => {
        [
            concat!($class, ".latency_lt_20us"),
            concat!($class, ".latency_lt_40us"),
            concat!($class, ".latency_lt_80us"),
            concat!($class, ".latency_lt_160us"),
            concat!($class, ".latency_lt_320us"),
            concat!($class, ".latency_lt_640us"),
            concat!($class, ".latency_lt_1280us"),
            concat!($class, ".latency_lt_2560us"),
            concat!($class, ".latency_lt_5120us"),
            concat!($class, ".latency_lt_10240us"),
            concat!($class, ".latency_lt_20480us"),
            concat!($class, ".latency_lt_40960us"),
            concat!($class, ".latency_lt_81920us"),
            concat!($class, ".latency_lt_163840us"),
            concat!($class, ".latency_lt_327680us"),
            concat!($class, ".latency_lt_655360us"),
            concat!($class, ".latency_lt_1310720us"),
            concat!($class, ".latency_lt_2621440us"),
            concat!($class, ".latency_lt_5242880us"),
            concat!($class, ".latency_ge_5242880us"),
        ]
    };
}

macro_rules! counter_names {
    ($class:literal) => {
        [
            concat!($class, ".in"),
            concat!($class, ".out"),
            concat!($class, ".queued"),
            concat!($class, ".pending"),
            concat!($class, ".count"),
            concat!($class, ".errs"),
            concat!($class, ".current"),
            concat!($class, ".ema_us"),
            concat!($class, ".sd_us"),
        ]
    };
}

const BUCKET_NAMES: [[&str; LATENCY_BUCKETS]; 3] =
    [bucket_names!("read"), bucket_names!("write"), bucket_names!("trim")];
const COUNTER_NAMES: [[&str; 9]; 3] = [counter_names!("read"), counter_names!("write"), counter_names!("trim")];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Limiter {
    None,
    QueueDepth,
    Iops,
    Bandwidth,
}

impl Limiter {
    const ALL: [Limiter; 4] = [Limiter::None, Limiter::QueueDepth, Limiter::Iops, Limiter::Bandwidth];

    /// Refilled by ticks (so a refusal ends at a tick, not at a completion).
    fn ticks(self) -> bool {
        matches!(self, Limiter::Iops | Limiter::Bandwidth)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Control {
    SetMax,
    ReadLatency,
}

/// The read, write or trim class: its limiter and its statistics (FreeBSD's `struct iop_stats`).
struct IopStats {
    limiter: Limiter,
    min: i64,
    max: i64,
    current: i64,
    /// IOPS: I/Os left this second; bandwidth: bytes left (may be negative).
    budget: i64,
    /// IOPS: I/Os granted so far this second.
    granted_this_second: i64,
    /// The limiter refused the head of this class's queue at the last decision.
    rate_limited: bool,
    pending: u64,
    queued: u64,
    count: u64,
    in_: u64,
    out: u64,
    errs: u64,
    ema_ns: i64,
    emvar_ns2: i128,
    latency_buckets: [u64; LATENCY_BUCKETS],
}

impl IopStats {
    fn new(current: i64, max: i64) -> IopStats {
        IopStats {
            limiter: Limiter::None,
            min: 1,
            max,
            current,
            budget: 0,
            granted_this_second: 0,
            rate_limited: false,
            pending: 0,
            queued: 0,
            count: 0,
            in_: 0,
            out: 0,
            errs: 0,
            ema_ns: 0,
            emvar_ns2: 0,
            latency_buckets: [0; LATENCY_BUCKETS],
        }
    }

    /// A limiter was chosen: start its budget at one tick's worth.
    fn init_limiter(&mut self, quanta: u64) {
        match self.limiter {
            Limiter::Iops => {
                self.budget = (self.current / quanta as i64).max(1);
                self.granted_this_second = 0;
            }
            Limiter::Bandwidth => self.budget = self.current * 1000 / quanta as i64,
            Limiter::None | Limiter::QueueDepth => {}
        }
    }

    /// Refill at tick `tick_in_second` (0 starts a new second) of `quanta`.
    fn tick(&mut self, tick_in_second: u64, quanta: u64) {
        match self.limiter {
            Limiter::Iops => {
                let mut grant = exact_share(self.current, tick_in_second, quanta);
                if tick_in_second == 0 {
                    self.granted_this_second = 0;
                }
                if grant < 1 && self.granted_this_second < self.current {
                    grant = 1;
                }
                grant = grant.min(self.current - self.granted_this_second).max(0);
                self.granted_this_second += grant;
                if tick_in_second == 0 {
                    self.budget = grant; // unspent grants of the last second are discarded
                } else {
                    self.budget += grant;
                }
            }
            Limiter::Bandwidth => {
                let bytes = exact_share(self.current * 1000, tick_in_second, quanta);
                if self.budget < bytes * 4 {
                    self.budget += bytes;
                }
            }
            Limiter::None | Limiter::QueueDepth => {}
        }
    }

    /// Would the limiter admit `req` now?
    fn can_issue(&self) -> bool {
        if self.current <= 0 {
            return true;
        }
        match self.limiter {
            Limiter::None => true,
            Limiter::QueueDepth => self.pending < self.current as u64,
            Limiter::Iops | Limiter::Bandwidth => self.budget > 0,
        }
    }

    /// `req` is dispatched: charge the limiter and count it.
    fn issue(&mut self, req: &Request) {
        if self.current > 0 {
            match self.limiter {
                Limiter::Iops => self.budget -= 1,
                Limiter::Bandwidth => self.budget -= req.len_bytes as i64,
                Limiter::None | Limiter::QueueDepth => {}
            }
        }
        self.rate_limited = false;
        self.queued = self.queued.saturating_sub(1);
        self.count += 1;
        self.pending += 1;
    }

    /// FreeBSD's cam_iosched_update: histogram, EMA and exponentially weighted variance of service time.
    fn record_latency(&mut self, latency_ns: u64, alpha_bits: u32) {
        let mut bucket = LATENCY_BUCKETS - 1;
        for i in 0..LATENCY_BUCKETS - 1 {
            if latency_ns < BUCKET_BASE_NS << i {
                bucket = i;
                break;
            }
        }
        self.latency_buckets[bucket] += 1;
        let delta = latency_ns.min(i64::MAX as u64 >> 20) as i64 - self.ema_ns;
        self.ema_ns = ((self.ema_ns << alpha_bits) + delta) >> alpha_bits;
        let deltasq = delta as i128 * delta as i128;
        self.emvar_ns2 = ((self.emvar_ns2 << (2 * alpha_bits)) + ((deltasq - self.emvar_ns2) << alpha_bits) + deltasq)
            >> (2 * alpha_bits);
    }

    fn sd_ns(&self) -> f64 {
        (self.emvar_ns2.max(0) as f64).sqrt()
    }
}

/// Tick `i` of `quanta` gets floor(total (i+1) / quanta) - floor(total i / quanta): the ticks of a second add up
/// to `total` exactly.
fn exact_share(total: i64, i: u64, quanta: u64) -> i64 {
    let total = total.max(0) as i128;
    let (i, q) = (i as i128, quanta as i128);
    (total * (i + 1) / q - total * i / q) as i64
}

/// One class's waiting requests: a FIFO, or an elevator by offset (bioq_disksort) when sorting.
#[derive(Default)]
struct OpQueue {
    fifo: VecDeque<(u64, Request)>,
    sorted: BTreeMap<(u64, u64), Request>,
    head_bytes: u64,
}

impl OpQueue {
    fn len(&self) -> usize {
        self.fifo.len() + self.sorted.len()
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push(&mut self, sort: bool, seq: u64, req: Request) {
        if sort {
            self.sorted.insert((req.offset_bytes, seq), req);
        } else {
            self.fifo.push_back((seq, req));
        }
    }

    /// The next request to serve and its arrival sequence.
    fn peek(&self) -> Option<(u64, Request)> {
        if let Some(&(seq, req)) = self.fifo.front() {
            return Some((seq, req));
        }
        let (&(_, seq), req) =
            self.sorted.range((self.head_bytes, 0)..).next().or_else(|| self.sorted.iter().next())?;
        Some((seq, *req))
    }

    fn pop(&mut self) -> Option<Request> {
        if let Some((_, req)) = self.fifo.pop_front() {
            return Some(req);
        }
        let (seq, req) = self.peek()?;
        self.sorted.remove(&(req.offset_bytes, seq));
        self.head_bytes = req.end_bytes();
        Some(req)
    }

    fn drain_into(&mut self, held: &mut Vec<(u64, Request)>) {
        held.extend(self.fifo.drain(..));
        held.extend(std::mem::take(&mut self.sorted).into_iter().map(|((_, seq), r)| (seq, r)));
    }

    /// Re-file everything for a new sorting choice.
    fn resort(&mut self, sort: bool) {
        let mut held = Vec::with_capacity(self.len());
        self.drain_into(&mut held);
        held.sort_unstable_by_key(|(seq, _)| *seq);
        for (seq, req) in held {
            self.push(sort, seq, req);
        }
    }
}

const READ: usize = 0;
const WRITE: usize = 1;
const TRIM: usize = 2;

pub struct Cam {
    read_bias: i64,
    current_read_bias: i64,
    quanta: u64,
    sort_io_queue: bool,
    trim_goal: u64,
    trim_ns: u64,
    alpha_bits: u32,
    control: Control,
    steer_interval_ns: u64,
    lolat_ns: u64,
    hilat_ns: u64,
    alpha_percent: i64,
    /// read, write, trim.
    queues: [OpQueue; 3],
    stats: [IopStats; 3],
    seq: u64,
    /// Ticks start at the first event the policy sees.
    started: bool,
    next_tick_ns: u64,
    total_ticks: u64,
    next_steer_ns: u64,
    /// read_stats.count at the last steer.
    last_steer_count: u64,
    steered_up: u64,
    steered_down: u64,
    /// The scaled load average (x 2^16).
    load: i64,
    device_depth: u32,
    trim_active: bool,
    /// Trims of a released batch still to go.
    trim_batch_left: u64,
    last_trim_ns: u64,
}

impl Default for Cam {
    fn default() -> Self {
        Cam::new()
    }
}

impl Cam {
    pub fn new() -> Cam {
        Cam {
            read_bias: 0,
            current_read_bias: 0,
            quanta: 200,
            sort_io_queue: false,
            trim_goal: 0,
            trim_ns: 0,
            alpha_bits: 9,
            control: Control::SetMax,
            steer_interval_ns: 5 * NS_PER_S,
            lolat_ns: 5 * NS_PER_MS,
            hilat_ns: 15 * NS_PER_MS,
            alpha_percent: 20,
            queues: Default::default(),
            stats: [IopStats::new(300_000, 300_000), IopStats::new(300_000, 300_000), IopStats::new(1, 1)],
            seq: 0,
            started: false,
            next_tick_ns: 0,
            total_ticks: 0,
            next_steer_ns: 0,
            last_steer_count: 0,
            steered_up: 0,
            steered_down: 0,
            load: 0,
            device_depth: 1,
            trim_active: false,
            trim_batch_left: 0,
            last_trim_ns: 0,
        }
    }

    fn tick_ns(&self) -> u64 {
        NS_PER_S / self.quanta
    }

    /// Run every tick due by `now_ns` (the first call starts the clock; the first steer is at the first tick).
    fn catch_up(&mut self, now_ns: u64) {
        if !self.started {
            self.started = true;
            self.next_tick_ns = now_ns + self.tick_ns();
            self.next_steer_ns = now_ns;
            self.last_trim_ns = now_ns;
            return;
        }
        while self.next_tick_ns <= now_ns {
            let at_ns = self.next_tick_ns;
            self.tick(at_ns);
            self.next_tick_ns += self.tick_ns();
        }
    }

    /// FreeBSD's cam_iosched_ticker.
    fn tick(&mut self, now_ns: u64) {
        self.maybe_steer(now_ns);
        let tick_in_second = self.total_ticks % self.quanta;
        for s in &mut self.stats {
            s.tick(tick_in_second, self.quanta);
        }
        let [r, w, _] = &self.stats;
        let mut pending = (r.pending + w.pending) as i64;
        if r.rate_limited {
            pending += r.queued as i64;
        }
        if w.rate_limited {
            pending += w.queued as i64;
        }
        let scaled = (pending << 16) / self.device_depth.max(1) as i64;
        self.load = (scaled + (self.load << 13) - self.load) >> 13;
        self.total_ticks += 1;
    }

    /// FreeBSD's cam_iosched_cl_maybe_steer.
    fn maybe_steer(&mut self, now_ns: u64) {
        if now_ns < self.next_steer_ns {
            return;
        }
        self.next_steer_ns = now_ns + self.steer_interval_ns;
        match self.control {
            Control::SetMax => {
                for s in &mut self.stats {
                    s.current = s.max;
                }
            }
            Control::ReadLatency => {
                let reads = self.stats[READ].count - self.last_steer_count;
                self.last_steer_count = self.stats[READ].count;
                let lat_ns = self.stats[READ].ema_ns.max(0) as u64;
                let w = &mut self.stats[WRITE];
                if lat_ns < self.lolat_ns || reads < 10 {
                    w.current = w.current * (100 + self.alpha_percent) / 100;
                    self.steered_up += 1;
                } else if lat_ns > self.hilat_ns {
                    w.current = w.current * (100 - self.alpha_percent) / 100;
                    self.steered_down += 1;
                }
                w.current = w.current.max(w.min).min(w.max);
            }
        }
    }

    /// The first tick at or after `at_ns`.
    fn tick_at_or_after(&self, at_ns: u64) -> u64 {
        if at_ns <= self.next_tick_ns {
            return self.next_tick_ns;
        }
        let tick = self.tick_ns();
        self.next_tick_ns + (at_ns - self.next_tick_ns).div_ceil(tick) * tick
    }

    /// May a trim go now (cam_iosched_has_more_trim)? A batch that becomes due is released whole.
    fn release_trims(&mut self, now_ns: u64, ctx: &DispatchContext) -> bool {
        let queued = self.queues[TRIM].len() as u64;
        if queued == 0 {
            return false;
        }
        if self.trim_goal == 0 {
            return !self.trim_active;
        }
        if self.trim_batch_left > 0 {
            return true;
        }
        let due = queued >= self.trim_goal
            || (self.trim_ns > 0 && now_ns >= self.last_trim_ns + self.trim_ns)
            || (self.trim_ns == 0 && ctx.in_flight == 0)
            || ctx.barrier_pending;
        if due {
            self.trim_batch_left = queued;
        }
        due
    }

    /// A trim, if one may go and the read bias does not hold it back (cam_iosched_get_trim).
    fn get_trim(&mut self, now_ns: u64, ctx: &DispatchContext) -> Option<Request> {
        if !self.release_trims(now_ns, ctx) {
            return None;
        }
        if !self.queues[READ].is_empty() && self.current_read_bias > 0 {
            self.current_read_bias -= 1;
            return None;
        }
        if !self.stats[TRIM].can_issue() {
            self.stats[TRIM].rate_limited = true;
            return None;
        }
        self.current_read_bias = self.read_bias;
        let req = self.queues[TRIM].pop().expect("releasable trims are queued");
        self.stats[TRIM].issue(&req);
        self.trim_batch_left = self.trim_batch_left.saturating_sub(1);
        self.trim_active = true;
        self.last_trim_ns = now_ns;
        Some(req)
    }

    /// A write, if the bias and the write limiter let one go (cam_iosched_get_write).
    fn get_write(&mut self) -> Option<Request> {
        self.queues[WRITE].peek()?;
        if !self.queues[READ].is_empty() && self.current_read_bias > 0 {
            self.current_read_bias -= 1;
            return None;
        }
        self.take_if_admitted(WRITE)
    }

    /// The head of `class`'s queue if its limiter admits it.
    fn take_if_admitted(&mut self, class: usize) -> Option<Request> {
        self.queues[class].peek()?;
        if !self.stats[class].can_issue() {
            self.stats[class].rate_limited = true;
            return None;
        }
        if class == WRITE {
            self.current_read_bias = self.read_bias;
        }
        let req = self.queues[class].pop().expect("peeked");
        self.stats[class].issue(&req);
        Some(req)
    }

    /// Without read bias: of the read and write heads the limiters admit, the one that arrived first.
    fn oldest_admitted(&mut self) -> Option<Request> {
        let read = self.queues[READ].peek().map(|(seq, _)| seq);
        let write = self.queues[WRITE].peek().map(|(seq, _)| seq);
        let order = match (read, write) {
            (Some(r), Some(w)) if w < r => [WRITE, READ],
            _ => [READ, WRITE],
        };
        order.into_iter().find_map(|class| self.take_if_admitted(class))
    }

    /// Nothing can go now: when to ask again, if a time (rather than a completion) will change that.
    fn wake_time(&self) -> Dispatch {
        let mut wake: Option<u64> = None;
        let mut consider = |at: u64| wake = Some(wake.map_or(at, |w: u64| w.min(at)));
        for (class, s) in self.stats.iter().enumerate() {
            if self.queues[class].is_empty() {
                continue;
            }
            if s.limiter.ticks() && !s.can_issue() {
                consider(self.next_tick_ns);
            }
            if s.limiter == Limiter::QueueDepth && !s.can_issue() {
                consider(self.tick_at_or_after(self.next_steer_ns));
            }
        }
        // Trims held for their goal go when trim_ticks have passed.
        if !self.queues[TRIM].is_empty() && self.trim_goal > 0 && self.trim_ns > 0 {
            consider(self.last_trim_ns + self.trim_ns);
        }
        // A write or trim held back by the read bias while the reads cannot go: FreeBSD's ticker asks again
        // every tick, spending the bias until the write goes.
        if self.current_read_bias > 0 && (!self.queues[WRITE].is_empty() || !self.queues[TRIM].is_empty()) {
            consider(self.next_tick_ns);
        }
        match wake {
            Some(at) => Dispatch::WaitUntil(at),
            None => Dispatch::Nothing,
        }
    }

    fn set_limiter_field(
        &mut self,
        class: usize,
        field: &str,
        spec: &TunableSpec,
        value: &str,
    ) -> Result<(), TunableError> {
        let s = &mut self.stats[class];
        match field {
            "limiter" => {
                s.limiter = Limiter::ALL[spec.parse_choice(value)?];
                s.init_limiter(self.quanta);
            }
            "min" => s.min = spec.parse_int(value)?,
            "max" => s.max = spec.parse_int(value)?,
            "current" => {
                // Unlike the sysctl, setting current restarts the budget, so the order of settings does not matter.
                s.current = spec.parse_int(value)?;
                s.init_limiter(self.quanta);
            }
            _ => unreachable!("class tunables are limiter, min, max, current"),
        }
        Ok(())
    }
}

fn class_of(op: Op) -> usize {
    match op {
        Op::Read => READ,
        Op::Write => WRITE,
        Op::Trim => TRIM,
        Op::Flush => unreachable!("policies never see flushes"),
    }
}

fn class_index(name: &str) -> Option<usize> {
    ["read", "write", "trim"].iter().position(|c| *c == name)
}

impl Policy for Cam {
    fn name(&self) -> &'static str {
        "cam"
    }

    fn enqueue(&mut self, now_ns: u64, req: Request) {
        self.catch_up(now_ns);
        let class = class_of(req.op);
        if class == TRIM && self.queues[TRIM].is_empty() && self.trim_batch_left == 0 {
            self.last_trim_ns = now_ns;
        }
        self.seq += 1;
        self.queues[class].push(self.sort_io_queue && class != TRIM, self.seq, req);
        self.stats[class].in_ += 1;
        self.stats[class].queued += 1;
    }

    fn dispatch(&mut self, now_ns: u64, ctx: &DispatchContext) -> Dispatch {
        self.catch_up(now_ns);
        self.device_depth = ctx.device_depth.max(1);
        if let Some(req) = self.get_trim(now_ns, ctx) {
            return Dispatch::Request(req);
        }
        let next = if self.read_bias > 0 {
            self.get_write().or_else(|| self.take_if_admitted(READ))
        } else {
            self.oldest_admitted()
        };
        match next {
            Some(req) => Dispatch::Request(req),
            None => self.wake_time(),
        }
    }

    fn complete(&mut self, now_ns: u64, req: &Request) {
        self.catch_up(now_ns);
        if req.op == Op::Flush {
            return;
        }
        let class = class_of(req.op);
        if class == TRIM {
            self.trim_active = false;
        }
        let s = &mut self.stats[class];
        s.out += 1;
        s.pending = s.pending.saturating_sub(1);
        if req.error != 0 {
            s.errs += 1;
        } else {
            s.record_latency(req.completed_ns.saturating_sub(req.dispatched_ns), self.alpha_bits);
        }
    }

    fn timer(&mut self, now_ns: u64) {
        self.catch_up(now_ns);
    }

    fn queued(&self) -> usize {
        self.queues.iter().map(OpQueue::len).sum()
    }

    fn drain(&mut self) -> Vec<Request> {
        let mut held = Vec::with_capacity(self.queued());
        for (q, s) in self.queues.iter_mut().zip(&mut self.stats) {
            q.drain_into(&mut held);
            s.queued = 0;
        }
        self.trim_batch_left = 0;
        in_arrival_order(held)
    }

    fn tunables(&self) -> &'static [TunableSpec] {
        TUNABLES
    }

    fn tunable(&self, name: &str) -> Result<String, TunableError> {
        tunable::find(self.name(), TUNABLES, name)?;
        if let Some((class, field)) = name.split_once('.').and_then(|(c, f)| Some((class_index(c)?, f))) {
            let s = &self.stats[class];
            return Ok(match field {
                "limiter" => {
                    LIMITERS[Limiter::ALL.iter().position(|l| *l == s.limiter).expect("a limiter")].to_string()
                }
                "min" => s.min.to_string(),
                "max" => s.max.to_string(),
                _ => s.current.to_string(),
            });
        }
        Ok(match name {
            "read_bias" => self.read_bias.to_string(),
            "quanta" => self.quanta.to_string(),
            "sort_io_queue" => u8::from(self.sort_io_queue).to_string(),
            "trim_goal" => self.trim_goal.to_string(),
            "trim_ticks" => (self.trim_ns / NS_PER_MS).to_string(),
            "alpha_bits" => self.alpha_bits.to_string(),
            "control.type" => CONTROL_TYPES[self.control as usize].to_string(),
            "control.steer_interval" => (self.steer_interval_ns / NS_PER_US).to_string(),
            "control.lolat" => (self.lolat_ns / NS_PER_US).to_string(),
            "control.hilat" => (self.hilat_ns / NS_PER_US).to_string(),
            "control.alpha" => self.alpha_percent.to_string(),
            _ => unreachable!("every tunable is listed"),
        })
    }

    fn set_tunable(&mut self, name: &str, value: &str) -> Result<(), TunableError> {
        let spec = tunable::find(self.name(), TUNABLES, name)?;
        if let Some((class, field)) = name.split_once('.').and_then(|(c, f)| Some((class_index(c)?, f))) {
            return self.set_limiter_field(class, field, spec, value);
        }
        match name {
            "read_bias" => {
                self.read_bias = spec.parse_int(value)?;
                self.current_read_bias = self.read_bias;
            }
            "quanta" => {
                self.quanta = spec.parse_int(value)? as u64;
                for s in &mut self.stats {
                    s.init_limiter(self.quanta);
                }
            }
            "sort_io_queue" => {
                self.sort_io_queue = spec.parse_bool(value)?;
                for q in &mut self.queues[..TRIM] {
                    q.resort(self.sort_io_queue);
                }
            }
            "trim_goal" => self.trim_goal = spec.parse_int(value)? as u64,
            "trim_ticks" => self.trim_ns = spec.parse_int(value)? as u64 * NS_PER_MS,
            "alpha_bits" => self.alpha_bits = spec.parse_int(value)? as u32,
            "control.type" => {
                self.control = [Control::SetMax, Control::ReadLatency][spec.parse_choice(value)?];
            }
            "control.steer_interval" => self.steer_interval_ns = spec.parse_int(value)? as u64 * NS_PER_US,
            "control.lolat" => self.lolat_ns = spec.parse_int(value)? as u64 * NS_PER_US,
            "control.hilat" => self.hilat_ns = spec.parse_int(value)? as u64 * NS_PER_US,
            "control.alpha" => self.alpha_percent = spec.parse_int(value)?,
            _ => unreachable!("every tunable is listed"),
        }
        Ok(())
    }

    fn wait_bound(&self) -> WaitBound {
        WaitBound::Unbounded
    }

    fn stats(&self) -> Vec<(&'static str, StatValue)> {
        let mut out = vec![
            ("current_read_bias", StatValue::Count(self.current_read_bias as u64)),
            ("total_ticks", StatValue::Count(self.total_ticks)),
            ("load", StatValue::Value(self.load as f64 / 65536.0)),
            ("steered_up", StatValue::Count(self.steered_up)),
            ("steered_down", StatValue::Count(self.steered_down)),
        ];
        for (class, s) in self.stats.iter().enumerate() {
            let names = &COUNTER_NAMES[class];
            out.extend([
                (names[0], StatValue::Count(s.in_)),
                (names[1], StatValue::Count(s.out)),
                (names[2], StatValue::Count(s.queued)),
                (names[3], StatValue::Count(s.pending)),
                (names[4], StatValue::Count(s.count)),
                (names[5], StatValue::Count(s.errs)),
                (names[6], StatValue::Count(s.current.max(0) as u64)),
                (names[7], StatValue::Value(s.ema_ns as f64 / NS_PER_US as f64)),
                (names[8], StatValue::Value(s.sd_ns() / NS_PER_US as f64)),
            ]);
            out.extend(BUCKET_NAMES[class].iter().zip(s.latency_buckets).map(|(n, c)| (*n, StatValue::Count(c))));
        }
        out
    }
}

#[cfg(test)]
mod tests;
