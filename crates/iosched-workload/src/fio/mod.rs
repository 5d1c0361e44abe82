//! The fio job-file reader.
//!
//! INI-style: `[global]` sections set defaults for the jobs defined after them; every other `[section]` is a
//! job named after it; `key=value` or bare flags; `;` and `#` comments. Options are applied in order, so a job
//! inherits what the globals before it said and overrides it with its own.
//!
//! `include FILE` reads another job file in place (a relative path is relative to the including file).
//!
//! This reader knows fio's block-I/O options (see [`catalogue`] and [`SUPPORTED`]). An option it does not support is rejected by
//! name with file and line, never silently ignored; options that do not change what reaches the device in a
//! simulation (a description, submission batching) are accepted and listed in
//! [`ACCEPTED_WITHOUT_EFFECT`] with the reason.

pub mod catalogue;
pub mod values;

pub use catalogue::{ACCEPTED_WITHOUT_EFFECT, REFUSED, SUPPORTED};
use catalogue::{ASYNC_ENGINES, NON_BLOCK_ENGINES, NON_BLOCK_OPTIONS, SYNC_ENGINES, VERIFY_METHODS};

use crate::job::{
    BlockSizes, CmdprioSplit, Distribution, Engine, ExitWhat, FileService, IoLimit, JobSpec, LatencyTarget, Location,
    RateProcess, RwMode, SgWriteMode, SizeSpec, SteadyStateCriterion, SteppedDepth, WrittenOption,
};
use iosched_core::request::{IoClass, LEVEL_MAX};
use std::path::Path;
use values::{parse_bool, parse_int, parse_percent, parse_size, parse_time_ns, TimeUnit};

/// A problem in a job file, with where it is.
pub type JobFileError = iosched_core::input::InputError;

/// The largest I/O priority hint (Linux's 10-bit IOPRIO_HINT field).
const MAX_PRIORITY_HINT: u64 = 1023;

/// Most ranges in one trim command (fio's MAX_TRIM_RANGE, NVMe's Dataset Management limit).
const MAX_TRIM_RANGES: u64 = 256;

/// I/O engines that send a trim of several ranges as one command (fio 3.41's FIO_MULTI_RANGE_TRIM: io_uring_cmd
/// only).
const MULTI_RANGE_TRIM_ENGINES: &[&str] = &["io_uring_cmd"];

/// How deep `include` may nest (a cycle stops here with an error).
const MAX_INCLUDE_DEPTH: usize = 16;

/// Read a job file.
pub fn parse_file(path: &Path) -> Result<Vec<JobSpec>, JobFileError> {
    parse_file_sections(path, &[])
}

/// Read a job file's [global] sections and the jobs named in `sections` (fio's --section; empty: every job).
/// A job's section that is not selected is skipped unread, as fio skips it.
pub fn parse_file_sections(path: &Path, sections: &[String]) -> Result<Vec<JobSpec>, JobFileError> {
    let text = iosched_core::input::read_text(path, "job file")?;
    let mut reader = Reader { only: sections.to_vec(), ..Reader::default() };
    reader.feed(&text, &path.display().to_string(), path.parent(), 0)?;
    reader.finish(&text, &path.display().to_string())
}

/// Read job-file text; `file` names it in errors. An `include` is resolved against the working directory.
pub fn parse_str(text: &str, file: &str) -> Result<Vec<JobSpec>, JobFileError> {
    let mut reader = Reader::default();
    reader.feed(text, file, None, 0)?;
    reader.finish(text, file)
}

/// The reader's state across included files.
#[derive(Default)]
struct Reader {
    global: JobSpec,
    jobs: Vec<JobSpec>,
    /// The section being read: None before the first, Some(None) in [global], Some(Some(i)) in job i.
    section: Option<Option<usize>>,
    /// The job sections to read (fio's --section); empty: all.
    only: Vec<String>,
    /// In a job section that `only` leaves out: its lines are skipped (and `section` is None, the job before
    /// it having been checked).
    skipping: bool,
}

impl Reader {
    fn feed(&mut self, text: &str, file: &str, dir: Option<&Path>, depth: usize) -> Result<(), JobFileError> {
        for (index, raw) in text.lines().enumerate() {
            let location = Location { file: file.to_string(), line: index + 1 };
            let err = |message: String| JobFileError { location: location.clone(), message };
            let line = strip_comment(raw).trim();
            if line.is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix('[') {
                let name = rest
                    .strip_suffix(']')
                    .ok_or_else(|| err(format!("expected a section header like [name], found '{line}'")))?
                    .trim();
                if name.is_empty() {
                    return Err(err("empty section name".to_string()));
                }
                if let Some(Some(previous)) = self.section {
                    check_job(&self.jobs[previous])?;
                }
                self.skipping = name != "global" && !self.only.is_empty() && !self.only.iter().any(|s| s == name);
                if self.skipping {
                    self.section = None;
                    continue;
                }
                if name == "global" {
                    self.section = Some(None);
                } else {
                    let mut job = self.global.clone();
                    job.name = name.to_string();
                    job.defined_at = location.clone();
                    self.jobs.push(job);
                    self.section = Some(Some(self.jobs.len() - 1));
                }
                continue;
            }
            if self.skipping {
                continue;
            }
            if let Some(included) = line.strip_prefix("include ") {
                if depth >= MAX_INCLUDE_DEPTH {
                    return Err(err(format!("include nested more than {MAX_INCLUDE_DEPTH} deep (a cycle?)")));
                }
                let included = included.trim();
                let path = match dir {
                    Some(d) if Path::new(included).is_relative() => d.join(included),
                    _ => Path::new(included).to_path_buf(),
                };
                let inner = iosched_core::input::read_text(&path, "included job file")
                    .map_err(|e| err(format!("include {included}: {}", e.message)))?;
                self.feed(&inner, &path.display().to_string(), path.parent(), depth + 1)?;
                continue;
            }
            let (key, value) = match line.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (line, None),
            };
            let (expanded, unset) = value.map(expand_environment).unzip();
            let value = expanded.as_deref();
            let unset = unset.unwrap_or_default();
            let (target, in_global) = match self.section {
                None => return Err(err(format!("option '{key}' before any [section]"))),
                Some(None) => (&mut self.global, true),
                Some(Some(i)) => (&mut self.jobs[i], false),
            };
            apply_option(target, key, value).map_err(|e| match unset.is_empty() {
                true => err(e),
                false => err(format!("{e} (fio puts nothing for ${{{}}}, which is not set)", unset.join("}, ${"))),
            })?;
            target.written.push(WrittenOption {
                key: key.to_string(),
                value: value.unwrap_or("").to_string(),
                location: location.clone(),
                in_global,
            });
        }
        Ok(())
    }

    fn finish(self, text: &str, file: &str) -> Result<Vec<JobSpec>, JobFileError> {
        if let Some(Some(last)) = self.section {
            check_job(&self.jobs[last])?;
        }
        // wait_for names a job defined before the waiter, as fio requires.
        for (index, job) in self.jobs.iter().enumerate() {
            if let Some(waitee) = &job.wait_for {
                if !self.jobs[..index].iter().any(|j| &j.name == waitee) {
                    return Err(JobFileError {
                        location: job.location_of("wait_for").cloned().unwrap_or(job.defined_at.clone()),
                        message: format!(
                            "wait_for: expected the name of a job defined before '{}', found '{waitee}'",
                            job.name
                        ),
                    });
                }
            }
        }
        if self.jobs.is_empty() {
            let message = if self.only.is_empty() {
                "no jobs: expected at least one [section] other than [global]".to_string()
            } else {
                format!("no job section named {} (--section)", self.only.join(" or "))
            };
            return Err(JobFileError {
                location: Location { file: file.to_string(), line: text.lines().count().max(1) },
                message,
            });
        }
        Ok(self.jobs)
    }
}

