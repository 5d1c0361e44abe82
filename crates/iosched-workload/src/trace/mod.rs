//! Block-trace readers. Each names the file, line and reason for a line it cannot read.
//!
//! Text formats share [`parse_lines`]: blank lines are skipped, every other line must have the format's
//! number of fields (split on whitespace or commas), and a trace with no request is an error.
//!
//! [`read`] reads any supported format into [`Trace`]: records with a time (nanoseconds from the first
//! record), a direction, a byte range and a stream (the process, device or volume that issued it), with the
//! format given or detected from the content ([`detect`]).

pub mod alibaba;
pub mod blkparse;
pub mod blktrace;
pub mod disksim_ascii;
pub mod disksim_validate;
pub mod fiu;
pub mod iolog;
pub mod mqsim;
pub mod msr;
pub mod spc;
pub mod tencent;
pub mod write;

use crate::job::Location;
use iosched_core::request::Op;
use std::path::Path;

/// The trace formats iosched reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Blkparse,
    Blktrace,
    Msr,
    Spc,
    Alibaba,
    Tencent,
    Fiu,
    DisksimAscii,
    DisksimValidate,
    Mqsim,
    IologV2,
    IologV3,
}

impl Format {
    pub const ALL: [Format; 12] = [
        Format::Blkparse,
        Format::Blktrace,
        Format::Msr,
        Format::Spc,
        Format::Alibaba,
        Format::Tencent,
        Format::Fiu,
        Format::DisksimAscii,
        Format::DisksimValidate,
        Format::Mqsim,
        Format::IologV2,
        Format::IologV3,
    ];

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Blkparse => "blkparse",
            Format::Blktrace => "blktrace",
            Format::Msr => "msr",
            Format::Spc => "spc",
            Format::Alibaba => "alibaba",
            Format::Tencent => "tencent",
            Format::Fiu => "fiu",
            Format::DisksimAscii => "disksim",
            Format::DisksimValidate => "disksim-validate",
            Format::Mqsim => "mqsim",
            Format::IologV2 => "iolog2",
            Format::IologV3 => "iolog3",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// One request of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// Issue time, nanoseconds after the trace's first record.
    pub at_ns: u64,
    pub op: Op,
    pub offset_bytes: u64,
    pub len_bytes: u64,
    /// The process, device or volume that issued it (its flow).
    pub stream: u32,
    /// The issuer waits for it: reads, flushes and writes the format marks synchronous.
    pub sync: bool,
}

impl TraceRecord {
    /// A record whose sync flag follows the usual rule: reads, trims and flushes wait; writes are write-back.
    pub fn new(at_ns: u64, op: Op, offset_bytes: u64, len_bytes: u64, stream: u32) -> TraceRecord {
        TraceRecord { at_ns, op, offset_bytes, len_bytes, stream, sync: op != Op::Write }
    }
}

/// A trace as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub format: Format,
    /// In file order, times made relative to the earliest record.
    pub records: Vec<TraceRecord>,
    /// Events read but not replayed (blkparse/blktrace events other than Q, file actions of an iolog).
    pub skipped: u64,
    /// The earliest record's time as the file gives it, which the records' times are made relative to.
    pub origin: u64,
}

impl Trace {
    /// Make times relative to the earliest record.
    fn rebased(format: Format, mut records: Vec<TraceRecord>, skipped: u64) -> Trace {
        let first = records.iter().map(|r| r.at_ns).min().unwrap_or(0);
        for r in &mut records {
            r.at_ns -= first;
        }
        Trace { format, records, skipped, origin: first }
    }
}

