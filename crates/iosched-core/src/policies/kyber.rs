//! kyber: a latency-target scheduler for fast devices. Requests wait in per-domain FIFOs (read, write,
//! discard, other); each domain may have at most `depth` requests at the device (its token pool); domains are
//! served round robin in batches. Every 100 ms the depths are retuned from latency histograms: when the
//! device looks congested, domains meeting their target are throttled, and domains missing theirs are eased.
//!
//! Source: Linux block/kyber-iosched.c. As there:
//! - Domain caps (the most tokens): read 256, write 128, discard 64, other 16; batches: read 16, write 8,
//!   discard 1, other 1. A domain's requests go in arrival order while it has a token; the current domain
//!   keeps the device for a batch, then the next domain with requests and a token takes over.
//! - Targets: read_lat_nsec (2 ms), write_lat_nsec (10 ms), discard 5 s. Two histograms per domain of 8
//!   buckets, each a quarter of the target wide (the last open-ended): total latency (queued to completed) and
//!   I/O latency (dispatched to completed).
//! - The timer runs 100 ms after a completion when none is pending. A percentile is computed once a domain has
//!   500 samples or its first sample is 1 s old, and the histogram is then cleared. If any domain's p90 I/O
//!   latency is in a bad bucket (beyond its target), the device is congested. Each domain (read, write,
//!   discard) with a p99 total latency then scales its depth by (p99 bucket + 1) / 4 if the device is
//!   congested or its own p99 is bad; a p99 computed while not congested is remembered for the next congested
//!   window. Depths stay in [1, cap].
//!
//! Differences: there are no per-CPU lists and no merging; flushes never reach a policy, so the other domain
//! stays empty. Bound: none (a domain out of tokens waits while others are served).
//! Cost: O(1) per request; the timer is O(buckets).

use super::sorted_fifo::in_arrival_order;
use crate::policy::{Dispatch, DispatchContext, Policy, StatValue, WaitBound};
use crate::request::{Op, Request};
use crate::tunable::{self, TunableError, TunableKind, TunableSpec};
use crate::units::{NS_PER_MS, NS_PER_S};
use std::collections::VecDeque;

const TUNABLES: &[TunableSpec] = &[
    TunableSpec {
        name: "read_lat_nsec",
        kind: TunableKind::Int { min: 1, max: 1 << 40, unit: "ns" },
        default: "2000000",
        description: "target latency of reads",
    },
    TunableSpec {
        name: "write_lat_nsec",
        kind: TunableKind::Int { min: 1, max: 1 << 40, unit: "ns" },
        default: "10000000",
        description: "target latency of writes",
    },
];

const DOMAINS: usize = 4;
const READ: usize = 0;
const WRITE: usize = 1;
const DISCARD: usize = 2;
const OTHER: usize = 3;
const CAPS: [u32; DOMAINS] = [256, 128, 64, 16];
const BATCH: [u32; DOMAINS] = [16, 8, 1, 1];
const DISCARD_TARGET_NS: u64 = 5 * NS_PER_S;
const LATENCY_SHIFT: u32 = 2;
const GOOD_BUCKETS: usize = 1 << LATENCY_SHIFT;
const BUCKETS: usize = 2 << LATENCY_SHIFT;
const TIMER_NS: u64 = 100 * NS_PER_MS;
const MIN_SAMPLES: u64 = 500;
const SAMPLE_WINDOW_NS: u64 = NS_PER_S;
const TOTAL: usize = 0;
const IO: usize = 1;

const STAT_NAMES: [[&str; 3]; DOMAINS] = [
    ["read.depth", "read.in_flight", "read.queued"],
    ["write.depth", "write.in_flight", "write.queued"],
    ["discard.depth", "discard.in_flight", "discard.queued"],
    ["other.depth", "other.in_flight", "other.queued"],
];

#[derive(Clone)]
struct Domain {
    /// (arrival sequence, request).
    fifo: VecDeque<(u64, Request)>,
    depth: u32,
    in_flight: u32,
    /// [total, io] latency histograms.
    histograms: [[u64; BUCKETS]; 2],
    /// When each histogram may be read with fewer than MIN_SAMPLES.
    latency_timeout_ns: [Option<u64>; 2],
    /// The last p99 bucket seen while not congested (-1: none).
    remembered_p99: i32,
}