/// fio's environment variables in an option's value: `${NAME}` is replaced by the variable's value, or by
/// nothing when it is not set, as fio does. Returns the value and the names that were not set (an error in the
/// option then names them: fio's xnvme examples need FIO_BS, FIO_RW, FIO_IODEPTH).
fn expand_environment(value: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(value.len());
    let mut unset = Vec::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else { break };
        let name = &rest[start + 2..start + 2 + len];
        out.push_str(&rest[..start]);
        match std::env::var(name) {
            Ok(v) => out.push_str(&v),
            Err(_) => unset.push(name.to_string()),
        }
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    (out, unset)
}

/// Drop a `;` or `#` comment: a whole line, or the rest of a line after whitespace.
fn strip_comment(line: &str) -> &str {
    let trimmed = line.trim_start();
    if trimmed.starts_with(';') || trimmed.starts_with('#') {
        return "";
    }
    let bytes = line.as_bytes();
    for i in 1..bytes.len() {
        if (bytes[i] == b';' || bytes[i] == b'#') && bytes[i - 1].is_ascii_whitespace() {
            return &line[..i];
        }
    }
    line
}

/// A size or a percentage of the device.
fn size_or_percent(v: &str) -> Result<SizeSpec, String> {
    match parse_percent(v) {
        Some(p) => Ok(SizeSpec::Percent(p?)),
        None => Ok(SizeSpec::Bytes(parse_size(v)?)),
    }
}

/// fio's per-direction list `read[,write[,trim]]`: a missing or empty entry repeats the one before it.
fn per_direction<T: Copy>(v: &str, parse: impl Fn(&str) -> Result<T, String>) -> Result<[T; 3], String> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 3 {
        return Err(format!("one to three values (read,write,trim), found '{v}'"));
    }
    let first = parts[0].trim();
    if first.is_empty() {
        return Err(format!("a value for reads first, found '{v}'"));
    }
    let mut out = [parse(first)?; 3];
    for i in 1..3 {
        out[i] = match parts.get(i).map(|p| p.trim()).filter(|p| !p.is_empty()) {
            Some(p) => parse(p)?,
            None => out[i - 1],
        };
    }
    Ok(out)
}

fn nonzero_size(v: &str) -> Result<u64, String> {
    match parse_size(v)? {
        0 => Err(format!("a size above 0, found '{v}'")),
        n => Ok(n),
    }
}

/// bsrange's `min-max` (one per direction).
fn parse_range(v: &str) -> Result<(u64, u64), String> {
    let (lo, hi) = v.split_once('-').ok_or_else(|| format!("a range such as 4k-64k, found '{v}'"))?;
    let (lo, hi) = (nonzero_size(lo)?, nonzero_size(hi)?);
    if lo > hi {
        return Err(format!("a range with min <= max, found '{v}'"));
    }
    if hi % lo != 0 {
        return Err(format!("a range whose max is a multiple of its min, found '{v}'"));
    }
    Ok((lo, hi))
}

/// bssplit for one direction: `size/percent:size/percent...`; entries without a percentage share what is left.
fn parse_split(v: &str) -> Result<BlockSizes, String> {
    let mut fixed = Vec::new();
    let mut open = Vec::new();
    for entry in v.split(':').map(str::trim).filter(|e| !e.is_empty()) {
        match entry.split_once('/') {
            Some((size, percent)) if !percent.trim().is_empty() => {
                fixed.push((nonzero_size(size)?, parse_int(percent, 0, 100)? as u32))
            }
            Some((size, _)) => open.push(nonzero_size(size)?),
            None => open.push(nonzero_size(entry)?),
        }
    }
    let given: u32 = fixed.iter().map(|(_, p)| *p).sum();
    if given > 100 || (open.is_empty() && given != 100) {
        return Err(format!("shares that add up to 100, found '{v}'"));
    }
    if !open.is_empty() {
        let left = 100 - given;
        let each = left / open.len() as u32;
        for (i, size) in open.iter().enumerate() {
            // The first open entries take the remainder of the division.
            let extra = (i as u32) < left % open.len() as u32;
            fixed.push((*size, each + extra as u32));
        }
    }
    fixed.retain(|(_, p)| *p > 0);
    if fixed.is_empty() {
        return Err(format!("at least one block size with a share above 0, found '{v}'"));
    }
    Ok(BlockSizes::Split(fixed))
}

