//! fio's per-job logs, written as fio writes them (HOWTO, "Log File Formats"), so that fio's own tools
//! (fiologparser.py, fio_generate_plots) read them: `NAME_lat.N.log`, `NAME_clat.N.log` and `NAME_slat.N.log`
//! (write_lat_log), `NAME_bw.N.log` (write_bw_log) and `NAME_iops.N.log` (write_iops_log), N the job's number
//! among the clones. Rows are `time_ms, value, ddir, bs, prio` (`time_ms, value, ddir, bs, offset, prio` with
//! log_offset), in completion order, as fio 3.33 writes them. Without
//! log_avg_msec every I/O has a row: its latency (ns), its own bandwidth (KiB/s: its bytes over its latency) or
//! 1 (IOPS); the slat log of a synchronous engine is empty, as fio's is. With it, each window has a row per direction that completed I/O in it, at the window's end: the mean
//! latency, or the window's KiB/s or IOPS, with block size and offset 0.
//! `NAME_clat_hist.N.log` (write_hist_log with log_hist_msec): per window and direction, `time_ms, ddir, bs`
//! and the count of completions in each of fio's latency buckets (merged 2^log_hist_coarseness at a time), for
//! every window that ended before the job's last completion, as fio writes it (fiologparser_hist.py reads it).

use iosched_core::request::{IoClass, Op};
use iosched_core::stats::fio_plat;
use iosched_sim::workload::SourceSpec;
use iosched_sim::{LogEntry, Workload};

#[derive(Clone, Copy)]
enum Kind {
    /// Total latency (clat and lat are the same: a simulated submission takes no time).
    Latency,
    /// Submission latency: 0.
    Submission,
    Bandwidth,
    Iops,
}

/// Every log the jobs ask for: (file name, contents).
pub fn logs(workload: &Workload, log: &[LogEntry]) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut number = 0;
    for (source, spec) in workload.sources.iter().enumerate() {
        let SourceSpec::Job { spec, .. } = spec else { continue };
        number += 1;
        let wanted = [
            (&spec.write_lat_log, "clat", Kind::Latency),
            (&spec.write_lat_log, "lat", Kind::Latency),
            (&spec.write_lat_log, "slat", Kind::Submission),
            (&spec.write_bw_log, "bw", Kind::Bandwidth),
            (&spec.write_iops_log, "iops", Kind::Iops),
        ];
        if wanted.iter().all(|(name, _, _)| name.is_none()) && spec.write_hist_log.is_none() {
            continue;
        }
        let mut entries: Vec<&LogEntry> =
            log.iter().filter(|e| e.source as usize == source && e.req.op != Op::Flush).collect();
        entries.sort_by_key(|e| (e.req.completed_ns, e.req.id.0));
        if let Some(name) = &spec.write_hist_log {
            let text = histogram_rows(&entries, spec.log_hist_ms, spec.log_hist_coarseness);
            files.push((format!("{name}_clat_hist.{number}.log"), text));
        }
        for (name, suffix, kind) in wanted {
            if let Some(name) = name {
                // fio measures no submission latency for a synchronous engine: its slat log stays empty.
                let text = match kind {
                    Kind::Submission if spec.engine.synchronous => String::new(),
                    _ => rows(&entries, spec.log_avg_ms, kind, spec.log_offset),
                };
                files.push((format!("{name}_{suffix}.{number}.log"), text));
            }
        }
    }
    files
}

/// The priority column as fio 3.33 writes it: 1 for a high-priority (real-time class) command, else 0.
fn priority(class: IoClass) -> u32 {
    u32::from(class == IoClass::Rt)
}

fn kib_per_s(bytes: u64, ns: u64) -> u64 {
    (bytes as u128 * 1_000_000_000 / 1024 / ns.max(1) as u128) as u64
}

fn rows(sorted: &[&LogEntry], avg_ms: u64, kind: Kind, with_offset: bool) -> String {
    let mut out = String::new();
    if avg_ms == 0 {
        for e in sorted {
            let r = &e.req;
            let value = match kind {
                Kind::Latency => r.total_ns(),
                Kind::Submission => 0,
                Kind::Bandwidth => kib_per_s(r.len_bytes, r.total_ns()),
                Kind::Iops => 1,
            };
            let (at_ms, dir, prio) = (r.completed_ns / 1_000_000, r.op.index(), priority(r.class));
            let offset = if with_offset { format!("{}, ", r.offset_bytes) } else { String::new() };
            out.push_str(&format!("{at_ms}, {value}, {dir}, {}, {offset}{prio}\n", r.len_bytes));
        }
        return out;
    }
    let window_ns = avg_ms * 1_000_000;
    let mut window_end = window_ns;
    // Per direction: latency sum, I/Os, bytes.
    let mut sums = [(0u128, 0u64, 0u64); 3];
    let flush_all = |out: &mut String, end: u64, sums: &mut [(u128, u64, u64); 3]| {
        for (dir, s) in sums.iter_mut().enumerate() {
            let (latency, ios, bytes) = *s;
            if ios > 0 {
                let value = match kind {
                    Kind::Latency => (latency / ios as u128) as u64,
                    Kind::Submission => 0,
                    Kind::Bandwidth => kib_per_s(bytes, window_ns),
                    Kind::Iops => (ios as u128 * 1_000_000_000 / window_ns as u128) as u64,
                };
                let offset = if with_offset { "0, " } else { "" };
                out.push_str(&format!("{}, {value}, {dir}, 0, {offset}0\n", end / 1_000_000));
            }
            *s = (0, 0, 0);
        }
    };
    for e in sorted {
        while e.req.completed_ns >= window_end {
            flush_all(&mut out, window_end, &mut sums);
            window_end += window_ns;
        }
        let s = &mut sums[e.req.op.index()];
        s.0 += e.req.total_ns() as u128;
        s.1 += 1;
        s.2 += e.req.len_bytes;
    }
    flush_all(&mut out, window_end, &mut sums);
    out
}

/// fio's histogram log: one row per direction per whole window (see the module's doc); empty without a window.
fn histogram_rows(sorted: &[&LogEntry], window_ms: u64, coarseness: u32) -> String {
    let mut out = String::new();
    if window_ms == 0 {
        return out;
    }
    let columns = (fio_plat::BUCKETS >> coarseness) as usize;
    let window_ns = window_ms * 1_000_000;
    let mut window_end = window_ns;
    // Per direction: bucket counts and the block size of its last I/O in the window.
    let mut counts = vec![vec![0u64; columns]; 3];
    let mut bs = [0u64; 3];
    for e in sorted {
        while e.req.completed_ns >= window_end {
            for dir in 0..3 {
                if bs[dir] > 0 {
                    let row: Vec<String> = counts[dir].iter().map(u64::to_string).collect();
                    out.push_str(&format!("{}, {dir}, {}, {}\n", window_end / 1_000_000, bs[dir], row.join(", ")));
                }
                counts[dir].iter_mut().for_each(|c| *c = 0);
                bs[dir] = 0;
            }
            window_end += window_ns;
        }
        let dir = e.req.op.index();
        let bucket = (fio_plat::val_to_idx(e.req.total_ns()) >> coarseness) as usize;
        counts[dir][bucket.min(columns - 1)] += 1;
        bs[dir] = e.req.len_bytes;
    }
    out
}
