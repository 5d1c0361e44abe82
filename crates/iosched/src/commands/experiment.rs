//! `iosched experiment NAME|FOLDER`: one of the seed experiments (built in) or a folder of the same shape, run
//! under every policy of its description in parallel, reported as the seed-shaped table, JSON or an HTML page.
//! `iosched demo` is the geom-sched experiment.

use crate::cli::ExperimentArgs;
use crate::error::{bad, CliError};
use indicatif::{ProgressBar, ProgressStyle};
use iosched_report::{experiment as report, html};
use iosched_sim::experiment::{self, builtin, Experiment, Files};
use std::path::Path;
use std::time::Instant;

/// Find an experiment: a folder if the argument names one (or contains a '/'), else a built-in name.
pub fn load(name: &str) -> Result<Experiment, CliError> {
    let path = Path::new(name);
    if path.is_dir() || name.contains('/') {
        if !path.join("experiment.toml").is_file() {
            return Err(bad(format!("{name}: expected a folder with an experiment.toml")));
        }
        let label = path.file_name().map_or(name.to_string(), |n| n.to_string_lossy().into_owned());
        return experiment::load(&label, Files::Folder(path)).map_err(bad);
    }
    let built_in = builtin::find(name).ok_or_else(|| {
        bad(format!(
            "no experiment named '{name}' (built in: {}; or give a folder with an experiment.toml)",
            builtin::names().join(", ")
        ))
    })?;
    experiment::load(name, Files::BuiltIn(built_in.files)).map_err(bad)
}

pub fn run(args: &ExperimentArgs) -> Result<(), CliError> {
    if args.list {
        for b in builtin::BUILT_IN {
            let e = experiment::load(b.name, Files::BuiltIn(b.files)).map_err(bad)?;
            outln!("{:<14} {}; from {}", b.name, e.description.title, e.description.source);
        }
        return Ok(());
    }
    let Some(name) = &args.name else {
        return Err(bad(format!(
            "give an experiment: one of {}, or a folder with an experiment.toml",
            builtin::names().join(", ")
        )));
    };
    let exp = load(name)?;
    if let Some(dir) = &args.export {
        return export(name, &exp, dir);
    }
    run_loaded(&exp, args.policies.as_deref(), args.jobs, args.json, args.html.as_deref())
}

/// Run and report a loaded experiment.
pub fn run_loaded(
    exp: &Experiment,
    only: Option<&str>,
    jobs: Option<u64>,
    as_json: bool,
    html_path: Option<&Path>,
) -> Result<(), CliError> {
    let labels: Vec<&str> = exp.description.policies.iter().map(|p| p.label.as_str()).collect();
    let selected: Vec<usize> = match only {
        None => (0..labels.len()).collect(),
        Some(list) => list
            .split(',')
            .map(|l| {
                labels.iter().position(|p| *p == l.trim()).ok_or_else(|| {
                    bad(format!("--policies: '{l}' is not a policy of {} (it has: {})", exp.name, labels.join(", ")))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    // The report's file is made before anything runs, so that a bad path costs nothing.
    let html_file = html_path
        .map(|path| std::fs::File::create(path).map_err(|e| bad(format!("cannot write {}: {e}", path.display()))))
        .transpose()?;
    let pairs = experiment::plan(exp, &selected);
    let threads = super::threads(jobs);
    let bar = ProgressBar::new(pairs.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} runs, {elapsed} {msg}")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    bar.set_prefix(exp.name.clone());
    let started = Instant::now();
    let outcome = experiment::run(exp, &pairs, threads, &|r| {
        bar.set_message(format!("({} / {} done)", r.policy, r.case));
        bar.inc(1);
    })
    .map_err(CliError::Failed)?;
    bar.finish_and_clear();
    let wall = started.elapsed();
    if let (Some(path), Some(mut file)) = (html_path, html_file) {
        use std::io::Write;
        file.write_all(html::render_html(exp, &outcome).as_bytes())
            .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", path.display())))?;
        eprintln!("iosched: wrote {}", path.display());
    }
    if as_json {
        outln!("{}", serde_json::to_string_pretty(&report::to_json(exp, &outcome)).expect("JSON serialises"));
    } else {
        out!("{}", report::render(exp, &outcome));
        let requests: u64 = outcome.runs.iter().map(|r| r.measures.requests).sum();
        outln!(
            "\n{} runs, {requests} requests simulated in {:.1} s on {threads} thread(s).",
            outcome.runs.len(),
            wall.as_secs_f64()
        );
        if html_path.is_none() {
            outln!("Add --html FILE for a report with plots, --json for the figures.");
        }
    }
    Ok(())
}

/// Write a built-in experiment's files into a new folder, to edit and run with `iosched experiment FOLDER`.
fn export(name: &str, exp: &Experiment, dir: &Path) -> Result<(), CliError> {
    let Some(b) = builtin::find(name) else {
        return Err(bad(format!("--export copies a built-in experiment; '{}' is a folder already", exp.name)));
    };
    if dir.exists() {
        return Err(bad(format!("--export: {} exists; give a new folder", dir.display())));
    }
    std::fs::create_dir_all(dir).map_err(|e| CliError::Failed(format!("cannot create {}: {e}", dir.display())))?;
    for (file, text) in b.files {
        let path = dir.join(file);
        std::fs::write(&path, text).map_err(|e| CliError::Failed(format!("cannot write {}: {e}", path.display())))?;
    }
    outln!(
        "wrote {} files of {name} into {}; run it with: iosched experiment {}",
        b.files.len(),
        dir.display(),
        dir.display()
    );
    Ok(())
}