fn parse_f64(v: &str, what: &str, ok: impl Fn(f64) -> bool) -> Result<f64, String> {
    v.trim().parse::<f64>().ok().filter(|x| x.is_finite() && ok(*x)).ok_or_else(|| format!("{what}, found '{v}'"))
}

/// `iops:2`, `iops:0.2%`, `bw:...`, `iops_slope:0.1%`, `bw_slope:...`.
fn parse_steadystate(v: &str) -> Result<SteadyStateCriterion, String> {
    let wanted =
        || format!("iops, iops_slope, bw or bw_slope, a colon and a limit (e.g. iops_slope:0.1%), found '{v}'");
    let (kind, limit) = v.split_once(':').ok_or_else(wanted)?;
    let (bandwidth, slope) = match kind {
        "iops" => (false, false),
        "iops_slope" => (false, true),
        "bw" => (true, false),
        "bw_slope" => (true, true),
        _ => return Err(wanted()),
    };
    let (number, percent) = match limit.strip_suffix('%') {
        Some(n) => (n, true),
        None => (limit, false),
    };
    let limit = parse_f64(number, "a limit of 0 or more", |x| x >= 0.0).map_err(|_| wanted())?;
    Ok(SteadyStateCriterion { bandwidth, slope, limit, percent })
}

/// fio's file_service_type (options.c's str_fst_cb): `roundrobin`, `random` or `sequential` with an optional
/// count of I/Os per file (`random:8`), or `zipf`, `pareto`, `normal`/`gauss` with an optional skew (defaults as
/// fio's: theta 1.1, h 0.2, dev 0). fio's gauss draws the file as the mean of twelve uniform draws, plus a uniform
/// spread of `dev` per cent of the files when dev is given: modelled as the normal distribution of a deviation of
/// one twelfth of the files (dev 0) or dev per cent, as `random_distribution=normal` models fio's.
fn parse_file_service(v: &str) -> Result<FileService, String> {
    let (kind, arg) = match v.split_once(':') {
        Some((k, a)) => (k.trim(), Some(a.trim())),
        None => (v.trim(), None),
    };
    let per_pick = || -> Result<u32, String> {
        arg.map_or(Ok(1), |a| parse_int(a, 1, u32::MAX as u64).map(|n| n as u32).map_err(|e| format!("{kind}:N, {e}")))
    };
    if arg.is_some_and(|a| a.contains(':')) {
        return Err(format!("one value after '{kind}:' (a centre for the distribution is not modelled), found '{v}'"));
    }
    let skew = |default: f64, what: &str, ok: fn(f64) -> bool| -> Result<f64, String> {
        arg.map_or(Ok(default), |a| parse_f64(a, what, ok))
    };
    Ok(match kind {
        "roundrobin" => FileService::RoundRobin { per_pick: per_pick()? },
        "random" => FileService::Random { per_pick: per_pick()? },
        "sequential" => {
            per_pick()?;
            FileService::Sequential
        }
        "zipf" => FileService::Skewed(Distribution::Zipf {
            theta: skew(1.1, "zipf:theta with theta > 0 and not 1", |t| t > 0.0 && t != 1.0)?,
        }),
        "pareto" => FileService::Skewed(Distribution::Pareto {
            h: skew(0.2, "pareto:h with 0 < h < 1", |h| h > 0.0 && h < 1.0)?,
        }),
        "normal" | "gauss" => {
            let dev = skew(0.0, "normal:dev with 0 <= dev <= 100", |d| (0.0..=100.0).contains(&d))?;
            FileService::Skewed(Distribution::Normal { sd_percent: if dev == 0.0 { 100.0 / 12.0 } else { dev } })
        }
        _ => {
            return Err(format!(
                "roundrobin, random or sequential (each with an optional ':N'), or zipf, pareto or normal (each \
                 with an optional ':skew'), found '{v}'"
            ))
        }
    })
}

fn parse_distribution(v: &str) -> Result<Distribution, String> {
    let (kind, arg) = match v.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (v, None),
    };
    let need = |what: &str| arg.ok_or_else(|| format!("{kind}:{what}, found '{v}'"));
    Ok(match kind {
        "random" => Distribution::Uniform,
        "zipf" => Distribution::Zipf {
            theta: parse_f64(need("theta")?, "zipf:theta with theta > 0 and not 1", |t| t > 0.0 && t != 1.0)?,
        },
        "pareto" => {
            Distribution::Pareto { h: parse_f64(need("h")?, "pareto:h with 0 < h < 1", |h| h > 0.0 && h < 1.0)? }
        }
        "normal" | "gauss" => Distribution::Normal {
            sd_percent: parse_f64(need("sd")?, "normal:sd with 0 < sd <= 100", |d| d > 0.0 && d <= 100.0)?,
        },
        "zoned" => {
            // A zone whose size is left empty ("20/") takes what the others leave, shared evenly when several
            // do, as fio fills an empty share (its rand-zones example ends with one).
            let mut zones: Vec<(f64, Option<f64>)> = Vec::new();
            for zone in need("access/size:...")?.split(':').filter(|z| !z.trim().is_empty()) {
                let (access, size) =
                    zone.split_once('/').ok_or_else(|| format!("zones as access%/size%, found '{zone}'"))?;
                let access = parse_f64(access, "an access share from 0 to 100", |x| (0.0..=100.0).contains(&x))?;
                let size = match size.trim() {
                    "" => None,
                    size => Some(parse_f64(size, "a size share from 0 to 100", |x| x > 0.0 && x <= 100.0)?),
                };
                zones.push((access, size));
            }
            let given: f64 = zones.iter().filter_map(|z| z.1).sum();
            let empty = zones.iter().filter(|z| z.1.is_none()).count();
            if empty > 0 && given >= 100.0 {
                return Err(format!("sizes that leave room for the zones whose size is empty, found '{v}'"));
            }
            let zones: Vec<(f64, f64)> =
                zones.into_iter().map(|(a, s)| (a, s.unwrap_or((100.0 - given) / empty.max(1) as f64))).collect();
            let access: f64 = zones.iter().map(|z| z.0).sum();
            let size: f64 = zones.iter().map(|z| z.1).sum();
            if zones.is_empty() || (access - 100.0).abs() > 1e-6 || size > 100.0 + 1e-6 {
                return Err(format!("zones whose access shares add up to 100 and sizes to at most 100, found '{v}'"));
            }
            Distribution::Zoned(zones)
        }
        "sequence" => {
            let blocks = need("i,j,...")?
                .split(',')
                .map(|b| parse_int(b.trim(), 0, u64::MAX))
                .collect::<Result<Vec<u64>, String>>()
                .map_err(|e| format!("sequence:i,j,... of block indices: {e}"))?;
            Distribution::Sequence(blocks)
        }
        _ => {
            return Err(format!("random, zipf:T, pareto:H, normal:SD, zoned:A/S:... or sequence:I,J,..., found '{v}'"))
        }
    })
}

