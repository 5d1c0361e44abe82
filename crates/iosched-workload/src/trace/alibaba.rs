//! Alibaba block traces (alibaba/block-traces): CSV `device_id, opcode, offset, length, timestamp`, opcode R or
//! W, offset and length in bytes, the timestamp in microseconds. The device becomes the stream.

use super::{parse_fields, Format, Separator, Trace, TraceError, TraceRecord};
use iosched_core::request::Op;

pub fn parse(text: &str, file: &str) -> Result<Trace, TraceError> {
    let layout = "device_id,opcode,offset,length,timestamp";
    let (records, skipped) = parse_fields(text, file, Separator::Comma, 5..=5, layout, |line| {
        let stream = line.stream(0, "device_id")?;
        let op = match line.fields[1] {
            "R" | "r" => Op::Read,
            "W" | "w" => Op::Write,
            other => return Err(line.err(format!("opcode: expected R or W, found '{other}'"))),
        };
        let offset = line.whole(2, "offset")?;
        let len = line.nonzero(line.whole(3, "length")?, "length")?;
        let at_ns = line.bytes(line.whole(4, "timestamp")?, 1000, "timestamp")?;
        Ok(Some(TraceRecord::new(at_ns, op, offset, len, stream)))
    })?;
    Ok(Trace::rebased(Format::Alibaba, records, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_microsecond_times() {
        let t = parse("3,W,4096,8192,1577808000000010\n3,R,0,4096,1577808000000000\n", "a").unwrap();
        assert_eq!(t.records[0], TraceRecord::new(10_000, Op::Write, 4096, 8192, 3));
        assert_eq!(t.records[1].at_ns, 0);
        let e = parse("3,D,0,4096,1\n", "a").unwrap_err().to_string();
        assert!(e.starts_with("a:1: opcode: expected R or W"), "{e}");
    }
}
