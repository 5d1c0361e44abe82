//! The fio job-file reader.
//!
//! INI-style: `[global]` sections set defaults for the jobs defined after them; every other `[section]` is a
//! job named after it; `key=value` or bare flags; `;` and `#` comments. Options are applied in order, so a job
//! inherits what the globals before it said and overrides it with its own.
//!
//! This reader knows the common block-I/O options (see [`SUPPORTED`]). An option it does not support is
//! rejected by name with file and line, never silently ignored; options that do not change what reaches the
//! device (a file name, a description) are accepted and listed in [`ACCEPTED_WITHOUT_EFFECT`].

pub mod values;

use crate::job::{Engine, IoLimit, JobSpec, Location, RwMode, SizeSpec};
use iosched_core::request::{IoClass, LEVEL_MAX};
use std::path::Path;
use values::{parse_bool, parse_int, parse_percent, parse_size, parse_time_ns, TimeUnit};

/// A problem in a job file, with where it is.
pub type JobFileError = iosched_core::input::InputError;

/// Options this reader gives their fio meaning.
pub const SUPPORTED: &[&str] = &[
    "name",
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "size",
    "offset",
    "io_size",
    "io_limit",
    "number_ios",
    "iodepth",
    "ioengine",
    "direct",
    "buffered",
    "runtime",
    "timeout",
    "time_based",
    "thinktime",
    "numjobs",
    "fsync",
    "end_fsync",
    "startdelay",
    "prio",
    "prioclass",
];

/// Options accepted because they do not change what reaches the device in simulation.
pub const ACCEPTED_WITHOUT_EFFECT: &[&str] = &[
    "description",
    "filename",
    "directory",
    "randrepeat",
    "norandommap",
    "random_generator",
    "invalidate",
    "thread",
    "group_reporting",
    "fadvise_hint",
    "ramp_time",
];

/// Options of I/O engines that are not block I/O.
const NON_BLOCK_OPTIONS: &[&str] = &[
    "hostname",
    "port",
    "protocol",
    "listen",
    "pingpong",
    "interface",
    "ttl",
    "nodelay",
    "window_size",
    "mss",
    "cpuload",
    "cpuchunks",
    "exit_on_io_done",
    "http_host",
    "http_user",
    "http_pass",
    "http_s3_key",
    "http_s3_keyid",
    "http_mode",
    "clustername",
    "pool",
    "rbdname",
    "clientname",
    "busy_poll",
    "verb",
    "bindname",
];

const SYNC_ENGINES: &[&str] = &["sync", "psync", "vsync", "pvsync", "pvsync2", "mmap"];
const ASYNC_ENGINES: &[&str] = &["libaio", "io_uring", "posixaio", "windowsaio", "solarisaio"];
const NON_BLOCK_ENGINES: &[&str] = &[
    "net",
    "netsplice",
    "cpuio",
    "rdma",
    "e4defrag",
    "falloc",
    "ftruncate",
    "http",
    "rados",
    "rbd",
    "gfapi",
    "gfapi_async",
    "nbd",
    "exec",
    "libhdfs",
    "mtd",
    "dev-dax",
    "libpmem",
    "null",
    "filecreate",
    "filestat",
    "filedelete",
    "dircreate",
    "dirstat",
    "dirdelete",
    "splice",
    "sg",
    "guasi",
    "external",
];

/// Read a job file.
pub fn parse_file(path: &Path) -> Result<Vec<JobSpec>, JobFileError> {
    let text = iosched_core::input::read_text(path, "job file")?;
    parse_str(&text, &path.display().to_string())
}

/// Read job-file text; `file` names it in errors.
pub fn parse_str(text: &str, file: &str) -> Result<Vec<JobSpec>, JobFileError> {
    let mut global = JobSpec::default();
    let mut jobs: Vec<JobSpec> = Vec::new();
    // The section being read: None before the first, Some(None) in [global], Some(Some(i)) in job i.
    let mut section: Option<Option<usize>> = None;
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
            if let Some(Some(previous)) = section {
                check_job(&jobs[previous])?;
            }
            if name == "global" {
                section = Some(None);
            } else {
                let mut job = global.clone();
                job.name = name.to_string();
                job.defined_at = location.clone();
                jobs.push(job);
                section = Some(Some(jobs.len() - 1));
            }
            continue;
        }
        if line.starts_with("include ") {
            return Err(err("'include' is not supported yet".to_string()));
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (line, None),
        };
        let target = match section {
            None => return Err(err(format!("option '{key}' before any [section]"))),
            Some(None) => &mut global,
            Some(Some(i)) => &mut jobs[i],
        };
        apply_option(target, key, value).map_err(err)?;
        target.option_lines.push((key.to_string(), location.clone()));
    }
    if let Some(Some(last)) = section {
        check_job(&jobs[last])?;
    }
    if jobs.is_empty() {
        return Err(JobFileError {
            location: Location { file: file.to_string(), line: text.lines().count().max(1) },
            message: "no jobs: expected at least one [section] other than [global]".to_string(),
        });
    }
    Ok(jobs)
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

