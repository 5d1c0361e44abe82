//! Why rr and as exist, end to end (seeds 000/001, the geom-sched case): on a 2008 SATA disk, a sequential
//! reader (dd) shares the disk with a random reader (cvs). Without anticipation every dd read pays a seek back
//! after each cvs read; rr and as wait for dd's next read (rr for its slice, as until its read batch ends), so
//! dd runs several times faster while cvs still progresses.

use iosched_core::policy::StatValue;
use iosched_core::registry;
use iosched_device::parse_spec;
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::fio::parse_str;

const JOBS: &str =
    "[global]\ndirect=1\ntime_based\nruntime=10\n[dd]\nrw=read\nbs=128k\n[cvs]\nrw=randread\nbs=4k\nsize=50%\n";

fn run(policy: &str) -> (f64, f64, Vec<(String, StatValue)>) {
    let jobs = parse_str(JOBS, "geom-sched.fio").unwrap();
    let out = simulate(
        &Workload::from_jobs(&jobs),
        registry::create(policy).unwrap(),
        parse_spec("hdd:sata7200").unwrap(),
        Vec::new(),
        &SimConfig { seed: 1, record_log: false },
    )
    .unwrap();
    let r = &out.result;
    (r.jobs[0].bw_bytes_per_s(0) / 1e6, r.jobs[1].iops(0), r.policy_stats.clone())
}

#[test]
fn rr_keeps_the_sequential_reader_going_beside_a_random_one() {
    let (noop_dd, noop_cvs, _) = run("noop");
    let (rr_dd, rr_cvs, stats) = run("rr");
    eprintln!("dd MB/s: noop {noop_dd:.1}, rr {rr_dd:.1}; cvs IOPS: noop {noop_cvs:.1}, rr {rr_cvs:.1}");
    // The seed's figures: noop leaves dd 3-12 MB/s; rr gives it several times more.
    assert!((3.0..12.0).contains(&noop_dd), "noop dd {noop_dd}");
    assert!(rr_dd >= 4.0 * noop_dd, "rr dd {rr_dd} vs noop {noop_dd}");
    // cvs keeps what rr gives it: 9.2 IOPS at seed 1, 9.1-9.2 over seeds 1-8 (`iosched sim` of these jobs on
    // hdd:sata7200 --seed N; noop gives it 40-42): at least the figure less twice that spread.
    assert!(rr_cvs >= 9.2 - 2.0 * 0.1, "cvs under rr: {rr_cvs} IOPS, below the 9.0 reached");
    let hits = stats.iter().find(|(k, _)| k == "wait_hit").map(|(_, v)| *v);
    assert!(matches!(hits, Some(StatValue::Count(n)) if n > 1000), "{stats:?}");
}

#[test]
fn as_keeps_the_sequential_reader_going_beside_a_random_one() {
    let (noop_dd, _, _) = run("noop");
    let (as_dd, as_cvs, stats) = run("as");
    eprintln!("dd MB/s: noop {noop_dd:.1}, as {as_dd:.1}; cvs IOPS under as {as_cvs:.1}");
    assert!(as_dd >= 4.0 * noop_dd, "as dd {as_dd} vs noop {noop_dd}");
    // cvs progresses as as's read batches expire: 5.0 IOPS at seed 1, 4.5-6.4 over seeds 1-8 (a batch's end
    // falls differently): at least the figure less twice that spread.
    assert!(as_cvs >= 5.0 - 2.0 * 1.9, "cvs under as: {as_cvs} IOPS, below the 1.2 reached");
    let waits = stats.iter().find(|(k, _)| k == "antic_waits").map(|(_, v)| *v);
    assert!(matches!(waits, Some(StatValue::Count(n)) if n > 1000), "{stats:?}");
}
