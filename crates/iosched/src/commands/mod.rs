//! One module per subcommand.

mod control;
mod devices;
mod experiment;
mod fio_logs;
mod fio_options;
mod keys;
mod mount;
mod mqsim_workload;
mod policies;
mod run;
mod signals;
mod sim;
pub mod sweep;
mod validate;

use crate::cli::{Cli, Command};
use crate::error::{bad, CliError};
use iosched_core::policy::Policy;
use iosched_core::registry;

pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Policies { json } => policies::run(json),
        Command::Devices { json } => devices::run(json),
        Command::Sim(args) => sim::run(&args),
        Command::FioOptions { json } => fio_options::run(json),
        Command::Run(args) => run::run(&args),
        Command::Insert(args) => mount::insert(&args),
        Command::Create(args) => mount::create(&args),
        Command::Destroy(args) => mount::destroy(&args),
        Command::Configure(args) => control::configure(&args),
        Command::Stats(args) => control::stats(&args),
        Command::Top(args) => control::top(&args),
        Command::Validate(args) => validate::run(&args),
        Command::Experiment(args) => experiment::run(&args),
        Command::Sweep(args) => sweep::run(&args),
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "iosched", &mut std::io::stdout());
            Ok(())
        }
        Command::Man { subcommand } => {
            let command = <Cli as clap::CommandFactory>::command();
            let page = match subcommand {
                None => command,
                Some(name) => {
                    let names: Vec<&str> = command.get_subcommands().map(|s| s.get_name()).collect();
                    let sub = command.find_subcommand(&name).ok_or_else(|| {
                        let hint = iosched_core::suggest::did_you_mean(&name, names.iter().copied());
                        bad(format!("no subcommand '{name}'{hint} (there are: {})", names.join(", ")))
                    })?;
                    sub.clone().name(format!("iosched-{name}")).bin_name(format!("iosched {name}"))
                }
            };
            clap_mangen::Man::new(page)
                .render(&mut std::io::stdout())
                .map_err(|e| CliError::Failed(format!("cannot write the man page: {e}")))
        }
        Command::Demo { json, html } => {
            experiment::run_loaded(&experiment::load("geom-sched")?, None, None, json, html.as_deref())
        }
    }
}

/// A policy by name with `key=value` tunables applied.
pub fn policy_with(name: &str, settings: &[String]) -> Result<Box<dyn Policy>, CliError> {
    registry::create_with(name, parse_settings(settings)?).map_err(bad)
}

/// Per-flow settings (`weight.7=300`: a tunable named `PREFIX.FLOW`) must name a flow the workload has: a
/// setting for a flow that does not exist would be accepted by the policy and change nothing. `keys` are the
/// settings' names.
pub fn check_flow_settings(option: &str, policy: &str, keys: &[String], flows: &[String]) -> Result<(), CliError> {
    let Ok(info) = iosched_core::registry::info(policy) else {
        return Ok(());
    };
    let per_flow: Vec<&str> = (info.create)().tunables().iter().filter_map(|t| t.name.strip_suffix(".FLOW")).collect();
    for key in keys {
        let Some((prefix, flow)) = key.rsplit_once('.') else { continue };
        let Ok(flow) = flow.parse::<usize>() else { continue };
        if per_flow.contains(&prefix) && flow >= flows.len() {
            let listed: Vec<String> = flows.iter().enumerate().map(|(i, name)| format!("{i} ({name})")).collect();
            return Err(bad(format!(
                "{option} {key}: there is no flow {flow}; this workload's flows are {}",
                if listed.is_empty() { "none".to_string() } else { listed.join(", ") }
            )));
        }
    }
    Ok(())
}

/// The `filename=` every job gives, if they all give the same one: the file fio would open for them.
pub fn shared_filename<'a>(names: impl IntoIterator<Item = Option<&'a str>>) -> Option<&'a str> {
    let mut names = names.into_iter();
    let first = names.next().flatten()?;
    names.all(|n| n == Some(first)).then_some(first)
}

/// The device model of `--emulate SPEC`, if given; its warnings (DiskSim keys not modelled) are printed.
pub fn emulated_model(spec: Option<&str>) -> Result<Option<Box<dyn iosched_device::Device>>, CliError> {
    let Some(spec) = spec else {
        return Ok(None);
    };
    let (model, warnings) = iosched_device::load_spec(spec).map_err(bad)?;
    for w in warnings {
        eprintln!("iosched: warning: {w}");
    }
    Ok(Some(model))
}

/// `--set KEY=VALUE` arguments as (key, value) pairs.
pub fn parse_settings(settings: &[String]) -> Result<Vec<(&str, &str)>, CliError> {
    settings
        .iter()
        .map(|s| {
            let (key, value) = s.split_once('=').ok_or_else(|| bad(format!("--set expects KEY=VALUE, found '{s}'")))?;
            Ok((key.trim(), value.trim()))
        })
        .collect()
}

/// As fio, a run with a job that failed (its "error" in the report: an I/O error, a failed check, rate_min,
/// max_latency) exits 1 once the report is out, naming the jobs and why.
pub fn failed_jobs(result: &iosched_core::results::RunResult) -> Result<(), CliError> {
    let failed: Vec<String> = result
        .jobs
        .iter()
        .filter(|j| j.fio_error() != 0)
        .map(|j| {
            let why = if j.error_message.is_empty() { "a request failed".to_string() } else { j.error_message.clone() };
            format!("job '{}' failed with error {}: {why}", j.name, j.fio_error())
        })
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::Failed(failed.join("; ")))
    }
}

/// A failed run: a workload that does not fit the device is bad input, anything else a failure.
pub fn sim_error(e: iosched_sim::SimError) -> CliError {
    match e {
        iosched_sim::SimError::Workload(w) => bad(w),
        other => CliError::Failed(other.to_string()),
    }
}

/// Several fio job files as one: their jobs in order (only those named in `sections`, if any: fio's --section).
/// Two jobs of the same name would make the report ambiguous.
pub fn parse_job_files(
    paths: &[std::path::PathBuf],
    sections: &[String],
) -> Result<Vec<iosched_workload::job::JobSpec>, CliError> {
    let mut jobs: Vec<iosched_workload::job::JobSpec> = Vec::new();
    for path in paths {
        // The reader refuses a file without jobs.
        let more = iosched_workload::fio::parse_file_sections(path, sections).map_err(bad)?;
        for job in &more {
            if jobs.iter().any(|j| j.name == job.name) {
                return Err(bad(format!(
                    "{}: job '{}' is also defined in an earlier job file; give the jobs different names",
                    path.display(),
                    job.name
                )));
            }
        }
        jobs.extend(more);
    }
    Ok(jobs)
}

/// `--runtime`: a time above 0 with fio's units (a bare number is seconds).
pub fn parse_runtime_ns(text: &str) -> Result<u64, CliError> {
    use iosched_workload::fio::values::{parse_time_ns, TimeUnit};
    parse_time_ns(text, TimeUnit::Seconds)
        .ok()
        .filter(|ns| *ns > 0)
        .ok_or_else(|| bad(format!("--runtime expects a time above 0 such as 10 or 500ms, found '{text}'")))
}

/// `--jobs N`, or one simulation per core.
pub fn threads(jobs: Option<u64>) -> usize {
    jobs.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |n| n as usize)
}