/// Give one option its meaning in `job`. The error says what was expected.
fn apply_option(job: &mut JobSpec, key: &str, value: Option<&str>) -> Result<(), String> {
    let need = || value.ok_or_else(|| format!("option '{key}' needs a value ({key}=...)"));
    let flag = || value.map_or(Ok(true), parse_bool).map_err(|e| format!("{key}: expected {e}"));
    let expected = |e: String| format!("{key}: expected {e}");
    match key {
        "name" => job.name = need()?.to_string(),
        "rw" | "readwrite" => {
            let v = need()?;
            if v.contains(':') {
                return Err(format!("{key}: the ':N' sequence suffix in '{v}' is not supported yet"));
            }
            let (rw, random) = match v {
                "read" => (RwMode::Read, false),
                "write" => (RwMode::Write, false),
                "trim" => (RwMode::Trim, false),
                "randread" => (RwMode::Read, true),
                "randwrite" => (RwMode::Write, true),
                "randtrim" => (RwMode::Trim, true),
                "rw" | "readwrite" => (RwMode::ReadWrite, false),
                "randrw" => (RwMode::ReadWrite, true),
                "trimwrite" | "randtrimwrite" => return Err(format!("{key}={v} is not supported yet")),
                _ => {
                    return Err(expected(format!(
                        "read, write, trim, randread, randwrite, randtrim, rw, readwrite or randrw, found '{v}'"
                    )))
                }
            };
            job.rw = rw;
            job.random = random;
        }
        "rwmixread" => job.rwmix_read_percent = parse_int(need()?, 0, 100).map_err(expected)? as u32,
        "rwmixwrite" => job.rwmix_read_percent = 100 - parse_int(need()?, 0, 100).map_err(expected)? as u32,
        "bs" | "blocksize" => {
            let v = need()?;
            let parts: Vec<&str> = v.split(',').collect();
            if parts.len() > 3 {
                return Err(expected(format!("one to three sizes (read,write,trim), found '{v}'")));
            }
            // fio: an empty or missing entry takes the one before it.
            let mut resolved = [0u64; 3];
            for i in 0..3 {
                let part = parts.get(i).copied().filter(|p| !p.trim().is_empty());
                resolved[i] = match part {
                    Some(p) => parse_size(p).map_err(expected)?,
                    None if i == 0 => return Err(expected(format!("a block size first, found '{v}'"))),
                    None => resolved[i - 1],
                };
                if resolved[i] == 0 {
                    return Err(expected(format!("block sizes above 0, found '{v}'")));
                }
            }
            job.block_size_bytes = resolved;
        }
        "size" => {
            let v = need()?;
            job.size = Some(match parse_percent(v) {
                Some(p) => SizeSpec::Percent(p.map_err(expected)?),
                None => SizeSpec::Bytes(parse_size(v).map_err(expected)?),
            });
            if job.size == Some(SizeSpec::Bytes(0)) {
                return Err(expected(format!("a size above 0, found '{v}'")));
            }
        }
        "offset" => {
            let v = need()?;
            job.offset = match parse_percent(v) {
                Some(p) => SizeSpec::Percent(p.map_err(expected)?),
                None => SizeSpec::Bytes(parse_size(v).map_err(expected)?),
            };
        }
        "io_size" | "io_limit" => {
            let v = need()?;
            if parse_percent(v).is_some() {
                return Err(format!("{key}: percentages are not supported yet, found '{v}'"));
            }
            job.io_limit = IoLimit::Bytes(parse_size(v).map_err(expected)?);
        }
        "number_ios" => job.io_limit = IoLimit::Ios(parse_int(need()?, 1, u64::MAX).map_err(expected)?),
        "iodepth" => job.iodepth = parse_int(need()?, 1, 65536).map_err(expected)? as u32,
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
        "buffered" => job.direct = !flag()?,
        "runtime" | "timeout" => {
            let ns = parse_time_ns(need()?, TimeUnit::Seconds).map_err(expected)?;
            // fio: runtime=0 means no limit.
            job.runtime_ns = if ns == 0 { None } else { Some(ns) };
        }
        "time_based" => job.time_based = flag()?,
        "thinktime" => job.thinktime_ns = parse_time_ns(need()?, TimeUnit::Microseconds).map_err(expected)?,
        "numjobs" => job.numjobs = parse_int(need()?, 1, 4096).map_err(expected)? as u32,
        "fsync" => job.fsync_every_writes = parse_int(need()?, 0, u32::MAX as u64).map_err(expected)? as u32,
        "end_fsync" => job.end_fsync = flag()?,
        "startdelay" => job.startdelay_ns = parse_time_ns(need()?, TimeUnit::Seconds).map_err(expected)?,
        "prio" => job.level = parse_int(need()?, 0, LEVEL_MAX as u64).map_err(expected)? as u8,
        "prioclass" => {
            let n = parse_int(need()?, 0, 3).map_err(expected)?;
            job.class = IoClass::from_ioprio_class(n as u32).unwrap_or(IoClass::Be);
        }
        k if ACCEPTED_WITHOUT_EFFECT.contains(&k) => {}
        k if NON_BLOCK_OPTIONS.contains(&k) => {
            return Err(format!("option '{k}' belongs to a non-block I/O engine; iosched simulates block I/O only"))
        }
        k => return Err(format!("option '{k}' is not supported")),
    }
    Ok(())
}

