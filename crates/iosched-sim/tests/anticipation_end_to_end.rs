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
    assert!(rr_cvs >= 1.0, "cvs must still progress under rr: {rr_cvs} IOPS");
    let hits = stats.iter().find(|(k, _)| k == "wait_hit").map(|(_, v)| *v);
    assert!(matches!(hits, Some(StatValue::Count(n)) if n > 1000), "{stats:?}");
}

#[test]
fn as_keeps_the_sequential_reader_going_beside_a_random_one() {
    let (noop_dd, _, _) = run("noop");
    let (as_dd, as_cvs, stats) = run("as");
    eprintln!("dd MB/s: noop {noop_dd:.1}, as {as_dd:.1}; cvs IOPS under as {as_cvs:.1}");
    assert!(as_dd >= 4.0 * noop_dd, "as dd {as_dd} vs noop {noop_dd}");
    assert!(as_cvs >= 1.0, "cvs must still progress under as (read batches expire): {as_cvs} IOPS");
    let waits = stats.iter().find(|(k, _)| k == "antic_waits").map(|(_, v)| *v);
    assert!(matches!(waits, Some(StatValue::Count(n)) if n > 1000), "{stats:?}");
}
