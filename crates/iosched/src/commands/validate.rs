//! `iosched validate`: a DiskSim drive against its measured trace, by DiskSim's demerit figure.
//!
//! The figure is computed as DiskSim's rms tool computes it, on the access-time distributions bucketed as the
//! statdefs file the .parv names says ("Stat definition file", resolved next to the .parv; DiskSim's shipped
//! buckets when it names none), and also on the requests' own times (`rms_exact_ms`).

use crate::cli::ValidateArgs;
use crate::error::{bad, CliError};
use iosched_device::disksim::build::{self, Drive};
use iosched_device::disksim::params::read_file;
use iosched_device::spec::{apply_disksim_keys, split_keys};
use iosched_report::table::wrap;
use iosched_sim::disksim_oracle::{self, Conformance};
use iosched_sim::validate::{
    errors_by_kind, jittered, replay, replay_with_services, AccessTimeBuckets, KindError, Replayer, Validation,
};
use iosched_workload::trace::disksim_validate::{self, ValidateRecord};
use serde_json::json;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

pub fn run(args: &ValidateArgs) -> Result<(), CliError> {
    let (parv, keys) = split_keys(&args.disksim).map_err(|e| bad(format!("--disksim {}: {e}", args.disksim)))?;
    let parv = Path::new(parv);
    let file = read_file(parv).map_err(bad)?;
    let (mut model, mut warnings) = build::build_drive(&file, parv).map_err(bad)?;
    apply_disksim_keys(&mut model, &keys).map_err(|e| bad(format!("--disksim {}: {e}", args.disksim)))?;
    let (buckets, statdefs_file) = match AccessTimeBuckets::named_in(&file).map_err(bad)? {
        Some((buckets, path)) => (buckets, Some(path)),
        None => {
            warnings.push(format!(
                "{} names no 'Stat definition file': the demerit uses the access-time buckets of the statdefs \
                 file DiskSim ships (1750 buckets, scale 1000, start 0, step 1, grow 1 %)",
                parv.display()
            ));
            (AccessTimeBuckets::disksim(), None)
        }
    };
    if !(args.tolerance_ms.is_finite() && args.tolerance_ms >= 0.0) {
        return Err(bad(format!("--tolerance-ms {}: expected a number of milliseconds, 0 or more", args.tolerance_ms)));
    }
    if let Some(j) = args.jitter_us.filter(|j| !(j.is_finite() && *j > 0.0)) {
        return Err(bad(format!("--jitter-us {j}: expected a positive number of microseconds")));
    }
    let blocks = model.blocks();
    // A trace is replayed as it is read (the first pass); made-up traces once made.
    let mut first_pass = None;
    // The requests, and where each run of them starts and ends: every run is replayed on a fresh drive.
    let (records, runs, trace_name) = match (&args.trace, args.synthetic) {
        (Some(trace), _) => {
            let (records, pass) = read_and_replay(trace, &model)?;
            first_pass = Some(pass);
            let n = records.len();
            (records, std::iter::once(0..n).collect::<Vec<_>>(), trace.display().to_string())
        }
        (None, Some(n)) => {
            let seeds = match args.runs {
                1 => format!("seed {}", args.seed),
                k => format!("{k} runs, seeds {}-{}", args.seed, args.seed + k - 1),
            };
            if args.large_reads {
                let Drive::Disk(params) = &model else {
                    return Err(bad(format!(
                        "--large-reads: reads larger than the drive's cache segment, and {} has no cache (it is \
                         DiskSim's fixed-access-time disk)",
                        parv.display()
                    )));
                };
                let (records, runs) =
                    disksim_oracle::synthetic_large_read_runs(params, n as usize, args.runs, args.seed);
                let segment = params.cache.segment_blocks;
                let name =
                    format!("synthetic, {seeds}, reads of up to 8 segments of {segment} blocks (no measured times)");
                (records, runs, name)
            } else {
                let largest = disksim_oracle::largest_synthetic_request_blocks(model.segment_blocks());
                let (records, runs) =
                    disksim_oracle::synthetic_runs_within(blocks, largest, n as usize, args.runs, args.seed);
                (records, runs, format!("synthetic, {seeds}, requests of up to {largest} blocks (no measured times)"))
            }
        }
        (None, None) => return Err(bad("--trace FILE or --synthetic N is needed")),
    };
    // Each run on a fresh drive, its times from zero.
    let replay_runs = |records: &[ValidateRecord]| -> Vec<f64> {
        runs.iter().flat_map(|r| replay(&mut *model.device(), &records[r.clone()])).collect()
    };
    if let Some((i, r)) = records.iter().enumerate().find(|(_, r)| r.block.saturating_add(r.blocks) > blocks) {
        return Err(bad(format!(
            "{}:{}: blocks {}+{} are past the drive's {blocks} blocks",
            trace_name,
            i + 1,
            r.block,
            r.blocks
        )));
    }
    if let Some(out) = &args.write_trace {
        std::fs::write(out, disksim_validate::format(&records))
            .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", out.display())))?;
    }
    // Warnings once the input is accepted, so that an error stays one line.
    for w in &warnings {
        eprintln!("iosched: warning: {w}");
    }
    // The first pass also notes what the model made of each request (for the error by kind); each pass on a
    // fresh drive, the trace's times starting from zero again. The rate counts the time spent replaying.
    let (first, services, mut wall_s) = match first_pass {
        Some(pass) => pass,
        None => {
            let started = Instant::now();
            let mut services: Vec<&str> = Vec::with_capacity(records.len());
            let first: Vec<f64> = runs
                .iter()
                .flat_map(|r| {
                    let (ms, s) = replay_with_services(&mut *model.device(), &records[r.clone()]);
                    services.extend(s);
                    ms
                })
                .collect();
            (first, services, started.elapsed().as_secs_f64())
        }
    };
    let started = Instant::now();
    for _ in 1..args.repeat {
        replay_runs(&records);
    }
    wall_s += started.elapsed().as_secs_f64();
    let v = Validation::new(first, &records, &buckets);
    let kinds = errors_by_kind(&records, &v.simulated_ms, &v.measured_ms, &services);
    let has_measured = records.iter().any(|r| r.measured_us > 0.0);
    let requests = records.len() as u64 * args.repeat as u64;
    let rate = requests as f64 / wall_s.max(1e-9);
    // DiskSim on the same drive and requests, when asked.
    let oracle = match &args.against_disksim {
        Some(bin) => {
            let Drive::Disk(params) = &model else {
                return Err(bad(format!(
                    "--against-disksim: DiskSim logs each request's times (log_sim_results.csv) only for a \
                     disksim_disk, and {} is its fixed-access-time disk; compare its printed 'IOdriver Physical \
                     access time' instead",
                    parv.display()
                )));
            };
            let c = disksim_oracle::compare(bin, parv, params, &records, &runs, &buckets, args.tolerance_ms)
                .map_err(|e| CliError::Failed(format!("DiskSim: {e}")))?;
            for f in &c.failures {
                eprintln!("iosched: warning: {f}; comparing the requests it served");
            }
            Some((c.disksim, c.simulated_ms, c.conformance, c.failures))
        }
        None => None,
    };
    if let Some(out) = &args.per_request {
        let mut csv = String::from("index,op,block,blocks,simulated_ms,measured_ms");
        csv.push_str(if oracle.is_some() {
            ",disksim_ms,disksim_cache,simulated_at_disksim_issue_ms,disksim_issued_ms\n"
        } else {
            "\n"
        });
        for (i, r) in records.iter().enumerate() {
            let _ = write!(
                csv,
                "{},{},{},{},{:.4},{:.4}",
                i + 1,
                r.op.name(),
                r.block,
                r.blocks,
                v.simulated_ms[i],
                v.measured_ms[i]
            );
            if let Some((served, ours, _, _)) = &oracle {
                match (served.get(i), ours.get(i)) {
                    (Some(o), Some(t)) => {
                        let _ = write!(csv, ",{:.4},{},{:.4},{:.6}", o.access_ms, o.cache, t, o.issued_ms);
                    }
                    _ => csv.push_str(",,,,"),
                }
            }
            csv.push('\n');
        }
        std::fs::write(out, csv).map_err(|e| CliError::Failed(format!("cannot write {}: {e}", out.display())))?;
    }
    let rms = v.rms_ms;
    // The demerit's spread when the think times are nudged: one replay per seed, each on a fresh drive.
    let spread = args.jitter_us.map(|jitter_us| {
        let runs: Vec<Validation> = (0..args.seeds as u64)
            .map(|seed| Validation::new(replay_runs(&jittered(&records, jitter_us, seed)), &records, &buckets))
            .collect();
        let of = |figure: fn(&Validation) -> f64| Spread::of(jitter_us, &runs.iter().map(figure).collect::<Vec<_>>());
        (of(|v| v.rms_ms), of(|v| v.rms_exact_ms))
    });
    if args.json {
        let mut value = json!({
            "drive": args.disksim,
            "refinements": model.refinements(),
            "trace": trace_name,
            "rms_ms": rms,
            "rms_exact_ms": v.rms_exact_ms,
            "statdefs": statdefs_file.as_ref().map(|p| p.display().to_string()),
            "mean_sim_ms": v.mean_simulated_ms(),
            "mean_measured_ms": v.mean_measured_ms(),
            "requests": requests,
            "requests_per_s": rate,
            "kinds": kinds.iter().map(|k| json!({
                "name": k.name,
                "requests": k.requests,
                "mean_difference_ms": k.mean_difference_ms,
                "rms_difference_ms": k.rms_difference_ms,
            })).collect::<Vec<_>>(),
        });
        if let Some((s, e)) = &spread {
            value["jitter"] = json!({
                "jitter_us": s.jitter_us,
                "seeds": s.seeds,
                "rms_mean_ms": s.mean_ms,
                "rms_sd_ms": s.sd_ms,
                "rms_min_ms": s.min_ms,
                "rms_max_ms": s.max_ms,
                "rms_exact_mean_ms": e.mean_ms,
                "rms_exact_sd_ms": e.sd_ms,
                "rms_exact_min_ms": e.min_ms,
                "rms_exact_max_ms": e.max_ms,
            });
        }
        if let Some((_, _, c, failures)) = &oracle {
            value["disksim"] = json!({
                "tolerance_ms": c.tolerance_ms,
                "requests": c.requests,
                "within": c.within,
                "share_within": c.share_within(),
                "rms_ms": c.rms_ms,
                "rms_exact_ms": c.rms_exact_ms,
                "failures": failures,
                "groups": c.groups.iter().map(|g| json!({
                    "name": g.name,
                    "requests": g.requests,
                    "within": g.within,
                    "mean_difference_ms": g.mean_difference_ms,
                })).collect::<Vec<_>>(),
            });
        }
        outln!("{}", serde_json::to_string_pretty(&value).expect("JSON serialises"));
    } else {
        // Lines that can be long (paths, the list of refinements) wrap under their value at 100 columns.
        let field = |label: &str, text: &str| out!("{}", wrap(text, &format!("{label:<11}"), &" ".repeat(11)));
        field("drive", &args.disksim);
        let on = model.refinements();
        field(
            "model",
            &match &model {
                Drive::Simple(_) => {
                    "DiskSim's fixed-access-time disk (disksim_simpledisk), timed as its code times it".to_string()
                }
                Drive::Disk(_) if on.is_empty() => "as DiskSim's code (no refinement)".to_string(),
                Drive::Disk(_) => format!("refinements {} (conform=disksim for none)", on.join(", ")),
            },
        );
        field("trace", &format!("{} ({} requests)", trace_name, records.len()));
        let bucketed_as = match &statdefs_file {
            Some(p) => format!("bucketed as {} says", p.display()),
            None => "bucketed as DiskSim's shipped statdefs".to_string(),
        };
        field("demerit", &format!("{rms:.4} ms (as DiskSim computes it: access-time distributions {bucketed_as})"));
        outln!("           {:.4} ms (the requests' own times, not bucketed)", v.rms_exact_ms);
        outln!("mean       {:.3} ms simulated, {:.3} ms measured", v.mean_simulated_ms(), v.mean_measured_ms());
        outln!("rate       {requests} requests in {wall_s:.3} s: {rate:.0} simulated requests/s");
        if has_measured {
            out!("{}", kinds_table(&kinds));
        }
        if let Some((s, e)) = &spread {
            field(
                "jitter",
                &format!(
                    "think times ±{} us, {} seeds: demerit {:.4} ± {:.4} ms (min {:.4}, max {:.4}); not bucketed \
                     {:.4} ± {:.4} ms (min {:.4}, max {:.4})",
                    s.jitter_us,
                    s.seeds,
                    s.mean_ms,
                    s.sd_ms,
                    s.min_ms,
                    s.max_ms,
                    e.mean_ms,
                    e.sd_ms,
                    e.min_ms,
                    e.max_ms
                ),
            );
        }
        if let Some((_, _, c, _)) = &oracle {
            out!("{}", conformance_table(c));
        }
    }
    Ok(())
}

