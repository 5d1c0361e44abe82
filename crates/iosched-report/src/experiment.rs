//! An experiment's results: the seed-shaped tables with the seed's own words beside iosched's figures, and the
//! JSON form `{"experiment": NAME, "results": [...]}`.

use crate::table::columns;
use iosched_sim::experiment::{
    metric_names, run_figure, verdicts, Experiment, ExperimentOutcome, Measure, Metrics, RunOutcome, Verdict,
};
use serde_json::{json, Map, Value};
use std::fmt::Write;

fn f1(x: f64) -> String {
    format!("{x:.1}")
}

fn f2(x: f64) -> String {
    format!("{x:.2}")
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{v:.digits$}"))
}

/// Round for JSON, so that the figures read well and stay identical across runs and platforms.
fn round(x: f64, digits: i32) -> Value {
    let scale = 10f64.powi(digits);
    json!((x * scale).round() / scale)
}

fn runs_of<'a>(outcome: &'a ExperimentOutcome, case: &'a str) -> impl Iterator<Item = &'a RunOutcome> + 'a {
    outcome.runs.iter().filter(move |r| r.case == case)
}

fn idle_startup_s(exp: &Experiment, outcome: &ExperimentOutcome) -> Option<f64> {
    let Measure::BfqStartup { idle_case, .. } = &exp.description.measure else { return None };
    runs_of(outcome, idle_case).find_map(|r| match r.measures.metrics {
        Metrics::BfqStartup { startup_s, .. } => Some(startup_s),
        _ => None,
    })
}

/// Policy labels from the shortest load time.
fn load_order(outcome: &ExperimentOutcome) -> Vec<(String, f64)> {
    let mut order: Vec<(String, f64)> = outcome
        .runs
        .iter()
        .filter_map(|r| match r.measures.metrics {
            Metrics::Dbload { load_s } => Some((r.policy.clone(), load_s)),
            _ => None,
        })
        .collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    order
}

/// Whether the seed's policies come in the seed's order in iosched's results (the others are ignored), or
/// None if some of them were not run.
pub fn seed_order_holds(exp: &Experiment, outcome: &ExperimentOutcome) -> Option<bool> {
    let Measure::Dbload { seed_order } = &exp.description.measure else { return None };
    let ours: Vec<String> =
        load_order(outcome).into_iter().map(|(p, _)| p).filter(|p| seed_order.contains(p)).collect();
    (ours.len() == seed_order.len()).then(|| &ours == seed_order)
}

