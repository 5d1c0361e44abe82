//! DiskSim as a per-request oracle: run the reference DiskSim binary on a validate trace, read back the access
//! time it computed for every request (the `log_sim_results.csv` that Western Digital's DiskSim build writes into
//! its working directory), and compare another simulator's times with it request by request.
//!
//! DiskSim reads the statdefs file from its working directory and the files a .parv sources relative to it, and
//! writes its outputs there; so each run happens in a fresh temporary folder holding links to every file of the
//! .parv's folder, removed afterwards.
//!
//! The comparison groups requests by what they are: read or write; what DiskSim's cache made of them (its
//! `diskCacheHitStatus`: a whole hit, a partial hit, a miss, an append to a write segment...); and how they
//! relate to the request before (sequential: it starts where that one ended; overlapping: it shares blocks with
//! it; else random). Per group it gives the share of requests within a tolerance of DiskSim's time; overall, also
//! the demerit between the two access-time distributions, bucketed as `iosched validate` buckets them.

use crate::validate::{demerit, demerit_of_printed, replay_issued_at, AccessTimeBuckets};
use iosched_core::request::Op;
use iosched_device::hdd::disk::Hdd;
use iosched_device::hdd::params::HddParams;
use iosched_workload::trace::disksim_validate::{self, ValidateRecord};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// One request as DiskSim served it.
#[derive(Clone, Debug, PartialEq)]
pub struct OracleRequest {
    /// diskCtlrTimeBegin, ms from the start: when DiskSim issued it.
    pub issued_ms: f64,
    /// diskCtlrTimeEnd - diskCtlrTimeBegin, ms: what `iosched validate` calls the access time.
    pub access_ms: f64,
    /// What DiskSim's cache made of it, shortened: hit, partial, miss, append, collision, ...
    pub cache: String,
}

/// What a DiskSim run gave.
#[derive(Clone, Debug)]
pub struct OracleRun {
    /// In trace order; fewer than the trace's requests when DiskSim stopped early.
    pub requests: Vec<OracleRequest>,
    /// Why DiskSim stopped before the end (an assertion of its own, say), with the last lines it printed.
    pub failure: Option<String>,
}