/// Read a trace of `format`, or of the format its content shows.
pub fn read(path: &Path, format: Option<Format>) -> Result<Trace, TraceError> {
    let bytes =
        std::fs::read(path).map_err(|e| TraceError::new(Location::file(path), format!("cannot read trace: {e}")))?;
    let file = path.display().to_string();
    let format = match format {
        Some(f) => f,
        None => detect(&bytes).ok_or_else(|| {
            TraceError::new(
                Location::file(path),
                format!(
                    "cannot tell the trace format from the content; give --format (one of {})",
                    Format::ALL.map(|f| f.name()).join(", ")
                ),
            )
        })?,
    };
    if format == Format::Blktrace {
        return blktrace::parse(&bytes, &file);
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        TraceError::new(
            Location::file(path),
            format!(
                "a {} trace must be text, found a non-UTF-8 byte at {}",
                format.name(),
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    parse_text(&text, &file, format)
}

/// Parse a text trace of `format`; `file` names it in errors.
pub fn parse_text(text: &str, file: &str, format: Format) -> Result<Trace, TraceError> {
    match format {
        Format::Blkparse => blkparse::parse(text, file),
        Format::Blktrace => blktrace::parse(text.as_bytes(), file),
        Format::Msr => msr::parse(text, file),
        Format::Spc => spc::parse(text, file),
        Format::Alibaba => alibaba::parse(text, file),
        Format::Tencent => tencent::parse(text, file),
        Format::Fiu => fiu::parse(text, file),
        Format::DisksimAscii => disksim_ascii::parse(text, file),
        Format::DisksimValidate => disksim_validate::parse_trace(text, file),
        Format::Mqsim => mqsim::parse_trace(text, file),
        Format::IologV2 | Format::IologV3 => iolog::parse(text, file),
    }
}

/// The format a trace's content shows, from its first bytes and its first non-blank line.
///
/// Ambiguity: a five-field whitespace line of whole numbers is read as MQSim; DiskSim ascii traces usually
/// have fractional millisecond times, and one with whole times needs `--format disksim`.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if blktrace::has_magic(bytes) {
        return Some(Format::Blktrace);
    }
    let head = std::str::from_utf8(&bytes[..bytes.len().min(4096)])
        .unwrap_or_else(|e| std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default());
    let first = head.lines().map(str::trim).find(|l| !l.is_empty())?;
    if first.starts_with("fio version 2 iolog") {
        return Some(Format::IologV2);
    }
    if first.starts_with("fio version 3 iolog") {
        return Some(Format::IologV3);
    }
    let is_int = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let is_num = |s: &str| s.parse::<f64>().is_ok();
    // blkparse: "maj,min cpu seq secs.nsecs pid action ...", whitespace-separated.
    let ws: Vec<&str> = first.split_whitespace().collect();
    if ws.len() >= 6 && ws[0].contains(',') && ws[0].split(',').all(is_int) && ws[3].contains('.') {
        return Some(Format::Blkparse);
    }
    if first.contains(',') {
        let f: Vec<&str> = first.split(',').map(str::trim).collect();
        return match f.len() {
            7 if matches!(f[3], "Read" | "Write") => Some(Format::Msr),
            5 if matches!(f[1], "R" | "W" | "r" | "w") => Some(Format::Alibaba),
            5 if matches!(f[3], "r" | "w" | "R" | "W") => Some(Format::Spc),
            5 if matches!(f[3], "0" | "1") => Some(Format::Tencent),
            _ => None,
        };
    }
    let f: Vec<&str> = first.split_whitespace().collect();
    match f.len() {
        9 if matches!(f[5], "R" | "W" | "r" | "w") && is_int(f[0]) => Some(Format::Fiu),
        6 if matches!(f[0], "R" | "W" | "r" | "w") => Some(Format::DisksimValidate),
        5 if f.iter().all(|x| is_int(x)) => Some(Format::Mqsim),
        5 if f.iter().all(|x| is_num(x)) => Some(Format::DisksimAscii),
        _ => None,
    }
}

/// A problem in a trace file: file, line and reason.
pub type TraceError = iosched_core::input::InputError;

/// One non-blank line of a text trace.
pub(crate) struct Line<'a> {
    pub fields: Vec<&'a str>,
    /// The file it is in and its number (from 1): an error's location, made only for an error.
    pub file: &'a str,
    pub number: usize,
}

impl Line<'_> {
    /// An error at this line.
    pub fn err(&self, message: impl Into<String>) -> TraceError {
        TraceError::new(Location::new(self.file, self.number), message)
    }

    /// Field `k` as a whole number; `what` names it in the error.
    pub fn whole(&self, k: usize, what: &str) -> Result<u64, TraceError> {
        let s = self.fields[k];
        s.parse::<u64>().map_err(|_| self.err(format!("{what}: expected a whole number, found '{s}'")))
    }

    /// Field `k` as a whole number that fits a stream number.
    pub fn stream(&self, k: usize, what: &str) -> Result<u32, TraceError> {
        u32::try_from(self.whole(k, what)?).map_err(|_| self.err(format!("{what}: expected at most {}", u32::MAX)))
    }

    /// Field `k` as a non-negative number of `unit_ns` nanoseconds (a time), rounded to the nanosecond.
    pub fn time_ns(&self, k: usize, what: &str, unit_ns: f64) -> Result<u64, TraceError> {
        let s = self.fields[k];
        let v: f64 = s
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| self.err(format!("{what}: expected a time of zero or more, found '{s}'")))?;
        let ns = v * unit_ns;
        if ns >= 1.8e19 {
            return Err(self.err(format!("{what}: time '{s}' is too large")));
        }
        Ok(ns.round() as u64)
    }

    /// `a * b` bytes, or an error naming `what`.
    pub fn bytes(&self, a: u64, b: u64, what: &str) -> Result<u64, TraceError> {
        a.checked_mul(b).ok_or_else(|| self.err(format!("{what}: too large")))
    }

    /// A length of at least one byte.
    pub fn nonzero(&self, len: u64, what: &str) -> Result<u64, TraceError> {
        if len == 0 {
            Err(self.err(format!("{what}: expected at least 1, found 0")))
        } else {
            Ok(len)
        }
    }
}

