//! blktrace's binary per-CPU files: 48-byte records `u32 magic (0x65617400 | version), u32 sequence, u64 time_ns,
//! u64 sector, u32 bytes, u32 action, u32 pid, u32 device, u32 cpu, u16 error, u16 pdu_len`, each followed by
//! pdu_len bytes, in the recording host's byte order (told by the magic).
//!
//! The action's low 16 bits are the event (1 = queue, the request as issued), its high 16 bits the categories
//! (read 1<<0, write 1<<1, flush 1<<2, sync 1<<3, notify 1<<10, discard 1<<13). As for blkparse text, only
//! queue events are replayed; notify records and other events are counted as skipped. The pid becomes the
//! stream. Errors name the record number (in place of a line) and the byte offset.

use super::{Format, Trace, TraceError, TraceRecord};
use crate::job::Location;
use iosched_core::request::Op;

const MAGIC: u32 = 0x6561_7400;
const RECORD_BYTES: usize = 48;
const ACTION_QUEUE: u32 = 1;
const TC_WRITE: u32 = 1 << 1;
const TC_FLUSH: u32 = 1 << 2;
const TC_SYNC: u32 = 1 << 3;
const TC_NOTIFY: u32 = 1 << 10;
const TC_DISCARD: u32 = 1 << 13;

/// Whether `bytes` start with a blktrace record's magic, in either byte order.
pub fn has_magic(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && {
        let head = [bytes[0], bytes[1], bytes[2], bytes[3]];
        u32::from_le_bytes(head) & 0xffff_ff00 == MAGIC || u32::from_be_bytes(head) & 0xffff_ff00 == MAGIC
    }
}

pub fn parse(bytes: &[u8], file: &str) -> Result<Trace, TraceError> {
    let at = |record: usize, message: String| TraceError::new(Location::new(file, record), message);
    if !has_magic(bytes) {
        return Err(at(1, "expected blktrace's magic 0x656174xx at byte 0".to_string()));
    }
    let little = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) & 0xffff_ff00 == MAGIC;
    let u32_at = |b: &[u8], o: usize| {
        let v = [b[o], b[o + 1], b[o + 2], b[o + 3]];
        if little {
            u32::from_le_bytes(v)
        } else {
            u32::from_be_bytes(v)
        }
    };
    let u64_at = |b: &[u8], o: usize| {
        let v: [u8; 8] = b[o..o + 8].try_into().expect("8 bytes");
        if little {
            u64::from_le_bytes(v)
        } else {
            u64::from_be_bytes(v)
        }
    };
    let u16_at = |b: &[u8], o: usize| {
        let v = [b[o], b[o + 1]];
        if little {
            u16::from_le_bytes(v)
        } else {
            u16::from_be_bytes(v)
        }
    };
    let mut records = Vec::new();
    let mut skipped = 0;
    let mut pos = 0;
    let mut index = 0;
    while pos < bytes.len() {
        index += 1;
        if bytes.len() - pos < RECORD_BYTES {
            return Err(at(index, format!("truncated record at byte {pos}: {} of 48 bytes", bytes.len() - pos)));
        }
        let r = &bytes[pos..pos + RECORD_BYTES];
        let magic = u32_at(r, 0);
        if magic & 0xffff_ff00 != MAGIC {
            return Err(at(index, format!("expected the magic 0x656174xx at byte {pos}, found {magic:#010x}")));
        }
        let time_ns = u64_at(r, 8);
        let sector = u64_at(r, 16);
        let len = u32_at(r, 24) as u64;
        let action = u32_at(r, 28);
        let pid = u32_at(r, 32);
        let pdu_len = u16_at(r, 46) as usize;
        pos += RECORD_BYTES;
        if bytes.len() - pos < pdu_len {
            return Err(at(index, format!("truncated payload at byte {pos}: {pdu_len} bytes announced")));
        }
        pos += pdu_len;
        let (event, category) = (action & 0xffff, action >> 16);
        if event != ACTION_QUEUE || category & TC_NOTIFY != 0 {
            skipped += 1;
            continue;
        }
        let op = if category & TC_DISCARD != 0 {
            Op::Trim
        } else if len == 0 && category & TC_FLUSH != 0 {
            Op::Flush
        } else if category & TC_WRITE != 0 {
            Op::Write
        } else {
            Op::Read
        };
        if op != Op::Flush && len == 0 {
            skipped += 1;
            continue;
        }
        let offset = sector.checked_mul(512).ok_or_else(|| at(index, format!("sector {sector} too large")))?;
        let (offset, len) = if op == Op::Flush { (0, 0) } else { (offset, len) };
        let sync = op != Op::Write || category & TC_SYNC != 0;
        records.push(TraceRecord { at_ns: time_ns, op, offset_bytes: offset, len_bytes: len, stream: pid, sync });
    }
    if records.is_empty() {
        return Err(TraceError::new(Location::new(file, 0), "no queue events in the trace"));
    }
    Ok(Trace::rebased(Format::Blktrace, records, skipped))
}

