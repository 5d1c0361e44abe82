//! A readable table of a run: one line per job and direction that did I/O.

use iosched_core::policy::StatValue;
use iosched_core::results::RunResult;
use iosched_core::units;
use std::fmt::Write;

/// The widest line of a table.
pub const TABLE_COLUMNS: usize = 100;

/// Longest job name in the table (cut with '~'; the JSON has the whole name).
const JOB_NAME_WIDTH: usize = 16;

fn ms(ns: u64) -> String {
    ms_of(units::ns_to_ms(ns))
}

/// Milliseconds to four significant digits (three decimals below 1 ms, none from 1000 ms): every latency column
/// stays narrow enough for the table to fit 100 columns.
fn ms_of(x: f64) -> String {
    let decimals = match x.abs() {
        a if a < 10.0 => 3,
        a if a < 100.0 => 2,
        a if a < 1000.0 => 1,
        _ => 0,
    };
    format!("{x:.decimals$}")
}

/// `text` wrapped at word boundaries into lines of at most [`TABLE_COLUMNS`], the first after `first`, the others
/// after `rest` (a word longer than a line stands alone); each line ends in a newline.
pub fn wrap(text: &str, first: &str, rest: &str) -> String {
    wrap_pieces(text.split_whitespace(), " ", first, rest)
}

/// `pieces` joined by `sep` into lines of at most [`TABLE_COLUMNS`]: the first line starts with `first`, each
/// further one with `rest`; a line takes at least one piece. Every line ends in a newline, without trailing
/// blanks. The one greedy wrapper of the tables, the policy list, validate's fields and the device line.
fn wrap_pieces<'a>(pieces: impl IntoIterator<Item = &'a str>, sep: &str, first: &str, rest: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for piece in pieces {
        if !empty && line.chars().count() + sep.chars().count() + piece.chars().count() > TABLE_COLUMNS {
            let _ = writeln!(out, "{}", line.trim_end());
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push_str(sep);
        }
        line.push_str(piece);
        empty = false;
    }
    let _ = writeln!(out, "{}", line.trim_end());
    out
}

/// `text` in at most `width` characters, ending in '~' when cut.
pub(crate) fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width - 1).collect();
    out.push('~');
    out
}

fn stat(v: &StatValue) -> String {
    match v {
        StatValue::Count(c) => c.to_string(),
        StatValue::Value(x) => format!("{x:.3}"),
    }
}

