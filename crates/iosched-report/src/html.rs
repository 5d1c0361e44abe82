//! One self-contained HTML page of an experiment's results: its tables, and SVG plots drawn here (no script,
//! no network): read MB/s, write MB/s and the watched job's latency against time (like Figs. 1 and 7 of seed
//! 002), latency CDFs per policy, and bars of each case's figures.

use crate::experiment::render;
use iosched_sim::experiment::{Experiment, ExperimentOutcome, Metrics, RunOutcome};
use std::fmt::Write;

const PALETTE: &[&str] =
    &["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 300.0;
const LEFT: f64 = 60.0;
const RIGHT: f64 = 130.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 45.0;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A "nice" upper bound and tick step for an axis from 0 to `max`.
fn nice_axis(max: f64) -> (f64, f64) {
    let max = if max.is_finite() && max > 0.0 { max } else { 1.0 };
    let raw = max / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= raw).unwrap_or(10.0 * magnitude);
    ((max / step).ceil() * step, step)
}

fn label(v: f64) -> String {
    if v == 0.0 || (v.abs() >= 1.0 && v.fract() == 0.0) {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.1}")
    } else {
        let digits = (-v.abs().log10().floor()) as usize + 1;
        format!("{v:.digits$}")
    }
}

/// The `<svg>` element's opening and the chart's title.
fn open_svg(svg: &mut String, title: &str) {
    let _ = write!(
        svg,
        r#"<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{t}"><title>{t}</title><text x="{LEFT}" y="18" class="title">{t}</text>"#,
        t = escape(title)
    );
}

/// Horizontal grid lines with their values from 0 to `y_max` every `y_step`, and the axis's name.
fn y_axis(svg: &mut String, (y_max, y_step): (f64, f64), plot_w: f64, plot_h: f64, y_name: &str) {
    let mut y = 0.0;
    while y <= y_max + y_step / 2.0 {
        let py = TOP + plot_h - (y / y_max) * plot_h;
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end" class="tick">{}</text>"##,
            LEFT + plot_w,
            LEFT - 5.0,
            py + 4.0,
            label(y)
        );
        y += y_step;
    }
    let middle = TOP + plot_h / 2.0;
    let _ = write!(
        svg,
        r#"<text x="14" y="{middle:.1}" text-anchor="middle" class="axis" transform="rotate(-90 14 {middle:.1})">{}</text>"#,
        escape(y_name)
    );
}

struct Line<'a> {
    name: &'a str,
    color: &'a str,
    points: Vec<(f64, f64)>,
}

