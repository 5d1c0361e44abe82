//! `iosched sweep`: a grid of policies x tunable values x devices x job files x seeds, every point simulated (in
//! parallel), printed as a summary table or JSON lines and written as a Parquet table (sweep_table); `--list`,
//! `--shard K/N --out DIR` and `iosched sweep merge` split a sweep over the tasks of a cluster's job array.

use crate::cli::{SweepArgs, SweepCommand, SweepMergeArgs};
use crate::error::{bad, CliError};
use crate::sweep_table::{self, Point, Row, SummaryRow};
use iosched_core::registry;
use iosched_core::results::RunResult;
use iosched_sim::{parallel, simulate, SimConfig, Workload};
use iosched_workload::{fio, job::JobSpec};
use serde_json::json;
use std::path::{Path, PathBuf};

/// A sweep's points and what running them needs.
pub struct Plan {
    pub points: Vec<Point>,
    pub grid_keys: Vec<String>,
    jobs: Vec<(String, Vec<JobSpec>)>,
    runtime_ns: Option<u64>,
}

/// `KEY=V1,V2,...` into the key and its values.
fn parse_grid(text: &str) -> Result<(String, Vec<String>), CliError> {
    let (key, values) = text
        .split_once('=')
        .filter(|(k, v)| !k.trim().is_empty() && !v.trim().is_empty())
        .ok_or_else(|| bad(format!("--grid expects KEY=V1,V2,..., for example batch=1,16,64; found '{text}'")))?;
    Ok((key.trim().to_string(), values.split(',').map(|v| v.trim().to_string()).collect()))
}

/// `--seeds`: numbers and ranges A-B, comma-separated, each seed once, in the order given.
fn parse_seeds(text: &str) -> Result<Vec<u64>, CliError> {
    let wanted =
        |part: &str| bad(format!("--seeds expects numbers and ranges such as 1-5 or 1,2,10-12; found '{part}'"));
    let mut seeds = Vec::new();
    for part in text.split(',').map(str::trim) {
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<u64>(), b.trim().parse::<u64>()),
            None => (part.parse::<u64>(), part.parse::<u64>()),
        };
        let (Ok(first), Ok(last)) = (first, last) else { return Err(wanted(part)) };
        if last < first || last - first >= 1_000_000 {
            return Err(wanted(part));
        }
        for seed in first..=last {
            if !seeds.contains(&seed) {
                seeds.push(seed);
            }
        }
    }
    Ok(seeds)
}