/// Run `disksim` (DiskSim's binary) on drive `parv` with `records` as its validate trace.
pub fn run(disksim: &Path, parv: &Path, records: &[ValidateRecord]) -> Result<OracleRun, String> {
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let folder = parv.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = parv.file_name().ok_or_else(|| format!("{}: not a file name", parv.display()))?;
    let work = std::env::temp_dir().join(format!(
        "iosched-disksim-{}-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed),
        Path::new(name).file_stem().map_or("drive".into(), |s| s.to_string_lossy())
    ));
    let result = run_in(&work, disksim, folder, name.as_ref(), records);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn run_in(
    work: &Path,
    disksim: &Path,
    folder: &Path,
    parv_name: &Path,
    records: &[ValidateRecord],
) -> Result<OracleRun, String> {
    let io = |what: &str, path: &Path, e: std::io::Error| format!("{what} {}: {e}", path.display());
    std::fs::create_dir_all(work).map_err(|e| io("cannot create", work, e))?;
    let folder = folder.canonicalize().map_err(|e| io("cannot open", folder, e))?;
    for entry in std::fs::read_dir(&folder).map_err(|e| io("cannot list", &folder, e))? {
        let entry = entry.map_err(|e| io("cannot list", &folder, e))?;
        // Files DiskSim writes where it runs (left in the drive's folder by a run there) are not linked: through
        // a link this run would write into them, or fail to, where one is read-only.
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == "stamps" || name == "log_sim_results.csv" || name.ends_with(".outv") {
            continue;
        }
        let target = work.join(entry.file_name());
        symlink(&entry.path(), &target).map_err(|e| io("cannot link", &target, e))?;
    }
    let trace = work.join("iosched-oracle.trace");
    // DiskSim stops as the last request completes, before its log row gets the completion time: one more request
    // (the first again, after a pause) makes every row of the trace's own requests whole.
    let mut text = disksim_validate::format(records);
    if let Some(first) = records.first() {
        let mut last = records.last().expect("not empty").clone();
        last.next_interval_us = last.next_interval_us.max(1000.0);
        let mut extra = vec![last, first.clone()];
        extra[1].next_interval_us = 0.0;
        text = disksim_validate::format(&records[..records.len() - 1]) + &disksim_validate::format(&extra);
    }
    std::fs::write(&trace, text).map_err(|e| io("cannot write", &trace, e))?;
    // DiskSim's output goes to files (not pipes it could fill while we wait), and a run that does not end (some
    // made-up traces send DiskSim into a loop) is stopped after a generous time for its length.
    let said_path = work.join("iosched-oracle.said");
    let said_file = std::fs::File::create(&said_path).map_err(|e| io("cannot write", &said_path, e))?;
    let said_err = said_file.try_clone().map_err(|e| io("cannot write", &said_path, e))?;
    let mut child = Command::new(disksim)
        .current_dir(work)
        .arg(parv_name)
        .arg("iosched-oracle.outv")
        .arg("validate")
        .arg("iosched-oracle.trace")
        .arg("0")
        .stdout(said_file)
        .stderr(said_err)
        .spawn()
        .map_err(|e| io("cannot run", disksim, e))?;
    let limit = time_limit(records.len());
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| io("cannot wait for", disksim, e))? {
            Some(status) => break Ok(status),
            None if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                break Err(format!("(did not finish within {} s)", limit.as_secs()));
            }
            None => std::thread::sleep(std::time::Duration::from_millis(2)),
        }
    };
    let log = work.join("log_sim_results.csv");
    let mut requests = if log.exists() {
        read_log(&std::fs::read_to_string(&log).map_err(|e| io("cannot read", &log, e))?)
            .map_err(|e| format!("{}: {e}", log.display()))?
    } else {
        Vec::new()
    };
    requests.truncate(records.len());
    let ended_well = status.as_ref().is_ok_and(|s| s.success());
    let failure = (!ended_well || requests.len() < records.len()).then(|| {
        let text = std::fs::read(&said_path).unwrap_or_default();
        let said: String = String::from_utf8_lossy(&text)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(5)
            .collect::<Vec<_>>()
            .join(" | ");
        let how = match &status {
            Ok(s) => format!("({s})"),
            Err(why) => why.clone(),
        };
        format!("DiskSim {how} stopped after {} of {} requests: {said}", requests.len(), records.len())
    });
    if requests.is_empty() && failure.is_none() {
        return Err("DiskSim served no request".into());
    }
    Ok(OracleRun { requests, failure })
}

/// How long a DiskSim run of `requests` requests may take before it is stopped: ten seconds and a millisecond a
/// request (DiskSim serves about 30,000 requests a second; a 300-request run takes a tenth of a second).
fn time_limit(requests: usize) -> std::time::Duration {
    std::time::Duration::from_millis(10_000 + requests as u64)
}

#[cfg(unix)]
fn symlink(from: &Path, to: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(from, to)
}

#[cfg(not(unix))]
fn symlink(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::copy(from, to).map(|_| ())
}

