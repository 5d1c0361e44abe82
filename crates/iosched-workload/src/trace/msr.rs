//! MSR Cambridge traces (SNIA IOTTA 388): CSV `Timestamp, Hostname, DiskNumber, Type, Offset, Size,
//! ResponseTime`, the timestamp in Windows filetime (100 ns units), Type Read or Write, offset and size in
//! bytes. The disk number becomes the stream; the measured response time is not used.

use super::{parse_fields, Format, Separator, Trace, TraceError, TraceRecord};
use iosched_core::request::Op;

pub fn parse(text: &str, file: &str) -> Result<Trace, TraceError> {
    let layout = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";
    let (records, skipped) = parse_fields(text, file, Separator::Comma, 7..=7, layout, |line| {
        // Filetimes are about 1.3e17: keep them in 100 ns units until rebased, so nothing overflows.
        let ticks = line.whole(0, "Timestamp")?;
        let stream = line.stream(2, "DiskNumber")?;
        let op = match line.fields[3] {
            "Read" | "read" => Op::Read,
            "Write" | "write" => Op::Write,
            other => return Err(line.err(format!("Type: expected Read or Write, found '{other}'"))),
        };
        let offset = line.whole(4, "Offset")?;
        let len = line.nonzero(line.whole(5, "Size")?, "Size")?;
        Ok(Some(TraceRecord::new(ticks, op, offset, len, stream)))
    })?;
    let first = records.iter().map(|r| r.at_ns).min().unwrap_or(0);
    let records =
        records.into_iter().map(|r| TraceRecord { at_ns: (r.at_ns - first).saturating_mul(100), ..r }).collect();
    Ok(Trace { format: Format::Msr, records, skipped, origin: first })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_filetimes_relative_to_the_first() {
        let t =
            parse("128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295524663,hm,1,Read,0,512,10\n", "m")
                .unwrap();
        assert_eq!(t.records[0], TraceRecord::new(0, Op::Write, 9056014336, 2048, 0));
        assert_eq!((t.records[1].at_ns, t.records[1].op, t.records[1].stream), (1_000_000, Op::Read, 1));
        for (text, want) in [
            ("1,hm,0,Erase,0,512,1\n", "m:1: Type: expected Read or Write"),
            ("1,hm,0,Read,0,0,1\n", "m:1: Size: expected at least 1"),
            ("1,hm,0,Read,0\n", "m:1: expected 7 fields"),
            ("x,hm,0,Read,0,512,1\n", "m:1: Timestamp: expected a whole number"),
        ] {
            let e = parse(text, "m").unwrap_err().to_string();
            assert!(e.starts_with(want), "{e}");
        }
    }
}
