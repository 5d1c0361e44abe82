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
    let mut classes: std::collections::BTreeMap<String, (Vec<f64>, Vec<f64>)> = Default::default();
    for i in 0..recs.len() {
        let seq = i > 0 && recs[i].block == recs[i - 1].block + recs[i - 1].blocks;
        let k = format!(
            "{:?}-{}-{}",
            recs[i].op,
            if seq { "seq" } else { "rnd" },
            if recs[i].blocks <= 8 { "small" } else { "big" }
        );
        let e = classes.entry(k).or_default();
        e.0.push(v.simulated_ms[i]);
        e.1.push(v.measured_ms[i]);
    }
    for (k, (s, m)) in &classes {
        let ms = |x: &Vec<f64>| x.iter().sum::<f64>() / x.len() as f64;
        let mut a = s.clone();
        a.sort_by(f64::total_cmp);
        let mut b = m.clone();
        b.sort_by(f64::total_cmp);
        let q = |x: &Vec<f64>, p: f64| x[((x.len() - 1) as f64 * p) as usize];
        println!(
            "  {k:18} n={:5} sim {:.3} meas {:.3}  p10 {:.3}/{:.3} p50 {:.3}/{:.3} p90 {:.3}/{:.3}",
            s.len(),
            ms(s),
            ms(m),
            q(&a, 0.1),
            q(&b, 0.1),
            q(&a, 0.5),
            q(&b, 0.5),
            q(&a, 0.9),
            q(&b, 0.9)
        );
    }
    if std::env::var("SHOWHITS").is_ok() {
        let mut shown = 0;
        for i in 1..recs.len() {
            let seq = recs[i].block == recs[i - 1].block + recs[i - 1].blocks;
            if recs[i].op == Op::Read && !seq && v.simulated_ms[i] < 0.7 && shown < 25 {
                shown += 1;
                let back: Vec<String> = (i.saturating_sub(3)..i)
                    .map(|j| format!("{:?}{}+{}", recs[j].op, recs[j].block, recs[j].blocks))
                    .collect();
                println!(
                    "  #{i} R{}+{} sim {:.3} meas {:.3} after {:?} gap {:.1}ms",
                    recs[i].block,
                    recs[i].blocks,
                    v.simulated_ms[i],
                    v.measured_ms[i],
                    back,
                    recs[i - 1].next_interval_us / 1e3
                );
            }
        }
    }
    if let Ok(path) = std::env::var("DUMP") {
        let mut out = String::new();
        for i in 0..recs.len() {
            out.push_str(&format!(
                "{:?} {} {} {:.4} {:.4}\n",
                recs[i].op, recs[i].block, recs[i].blocks, v.simulated_ms[i], v.measured_ms[i]
            ));
        }
        std::fs::write(path, out).unwrap();
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
    h.stats().iter().map(|(k, v)| format!("{k}={v:?}")).collect()
}
