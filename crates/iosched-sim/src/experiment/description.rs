//! An experiment's description: the `experiment.toml` of its folder, read and checked, with the fio job files
//! its cases name.
//!
//! ```toml
//! title = "geom-sched: a sequential stream against a random one"
//! source = "seeds 000 and 001"
//! device = "hdd:sata7200"          # any device spec
//! seed = 1                           # optional, default 1
//! [measure]                          # what to measure: a kind and the job names it reads
//! kind = "geom-sched"                # geom-sched | netflix-fill | bfq-startup | dbload
//! stream = "dd"
//! interactive = "cvs"
//! [[policy]]                         # one per configuration to compare
//! label = "cam-write-qd1"            # the name in tables and JSON
//! policy = "cam"                     # default: the label
//! set = ["write.limiter=queue_depth"]
//! seed_says = "..."                  # the seed's result for it, shown beside iosched's
//! [[case]]                           # one per workload; every policy runs every case
//! name = "dd-read+cvs"
//! jobs = ["dd-read.fio", "cvs.fio"]  # fio job files of the folder, run together
//! seed_says = "..."
//! [[case.figure]]                    # a figure the seed gives, checked against iosched's (figures.rs)
//! says = "rr: dd 30 MB/s"
//! policy = "rr"
//! metric = "stream_mb_per_s"
//! low = 25.5
//! high = 34.5
//! ```

use super::figures::{metric_names, SeedFigure};
use iosched_workload::fio;
use iosched_workload::job::JobSpec;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// What a run measures, with the job names it reads.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Measure {
    /// A sequential stream's MB/s (`stream`) and an interactive job's operations per second (`interactive`).
    GeomSched { stream: String, interactive: String },
    /// Read latency before and during a write fill that starts at `fill_starts_s`: `reads` is the reading job,
    /// `writes` the jobs whose written bytes count as the fill.
    NetflixFill { reads: String, writes: Vec<String>, fill_starts_s: f64 },
    /// An application's start-up time (`app`, a job with a fixed amount of I/O) beside a background; the case
    /// named `idle_case` runs the application alone (once, under the first policy). `pause_s` is the pause
    /// after each start-up in the seed's test script, over which the throughput of an iteration is also
    /// measured (default [`S_SUITE_PAUSE_S`]).
    BfqStartup {
        app: String,
        idle_case: String,
        #[serde(default = "s_suite_pause_s")]
        pause_s: f64,
    },
    /// The time until every job has finished (a load of fixed size); `seed_order` lists policy labels from the
    /// fastest in the seed, and the report says whether iosched's order agrees.
    Dbload { seed_order: Vec<String> },
}

/// The pause after each start-up in the test script of the seed's time (comm_startup_lat.sh of Valente's S
/// suite in its first form: drop the caches, run the command, `sleep 2`, again).
pub const S_SUITE_PAUSE_S: f64 = 2.0;

fn s_suite_pause_s() -> f64 {
    S_SUITE_PAUSE_S
}

/// One configuration to compare.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PolicyEntry {
    pub label: String,
    #[serde(default)]
    pub policy: Option<String>,
    #[serde(default)]
    pub set: Vec<String>,
    #[serde(default)]
    pub seed_says: Option<String>,
}

impl PolicyEntry {
    /// The registry name of the policy.
    pub fn policy_name(&self) -> &str {
        self.policy.as_deref().unwrap_or(&self.label)
    }

    /// The settings as `(key, value)` pairs; the description's check has made sure each has an `=`.
    pub fn settings(&self) -> Vec<(&str, &str)> {
        self.set.iter().filter_map(|s| s.split_once('=')).map(|(k, v)| (k.trim(), v.trim())).collect()
    }
}

/// One workload.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CaseEntry {
    pub name: String,
    pub jobs: Vec<String>,
    #[serde(default)]
    pub seed_says: Option<String>,
    /// The seed's figures for this case, each checked against iosched's ([`super::figures`]).
    #[serde(default, rename = "figure")]
    pub figures: Vec<SeedFigure>,
}

/// The file as written.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DescriptionFile {
    pub title: String,
    #[serde(default)]
    pub source: String,
    pub device: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub about: String,
    pub measure: Measure,
    #[serde(rename = "policy")]
    pub policies: Vec<PolicyEntry>,
    #[serde(rename = "case")]
    pub cases: Vec<CaseEntry>,
}

