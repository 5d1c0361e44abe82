//! DiskSim's "validate" traces: one request per line, `R|W BUFFACTION blkno bcount servtime_us nextinter_us`,
//! where servtime is the access time measured on the real drive and nextinter the think time before the next
//! request is issued, counted from this one's completion (DiskSim src/disksim_iodriver.c, the VALIDATE case).
//! BUFFACTION (Hit, Miss, Doub, Trip) records what the measuring tool saw; it is kept but not used to steer
//! the model.

use super::{parse_lines, Format, Line, Trace, TraceError, TraceRecord};
use iosched_core::input::Location;
use iosched_core::request::Op;
use std::io::BufRead;
use std::path::Path;

/// What the measuring tool saw of a request: the four words DiskSim reads (it refuses any other).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferAction {
    Hit,
    Miss,
    Doub,
    Trip,
}

impl BufferAction {
    pub fn name(self) -> &'static str {
        match self {
            BufferAction::Hit => "Hit",
            BufferAction::Miss => "Miss",
            BufferAction::Doub => "Doub",
            BufferAction::Trip => "Trip",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ValidateRecord {
    pub op: Op,
    pub buffer_action: BufferAction,
    pub block: u64,
    pub blocks: u64,
    pub measured_us: f64,
    pub next_interval_us: f64,
}

const LAYOUT: &str = "R|W action blkno bcount servtime nextinter";

/// Read a validate trace. It is read as a stream, a line at a time: a validation trace may run to millions of
/// lines, and holding its text as well as its records would double what it costs to read.
pub fn read(path: &Path) -> Result<Vec<ValidateRecord>, TraceError> {
    let mut out = Vec::new();
    read_in_chunks(path, usize::MAX, |mut chunk| {
        out.append(&mut chunk);
        true
    })?;
    Ok(out)
}

/// Read a validate trace, handing its requests to `sink` `chunk` at a time (the last chunk may be shorter), as
/// they are read; `sink` returns false to stop early. Errors as [`read`]'s.
pub fn read_in_chunks(
    path: &Path,
    chunk: usize,
    mut sink: impl FnMut(Vec<ValidateRecord>) -> bool,
) -> Result<(), TraceError> {
    let chunk = chunk.max(1);
    let file = path.display().to_string();
    let open = |e: std::io::Error| TraceError::new(Location::file(path), format!("cannot read trace: {e}"));
    let mut reader = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(path).map_err(open)?);
    let mut out = Vec::new();
    let mut any = false;
    let mut text = Vec::new();
    // One field buffer for every line: emptied, it is handed from one line's borrow to the next (collecting an
    // empty vector into one of another element lifetime keeps its allocation).
    let mut spare: Vec<&str> = Vec::with_capacity(8);
    let mut number = 0;
    loop {
        text.clear();
        if reader.read_until(b'\n', &mut text).map_err(open)? == 0 {
            break;
        }
        number += 1;
        let s = std::str::from_utf8(&text)
            .map_err(|_| TraceError::new(Location::new(file.as_str(), number), "not UTF-8 text"))?;
        let mut fields: Vec<&str> = spare.into_iter().map(|_| "").collect();
        fields.extend(s.split_ascii_whitespace());
        let line = Line { fields, file: &file, number };
        if !line.fields.is_empty() {
            out.push(record_of(&line)?);
            any = true;
            if out.len() >= chunk && !sink(std::mem::replace(&mut out, Vec::with_capacity(chunk.min(1 << 16)))) {
                return Ok(());
            }
        }
        let mut fields = line.fields;
        fields.clear();
        spare = fields.into_iter().map(|_| "").collect();
    }
    if !any {
        return Err(TraceError::new(Location::new(file.as_str(), 0), "no requests in the trace"));
    }
    if !out.is_empty() {
        sink(out);
    }
    Ok(())
}

/// Parse a validate trace into the common form, for replay by `iosched sim`: each request is issued when the
/// measured drive let the one before complete, that is at the sum of the earlier servtime + nextinter (the
/// arrival times the measurement had). Blocks are 512 bytes; one stream.
pub fn parse_trace(text: &str, file: &str) -> Result<Trace, TraceError> {
    let mut clock_us = 0.0f64;
    let mut records = Vec::new();
    for r in parse(text, file)? {
        let at_ns = (clock_us * 1000.0).round() as u64;
        records.push(TraceRecord::new(at_ns, r.op, r.block.saturating_mul(512), r.blocks.saturating_mul(512), 0));
        clock_us += r.measured_us + r.next_interval_us;
    }
    Ok(Trace::rebased(Format::DisksimValidate, records, 0))
}

/// Parse validate-trace text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Vec<ValidateRecord>, TraceError> {
    parse_lines(text, file, 6, LAYOUT, record_of)
}