/// The JSON report. Deterministic: no wall-clock figures.
pub fn to_json(exp: &Experiment, outcome: &ExperimentOutcome) -> Value {
    let measure = &exp.description.measure;
    let mut results = Vec::new();
    for r in &outcome.runs {
        let mut o = Map::new();
        o.insert("policy".into(), json!(r.policy));
        match (&r.measures.metrics, measure) {
            (Metrics::GeomSched { dd_mb_per_s, cvs_ops_per_s }, _) => {
                o.insert("case".into(), json!(r.case));
                o.insert("dd_mb_per_s".into(), dd_mb_per_s.map_or(Value::Null, |v| round(v, 2)));
                o.insert("cvs_ops_per_s".into(), cvs_ops_per_s.map_or(Value::Null, |v| round(v, 2)));
                let slowdown =
                    run_figure(&outcome.runs, r, "interactive_slowdown").map_or(Value::Null, |v| round(v, 2));
                o.insert("cvs_slowdown".into(), slowdown);
            }
            (Metrics::NetflixFill { .. }, _) | (Metrics::Dbload { .. }, _) => {
                o.insert("case".into(), json!(r.case));
                if let Value::Object(fields) = serde_json::to_value(&r.measures.metrics).expect("metrics serialise") {
                    for (k, v) in fields {
                        let v = v.as_f64().map_or(v, |x| round(x, 3));
                        o.insert(k, v);
                    }
                }
            }
            (
                Metrics::BfqStartup { startup_s, aggregate_mb_per_s, iteration_mb_per_s },
                Measure::BfqStartup { idle_case, .. },
            ) => {
                if &r.case == idle_case {
                    continue;
                }
                o.insert("background".into(), json!(r.case));
                o.insert("startup_s".into(), round(*startup_s, 3));
                o.insert("aggregate_mb_per_s".into(), round(*aggregate_mb_per_s, 2));
                o.insert("iteration_mb_per_s".into(), round(*iteration_mb_per_s, 2));
            }
            (Metrics::BfqStartup { .. }, _) => unreachable!("bfq-startup metrics come from a bfq-startup measure"),
        }
        results.push(Value::Object(o));
    }
    let mut top = Map::new();
    top.insert("experiment".into(), json!(exp.name));
    top.insert("device".into(), json!(exp.description.device));
    top.insert("seed".into(), json!(exp.description.seed));
    if let Some(idle) = idle_startup_s(exp, outcome) {
        top.insert("idle_startup_s".into(), round(idle, 3));
    }
    if let Measure::Dbload { seed_order } = measure {
        top.insert("seed_order".into(), json!(seed_order));
        top.insert("seed_order_holds".into(), json!(seed_order_holds(exp, outcome)));
    }
    let figures: Vec<Value> = verdicts(&exp.cases, outcome)
        .into_iter()
        .map(|v| {
            let mut o = serde_json::to_value(&v).expect("a verdict serialises");
            o["iosched"] = v.iosched.map_or(Value::Null, |x| round(x, 3));
            o
        })
        .collect();
    top.insert("seed_figures".into(), Value::Array(figures));
    top.insert("results".into(), Value::Array(results));
    Value::Object(top)
}

fn strings(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|s| s.to_string()).collect()
}

fn wrapped(out: &mut String, text: &str, first: &str, rest: &str) {
    out.push_str(&crate::table::wrap(text, first, rest));
}