/// One record in blktrace's layout, little-endian (for tests and for writing traces).
pub fn encode_le(time_ns: u64, sector: u64, bytes: u32, action: u32, pid: u32, pdu: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(RECORD_BYTES + pdu.len());
    out.extend_from_slice(&(MAGIC | 7).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&time_ns.to_le_bytes());
    out.extend_from_slice(&sector.to_le_bytes());
    out.extend_from_slice(&bytes.to_le_bytes());
    out.extend_from_slice(&action.to_le_bytes());
    out.extend_from_slice(&pid.to_le_bytes());
    out.extend_from_slice(&((8u32 << 20) | 32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(pdu.len() as u16).to_le_bytes());
    out.extend_from_slice(pdu);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_queue_events_in_either_byte_order() {
        let mut b = encode_le(1_000, 100, 4096, ACTION_QUEUE | ((TC_WRITE | TC_SYNC) << 16), 42, &[]);
        b.extend(encode_le(1_500, 100, 4096, 7 | (TC_WRITE << 16), 42, &[1, 2, 3])); // issue: skipped
        b.extend(encode_le(2_000, 8, 512, ACTION_QUEUE | (TC_DISCARD << 16), 7, &[]));
        b.extend(encode_le(3_000, 0, 0, ACTION_QUEUE | ((TC_FLUSH | TC_WRITE) << 16), 7, &[]));
        b.extend(encode_le(4_000, 16, 8192, ACTION_QUEUE, 9, &[]));
        let t = parse(&b, "bt").unwrap();
        assert_eq!(t.skipped, 1);
        assert_eq!(
            t.records[0],
            TraceRecord { at_ns: 0, op: Op::Write, offset_bytes: 51200, len_bytes: 4096, stream: 42, sync: true }
        );
        assert_eq!(t.records[1].op, Op::Trim);
        assert_eq!(t.records[2].op, Op::Flush);
        assert_eq!((t.records[3].op, t.records[3].at_ns, t.records[3].offset_bytes), (Op::Read, 3_000, 8192));
        // The same record big-endian.
        let mut be = Vec::new();
        for (k, w) in [4usize, 4, 8, 8, 4, 4, 4, 4, 4, 2, 2].iter().scan(0usize, |o, w| {
            let start = *o;
            *o += w;
            Some((start, *w))
        }) {
            let mut field = b[k..k + w].to_vec();
            field.reverse();
            be.extend(field);
        }
        let t = parse(&be, "bt").unwrap();
        assert_eq!((t.records[0].op, t.records[0].stream, t.records[0].len_bytes), (Op::Write, 42, 4096));
    }

    #[test]
    fn names_the_bad_record() {
        let mut b = encode_le(1, 1, 512, ACTION_QUEUE, 1, &[]);
        b.extend_from_slice(&[0x00, 0x74, 0x61, 0x65, 1, 2]);
        let e = parse(&b, "bt").unwrap_err().to_string();
        assert!(e.starts_with("bt:2: truncated record at byte 48"), "{e}");
        let mut b = encode_le(1, 1, 512, ACTION_QUEUE, 1, &[]);
        b.extend(vec![0u8; 48]);
        let e = parse(&b, "bt").unwrap_err().to_string();
        assert!(e.starts_with("bt:2: expected the magic"), "{e}");
        let e = parse(&encode_le(1, 1, 512, ACTION_QUEUE, 1, &[9; 4])[..50], "bt").unwrap_err().to_string();
        assert!(e.starts_with("bt:1: truncated payload"), "{e}");
    }
}
