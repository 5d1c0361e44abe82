use super::*;

const TICK_NS: u64 = 5 * NS_PER_MS;

/// Drives a Cam by hand: requests in, decisions out, completions with chosen service times.
struct Harness {
    p: Cam,
    next_id: u64,
    in_flight: u32,
}

impl Harness {
    fn new(settings: &[(&str, &str)]) -> Harness {
        let mut p = Cam::new();
        for (k, v) in settings {
            p.set_tunable(k, v).unwrap();
        }
        Harness { p, next_id: 0, in_flight: 0 }
    }

    fn add(&mut self, now_ns: u64, op: Op, len_bytes: u64) {
        let mut r = Request::new(self.next_id, op, self.next_id * len_bytes, len_bytes, 0);
        r.queued_ns = now_ns;
        self.next_id += 1;
        self.p.enqueue(now_ns, r);
    }

    fn next(&mut self, now_ns: u64) -> Dispatch {
        let ctx =
            DispatchContext { in_flight: self.in_flight, device_depth: 32, barrier_pending: false, rotational: false };
        let d = self.p.dispatch(now_ns, &ctx);
        if let Dispatch::Request(_) = d {
            self.in_flight += 1;
        }
        d
    }

    fn take(&mut self, now_ns: u64) -> Option<Request> {
        match self.next(now_ns) {
            Dispatch::Request(mut r) => {
                r.dispatched_ns = now_ns;
                Some(r)
            }
            _ => None,
        }
    }

    /// Everything dispatchable at `now_ns`.
    fn take_all(&mut self, now_ns: u64) -> Vec<Request> {
        std::iter::from_fn(|| self.take(now_ns)).collect()
    }

    fn finish(&mut self, mut r: Request, service_ns: u64) {
        r.completed_ns = r.dispatched_ns + service_ns;
        self.in_flight -= 1;
        self.p.complete(r.completed_ns, &r);
    }

    fn stat(&self, name: &str) -> StatValue {
        self.p.stats().into_iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no stat {name}")).1
    }
}

#[test]
fn at_most_read_bias_reads_go_before_a_waiting_write() {
    let mut h = Harness::new(&[("read_bias", "3")]);
    h.add(0, Op::Write, 4096);
    for _ in 0..10 {
        h.add(0, Op::Read, 4096);
    }
    h.add(0, Op::Write, 4096);
    let ops: Vec<Op> = h.take_all(0).iter().map(|r| r.op).collect();
    use Op::{Read as R, Write as W};
    assert_eq!(ops, vec![R, R, R, W, R, R, R, W, R, R, R, R]);
    // With no reads queued, a write goes at once.
    h.add(1, Op::Write, 4096);
    assert_eq!(h.take(1).map(|r| r.op), Some(Op::Write));
}

#[test]
fn without_bias_or_limits_requests_go_in_arrival_order() {
    let mut h = Harness::new(&[]);
    let ops = [Op::Write, Op::Read, Op::Read, Op::Write, Op::Read];
    for op in ops {
        h.add(0, op, 4096);
    }
    let got: Vec<Op> = h.take_all(0).iter().map(|r| r.op).collect();
    assert_eq!(got, ops);
}

#[test]
fn queue_depth_limiter_admits_current_writes_and_lets_reads_pass() {
    let mut h = Harness::new(&[("write.limiter", "queue_depth"), ("write.max", "2"), ("write.current", "2")]);
    for _ in 0..5 {
        h.add(0, Op::Write, 4096);
    }
    h.add(0, Op::Read, 4096);
    let first: Vec<Request> = h.take_all(0);
    assert_eq!(first.iter().map(|r| r.op).collect::<Vec<_>>(), vec![Op::Write, Op::Write, Op::Read]);
    // A completion frees one slot, for exactly one write.
    h.finish(first[0], NS_PER_MS);
    assert_eq!(h.take_all(NS_PER_MS).len(), 1);
    assert!(h.take(NS_PER_MS).is_none());
    // The set_max control loop keeps current at max (2) after its steer at the first tick.
    h.finish(first[1], NS_PER_MS);
    assert_eq!(h.take_all(TICK_NS).len(), 1);
    assert_eq!(h.p.tunable("write.current").unwrap(), "2");
}

/// Writes admitted at each tick of one second, with a flood queued.
fn writes_per_tick(settings: &[(&str, &str)], len_bytes: u64, seconds: u64) -> Vec<usize> {
    let mut h = Harness::new(settings);
    for _ in 0..20_000 {
        h.add(0, Op::Write, len_bytes);
    }
    (0..=200 * seconds)
        .map(|tick| {
            let now = tick * TICK_NS;
            let got = h.take_all(now);
            for r in &got {
                h.finish(*r, 0);
            }
            got.len()
        })
        .collect()
}

