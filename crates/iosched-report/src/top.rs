//! `iosched top`'s screen: per-flow and per-class throughput, IOPS and mean latency between two snapshots of a
//! running engine, with each flow's queues as they are in the later one.
//!
//! Latency is the mean, arrival to completion, of the requests that completed in the interval (snapshots carry
//! sums, not histograms, so no percentile is shown). A flow that moved nothing in the interval and has nothing queued
//! is left out and counted in a footnote.

use crate::table::cut;
use iosched_core::request::IoClass;
use iosched_core::snapshot::{DirectionCounts, FlowSnapshot, FlowsSnapshot};
use iosched_core::units;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Longest flow name shown in an 80-column terminal (most process names with their pid fit; longer ones end in
/// '~'). With the class and the six figures a row is 79 columns. A wider terminal widens the name column.
const NAME_WIDTH: usize = 22;

/// The narrowest screen: piped output, and a terminal that does not say its width.
pub const SCREEN_COLUMNS: usize = 80;

/// The widest name column a wide terminal gets (a command line rarely says more).
const NAME_WIDTH_MAX: usize = 60;

/// One row: what completed in the interval, and the queues now.
#[derive(Default)]
struct Row {
    reads: DirectionCounts,
    writes: DirectionCounts,
    /// Every request that completed (reads, writes, trims, flushes), for IOPS and latency.
    all: DirectionCounts,
    queued: u32,
    in_flight: u32,
}

impl Row {
    fn of(now: &FlowSnapshot, before: Option<&FlowSnapshot>) -> Row {
        let since = |now: &DirectionCounts, before: Option<&DirectionCounts>| match before {
            Some(b) => now.since(b),
            None => *now,
        };
        let reads = since(&now.reads, before.map(|b| &b.reads));
        let writes = since(&now.writes, before.map(|b| &b.writes));
        let mut all = reads;
        all.add(&writes);
        all.add(&since(&now.trims, before.map(|b| &b.trims)));
        all.add(&since(&now.flushes, before.map(|b| &b.flushes)));
        Row { reads, writes, all, queued: now.queued, in_flight: now.in_flight }
    }

    fn add(&mut self, other: &Row) {
        self.reads.add(&other.reads);
        self.writes.add(&other.writes);
        self.all.add(&other.all);
        self.queued += other.queued;
        self.in_flight += other.in_flight;
    }

    fn idle(&self) -> bool {
        self.all.ios == 0 && self.queued == 0 && self.in_flight == 0
    }

    /// Read MB/s, write MB/s, IOPS, mean latency (ms, or "-"), queued, in flight.
    /// `rates`: false for a flow present for less than half the interval, whose rates over the interval would
    /// mislead (a 6-byte `cat` is not a stream): its MB/s and IOPS show as '-'.
    fn cells(&self, interval_ns: u64, rates: bool) -> String {
        let rate = |x: f64, decimals: usize| if rates { format!("{x:.decimals$}") } else { "-".to_string() };
        let mb_s = |c: &DirectionCounts| rate(units::bytes_per_s(c.bytes, interval_ns) / 1e6, 1);
        let iops = rate(self.all.ios as f64 * units::NS_PER_S as f64 / interval_ns.max(1) as f64, 0);
        let latency = if self.all.ios == 0 {
            "-".to_string()
        } else {
            format!("{:.3}", units::ns_to_ms(self.all.latency_sum_ns) / self.all.ios as f64)
        };
        format!(
            "{:>8} {:>8} {:>8} {:>8} {:>6} {:>6}",
            mb_s(&self.reads),
            mb_s(&self.writes),
            iops,
            latency,
            self.queued,
            self.in_flight
        )
    }
}

fn class_name(class: IoClass) -> &'static str {
    match class {
        IoClass::Rt => "RT",
        IoClass::Be => "BE",
        IoClass::Idle => "IDLE",
    }
}

/// The screen for the interval from `before` (None: since the start) to `now`, titled with `target`, every flow
/// that moved data listed.
pub fn render(target: &str, before: Option<&FlowsSnapshot>, now: &FlowsSnapshot) -> String {
    render_in(target, before, now, usize::MAX, SCREEN_COLUMNS)
}

