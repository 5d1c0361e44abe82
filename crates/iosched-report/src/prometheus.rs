//! A running engine's flows in Prometheus's text exposition format (version 0.0.4), for the mount's optional
//! metrics endpoint.
//!
//! Every flow's series carry `flow` (its index in the run), `name` (for a mount, "pid N (command)") and `class` and
//! `level` (of its latest request, as ionice set them: a class change starts new series). Counters are totals since
//! the mount started: rates come from PromQL's rate(); latency is a sum and a count, so
//! `rate(iosched_flow_latency_seconds_sum[1m]) / rate(iosched_flow_latency_seconds_count[1m])` is the mean.

use iosched_core::request::IoClass;
use iosched_core::snapshot::{DirectionCounts, FlowSnapshot, FlowsSnapshot};
use iosched_core::units;
use std::fmt::Write;

/// The Content-Type of the text exposition format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A label value with backslash, double quote and newline escaped, as the format requires.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

fn class_label(class: IoClass) -> &'static str {
    match class {
        IoClass::Rt => "rt",
        IoClass::Be => "be",
        IoClass::Idle => "idle",
    }
}

fn flow_labels(flow: &FlowSnapshot) -> String {
    format!(
        "flow=\"{}\",name=\"{}\",class=\"{}\",level=\"{}\"",
        flow.flow,
        escape(&flow.name),
        class_label(flow.class),
        flow.level
    )
}

/// One metric family: its HELP and TYPE lines, then one sample per (labels, value); empty labels print none.
fn family(out: &mut String, name: &str, kind: &str, help: &str, samples: impl IntoIterator<Item = (String, String)>) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
    for (labels, value) in samples {
        if labels.is_empty() {
            let _ = writeln!(out, "{name} {value}");
        } else {
            let _ = writeln!(out, "{name}{{{labels}}} {value}");
        }
    }
}

/// The exposition of `snapshot`.
pub fn render(snapshot: &FlowsSnapshot) -> String {
    let mut out = String::new();
    family(
        &mut out,
        "iosched_info",
        "gauge",
        "The policy scheduling the mount and the device under it (always 1).",
        [(format!("policy=\"{}\",device=\"{}\"", escape(&snapshot.policy), escape(&snapshot.device)), "1".into())],
    );
    let uptime = units::ns_to_s(snapshot.elapsed_ns).to_string();
    family(&mut out, "iosched_uptime_seconds", "gauge", "Time since the engine started.", [(String::new(), uptime)]);
    family(
        &mut out,
        "iosched_policy_switches_total",
        "counter",
        "Policy switches since the engine started.",
        [(String::new(), snapshot.policy_switches.to_string())],
    );

    let by_direction = |value: fn(&DirectionCounts) -> String| {
        let mut samples = Vec::new();
        for flow in &snapshot.flows {
            let labels = flow_labels(flow);
            for (direction, counts) in
                [("read", &flow.reads), ("write", &flow.writes), ("trim", &flow.trims), ("flush", &flow.flushes)]
            {
                samples.push((format!("{labels},direction=\"{direction}\""), value(counts)));
            }
        }
        samples
    };
    family(
        &mut out,
        "iosched_flow_ios_total",
        "counter",
        "Requests completed, by flow and direction.",
        by_direction(|c| c.ios.to_string()),
    );
    family(
        &mut out,
        "iosched_flow_bytes_total",
        "counter",
        "Bytes moved by requests completed without error, by flow and direction.",
        by_direction(|c| c.bytes.to_string()),
    );
    family(
        &mut out,
        "iosched_flow_errors_total",
        "counter",
        "Requests completed with an error, by flow and direction.",
        by_direction(|c| c.errors.to_string()),
    );
    family(
        &mut out,
        "iosched_flow_latency_seconds_sum",
        "counter",
        "Sum of the latencies (arrival to completion) of the completed requests, by flow and direction.",
        by_direction(|c| units::ns_to_s(c.latency_sum_ns).to_string()),
    );
    family(
        &mut out,
        "iosched_flow_latency_seconds_count",
        "counter",
        "Completed requests whose latency is in the sum (equal to iosched_flow_ios_total).",
        by_direction(|c| c.ios.to_string()),
    );
    family(
        &mut out,
        "iosched_flow_queued",
        "gauge",
        "Requests waiting in the policy (or behind a flush) now, by flow.",
        snapshot.flows.iter().map(|f| (flow_labels(f), f.queued.to_string())),
    );
    family(
        &mut out,
        "iosched_flow_in_flight",
        "gauge",
        "Requests at the device now, by flow.",
        snapshot.flows.iter().map(|f| (flow_labels(f), f.in_flight.to_string())),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flow_and_direction_is_a_series_with_escaped_labels() {
        let flow = FlowSnapshot {
            flow: 2,
            name: "pid 9 (we\"ird\\name)".into(),
            class: IoClass::Idle,
            level: 7,
            reads: DirectionCounts { ios: 3, bytes: 12_288, errors: 1, latency_sum_ns: 1_500_000_000 },
            writes: DirectionCounts::default(),
            trims: DirectionCounts::default(),
            flushes: DirectionCounts::default(),
            queued: 5,
            in_flight: 2,
            first_ns: None,
        };
        let snapshot = FlowsSnapshot {
            policy: "bfq".into(),
            device: "mount".into(),
            elapsed_ns: 2_500_000_000,
            policy_switches: 1,
            flows: vec![flow],
        };
        let text = render(&snapshot);
        let labels = r#"flow="2",name="pid 9 (we\"ird\\name)",class="idle",level="7""#;
        for line in [
            format!("iosched_flow_ios_total{{{labels},direction=\"read\"}} 3"),
            format!("iosched_flow_bytes_total{{{labels},direction=\"read\"}} 12288"),
            format!("iosched_flow_errors_total{{{labels},direction=\"read\"}} 1"),
            format!("iosched_flow_latency_seconds_sum{{{labels},direction=\"read\"}} 1.5"),
            format!("iosched_flow_bytes_total{{{labels},direction=\"write\"}} 0"),
            format!("iosched_flow_queued{{{labels}}} 5"),
            format!("iosched_flow_in_flight{{{labels}}} 2"),
            "iosched_info{policy=\"bfq\",device=\"mount\"} 1".to_string(),
            "iosched_uptime_seconds 2.5".to_string(),
            "iosched_policy_switches_total 1".to_string(),
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line} in\n{text}");
        }
        // Each family is declared once, before its samples.
        assert_eq!(text.matches("# TYPE iosched_flow_bytes_total counter").count(), 1);
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let value = line.rsplit(' ').next().unwrap();
            assert!(value.parse::<f64>().is_ok(), "a sample ends in a number: {line}");
        }
    }
}