/// An I/O priority class as fio numbers them: 1 real-time, 2 best-effort, 3 idle.
fn parse_ioprio_class(v: &str) -> Result<IoClass, String> {
    let n = parse_int(v, 1, 3)?;
    Ok(IoClass::from_ioprio_class(n as u32).unwrap_or(IoClass::Rt))
}

/// fio's cmdprio_bssplit: per direction (read,write; a trim list is ignored, as fio does) entries
/// `size/percent`, `size/percent/class/level` or (fio 3.41) `size/percent/class/level/hint` joined by ':'; the
/// shares of one block size add up to at most 100.
fn parse_cmdprio_bssplit(v: &str) -> Result<[Vec<CmdprioSplit>; 2], String> {
    let lists: Vec<&str> = v.split(',').collect();
    if lists.len() > 3 || lists[0].trim().is_empty() {
        return Err(format!("one to three split lists (read,write,trim), found '{v}'"));
    }
    let parse_list = |list: &str| -> Result<Vec<CmdprioSplit>, String> {
        let mut out = Vec::new();
        for entry in list.split(':').map(str::trim).filter(|e| !e.is_empty()) {
            let fields: Vec<&str> = entry.split('/').map(str::trim).collect();
            // The fifth field (fio 3.41) is a priority hint, read and not modelled (see cmdprio_hint).
            let class_level = match fields.len() {
                2 => None,
                4 | 5 => {
                    if let Some(hint) = fields.get(4) {
                        parse_int(hint, 0, MAX_PRIORITY_HINT)?;
                    }
                    Some((parse_ioprio_class(fields[2])?, parse_int(fields[3], 0, LEVEL_MAX as u64)? as u8))
                }
                _ => {
                    return Err(format!(
                        "entries size/percent, size/percent/class/level or size/percent/class/level/hint, found \
                         '{entry}'"
                    ))
                }
            };
            out.push(CmdprioSplit {
                block_bytes: nonzero_size(fields[0])?,
                percent: parse_int(fields[1], 0, 100)? as u32,
                class_level,
            });
        }
        // As fio's engines/cmdprio.c: the shares of one block size add up to at most 100.
        for e in &out {
            let total: u32 = out.iter().filter(|o| o.block_bytes == e.block_bytes).map(|o| o.percent).sum();
            if total > 100 {
                return Err(format!(
                    "shares of one block size ({}) that add up to at most 100, found '{list}'",
                    e.block_bytes
                ));
            }
        }
        Ok(out)
    };
    let read = parse_list(lists[0])?;
    let write = match lists.get(1).filter(|l| !l.trim().is_empty()) {
        Some(l) => parse_list(l)?,
        None => read.clone(),
    };
    Ok([read, write])
}