#[test]
fn iops_limiter_admits_exactly_its_share_per_tick_and_current_per_second() {
    let iops = [("write.limiter", "iops"), ("write.max", "1000"), ("write.current", "1000")];
    let counts = writes_per_tick(&iops, 4096, 2);
    // Tick 0 is the start (the limiter's first budget: 1000 / 200); every tick after adds 5.
    assert!(counts.iter().all(|c| *c == 5), "{counts:?}");
    assert_eq!(counts[1..=200].iter().sum::<usize>(), 1000);
    // Below one per tick: one per tick until the second's 50 are granted, then none, every second.
    let slow = writes_per_tick(&[("write.limiter", "iops"), ("write.max", "50"), ("write.current", "50")], 4096, 2);
    assert_eq!(slow[1..=200].iter().sum::<usize>(), 50);
    assert_eq!(slow[201..=400].iter().sum::<usize>(), 50);
    assert!(slow[1..=50].iter().all(|c| *c == 1) && slow[51..=200].iter().all(|c| *c == 0), "{slow:?}");
    // A share that is not a whole number per tick still adds up to current per second.
    let odd = writes_per_tick(&[("write.limiter", "iops"), ("write.max", "300"), ("write.current", "300")], 4096, 1);
    assert_eq!(odd[1..=200].iter().sum::<usize>(), 300);
}

#[test]
fn bandwidth_limiter_admits_its_bytes_per_tick_goes_negative_and_caps_credit_at_four_ticks() {
    // 6400 kB/s at 200 ticks/s: 32,000 bytes a tick, two 16,000-byte writes.
    let bw = [("write.limiter", "bandwidth"), ("write.max", "6400"), ("write.current", "6400")];
    let counts = writes_per_tick(&bw, 16_000, 1);
    assert!(counts.iter().all(|c| *c == 2), "{counts:?}");
    // 48,000-byte writes take the budget negative: two writes every three ticks, 6.4 MB a second.
    let big = writes_per_tick(&bw, 48_000, 3);
    let bytes: u64 = big[1..=600].iter().map(|c| *c as u64 * 48_000).sum();
    assert!((bytes as i64 - 3 * 6_400_000).abs() <= 48_000, "{bytes}");
    // Idle ticks build credit up to four ticks' worth, no more.
    let mut h = Harness::new(&bw);
    h.add(0, Op::Read, 4096); // starts the clock
    h.take(0);
    for _ in 0..40 {
        h.add(20 * TICK_NS, Op::Write, 16_000);
    }
    assert_eq!(h.take_all(20 * TICK_NS).len(), 8);
}

#[test]
fn a_limited_class_asks_to_be_woken_at_the_next_tick() {
    let mut h = Harness::new(&[("write.limiter", "iops"), ("write.max", "200"), ("write.current", "200")]);
    h.add(0, Op::Write, 4096);
    h.add(0, Op::Write, 4096);
    assert!(h.take(0).is_some());
    assert_eq!(h.next(0), Dispatch::WaitUntil(TICK_NS));
    assert!(h.take(TICK_NS).is_some());
}

/// Dispatches `n` reads at `now_ns` and completes them `service_ns` later.
fn reads(h: &mut Harness, now_ns: u64, n: usize, service_ns: u64) {
    for _ in 0..n {
        h.add(now_ns, Op::Read, 4096);
    }
    for r in h.take_all(now_ns) {
        h.finish(r, service_ns);
    }
}

/// The write limit after the first steer (at the first tick: fewer than 10 reads, so up by alpha) and a
/// second one, `n` reads of `service_ns` between them.
fn steer(extra: &[(&str, &str)], n: usize, service_ns: u64) -> (i64, i64) {
    let settings = [
        ("control.type", "read_latency"),
        ("control.steer_interval", "1000000"),
        ("write.limiter", "bandwidth"),
        ("write.max", "100000"),
        ("write.current", "10000"),
    ];
    let mut h = Harness::new(&settings.iter().chain(extra).copied().collect::<Vec<_>>());
    let current = |h: &Harness| h.p.tunable("write.current").unwrap().parse::<i64>().unwrap();
    h.p.timer(0);
    h.p.timer(TICK_NS);
    let first = current(&h);
    reads(&mut h, 2 * TICK_NS, n, service_ns);
    h.p.timer(TICK_NS + NS_PER_S);
    (first, current(&h))
}

