//! Simulated requests per second of the engine on the simple device: a random reader at depth 32 and a
//! sequential reader at depth 1, through noop and elevator, 100,000 requests per run.
//!
//! Run: cargo bench -p iosched-sim --bench engine_rate

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use iosched_core::registry;
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::fio::parse_str;

const REQUESTS: u64 = 100_000;

fn engine_rate(c: &mut Criterion) {
    let workloads = [
        ("randread-qd32", "[r]\nrw=randread\nbs=4k\nioengine=libaio\niodepth=32\nnumber_ios=100000\n"),
        ("seqread-qd1", "[s]\nrw=read\nbs=128k\nnumber_ios=100000\n"),
    ];
    let mut group = c.benchmark_group("engine_simple_device");
    group.throughput(Throughput::Elements(REQUESTS));
    group.sample_size(20);
    for (label, text) in workloads {
        let workload = Workload::from_jobs(&parse_str(text, label).unwrap());
        for policy in ["noop", "elevator"] {
            group.bench_with_input(BenchmarkId::new(label, policy), &policy, |b, policy| {
                b.iter(|| {
                    let out = simulate(
                        &workload,
                        registry::create(policy).unwrap(),
                        parse_spec("simple").unwrap(),
                        Vec::new(),
                        &SimConfig { seed: 1, record_log: false },
                    )
                    .unwrap();
                    assert_eq!(out.result.requests_completed, REQUESTS);
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, engine_rate);
criterion_main!(benches);