/// How a text trace's fields are separated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Separator {
    Whitespace,
    Comma,
}

/// The records of a whitespace-separated trace of `fields` fields per line, laid out as `layout` says (for
/// the error), each made by `record`.
pub(crate) fn parse_lines<R>(
    text: &str,
    file: &str,
    fields: usize,
    layout: &str,
    mut record: impl FnMut(&Line) -> Result<R, TraceError>,
) -> Result<Vec<R>, TraceError> {
    let (out, _) =
        parse_fields(text, file, Separator::Whitespace, fields..=fields, layout, |line| record(line).map(Some))?;
    Ok(out)
}

/// The general line reader: `fields` is the accepted field count; `record` may skip a line (`Ok(None)`, counted
/// in the second value returned).
pub(crate) fn parse_fields<R>(
    text: &str,
    file: &str,
    separator: Separator,
    fields: std::ops::RangeInclusive<usize>,
    layout: &str,
    mut record: impl FnMut(&Line) -> Result<Option<R>, TraceError>,
) -> Result<(Vec<R>, u64), TraceError> {
    let mut out = Vec::new();
    let mut skipped = 0;
    // One line's fields at a time, in a buffer reused from line to line (no allocation per line).
    let mut line = Line { fields: Vec::new(), file, number: 0 };
    for (i, text_line) in text.lines().enumerate() {
        line.number = i + 1;
        line.fields.clear();
        match separator {
            // ASCII whitespace only: traces are ASCII, and the Unicode-aware split costs a tenth of the reading.
            Separator::Whitespace => line.fields.extend(text_line.split_ascii_whitespace()),
            Separator::Comma if text_line.trim().is_empty() => {}
            Separator::Comma => line.fields.extend(text_line.split(',').map(str::trim)),
        }
        if line.fields.is_empty() {
            continue;
        }
        if !fields.contains(&line.fields.len()) {
            let wanted = if fields.start() == fields.end() {
                format!("{}", fields.start())
            } else {
                format!("{} to {}", fields.start(), fields.end())
            };
            return Err(line.err(format!("expected {wanted} fields '{layout}', found {}", line.fields.len())));
        }
        match record(&line)? {
            Some(r) => out.push(r),
            None => skipped += 1,
        }
    }
    if out.is_empty() {
        return Err(TraceError::new(Location::new(file, 0), "no requests in the trace"));
    }
    Ok((out, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_every_format_from_its_first_line() {
        let cases: [(&[u8], Option<Format>); 13] = [
            (b"  8,32   7  1  0.000000000  2923  Q   R 272208 + 2 [dd]\n", Some(Format::Blkparse)),
            (&blktrace::encode_le(0, 0, 512, 1, 1, &[]), Some(Format::Blktrace)),
            (b"128166385295514663,hm,0,Write,9056014336,2048,2833\n", Some(Format::Msr)),
            (b"0,303567,3584,w,0.000000\n", Some(Format::Spc)),
            (b"3,W,4096,8192,1577808000000010\n", Some(Format::Alibaba)),
            (b"1538323200,2048,8,1,1283\n", Some(Format::Tencent)),
            (b"89966527643045 4890 syslogd 904265560 8 W 6 0 531e\n", Some(Format::Fiu)),
            (b"0.250000 0 1000 8 1\n", Some(Format::DisksimAscii)),
            (b"R Hit 1975456 4 15362.0 56074.0\n", Some(Format::DisksimValidate)),
            (b"\n11413000 0 657728 16 1\n", Some(Format::Mqsim)),
            (b"fio version 2 iolog\n", Some(Format::IologV2)),
            (b"fio version 3 iolog\n", Some(Format::IologV3)),
            (b"hello world\n", None),
        ];
        for (bytes, want) in cases {
            assert_eq!(detect(bytes), want, "{}", String::from_utf8_lossy(bytes));
        }
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
    }

    #[test]
    fn read_detects_and_rejects_unknown_content() {
        let dir = iosched_test_data::scratch("trace");
        let p = dir.join("t.csv");
        std::fs::write(&p, "0,10,512,r,0.0\n0,20,512,w,0.001\n").unwrap();
        let t = read(&p, None).unwrap();
        assert_eq!((t.format, t.records.len()), (Format::Spc, 2));
        std::fs::write(&p, "what is this\n").unwrap();
        let e = read(&p, None).unwrap_err().to_string();
        assert!(e.contains("t.csv: cannot tell the trace format") && e.contains("give --format"), "{e}");
        let e = read(&p, Some(Format::Msr)).unwrap_err().to_string();
        assert!(e.contains("t.csv:1: expected 7 fields"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