pub struct Kyber {
    read_target_ns: u64,
    write_target_ns: u64,
    domains: [Domain; DOMAINS],
    cur_domain: usize,
    batching: u32,
    seq: u64,
    timer_at_ns: Option<u64>,
    dispatched: u64,
    congested_windows: u64,
    resizes: u64,
}

impl Default for Kyber {
    fn default() -> Self {
        Kyber::new()
    }
}

fn domain_of(op: Op) -> usize {
    match op {
        Op::Read => READ,
        Op::Write => WRITE,
        Op::Trim => DISCARD,
        Op::Flush => OTHER,
    }
}

impl Kyber {
    pub fn new() -> Kyber {
        let domain = |cap| Domain {
            fifo: VecDeque::new(),
            depth: cap,
            in_flight: 0,
            histograms: [[0; BUCKETS]; 2],
            latency_timeout_ns: [None; 2],
            remembered_p99: -1,
        };
        Kyber {
            read_target_ns: 2 * NS_PER_MS,
            write_target_ns: 10 * NS_PER_MS,
            domains: [domain(CAPS[0]), domain(CAPS[1]), domain(CAPS[2]), domain(CAPS[3])],
            cur_domain: 0,
            batching: 0,
            seq: 0,
            timer_at_ns: None,
            dispatched: 0,
            congested_windows: 0,
            resizes: 0,
        }
    }

    fn target_ns(&self, domain: usize) -> u64 {
        match domain {
            READ => self.read_target_ns,
            WRITE => self.write_target_ns,
            _ => DISCARD_TARGET_NS,
        }
    }

    fn bucket(&self, domain: usize, latency_ns: u64) -> usize {
        let divisor = (self.target_ns(domain) >> LATENCY_SHIFT).max(1);
        ((latency_ns.saturating_sub(1) / divisor) as usize).min(BUCKETS - 1)
    }

    /// The bucket holding the `percentile`-th sample of a histogram, or None when there are too few samples
    /// yet; reading it clears the histogram (kyber's calculate_percentile).
    fn percentile(&mut self, now_ns: u64, domain: usize, kind: usize, percentile: u64) -> Option<usize> {
        let d = &mut self.domains[domain];
        let samples: u64 = d.histograms[kind].iter().sum();
        if samples == 0 {
            return None;
        }
        let timeout = *d.latency_timeout_ns[kind].get_or_insert(now_ns + SAMPLE_WINDOW_NS);
        if samples < MIN_SAMPLES && now_ns < timeout {
            return None;
        }
        d.latency_timeout_ns[kind] = None;
        let wanted = (samples * percentile).div_ceil(100);
        let mut seen = 0;
        let mut bucket = BUCKETS - 1;
        for (i, count) in d.histograms[kind].iter().enumerate() {
            seen += count;
            if seen >= wanted {
                bucket = i;
                break;
            }
        }
        d.histograms[kind] = [0; BUCKETS];
        Some(bucket)
    }

    /// kyber_timer_fn: detect congestion, then resize the domains' depths.
    fn on_timer(&mut self, now_ns: u64) {
        let mut congested = false;
        for domain in READ..=DISCARD {
            if self.percentile(now_ns, domain, IO, 90).is_some_and(|b| b >= GOOD_BUCKETS) {
                congested = true;
            }
        }
        if congested {
            self.congested_windows += 1;
        }
        for (domain, cap) in CAPS.iter().enumerate().take(DISCARD + 1) {
            let mut p99 = self.percentile(now_ns, domain, TOTAL, 99).map_or(-1, |b| b as i32);
            let d = &mut self.domains[domain];
            if congested {
                if p99 < 0 {
                    p99 = d.remembered_p99;
                }
                d.remembered_p99 = -1;
            } else if p99 >= 0 {
                d.remembered_p99 = p99;
            }
            if p99 < 0 {
                continue;
            }
            if congested || p99 as usize >= GOOD_BUCKETS {
                let depth = (d.depth * (p99 as u32 + 1)) >> LATENCY_SHIFT;
                let depth = depth.clamp(1, *cap);
                if depth != d.depth {
                    d.depth = depth;
                    self.resizes += 1;
                }
            }
        }
    }