#[test]
fn steering_moves_the_write_limit_by_alpha_in_the_right_direction() {
    // No reads yet at the first steer: up 20 %.
    assert_eq!(steer(&[], 0, 0), (12_000, 14_400));
    // Slow reads (20 ms > hilat; the EMA needs ~700 samples to pass 15 ms): down 20 %.
    assert_eq!(steer(&[], 1000, 20 * NS_PER_MS), (12_000, 9_600));
    // Fast reads (1 ms < lolat): up 20 %.
    assert_eq!(steer(&[], 20, NS_PER_MS), (12_000, 14_400));
    // Slow reads, but fewer than 10 of them: up, whatever the latency.
    assert_eq!(steer(&[("alpha_bits", "1")], 9, 20 * NS_PER_MS), (12_000, 14_400));
    // Between lolat and hilat: unchanged (a dead band, not a target).
    assert_eq!(steer(&[], 3000, 10 * NS_PER_MS), (12_000, 12_000));
    // The gain is control.alpha; the result is clamped to [min, max].
    assert_eq!(steer(&[("control.alpha", "50")], 1000, 20 * NS_PER_MS), (15_000, 7_500));
    assert_eq!(steer(&[("write.max", "13000")], 20, NS_PER_MS), (12_000, 13_000));
    assert_eq!(steer(&[("write.min", "11000")], 1000, 20 * NS_PER_MS), (12_000, 11_000));
}

#[test]
fn trims_go_one_at_a_time_without_a_goal() {
    let mut h = Harness::new(&[]);
    h.add(0, Op::Trim, 1 << 20);
    h.add(0, Op::Trim, 1 << 20);
    h.add(0, Op::Read, 4096);
    let first = h.take_all(0);
    assert_eq!(first.iter().map(|r| r.op).collect::<Vec<_>>(), vec![Op::Trim, Op::Read]);
    h.finish(first[0], NS_PER_MS);
    assert_eq!(h.take(NS_PER_MS).map(|r| r.op), Some(Op::Trim));
}

#[test]
fn trims_are_held_for_their_goal_or_their_ticks_then_released_together() {
    let mut h = Harness::new(&[("trim_goal", "3"), ("trim_ticks", "50")]);
    h.add(0, Op::Read, 4096);
    let read = h.take(0).unwrap(); // keeps the device busy
    h.add(0, Op::Trim, 4096);
    h.add(0, Op::Trim, 4096);
    assert_eq!(h.next(0), Dispatch::WaitUntil(50 * NS_PER_MS));
    h.add(NS_PER_MS, Op::Trim, 4096);
    assert_eq!(h.take_all(NS_PER_MS).len(), 3);
    // Below the goal, trim_ticks after the last trim went releases them.
    // (the clock starts when a trim reaches an empty queue, as FreeBSD's last_trim_tick does).
    h.add(2 * NS_PER_MS, Op::Trim, 4096);
    assert_eq!(h.next(40 * NS_PER_MS), Dispatch::WaitUntil(52 * NS_PER_MS));
    assert_eq!(h.take(52 * NS_PER_MS).map(|r| r.op), Some(Op::Trim));
    // A waiting flush releases held trims at once.
    h.add(60 * NS_PER_MS, Op::Trim, 4096);
    let ctx = DispatchContext { in_flight: 5, device_depth: 32, barrier_pending: true, rotational: false };
    assert!(matches!(h.p.dispatch(60 * NS_PER_MS, &ctx), Dispatch::Request(r) if r.op == Op::Trim));
    h.finish(read, NS_PER_MS);
}

#[test]
fn latency_statistics_follow_freebsds_formulas() {
    let mut h = Harness::new(&[]);
    reads(&mut h, 0, 1, NS_PER_MS);
    // ema = (0 << 9 + 1 ms) >> 9; the sample lands in the bucket below 1280 us.
    assert_eq!(h.p.stats[READ].ema_ns, (NS_PER_MS >> 9) as i64);
    assert_eq!(h.stat("read.latency_lt_1280us"), StatValue::Count(1));
    assert_eq!(h.stat("read.latency_lt_640us"), StatValue::Count(0));
    reads(&mut h, 0, 1, 6 * NS_PER_S);
    assert_eq!(h.stat("read.latency_ge_5242880us"), StatValue::Count(1));
    assert_eq!(
        (h.stat("read.in"), h.stat("read.out"), h.stat("read.pending")),
        (StatValue::Count(2), StatValue::Count(2), StatValue::Count(0))
    );
    // The EMA converges on a steady latency, and the deviation shrinks towards 0.
    reads(&mut h, 0, 20_000, 3 * NS_PER_MS);
    let ema = h.p.stats[READ].ema_ns as f64;
    assert!((ema - 3e6).abs() < 3e4, "{ema}");
    assert!(h.p.stats[READ].sd_ns() < 1e5, "{}", h.p.stats[READ].sd_ns());
}

#[test]
fn drain_hands_over_every_class_in_arrival_order() {
    let mut h = Harness::new(&[("sort_io_queue", "1"), ("trim_goal", "5")]);
    let ops = [Op::Write, Op::Trim, Op::Read, Op::Write, Op::Read];
    for op in ops {
        h.add(0, op, 4096);
    }
    let drained: Vec<u64> = h.p.drain().iter().map(|r| r.id.0).collect();
    assert_eq!(drained, vec![0, 1, 2, 3, 4]);
    assert_eq!(h.p.queued(), 0);
}
