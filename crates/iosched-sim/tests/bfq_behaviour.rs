//! BFQ's defining behaviour on the 2008 SATA disk (issue 7): service in proportion to weight, and weight raising
//! that lets a newly started, interactive flow finish fast beside sequential readers.

use iosched_core::registry;
use iosched_core::results::RunResult;
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::fio::parse_str;

fn run(jobs: &str, settings: &[(&str, &str)], seed: u64) -> RunResult {
    let p = registry::create_with("bfq", settings.iter().copied()).unwrap();
    let jobs = parse_str(jobs, "bfq.fio").unwrap();
    let config = SimConfig { seed, record_log: false };
    simulate(&Workload::from_jobs(&jobs), p, parse_spec("hdd:sata7200").unwrap(), Vec::new(), &config).unwrap().result
}

/// Two sequential readers for 20 s at levels `a` and `b` (weights (8 - level) x 10): their bytes' ratio.
fn byte_ratio(a: u8, b: u8) -> f64 {
    let jobs = format!(
        "[global]\ndirect=1\ntime_based\nruntime=20\nrw=read\nbs=128k\nprioclass=2\n\
         [a]\nprio={a}\n[b]\nprio={b}\noffset=50%\n"
    );
    let r = run(&jobs, &[("low_latency", "0")], 1);
    let (ab, bb) = (r.jobs[0].directions[0].bytes as f64, r.jobs[1].directions[0].bytes as f64);
    eprintln!(
        "levels {a} and {b}: {:.1} and {:.1} MB/s",
        r.jobs[0].bw_bytes_per_s(0) / 1e6,
        r.jobs[1].bw_bytes_per_s(0) / 1e6
    );
    ab / bb
}

#[test]
fn throughput_follows_weight() {
    // The requirement: the ratio of the weights, within 20 % (B-WF2Q+ over whole budgets on a disk whose two
    // halves stream at different rates). The regression bound: the figures reached, 7.7540 and 0.9904, within
    // 0.5 %; seeds 1-8 give the same figures (sequential readers draw nothing at random), so there is no noise
    // to add and 0.5 % only allows for rounding in a change of the model. (9.244 before injection counted every
    // request at the device, as bfq_choose_bfqq_for_injection does: the level-7 reader no longer gets requests in
    // beside the level-0 reader's own. 7.9015 and 0.9998 before max_budget followed BFQ's per-dispatch peak-rate
    // estimate after 11 turns, as bfq-iosched.c's decaying budgets_assigned has it, rather than the 16,384-sector
    // default for 194 turns: budgets of about 14,000 sectors, the disk's 57 MB/s x timeout_sync.)
    let weighted = byte_ratio(0, 7);
    assert!((weighted - 8.0).abs() <= 8.0 * 0.2, "weights 80 and 10 gave a byte ratio of {weighted:.2}");
    assert!((weighted / 7.7540 - 1.0).abs() <= 0.005, "weights 80 and 10: {weighted:.4}, 7.7540 was reached");
    let equal = byte_ratio(4, 4);
    assert!((equal - 1.0).abs() <= 0.1, "equal weights gave a byte ratio of {equal:.2}");
    assert!((equal / 0.9904 - 1.0).abs() <= 0.005, "equal weights: {equal:.4}, 0.9904 was reached");
}

#[test]
fn weight_raising_lets_a_new_interactive_flow_finish_fast() {
    // Two sequential readers, and from 15 s a flow of 150 small dependent reads (an application starting).
    // The readers are new queues, so BFQ raises them too, until they have read 120,000 sectors or wr_duration
    // has passed (about 13.4 s on this disk: 7 s x 213,623 / its estimated 111,000 sectors/s); meanwhile all
    // three would be raised alike. BFQ's own benchmark waits that transient out before starting the application
    // (the S suite's comm_startup_lat.sh sleeps transitory_duration: BFQ's wr_max_time + 1 s), and so does this.
    // The comparison is of means over seeds.
    let jobs = "[global]\ndirect=1\n[a]\nrw=read\nbs=128k\ntime_based\nruntime=35\n\
                [b]\nrw=read\nbs=128k\noffset=50%\ntime_based\nruntime=35\n\
                [c]\nrw=randread\nbs=4k\nnumber_ios=150\nstartdelay=15\nsize=10%\noffset=20%\n";
    const SEEDS: u64 = 8;
    let finish_s = |low_latency: &str| {
        let times: Vec<f64> = (1..=SEEDS)
            .map(|seed| {
                let r = run(jobs, &[("low_latency", low_latency)], seed);
                let c = &r.jobs[2];
                assert_eq!(c.directions[0].ios, 150, "the small reader must finish (seed {seed})");
                c.runtime_ns as f64 / 1e9
            })
            .collect();
        let shown: Vec<String> = times.iter().map(|t| format!("{t:.2}")).collect();
        eprintln!("low_latency={low_latency}, seeds 1-{SEEDS}: {} s", shown.join(" "));
        times.iter().sum::<f64>() / SEEDS as f64
    };
    let (raised, plain) = (finish_s("1"), finish_s("0"));
    eprintln!("150 small reads took {raised:.2} s with low_latency=1, {plain:.2} s without (means over {SEEDS} seeds)");
    assert!(raised * 5.0 <= plain, "low_latency=1: {raised:.2} s, low_latency=0: {plain:.2} s");
}