/// [`render`] in at most `lines` lines and `columns` columns (a terminal's size; at least 80 columns are used):
/// the busiest flows first, and a count of those that did not fit; a wider terminal shows longer names.
pub fn render_in(
    target: &str,
    before: Option<&FlowsSnapshot>,
    now: &FlowsSnapshot,
    lines: usize,
    columns: usize,
) -> String {
    let columns = columns.max(SCREEN_COLUMNS);
    let name_width = (NAME_WIDTH + columns - SCREEN_COLUMNS).min(NAME_WIDTH_MAX);
    let start_ns = before.map_or(0, |b| b.elapsed_ns);
    let interval_ns = now.elapsed_ns.saturating_sub(start_ns).max(1);
    // Present for most of the interval: its first request came in the interval's first half (or before it).
    let most_of_interval = |flow: &FlowSnapshot| flow.first_ns.is_none_or(|first| first <= start_ns + interval_ns / 2);
    let mut out = String::new();
    let title = format!(
        "iosched top {target}: {} on {}, up {:.1} s, last {:.2} s, {} policy switches",
        now.policy,
        now.device,
        units::ns_to_s(now.elapsed_ns),
        units::ns_to_s(interval_ns),
        now.policy_switches
    );
    let _ = writeln!(out, "{}", cut(&title, columns));
    let header =
        format!("{:>8} {:>8} {:>8} {:>8} {:>6} {:>6}", "rd MB/s", "wr MB/s", "IOPS", "lat ms", "queued", "at dev");
    let _ = writeln!(out, "\n{:<name_width$} {:<6} {header}", "FLOW", "CLASS");

    let rows: Vec<(&FlowSnapshot, Row)> = now
        .flows
        .iter()
        .map(|f| (f, Row::of(f, before.and_then(|b| b.flows.iter().find(|p| p.flow == f.flow)))))
        .collect();
    // Per class, in priority order: the flows that moved data or have requests out, and their sum.
    let mut classes: BTreeMap<IoClass, (u32, Row)> = BTreeMap::new();
    for (flow, row) in &rows {
        let (flows, sum) = classes.entry(flow.class).or_default();
        *flows += u32::from(!row.idle());
        sum.add(row);
    }
    let (idle, mut active): (Vec<_>, Vec<_>) = rows.into_iter().partition(|(_, row)| row.idle());
    active.sort_by(|(fa, a), (fb, b)| {
        (b.reads.bytes + b.writes.bytes).cmp(&(a.reads.bytes + a.writes.bytes)).then(fa.flow.cmp(&fb.flow))
    });
    // Title, blank, header, the flow rows, a note, blank, header, one line per class, ALL.
    let fixed = 7 + classes.len();
    let room = lines.saturating_sub(fixed).max(1);
    let shown = if active.len() > room { room.saturating_sub(1).max(1) } else { active.len() };
    let mut brief = 0;
    for (flow, row) in &active[..shown] {
        let class = format!("{}/{}", class_name(flow.class), flow.level);
        let rates = most_of_interval(flow);
        brief += usize::from(!rates);
        let cells = row.cells(interval_ns, rates);
        let _ = writeln!(out, "{:<name_width$} {class:<6} {cells}", cut(&flow.name, name_width));
    }
    if active.is_empty() {
        let _ = writeln!(out, "(no flow moved data in this interval)");
    }
    let more = active.len() - shown;
    let mut notes = Vec::new();
    if brief > 0 {
        notes.push(format!("{brief} new in the last half of the interval: no rates yet"));
    }
    match (more, idle.len()) {
        (0, 0) => {}
        (0, i) => notes.push(format!("{i} idle flows not shown")),
        (m, i) => notes.push(format!("{m} less busy flows and {i} idle flows not shown")),
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "{}", cut(&format!("({})", notes.join("; ")), columns));
    }

    let _ = writeln!(out, "\n{:<name_width$} {:<6} {header}", "CLASS", "FLOWS");
    let mut total = Row::default();
    let mut active_flows = 0;
    for (class, (flows, row)) in &classes {
        let _ = writeln!(out, "{:<name_width$} {flows:<6} {}", class_name(*class), row.cells(interval_ns, true));
        total.add(row);
        active_flows += flows;
    }
    let _ = writeln!(out, "{:<name_width$} {active_flows:<6} {}", "ALL", total.cells(interval_ns, true));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(flow: u32, name: &str, class: IoClass, read_bytes: u64, ios: u64, latency_ns: u64) -> FlowSnapshot {
        FlowSnapshot {
            flow,
            name: name.to_string(),
            class,
            level: 4,
            reads: DirectionCounts { ios, bytes: read_bytes, errors: 0, latency_sum_ns: latency_ns },
            writes: DirectionCounts::default(),
            trims: DirectionCounts::default(),
            flushes: DirectionCounts::default(),
            queued: 0,
            in_flight: 0,
            first_ns: None,
        }
    }

    fn snapshot(elapsed_ns: u64, flows: Vec<FlowSnapshot>) -> FlowsSnapshot {
        FlowsSnapshot { policy: "rr".into(), device: "disk".into(), elapsed_ns, policy_switches: 0, flows }
    }

    #[test]
    fn rates_and_latency_are_those_of_the_interval() {
        let before = snapshot(1_000_000_000, vec![flow(0, "pid 7 (dd)", IoClass::Be, 10_000_000, 100, 100_000_000)]);
        let mut later = flow(0, "pid 7 (dd)", IoClass::Be, 60_000_000, 600, 600_000_000);
        later.queued = 3;
        later.in_flight = 1;
        let idle = flow(1, "pid 8 (sleepy)", IoClass::Idle, 0, 0, 0);
        let now = snapshot(3_000_000_000, vec![later, idle]);
        let screen = render("/mnt", Some(&before), &now);
        // 50 MB in 2 s; 500 requests in 2 s; (600-100) ms of latency over 500 requests.
        let dd = screen.lines().find(|l| l.starts_with("pid 7 (dd)")).expect(&screen);
        let cells: Vec<&str> = dd.split_whitespace().skip(3).collect();
        assert!(screen.lines().all(|l| l.chars().count() <= SCREEN_COLUMNS), "{screen}");
        assert_eq!(cells, ["BE/4", "25.0", "0.0", "250", "1.000", "3", "1"], "{screen}");
        assert!(screen.contains("(1 idle flows not shown)"), "{screen}");
        let be = screen.lines().find(|l| l.starts_with("BE ")).expect(&screen);
        assert_eq!(be.split_whitespace().collect::<Vec<_>>()[1..4], ["1", "25.0", "0.0"]);
        assert!(screen.lines().any(|l| l.starts_with("IDLE ")), "a class with only idle flows is still listed");
    }

    #[test]
    fn without_an_earlier_snapshot_the_interval_is_the_whole_run() {
        let now = snapshot(
            2_000_000_000,
            vec![flow(0, "a very long process name that goes on", IoClass::Rt, 4e6 as u64, 2, 4_000_000)],
        );
        let screen = render("/mnt", None, &now);
        let row = screen.lines().find(|l| l.starts_with("a very long")).expect(&screen);
        assert!(row.contains("~ RT/4"), "{row}");
        assert!(row.contains(" 2.0 ") && row.contains(" 2.000 "), "2 MB/s and 2 ms: {row}");
    }

    #[test]
    fn many_flows_fit_the_screen_busiest_first_with_a_count_of_the_rest() {
        let flows: Vec<FlowSnapshot> = (0..500)
            .map(|i| flow(i, &format!("pid {i} (cat)"), IoClass::Be, 4096 * u64::from(i + 1), 1, 1000))
            .collect();
        let now = snapshot(1_000_000_000, flows);
        let screen = render_in("/mnt", None, &now, 24, 80);
        assert!(screen.lines().count() <= 24, "{screen}");
        assert!(screen.lines().nth(3).unwrap().starts_with("pid 499 (cat)"), "the busiest first: {screen}");
        assert!(screen.contains("less busy flows and 0 idle flows not shown"), "{screen}");
        assert!(screen.lines().any(|l| l.starts_with("ALL ")), "the totals stay on screen: {screen}");
        assert_eq!(render("/mnt", None, &now).lines().filter(|l| l.starts_with("pid ")).count(), 500);
    }

    #[test]
    fn a_wider_terminal_shows_longer_names_and_a_narrow_one_gets_80_columns() {
        let name = "pid 123456 (a-program-with-a-rather-long-name --and --its --arguments)";
        let now = snapshot(1_000_000_000, vec![flow(0, name, IoClass::Be, 4096, 1, 1000)]);
        for (columns, used) in [(40, 80), (80, 80), (120, 118)] {
            let screen = render_in("/mnt", None, &now, 24, columns);
            let widest = screen.lines().map(|l| l.chars().count()).max().unwrap();
            assert!(widest <= columns.max(80), "{columns} columns: {screen}");
            let row = screen.lines().find(|l| l.starts_with("pid 123456")).expect(&screen);
            assert_eq!(row.chars().count(), used - 1, "{columns} columns: {row}");
        }
        let wide = render_in("/mnt", None, &now, 24, 200);
        assert!(wide.contains("(a-program-with-a-rather-long-name --and --its -~ BE/4"), "{wide}");
    }

    #[test]
    fn a_flow_present_for_less_than_half_the_interval_gets_no_rates() {
        // A 6-byte cat that came and went in the last 50 us of a 1 s interval, beside a dd there all along.
        let before = snapshot(1_000_000_000, vec![flow(0, "pid 7 (dd)", IoClass::Be, 0, 0, 0)]);
        let mut cat = flow(1, "pid 9 (cat)", IoClass::Be, 6, 1, 50_000);
        cat.first_ns = Some(1_999_950_000);
        let mut dd = flow(0, "pid 7 (dd)", IoClass::Be, 50_000_000, 400, 400_000_000);
        dd.first_ns = Some(10);
        let now = snapshot(2_000_000_000, vec![dd, cat]);
        let screen = render("/mnt", Some(&before), &now);
        let row = |name: &str| -> Vec<String> {
            let line = screen.lines().find(|l| l.starts_with(name)).expect(&screen);
            line.split_whitespace().skip(3).map(str::to_string).collect()
        };
        assert_eq!(row("pid 9 (cat)"), ["BE/4", "-", "-", "-", "0.050", "0", "0"], "{screen}");
        assert_eq!(row("pid 7 (dd)")[1..4], ["50.0", "0.0", "400"], "{screen}");
        assert!(screen.contains("1 new in the last half of the interval: no rates yet"), "{screen}");
        // The class total counts the cat's request over the whole interval.
        let be = screen.lines().find(|l| l.starts_with("BE ")).expect(&screen);
        assert_eq!(be.split_whitespace().nth(4), Some("401"), "{screen}");
    }
}
