use super::*;
use crate::policies::flow_map::sync_queue_key as sync_key;
use crate::request::Op;

const CTX: DispatchContext =
    DispatchContext { in_flight: 0, device_depth: 32, barrier_pending: false, rotational: true };

fn read(id: u64, flow: u32, offset_bytes: u64, len_bytes: u64, now_ns: u64) -> Request {
    let mut r = Request::new(id, Op::Read, offset_bytes, len_bytes, flow);
    r.queued_ns = now_ns;
    r
}

#[test]
fn flows_of_one_priority_share_one_async_queue() {
    // bfq_async_queue_prio: async writes of every flow at one class and level go to one queue; each flow's
    // sync requests have their own; weight.FLOW is a flow's sync queue's.
    let mut p = Bfq::new();
    p.set_tunable("weight.2", "500").unwrap();
    for (id, flow, sync, level) in
        [(1, 1, false, 4), (2, 2, false, 4), (3, 3, false, 4), (4, 2, true, 4), (5, 1, false, 0)]
    {
        let mut r = Request::new(id, if sync { Op::Read } else { Op::Write }, id << 20, 4096, flow);
        (r.sync, r.level) = (sync, level);
        p.enqueue(0, r);
    }
    assert_eq!(p.queues.len(), 3, "one async queue at level 4, one at level 0, flow 2's sync queue");
    let weights: Vec<u64> = p.queues.values().map(|q| p.base_weight(q)).collect();
    assert_eq!(weights.iter().filter(|w| **w == 500).count(), 1, "{weights:?}: only flow 2's sync queue");
}

#[test]
fn max_budget_async_rq_holds_an_async_queue_to_that_many_at_the_device_while_others_are_busy() {
    // Two flows of buffered writes (async), twenty each, at two levels (so two async queues; at one level they
    // would share one): the queue in service dispatches back to back until the limit, BFQ v1-v7's rule; with
    // the mainline default (0) nothing holds it back.
    let dispatched_in_a_row = |limit: &str| {
        let mut p = Bfq::new();
        p.set_tunable("max_budget_async_rq", limit).unwrap();
        for flow in 0..2u32 {
            for i in 0..20u64 {
                let mut w =
                    Request::new(u64::from(flow) * 100 + i, Op::Write, (u64::from(flow) << 30) + i * 4096, 4096, flow);
                (w.sync, w.level) = (false, 4 + flow as u8);
                p.enqueue(0, w);
            }
        }
        let mut n = 0;
        while let Dispatch::Request(_) = p.dispatch(0, &DispatchContext { in_flight: n, ..CTX }) {
            n += 1;
            if n > 40 {
                break;
            }
        }
        n
    };
    assert_eq!(dispatched_in_a_row("4"), 4);
    assert!(dispatched_in_a_row("0") > 4);
}