/// A chart with one line per policy; `log_x` draws x on a log scale (decades).
fn line_chart(title: &str, x_name: &str, y_name: &str, lines: &[Line], log_x: bool) -> String {
    let mut svg = String::new();
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let all = || lines.iter().flat_map(|l| l.points.iter());
    let (x_min, x_max) = if log_x {
        let lo = all().map(|p| p.0).filter(|x| *x > 0.0).fold(f64::INFINITY, f64::min);
        let hi = all().map(|p| p.0).fold(0.0, f64::max);
        let lo = if lo.is_finite() { 10f64.powf(lo.log10().floor()) } else { 0.001 };
        let hi = if hi > lo { 10f64.powf(hi.log10().ceil()) } else { lo * 10.0 };
        (lo, hi)
    } else {
        (0.0, nice_axis(all().map(|p| p.0).fold(0.0, f64::max)).0)
    };
    let (y_max, y_step) = nice_axis(all().map(|p| p.1).fold(0.0, f64::max));
    let x_of = |x: f64| {
        let t =
            if log_x { (x.max(x_min).log10() - x_min.log10()) / (x_max.log10() - x_min.log10()) } else { x / x_max };
        LEFT + t * plot_w
    };
    let y_of = |y: f64| TOP + plot_h - (y / y_max) * plot_h;
    open_svg(&mut svg, title);
    y_axis(&mut svg, (y_max, y_step), plot_w, plot_h, y_name);
    // x ticks.
    let ticks: Vec<f64> = if log_x {
        let mut t = Vec::new();
        let mut v = x_min;
        while v <= x_max * 1.0001 {
            t.push(v);
            v *= 10.0;
        }
        t
    } else {
        let (_, step) = nice_axis(x_max);
        (0..=((x_max / step).round() as usize)).map(|i| i as f64 * step).collect()
    };
    for t in ticks {
        let px = x_of(t);
        let _ = write!(
            svg,
            r##"<line x1="{px:.1}" y1="{:.1}" x2="{px:.1}" y2="{:.1}" stroke="#999"/><text x="{px:.1}" y="{:.1}" text-anchor="middle" class="tick">{}</text>"##,
            TOP + plot_h,
            TOP + plot_h + 4.0,
            TOP + plot_h + 16.0,
            label(t)
        );
    }
    let _ = write!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#333"/><text x="{:.1}" y="{:.1}" text-anchor="middle" class="axis">{}</text>"##,
        LEFT + plot_w / 2.0,
        HEIGHT - 8.0,
        escape(x_name)
    );
    for (i, line) in lines.iter().enumerate() {
        if !line.points.is_empty() {
            let path: Vec<String> =
                line.points.iter().map(|&(x, y)| format!("{:.1},{:.1}", x_of(x), y_of(y.min(y_max)))).collect();
            let _ = write!(
                svg,
                r#"<polyline class="series" fill="none" stroke="{}" stroke-width="1.6" points="{}"/>"#,
                line.color,
                path.join(" ")
            );
        }
        let ly = TOP + 12.0 + i as f64 * 16.0;
        let lx = LEFT + plot_w + 10.0;
        let _ = write!(
            svg,
            r#"<line x1="{lx}" y1="{ly}" x2="{:.1}" y2="{ly}" stroke="{}" stroke-width="3"/><text x="{:.1}" y="{:.1}" class="legend">{}</text>"#,
            lx + 16.0,
            line.color,
            lx + 20.0,
            ly + 4.0,
            escape(line.name)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// Bars, one per label, each in its policy's colour.
fn bar_chart(title: &str, y_name: &str, bars: &[(String, f64, &str)]) -> String {
    let mut svg = String::new();
    let plot_w = WIDTH - LEFT - 20.0;
    let plot_h = HEIGHT - TOP - BOTTOM - 20.0;
    let (y_max, y_step) = nice_axis(bars.iter().map(|b| b.1).fold(0.0, f64::max));
    let y_of = |y: f64| TOP + plot_h - (y / y_max) * plot_h;
    open_svg(&mut svg, title);
    y_axis(&mut svg, (y_max, y_step), plot_w, plot_h, y_name);
    let slot = plot_w / bars.len().max(1) as f64;
    for (i, (name, value, colour)) in bars.iter().enumerate() {
        let x = LEFT + i as f64 * slot + slot * 0.15;
        let top = y_of(value.max(0.0));
        let _ = write!(
            svg,
            r#"<rect class="bar" x="{x:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}: {}</title></rect><text x="{:.1}" y="{:.1}" text-anchor="middle" class="tick">{}</text><text x="{:.1}" y="{:.1}" text-anchor="middle" class="legend">{}</text>"#,
            slot * 0.7,
            (TOP + plot_h - top).max(0.0),
            colour,
            escape(name),
            label(*value),
            x + slot * 0.35,
            top - 4.0,
            label(*value),
            x + slot * 0.35,
            TOP + plot_h + 16.0,
            escape(name)
        );
    }
    let _ = write!(
        svg,
        r##"<line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#333"/></svg>"##,
        TOP + plot_h,
        LEFT + plot_w,
        TOP + plot_h
    );
    svg
}

/// The figures of a run drawn as bars: (what, unit, value).
fn bar_values(run: &RunOutcome) -> Vec<(&'static str, f64)> {
    match run.measures.metrics {
        Metrics::GeomSched { dd_mb_per_s, cvs_ops_per_s } => {
            let mut v = Vec::new();
            if let Some(x) = dd_mb_per_s {
                v.push(("stream MB/s", x));
            }
            if let Some(x) = cvs_ops_per_s {
                v.push(("interactive ops/s", x));
            }
            v
        }
        Metrics::NetflixFill { read_p99_ms_during, write_mb_per_s, .. } => {
            vec![("read p99 ms during the fill", read_p99_ms_during), ("write MB/s", write_mb_per_s)]
        }
        Metrics::BfqStartup { startup_s, aggregate_mb_per_s } => {
            vec![("start-up s", startup_s), ("aggregate MB/s", aggregate_mb_per_s)]
        }
        Metrics::Dbload { load_s } => vec![("load s", load_s)],
    }
}

/// The whole page.
pub fn render_html(exp: &Experiment, outcome: &ExperimentOutcome) -> String {
    let d = &exp.description;
    let mut page = String::new();
    let _ = write!(
        page,
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>iosched experiment {name}</title><style>
body {{ font-family: sans-serif; margin: 1.5em; color: #222; }}
pre {{ background: #f6f6f6; padding: 0.8em; overflow-x: auto; }}
.plots {{ display: flex; flex-wrap: wrap; gap: 12px; }}
svg.plot {{ background: #fff; border: 1px solid #ccc; }}
svg .title {{ font-size: 13px; font-weight: bold; }}
svg .tick, svg .legend {{ font-size: 10px; }}
svg .axis {{ font-size: 11px; }}
</style></head><body><h1>{title}</h1><p>{source}; device <code>{device}</code>, seed {seed}.</p><p>{about}</p>"#,
        name = escape(&exp.name),
        title = escape(&d.title),
        source = escape(&d.source),
        device = escape(&d.device),
        seed = d.seed,
        about = escape(d.about.trim())
    );
    let _ = write!(page, "<h2>Results</h2><pre>{}</pre>", escape(&render(exp, outcome)));
    let policies: Vec<&str> = d.policies.iter().map(|p| p.label.as_str()).collect();
    let color = |policy: &str| PALETTE[policies.iter().position(|p| *p == policy).unwrap_or(0) % PALETTE.len()];
    for case in &exp.cases {
        let runs: Vec<&RunOutcome> = outcome.runs.iter().filter(|r| r.case == case.entry.name).collect();
        if runs.is_empty() {
            continue;
        }
        let watched = &runs[0].measures.watched;
        let _ = write!(page, "<h2>Case {}</h2><div class=\"plots\">", escape(&case.entry.name));
        let over_time = |pick: &dyn Fn(&iosched_sim::experiment::SeriesPoint) -> Option<f64>| -> Vec<Line> {
            runs.iter()
                .map(|r| Line {
                    name: &r.policy,
                    color: color(&r.policy),
                    points: r.measures.series.iter().filter_map(|p| pick(p).map(|v| (p.end_s, v))).collect(),
                })
                .collect()
        };
        page.push_str(&line_chart("Read MB/s", "time (s)", "MB/s", &over_time(&|p| Some(p.read_mb_per_s)), false));
        page.push_str(&line_chart("Write MB/s", "time (s)", "MB/s", &over_time(&|p| Some(p.write_mb_per_s)), false));
        let has_latency = runs.iter().any(|r| r.measures.series.iter().any(|p| p.latency_p99_ms.is_some()));
        if has_latency {
            page.push_str(&line_chart(
                &format!("{watched}: p99 latency per interval"),
                "time (s)",
                "ms",
                &over_time(&|p| p.latency_p99_ms),
                false,
            ));
            let cdf: Vec<Line> = runs
                .iter()
                .map(|r| Line {
                    name: &r.policy,
                    color: color(&r.policy),
                    points: r.measures.cdf.iter().map(|&(ms, q)| (ms, q * 100.0)).collect(),
                })
                .collect();
            page.push_str(&line_chart(
                &format!("{watched}: latency CDF"),
                "latency (ms, log)",
                "% of requests",
                &cdf,
                true,
            ));
        }
        let kinds: Vec<&'static str> = bar_values(runs[0]).into_iter().map(|(name, _)| name).collect();
        for (k, what) in kinds.iter().enumerate() {
            let bars: Vec<(String, f64, &str)> = runs
                .iter()
                .filter_map(|r| bar_values(r).get(k).map(|(_, v)| (r.policy.clone(), *v, color(&r.policy))))
                .collect();
            page.push_str(&bar_chart(&format!("{}: {what}", case.entry.name), what, &bars));
        }
        page.push_str("</div>");
    }
    page.push_str("<p>Made by iosched. Every plot is inline SVG; the page needs no network.</p></body></html>\n");
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_end_on_round_numbers() {
        assert_eq!(nice_axis(72.3), (80.0, 20.0));
        assert_eq!(nice_axis(0.9), (1.0, 0.2));
        assert_eq!(nice_axis(0.0), (1.0, 0.2));
        assert_eq!(nice_axis(430.0), (500.0, 100.0));
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
