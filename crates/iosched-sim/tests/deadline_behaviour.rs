//! deadline's defining behaviour, end to end: under a read flood, with a sequential writer keeping the write
//! position moving ahead, a write far behind that position is served once its deadline has passed, within
//! write_expire plus the batches already chosen.

use iosched_core::registry;
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::fio::parse_str;

/// The largest latency of the straggler job's writes, in ms, with `write_expire` ms.
fn straggler_max_ms(write_expire_ms: &str) -> (f64, u64) {
    let jobs = parse_str(
        "[global]\ndirect=1\nbs=4k\ntime_based\nruntime=20\n\
         [flood]\nrw=randread\nioengine=libaio\niodepth=32\noffset=0\nsize=1g\n\
         [ahead]\nrw=write\nioengine=libaio\niodepth=16\noffset=10g\nsize=10g\n\
         [straggler]\nrw=randwrite\noffset=0\nsize=1g\nthinktime=200ms\n",
        "deadline.fio",
    )
    .unwrap();
    let mut policy = registry::create("deadline").unwrap();
    policy.set_tunable("write_expire", write_expire_ms).unwrap();
    let device = parse_spec("simple,latency_us=1000,queue_depth=1").unwrap();
    let out =
        simulate(&Workload::from_jobs(&jobs), policy, device, Vec::new(), &SimConfig { seed: 3, record_log: false })
            .unwrap();
    let straggler = &out.result.jobs[2].directions[1];
    (straggler.total.max_ns as f64 / 1e6, straggler.ios)
}

#[test]
fn an_expired_write_is_served_within_write_expire_plus_a_batch() {
    // Each request takes 1 ms + 4 KiB at 500 MB/s (1.008 ms) one at a time; a batch is 16 of them (16 ms).
    // The straggler's write lies behind the sequential writer's position, so only its deadline gets it out:
    // it waits write_expire, then at most the batch in progress and the read batches chosen before the next
    // write batch (writes_starved = 2): 3 batches, 48 ms.
    let batch_ms = 16.0 * 1.008;
    for (expire, expire_ms) in [("5000", 5000.0), ("1000", 1000.0)] {
        let (max_ms, ios) = straggler_max_ms(expire);
        eprintln!("write_expire {expire} ms: straggler max {max_ms:.1} ms over {ios} writes");
        assert!(ios >= 3, "the straggler wrote {ios} times");
        assert!(max_ms >= expire_ms, "write_expire {expire}: served at {max_ms} ms, before its deadline?");
        assert!(max_ms <= expire_ms + 3.0 * batch_ms + 2.0, "write_expire {expire}: {max_ms} ms");
    }
}