/// DiskSim's per-request log: a header naming the columns, then one row per request in completion order (with
/// one request outstanding, trace order).
pub fn read_log(text: &str) -> Result<Vec<OracleRequest>, String> {
    let mut lines = text.lines().enumerate();
    let (_, header) = lines.next().ok_or("empty: expected a header line")?;
    let columns: Vec<&str> = header.split(',').collect();
    let column = |name: &str| {
        columns.iter().position(|c| c.trim() == name).ok_or(format!("line 1: no '{name}' column in the header"))
    };
    let (begin, end, hit) = (column("diskCtlrTimeBegin")?, column("diskCtlrTimeEnd")?, column("diskCacheHitStatus")?);
    let mut out = Vec::new();
    for (i, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').collect();
        let number = |k: usize| -> Result<f64, String> {
            fields.get(k).and_then(|f| f.trim().parse::<f64>().ok()).filter(|v| v.is_finite()).ok_or(format!(
                "line {}: column {}: expected a number",
                i + 1,
                columns[k]
            ))
        };
        let status = fields.get(hit).ok_or(format!("line {}: too few columns", i + 1))?.trim();
        let cache = match status {
            "BUFFER_WHOLE" => "hit",
            "BUFFER_PARTIAL" => "partial",
            "BUFFER_NOMATCH" => "miss",
            "BUFFER_APPEND" => "append",
            "BUFFER_COLLISION" => "collision",
            other => other.strip_prefix("BUFFER_").unwrap_or(other),
        };
        let issued_ms = number(begin)?;
        let access_ms = number(end)? - issued_ms;
        if access_ms < 0.0 {
            // A row DiskSim did not finish (the last request of a run): what follows cannot be trusted either.
            break;
        }
        out.push(OracleRequest { issued_ms, access_ms, cache: cache.to_lowercase() });
    }
    Ok(out)
}

/// How a request relates to the one before it.
pub fn pattern(records: &[ValidateRecord], i: usize) -> &'static str {
    let Some(prev) = i.checked_sub(1).map(|p| &records[p]) else { return "random" };
    let r = &records[i];
    if r.block == prev.block + prev.blocks {
        "sequential"
    } else if r.block < prev.block + prev.blocks && prev.block < r.block + r.blocks {
        "overlapping"
    } else {
        "random"
    }
}

/// Agreement within one group of requests.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupAgreement {
    /// "read hit sequential", ...
    pub name: String,
    pub requests: usize,
    /// Requests within the tolerance of DiskSim's time.
    pub within: usize,
    /// Mean of iosched's time minus DiskSim's, ms.
    pub mean_difference_ms: f64,
}

/// iosched against DiskSim on the same requests.
#[derive(Clone, Debug)]
pub struct Conformance {
    pub tolerance_ms: f64,
    pub requests: usize,
    pub within: usize,
    /// The demerit between the two simulators' access-time distributions, bucketed as DiskSim buckets them.
    pub rms_ms: f64,
    /// The same between the requests' own times.
    pub rms_exact_ms: f64,
    pub groups: Vec<GroupAgreement>,
}

impl Conformance {
    /// Compare `simulated_ms` (iosched's, in trace order) with `oracle` on the first requests both have.
    pub fn new(
        records: &[ValidateRecord],
        simulated_ms: &[f64],
        oracle: &[OracleRequest],
        buckets: &AccessTimeBuckets,
        tolerance_ms: f64,
    ) -> Conformance {
        let n = records.len().min(simulated_ms.len()).min(oracle.len());
        let mut groups: BTreeMap<String, GroupAgreement> = BTreeMap::new();
        let mut within = 0;
        for i in 0..n {
            let op = if records[i].op == Op::Write { "write" } else { "read" };
            let name = format!("{op} {} {}", oracle[i].cache, pattern(records, i));
            let g = groups.entry(name.clone()).or_insert(GroupAgreement {
                name,
                requests: 0,
                within: 0,
                mean_difference_ms: 0.0,
            });
            let d = simulated_ms[i] - oracle[i].access_ms;
            g.requests += 1;
            g.mean_difference_ms += d;
            if d.abs() <= tolerance_ms {
                g.within += 1;
                within += 1;
            }
        }
        let mut groups: Vec<GroupAgreement> = groups.into_values().collect();
        for g in &mut groups {
            g.mean_difference_ms /= g.requests as f64;
        }
        let theirs: Vec<f64> = oracle[..n].iter().map(|o| o.access_ms).collect();
        let ours = &simulated_ms[..n];
        let rms_ms = demerit_of_printed(
            &buckets.simulated.printed_cumulative(ours),
            &buckets.simulated.printed_cumulative(&theirs),
        );
        Conformance { tolerance_ms, requests: n, within, rms_ms, rms_exact_ms: demerit(ours, &theirs), groups }
    }

