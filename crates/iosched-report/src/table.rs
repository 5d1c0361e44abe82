//! A readable table of a run: one line per job and direction that did I/O.

use iosched_core::policy::StatValue;
use iosched_core::results::RunResult;
use iosched_core::units;
use std::fmt::Write;

fn ms(ns: u64) -> String {
    format!("{:.3}", units::ns_to_ms(ns))
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
    let _ = writeln!(out, "device  {}", run.device);
    let _ = writeln!(
        out,
        "run     {} requests completed of {} submitted in {:.3} s of {} time, seed {}",
        run.requests_completed,
        run.requests_submitted,
        units::ns_to_s(run.elapsed_ns),
        if run.real_time { "real" } else { "simulated" },
        run.seed
    );
    let header = ["job", "dir", "IOPS", "MB/s", "mean ms", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "wait ms"];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for job in &run.jobs {
        for (dir, name) in ["read", "write", "trim"].iter().enumerate() {
            let d = &job.directions[dir];
            if d.ios == 0 {
                continue;
            }
            rows.push(vec![
                job.name.clone(),
                name.to_string(),
                format!("{:.1}", job.iops(dir)),
                format!("{:.2}", job.bw_bytes_per_s(dir) / 1e6),
                format!("{:.3}", d.total.mean_ns / 1e6),
                ms(d.total.at(50.0).unwrap_or(0)),
                ms(d.total.at(99.0).unwrap_or(0)),
                ms(d.total.at(99.9).unwrap_or(0)),
                ms(d.total.max_ns),
                format!("{:.3}", d.queue_wait.mean_ns / 1e6),
            ]);
        }
        if job.flushes.ios > 0 {
            rows.push(vec![
                job.name.clone(),
                "flush".to_string(),
                String::new(),
                String::new(),
                format!("{:.3}", job.flushes.total.mean_ns / 1e6),
                ms(job.flushes.total.at(50.0).unwrap_or(0)),
                ms(job.flushes.total.at(99.0).unwrap_or(0)),
                ms(job.flushes.total.at(99.9).unwrap_or(0)),
                ms(job.flushes.total.max_ns),
                format!("{:.3}", job.flushes.queue_wait.mean_ns / 1e6),
            ]);
        }
    }
    out.push('\n');
    out.push_str(&columns(&rows));
    if !run.policy_stats.is_empty() {
        out.push('\n');
        wrap_pairs(&mut out, "policy stats", run.policy_stats.iter().map(|(k, v)| format!("{k}={}", stat(v))));
    }
    if !run.device_stats.is_empty() {
        wrap_pairs(&mut out, "device stats", run.device_stats.iter().map(|(k, v)| format!("{k}={}", stat(v))));
    }
    out
}

/// `label  k=v k=v ...`, wrapped at 120 columns with continuation lines indented under the first pair.
fn wrap_pairs(out: &mut String, label: &str, pairs: impl Iterator<Item = String>) {
    const WIDTH: usize = 120;
    let indent = label.len() + 2;
    let mut line = format!("{label} ");
    for pair in pairs {
        if line.len() > indent && line.len() + 1 + pair.len() > WIDTH {
            let _ = writeln!(out, "{}", line.trim_end());
            line = " ".repeat(indent - 1);
        }
        line.push(' ');
        line.push_str(&pair);
    }
    let _ = writeln!(out, "{}", line.trim_end());
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
