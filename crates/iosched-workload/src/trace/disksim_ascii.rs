//! DiskSim's ascii input traces: `arrival_ms devno blkno size_blocks flags`, the arrival in milliseconds, block
//! number and size in 512-byte blocks, flags bit 0 set for a read (DiskSim's B_READ). The device number becomes
//! the stream.

use super::{parse_fields, Format, Separator, Trace, TraceError, TraceRecord};
use iosched_core::request::Op;
use iosched_core::units::SECTOR_BYTES;

pub fn parse(text: &str, file: &str) -> Result<Trace, TraceError> {
    let layout = "arrival_ms devno blkno size_blocks flags";
    let (records, skipped) = parse_fields(text, file, Separator::Whitespace, 5..=5, layout, |line| {
        let at_ns = line.time_ns(0, "arrival_ms", 1e6)?;
        let stream = line.stream(1, "devno")?;
        let offset = line.bytes(line.whole(2, "blkno")?, SECTOR_BYTES, "blkno")?;
        let len = line.bytes(line.nonzero(line.whole(3, "size_blocks")?, "size_blocks")?, SECTOR_BYTES, "size")?;
        let op = if line.whole(4, "flags")? & 1 == 1 { Op::Read } else { Op::Write };
        Ok(Some(TraceRecord::new(at_ns, op, offset, len, stream)))
    })?;
    Ok(Trace::rebased(Format::DisksimAscii, records, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_milliseconds_and_the_read_flag() {
        let t = parse("0.000000 0 1000 8 1\n12.5 1 2000 16 0\n", "d").unwrap();
        assert_eq!(t.records[0], TraceRecord::new(0, Op::Read, 512_000, 4096, 0));
        assert_eq!(t.records[1], TraceRecord::new(12_500_000, Op::Write, 1_024_000, 8192, 1));
        let e = parse("0.0 0 1000 8 x\n", "d").unwrap_err().to_string();
        assert!(e.starts_with("d:1: flags: expected a whole number"), "{e}");
    }
}