/// Give one option its meaning in `job`. The error says what was expected.
fn apply_option(job: &mut JobSpec, key: &str, value: Option<&str>) -> Result<(), String> {
    let need = || value.ok_or_else(|| format!("option '{key}' needs a value ({key}=...)"));
    let flag = || value.map_or(Ok(true), parse_bool).map_err(|e| format!("{key}: expected {e}"));
    let expected = |e: String| format!("{key}: expected {e}");
    match key {
        "name" => job.name = need()?.to_string(),
        "rw" | "readwrite" => {
            let v = need()?;
            let (mode, suffix) = match v.split_once(':') {
                Some((m, n)) => (m, Some(n)),
                None => (v, None),
            };
            let (rw, random) = match mode {
                "read" => (RwMode::Read, false),
                "write" => (RwMode::Write, false),
                "trim" => (RwMode::Trim, false),
                "randread" => (RwMode::Read, true),
                "randwrite" => (RwMode::Write, true),
                "randtrim" => (RwMode::Trim, true),
                "rw" | "readwrite" => (RwMode::ReadWrite, false),
                "randrw" => (RwMode::ReadWrite, true),
                "trimwrite" => (RwMode::TrimWrite, false),
                "randtrimwrite" => (RwMode::TrimWrite, true),
                _ => {
                    return Err(expected(format!(
                        "read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, trimwrite or \
                         randtrimwrite, optionally with :N, found '{v}'"
                    )))
                }
            };
            job.rw = rw;
            job.random_percent = if random { 100 } else { 0 };
            // fio: for sequential I/O the suffix is a size to skip; for random I/O a count of I/Os per offset.
            (job.rw_suffix, job.rw_back_bytes) = match suffix {
                None => (0, 0),
                Some(n) if random => (parse_int(n, 1, u32::MAX as u64).map_err(expected)?, 0),
                Some(n) => match n.strip_prefix('-') {
                    Some(back) => (0, parse_size(back).map_err(expected)?),
                    None => (parse_size(n).map_err(expected)?, 0),
                },
            };
        }
        "rw_sequencer" => {
            job.sequencer_identical = match need()? {
                "sequential" => false,
                "identical" => true,
                v => return Err(expected(format!("sequential or identical, found '{v}'"))),
            }
        }
        "rwmixread" => job.rwmix_read_percent = parse_int(need()?, 0, 100).map_err(expected)? as u32,
        "rwmixwrite" => job.rwmix_read_percent = 100 - parse_int(need()?, 0, 100).map_err(expected)? as u32,
        "percentage_random" => {
            // One value per direction in fio; iosched applies the reads' value to every direction.
            let v = per_direction(need()?, |p| parse_int(p, 0, 100)).map_err(expected)?;
            if v[0] != v[1] || v[1] != v[2] {
                return Err(format!("{key}: different values per direction are not supported, found '{}'", need()?));
            }
            job.random_percent = v[0] as u32;
        }
        "bs" | "blocksize" => {
            job.block_sizes = per_direction(need()?, nonzero_size).map_err(expected)?.map(BlockSizes::Fixed);
        }
        "bsrange" | "blocksize_range" => {
            job.block_sizes = per_direction(need()?, parse_range).map_err(expected)?.map(|(min, max)| {
                if min == max {
                    BlockSizes::Fixed(min)
                } else {
                    BlockSizes::Range { min, max }
                }
            });
        }
        "bssplit" => {
            let v = need()?;
            let parts: Vec<&str> = v.split(',').collect();
            if parts.len() > 3 || parts[0].trim().is_empty() {
                return Err(expected(format!("one to three split lists (read,write,trim), found '{v}'")));
            }
            let read = parse_split(parts[0]).map_err(expected)?;
            let write = match parts.get(1).filter(|p| !p.trim().is_empty()) {
                Some(p) => parse_split(p).map_err(expected)?,
                None => read.clone(),
            };
            let trim = match parts.get(2).filter(|p| !p.trim().is_empty()) {
                Some(p) => parse_split(p).map_err(expected)?,
                None => write.clone(),
            };
            job.block_sizes = [read, write, trim];
        }
        "blockalign" | "ba" => job.block_align_bytes = Some(per_direction(need()?, nonzero_size).map_err(expected)?),
        "size" => {
            let v = need()?;
            job.size = Some(size_or_percent(v).map_err(expected)?);
            if job.size == Some(SizeSpec::Bytes(0)) {
                return Err(expected(format!("a size above 0, found '{v}'")));
            }
        }
        // offset=0% is the start of the device (fio's FDP example gives its first job that).
        "offset" => {
            let v = need()?;
            job.offset = match v.trim().strip_suffix('%').map(str::trim) {
                Some("0") => SizeSpec::Bytes(0),
                _ => size_or_percent(v).map_err(expected)?,
            }
        }
        "offset_increment" => job.offset_increment = size_or_percent(need()?).map_err(expected)?,
        "filesize" => {
            let v = need()?;
            if v.contains('-') {
                return Err(format!("{key}: a range of file sizes is not supported, found '{v}'"));
            }
            job.filesize = Some(SizeSpec::Bytes(nonzero_size(v).map_err(expected)?));
        }
        "nrfiles" => job.nrfiles = parse_int(need()?, 1, 1 << 20).map_err(expected)? as u32,
        "file_service_type" => job.file_service = parse_file_service(need()?).map_err(expected)?,
        "io_size" | "io_limit" => {
            job.io_limit = match size_or_percent(need()?).map_err(expected)? {
                SizeSpec::Bytes(b) => IoLimit::Bytes(b),
                SizeSpec::Percent(p) => IoLimit::RegionPercent(p),
            }
        }
        "number_ios" => job.io_limit = IoLimit::Ios(parse_int(need()?, 1, u64::MAX).map_err(expected)?),
        "loops" => job.loops = parse_int(need()?, 1, u32::MAX as u64).map_err(expected)? as u32,
        "iodepth" => job.iodepth = parse_int(need()?, 1, 65536).map_err(expected)? as u32,
        "iodepth_low" => job.iodepth_low = Some(parse_int(need()?, 0, 65536).map_err(expected)? as u32),
        "ioengine" => {
            let v = need()?;
            job.engine = if SYNC_ENGINES.contains(&v) {
                Engine { name: v.to_string(), synchronous: true }
            } else if ASYNC_ENGINES.contains(&v) {
                Engine { name: v.to_string(), synchronous: false }
            } else if NON_BLOCK_ENGINES.contains(&v) {
                return Err(format!("ioengine={v} does not do block I/O; iosched simulates block I/O only"));
            } else {
                return Err(expected(format!(
                    "one of {}, {}, found '{v}'",
                    SYNC_ENGINES.join(", "),
                    ASYNC_ENGINES.join(", ")
                )));
            };
        }
        "direct" => job.direct = flag()?,
        "filename" => job.filename = Some(need()?.to_string()),
        "buffered" => job.direct = !flag()?,
        "sync" => {
            job.sync_writes = match value {
                Some("sync") | Some("dsync") => true,
                Some("none") => false,
                _ => flag().map_err(|_| {
                    expected(format!("0, 1, none, sync or dsync, found '{}'", need().unwrap_or_default()))
                })?,
            }
        }
        "fsync" | "fdatasync" => {
            job.fsync_every_writes = parse_int(need()?, 0, u32::MAX as u64).map_err(expected)? as u32
        }
        "end_fsync" => job.end_fsync = flag()?,
        "fsync_on_close" => job.fsync_on_close = flag()?,
        "runtime" | "timeout" => {
            let ns = parse_time_ns(need()?, TimeUnit::Seconds).map_err(expected)?;
            // fio: runtime=0 means no limit.
            job.runtime_ns = if ns == 0 { None } else { Some(ns) };
        }
        "time_based" => job.time_based = flag()?,
        "ramp_time" => job.ramp_ns = parse_time_ns(need()?, TimeUnit::Seconds).map_err(expected)?,
        "startdelay" => {
            let v = need()?;
            if v.contains('-') {
                return Err(format!("{key}: a random range of delays is not supported, found '{v}'"));
            }
            job.startdelay_ns = parse_time_ns(v, TimeUnit::Seconds).map_err(expected)?
        }
        "thinktime" => job.thinktime_ns = parse_time_ns(need()?, TimeUnit::Microseconds).map_err(expected)?,
        "thinktime_blocks" => job.thinktime_blocks = parse_int(need()?, 1, u32::MAX as u64).map_err(expected)? as u32,
        // Spinning is part of the think time and costs the same in simulated time.
        "thinktime_spin" => job.thinktime_spin_ns = parse_time_ns(need()?, TimeUnit::Microseconds).map_err(expected)?,
        "rate" => job.rate_bytes_per_s = per_direction(need()?, parse_size).map_err(expected)?,
        "rate_iops" => {
            job.rate_iops = per_direction(need()?, |v| parse_int(v, 0, u32::MAX as u64)).map_err(expected)?
        }
        "rate_min" | "ratemin" => job.rate_min_bytes_per_s = per_direction(need()?, parse_size).map_err(expected)?,
        "max_latency" => {
            job.max_latency_ns =
                per_direction(need()?, |v| parse_time_ns(v, TimeUnit::Microseconds)).map_err(expected)?
        }
        "rate_iops_min" => {
            job.rate_iops_min = per_direction(need()?, |v| parse_int(v, 0, u32::MAX as u64)).map_err(expected)?
        }
        "rate_process" => {
            job.rate_process = match need()? {
                "linear" => RateProcess::Linear,
                "poisson" => RateProcess::Poisson,
                v => return Err(expected(format!("linear or poisson, found '{v}'"))),
            }
        }
        "ratecycle" | "rate_cycle" => {
            let ms = parse_int(need()?, 1, 3_600_000).map_err(expected)?;
            job.ratecycle_ns = ms * 1_000_000;
        }
        "numjobs" => job.numjobs = parse_int(need()?, 1, 4096).map_err(expected)? as u32,
        "stonewall" | "wait_for_previous" => job.stonewall = flag()?,
        "new_group" => job.new_group = flag()?,
        "group_reporting" => job.group_reporting = flag()?,
        "prio" => job.level = parse_int(need()?, 0, LEVEL_MAX as u64).map_err(expected)? as u8,
        "prioclass" => {
            let n = parse_int(need()?, 0, 3).map_err(expected)?;
            job.class = IoClass::from_ioprio_class(n as u32).unwrap_or(IoClass::Be);
        }
        "cmdprio_percentage" => {
            let v = per_direction(need()?, |p| parse_int(p, 0, 100)).map_err(expected)?;
            job.cmdprio_percent = [v[0] as u32, v[1] as u32];
        }
        "cmdprio_class" => {
            let v = per_direction(need()?, parse_ioprio_class).map_err(expected)?;
            job.cmdprio_class = [v[0], v[1]];
        }
        "cmdprio" => {
            let v = per_direction(need()?, |p| parse_int(p, 0, LEVEL_MAX as u64)).map_err(expected)?;
            job.cmdprio_level = [v[0] as u8, v[1] as u8];
        }
        "cmdprio_bssplit" => job.cmdprio_bssplit = parse_cmdprio_bssplit(need()?).map_err(expected)?,
        "readfua" => job.fua[0] = flag()?,
        "writefua" => job.fua[1] = flag()?,
        "sg_write_mode" => {
            job.sg_write_mode = match need()? {
                "write" | "write_stream" => SgWriteMode::Write,
                "write_and_verify" | "verify" => SgWriteMode::WriteAndVerify,
                "write_same" | "same" | "write_same_ndob" => SgWriteMode::WriteSame,
                "verify_bytchk_00" | "verify_bytchk_01" | "verify_bytchk_11" => SgWriteMode::Verify,
                v => {
                    return Err(expected(format!(
                        "write, write_and_verify, verify, write_same, same, write_same_ndob, verify_bytchk_00, \
                         verify_bytchk_01, verify_bytchk_11 or write_stream, found '{v}'"
                    )))
                }
            }
        }
        // io_uring_cmd's NVMe write commands, as sg's modes: Verify reads the media, Write Zeroes and Write
        // Uncorrectable cover the range without sending data (modelled as a write of the range).
        "write_mode" => {
            job.sg_write_mode = match need()? {
                "write" => SgWriteMode::Write,
                "verify" => SgWriteMode::Verify,
                "zeroes" | "uncor" => SgWriteMode::WriteSame,
                v => return Err(expected(format!("write, uncor, zeroes or verify, found '{v}'"))),
            }
        }
        "random_distribution" => job.distribution = parse_distribution(need()?).map_err(expected)?,
        "random_sequence_stride" => job.random_sequence_stride = flag()?,
        "randseed" => job.randseed = Some(parse_int(need()?, 0, u64::MAX).map_err(expected)?),
        "latency_target" => {
            let target_ns = parse_time_ns(need()?, TimeUnit::Microseconds).map_err(expected)?;
            let t = job.latency_target.get_or_insert(LatencyTarget::default());
            t.target_ns = target_ns;
        }
        "latency_window" => {
            let window_ns = parse_time_ns(need()?, TimeUnit::Microseconds).map_err(expected)?;
            let t = job.latency_target.get_or_insert(LatencyTarget::default());
            t.window_ns = window_ns;
        }
        "latency_percentile" => {
            let p = parse_f64(need()?, "a percentile above 0 and at most 100", |p| p > 0.0 && p <= 100.0)
                .map_err(expected)?;
            let t = job.latency_target.get_or_insert(LatencyTarget::default());
            t.percentile = p;
        }
        "write_lat_log" => job.write_lat_log = Some(value.unwrap_or(&job.name).to_string()),
        "write_bw_log" => job.write_bw_log = Some(value.unwrap_or(&job.name).to_string()),
        "write_iops_log" => job.write_iops_log = Some(value.unwrap_or(&job.name).to_string()),
        "log_offset" => job.log_offset = flag()?,
        "write_hist_log" => job.write_hist_log = Some(value.unwrap_or(&job.name).to_string()),
        "log_hist_msec" => job.log_hist_ms = parse_int(need()?, 0, 3_600_000).map_err(expected)?,
        "log_hist_coarseness" => job.log_hist_coarseness = parse_int(need()?, 0, 6).map_err(expected)? as u32,
        "exitall" => job.exitall = flag()?,
        "flow_id" => job.flow_id = parse_int(need()?, 0, u32::MAX as u64).map_err(expected)? as u32,
        // A negative flow is fio's former signed scheme (its butterfly example pairs flow=2 with flow=-2): read
        // as its magnitude, which gives such a pair the equal shares it had.
        "flow" => {
            let v = need()?;
            let magnitude = v.trim().strip_prefix('-').unwrap_or(v);
            job.flow_weight = parse_int(magnitude, 0, u32::MAX as u64).map_err(|_| {
                expected(format!("an integer weight (a negative one counts as its magnitude), found '{v}'"))
            })? as u32
        }
        "flow_sleep" => job.flow_sleep_ns = parse_int(need()?, 0, 3_600_000_000).map_err(expected)? * 1000,
        "steadystate" | "ss" => job.steadystate = parse_steadystate(need()?).map_err(expected)?,
        "steadystate_check_interval" | "ss_interval" => {
            job.steadystate_interval_ns = parse_time_ns(need()?, TimeUnit::Seconds).map_err(expected)?;
            if job.steadystate_interval_ns == 0 {
                return Err(expected("an interval above 0".to_string()));
            }
        }
        "steadystate_duration" | "ss_dur" => {
            job.steadystate_duration_ns = parse_time_ns(need()?, TimeUnit::Seconds).map_err(expected)?
        }
        "steadystate_ramp_time" | "ss_ramp" => {
            job.steadystate_ramp_ns = parse_time_ns(need()?, TimeUnit::Seconds).map_err(expected)?
        }
        "exit_what" => {
            job.exit_what = match need()? {
                "group" => ExitWhat::Group,
                "stonewall" => ExitWhat::Stonewall,
                "all" => ExitWhat::All,
                other => return Err(expected(format!("group, stonewall or all, found '{other}'"))),
            }
        }
        "log_avg_msec" => job.log_avg_ms = parse_int(need()?, 0, 3_600_000).map_err(expected)?,
        k if ACCEPTED_WITHOUT_EFFECT.iter().any(|(name, _)| *name == k) => {}
        // Verification switched off asks for nothing.
        "verify" => {
            let v = need()?;
            job.verify = match v {
                "0" | "none" => None,
                _ if VERIFY_METHODS.contains(&v) => Some(v.to_string()),
                _ => return Err(expected(format!("none or one of {}, found '{v}'", VERIFY_METHODS.join(", ")))),
            }
        }
        "do_verify" => job.do_verify = flag()?,
        "verify_fatal" => job.verify_fatal = flag()?,
        "verify_backlog" => job.verify_backlog = parse_int(need()?, 0, u64::MAX).map_err(expected)?,
        "verify_backlog_batch" => job.verify_backlog_batch = parse_int(need()?, 0, u64::MAX).map_err(expected)?,
        "norandommap" => job.random_map = !flag()?,
        "sprandom" => job.sprandom = flag()?,
        "iodepth_mode" => job.iodepth_stepped = parse_iodepth_mode(need()?)?,
        "num_range" => job.num_range = parse_int(need()?, 1, MAX_TRIM_RANGES).map_err(expected)? as u32,
        "spr_op" => {
            job.sprandom_spec.over_provisioning =
                parse_f64(need()?, "a spare share between 0 and 1.6 (0.15: 15 %)", |x| x > 0.0 && x < 1.6)?
        }
        "spr_num_regions" => job.sprandom_spec.regions = parse_int(need()?, 1, 1 << 20).map_err(expected)? as u32,
        "fill_device" | "fill_fs" => job.fill_device = flag()?,
        "wait_for" => job.wait_for = Some(need()?.to_string()),
        "zonemode" => {
            job.zone_strided = match need()? {
                "none" => false,
                "strided" => true,
                "zbd" => {
                    return Err("zonemode=zbd needs a zoned device model (zones with write pointers), which iosched \
                                does not have; zonemode=strided and none are modelled"
                        .to_string())
                }
                v => return Err(expected(format!("none, strided or zbd, found '{v}'"))),
            }
        }
        "zonerange" => job.zone_range_bytes = parse_size(need()?).map_err(expected)?,
        "zonesize" => job.zone_size_bytes = parse_size(need()?).map_err(expected)?,
        "zoneskip" => job.zone_skip_bytes = parse_size(need()?).map_err(expected)?,
        k if NON_BLOCK_OPTIONS.contains(&k) => {
            return Err(format!("option '{k}' belongs to a non-block I/O engine; iosched simulates block I/O only"))
        }
        k => {
            return Err(match REFUSED.iter().find(|(name, _)| *name == k) {
                Some((_, why)) => format!("option '{k}' is not supported: {why}"),
                None => {
                    let known = SUPPORTED
                        .iter()
                        .copied()
                        .chain(ACCEPTED_WITHOUT_EFFECT.iter().map(|(name, _)| *name))
                        .chain(REFUSED.iter().map(|(name, _)| *name));
                    let hint = iosched_core::suggest::did_you_mean(k, known);
                    format!("option '{k}' is not a fio option iosched knows{hint}")
                }
            })
        }
    }
    Ok(())
}