/// The first pass over a trace: each request's access time, what the model made of it, and the time spent
/// replaying, s.
type FirstPass = (Vec<f64>, Vec<&'static str>, f64);

/// Read a validate trace and replay it on a fresh drive as it is read: a thread reads and parses chunks of it
/// while this one replays them, so that a trace of millions of requests costs little more than its reading.
/// Requests past the drive's end are an error naming their line.
fn read_and_replay(trace: &Path, model: &Drive) -> Result<(Vec<ValidateRecord>, FirstPass), CliError> {
    let blocks = model.blocks();
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<ValidateRecord>>(4);
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || disksim_validate::read_in_chunks(trace, 1 << 16, |c| tx.send(c).is_ok()));
        let mut disk = model.device();
        let mut replayer = Replayer::new(&mut *disk);
        let (mut records, mut simulated, mut services) = (Vec::new(), Vec::new(), Vec::new());
        let mut busy_s = 0.0;
        let mut past_end = None;
        for chunk in rx.iter() {
            if let Some(k) = chunk.iter().position(|r| r.block.saturating_add(r.blocks) > blocks) {
                let r = &chunk[k];
                past_end = Some((records.len() + k + 1, r.block, r.blocks));
                break;
            }
            let started = Instant::now();
            for r in &chunk {
                simulated.push(replayer.next(r, |d| services.push(d.last_service().unwrap_or(""))));
            }
            busy_s += started.elapsed().as_secs_f64();
            records.extend(chunk);
        }
        drop(rx);
        let read = reader.join().expect("the trace reader does not panic");
        read.map_err(bad)?;
        if let Some((line, block, n)) = past_end {
            return Err(bad(format!(
                "{}:{line}: blocks {block}+{n} are past the drive's {blocks} blocks",
                trace.display()
            )));
        }
        Ok((records, (simulated, services, busy_s)))
    })
}