    fn run_timer(&mut self, now_ns: u64) {
        if let Some(at) = self.timer_at_ns {
            if now_ns >= at {
                self.timer_at_ns = None;
                self.on_timer(at);
            }
        }
    }

    /// The head of `domain` if it has a token (kyber_dispatch_cur_domain).
    fn take_from(&mut self, domain: usize) -> Option<Request> {
        let d = &mut self.domains[domain];
        if d.fifo.is_empty() || d.in_flight >= d.depth {
            return None;
        }
        d.in_flight += 1;
        self.batching += 1;
        self.dispatched += 1;
        d.fifo.pop_front().map(|(_, r)| r)
    }
}

impl Policy for Kyber {
    fn name(&self) -> &'static str {
        "kyber"
    }

    fn enqueue(&mut self, now_ns: u64, req: Request) {
        self.run_timer(now_ns);
        self.seq += 1;
        self.domains[domain_of(req.op)].fifo.push_back((self.seq, req));
    }

    fn dispatch(&mut self, now_ns: u64, _ctx: &DispatchContext) -> Dispatch {
        self.run_timer(now_ns);
        if self.batching < BATCH[self.cur_domain] {
            if let Some(req) = self.take_from(self.cur_domain) {
                return Dispatch::Request(req);
            }
        }
        self.batching = 0;
        for _ in 0..DOMAINS {
            self.cur_domain = (self.cur_domain + 1) % DOMAINS;
            if let Some(req) = self.take_from(self.cur_domain) {
                return Dispatch::Request(req);
            }
        }
        // Out of tokens or out of requests: a completion frees a token.
        Dispatch::Nothing
    }

    fn complete(&mut self, now_ns: u64, req: &Request) {
        self.run_timer(now_ns);
        let domain = domain_of(req.op);
        let total = self.bucket(domain, req.completed_ns.saturating_sub(req.queued_ns));
        let io = self.bucket(domain, req.completed_ns.saturating_sub(req.dispatched_ns));
        let d = &mut self.domains[domain];
        d.in_flight = d.in_flight.saturating_sub(1);
        d.histograms[TOTAL][total] += 1;
        d.histograms[IO][io] += 1;
        self.timer_at_ns.get_or_insert(now_ns + TIMER_NS);
    }

    fn timer(&mut self, now_ns: u64) {
        self.run_timer(now_ns);
    }

    fn queued(&self) -> usize {
        self.domains.iter().map(|d| d.fifo.len()).sum()
    }

    fn drain(&mut self) -> Vec<Request> {
        in_arrival_order(self.domains.iter_mut().flat_map(|d| d.fifo.drain(..)).collect())
    }

    fn tunables(&self) -> &'static [TunableSpec] {
        TUNABLES
    }

    fn tunable(&self, name: &str) -> Result<String, TunableError> {
        tunable::find(self.name(), TUNABLES, name)?;
        Ok(match name {
            "read_lat_nsec" => self.read_target_ns.to_string(),
            _ => self.write_target_ns.to_string(),
        })
    }

    fn set_tunable(&mut self, name: &str, value: &str) -> Result<(), TunableError> {
        let spec = tunable::find(self.name(), TUNABLES, name)?;
        let v = spec.parse_int(value)? as u64;
        match name {
            "read_lat_nsec" => self.read_target_ns = v,
            _ => self.write_target_ns = v,
        }
        Ok(())
    }

    fn wait_bound(&self) -> WaitBound {
        WaitBound::Unbounded
    }

    fn stats(&self) -> Vec<(&'static str, StatValue)> {
        let mut out = vec![
            ("dispatched", StatValue::Count(self.dispatched)),
            ("congested_windows", StatValue::Count(self.congested_windows)),
            ("depth_changes", StatValue::Count(self.resizes)),
        ];
        for (d, names) in self.domains.iter().zip(STAT_NAMES) {
            out.push((names[0], StatValue::Count(u64::from(d.depth))));
            out.push((names[1], StatValue::Count(u64::from(d.in_flight))));
            out.push((names[2], StatValue::Count(d.fifo.len() as u64)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CTX: DispatchContext =
        DispatchContext { in_flight: 0, device_depth: 1024, barrier_pending: false, rotational: false };

    /// `n` requests of `op`, each queued at `now_ns`, dispatched `wait_ns` later and completed `io_ns` after.
    fn complete_many(p: &mut Kyber, now_ns: u64, op: Op, n: u64, wait_ns: u64, io_ns: u64) {
        for i in 0..n {
            let mut r = Request::new(i, op, 0, 4096, 0);
            r.queued_ns = now_ns;
            r.dispatched_ns = now_ns + wait_ns;
            r.completed_ns = now_ns + wait_ns + io_ns;
            p.complete(r.completed_ns, &r);
        }
    }

    fn depth(p: &Kyber, domain: usize) -> u32 {
        p.domains[domain].depth
    }

    #[test]
    fn a_congested_device_throttles_domains_within_target_and_eases_them_when_theirs_turns_bad() {
        let mut p = Kyber::new();
        // Window 1: reads take 5 ms at the device (target 2 ms: congested); writes complete in 2 ms (target
        // 10 ms: p99 in bucket 0). Writes are throttled to (0 + 1) / 4 of their depth.
        complete_many(&mut p, 0, Op::Read, 600, 0, 5 * NS_PER_MS);
        complete_many(&mut p, 0, Op::Write, 600, 0, 2 * NS_PER_MS);
        p.timer(200 * NS_PER_MS);
        assert_eq!((depth(&p, WRITE), depth(&p, READ)), (32, 256));
        // Window 2: reads are fast again, but writes now wait for tokens: p99 total 25 ms (bucket 7, bad).
        // Not congested, so only the domain missing its target changes: up by (7 + 1) / 4.
        complete_many(&mut p, 300 * NS_PER_MS, Op::Read, 600, 0, NS_PER_MS / 4);
        complete_many(&mut p, 300 * NS_PER_MS, Op::Write, 600, 20 * NS_PER_MS, 5 * NS_PER_MS);
        p.timer(500 * NS_PER_MS);
        assert_eq!(depth(&p, WRITE), 64);
        complete_many(&mut p, 600 * NS_PER_MS, Op::Write, 600, 20 * NS_PER_MS, 5 * NS_PER_MS);
        p.timer(800 * NS_PER_MS);
        assert_eq!(depth(&p, WRITE), 128, "back to the cap, not beyond");
        // Within target and not congested: no change.
        complete_many(&mut p, 900 * NS_PER_MS, Op::Write, 600, 0, NS_PER_MS);
        p.timer(1100 * NS_PER_MS);
        assert_eq!(depth(&p, WRITE), 128);
    }

    #[test]
    fn few_samples_wait_a_second_before_counting() {
        let mut p = Kyber::new();
        complete_many(&mut p, 0, Op::Read, 10, 0, 5 * NS_PER_MS);
        complete_many(&mut p, 0, Op::Write, 10, 0, NS_PER_MS);
        p.timer(200 * NS_PER_MS);
        assert_eq!(depth(&p, WRITE), 128, "10 samples and 200 ms: not yet");
        complete_many(&mut p, 1300 * NS_PER_MS, Op::Read, 10, 0, 5 * NS_PER_MS);
        p.timer(1500 * NS_PER_MS);
        assert_eq!(depth(&p, WRITE), 32, "a second after the first sample, 20 are enough");
    }

    #[test]
    fn a_domain_without_tokens_waits_and_batches_rotate() {
        let mut p = Kyber::new();
        p.domains[WRITE].depth = 2;
        for i in 0..20u64 {
            p.enqueue(0, Request::new(i, if i < 10 { Op::Write } else { Op::Read }, i * 4096, 4096, 0));
        }
        let ops: Vec<Op> = std::iter::from_fn(|| match p.dispatch(0, &CTX) {
            Dispatch::Request(r) => Some(r.op),
            _ => None,
        })
        .collect();
        // Reads (cur domain first, batch 16) take all 10; writes stop at their 2 tokens.
        assert_eq!(ops.iter().filter(|o| **o == Op::Read).count(), 10);
        assert_eq!(ops.iter().filter(|o| **o == Op::Write).count(), 2);
        assert_eq!(p.queued(), 8);
    }
}