    /// The share of requests within the tolerance.
    pub fn share_within(&self) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.within as f64 / self.requests as f64
        }
    }
}

/// Runs made by `trace(seed)` for seeds `seed`, `seed + 1`, ... (`runs` of them), one after the other, and where
/// each run starts and ends.
fn runs_of_seeds(
    runs: u64,
    seed: u64,
    trace: impl Fn(u64) -> Vec<ValidateRecord>,
) -> (Vec<ValidateRecord>, Vec<std::ops::Range<usize>>) {
    let mut records = Vec::new();
    let mut ranges = Vec::new();
    for s in seed..seed.saturating_add(runs) {
        let start = records.len();
        records.extend(trace(s));
        ranges.push(start..records.len());
    }
    (records, ranges)
}

/// `runs` synthetic traces of `requests` requests each for a drive (seeds `seed`, `seed + 1`, ...), one after the
/// other, and where each run starts and ends. No request is larger than a segment (nor 256 blocks): DiskSim itself
/// fails assertions on some of those (a 128-block write appending to 64-block segments, for one).
pub fn synthetic_runs(
    params: &HddParams,
    requests: usize,
    runs: u64,
    seed: u64,
) -> (Vec<ValidateRecord>, Vec<std::ops::Range<usize>>) {
    let largest = largest_synthetic_request_blocks(Some(params.cache.segment_blocks));
    synthetic_runs_within(params.layout.blocks(), largest, requests, runs, seed)
}

/// The largest request [`synthetic_runs`] makes for a drive whose cache segment holds `segment_blocks` (None: a
/// drive without a cache): a segment, at most 256 blocks.
pub fn largest_synthetic_request_blocks(segment_blocks: Option<u64>) -> u64 {
    segment_blocks.map_or(256, |s| s.clamp(1, 256))
}

/// [`synthetic_runs`] for a drive of `blocks` blocks, no request larger than `largest` blocks.
pub fn synthetic_runs_within(
    blocks: u64,
    largest: u64,
    requests: usize,
    runs: u64,
    seed: u64,
) -> (Vec<ValidateRecord>, Vec<std::ops::Range<usize>>) {
    runs_of_seeds(runs, seed, |s| disksim_validate::synthetic(blocks, largest, requests, s))
}

/// `runs` synthetic traces of `requests` reads larger than the drive's segment (see
/// [`disksim_validate::synthetic_large_reads`]), seeds `seed`, `seed + 1`, ..., and where each run starts and ends.
pub fn synthetic_large_read_runs(
    params: &HddParams,
    requests: usize,
    runs: u64,
    seed: u64,
) -> (Vec<ValidateRecord>, Vec<std::ops::Range<usize>>) {
    let (blocks, segment) = (params.layout.blocks(), params.cache.segment_blocks);
    runs_of_seeds(runs, seed, |s| disksim_validate::synthetic_large_reads(blocks, segment, requests, s))
}

/// iosched's disk model and DiskSim on the same runs of requests.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// What DiskSim made of each request compared, runs one after the other.
    pub disksim: Vec<OracleRequest>,
    /// iosched's access time of each, ms, the request issued when DiskSim issued it.
    pub simulated_ms: Vec<f64>,
    pub conformance: Conformance,
    /// Why DiskSim stopped before the end of a run, per run that did.
    pub failures: Vec<String>,
}