/// Checks that need the whole job.
fn check_job(job: &JobSpec) -> Result<(), JobFileError> {
    let at = |option: &str| job.location_of(option).cloned().unwrap_or_else(|| job.defined_at.clone());
    if job.time_based && job.runtime_ns.is_none() {
        return Err(JobFileError {
            location: at("time_based"),
            message: format!("job '{}': time_based needs a runtime", job.name),
        });
    }
    if let Some(SizeSpec::Bytes(size)) = job.size {
        let bs = job.block_size_bytes.iter().copied().max().unwrap_or(0);
        if size < bs {
            return Err(JobFileError {
                location: at("size"),
                message: format!("job '{}': size {size} is smaller than the block size {bs}", job.name),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globals_are_inherited_and_overridden() {
        let text = "; comment\n[global]\nrw=randread\nbs=4k\nioengine=libaio\n\n[a]\niodepth=8\n[b]\nrw=write # tail\nbs=64k\n";
        let jobs = parse_str(text, "t.fio").unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!((jobs[0].name.as_str(), jobs[0].rw, jobs[0].random, jobs[0].iodepth), ("a", RwMode::Read, true, 8));
        assert_eq!(jobs[0].effective_depth(), 8);
        assert_eq!((jobs[1].rw, jobs[1].random, jobs[1].block_size_bytes), (RwMode::Write, false, [65536; 3]));
        assert_eq!(jobs[1].defined_at.line, 9);
    }

    #[test]
    fn per_direction_block_sizes() {
        let jobs = parse_str("[j]\nbs=4k,64k\n", "t").unwrap();
        assert_eq!(jobs[0].block_size_bytes, [4096, 65536, 65536]);
        let jobs = parse_str("[j]\nbs=4k,,8k\n", "t").unwrap();
        assert_eq!(jobs[0].block_size_bytes, [4096, 4096, 8192]);
    }

    #[test]
    fn times_flags_and_limits() {
        let text = "[j]\nruntime=2m\ntime_based\nthinktime=250\nnumber_ios=10\nnumjobs=3\nsize=50%\nrwmixwrite=30\n";
        let job = &parse_str(text, "t").unwrap()[0];
        assert_eq!(job.runtime_ns, Some(120_000_000_000));
        assert!(job.time_based);
        assert_eq!(job.thinktime_ns, 250_000);
        assert_eq!(job.io_limit, IoLimit::Ios(10));
        assert_eq!(job.numjobs, 3);
        assert_eq!(job.size, Some(SizeSpec::Percent(50)));
        assert_eq!(job.rwmix_read_percent, 70);
        assert!(job.engine.synchronous);
        assert_eq!(job.effective_depth(), 1);
    }

    #[test]
    fn errors_name_file_line_and_what_was_expected() {
        let cases = [
            ("[j]\nbs=4q\n", "t.fio:2: bs: expected a size"),
            ("rw=read\n", "t.fio:1: option 'rw' before any [section]"),
            ("[j]\nrw=sideways\n", "t.fio:2: rw: expected read, write"),
            ("[j\n", "t.fio:1: expected a section header"),
            ("[j]\nhostname=x\n", "t.fio:2: option 'hostname' belongs to a non-block"),
            ("[j]\nioengine=net\n", "t.fio:2: ioengine=net does not do block I/O"),
            ("[j]\nverify=crc32c\n", "t.fio:2: option 'verify' is not supported"),
            ("[j]\ntime_based\n", "t.fio:2: job 'j': time_based needs a runtime"),
            ("[j]\nsize=1k\nbs=4k\n", "t.fio:2: job 'j': size 1024 is smaller"),
            ("[global]\nbs=4k\n", "t.fio:2: no jobs"),
            ("[j]\niodepth=0\n", "t.fio:2: iodepth: expected an integer from 1"),
            ("[j]\nrw\n", "t.fio:2: option 'rw' needs a value"),
        ];
        for (text, want) in cases {
            let got = parse_str(text, "t.fio").unwrap_err().to_string();
            assert!(got.starts_with(want), "for {text:?}\n got: {got}\nwant: {want}");
        }
    }
}