/// The error against the measured times per kind of request: where a drive model is weak.
fn kinds_table(kinds: &[KindError]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "by kind    {:<32} {:>8} {:>13} {:>13}",
        "(what the model made of it)", "requests", "mean diff ms", "rms diff ms"
    );
    for k in kinds {
        let _ = writeln!(
            out,
            "           {:<32} {:>8} {:>+13.4} {:>13.4}",
            k.name, k.requests, k.mean_difference_ms, k.rms_difference_ms
        );
    }
    out
}

/// iosched against DiskSim: overall, then per kind of request.
fn conformance_table(c: &Conformance) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "disksim    {} of {} requests ({:.1} %) within {} ms of DiskSim; demerit between the two {:.4} ms ({:.4} not \
         bucketed)",
        c.within,
        c.requests,
        100.0 * c.share_within(),
        c.tolerance_ms,
        c.rms_ms,
        c.rms_exact_ms
    );
    let _ = writeln!(
        out,
        "           {:<32} {:>8} {:>8} {:>12}",
        "kind (DiskSim's cache)", "requests", "within", "mean diff ms"
    );
    for g in &c.groups {
        let _ = writeln!(
            out,
            "           {:<32} {:>8} {:>7.1}% {:>+12.4}",
            g.name,
            g.requests,
            100.0 * g.within as f64 / g.requests as f64,
            g.mean_difference_ms
        );
    }
    out
}

/// How the demerit spreads over replays with nudged think times.
struct Spread {
    jitter_us: f64,
    seeds: usize,
    mean_ms: f64,
    /// Sample standard deviation.
    sd_ms: f64,
    min_ms: f64,
    max_ms: f64,
}

impl Spread {
    fn of(jitter_us: f64, demerits: &[f64]) -> Spread {
        let n = demerits.len() as f64;
        let mean_ms = demerits.iter().sum::<f64>() / n;
        let var = demerits.iter().map(|d| (d - mean_ms).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        Spread {
            jitter_us,
            seeds: demerits.len(),
            mean_ms,
            sd_ms: var.sqrt(),
            min_ms: demerits.iter().copied().fold(f64::INFINITY, f64::min),
            max_ms: demerits.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}
