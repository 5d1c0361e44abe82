//! MQSim's trace format (CMU-SAFARI/MQSim, ASCII): one request per line,
//! `arrival_ns device lba_sectors size_sectors type`, type 1 a read and 0 a write, sectors of 512 bytes.
//! The device number becomes the record's stream (its flow).

use super::TraceError;
use crate::job::Location;
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
    let text = iosched_core::input::read_text(path, "trace")?;
    parse(&text, &path.display().to_string())
}

/// Parse MQSim trace text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Vec<MqsimRecord>, TraceError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let err = |message: String| TraceError { location: Location { file: file.to_string(), line: i + 1 }, message };
        if fields.len() != 5 {
            return Err(err(format!(
                "expected 5 fields 'arrival_ns device lba_sectors size_sectors type', found {}",
                fields.len()
            )));
        }
        let int = |k: usize, what: &str| {
            fields[k].parse::<u64>().map_err(|_| err(format!("{what}: expected a whole number, found '{}'", fields[k])))
        };
        let at_ns = int(0, "arrival_ns")?;
        let device = u32::try_from(int(1, "device")?).map_err(|_| err("device: too large".into()))?;
        let lba = int(2, "lba_sectors")?;
        let sectors = int(3, "size_sectors")?;
        if sectors == 0 {
            return Err(err("size_sectors: expected at least 1, found 0".into()));
        }
        let op = match fields[4] {
            "1" => Op::Read,
            "0" => Op::Write,
            other => return Err(err(format!("type: expected 1 (read) or 0 (write), found '{other}'"))),
        };
        if let Some(prev) = out.last().map(|r: &MqsimRecord| r.at_ns) {
            if at_ns < prev {
                return Err(err(format!("arrival_ns {at_ns} is before the previous line's {prev}")));
            }
        }
        let offset_bytes = lba.checked_mul(SECTOR_BYTES).ok_or_else(|| err("lba_sectors: too large".into()))?;
        out.push(MqsimRecord { at_ns, device, op, offset_bytes, len_bytes: sectors * SECTOR_BYTES });
    }
    if out.is_empty() {
        return Err(TraceError {
            location: Location { file: file.to_string(), line: 0 },
            message: "no requests".into(),
        });
    }
    Ok(out)
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