/// One line's request.
fn record_of(line: &Line) -> Result<ValidateRecord, TraceError> {
    let f = &line.fields;
    if f.len() != 6 {
        return Err(line.err(format!("expected 6 fields '{LAYOUT}', found {}", f.len())));
    }
    let op = match f[0] {
        "R" | "r" => Op::Read,
        "W" | "w" => Op::Write,
        other => return Err(line.err(format!("expected R or W, found '{other}'"))),
    };
    let buffer_action = match f[1] {
        "Hit" => BufferAction::Hit,
        "Miss" => BufferAction::Miss,
        "Doub" => BufferAction::Doub,
        "Trip" => BufferAction::Trip,
        other => {
            return Err(
                line.err(format!("action: expected Hit, Miss, Doub or Trip (as DiskSim reads it), found '{other}'"))
            )
        }
    };
    // Up to a million seconds: the times are summed into 64-bit nanoseconds.
    let time = |k: usize, what: &str| -> Result<f64, TraceError> {
        f[k].parse::<f64>().ok().filter(|v| v.is_finite() && (0.0..=1e12).contains(v)).ok_or_else(|| {
            line.err(format!("{what}: expected a time in microseconds from 0 to 1e12, found '{}'", f[k]))
        })
    };
    let blocks = line.whole(3, "bcount")?;
    if blocks == 0 {
        return Err(line.err("bcount: expected at least 1 block, found 0"));
    }
    Ok(ValidateRecord {
        op,
        buffer_action,
        block: line.whole(2, "blkno")?,
        blocks,
        measured_us: time(4, "servtime")?,
        next_interval_us: time(5, "nextinter")?,
    })
}

/// A validate trace that exercises a drive model, for comparing two simulators request by request (no measured
/// times: servtime is 0). `count` requests of at most `max_request_blocks` blocks over a drive of `blocks` blocks,
/// the same for the same `seed`; each request is one of:
/// - a read or write of 1 to `max_request_blocks` blocks (most of them 16 or fewer) anywhere (a long seek), or near the previous one (a short seek);
/// - the next blocks after the previous request (a sequential stream);
/// - the previous request's blocks read again (a re-read), or the last write's blocks read back;
/// - a read starting inside the previous request (a partial hit).
///
/// Think times mix none (the next command finds the drive still reading ahead or destaging), short (up to 2 ms:
/// the drive is part way through its background work) and long (up to 200 ms: idle).
pub fn synthetic(blocks: u64, max_request_blocks: u64, count: usize, seed: u64) -> Vec<ValidateRecord> {
    let mut rng = iosched_core::rng::SimRng::new(seed, 0x5eed_d15c);
    let mut out: Vec<ValidateRecord> = Vec::with_capacity(count);
    let mut last_write: Option<(u64, u64)> = None;
    let max_blocks = max_request_blocks.clamp(1, blocks);
    for _ in 0..count {
        let size = |rng: &mut iosched_core::rng::SimRng| match rng.below(10) {
            0..=4 => 1 + rng.below(16.min(max_blocks)),
            5..=7 => 1 + rng.below(64.min(max_blocks)),
            _ => 1 + rng.below(max_blocks),
        };
        let mut op = if rng.percent(40) { Op::Write } else { Op::Read };
        let mut n = size(&mut rng);
        let prev = out.last().map(|r| (r.op, r.block, r.blocks));
        let block = match (rng.below(100), prev) {
            (0..=29, _) | (_, None) => rng.below(blocks),
            (30..=44, Some((_, b, _))) => b.saturating_sub(2000) + rng.below(4000),
            (45..=64, Some((o, b, c))) => {
                if rng.percent(80) {
                    op = o;
                }
                b + c
            }
            (65..=79, Some((_, b, c))) => {
                op = Op::Read;
                n = c;
                b
            }
            (80..=89, Some((_, b, c))) => {
                op = Op::Read;
                match last_write {
                    Some((wb, wc)) => {
                        n = wc;
                        wb
                    }
                    None => b + rng.below(c),
                }
            }
            (_, Some((_, b, c))) => {
                op = Op::Read;
                b + rng.below(c)
            }
        };
        let n = n.clamp(1, blocks);
        let block = block.min(blocks - n);
        let think_us = match rng.below(10) {
            0..=2 => 0.0,
            3..=5 => rng.unit_f64() * 2_000.0,
            6..=7 => rng.unit_f64() * 20_000.0,
            _ => rng.unit_f64() * 200_000.0,
        };
        if op == Op::Write {
            last_write = Some((block, n));
        }
        out.push(ValidateRecord {
            op,
            buffer_action: BufferAction::Miss,
            block,
            blocks: n,
            measured_us: 0.0,
            // Whole nanoseconds, as the trace prints them.
            next_interval_us: (think_us * 1e3).round() / 1e3,
        });
    }
    out
}