fn stat(p: &Bfq, name: &str) -> u64 {
    match p.stats().into_iter().find(|(n, _)| *n == name) {
        Some((_, StatValue::Count(c))) => c,
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn wf2q_serves_backlogged_flows_in_proportion_to_weight() {
    // Flows 1 and 2 always have requests; each dispatch completes at once. Weights 300 and 100.
    let mut p = Bfq::new();
    for (k, v) in [("weight.1", "300"), ("weight.2", "100"), ("low_latency", "0"), ("max_budget", "64")] {
        p.set_tunable(k, v).unwrap();
    }
    let mut id = 0;
    let mut served = [0u64; 3];
    let mut next_offset = [0u64; 3];
    let mut now = 0;
    for flow in [1u32, 2] {
        for _ in 0..4 {
            p.enqueue(now, read(id, flow, next_offset[flow as usize], 4096, now));
            next_offset[flow as usize] += 4096;
            id += 1;
        }
    }
    for _ in 0..4000 {
        now += 1000;
        let Dispatch::Request(mut r) = p.dispatch(now, &CTX) else { panic!("backlogged flows always have work") };
        served[r.flow.0 as usize] += 1;
        r.dispatched_ns = now;
        r.completed_ns = now + 500;
        p.complete(now + 500, &r);
        let f = r.flow.0 as usize;
        p.enqueue(now, read(id, r.flow.0, next_offset[f], 4096, now));
        next_offset[f] += 4096;
        id += 1;
    }
    let ratio = served[1] as f64 / served[2] as f64;
    assert!((ratio - 3.0).abs() < 0.15, "served {served:?}, ratio {ratio}");
}

#[test]
fn interactive_raising_ends_after_its_duration() {
    // A flow of 32 KiB reads every 10 ms: too fast to be soft real-time, too little to reach 120,000
    // sectors, so it is raised (x30) from its first request for wr_duration, then not. On a rotational
    // device, before any peak-rate update (these reads, 9 ms apart, are not back to back, so they update
    // nothing), bfq_wr_duration is 7 s x the reference rate / the starting estimate (2/3 of it): 10.5 s.
    let mut p = Bfq::new();
    let mut raised_at = Vec::new();
    for i in 0..1200u64 {
        let now = i * 10 * NS_PER_MS;
        p.enqueue(now, read(i, 1, i * 32768, 32768, now));
        let Dispatch::Request(mut r) = p.dispatch(now, &CTX) else { panic!("one flow, one request") };
        raised_at.push((now, stat(&p, "weight_raised_busy") == 1 || p.queues[&sync_key(1)].wr_coeff > 1));
        r.dispatched_ns = now;
        r.completed_ns = now + NS_PER_MS;
        p.complete(r.completed_ns, &r);
    }
    let duration = p.wr_duration_ns().expect("dispatched");
    assert!(duration.abs_diff(10_500 * NS_PER_MS) < NS_PER_MS, "{duration} ns");
    assert_eq!(stat(&p, "peak_rate_updates"), 0);
    for (now, raised) in raised_at {
        assert_eq!(raised, now < duration, "at {} ms", now / NS_PER_MS);
    }
    assert_eq!(stat(&p, "raised_interactive"), 1);
    assert_eq!(stat(&p, "raised_soft_rt"), 0);
}

#[test]
fn only_queues_of_the_default_weight_are_raised() {
    // Flow 1 at ionice level 0 (weight 80), flow 2 with weight.2 set, flow 3 at the default level 4: as in
    // bfq-iosched.c (entity.new_weight == 40), only flow 3 is raised; a chosen weight is left as chosen.
    let mut p = Bfq::new();
    p.set_tunable("weight.2", "300").unwrap();
    let mut r1 = read(1, 1, 0, 4096, 0);
    r1.level = 0;
    p.enqueue(0, r1);
    p.enqueue(0, read(2, 2, 1 << 30, 4096, 0));
    p.enqueue(0, read(3, 3, 1 << 31, 4096, 0));
    let raised: Vec<u32> = [1u32, 2, 3].into_iter().filter(|f| p.queues[&sync_key(*f)].wr_coeff > 1).collect();
    assert_eq!(raised, [3]);
    assert_eq!(stat(&p, "raised_interactive"), 1);
}

/// Flow 1 (sequential, or seeky: 24 requests 16 MiB apart, so more than 19 of its last 32 seeked) runs dry
/// in service while flow 2 waits; what does bfq do next?
fn after_flow_1_runs_dry(settings: &[(&str, &str)], seeky: bool) -> (Bfq, Dispatch) {
    let mut p = Bfq::new();
    for (k, v) in settings {
        p.set_tunable(k, v).unwrap();
    }
    let requests = if seeky { 24 } else { 8 };
    for i in 0..requests {
        let offset = if seeky { i * (1 << 24) } else { i * 4096 };
        p.enqueue(0, read(i, 1, offset, 4096, 0));
    }
    p.enqueue(0, read(100, 2, 1 << 34, 4096, 0));
    for _ in 0..requests {
        let Dispatch::Request(mut r) = p.dispatch(0, &CTX) else { panic!("flow 1 has requests") };
        assert_eq!(r.flow.0, 1);
        r.dispatched_ns = 0;
        r.completed_ns = 1;
        p.complete(1, &r);
    }
    let next = p.dispatch(1, &CTX);
    (p, next)
}

#[test]
fn a_weight_raised_queue_is_waited_for_at_least_20_ms() {
    // bfq_arm_slice_timer: max(slice_idle, 20 ms) for a raised queue. Flows 1 and 2 are new, so raised with
    // low_latency (the default); without it, slice_idle. strict_guarantees keeps injection out of the way.
    let strict = ("strict_guarantees", "1");
    let (_, raised) = after_flow_1_runs_dry(&[strict], false);
    assert_eq!(raised, Dispatch::WaitUntil(1 + 20 * NS_PER_MS));
    let (_, raised) = after_flow_1_runs_dry(&[strict, ("slice_idle", "30")], false);
    assert_eq!(raised, Dispatch::WaitUntil(1 + 30 * NS_PER_MS), "a longer slice_idle stands");
    let (_, unraised) = after_flow_1_runs_dry(&[strict, ("low_latency", "0")], false);
    assert_eq!(unraised, Dispatch::WaitUntil(1 + 8 * NS_PER_MS));
}

#[test]
fn a_sequential_queue_is_idled_on_and_a_seeky_one_is_not_when_weights_are_equal() {
    // Sequential, no injection: wait slice_idle (8 ms) rather than seek to flow 2; then flow 2.
    let (mut p, next) = after_flow_1_runs_dry(&[("low_latency", "0"), ("strict_guarantees", "1")], false);
    assert_eq!(next, Dispatch::WaitUntil(1 + 8 * NS_PER_MS));
    assert!(matches!(p.dispatch(1 + 8 * NS_PER_MS, &CTX), Dispatch::Request(r) if r.flow.0 == 2));
    assert_eq!(stat(&p, "expired_too_idle"), 1);
    // Injection on (the default) changes nothing: bfq_select_queue injects only where idling does not boost
    // throughput (idling_boosts_thr_without_issues), and idling for a sequential queue on a disk does.
    let (p, next) = after_flow_1_runs_dry(&[("low_latency", "0")], false);
    assert_eq!(next, Dispatch::WaitUntil(1 + 8 * NS_PER_MS));
    assert_eq!(stat(&p, "injected"), 0);
    // Seeky, equal weights: no idling; the turn ends at once.
    let (p, next) = after_flow_1_runs_dry(&[("low_latency", "0")], true);
    assert!(matches!(next, Dispatch::Request(r) if r.flow.0 == 2));
    assert_eq!((stat(&p, "injected"), stat(&p, "expired_no_more_requests")), (0, 1));
    // Seeky but with a larger weight than flow 2 (asymmetric): idled on for flow 1's share, not for
    // throughput, so flow 2 gets in by injection.
    let (p, next) = after_flow_1_runs_dry(&[("low_latency", "0"), ("weight.1", "200")], true);
    assert!(matches!(next, Dispatch::Request(r) if r.flow.0 == 2));
    assert_eq!((stat(&p, "injected"), stat(&p, "expired_no_more_requests")), (1, 0));
    assert_eq!(p.idle_until_ns, Some(1 + 8 * NS_PER_MS));
}

#[test]
fn a_sequential_queue_is_not_idled_on_for_throughput_while_raised_queues_are_busy() {
    // Both flows are new, so raised (low_latency): equal raised weights, nobody unraised to compete with, so
    // neither throughput (idling_boosts_thr_without_issues needs wr_busy_queues == 0) nor guarantees call for
    // idling: flow 1's turn ends when it runs dry and flow 2 goes, not injected but in its own turn.
    let (p, next) = after_flow_1_runs_dry(&[], false);
    assert!(matches!(next, Dispatch::Request(r) if r.flow.0 == 2));
    assert_eq!((stat(&p, "injected"), stat(&p, "expired_no_more_requests")), (0, 1));
    // Unraised, the same sequential queue is idled on (a_sequential_queue_is_idled_on_... above).
}

#[test]
fn a_queue_alone_is_idled_on_even_when_seeky() {
    // idling_needed_for_service_guarantees: tot_busy_queues == 1. A seeky flow alone, no raising: it is
    // waited for (2 ms, the seeky queue's wait in a symmetric scenario) rather than its turn ending.
    let mut p = Bfq::new();
    p.set_tunable("low_latency", "0").unwrap();
    for i in 0..24u64 {
        p.enqueue(0, read(i, 1, i * (1 << 24), 4096, 0));
    }
    for _ in 0..24 {
        let Dispatch::Request(mut r) = p.dispatch(0, &CTX) else { panic!("flow 1 has requests") };
        r.dispatched_ns = 0;
        r.completed_ns = 1;
        p.complete(1, &r);
    }
    assert!(p.queues[&sync_key(1)].seeky());
    assert_eq!(p.dispatch(1, &CTX), Dispatch::WaitUntil(1 + 2 * NS_PER_MS));
}

#[test]
fn idling_on_flash_boosts_throughput_only_without_command_queueing() {
    // idling_boosts_thr_without_issues: on a non-rotational device, idling for a sequential queue pays only
    // where the device takes one request at a time (no hw_tag). With a queue of 32 and equal weights, flow 1's
    // turn ends when it runs dry; at depth 1 it is idled on, and nothing is injected beside it.
    let flash = |device_depth| DispatchContext { rotational: false, device_depth, ..CTX };
    let run = |ctx: DispatchContext| {
        let mut p = Bfq::new();
        p.set_tunable("low_latency", "0").unwrap();
        for i in 0..8u64 {
            p.enqueue(0, read(i, 1, i * 4096, 4096, 0));
        }
        p.enqueue(0, read(100, 2, 1 << 34, 4096, 0));
        for _ in 0..8 {
            let Dispatch::Request(mut r) = p.dispatch(0, &ctx) else { panic!("flow 1 has requests") };
            r.dispatched_ns = 0;
            r.completed_ns = 1;
            p.complete(1, &r);
        }
        let next = p.dispatch(1, &ctx);
        (p, next)
    };
    let (p, next) = run(flash(32));
    assert!(matches!(next, Dispatch::Request(r) if r.flow.0 == 2), "{next:?}");
    assert_eq!((stat(&p, "injected"), stat(&p, "expired_no_more_requests")), (0, 1));
    let (p, next) = run(flash(1));
    assert_eq!(next, Dispatch::WaitUntil(1 + 8 * NS_PER_MS));
    assert_eq!(stat(&p, "injected"), 0);
}

#[test]
fn injection_counts_every_request_at_the_device_as_bfq_does() {
    // On flash with command queueing, flow 1 (sequential, weight 200 against flow 2's 100) is idled on for
    // its share, not for throughput, so injection may serve flow 2 beside it. Flow 1 has served 8 requests
    // alone, so its service time without injection is known and injection may probe with a limit of 1. Flow
    // 1's 9th request is at the device and it has nothing queued: BFQ counts that request against the limit
    // (tot_rq_in_driver), so nothing is injected until it completes; then flow 2's request is.
    const FLASH: DispatchContext = DispatchContext { rotational: false, ..CTX };
    let mut p = Bfq::new();
    p.set_tunable("low_latency", "0").unwrap();
    p.set_tunable("weight.1", "200").unwrap();
    for i in 0..9u64 {
        p.enqueue(i, read(i, 1, i * 4096, 4096, i));
    }
    p.enqueue(0, read(100, 2, 1 << 34, 4096, 0));
    for i in 0..8u64 {
        let Dispatch::Request(mut r) = p.dispatch(i, &FLASH) else { panic!("flow 1 has requests") };
        r.dispatched_ns = i;
        r.completed_ns = i + 1;
        p.complete(i + 1, &r);
    }
    let Dispatch::Request(ninth) = p.dispatch(9, &FLASH) else { panic!("flow 1's ninth") };
    assert_eq!(ninth.flow.0, 1);
    let one_out = DispatchContext { in_flight: 1, ..FLASH };
    assert_eq!(p.dispatch(10, &one_out), Dispatch::Nothing, "injected beside the request in service");
    assert_eq!(stat(&p, "injected"), 0);
    let mut ninth = ninth;
    ninth.dispatched_ns = 9;
    ninth.completed_ns = 11;
    p.complete(11, &ninth);
    assert!(matches!(p.dispatch(11, &FLASH), Dispatch::Request(r) if r.flow.0 == 2));
    assert_eq!(stat(&p, "injected"), 1);
}

#[test]
fn a_newly_raised_queue_preempts_only_with_preempt_on() {
    // Flow 1 has a chosen weight (so it is never raised) and is in service; flow 2 becomes busy for the first
    // time and is raised. Mainline ends flow 1's turn at once; the seed's BFQ (preempt=0) lets it run on.
    for (preempt, next_flow) in [("1", 2), ("0", 1)] {
        let mut p = Bfq::new();
        p.set_tunable("weight.1", "50").unwrap();
        p.set_tunable("preempt", preempt).unwrap();
        assert_eq!(p.tunable("preempt").unwrap(), preempt);
        for i in 0..16u64 {
            p.enqueue(0, read(i, 1, i * 4096, 4096, 0));
        }
        assert!(matches!(p.dispatch(0, &CTX), Dispatch::Request(r) if r.flow.0 == 1));
        p.enqueue(1, read(100, 2, 1 << 34, 4096, 1));
        let one_out = DispatchContext { in_flight: 1, ..CTX };
        let d = p.dispatch(1, &one_out);
        assert!(matches!(d, Dispatch::Request(r) if r.flow.0 == next_flow), "preempt={preempt}: {d:?}");
        assert_eq!(stat(&p, "expired_preempted"), u64::from(preempt == "1"));
    }
}

#[test]
fn a_queue_with_requests_in_flight_still_counts_in_the_symmetry_test() {
    // Flow 2 (weight 200) has a request at the device when its turn ends; flow 1 (weight 80, seeky) then runs
    // dry in service. The scenario is asymmetric until flow 2's request completes, so flow 1 is idled on.
    let mut p = Bfq::new();
    for (k, v) in [("low_latency", "0"), ("weight.2", "200"), ("strict_guarantees", "0")] {
        p.set_tunable(k, v).unwrap();
    }
    p.enqueue(0, read(100, 2, 1 << 34, 4096, 0));
    let Dispatch::Request(mut r2) = p.dispatch(0, &CTX) else { panic!("flow 2 has a request") };
    p.expire(0, Expiry::Preempted);
    for i in 0..8u64 {
        p.enqueue(1, read(i, 1, i * (1 << 24), 4096, 1));
    }
    assert!(p.asymmetric(), "flow 2 is not busy, but its request is in flight");
    for _ in 0..8 {
        let Dispatch::Request(mut r) = p.dispatch(1, &CTX) else { panic!("flow 1 has requests") };
        r.dispatched_ns = 1;
        r.completed_ns = 2;
        p.complete(2, &r);
    }
    assert_eq!(p.dispatch(2, &CTX), Dispatch::WaitUntil(2 + 8 * NS_PER_MS), "idle for seeky flow 1");
    r2.dispatched_ns = 0;
    r2.completed_ns = 3;
    p.complete(3, &r2);
    assert!(!p.asymmetric(), "flow 2 has left: flow 1 alone");
}

#[test]
fn a_raised_queue_gets_twice_the_minimum_budget_and_an_unraised_one_adapts() {
    // Flow 1 dispatches one request, which completes, and sends no more: its turn ends too idle.
    let budget_after_too_idle = |low_latency: &str| {
        let mut p = Bfq::new();
        p.set_tunable("low_latency", low_latency).unwrap();
        p.enqueue(0, read(1, 1, 0, 4096, 0));
        let Dispatch::Request(mut r) = p.dispatch(0, &CTX) else { panic!("one request") };
        r.dispatched_ns = 0;
        r.completed_ns = 1;
        p.complete(1, &r);
        let Dispatch::WaitUntil(t) = p.dispatch(1, &CTX) else { panic!("idles for flow 1") };
        assert_eq!(p.dispatch(t, &CTX), Dispatch::Nothing);
        assert_eq!(stat(&p, "expired_too_idle"), 1);
        p.queues[&sync_key(1)].max_budget
    };
    let initial = DEFAULT_MAX_BUDGET_SECTORS * 2 / 3;
    assert_eq!(
        budget_after_too_idle("1"),
        2 * (DEFAULT_MAX_BUDGET_SECTORS / 32),
        "raised: 2 x min_budget (__bfq_bfqq_recalc_budget)"
    );
    assert_eq!(budget_after_too_idle("0"), initial - 4 * (DEFAULT_MAX_BUDGET_SECTORS / 32), "unraised: 4 x min off");
}

#[test]
fn soft_real_time_next_start_waits_for_the_last_completion() {
    // Flow 1's turn ends with its request at the device. Its soft real-time next start is computed when that
    // request completes, so a reader that asks again at once is never taken for soft real-time.
    let mut p = Bfq::new();
    p.set_tunable("low_latency", "0").unwrap();
    p.enqueue(0, read(1, 1, 0, 4096, 0));
    let Dispatch::Request(mut r) = p.dispatch(0, &CTX) else { panic!("one request") };
    p.expire(0, Expiry::Preempted);
    let q = &p.queues[&sync_key(1)];
    assert!(q.soft_rt_update);
    assert_eq!(q.soft_rt_next_start_ns, u64::MAX, "not computed while the request is in flight");
    let done_ns = 50 * NS_PER_MS;
    r.dispatched_ns = 0;
    r.completed_ns = done_ns;
    p.complete(done_ns, &r);
    let q = &p.queues[&sync_key(1)];
    assert!(!q.soft_rt_update);
    assert_eq!(q.soft_rt_next_start_ns, done_ns + 8 * NS_PER_MS + 4 * NS_PER_MS);
}

#[test]
fn weights_are_tunable_per_flow_and_checked() {
    let mut p = Bfq::new();
    p.set_tunable("weight.7", "300").unwrap();
    assert_eq!(p.tunable("weight.7").unwrap(), "300");
    assert_eq!(p.tunable("weight.8").unwrap(), "0");
    assert!(p.set_tunable("weight.7", "1001").is_err());
    assert!(p.set_tunable("weight.x", "10").is_err());
    p.set_tunable("weight.2", "50").unwrap();
    let listed: Vec<String> = p.tunable_values().into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    assert!(listed.ends_with(&["weight.2=50".to_string(), "weight.7=300".to_string()]), "{listed:?}");
    assert!(!listed.iter().any(|kv| kv.starts_with("weight.FLOW")));
}

/// Flow 1 (raised: new, default weight) alone for `cycles` rounds of one request served in 1 ms, then idled on
/// (20 ms, raised) until its turn ends, its next request coming 25 ms after the last completed: each finds it
/// out of service and idle, a think-time sample of 2 x slice_idle (16 ms) at most. Then flow 2 (weight 100, so not
/// raised) has a request waiting when flow 1, in service again, runs dry.
fn raised_queue_after_think_times(cycles: u64) -> (Bfq, Dispatch) {
    let mut p = Bfq::new();
    p.set_tunable("weight.2", "100").unwrap();
    let mut t = 0;
    for i in 0..=cycles {
        p.enqueue(t, read(i, 1, i * 4096, 4096, t));
        let Dispatch::Request(mut r) = p.dispatch(t, &CTX) else { panic!("flow 1's request") };
        assert_eq!(r.flow.0, 1);
        if i == cycles {
            p.enqueue(t, read(100, 2, 1 << 34, 4096, t));
        }
        r.dispatched_ns = t;
        r.completed_ns = t + NS_PER_MS;
        p.complete(t + NS_PER_MS, &r);
        if i == cycles {
            break;
        }
        assert_eq!(p.dispatch(t + NS_PER_MS, &CTX), Dispatch::WaitUntil(t + 21 * NS_PER_MS), "alone, idled on");
        assert_eq!(p.dispatch(t + 21 * NS_PER_MS, &CTX), Dispatch::Nothing, "its turn ends, too idle");
        t += 26 * NS_PER_MS;
    }
    assert!(p.queues[&sync_key(1)].wr_coeff > 1, "flow 1 is raised");
    let next = p.dispatch(t + NS_PER_MS, &CTX);
    (p, next)
}

#[test]
fn a_raised_queue_lets_unraised_queues_in_only_once_its_think_time_is_long() {
    // bfq_update_io_thinktime / bfq_update_has_short_ttime: a queue's think time is short until over 80 (x256)
    // samples (three) say its mean is over slice_idle / 2; bfq_choose_bfqq_for_injection lets any queue in
    // while a raised queue in service thinks long (in_serv_always_inject), only raised ones while it thinks
    // short. Two samples (the first as the queue opens, of 0): still short, so flow 2 (unraised) waits while
    // flow 1 is idled on.
    let (p, next) = raised_queue_after_think_times(1);
    assert!(p.queues[&sync_key(1)].short_ttime);
    assert!(matches!(next, Dispatch::WaitUntil(_)), "{next:?}");
    assert_eq!(stat(&p, "injected"), 0);
    // A third sample, of 16 ms: long (mean over 4 ms), so flow 2's request is injected.
    let (p, next) = raised_queue_after_think_times(2);
    let q = &p.queues[&sync_key(1)];
    assert!(!q.short_ttime && q.ttime_samples > 80 && q.ttime_mean_ns() > 4 * NS_PER_MS, "{}", q.ttime_mean_ns());
    assert!(matches!(next, Dispatch::Request(r) if r.flow.0 == 2), "{next:?}");
    assert_eq!(stat(&p, "injected"), 1);
}

/// Flow 1 (sequential, unraised) alone in service for 20 requests, one at a time, each served in 1 ms and the
/// next arriving `pause_ms` after it completes (while flow 1 is idled on, so no think-time sample is taken);
/// flow 2's request comes with flow 1's last, and flow 1 runs dry.
fn sequential_queue_with_pauses(pause_ms: u64) -> (Bfq, Dispatch) {
    let mut p = Bfq::new();
    p.set_tunable("low_latency", "0").unwrap();
    let mut t = 0;
    for i in 0..20u64 {
        p.enqueue(t, read(i, 1, i * 4096, 4096, t));
        if i == 19 {
            p.enqueue(t, read(100, 2, 1 << 34, 4096, t));
        }
        let Dispatch::Request(mut r) = p.dispatch(t, &CTX) else { panic!("flow 1's request") };
        assert_eq!(r.flow.0, 1);
        r.dispatched_ns = t;
        r.completed_ns = t + NS_PER_MS;
        p.complete(t + NS_PER_MS, &r);
        if i < 19 {
            assert_eq!(p.dispatch(t + NS_PER_MS, &CTX), Dispatch::WaitUntil(t + 9 * NS_PER_MS), "alone, idled on");
        }
        t += (1 + pause_ms) * NS_PER_MS;
    }
    let next = p.dispatch(t - pause_ms * NS_PER_MS, &CTX);
    (p, next)
}

#[test]
fn idling_boosts_throughput_only_for_an_io_bound_queue() {
    // bfq_update_io_intensity: a queue is I/O-bound while it was idle (nothing queued or at the device) at most a
    // fifth of the last ~200 ms; idling_boosts_thr_without_issues idles for throughput only on a sequential
    // queue that is. Without pauses flow 1 is, and is idled on (8 ms) when it runs dry beside flow 2.
    let (p, next) = sequential_queue_with_pauses(0);
    let q = &p.queues[&sync_key(1)];
    assert!(q.io_bound && q.short_ttime && !q.seeky());
    assert_eq!(next, Dispatch::WaitUntil(19 * NS_PER_MS + NS_PER_MS + 8 * NS_PER_MS));
    // With 3 ms pauses after each 1 ms request it is idle three quarters of the time: not I/O-bound, its think
    // time still short (no sample while in service). Idling would not boost throughput and the weights are
    // equal, so its turn ends and flow 2 goes.
    let (p, next) = sequential_queue_with_pauses(3);
    let q = &p.queues[&sync_key(1)];
    assert!(!q.io_bound && q.short_ttime && !q.seeky());
    assert!(matches!(next, Dispatch::Request(r) if r.flow.0 == 2), "{next:?}");
    assert_eq!(stat(&p, "expired_no_more_requests"), 1);
}