/// Checks that need the whole job.
fn check_job(job: &JobSpec) -> Result<(), JobFileError> {
    let at = |option: &str| job.location_of(option).cloned().unwrap_or_else(|| job.defined_at.clone());
    let fail = |option: &str, message: String| {
        Err(JobFileError { location: at(option), message: format!("job '{}': {message}", job.name) })
    };
    let bs = job.max_block_bytes();
    if job.zone_strided {
        if job.zone_size_bytes == 0 {
            return fail("zonemode", "zonemode=strided needs zonesize= (the bytes to transfer in each zone)".into());
        }
        let range = if job.zone_range_bytes > 0 { job.zone_range_bytes } else { job.zone_size_bytes };
        if range < bs {
            return fail("zonerange", format!("a zone of {range} bytes is smaller than the block size {bs}"));
        }
    }
    if let Some(SizeSpec::Bytes(size)) = job.size {
        if size < bs {
            return fail("size", format!("size {size} is smaller than the block size {bs}"));
        }
    }
    if let Some(SizeSpec::Bytes(size)) = job.filesize {
        if size < bs {
            return fail("filesize", format!("filesize {size} is smaller than the block size {bs}"));
        }
    }
    if job.thinktime_spin_ns > job.thinktime_ns {
        return fail("thinktime_spin", "thinktime_spin is longer than thinktime".to_string());
    }
    if job.cmdprio_percent.iter().any(|p| *p > 0) && job.cmdprio_bssplit.iter().any(|s| !s.is_empty()) {
        return fail("cmdprio_bssplit", "cmdprio_percentage and cmdprio_bssplit are exclusive".to_string());
    }
    if job.rate_bytes_per_s.iter().any(|r| *r > 0) && job.rate_iops.iter().any(|r| *r > 0) {
        return fail("rate_iops", "rate and rate_iops are exclusive".to_string());
    }
    if job.sprandom {
        check_sprandom(job)?;
    }
    if job.fsync_on_close && job.loops > 1 {
        return fail(
            "fsync_on_close",
            format!(
                "fsync_on_close with loops={}: the flush fio gives as it closes the files between passes is not \
                     modelled (end_fsync flushes once at the end)",
                job.loops
            ),
        );
    }
    if job.num_range > 1 && job.rw == RwMode::TrimWrite {
        return fail("num_range", "trimwrite cannot be used with num_range above 1 (as in fio)".to_string());
    }
    let trims = matches!(job.rw, RwMode::Trim | RwMode::TrimWrite);
    if job.num_range > 1 && trims && !MULTI_RANGE_TRIM_ENGINES.contains(&job.engine.name.as_str()) {
        return fail(
            "num_range",
            format!(
                "ioengine={} cannot send a trim of several ranges (fio refuses it too); {} can",
                job.engine.name,
                MULTI_RANGE_TRIM_ENGINES.join(", ")
            ),
        );
    }
    if let Some(t) = &job.latency_target {
        if t.target_ns == 0 {
            return fail("latency_window", "latency_window and latency_percentile need a latency_target".to_string());
        }
        if t.window_ns == 0 {
            return fail("latency_target", "latency_target needs a latency_window".to_string());
        }
    }
    Ok(())
}