fn default_seed() -> u64 {
    1
}

/// A case with its job files read.
#[derive(Clone, Debug)]
pub struct Case {
    pub entry: CaseEntry,
    pub jobs: Vec<JobSpec>,
}

/// An experiment ready to run.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// The folder's name (or the built-in's).
    pub name: String,
    pub description: DescriptionFile,
    pub cases: Vec<Case>,
}

/// Where an experiment's files come from: a folder on disk or one built into the binary.
pub enum Files<'a> {
    Folder(&'a Path),
    BuiltIn(&'static [(&'static str, &'static str)]),
}

impl Files<'_> {
    /// The file's text and the name to show in errors.
    fn read(&self, name: &str) -> Result<(String, String), String> {
        match self {
            Files::Folder(dir) => {
                let path: PathBuf = dir.join(name);
                let text =
                    std::fs::read_to_string(&path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
                Ok((text, path.display().to_string()))
            }
            Files::BuiltIn(files) => files
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(n, text)| (text.to_string(), format!("(built in) {n}")))
                .ok_or_else(|| format!("(built in): no file named {name}")),
        }
    }
}

/// Read and check an experiment: its description, then every job file its cases name.
pub fn load(name: &str, files: Files) -> Result<Experiment, String> {
    let (text, shown) = files.read("experiment.toml")?;
    let description: DescriptionFile = toml::from_str(&text).map_err(|e| format!("{shown}: {}", one_line(&e)))?;
    check(&description).map_err(|f| match line_of(&text, &f.near).filter(|_| !f.near.is_empty()) {
        Some(line) => format!("{shown}:{line}: {}", f.message),
        None => format!("{shown}: {}", f.message),
    })?;
    let mut cases = Vec::new();
    for entry in &description.cases {
        let mut jobs = Vec::new();
        for file in &entry.jobs {
            if file.contains("..") || Path::new(file).is_absolute() {
                return Err(format!(
                    "{shown}: case '{}': job file '{file}' must be a name inside the folder",
                    entry.name
                ));
            }
            let (job_text, job_shown) = files.read(file)?;
            jobs.extend(fio::parse_str(&job_text, &job_shown).map_err(|e| e.to_string())?);
        }
        let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
        let missing = |wanted: &str| {
            format!(
                "{shown}: case '{}': the measure reads job '{wanted}', which none of {} defines (jobs: {})",
                entry.name,
                entry.jobs.join(", "),
                names.join(", ")
            )
        };
        match &description.measure {
            // A case may lack the stream (cvs alone) or the interactive job (dd alone), not both.
            Measure::GeomSched { stream, interactive } => {
                if !names.contains(&stream.as_str()) && !names.contains(&interactive.as_str()) {
                    return Err(missing(&format!("{stream}' or '{interactive}")));
                }
            }
            Measure::NetflixFill { reads, writes, .. } => {
                if let Some(w) = std::iter::once(reads).chain(writes).find(|w| !names.contains(&w.as_str())) {
                    return Err(missing(w));
                }
            }
            Measure::BfqStartup { app, .. } if !names.contains(&app.as_str()) => return Err(missing(app)),
            Measure::BfqStartup { .. } | Measure::Dbload { .. } => {}
        }
        cases.push(Case { entry: entry.clone(), jobs });
    }
    Ok(Experiment { name: name.to_string(), description, cases })
}

/// toml's messages span lines (a caret under the column); keep the first, which names line and column.
fn one_line(e: &toml::de::Error) -> String {
    let text = e.to_string();
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let head = lines.next().unwrap_or_default().to_string();
    let reason = text.lines().last().unwrap_or_default().trim().to_string();
    if reason.is_empty() || head.contains(&reason) {
        head
    } else {
        format!("{head}: {reason}")
    }
}

/// What `check` found wrong, and a piece of the file's text that locates it (spaces ignored): the line it is on
/// is named in the error.
struct Fault {
    near: String,
    message: String,
}

fn fault(near: impl Into<String>, message: String) -> Fault {
    Fault { near: near.into(), message }
}

/// The line (from 1) whose text, without spaces, contains `near` without spaces; the first one.
fn line_of(text: &str, near: &str) -> Option<usize> {
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let near = squeeze(near);
    text.lines().position(|l| squeeze(l).contains(&near)).map(|i| i + 1)
}