/// The readable report.
pub fn render(exp: &Experiment, outcome: &ExperimentOutcome) -> String {
    let d = &exp.description;
    let mut out = String::new();
    let _ = writeln!(out, "{}", d.title);
    let _ = writeln!(out, "from {}", d.source);
    let _ = writeln!(out, "device {}, seed {}", d.device, d.seed);
    for paragraph in d.about.trim().split("\n\n") {
        wrapped(&mut out, paragraph, "  ", "  ");
    }
    // What the seed says of each policy, once (a column repeated it beside every case, and made tables wider than
    // a terminal).
    let said: Vec<&iosched_sim::experiment::PolicyEntry> =
        d.policies.iter().filter(|p| p.seed_says.is_some()).collect();
    if !said.is_empty() {
        let _ = writeln!(out, "the seed on the policies:");
        for p in said {
            wrapped(&mut out, &format!("{}: {}", p.label, p.seed_says.as_deref().unwrap_or_default()), "  ", "    ");
        }
    }
    let all_verdicts = verdicts(&exp.cases, outcome);
    match &d.measure {
        Measure::GeomSched { stream, interactive } => {
            for case in &exp.cases {
                let _ = writeln!(out, "\n{}  ({})", case.entry.name, case.entry.jobs.join(" + "));
                if let Some(s) = &case.entry.seed_says {
                    wrapped(&mut out, &format!("seed: {s}"), "  ", "    ");
                }
                let mut rows = vec![strings(&[
                    "policy",
                    &format!("{stream} MB/s"),
                    &format!("{interactive} ops/s"),
                    &format!("{interactive} slowdown"),
                ])];
                for r in runs_of(outcome, &case.entry.name) {
                    let Metrics::GeomSched { dd_mb_per_s, cvs_ops_per_s } = r.measures.metrics else { continue };
                    let slowdown = run_figure(&outcome.runs, r, "interactive_slowdown")
                        .map_or_else(|| "-".into(), |v| format!("{v:.1}x"));
                    rows.push(vec![r.policy.clone(), opt(dd_mb_per_s, 1), opt(cvs_ops_per_s, 1), slowdown]);
                }
                indent(&mut out, &columns(&rows));
                figure_lines(&mut out, exp, &all_verdicts, &case.entry.name);
            }
        }
        Measure::NetflixFill { fill_starts_s, .. } => {
            let _ = writeln!(
                out,
                "\nread latency (ms) before the fill (pre: 0-{fill_starts_s} s) and during it; the fill's write rate"
            );
            for case in &exp.cases {
                let _ = writeln!(out, "\n{}  ({})", case.entry.name, case.entry.jobs.join(" + "));
                if let Some(s) = &case.entry.seed_says {
                    wrapped(&mut out, &format!("seed: {s}"), "  ", "    ");
                }
                let noop_write = runs_of(outcome, &case.entry.name)
                    .find(|r| r.policy == "noop")
                    .and_then(|r| r.measures.metrics.value("write_mb_per_s"));
                // The latency columns, each one of the figures the seed's figures name (figures.rs).
                const LATENCY: [(&str, &str); 6] = [
                    ("pre mean", "read_mean_ms_before"),
                    ("pre p99", "read_p99_ms_before"),
                    ("mean", "read_mean_ms_during"),
                    ("p99", "read_p99_ms_during"),
                    ("p99.9", "read_p999_ms_during"),
                    ("max", "read_max_ms_during"),
                ];
                let mut header = vec!["policy".to_string()];
                header.extend(LATENCY.iter().map(|(title, _)| title.to_string()));
                header.extend(["p99 rise".to_string(), "write MB/s".to_string()]);
                let mut rows = vec![header];
                for r in runs_of(outcome, &case.entry.name) {
                    let m = &r.measures.metrics;
                    let Some(write_mb_per_s) = m.value("write_mb_per_s") else { continue };
                    let write = match noop_write {
                        Some(n) if n > 0.0 && r.policy != "noop" => {
                            format!("{} ({:.0} %)", f1(write_mb_per_s), 100.0 * write_mb_per_s / n)
                        }
                        _ => f1(write_mb_per_s),
                    };
                    let mut row = vec![r.policy.clone()];
                    row.extend(LATENCY.iter().map(|(_, name)| opt(m.value(name), 2)));
                    row.push(m.value("read_p99_rise").map_or_else(|| "-".to_string(), |x| format!("{x:.1}x")));
                    row.push(write);
                    rows.push(row);
                }
                indent(&mut out, &columns(&rows));
                figure_lines(&mut out, exp, &all_verdicts, &case.entry.name);
            }
        }
        Measure::BfqStartup { idle_case, pause_s, .. } => {
            let idle = idle_startup_s(exp, outcome);
            let with_pause = format!("with {pause_s} s pause MB/s");
            let _ = writeln!(out, "\nstart-up alone ({idle_case}): {}", opt(idle, 2) + " s");
            for case in exp.cases.iter().filter(|c| &c.entry.name != idle_case) {
                let _ = writeln!(out, "\nbackground: {}  ({})", case.entry.name, case.entry.jobs.join(" + "));
                if let Some(s) = &case.entry.seed_says {
                    wrapped(&mut out, &format!("seed: {s}"), "  ", "    ");
                }
                let mut rows = vec![strings(&["policy", "start-up s", "x alone", "aggregate MB/s", &with_pause])];
                for r in runs_of(outcome, &case.entry.name) {
                    let Metrics::BfqStartup { startup_s, aggregate_mb_per_s, iteration_mb_per_s } = r.measures.metrics
                    else {
                        continue;
                    };
                    rows.push(vec![
                        r.policy.clone(),
                        f2(startup_s),
                        idle.map_or("-".into(), |i| format!("{:.1}x", startup_s / i.max(1e-9))),
                        f1(aggregate_mb_per_s),
                        f1(iteration_mb_per_s),
                    ]);
                }
                indent(&mut out, &columns(&rows));
                figure_lines(&mut out, exp, &all_verdicts, &case.entry.name);
            }
        }
        Measure::Dbload { seed_order } => {
            let _ = writeln!(out);
            let mut rows = vec![strings(&["policy", "load s"])];
            for r in &outcome.runs {
                let Metrics::Dbload { load_s } = r.measures.metrics else { continue };
                rows.push(vec![r.policy.clone(), f1(load_s)]);
            }
            indent(&mut out, &columns(&rows));
            for case in &exp.cases {
                figure_lines(&mut out, exp, &all_verdicts, &case.entry.name);
            }
            let ours: Vec<String> = load_order(outcome).into_iter().map(|(p, _)| p).collect();
            let verdict = match seed_order_holds(exp, outcome) {
                Some(true) => "holds",
                Some(false) => "does not hold",
                None => "cannot be checked (not every policy of it ran)",
            };
            let _ = writeln!(out);
            let verdict_line = format!(
                "seed's order, fastest first: {}; iosched's: {}; the seed's order {verdict}.",
                seed_order.join(", "),
                ours.join(", ")
            );
            wrapped(&mut out, &verdict_line, "", "  ");
        }
    }
    let holding = all_verdicts.iter().filter(|v| v.holds == Some(true)).count();
    let checked = all_verdicts.iter().filter(|v| v.holds.is_some()).count();
    if checked > 0 {
        let _ = writeln!(out, "\nThe seed's figures: {holding} of {checked} hold.");
    }
    out
}

