//! FIU traces (SNIA IOTTA 390: homes, web-vm, mail): space-separated `ts_ns pid process lba size_blocks W|R major
//! minor md5`, the LBA and size in 512-byte blocks. The process id becomes the stream.

use super::{parse_fields, Format, Separator, Trace, TraceError, TraceRecord};
use iosched_core::request::Op;
use iosched_core::units::SECTOR_BYTES;

pub fn parse(text: &str, file: &str) -> Result<Trace, TraceError> {
    let layout = "ts_ns pid process lba size_blocks W|R major minor md5";
    let (records, skipped) = parse_fields(text, file, Separator::Whitespace, 9..=9, layout, |line| {
        let at_ns = line.whole(0, "ts_ns")?;
        let stream = line.stream(1, "pid")?;
        let offset = line.bytes(line.whole(3, "lba")?, SECTOR_BYTES, "lba")?;
        let len = line.bytes(line.nonzero(line.whole(4, "size_blocks")?, "size_blocks")?, SECTOR_BYTES, "size")?;
        let op = match line.fields[5] {
            "R" | "r" => Op::Read,
            "W" | "w" => Op::Write,
            other => return Err(line.err(format!("expected W or R, found '{other}'"))),
        };
        Ok(Some(TraceRecord::new(at_ns, op, offset, len, stream)))
    })?;
    Ok(Trace::rebased(Format::Fiu, records, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_blocks_and_processes() {
        let t = parse(
            "89966527643045 4890 syslogd 904265560 8 W 6 0 531e779ec11e3b8b4d5b3bbc5d14a2ec\n\
                       89966527653045 12 bash 100 16 R 6 0 0\n",
            "f",
        )
        .unwrap();
        assert_eq!(t.records[0], TraceRecord::new(0, Op::Write, 904265560 * 512, 4096, 4890));
        assert_eq!(t.records[1], TraceRecord::new(10_000, Op::Read, 51200, 8192, 12));
        let e = parse("1 2 p 3 8 X 6 0 m\n", "f").unwrap_err().to_string();
        assert!(e.starts_with("f:1: expected W or R"), "{e}");
    }
}
