//! fio's iolog, versions 2 and 3 (fio iolog.c), the format fio's `write_iolog` writes and `read_iolog` replays.
//!
//! The first line says `fio version 2 iolog` or `fio version 3 iolog`. Then:
//! - v2: `filename action [offset length]`; actions read, write, trim, sync, datasync, and `wait` whose offset
//!   field is a pause in microseconds; file actions add, open, close (no offset).
//! - v3: `timestamp_us filename action [offset length]` with the same actions, each line at its timestamp
//!   (microseconds since the log started); wait is not allowed.
//!
//! sync and datasync become flushes. Each file becomes a stream; offsets are used as they are (every file of
//! the log is mapped onto the same simulated device). File actions are counted as skipped.

use super::{Format, Line, Trace, TraceError, TraceRecord};
use crate::job::Location;
use iosched_core::request::Op;

pub fn parse(text: &str, file: &str) -> Result<Trace, TraceError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let (version, format) = match lines.next() {
        Some((_, l)) if l.trim().starts_with("fio version 2 iolog") => (2, Format::IologV2),
        Some((_, l)) if l.trim().starts_with("fio version 3 iolog") => (3, Format::IologV3),
        Some((i, l)) => {
            return Err(TraceError::new(
                Location::new(file, i + 1),
                format!("expected 'fio version 2 iolog' or 'fio version 3 iolog', found '{}'", l.trim()),
            ))
        }
        None => return Err(TraceError::new(Location::new(file, 0), "no requests in the trace")),
    };
    let mut files: Vec<String> = Vec::new();
    let mut records = Vec::new();
    let mut skipped = 0;
    let mut v2_clock_ns = 0u64;
    for (i, raw) in lines {
        let line = Line { fields: raw.split_whitespace().collect(), file, number: i + 1 };
        let f = &line.fields;
        let first = if version == 3 { 1 } else { 0 };
        if f.len() != first + 2 && f.len() != first + 4 {
            let layout = if version == 3 {
                "timestamp_us filename action [offset length]"
            } else {
                "filename action [offset length]"
            };
            return Err(line.err(format!("expected '{layout}', found {} fields", f.len())));
        }
        let at_ns =
            if version == 3 { line.bytes(line.whole(0, "timestamp")?, 1000, "timestamp")? } else { v2_clock_ns };
        let name = f[first];
        let action = f[first + 1];
        if f.len() == first + 2 {
            match action {
                "add" | "open" | "close" => {
                    skipped += 1;
                    continue;
                }
                other => return Err(line.err(format!("action '{other}' needs an offset and a length"))),
            }
        }
        let offset = line.whole(first + 2, "offset")?;
        let len = line.whole(first + 3, "length")?;
        let op = match action {
            "read" => Op::Read,
            "write" => Op::Write,
            "trim" => Op::Trim,
            "sync" | "datasync" => Op::Flush,
            "wait" if version == 2 => {
                v2_clock_ns = v2_clock_ns.saturating_add(line.bytes(offset, 1000, "wait")?);
                continue;
            }
            "wait" => return Err(line.err("wait is not allowed in a version 3 iolog")),
            other => {
                return Err(line.err(format!(
                    "action: expected read, write, trim, sync, datasync{}, add, open or close, found '{other}'",
                    if version == 2 { ", wait" } else { "" }
                )))
            }
        };
        let stream = match files.iter().position(|n| n == name) {
            Some(k) => k as u32,
            None => {
                files.push(name.to_string());
                files.len() as u32 - 1
            }
        };
        let (offset, len) = if op == Op::Flush { (0, 0) } else { (offset, line.nonzero(len, "length")?) };
        records.push(TraceRecord::new(at_ns, op, offset, len, stream));
    }
    if records.is_empty() {
        return Err(TraceError::new(Location::new(file, 0), "no requests in the trace"));
    }
    Ok(Trace::rebased(format, records, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_2_with_waits_and_files() {
        let t = parse(
            "fio version 2 iolog\n/dev/sda add\n/dev/sda open\n/dev/sda read 4096 4096\n/dev/sda wait 500 0\n\
             /dev/sdb write 0 8192\n/dev/sda sync 0 0\n/dev/sda close\n",
            "l",
        )
        .unwrap();
        assert_eq!(t.format, Format::IologV2);
        assert_eq!(t.skipped, 3);
        assert_eq!(t.records[0], TraceRecord::new(0, Op::Read, 4096, 4096, 0));
        assert_eq!(t.records[1], TraceRecord::new(500_000, Op::Write, 0, 8192, 1));
        assert_eq!(t.records[2].op, Op::Flush);
    }

    #[test]
    fn version_3_timestamps_and_errors() {
        let t = parse("fio version 3 iolog\n0 f add\n10 f open\n20 f write 0 4096\n1020 f trim 0 4096\n", "l").unwrap();
        assert_eq!(t.format, Format::IologV3);
        assert_eq!((t.records[0].at_ns, t.records[1].at_ns, t.records[1].op), (0, 1_000_000, Op::Trim));
        for (text, want) in [
            ("fio version 1 iolog\n", "l:1: expected 'fio version 2 iolog'"),
            ("fio version 3 iolog\n5 f wait 10 0\n", "l:2: wait is not allowed"),
            ("fio version 3 iolog\n5 f write 0\n", "l:2: expected 'timestamp_us filename action"),
            ("fio version 2 iolog\nf erase 0 10\n", "l:2: action: expected read"),
            ("fio version 2 iolog\nf read 0 0\n", "l:2: length: expected at least 1"),
            ("fio version 2 iolog\nf add\n", "l: no requests"),
        ] {
            let e = parse(text, "l").unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }
}