/// A validate trace of reads larger than a drive's cache segment (`segment_blocks`), for comparing two simulators
/// where the segment is a ring the media fills and the bus empties: `count` reads over a drive of `blocks` blocks,
/// the same for the same `seed`. Seven in ten are 1 to 8 segments long, the others fit a segment; each continues
/// the previous read (half of them), starts inside it, starts a little before its end, or lands anywhere; think
/// times as [`synthetic`]'s. Reads only: DiskSim itself fails assertions on some writes larger than a segment.
pub fn synthetic_large_reads(blocks: u64, segment_blocks: u64, count: usize, seed: u64) -> Vec<ValidateRecord> {
    let mut rng = iosched_core::rng::SimRng::new(seed, 0x1a26_e5ea);
    let segment = segment_blocks.max(1);
    let mut out: Vec<ValidateRecord> = Vec::with_capacity(count);
    for _ in 0..count {
        let n = if rng.percent(70) { segment + 1 + rng.below(7 * segment) } else { 1 + rng.below(segment) };
        let n = n.clamp(1, blocks);
        let block = match (rng.below(100), out.last()) {
            (0..=49, Some(p)) => p.block + p.blocks,
            (50..=64, Some(p)) => p.block + rng.below(p.blocks),
            (65..=79, Some(p)) => (p.block + p.blocks).saturating_sub(1 + rng.below(segment.min(200))),
            _ => rng.below(blocks),
        };
        let block = block.min(blocks - n);
        let think_us = match rng.below(5) {
            0..=1 => 0.0,
            2 => rng.unit_f64() * 2_000.0,
            3 => rng.unit_f64() * 20_000.0,
            _ => rng.unit_f64() * 200_000.0,
        };
        out.push(ValidateRecord {
            op: Op::Read,
            buffer_action: BufferAction::Miss,
            block,
            blocks: n,
            measured_us: 0.0,
            next_interval_us: (think_us * 1e3).round() / 1e3,
        });
    }
    out
}

/// `records` as validate-trace text.
pub fn format(records: &[ValidateRecord]) -> String {
    let mut text = String::with_capacity(records.len() * 40);
    for r in records {
        let op = if r.op == Op::Write { 'W' } else { 'R' };
        text.push_str(&format!(
            "{op} {} {} {} {:.3} {:.3}\n",
            r.buffer_action.name(),
            r.block,
            r.blocks,
            r.measured_us,
            r.next_interval_us
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_records_and_rejects_bad_lines() {
        let recs = parse("R Hit 1975456 4 15362.0 56074.0\nW Miss 10 8 900 1000.5\n", "t.trace").unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!((recs[1].op, recs[1].block, recs[1].blocks), (Op::Write, 10, 8));
        assert_eq!(recs[0].measured_us, 15362.0);
        for (text, want) in [
            ("R Hit 1 4 5\n", "t.trace:1: expected 6 fields"),
            ("R Hit 1 4 5 6\nX Hit 1 4 5 6\n", "t.trace:2: expected R or W"),
            ("R Hit -1 4 5 6\n", "t.trace:1: blkno: expected a whole number"),
            ("R Hit 1 0 5 6\n", "t.trace:1: bcount: expected at least 1"),
            ("R Hit 1 4 fast 6\n", "t.trace:1: servtime: expected a time"),
            ("R Hit 1 4 5 1e300\n", "t.trace:1: nextinter: expected a time in microseconds from 0 to 1e12"),
            ("R Hit 1 4 nan 6\n", "t.trace:1: servtime: expected a time"),
            ("R Hit 1 4 5 inf\n", "t.trace:1: nextinter: expected a time"),
            ("R Hit 1 4 -5 6\n", "t.trace:1: servtime: expected a time"),
            ("\n", "t.trace: no requests"),
        ] {
            let got = parse(text, "t.trace").unwrap_err().to_string();
            assert!(got.starts_with(want), "{text:?}: {got}");
        }
    }

    #[test]
    fn synthetic_traces_stay_on_the_drive_repeat_and_read_back() {
        let a = synthetic(10_000, 256, 3000, 7);
        assert_eq!(a, synthetic(10_000, 256, 3000, 7), "the same seed, the same trace");
        assert_ne!(a, synthetic(10_000, 256, 3000, 8));
        assert!(a.iter().all(|r| r.blocks >= 1 && r.blocks <= 256 && r.block + r.blocks <= 10_000));
        let writes = a.iter().filter(|r| r.op == Op::Write).count();
        assert!((600..=1500).contains(&writes), "{writes} writes");
        let sequential = a.windows(2).filter(|w| w[1].block == w[0].block + w[0].blocks).count();
        let rereads = a.windows(2).filter(|w| w[1].op == Op::Read && w[1].block == w[0].block).count();
        assert!(sequential > 300 && rereads > 300, "{sequential} sequential, {rereads} re-reads");
        assert!(a.iter().filter(|r| r.next_interval_us == 0.0).count() > 600);
        // It reads back as it was written.
        assert_eq!(parse(&format(&a), "s.trace").unwrap(), a);
        // A drive smaller than the largest request.
        assert!(synthetic(3, 256, 100, 1).iter().all(|r| r.block + r.blocks <= 3));
        assert!(synthetic(10_000, 64, 1000, 1).iter().all(|r| r.blocks <= 64));
    }
}
