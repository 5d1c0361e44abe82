//! `iosched sweep`: a grid of policies x tunable values x devices x job files, every point simulated (in
//! parallel), printed as JSON lines (one per point) or as a summary table.

use crate::cli::SweepArgs;
use crate::error::{bad, CliError};
use iosched_core::registry;
use iosched_core::results::RunResult;
use iosched_sim::{parallel, simulate, SimConfig, Workload};
use iosched_workload::{fio, job::JobSpec};
use serde_json::json;

/// One point of the grid.
struct Point {
    policy: String,
    settings: Vec<(String, String)>,
    device: String,
    jobfile: String,
    jobs: Vec<JobSpec>,
}

/// `KEY=V1,V2,...` into the key and its values.
fn parse_grid(text: &str) -> Result<(String, Vec<String>), CliError> {
    let (key, values) = text
        .split_once('=')
        .filter(|(k, v)| !k.trim().is_empty() && !v.trim().is_empty())
        .ok_or_else(|| bad(format!("--grid expects KEY=V1,V2,..., for example batch=1,16,64; found '{text}'")))?;
    Ok((key.trim().to_string(), values.split(',').map(|v| v.trim().to_string()).collect()))
}

/// Every combination of the grid's values for the keys `policy` has; a policy with none of them runs once.
fn settings_for(policy: &str, grid: &[(String, Vec<String>)]) -> Vec<Vec<(String, String)>> {
    let probe = registry::create(policy).expect("the policy names were checked");
    let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for (key, values) in grid {
        if probe.tunable(key).is_err() {
            continue;
        }
        combos = combos
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut next = c.clone();
                    next.push((key.clone(), v.clone()));
                    next
                })
            })
            .collect();
    }
    combos
}

/// A grid key that no chosen policy has would be swept over nothing, silently: an error naming the policies'
/// keys (and the nearest one).
fn check_grid_keys(policies: &[String], grid: &[(String, Vec<String>)]) -> Result<(), CliError> {
    let probes: Vec<_> = policies.iter().map(|p| registry::create(p).expect("the policy names were checked")).collect();
    for (key, _) in grid {
        if probes.iter().any(|p| p.tunable(key).is_ok()) {
            continue;
        }
        let keys: Vec<&str> = probes.iter().flat_map(|p| p.tunables().iter().map(|t| t.name)).collect();
        let hint = iosched_core::suggest::did_you_mean(key, keys.iter().copied());
        let listed: Vec<String> = probes
            .iter()
            .map(|p| {
                let names: Vec<&str> = p.tunables().iter().map(|t| t.name).collect();
                format!("{}: {}", p.name(), if names.is_empty() { "none".to_string() } else { names.join(", ") })
            })
            .collect();
        return Err(bad(format!(
            "--grid {key}: none of the policies swept has this tunable{hint} ({})",
            listed.join("; ")
        )));
    }
    Ok(())
}

fn ms(ns: u64) -> f64 {
    (ns as f64 / 1e4).round() / 100.0
}

fn mb(x: f64) -> f64 {
    (x / 1e4).round() / 100.0
}

fn run_point(point: &Point, seed: u64, runtime_ns: Option<u64>) -> Result<RunResult, String> {
    let context = |e: String| format!("{} on {} with {}: {e}", point.jobfile, point.device, point.policy);
    let pairs = point.settings.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    let policy = registry::create_with(&point.policy, pairs).map_err(|e| context(e.to_string()))?;
    let (device, _) = iosched_device::load_spec(&point.device).map_err(|e| context(e.to_string()))?;
    let mut workload = Workload::from_jobs(&point.jobs);
    if let Some(ns) = runtime_ns {
        workload.override_runtime(ns);
    }
    let config = SimConfig { seed, record_log: false };
    simulate(&workload, policy, device, Vec::new(), &config).map(|o| o.result).map_err(|e| context(e.to_string()))
}

