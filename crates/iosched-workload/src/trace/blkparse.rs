//! blkparse's default text output (kernel.org blktrace.git, blkparse_fmt.c):
//! `maj,min cpu seq secs.nsecs pid action rwbs [sector + nsectors] [process]`.
//!
//! Only Q events are replayed: the request as the application issued it, before the kernel's scheduler
//! merged, sorted or split it. Other events (G, I, D, C, M, P, U, m notes, ...) are counted as skipped.
//! RWBS: D a discard (trim), W a write, R a read, F without data a flush, S synchronous, N no data (skipped).
//! The pid becomes the stream. The per-CPU and total summary blkparse prints at the end is not read.

use super::{Format, Line, Trace, TraceError, TraceRecord};
use crate::job::Location;
use iosched_core::request::Op;
use iosched_core::units::SECTOR_BYTES;

const LAYOUT: &str = "maj,min cpu seq secs.nsecs pid action rwbs [sector + nsectors] [process]";

/// Whether a line starts blkparse's closing summary ("CPU0 (8,0):", "Total (8,0):").
fn starts_summary(line: &str) -> bool {
    let t = line.trim_start();
    (t.starts_with("CPU") && t[3..].starts_with(|c: char| c.is_ascii_digit())) || t.starts_with("Total (")
}

pub fn parse(text: &str, file: &str) -> Result<Trace, TraceError> {
    let mut records = Vec::new();
    let mut skipped = 0;
    for (i, raw) in text.lines().enumerate() {
        if starts_summary(raw) {
            break;
        }
        let line = Line { fields: raw.split_whitespace().collect(), file, number: i + 1 };
        if line.fields.is_empty() {
            continue;
        }
        let f = &line.fields;
        let device_ok = f[0].split_once(',').is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok());
        if f.len() < 6 || !device_ok {
            return Err(line.err(format!("expected an event '{LAYOUT}', found '{}'", raw.trim())));
        }
        if f[5] != "Q" {
            skipped += 1;
            continue;
        }
        if f.len() < 7 {
            return Err(line.err(format!("a Q event needs its RWBS field: '{LAYOUT}'")));
        }
        let at_ns = line.time_ns(3, "time", 1e9)?;
        let stream = line.stream(4, "pid")?;
        let rwbs = f[6];
        if !rwbs.chars().all(|c| "RWDSMFUNAB".contains(c)) {
            return Err(line.err(format!("RWBS: expected letters from R W D S M F U N A B, found '{rwbs}'")));
        }
        let has_data = f.len() >= 10 && f[8] == "+";
        let op = if rwbs.contains('D') {
            Op::Trim
        } else if rwbs.contains('W') {
            Op::Write
        } else if rwbs.contains('R') {
            Op::Read
        } else if rwbs.contains('F') {
            Op::Flush
        } else {
            skipped += 1;
            continue;
        };
        let (offset, len) = if op == Op::Flush && !has_data {
            (0, 0)
        } else if has_data {
            let sector = line.whole(7, "sector")?;
            let sectors = line.nonzero(line.whole(9, "nsectors")?, "nsectors")?;
            (line.bytes(sector, SECTOR_BYTES, "sector")?, line.bytes(sectors, SECTOR_BYTES, "nsectors")?)
        } else if rwbs.contains('F') {
            // A write or read with a pre-flush but no data is a flush.
            records.push(TraceRecord { sync: true, ..TraceRecord::new(at_ns, Op::Flush, 0, 0, stream) });
            continue;
        } else {
            return Err(line.err(format!("expected 'sector + nsectors' after RWBS {rwbs}")));
        };
        let sync = op != Op::Write || rwbs.contains('S');
        records.push(TraceRecord { at_ns, op, offset_bytes: offset, len_bytes: len, stream, sync });
    }
    if records.is_empty() {
        return Err(TraceError::new(Location::new(file, 0), "no Q events in the trace"));
    }
    Ok(Trace::rebased(Format::Blkparse, records, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
  8,32   7        1     0.000000000  2923  Q   R 272208 + 2 [direct_io_read_]
  8,32   7        2     0.000002000  2923  G   R 272208 + 2 [direct_io_read_]
  8,32   7        3     0.000010000  2923  D   R 272208 + 2 [direct_io_read_]
  8,32   1        4     0.000500000  4011  Q  WS 1000 + 8 [jbd2/sda1-8]
  8,32   1        5     0.000600000  4011  Q FWS [jbd2/sda1-8]
  8,32   2        6     0.000700000  77    Q   D 5000 + 2048 [fstrim]
  8,32   7        7     0.000900000  2923  C   R 272208 + 2 [0]
  8,32   0        0     0.001000000     0  m   N cfq2923 slice expired
CPU0 (8,32):
 Reads Queued:           1,        1KiB\t Writes Queued:           0,        0KiB
";

    #[test]
    fn keeps_queue_events_and_reads_rwbs() {
        let t = parse(SAMPLE, "b").unwrap();
        assert_eq!(t.records.len(), 4);
        assert_eq!(t.skipped, 4);
        assert_eq!(
            t.records[0],
            TraceRecord {
                at_ns: 0,
                op: Op::Read,
                offset_bytes: 272208 * 512,
                len_bytes: 1024,
                stream: 2923,
                sync: true
            }
        );
        assert_eq!((t.records[1].op, t.records[1].sync, t.records[1].len_bytes), (Op::Write, true, 4096));
        assert_eq!((t.records[2].op, t.records[2].at_ns), (Op::Flush, 600_000));
        assert_eq!((t.records[3].op, t.records[3].len_bytes), (Op::Trim, 2048 * 512));
    }

    #[test]
    fn names_bad_lines() {
        for (text, want) in [
            ("8,0 1 1 0.1 5 Q R 10 + x [p]\n", "b:1: nsectors: expected a whole number"),
            ("8,0 1 1 zero 5 Q R 10 + 8 [p]\n", "b:1: time: expected a time"),
            ("garbage line here\n", "b:1: expected an event"),
            ("8,0 1 1 0.1 5 Q XYZ 10 + 8 [p]\n", "b:1: RWBS: expected letters"),
            ("8,0 1 1 0.1 5 Q R [p]\n", "b:1: expected 'sector + nsectors'"),
            ("8,0 1 1 0.1 5 D R 10 + 8 [p]\n", "b: no Q events"),
        ] {
            let e = parse(text, "b").unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }
}
