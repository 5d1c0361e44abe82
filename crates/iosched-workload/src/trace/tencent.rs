//! Tencent CBS traces (SNIA IOTTA 27917): CSV `Timestamp, Offset, Size, IOType, VolumeID`, the timestamp in
//! seconds, offset and size in 512-byte sectors, IOType 0 a read and 1 a write. The volume becomes the stream.

use super::{parse_fields, Format, Separator, Trace, TraceError, TraceRecord};
use iosched_core::request::Op;
use iosched_core::units::SECTOR_BYTES;

pub fn parse(text: &str, file: &str) -> Result<Trace, TraceError> {
    let layout = "Timestamp,Offset,Size,IOType,VolumeID";
    let (records, skipped) = parse_fields(text, file, Separator::Comma, 5..=5, layout, |line| {
        let at_ns = line.time_ns(0, "Timestamp", 1e9)?;
        let offset = line.bytes(line.whole(1, "Offset")?, SECTOR_BYTES, "Offset")?;
        let len = line.bytes(line.nonzero(line.whole(2, "Size")?, "Size")?, SECTOR_BYTES, "Size")?;
        let op = match line.fields[3] {
            "0" => Op::Read,
            "1" => Op::Write,
            other => return Err(line.err(format!("IOType: expected 0 (read) or 1 (write), found '{other}'"))),
        };
        let stream = line.stream(4, "VolumeID")?;
        Ok(Some(TraceRecord::new(at_ns, op, offset, len, stream)))
    })?;
    Ok(Trace::rebased(Format::Tencent, records, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sectors_and_seconds() {
        let t = parse("1538323200,2048,8,1,1283\n1538323201,0,16,0,7\n", "t").unwrap();
        assert_eq!(t.records[0], TraceRecord::new(0, Op::Write, 2048 * 512, 4096, 1283));
        assert_eq!(t.records[1], TraceRecord::new(1_000_000_000, Op::Read, 0, 8192, 7));
        let e = parse("1,0,8,2,1\n", "t").unwrap_err().to_string();
        assert!(e.starts_with("t:1: IOType: expected 0 (read) or 1 (write)"), "{e}");
    }
}