/// "holds", "does not hold", or "not run".
pub fn verdict_word(v: &Verdict) -> &'static str {
    match v.holds {
        Some(true) => "holds",
        Some(false) => "does not hold",
        None => "not run",
    }
}

/// The seed's range in words: "25.5 to 34.5", "at least 5", "at most 0.8".
pub fn verdict_range(v: &Verdict) -> String {
    let n = |x: f64| {
        let text = format!("{x:.2}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    match (v.figure.low, v.figure.high) {
        (Some(lo), Some(hi)) => format!("{} to {}", n(lo), n(hi)),
        (Some(lo), None) => format!("at least {}", n(lo)),
        (None, Some(hi)) => format!("at most {}", n(hi)),
        (None, None) => "any".to_string(),
    }
}

/// iosched's figure of a verdict in words: "55.0 MB/s", or "cfq/bfq 6.68" for a ratio.
pub fn verdict_figure(exp: &Experiment, v: &Verdict) -> String {
    let Some(x) = v.iosched else { return "-".to_string() };
    let digits = if x >= 100.0 {
        0
    } else if x >= 10.0 {
        1
    } else {
        2
    };
    match &v.figure.relative_to {
        Some(other) => format!("{}/{other} {x:.digits$}", v.figure.policy),
        None => {
            let unit = metric_names(&exp.description.measure)
                .iter()
                .find(|(n, _)| *n == v.figure.metric)
                .map_or("", |(_, u)| *u);
            if unit == "x" {
                format!("{x:.digits$}x")
            } else {
                format!("{x:.digits$} {unit}")
            }
        }
    }
}

/// The seed's figures for `case`, each with iosched's and whether it holds, under the case's table.
fn figure_lines(out: &mut String, exp: &Experiment, all: &[Verdict], case: &str) {
    for v in all.iter().filter(|v| v.case == case) {
        let line = format!(
            "seed figure \"{}\": iosched {} (seed: {}): {}",
            v.figure.says,
            verdict_figure(exp, v),
            verdict_range(v),
            verdict_word(v)
        );
        wrapped(out, &line, "  ", "    ");
        if let (Some(false), Some(why)) = (v.holds, &v.figure.why) {
            wrapped(out, &format!("why: {why}"), "    ", "      ");
        }
    }
}

fn indent(out: &mut String, text: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "  {line}");
    }
}