/// Run each of `runs` (slices of `records`) through DiskSim (`disksim`, on drive `parv`) and through a fresh
/// [`Hdd`] built from `params`, each request issued when DiskSim issued it so that one difference does not move
/// every later request against the rotation, and compare them.
pub fn compare(
    disksim: &Path,
    parv: &Path,
    params: &HddParams,
    records: &[ValidateRecord],
    runs: &[std::ops::Range<usize>],
    buckets: &AccessTimeBuckets,
    tolerance_ms: f64,
) -> Result<Comparison, String> {
    let mut served = Vec::new();
    let mut ours = Vec::new();
    let mut compared = Vec::new();
    let mut failures = Vec::new();
    for (k, r) in runs.iter().enumerate() {
        let slice = &records[r.clone()];
        let run = run(disksim, parv, slice)?;
        if let Some(f) = run.failure {
            failures.push(format!("run {}: {f}", k + 1));
        }
        let issued: Vec<f64> = run.requests.iter().map(|o| o.issued_ms).collect();
        ours.extend(replay_issued_at(&mut Hdd::new(params.clone()), slice, &issued));
        compared.extend_from_slice(&slice[..run.requests.len()]);
        served.extend(run.requests);
    }
    if served.is_empty() {
        return Err(failures.first().cloned().unwrap_or_else(|| "DiskSim served no request".into()));
    }
    let conformance = Conformance::new(&compared, &ours, &served, buckets, tolerance_ms);
    Ok(Comparison { disksim: served, simulated_ms: ours, conformance, failures })
}

/// Where DiskSim's binary is when built by ../shared/peers/build.sh into `dest`.
pub fn built_binary(dest: &Path) -> PathBuf {
    dest.join("disksim/src/disksim")
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "diskCtlrTimeBegin,diskCtlrTimeEnd,diskCtlrQueueDepth,diskCacheHitStatus,CCT\n\
                       0.000000,8.086286,0,BUFFER_NOMATCH,8.0\n\
                       64.160286,64.436286,0,BUFFER_WHOLE,0.2\n";

    #[test]
    fn reads_disksims_log_and_refuses_a_broken_one() {
        let rows = read_log(LOG).unwrap();
        assert_eq!(rows.len(), 2);
        assert!((rows[0].access_ms - 8.086286).abs() < 1e-9 && rows[0].cache == "miss");
        assert!((rows[1].access_ms - 0.276).abs() < 1e-9 && rows[1].cache == "hit");
        assert!(read_log("").unwrap_err().contains("header"));
        assert!(read_log("a,b\n1,2\n").unwrap_err().contains("diskCtlrTimeBegin"));
        let bad = LOG.replace("8.086286", "soon");
        assert!(read_log(&bad).unwrap_err().starts_with("line 2: column diskCtlrTimeEnd"));
    }

    #[test]
    fn groups_requests_and_counts_those_within_the_tolerance() {
        let rec = |op, block, blocks| ValidateRecord {
            op,
            buffer_action: iosched_workload::trace::disksim_validate::BufferAction::Miss,
            block,
            blocks,
            measured_us: 0.0,
            next_interval_us: 0.0,
        };
        let records = vec![rec(Op::Read, 100, 8), rec(Op::Read, 108, 8), rec(Op::Read, 110, 2), rec(Op::Write, 5, 1)];
        let oracle: Vec<OracleRequest> = [(8.0, "miss"), (0.5, "hit"), (0.3, "hit"), (1.0, "miss")]
            .into_iter()
            .map(|(access_ms, cache)| OracleRequest { issued_ms: 0.0, access_ms, cache: cache.into() })
            .collect();
        let c = Conformance::new(&records, &[8.01, 0.5, 0.5, 1.0], &oracle, &AccessTimeBuckets::disksim(), 0.05);
        assert_eq!((c.requests, c.within), (4, 3));
        let names: Vec<&str> = c.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["read hit overlapping", "read hit sequential", "read miss random", "write miss random"]);
        assert!((c.groups[0].mean_difference_ms - 0.2).abs() < 1e-9 && c.groups[0].within == 0);
        assert!(c.rms_exact_ms > 0.0 && c.rms_exact_ms < 0.2);
        // Only what both have is compared.
        assert_eq!(Conformance::new(&records, &[8.0, 0.5], &oracle, &AccessTimeBuckets::disksim(), 0.05).requests, 2);
    }
}