/// Most time an experiment's measure may name: a day, far past any run, so that no product of it overflows.
const MEASURE_SECONDS_MAX: f64 = 86_400.0;

fn check(d: &DescriptionFile) -> Result<(), Fault> {
    if d.policies.is_empty() {
        return Err(fault("", "expected at least one [[policy]]".into()));
    }
    if d.cases.is_empty() {
        return Err(fault("", "expected at least one [[case]]".into()));
    }
    for (i, p) in d.policies.iter().enumerate() {
        let at = format!("label = \"{}\"", p.label);
        if d.policies[..i].iter().any(|q| q.label == p.label) {
            return Err(fault(at, format!("policy label '{}' appears twice; labels name the results", p.label)));
        }
        if let Some(bad) = p.set.iter().find(|s| !s.contains('=')) {
            return Err(fault(at, format!("policy '{}': set expects \"key=value\" strings, found '{bad}'", p.label)));
        }
        iosched_core::registry::create_with(p.policy_name(), p.settings())
            .map_err(|e| fault(at, format!("policy '{}': {e}", p.label)))?;
    }
    for (i, c) in d.cases.iter().enumerate() {
        let at = format!("name = \"{}\"", c.name);
        if d.cases[..i].iter().any(|o| o.name == c.name) {
            return Err(fault(at, format!("case '{}' appears twice", c.name)));
        }
        if c.jobs.is_empty() {
            return Err(fault(at, format!("case '{}': expected at least one job file in jobs", c.name)));
        }
        for f in &c.figures {
            check_figure(d, &c.name, f)?;
        }
    }
    match &d.measure {
        Measure::NetflixFill { fill_starts_s, .. }
            if !(fill_starts_s.is_finite() && *fill_starts_s > 0.0 && *fill_starts_s <= MEASURE_SECONDS_MAX) =>
        {
            let found =
                if fill_starts_s.abs() >= 1e9 { format!("{fill_starts_s:e}") } else { fill_starts_s.to_string() };
            Err(fault(
                "fill_starts_s",
                format!(
                    "measure: fill_starts_s expects seconds above 0 and at most {MEASURE_SECONDS_MAX}, found {found}"
                ),
            ))
        }
        Measure::BfqStartup { idle_case, .. } if !d.cases.iter().any(|c| &c.name == idle_case) => {
            Err(fault("idle_case", format!("measure: idle_case '{idle_case}' is not one of the cases")))
        }
        Measure::BfqStartup { pause_s, .. }
            if !(pause_s.is_finite() && *pause_s >= 0.0 && *pause_s <= MEASURE_SECONDS_MAX) =>
        {
            Err(fault(
                "pause_s=",
                format!("measure: pause_s expects seconds from 0 to {MEASURE_SECONDS_MAX}, found {pause_s}"),
            ))
        }
        _ => Ok(()),
    }
}

/// A seed figure names policies of the file and a figure the measure reports, and gives a range.
fn check_figure(d: &DescriptionFile, case: &str, f: &SeedFigure) -> Result<(), Fault> {
    let at = format!("says = \"{}\"", f.says);
    let wrong = |what: String| Err(fault(at.clone(), format!("case '{case}', figure '{}': {what}", f.says)));
    let labels: Vec<&str> = d.policies.iter().map(|p| p.label.as_str()).collect();
    for label in std::iter::once(&f.policy).chain(&f.relative_to) {
        if !labels.contains(&label.as_str()) {
            return wrong(format!("policy '{label}' is not one of the labels ({})", labels.join(", ")));
        }
    }
    let names: Vec<&str> = metric_names(&d.measure).iter().map(|(n, _)| *n).collect();
    if !names.contains(&f.metric.as_str()) {
        let hint = iosched_core::suggest::did_you_mean(&f.metric, names.iter().copied());
        return wrong(format!("metric '{}' is not one this measure reports{hint} ({})", f.metric, names.join(", ")));
    }
    match (f.low, f.high) {
        (None, None) => wrong("expected low, high or both: the range the seed's words allow".into()),
        (lo, hi) if lo.into_iter().chain(hi).any(|x| !(0.0..=1e12).contains(&x)) => {
            wrong("low and high expect numbers from 0 to 1e12".into())
        }
        (Some(lo), Some(hi)) if lo > hi => wrong(format!("low {lo} is above high {hi}")),
        _ => Ok(()),
    }
}