/// `--shard K/N` as (K, N), 1 <= K <= N.
fn parse_shard(text: &str) -> Result<(u64, u64), CliError> {
    let parsed = text.split_once('/').and_then(|(k, n)| Some((k.trim().parse::<u64>().ok()?, n.trim().parse().ok()?)));
    match parsed {
        Some((k, n)) if k >= 1 && k <= n => Ok((k, n)),
        _ => Err(bad(format!("--shard expects K/N with 1 <= K <= N, for example 3/8; found '{text}'"))),
    }
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

/// The sweep's points, in a fixed order (job file, device, policy, settings, seed), every input checked first.
pub fn plan(args: &SweepArgs) -> Result<Plan, CliError> {
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
    let seeds = match &args.seeds {
        Some(text) => parse_seeds(text)?,
        None => vec![args.seed],
    };
    let runtime_ns = args.runtime.as_deref().map(super::parse_runtime_ns).transpose()?;
    let mut jobfiles = Vec::new();
    for path in &args.jobfiles {
        jobfiles.push((path.display().to_string(), fio::parse_file_sections(path, &args.sections).map_err(bad)?));
    }
    let keys: Vec<String> = grid.iter().map(|(key, _)| key.clone()).collect();
    for (jobfile, jobs) in &jobfiles {
        let flows = Workload::from_jobs(jobs).flow_names();
        for policy in &policies {
            super::check_flow_settings("--grid", policy, &keys, &flows).map_err(|e| bad(format!("{jobfile}: {e}")))?;
        }
    }
    let mut points = Vec::new();
    for (jobfile, _) in &jobfiles {
        for device in &devices {
            for policy in &policies {
                for settings in settings_for(policy, &grid) {
                    // Settings the grid gives must be valid for the policies they apply to: checked before running.
                    registry::create_with(policy, settings.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                        .map_err(bad)?;
                    for seed in &seeds {
                        points.push(Point {
                            index: points.len() as u64,
                            jobfile: jobfile.clone(),
                            device: device.clone(),
                            policy: policy.clone(),
                            settings: settings.clone(),
                            seed: *seed,
                        });
                    }
                }
            }
        }
    }
    Ok(Plan { points, grid_keys: keys, jobs: jobfiles, runtime_ns })
}

impl Plan {
    /// Simulate one point.
    pub fn run_point(&self, point: &Point) -> Result<RunResult, String> {
        let context = |e: String| format!("{} on {} with {}: {e}", point.jobfile, point.device, point.policy);
        let pairs = point.settings.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let policy = registry::create_with(&point.policy, pairs).map_err(|e| context(e.to_string()))?;
        let (device, _) = iosched_device::load_spec(&point.device).map_err(|e| context(e.to_string()))?;
        let jobs = &self.jobs.iter().find(|(name, _)| *name == point.jobfile).expect("a point's job file is planned").1;
        let mut workload = Workload::from_jobs(jobs);
        if let Some(ns) = self.runtime_ns {
            workload.override_runtime(ns);
        }
        let config = SimConfig { seed: point.seed, record_log: false };
        simulate(&workload, policy, device, Vec::new(), &config).map(|o| o.result).map_err(|e| context(e.to_string()))
    }

    /// The table rows of the points at `indices`, run on `threads` threads.
    pub fn rows_of(&self, indices: &[u64], threads: usize) -> Result<Vec<Row>, CliError> {
        let points: Vec<&Point> = indices
            .iter()
            .map(|i| {
                self.points.get(*i as usize).ok_or_else(|| {
                    bad(format!(
                        "there is no point {i}: this sweep has {} (0 to {})",
                        self.points.len(),
                        self.points.len().saturating_sub(1)
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        let results =
            parallel::map_in_order(&points, threads, &|p| self.run_point(p), &|_| {}).map_err(CliError::Failed)?;
        Ok(points.iter().zip(&results).flat_map(|(p, r)| sweep_table::rows(p, &self.grid_keys, r)).collect())
    }
}

fn ms(ns: u64) -> f64 {
    (ns as f64 / 1e4).round() / 100.0
}

fn mb(x: f64) -> f64 {
    (x / 1e4).round() / 100.0
}

/// One point's JSON line (`--json`).
fn json_line(p: &Point, r: &RunResult) -> serde_json::Value {
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
    let settings: Vec<String> = p.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
    json!({
        "point": p.index,
        "policy": p.policy,
        "settings": settings,
        "device": p.device,
        "jobfile": p.jobfile,
        "seed": p.seed,
        "elapsed_s": r.elapsed_ns as f64 / 1e9,
        "jobs": jobs,
    })
}

pub fn run(args: &SweepArgs) -> Result<(), CliError> {
    if let Some(SweepCommand::Merge(merge_args)) = &args.command {
        return merge(merge_args);
    }
    let plan = plan(args)?;
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    let selected: Vec<&Point> =
        plan.points.iter().filter(|p| shard.is_none_or(|(k, n)| p.index % n == k - 1)).collect();
    if args.list {
        list(&selected, args.json);
        return Ok(());
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).map_err(|e| bad(format!("--out: cannot create {}: {e}", dir.display())))?;
    }
    let threads = super::threads(args.jobs);
    let bar = indicatif::ProgressBar::new(selected.len() as u64);
    let results = parallel::map_in_order(&selected, threads, &|p| plan.run_point(p), &|_| bar.inc(1))
        .map_err(CliError::Failed)?;
    bar.finish_and_clear();
    let rows: Vec<Row> =
        selected.iter().zip(&results).flat_map(|(p, r)| sweep_table::rows(p, &plan.grid_keys, r)).collect();
    if let Some(dir) = &args.out {
        let (k, n) = shard.unwrap_or((1, 1));
        let path = dir.join(format!("shard-{k}-of-{n}.parquet"));
        sweep_table::write_parquet(&path, &plan.grid_keys, &rows).map_err(CliError::Failed)?;
        eprintln!("iosched: wrote {} ({} points, {} rows)", path.display(), selected.len(), rows.len());
    }
    if let Some(path) = &args.parquet {
        sweep_table::write_parquet(path, &plan.grid_keys, &rows).map_err(CliError::Failed)?;
    }
    if args.json {
        for (p, r) in selected.iter().zip(&results) {
            outln!("{}", json_line(p, r));
        }
    } else {
        print_summary(&rows)?;
    }
    Ok(())
}

/// `--list`: the points to run, one per line.
fn list(points: &[&Point], as_json: bool) {
    if as_json {
        for p in points {
            let settings: Vec<String> = p.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
            outln!(
                "{}",
                json!({"point": p.index, "jobfile": p.jobfile, "device": p.device, "policy": p.policy,
                       "settings": settings, "seed": p.seed})
            );
        }
        return;
    }
    let mut rows = vec![["point", "jobfile", "device", "policy", "settings", "seed"].map(String::from).to_vec()];
    for p in points {
        let settings = p.settings_text();
        rows.push(vec![
            p.index.to_string(),
            p.jobfile.clone(),
            p.device.clone(),
            p.policy.clone(),
            if settings.is_empty() { "-".into() } else { settings },
            p.seed.to_string(),
        ]);
    }
    out!("{}", iosched_report::table::columns(&rows));
}

/// The summary table: a line per job file, device, policy and settings, over the seeds.
fn print_summary(rows: &[Row]) -> Result<(), CliError> {
    let summary = sweep_table::summarise(rows).map_err(CliError::Failed)?;
    let mut devices: Vec<&str> = Vec::new();
    let mut jobfiles: Vec<&str> = Vec::new();
    for s in &summary {
        if !devices.contains(&s.device.as_str()) {
            devices.push(&s.device);
        }
        if !jobfiles.contains(&s.jobfile.as_str()) {
            jobfiles.push(&s.jobfile);
        }
    }
    // Devices and job files are named in the table by a short label (D1, J1, ...) and spelt out under it, so that
    // long specs and paths do not push the table past 100 columns.
    let label = |list: &[&str], x: &str, prefix: &str| {
        format!("{prefix}{}", list.iter().position(|y| *y == x).map_or(0, |i| i + 1))
    };
    let mut table =
        vec![["policy", "settings", "device", "jobs", "seeds", "rd MB/s", "rd p99 ms", "wr MB/s", "wr p99 ms"]
            .map(String::from)
            .to_vec()];
    for s in &summary {
        table.push(vec![
            s.policy.clone(),
            if s.settings.is_empty() { "-".into() } else { s.settings.clone() },
            label(&devices, &s.device, "D"),
            label(&jobfiles, &s.jobfile, "J"),
            s.seeds.to_string(),
            format!("{:.1}", s.mb_per_s[0]),
            format!("{:.2}", s.p99_ms[0]),
            format!("{:.1}", s.mb_per_s[1]),
            format!("{:.2}", s.p99_ms[1]),
        ]);
    }
    out!("{}", iosched_report::table::columns(&table));
    outln!();
    for (i, d) in devices.iter().enumerate() {
        outln!("D{}  {d}", i + 1);
    }
    for (i, j) in jobfiles.iter().enumerate() {
        outln!("J{}  {j}", i + 1);
    }
    let mut points: Vec<u64> = rows.iter().map(|r| r.point).collect();
    points.dedup();
    outln!(
        "{} points; MB/s summed over jobs and averaged over seeds;\np99 of every request of the direction (all jobs \
         and seeds, their histograms merged).",
        points.len()
    );
    Ok(())
}

fn summary_json(s: &SummaryRow) -> serde_json::Value {
    json!({
        "jobfile": s.jobfile, "device": s.device, "policy": s.policy, "settings": s.settings, "seeds": s.seeds,
        "read_mb_per_s": s.mb_per_s[0], "read_p99_ms": s.p99_ms[0],
        "write_mb_per_s": s.mb_per_s[1], "write_p99_ms": s.p99_ms[1],
    })
}

/// The shard files an input names: a folder's shard-K-of-N.parquet files, or a file itself.
fn shard_files(input: &Path) -> Result<Vec<PathBuf>, CliError> {
    if input.is_file() {
        return Ok(vec![input.to_path_buf()]);
    }
    let entries = std::fs::read_dir(input).map_err(|e| bad(format!("{}: cannot read: {e}", input.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| shard_of(n).is_some()))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(bad(format!(
            "{}: no shard-K-of-N.parquet files (written by --shard K/N --out DIR)",
            input.display()
        )));
    }
    Ok(files)
}

/// (K, N) of a file named shard-K-of-N.parquet.
fn shard_of(name: &str) -> Option<(u64, u64)> {
    let middle = name.strip_prefix("shard-")?.strip_suffix(".parquet")?;
    let (k, n) = middle.split_once("-of-")?;
    Some((k.parse().ok()?, n.parse().ok()?))
}

/// `iosched sweep merge`: the shards' rows in point order, every shard of the sweep present once.
fn merge(args: &SweepMergeArgs) -> Result<(), CliError> {
    let mut files = Vec::new();
    for input in &args.inputs {
        files.extend(shard_files(input)?);
    }
    let mut shards: Vec<(u64, u64)> = Vec::new();
    let mut grid_keys: Option<Vec<String>> = None;
    let mut rows: Vec<Row> = Vec::new();
    for file in &files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if let Some(shard) = shard_of(name) {
            if shards.contains(&shard) {
                return Err(bad(format!("{}: shard {}/{} is given twice", file.display(), shard.0, shard.1)));
            }
            shards.push(shard);
        }
        let (keys, more) = sweep_table::read_parquet(file).map_err(bad)?;
        match &grid_keys {
            Some(k) if *k != keys => {
                return Err(bad(format!(
                    "{}: its grid keys differ from the other shards'; not the same sweep",
                    file.display()
                )))
            }
            _ => grid_keys = Some(keys),
        }
        rows.extend(more);
    }
    if let Some(&(_, n)) = shards.first() {
        if let Some((k, other)) = shards.iter().find(|(_, m)| *m != n) {
            return Err(bad(format!("shard {k}/{other} and shards of {n} come from different splits")));
        }
        let missing: Vec<String> = (1..=n).filter(|k| !shards.contains(&(*k, n))).map(|k| k.to_string()).collect();
        if !missing.is_empty() {
            return Err(bad(format!(
                "shards {} of {n} are missing; their points are not in the table",
                missing.join(", ")
            )));
        }
    }
    // Stable, so that each point's rows keep their order (jobs, then directions).
    rows.sort_by_key(|r| r.point);
    let grid_keys = grid_keys.unwrap_or_default();
    if let Some(path) = &args.parquet {
        sweep_table::write_parquet(path, &grid_keys, &rows).map_err(CliError::Failed)?;
    }
    if args.json {
        for s in sweep_table::summarise(&rows).map_err(CliError::Failed)? {
            outln!("{}", summary_json(&s));
        }
        Ok(())
    } else {
        print_summary(&rows)
    }
}

/// For the Python package: the sweep of `argv` (iosched sweep's arguments, after "sweep"): its points as JSON
/// (`indices` empty), or the table rows of the points at `indices` as Arrow IPC, run on `threads` threads.
pub fn embedded(argv: &[String], indices: &[u64], threads: usize) -> Result<Vec<u8>, CliError> {
    use clap::Parser;
    let cli =
        crate::cli::Cli::try_parse_from(["iosched", "sweep"].into_iter().map(String::from).chain(argv.iter().cloned()))
            .map_err(crate::error::usage_error)?;
    let crate::cli::Command::Sweep(args) = cli.command else { unreachable!("parsed as a sweep") };
    let plan = plan(&args)?;
    if indices.is_empty() {
        let points: Vec<_> = plan
            .points
            .iter()
            .map(|p| {
                json!({"point": p.index, "jobfile": p.jobfile, "device": p.device, "policy": p.policy,
                       "settings": p.settings.iter().map(|(k, v)| vec![k.clone(), v.clone()]).collect::<Vec<_>>(),
                       "seed": p.seed})
            })
            .collect();
        let value = json!({"grid_keys": plan.grid_keys, "points": points});
        return Ok(value.to_string().into_bytes());
    }
    let rows = plan.rows_of(indices, threads)?;
    Ok(sweep_table::to_ipc(&plan.grid_keys, &rows))
}
