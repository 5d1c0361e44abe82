//! SPC traces (the UMass Financial and WebSearch traces): CSV `ASU, LBA, Size, Opcode, Timestamp`, the LBA in
//! 512-byte sectors, the size in bytes, opcode r or w, the timestamp in seconds. The ASU (application
//! storage unit) becomes the stream. Extra trailing fields, which some copies carry, are not allowed.

use super::{parse_fields, Format, Separator, Trace, TraceError, TraceRecord};
use iosched_core::request::Op;
use iosched_core::units::SECTOR_BYTES;

pub fn parse(text: &str, file: &str) -> Result<Trace, TraceError> {
    let (records, skipped) =
        parse_fields(text, file, Separator::Comma, 5..=5, "ASU,LBA,Size,Opcode,Timestamp", |line| {
            let stream = line.stream(0, "ASU")?;
            let offset = line.bytes(line.whole(1, "LBA")?, SECTOR_BYTES, "LBA")?;
            let len = line.nonzero(line.whole(2, "Size")?, "Size")?;
            let op = match line.fields[3] {
                "r" | "R" => Op::Read,
                "w" | "W" => Op::Write,
                other => return Err(line.err(format!("Opcode: expected r or w, found '{other}'"))),
            };
            let at_ns = line.time_ns(4, "Timestamp", 1e9)?;
            Ok(Some(TraceRecord::new(at_ns, op, offset, len, stream)))
        })?;
    Ok(Trace::rebased(Format::Spc, records, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sectors_bytes_and_seconds() {
        let t = parse("0,303567,3584,w,0.000000\n1,10,512,r,0.5\n", "s").unwrap();
        assert_eq!(t.records[0], TraceRecord::new(0, Op::Write, 303567 * 512, 3584, 0));
        assert_eq!(t.records[1], TraceRecord::new(500_000_000, Op::Read, 5120, 512, 1));
        let e = parse("0,1,512,x,0.1\n", "s").unwrap_err().to_string();
        assert!(e.starts_with("s:1: Opcode: expected r or w"), "{e}");
        let e = parse("0,1,512,r,-1\n", "s").unwrap_err().to_string();
        assert!(e.starts_with("s:1: Timestamp: expected a time"), "{e}");
    }
}