/// Render `run` as text.
pub fn render(run: &RunResult) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "policy  {}", run.policy);
    if !run.policy_tunables.is_empty() {
        wrap_pairs(&mut out, "      ", run.policy_tunables.iter().map(|(k, v)| format!("{k}={v}")));
    }
    wrap_spec(&mut out, "device ", &run.device);
    let _ = writeln!(
        out,
        "run     {} requests completed of {} submitted in {:.3} s of {} time, seed {}",
        run.requests_completed,
        run.requests_submitted,
        units::ns_to_s(run.elapsed_ns),
        if run.real_time { "real" } else { "simulated" },
        run.seed
    );
    let header = ["job", "flow", "dir", "IOPS", "MB/s", "mean ms", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "wait ms"];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for job in &run.jobs {
        for (dir, name) in ["read", "write", "trim"].iter().enumerate() {
            let d = &job.directions[dir];
            if d.ios == 0 {
                continue;
            }
            rows.push(vec![
                cut(&job.name, JOB_NAME_WIDTH),
                job.flow.to_string(),
                name.to_string(),
                format!("{:.1}", job.iops(dir)),
                format!("{:.2}", job.bw_bytes_per_s(dir) / 1e6),
                ms_of(d.total.mean_ns / 1e6),
                ms(d.total.at(50.0).unwrap_or(0)),
                ms(d.total.at(99.0).unwrap_or(0)),
                ms(d.total.at(99.9).unwrap_or(0)),
                ms(d.total.max_ns),
                ms_of(d.queue_wait.mean_ns / 1e6),
            ]);
        }
        if job.flushes.ios > 0 {
            rows.push(vec![
                cut(&job.name, JOB_NAME_WIDTH),
                job.flow.to_string(),
                "flush".to_string(),
                String::new(),
                String::new(),
                ms_of(job.flushes.total.mean_ns / 1e6),
                ms(job.flushes.total.at(50.0).unwrap_or(0)),
                ms(job.flushes.total.at(99.0).unwrap_or(0)),
                ms(job.flushes.total.at(99.9).unwrap_or(0)),
                ms(job.flushes.total.max_ns),
                ms_of(job.flushes.queue_wait.mean_ns / 1e6),
            ]);
        }
    }
    out.push('\n');
    out.push_str(&columns(&rows));
    for job in run.jobs.iter().filter(|j| !j.steps.is_empty()) {
        out.push_str(&steps_table(job));
    }
    // Jobs that failed or saw failed requests, as fio's "err=" says (a verify failure, a rate below its
    // minimum, a device error).
    for job in &run.jobs {
        let failed: u64 = job.directions.iter().map(|d| d.errors).sum::<u64>() + job.flushes.errors;
        let errno = if job.error_code != 0 {
            job.error_code
        } else {
            job.directions.iter().chain([&job.flushes]).map(|d| d.first_errno).find(|e| *e != 0).unwrap_or(0)
        };
        if errno == 0 && failed == 0 {
            continue;
        }
        let why = if job.error_message.is_empty() { String::new() } else { format!(": {}", job.error_message) };
        let line = format!("job {} err={errno}, {failed} failed request(s){why}", cut(&job.name, JOB_NAME_WIDTH));
        out.push_str(&wrap(&line, "", "    "));
        out.push('\n');
    }
    if !run.policy_stats.is_empty() {
        out.push('\n');
        wrap_pairs(&mut out, "policy stats", run.policy_stats.iter().map(|(k, v)| format!("{k}={}", stat(v))));
    }
    if !run.device_stats.is_empty() {
        wrap_pairs(&mut out, "device stats", run.device_stats.iter().map(|(k, v)| format!("{k}={}", stat(v))));
    }
    out
}

/// iodepth_mode=stepped: each step's load (per cent of the probed IOPS), depth, rate limit, and what it did.
fn steps_table(job: &iosched_core::results::JobResult) -> String {
    let mut rows: Vec<Vec<String>> =
        vec![["load %", "depth", "dir", "limit IOPS", "IOPS", "mean ms"].iter().map(|s| s.to_string()).collect()];
    for step in &job.steps {
        for (dir, name) in ["read", "write", "trim"].iter().enumerate() {
            if step.iops[dir] == 0 && step.rate_iops[dir] == 0 {
                continue;
            }
            rows.push(vec![
                step.percent.to_string(),
                step.depth.to_string(),
                name.to_string(),
                if step.rate_iops[dir] > 0 { step.rate_iops[dir].to_string() } else { "-".to_string() },
                step.iops[dir].to_string(),
                ms_of(step.mean_latency_ns[dir] / 1e6),
            ]);
        }
    }
    format!("\nsteps of job {} (iodepth_mode=stepped)\n{}", cut(&job.name, JOB_NAME_WIDTH), columns(&rows))
}

/// `label spec`, a device spec wrapped after its commas at [`TABLE_COLUMNS`].
fn wrap_spec(out: &mut String, label: &str, spec: &str) {
    out.push_str(&wrap_pieces(spec.split_inclusive(','), "", &format!("{label} "), &" ".repeat(label.len() + 1)));
}

/// `label  k=v k=v ...`, wrapped at [`TABLE_COLUMNS`] with continuation lines indented under the first pair.
fn wrap_pairs(out: &mut String, label: &str, pairs: impl Iterator<Item = String>) {
    let pairs: Vec<String> = pairs.collect();
    let indent = " ".repeat(label.len() + 2);
    out.push_str(&wrap_pieces(pairs.iter().map(String::as_str), " ", &format!("{label}  "), &indent));
}

/// Align rows into columns: the first column left-aligned, the rest right-aligned.
pub fn columns(rows: &[Vec<String>]) -> String {
    let ncols = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let widths: Vec<usize> =
        (0..ncols).map(|c| rows.iter().map(|r| r.get(c).map_or(0, |s| s.chars().count())).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c == 0 {
                let _ = write!(line, "{cell:<w$}", w = widths[c]);
            } else {
                let _ = write!(line, "  {cell:>w$}", w = widths[c]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
