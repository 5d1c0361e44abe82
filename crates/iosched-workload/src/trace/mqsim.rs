//! MQSim's trace format (CMU-SAFARI/MQSim, ASCII): one request per line,
//! `arrival_ns device lba_sectors size_sectors type`, type 1 a read and 0 a write, sectors of 512 bytes.
//! The device number becomes the record's stream (its flow).

use super::{parse_lines, read_with, Format, Trace, TraceError, TraceRecord};
use iosched_core::request::Op;
use iosched_core::units::SECTOR_BYTES;
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MqsimRecord {
    pub at_ns: u64,
    pub device: u32,
    pub op: Op,
    pub offset_bytes: u64,
    pub len_bytes: u64,
}

/// Read an MQSim trace.
pub fn read(path: &Path) -> Result<Vec<MqsimRecord>, TraceError> {
    read_with(path, parse)
}

/// Parse MQSim trace text into the common form (the device is the stream).
pub fn parse_trace(text: &str, file: &str) -> Result<Trace, TraceError> {
    let records = parse(text, file)?
        .into_iter()
        .map(|r| TraceRecord::new(r.at_ns, r.op, r.offset_bytes, r.len_bytes, r.device))
        .collect();
    Ok(Trace::rebased(Format::Mqsim, records, 0))
}

/// Parse MQSim trace text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Vec<MqsimRecord>, TraceError> {
    let mut previous_ns = 0;
    parse_lines(text, file, 5, "arrival_ns device lba_sectors size_sectors type", |line| {
        let at_ns = line.whole(0, "arrival_ns")?;
        let device = u32::try_from(line.whole(1, "device")?).map_err(|_| line.err("device: too large"))?;
        let lba = line.whole(2, "lba_sectors")?;
        let sectors = line.whole(3, "size_sectors")?;
        if sectors == 0 {
            return Err(line.err("size_sectors: expected at least 1, found 0"));
        }
        let op = match line.fields[4] {
            "1" => Op::Read,
            "0" => Op::Write,
            other => return Err(line.err(format!("type: expected 1 (read) or 0 (write), found '{other}'"))),
        };
        if at_ns < previous_ns {
            return Err(line.err(format!("arrival_ns {at_ns} is before the previous line's {previous_ns}")));
        }
        previous_ns = at_ns;
        let offset_bytes = lba.checked_mul(SECTOR_BYTES).ok_or_else(|| line.err("lba_sectors: too large"))?;
        let len_bytes = sectors.checked_mul(SECTOR_BYTES).ok_or_else(|| line.err("size_sectors: too large"))?;
        Ok(MqsimRecord { at_ns, device, op, offset_bytes, len_bytes })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_and_names_bad_ones() {
        let r = parse("11413000 0 657728 16 1\n11565000 1 31244784 64 0\n", "t").unwrap();
        assert_eq!(
            r[0],
            MqsimRecord { at_ns: 11413000, device: 0, op: Op::Read, offset_bytes: 657728 * 512, len_bytes: 8192 }
        );
        assert_eq!(r[1].op, Op::Write);
        let e = parse("1 0 5 16 1\n2 0 5 16 x\n", "t.trace").unwrap_err().to_string();
        assert!(e.starts_with("t.trace:2:") && e.contains("type"), "{e}");
        let e = parse("1 0 5 16\n", "t.trace").unwrap_err().to_string();
        assert!(e.contains("expected 5 fields"), "{e}");
        let e = parse("5 0 5 16 1\n4 0 5 16 1\n", "t.trace").unwrap_err().to_string();
        assert!(e.contains("before the previous"), "{e}");
    }
}
