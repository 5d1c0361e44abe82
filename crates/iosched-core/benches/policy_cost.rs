//! Cost of one request through a policy: enqueue + dispatch + complete, with the queue held at 1, 64 and 4096
//! requests issued round robin by 1, 64 and 4096 flows (ids `NAME/Qq/Ff`). Each iteration enqueues one request at a pseudo-random offset, dispatches one and completes it,
//! so the queue length stays where it was set. A policy that answers "wait" (rr's anticipation: each request
//! here comes from the next flow) is woken at the time it asked for and asked again, which counts too.
//!
//! Run: cargo bench -p iosched-core --bench policy_cost

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use iosched_core::policy::{Dispatch, DispatchContext};
use iosched_core::registry;
use iosched_core::request::{Op, Request};
use iosched_core::rng::SimRng;
use std::hint::black_box;

const QUEUED: [usize; 3] = [1, 64, 4096];
const FLOWS: [u64; 3] = [1, 64, 4096];

fn offsets() -> Vec<u64> {
    let mut rng = SimRng::new(42, 0);
    (0..65_536).map(|_| rng.below(1 << 28) * 4096).collect()
}

fn per_request(c: &mut Criterion) {
    let offsets = offsets();
    let mut group = c.benchmark_group("policy_request");
    group.throughput(Throughput::Elements(1));
    for info in registry::policies() {
        for (queued, flows) in QUEUED.iter().flat_map(|q| FLOWS.iter().map(move |f| (*q, *f))) {
            let id = BenchmarkId::new(info.name, format!("{queued}q/{flows}f"));
            group.bench_with_input(id, &queued, |b, &queued| {
                let mut policy = (info.create)();
                let ctx = DispatchContext { in_flight: 0, device_depth: 32, barrier_pending: false, rotational: false };
                let mut id = 0u64;
                let next = |id: &mut u64| {
                    let req = Request::new(*id, Op::Read, offsets[*id as usize & 0xffff], 4096, (*id % flows) as u32);
                    *id += 1;
                    req
                };
                // Hold queued - 1 between iterations, so each iteration sees `queued` after its enqueue.
                for _ in 0..queued - 1 {
                    let req = next(&mut id);
                    policy.enqueue(0, req);
                }
                let mut now_ns = 0u64;
                b.iter(|| {
                    now_ns += 1000;
                    let mut req = next(&mut id);
                    req.queued_ns = now_ns;
                    policy.enqueue(now_ns, req);
                    // A policy that waits (anticipation) is woken at its time and asked again.
                    let mut answer = policy.dispatch(now_ns, &ctx);
                    if let Dispatch::WaitUntil(at_ns) = answer {
                        now_ns = at_ns;
                        policy.timer(now_ns);
                        answer = policy.dispatch(now_ns, &ctx);
                    }
                    match answer {
                        Dispatch::Request(mut r) => {
                            r.dispatched_ns = now_ns;
                            r.completed_ns = now_ns + 500;
                            policy.complete(now_ns + 500, black_box(&r));
                        }
                        other => panic!("{} did not dispatch: {other:?}", info.name),
                    }
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, per_request);
criterion_main!(benches);
