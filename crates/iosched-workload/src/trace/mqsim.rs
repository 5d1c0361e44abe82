//! MQSim's trace format (CMU-SAFARI/MQSim, ASCII): one request per line,
//! `arrival_ns device lba_sectors size_sectors type`, type 1 a read and 0 a write, sectors of 512 bytes.
//! The device number becomes the record's stream (its flow).

use super::{parse_lines, Format, Trace, TraceError, TraceRecord};
use iosched_core::request::Op;
use iosched_core::units::SECTOR_BYTES;

/// Parse MQSim trace text; `file` names it in errors.
pub fn parse_trace(text: &str, file: &str) -> Result<Trace, TraceError> {
    let mut previous_ns = 0;
    let records = parse_lines(text, file, 5, "arrival_ns device lba_sectors size_sectors type", |line| {
        let at_ns = line.whole(0, "arrival_ns")?;
        let device = line.stream(1, "device")?;
        let lba = line.whole(2, "lba_sectors")?;
        let sectors = line.nonzero(line.whole(3, "size_sectors")?, "size_sectors")?;
        let op = match line.fields[4] {
            "1" => Op::Read,
            "0" => Op::Write,
            other => return Err(line.err(format!("type: expected 1 (read) or 0 (write), found '{other}'"))),
        };
        if at_ns < previous_ns {
            return Err(line.err(format!("arrival_ns {at_ns} is before the previous line's {previous_ns}")));
        }
        previous_ns = at_ns;
        let offset_bytes = line.bytes(lba, SECTOR_BYTES, "lba_sectors")?;
        let len_bytes = line.bytes(sectors, SECTOR_BYTES, "size_sectors")?;
        Ok(TraceRecord::new(at_ns, op, offset_bytes, len_bytes, device))
    })?;
    Ok(Trace::rebased(Format::Mqsim, records, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_and_names_bad_ones() {
        let t = parse_trace("11413000 0 657728 16 1\n11565000 1 31244784 64 0\n", "t").unwrap();
        // Times are made relative to the first record.
        assert_eq!(t.records[0], TraceRecord::new(0, Op::Read, 657728 * 512, 8192, 0));
        assert_eq!((t.records[1].op, t.records[1].at_ns, t.records[1].stream), (Op::Write, 152_000, 1));
        let e = parse_trace("1 0 5 16 1\n2 0 5 16 x\n", "t.trace").unwrap_err().to_string();
        assert!(e.starts_with("t.trace:2:") && e.contains("type"), "{e}");
        let e = parse_trace("1 0 5 16\n", "t.trace").unwrap_err().to_string();
        assert!(e.contains("expected 5 fields"), "{e}");
        let e = parse_trace("5 0 5 16 1\n4 0 5 16 1\n", "t.trace").unwrap_err().to_string();
        assert!(e.contains("before the previous"), "{e}");
    }
}