/// fio's stepped-depth defaults (lat_target.h): a ramp of 5 s and a run of 30 s per step.
const STEPPED_RAMP_NS: u64 = 5_000_000_000;
const STEPPED_RUN_NS: u64 = 30_000_000_000;

/// iodepth_mode: `default`, or `stepped:LOW-HIGH/STEP[,RAMP/RUN]` (per cent; times in seconds unless suffixed).
fn parse_iodepth_mode(v: &str) -> Result<Option<SteppedDepth>, String> {
    let wanted = || format!("default, or stepped:LOW-HIGH/STEP[,RAMP/RUN] (e.g. stepped:10-130/5,5/30), found '{v}'");
    if v == "default" {
        return Ok(None);
    }
    let spec = v.strip_prefix("stepped:").ok_or_else(wanted)?;
    let (range, times) = match spec.split_once(',') {
        Some((r, t)) => (r, Some(t)),
        None => (spec, None),
    };
    let (span, step) = range.split_once('/').ok_or_else(wanted)?;
    let (low, high) = span.split_once('-').ok_or_else(wanted)?;
    let percent = |x: &str| x.trim().parse::<u32>().ok().filter(|p| *p <= 10_000).ok_or_else(wanted);
    let (low_percent, high_percent, step_percent) = (percent(low)?, percent(high)?, percent(step)?);
    if step_percent == 0 || high_percent == 0 || low_percent > high_percent {
        return Err(format!("{}: the step and HIGH above 0, LOW at most HIGH", wanted()));
    }
    let (ramp_ns, run_ns) = match times {
        None => (STEPPED_RAMP_NS, STEPPED_RUN_NS),
        Some(t) => {
            let (ramp, run) = t.split_once('/').ok_or_else(wanted)?;
            let time = |x: &str| parse_time_ns(x, TimeUnit::Seconds).map_err(|e| format!("{}: {e}", wanted()));
            (time(ramp)?, time(run)?)
        }
    };
    if run_ns == 0 {
        return Err(format!("{}: a run time above 0", wanted()));
    }
    Ok(Some(SteppedDepth { low_percent, high_percent, step_percent, ramp_ns, run_ns }))
}

