use iosched_device::disksim::build::load;
use iosched_device::hdd::disk::Hdd;
use iosched_sim::validate::replay;
use iosched_workload::trace::disksim_validate::read;
use std::path::Path;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let built = load(Path::new(&args[1])).unwrap_or_else(|e| panic!("{e}"));
    for w in &built.warnings {
        eprintln!("warning: {w}");
    }
    let recs = read(Path::new(&args[2])).unwrap();
    let mut hdd = Hdd::new(built.params);
    let t = std::time::Instant::now();
    let v = replay(&mut hdd, &recs);
    let el = t.elapsed().as_secs_f64();
    println!(
        "rms {:.4} ms  mean sim {:.3} meas {:.3}  ({:.0} req/s)",
        v.rms_ms,
        v.mean_simulated_ms(),
        v.mean_measured_ms(),
        recs.len() as f64 / el
    );
    use iosched_core::request::Op;
    for op in [Op::Read, Op::Write] {
        let idx: Vec<usize> = (0..recs.len()).filter(|i| recs[*i].op == op).collect();
        let s: f64 = idx.iter().map(|i| v.simulated_ms[*i]).sum::<f64>() / idx.len() as f64;
        let m: f64 = idx.iter().map(|i| v.measured_ms[*i]).sum::<f64>() / idx.len() as f64;
        let sv: Vec<f64> = idx.iter().map(|i| v.simulated_ms[*i]).collect();
        let mv: Vec<f64> = idx.iter().map(|i| v.measured_ms[*i]).collect();
        println!(
            "  {:?}: n={} sim mean {:.3} meas mean {:.3} rms {:.3}",
            op,
            idx.len(),
            s,
            m,
            iosched_sim::validate::demerit(&sv, &mv)
        );
    }
    if args.len() > 3 {
        for i in 0..args[3].parse::<usize>().unwrap() {
            println!(
                "{:?} {} {} sim {:.3} meas {:.3}",
                recs[i].op, recs[i].block, recs[i].blocks, v.simulated_ms[i], v.measured_ms[i]
            );
        }
    }
    for st in hdd_stats(&hdd) {
        println!("{st}");
    }
}
fn hdd_stats(h: &Hdd) -> Vec<String> {
    use iosched_device::Device;
    h.stats()
        .iter()
        .map(|(k, v)| format!("{k}={v:?}"))
        .collect()
}
