//! `iosched validate`: a DiskSim drive against its measured trace, by DiskSim's demerit figure.

use crate::cli::ValidateArgs;
use crate::error::{bad, CliError};
use iosched_device::disksim::build;
use iosched_device::hdd::disk::Hdd;
use iosched_sim::validate::{replay, Validation};
use iosched_workload::trace::disksim_validate;
use serde_json::json;
use std::fmt::Write as _;
use std::time::Instant;

pub fn run(args: &ValidateArgs) -> Result<(), CliError> {
    let built = build::load(&args.disksim).map_err(bad)?;
    let records = disksim_validate::read(&args.trace).map_err(bad)?;
    let blocks = built.params.layout.blocks();
    if let Some((i, r)) = records.iter().enumerate().find(|(_, r)| r.block + r.blocks > blocks) {
        return Err(bad(format!(
            "{}:{}: blocks {}+{} are past the drive's {blocks} blocks",
            args.trace.display(),
            i + 1,
            r.block,
            r.blocks
        )));
    }
    // Warnings once the input is accepted, so that an error stays one line.
    for w in &built.warnings {
        eprintln!("iosched: warning: {w}");
    }
    let started = Instant::now();
    let mut first = None;
    for _ in 0..args.repeat {
        // Each pass on a fresh drive: the trace's times start from zero again.
        let mut disk = Hdd::new(built.params.clone());
        let simulated = replay(&mut disk, &records);
        first.get_or_insert(simulated);
    }
    let wall_s = started.elapsed().as_secs_f64();
    let v = Validation::new(first.expect("at least one replay"), &records);
    let requests = records.len() as u64 * args.repeat as u64;
    let rate = requests as f64 / wall_s.max(1e-9);
    if let Some(out) = &args.per_request {
        let mut csv = String::from("index,op,block,blocks,simulated_ms,measured_ms\n");
        for (i, r) in records.iter().enumerate() {
            let _ = writeln!(
                csv,
                "{},{},{},{},{:.4},{:.4}",
                i + 1,
                r.op.name(),
                r.block,
                r.blocks,
                v.simulated_ms[i],
                v.measured_ms[i]
            );
        }
        std::fs::write(out, csv).map_err(|e| CliError::Failed(format!("cannot write {}: {e}", out.display())))?;
    }
    let rms = v.rms_ms;
    if args.json {
        let value = json!({
            "drive": args.disksim.display().to_string(),
            "trace": args.trace.display().to_string(),
            "rms_ms": rms,
            "mean_sim_ms": v.mean_simulated_ms(),
            "mean_measured_ms": v.mean_measured_ms(),
            "requests": requests,
            "requests_per_s": rate,
        });
        println!("{}", serde_json::to_string_pretty(&value).expect("JSON serialises"));
    } else {
        println!("drive      {}", args.disksim.display());
        println!("trace      {} ({} requests)", args.trace.display(), records.len());
        println!("demerit    {rms:.4} ms (rms horizontal distance between the access-time distributions)");
        println!("mean       {:.3} ms simulated, {:.3} ms measured", v.mean_simulated_ms(), v.mean_measured_ms());
        println!("rate       {requests} requests in {wall_s:.3} s: {rate:.0} simulated requests/s");
    }
    Ok(())
}