/// sprandom's requirements, as fio 3.41 checks them (init.c, filesetup.c, sprandom.c): random writes, of one
/// power-of-two block size, over one file, without the random map, with the LFSR generator (fio refuses
/// tausworthe).
fn check_sprandom(job: &JobSpec) -> Result<(), JobFileError> {
    let at = |option: &str| job.location_of(option).cloned().unwrap_or_else(|| job.defined_at.clone());
    let fail = |option: &str, message: &str| {
        Err(JobFileError { location: at(option), message: format!("job '{}': sprandom {message}", job.name) })
    };
    // fio's init.c: random writes (randwrite, or randrw whose writes it places).
    if !matches!(job.rw, RwMode::Write | RwMode::ReadWrite) || job.random_percent == 0 {
        return fail("rw", "writes at random offsets: it needs rw=randwrite (or randrw)");
    }
    let BlockSizes::Fixed(bs) = job.block_sizes[1] else {
        return fail("bs", "needs one write block size (bs=)");
    };
    if !bs.is_power_of_two() {
        return fail("bs", &format!("needs a power-of-two block size, not {bs}"));
    }
    if job.nrfiles > 1 {
        return fail("nrfiles", "works on one file (nrfiles=1)");
    }
    let written = |key: &str| job.written.iter().rev().find(|o| o.key == key).map(|o| o.value.as_str());
    if job.location_of("norandommap").is_some() && job.random_map {
        return fail("norandommap", "needs norandommap (fio refuses norandommap=0)");
    }
    if written("random_generator").is_some_and(|g| g != "lfsr") {
        return fail("random_generator", "needs random_generator=lfsr (fio refuses the others)");
    }
    Ok(())
}

#[cfg(test)]
mod tests;
