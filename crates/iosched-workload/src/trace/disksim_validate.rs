//! DiskSim's "validate" traces: one request per line, `R|W BUFFACTION blkno bcount servtime_us nextinter_us`,
//! where servtime is the access time measured on the real drive and nextinter the think time before the next
//! request is issued, counted from this one's completion (DiskSim src/disksim_iodriver.c, the VALIDATE case).
//! BUFFACTION (Hit, Miss, Doub, Trip) records what the measuring tool saw; it is kept but not used to steer
//! the model.

use super::{parse_lines, read_with, Format, Trace, TraceError, TraceRecord};
use iosched_core::request::Op;
use std::path::Path;

#[derive(Clone, Debug, PartialEq)]
pub struct ValidateRecord {
    pub op: Op,
    pub buffer_action: String,
    pub block: u64,
    pub blocks: u64,
    pub measured_us: f64,
    pub next_interval_us: f64,
}

/// Read a validate trace.
pub fn read(path: &Path) -> Result<Vec<ValidateRecord>, TraceError> {
    read_with(path, parse)
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
    parse_lines(text, file, 6, "R|W action blkno bcount servtime nextinter", |line| {
        let f = &line.fields;
        let op = match f[0] {
            "R" | "r" => Op::Read,
            "W" | "w" => Op::Write,
            other => return Err(line.err(format!("expected R or W, found '{other}'"))),
        };
        let time = |k: usize, what: &str| -> Result<f64, TraceError> {
            f[k].parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| line.err(format!("{what}: expected a time in microseconds, found '{}'", f[k])))
        };
        let blocks = line.whole(3, "bcount")?;
        if blocks == 0 {
            return Err(line.err("bcount: expected at least 1 block, found 0"));
        }
        Ok(ValidateRecord {
            op,
            buffer_action: f[1].to_string(),
            block: line.whole(2, "blkno")?,
            blocks,
            measured_us: time(4, "servtime")?,
            next_interval_us: time(5, "nextinter")?,
        })
    })
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
            ("\n", "t.trace:0: no requests"),
        ] {
            let got = parse(text, "t.trace").unwrap_err().to_string();
            assert!(got.starts_with(want), "{text:?}: {got}");
        }
    }
}
