//! Writing what a run issued, so that other tools can replay or analyse it:
//! - fio iolog version 3 ([`iolog_v3`]): `fio --read_iolog=FILE` replays it (one file, named by the caller);
//! - blkparse text ([`blkparse`]): for each request its Q (issued), D (sent to the device) and C (completed)
//!   events, in time order, which blkparse-reading tools (and iosched's own reader) take.

use iosched_core::request::Op;
use std::fmt::Write as _;

/// One request as a run saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IssuedRequest {
    pub queued_ns: u64,
    pub dispatched_ns: u64,
    pub completed_ns: u64,
    pub op: Op,
    pub offset_bytes: u64,
    pub len_bytes: u64,
    /// The flow, written as the process id.
    pub stream: u32,
    pub sync: bool,
    /// The I/O failed (written as a non-zero error in C events).
    pub failed: bool,
}

fn iolog_action(op: Op) -> &'static str {
    match op {
        Op::Read => "read",
        Op::Write => "write",
        Op::Trim => "trim",
        Op::Flush => "sync",
    }
}

/// fio iolog v3 of `requests` (in issue order) against `file_name`; timestamps in microseconds.
pub fn iolog_v3(requests: &[IssuedRequest], file_name: &str) -> String {
    let mut out = String::from("fio version 3 iolog\n");
    let _ = writeln!(out, "0 {file_name} add");
    let _ = writeln!(out, "0 {file_name} open");
    let mut last_us = 0;
    for r in requests {
        last_us = r.queued_ns / 1000;
        let (offset, len) = if r.op == Op::Flush { (0, 0) } else { (r.offset_bytes, r.len_bytes) };
        let _ = writeln!(out, "{last_us} {file_name} {} {offset} {len}", iolog_action(r.op));
    }
    let _ = writeln!(out, "{last_us} {file_name} close");
    out
}

fn rwbs(r: &IssuedRequest) -> String {
    let mut s = String::new();
    match r.op {
        Op::Read => s.push('R'),
        Op::Write => s.push('W'),
        Op::Trim => s.push('D'),
        Op::Flush => s.push_str("FN"),
    }
    if r.sync && r.op == Op::Write {
        s.push('S');
    }
    s
}

/// blkparse text of `requests` on device `major,minor`: Q, D and C events in time order (ties: Q before D
/// before C, then by request), sequence numbers in that order, all on CPU 0.
pub fn blkparse(requests: &[IssuedRequest], major: u32, minor: u32) -> String {
    let mut events: Vec<(u64, u8, usize)> = Vec::with_capacity(requests.len() * 3);
    for (i, r) in requests.iter().enumerate() {
        events.push((r.queued_ns, 0, i));
        events.push((r.dispatched_ns, 1, i));
        events.push((r.completed_ns, 2, i));
    }
    events.sort_unstable();
    let mut out = String::new();
    for (seq, (t, kind, i)) in events.into_iter().enumerate() {
        let r = &requests[i];
        let action = ["Q", "D", "C"][kind as usize];
        let _ = write!(
            out,
            "{major:>3},{minor:<3} {:>3} {:>8} {:>5}.{:09} {:>5}  {action} {:>3} ",
            0,
            seq + 1,
            t / 1_000_000_000,
            t % 1_000_000_000,
            r.stream,
            rwbs(r)
        );
        if r.op != Op::Flush {
            let _ = write!(out, "{} + {} ", r.offset_bytes / 512, r.len_bytes.div_ceil(512));
        }
        if kind == 2 {
            let _ = writeln!(out, "[{}]", if r.failed { -5 } else { 0 });
        } else {
            let _ = writeln!(out, "[flow{}]", r.stream);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{blkparse as blkparse_reader, iolog, TraceRecord};

    fn sample() -> Vec<IssuedRequest> {
        let r = |q: u64, op, off, len, stream, sync| IssuedRequest {
            queued_ns: q,
            dispatched_ns: q + 500,
            completed_ns: q + 100_000,
            op,
            offset_bytes: off,
            len_bytes: len,
            stream,
            sync,
            failed: false,
        };
        vec![
            r(0, Op::Read, 4096, 4096, 1, true),
            r(2_000, Op::Write, 1 << 20, 65536, 2, false),
            r(3_000, Op::Flush, 0, 0, 2, true),
            r(1_500_000_000, Op::Trim, 8192, 8192, 1, true),
        ]
    }

    #[test]
    fn blkparse_text_reads_back_as_the_same_requests() {
        let text = blkparse(&sample(), 8, 0);
        let t = blkparse_reader::parse(&text, "w").unwrap();
        assert_eq!(t.skipped, 8, "D and C events are not replayed");
        let want: Vec<TraceRecord> = sample()
            .iter()
            .map(|r| TraceRecord {
                at_ns: r.queued_ns,
                op: r.op,
                offset_bytes: r.offset_bytes,
                len_bytes: r.len_bytes,
                stream: r.stream,
                sync: r.sync,
            })
            .collect();
        assert_eq!(t.records, want);
    }

    #[test]
    fn iolog_reads_back_with_microsecond_times() {
        let text = iolog_v3(&sample(), "/dev/sdb");
        assert!(text.starts_with("fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n0 /dev/sdb read 4096 4096\n"));
        let t = iolog::parse(&text, "w").unwrap();
        let got: Vec<(u64, Op, u64, u64)> =
            t.records.iter().map(|r| (r.at_ns, r.op, r.offset_bytes, r.len_bytes)).collect();
        assert_eq!(
            got,
            vec![
                (0, Op::Read, 4096, 4096),
                (2_000, Op::Write, 1 << 20, 65536),
                (3_000, Op::Flush, 0, 0),
                (1_500_000_000, Op::Trim, 8192, 8192)
            ]
        );
    }
}