pub fn run(args: &SweepArgs) -> Result<(), CliError> {
    let policies: Vec<String> = args.policies.split(',').map(|p| p.trim().to_string()).collect();
    for p in &policies {
        registry::create(p).map_err(bad)?;
    }
    let grid = args.grid.iter().map(|g| parse_grid(g)).collect::<Result<Vec<_>, _>>()?;
    check_grid_keys(&policies, &grid)?;
    let devices = if args.devices.is_empty() {
        vec![iosched_device::spec::DEFAULT_SPEC.to_string()]
    } else {
        args.devices.clone()
    };
    for d in &devices {
        iosched_device::parse_spec(d).map_err(bad)?;
    }
    let runtime_ns = args.runtime.as_deref().map(super::parse_runtime_ns).transpose()?;
    let mut jobfiles = Vec::new();
    for path in &args.jobfiles {
        jobfiles.push((path.display().to_string(), fio::parse_file(path).map_err(bad)?));
    }
    let keys: Vec<String> = grid.iter().map(|(key, _)| key.clone()).collect();
    for (jobfile, jobs) in &jobfiles {
        let flows = Workload::from_jobs(jobs).flow_names();
        for policy in &policies {
            super::check_flow_settings("--grid", policy, &keys, &flows).map_err(|e| bad(format!("{jobfile}: {e}")))?;
        }
    }
    let mut points = Vec::new();
    for (jobfile, jobs) in &jobfiles {
        for device in &devices {
            for policy in &policies {
                for settings in settings_for(policy, &grid) {
                    points.push(Point {
                        policy: policy.clone(),
                        settings,
                        device: device.clone(),
                        jobfile: jobfile.clone(),
                        jobs: jobs.clone(),
                    });
                }
            }
        }
    }
    // Settings the grid gives must be valid for the policies they apply to: check before running anything.
    for p in &points {
        registry::create_with(&p.policy, p.settings.iter().map(|(k, v)| (k.as_str(), v.as_str()))).map_err(bad)?;
    }
    let threads = super::threads(args.jobs);
    let bar = indicatif::ProgressBar::new(points.len() as u64);
    let results = parallel::map_in_order(&points, threads, &|p| run_point(p, args.seed, runtime_ns), &|_| bar.inc(1))
        .map_err(CliError::Failed)?;
    bar.finish_and_clear();
    // Devices and job files are named in the table by a short label (D1, J1, ...) and spelt out under it, so that
    // long specs and paths do not push the table past 100 columns.
    let device_label = |d: &str| format!("D{}", devices.iter().position(|x| x == d).map_or(0, |i| i + 1));
    let job_label = |j: &str| format!("J{}", jobfiles.iter().position(|(x, _)| x == j).map_or(0, |i| i + 1));
    let mut rows = vec![["policy", "settings", "device", "jobs", "rd MB/s", "rd p99 ms", "wr MB/s", "wr p99 ms"]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()];
    for (p, r) in points.iter().zip(&results) {
        let sum = |dir: usize| r.jobs.iter().map(|j| j.bw_bytes_per_s(dir)).sum::<f64>();
        let p99 = |dir: usize| r.jobs.iter().filter_map(|j| j.directions[dir].total.at(99.0)).max().unwrap_or(0);
        let settings: Vec<String> = p.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if args.json {
            let jobs: Vec<_> = r
                .jobs
                .iter()
                .map(|j| {
                    json!({
                        "name": j.name,
                        "read_mb_per_s": mb(j.bw_bytes_per_s(0)),
                        "read_iops": (j.iops(0) * 10.0).round() / 10.0,
                        "read_mean_ms": ms(j.directions[0].total.mean_ns as u64),
                        "read_p99_ms": ms(j.directions[0].total.at(99.0).unwrap_or(0)),
                        "write_mb_per_s": mb(j.bw_bytes_per_s(1)),
                        "write_p99_ms": ms(j.directions[1].total.at(99.0).unwrap_or(0)),
                    })
                })
                .collect();
            let line = json!({
                "policy": p.policy,
                "settings": settings,
                "device": p.device,
                "jobfile": p.jobfile,
                "seed": args.seed,
                "elapsed_s": r.elapsed_ns as f64 / 1e9,
                "jobs": jobs,
            });
            println!("{line}");
        } else {
            rows.push(vec![
                p.policy.clone(),
                if settings.is_empty() { "-".into() } else { settings.join(" ") },
                device_label(&p.device),
                job_label(&p.jobfile),
                format!("{:.1}", sum(0) / 1e6),
                format!("{:.2}", p99(0) as f64 / 1e6),
                format!("{:.1}", sum(1) / 1e6),
                format!("{:.2}", p99(1) as f64 / 1e6),
            ]);
        }
    }
    if !args.json {
        print!("{}", iosched_report::table::columns(&rows));
        println!();
        for (i, d) in devices.iter().enumerate() {
            println!("D{}  {d}", i + 1);
        }
        for (i, (j, _)) in jobfiles.iter().enumerate() {
            println!("J{}  {j}", i + 1);
        }
        println!("{} points; read/write MB/s summed over jobs, p99 the worst job's.", points.len());
    }
    Ok(())
}
