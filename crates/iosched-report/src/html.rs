//! One self-contained HTML page of an experiment's results: its tables, and SVG plots drawn here (no script,
//! no network): read MB/s, write MB/s and the watched job's latency against time (like Figs. 1 and 7 of seed
//! 002), latency CDFs per policy, and bars of each case's figures.

use crate::experiment::{render, verdict_figure, verdict_range, verdict_word};
use iosched_sim::experiment::{
    metric_names, run_figure, verdicts, Experiment, ExperimentOutcome, Metrics, RunOutcome, Verdict,
};
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

/// Horizontal grid lines at `ticks`, placed by `y_of`, with their values, and the axis's name (", log" added and
/// `data-scale` set on a log axis).
fn y_axis(svg: &mut String, ticks: &[f64], y_of: &dyn Fn(f64) -> f64, plot_w: f64, y_name: &str, scale: Scale) {
    for &t in ticks {
        let py = y_of(t);
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end" class="tick">{}</text>"##,
            LEFT + plot_w,
            LEFT - 5.0,
            py + 4.0,
            label(t)
        );
    }
    let middle = (y_of(ticks.first().copied().unwrap_or(0.0)) + y_of(ticks.last().copied().unwrap_or(0.0))) / 2.0;
    let (scale_name, y_label) = match scale {
        Scale::Log => ("log", format!("{y_name}, log")),
        Scale::Linear => ("linear", y_name.to_string()),
    };
    let _ = write!(
        svg,
        r#"<text x="14" y="{middle:.1}" text-anchor="middle" class="axis" data-scale="{scale_name}" transform="rotate(-90 14 {middle:.1})">{}</text>"#,
        escape(&y_label)
    );
}

/// Tick values from `lo` to `hi`: every decade on a log axis, every `step` from 0 on a linear one.
fn ticks(lo: f64, hi: f64, step: f64, scale: Scale) -> Vec<f64> {
    match scale {
        Scale::Log => std::iter::successors(Some(lo), |v| Some(v * 10.0)).take_while(|v| *v <= hi * 1.0001).collect(),
        Scale::Linear => (0..=((hi / step).round() as usize)).map(|i| i as f64 * step).collect(),
    }
}

struct Line<'a> {
    name: String,
    color: &'a str,
    /// Index of its marker shape ([`marker`]), so that lines stay apart without colour.
    marker: usize,
    points: Vec<(f64, f64)>,
}

/// The most lines one plot draws; more policies make several plots, each with the baseline (small multiples).
const LINES_PER_PLOT: usize = 4;

/// Markers drawn along each line, about this many per line.
const MARKERS_PER_LINE: usize = 8;

/// A marker shape centred on (x, y): circle, square, triangle, diamond, cross, down-triangle, plus, star.
fn marker(shape: usize, x: f64, y: f64, color: &str) -> String {
    let r = 3.5;
    match shape % 8 {
        0 => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{color}"/>"#),
        1 => format!(
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{color}"/>"#,
            x - r,
            y - r,
            2.0 * r,
            2.0 * r
        ),
        2 => format!(
            r#"<polygon points="{x:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{color}"/>"#,
            y - r,
            x - r,
            y + r,
            x + r,
            y + r
        ),
        3 => format!(
            r#"<polygon points="{x:.1},{:.1} {:.1},{y:.1} {x:.1},{:.1} {:.1},{y:.1}" fill="{color}"/>"#,
            y - r,
            x + r,
            y + r,
            x - r
        ),
        4 => format!(
            r#"<path d="M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}" stroke="{color}" stroke-width="2"/>"#,
            x - r,
            y - r,
            x + r,
            y + r,
            x - r,
            y + r,
            x + r,
            y - r
        ),
        5 => format!(
            r#"<polygon points="{x:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{color}"/>"#,
            y + r,
            x - r,
            y - r,
            x + r,
            y - r
        ),
        6 => format!(
            r#"<path d="M{x:.1},{:.1}L{x:.1},{:.1}M{:.1},{y:.1}L{:.1},{y:.1}" stroke="{color}" stroke-width="2"/>"#,
            y - r,
            y + r,
            x - r,
            x + r
        ),
        _ => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="none" stroke="{color}" stroke-width="1.5"/>"#),
    }
}

/// Decades covering the positive values: (low, high), each a power of ten.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for v in values.filter(|v| *v > 0.0 && v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.001, 1.0);
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil());
    (lo, if hi > lo { hi } else { lo * 10.0 })
}

/// Axis scales of a line chart.
#[derive(Clone, Copy, PartialEq)]
enum Scale {
    Linear,
    Log,
}

/// A chart with one line per policy (or per group of policies with identical results). A log axis is drawn in
/// decades; points at or below zero are left out of it.
/// The axes span every line of `axes_of` (all the small multiples of one plot, so that they compare at a glance).
fn line_chart(
    title: &str,
    (x_name, y_name): (&str, &str),
    lines: &[Line],
    axes_of: &[Line],
    (x_scale, y_scale): (Scale, Scale),
) -> String {
    let mut svg = String::new();
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let all = || axes_of.iter().flat_map(|l| l.points.iter());
    let (x_min, x_max) = match x_scale {
        Scale::Log => decades(all().map(|p| p.0)),
        Scale::Linear => (0.0, nice_axis(all().map(|p| p.0).fold(0.0, f64::max)).0),
    };
    let (y_min, y_max, y_step) = match y_scale {
        Scale::Log => {
            let (lo, hi) = decades(all().map(|p| p.1));
            (lo, hi, 10.0)
        }
        Scale::Linear => {
            let (max, step) = nice_axis(all().map(|p| p.1).fold(0.0, f64::max));
            (0.0, max, step)
        }
    };
    let along = |v: f64, lo: f64, hi: f64, scale: Scale| match scale {
        Scale::Log => (v.max(lo).log10() - lo.log10()) / (hi.log10() - lo.log10()),
        Scale::Linear => v / hi,
    };
    let x_of = |x: f64| LEFT + along(x, x_min, x_max, x_scale) * plot_w;
    let y_of = |y: f64| TOP + plot_h - along(y.min(y_max), y_min, y_max, y_scale) * plot_h;
    let kept = |(x, y): (f64, f64)| (x_scale == Scale::Linear || x > 0.0) && (y_scale == Scale::Linear || y > 0.0);
    open_svg(&mut svg, title);
    y_axis(&mut svg, &ticks(y_min, y_max, y_step, y_scale), &y_of, plot_w, y_name, y_scale);
    // x ticks.
    let x_ticks = ticks(x_min, x_max, nice_axis(x_max).1, x_scale);
    for t in x_ticks {
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
    let mut legend_row = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let points: Vec<(f64, f64)> = line.points.iter().copied().filter(|p| kept(*p)).collect();
        if !points.is_empty() {
            let path: Vec<String> = points.iter().map(|&(x, y)| format!("{:.1},{:.1}", x_of(x), y_of(y))).collect();
            let _ = write!(
                svg,
                r#"<polyline class="series" fill="none" stroke="{}" stroke-width="1.6" points="{}"/>"#,
                line.color,
                path.join(" ")
            );
            // Markers, spread along the line and shifted per line so that lines on top of each other still show.
            let every = (points.len() / MARKERS_PER_LINE).max(1);
            for &(x, y) in points.iter().skip((i * every / LINES_PER_PLOT).min(points.len() - 1)).step_by(every) {
                svg.push_str(&marker(line.marker, x_of(x), y_of(y), line.color));
            }
        }
        // A merged line's names ("noop = kyber") one per legend row, so that none is cut at the plot's edge.
        let ly = TOP + 12.0 + legend_row as f64 * 13.0;
        let lx = LEFT + plot_w + 10.0;
        let _ = write!(
            svg,
            r#"<line x1="{lx}" y1="{ly}" x2="{:.1}" y2="{ly}" stroke="{}" stroke-width="3"/>{}"#,
            lx + 16.0,
            line.color,
            marker(line.marker, lx + 8.0, ly, line.color),
        );
        for (k, name) in line.name.split(" = ").enumerate() {
            let text = if k == 0 { name.to_string() } else { format!("= {name}") };
            let _ = write!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" class="legend">{}</text>"#,
                lx + 20.0,
                ly + 4.0 + k as f64 * 13.0,
                escape(&text)
            );
            legend_row += 1;
        }
        legend_row += 1;
    }
    svg.push_str("</svg>");
    svg
}

/// One line plot of a case: its title, axis names, lines (before grouping) and scales.
struct LinePlot<'a> {
    title: String,
    names: (&'a str, &'a str),
    lines: Vec<Line<'a>>,
    scales: (Scale, Scale),
}

/// Lines with identical points merged into one named after all of them ("deadline = kyber"): otherwise the
/// later would hide the earlier and a reader would count one policy missing.
fn merge_identical<'a>(lines: Vec<Line<'a>>) -> Vec<Line<'a>> {
    let mut out: Vec<Line<'a>> = Vec::new();
    for line in lines {
        match out.iter_mut().find(|o| o.points == line.points) {
            Some(same) => same.name = format!("{} = {}", same.name, line.name),
            None => out.push(line),
        }
    }
    out
}

/// Lines in groups of at most [`LINES_PER_PLOT`], the first line (the baseline) in every group.
fn small_multiples<'a>(lines: &'a [Line<'a>]) -> Vec<Vec<&'a Line<'a>>> {
    let Some((first, rest)) = lines.split_first() else { return Vec::new() };
    if rest.is_empty() {
        return vec![vec![first]];
    }
    rest.chunks(LINES_PER_PLOT - 1).map(|chunk| std::iter::once(first).chain(chunk).collect()).collect()
}

/// Whether any line has a point with both coordinates above zero: a plot of nothing but zeros (no writes in a
/// read-only case, no latency of a job the case does not run) is left out.
fn has_data(lines: &[Line]) -> bool {
    lines.iter().any(|l| l.points.iter().any(|p| p.0 > 0.0 && p.1 > 0.0))
}

/// The seed's range for one bar: drawn over the bar as a hatched band between low and high (an open end reaches
/// the plot's edge), with the seed's words as its tooltip.
struct SeedBand<'a> {
    bar: usize,
    low: Option<f64>,
    high: Option<f64>,
    says: &'a str,
    holds: Option<bool>,
}

/// Bars the largest of which is more than this many times the smallest are drawn on a log axis, so that the
/// small ones (often the seed's) stay readable.
const BAR_LOG_SPAN: f64 = 100.0;

/// Bars, one per label, each in its policy's colour, with the seed's figures marked on theirs. The axis is
/// linear from 0, or in decades when the bars span more than [`BAR_LOG_SPAN`].
fn bar_chart(title: &str, y_name: &str, bars: &[(String, f64, &str)], seed: &[SeedBand]) -> String {
    let mut svg = String::new();
    let plot_w = WIDTH - LEFT - 20.0;
    let plot_h = HEIGHT - TOP - BOTTOM - 20.0;
    // The axis reaches the seed's figures too; an open range ("at least 100") gets room above its end.
    let seed_tops = seed.iter().filter_map(|b| b.high.or(b.low.map(|lo| lo * 1.3)));
    let values = || bars.iter().map(|b| b.1).chain(seed_tops.clone());
    let (lowest, highest) =
        values().filter(|v| *v > 0.0).fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let scale = if highest > BAR_LOG_SPAN * lowest { Scale::Log } else { Scale::Linear };
    let (y_min, y_max, y_step) = match scale {
        Scale::Log => {
            let (lo, hi) = decades(values());
            (lo, hi, 10.0)
        }
        Scale::Linear => {
            let (max, step) = nice_axis(highest);
            (0.0, max, step)
        }
    };
    let y_of = |y: f64| {
        let along = match scale {
            Scale::Log => (y.clamp(y_min, y_max).log10() - y_min.log10()) / (y_max.log10() - y_min.log10()),
            Scale::Linear => y.min(y_max) / y_max,
        };
        TOP + plot_h - along * plot_h
    };
    open_svg(&mut svg, title);
    y_axis(&mut svg, &ticks(y_min, y_max, y_step, scale), &y_of, plot_w, y_name, scale);
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
    for band in seed {
        let x = LEFT + band.bar as f64 * slot + slot * 0.05;
        let (top, bottom) = (y_of(band.high.unwrap_or(y_max)), y_of(band.low.unwrap_or(y_min)));
        let verdict = match band.holds {
            Some(true) => "holds",
            Some(false) => "does not hold",
            None => "not run",
        };
        let _ = write!(
            svg,
            r##"<rect class="seed" x="{x:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="url(#seedhatch)" stroke="#000" stroke-dasharray="4 2"><title>seed: {} ({verdict})</title></rect><text x="{:.1}" y="{:.1}" text-anchor="middle" class="seedlabel">seed</text>"##,
            slot * 0.9,
            (bottom - top).max(2.0),
            escape(band.says),
            x + slot * 0.45,
            (top - 14.0).max(TOP + 8.0)
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

/// The figures of a run drawn as bars: (metric name as in experiment.toml's figures, what, value).
fn bar_values(run: &RunOutcome) -> Vec<(&'static str, &'static str, f64)> {
    match run.measures.metrics {
        Metrics::GeomSched { dd_mb_per_s, cvs_ops_per_s } => {
            let mut v = Vec::new();
            if let Some(x) = dd_mb_per_s {
                v.push(("stream_mb_per_s", "stream MB/s", x));
            }
            if let Some(x) = cvs_ops_per_s {
                v.push(("interactive_ops_per_s", "interactive ops/s", x));
            }
            v
        }
        Metrics::NetflixFill { read_p99_ms_during, write_mb_per_s, .. } => vec![
            ("read_p99_ms_during", "read p99 ms during the fill", read_p99_ms_during),
            ("write_mb_per_s", "write MB/s", write_mb_per_s),
        ],
        Metrics::BfqStartup { startup_s, aggregate_mb_per_s, iteration_mb_per_s } => vec![
            ("startup_s", "start-up s", startup_s),
            ("aggregate_mb_per_s", "aggregate MB/s", aggregate_mb_per_s),
            ("iteration_mb_per_s", "MB/s over the start-up and the seed's pause after it", iteration_mb_per_s),
        ],
        Metrics::Dbload { load_s } => vec![("load_s", "load s", load_s)],
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
svg .seedlabel {{ font-size: 10px; font-style: italic; }}
table.verdicts {{ border-collapse: collapse; margin: 0.5em 0; }}
table.verdicts td, table.verdicts th {{ border: 1px solid #ccc; padding: 2px 8px; text-align: left; }}
tr.holds td:last-child {{ color: #1a7f37; font-weight: bold; }}
tr.fails td:last-child {{ color: #b42318; font-weight: bold; }}
</style></head><body><h1>{title}</h1><p>{source}; device <code>{device}</code>, seed {seed}.</p><p>{about}</p>"#,
        name = escape(&exp.name),
        title = escape(&d.title),
        source = escape(&d.source),
        device = escape(&d.device),
        seed = d.seed,
        about = escape(d.about.trim())
    );
    // The hatch the seed's ranges are drawn with, defined once for every plot of the page.
    page.push_str(r##"<svg width="0" height="0" style="position:absolute"><defs><pattern id="seedhatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff" fill-opacity="0.25"/><line x1="0" y1="0" x2="0" y2="6" stroke="#000" stroke-width="1.2" stroke-opacity="0.5"/></pattern></defs></svg>"##);
    let _ = write!(page, "<h2>Results</h2><pre>{}</pre>", escape(&render(exp, outcome)));
    let policies: Vec<&str> = d.policies.iter().map(|p| p.label.as_str()).collect();
    let color = |policy: &str| PALETTE[policies.iter().position(|p| *p == policy).unwrap_or(0) % PALETTE.len()];
    let all_verdicts = verdicts(&exp.cases, outcome);
    for case in &exp.cases {
        let runs: Vec<&RunOutcome> = outcome.runs.iter().filter(|r| r.case == case.entry.name).collect();
        if runs.is_empty() {
            continue;
        }
        let watched = &runs[0].measures.watched;
        let _ = write!(page, "<h2>Case {}</h2>", escape(&case.entry.name));
        let case_verdicts: Vec<&Verdict> = all_verdicts.iter().filter(|v| v.case == case.entry.name).collect();
        if !case_verdicts.is_empty() {
            page.push_str("<table class=\"verdicts\"><tr><th>the seed says</th><th>iosched</th><th>the seed's range</th><th>verdict</th><th>why, where known</th></tr>");
            for v in &case_verdicts {
                let _ = write!(
                    page,
                    r#"<tr class="{}"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
                    match v.holds {
                        Some(true) => "holds",
                        Some(false) => "fails",
                        None => "notrun",
                    },
                    escape(&v.figure.says),
                    escape(&verdict_figure(exp, v)),
                    escape(&verdict_range(v)),
                    verdict_word(v),
                    escape(v.figure.why.as_deref().filter(|_| v.holds == Some(false)).unwrap_or(""))
                );
            }
            page.push_str("</table>");
        }
        page.push_str("<div class=\"plots\">");
        let over_time = |pick: &dyn Fn(&iosched_sim::experiment::SeriesPoint) -> Option<f64>| -> Vec<Line> {
            merge_identical(
                runs.iter()
                    .map(|r| Line {
                        name: r.policy.clone(),
                        color: color(&r.policy),
                        marker: policies.iter().position(|p| *p == r.policy).unwrap_or(0),
                        points: r.measures.series.iter().filter_map(|p| pick(p).map(|v| (p.end_s, v))).collect(),
                    })
                    .collect(),
            )
        };
        let cdf = merge_identical(
            runs.iter()
                .map(|r| Line {
                    name: r.policy.clone(),
                    color: color(&r.policy),
                    marker: policies.iter().position(|p| *p == r.policy).unwrap_or(0),
                    points: r.measures.cdf.iter().map(|&(ms, q)| (ms, q * 100.0)).collect(),
                })
                .collect(),
        );
        let linear = (Scale::Linear, Scale::Linear);
        let plots = [
            LinePlot {
                title: "Read MB/s".into(),
                names: ("time (s)", "MB/s"),
                lines: over_time(&|p| Some(p.read_mb_per_s)),
                scales: linear,
            },
            LinePlot {
                title: "Write MB/s".into(),
                names: ("time (s)", "MB/s"),
                lines: over_time(&|p| Some(p.write_mb_per_s)),
                scales: linear,
            },
            LinePlot {
                title: format!("{watched}: p99 latency per interval"),
                names: ("time (s)", "ms"),
                lines: over_time(&|p| p.latency_p99_ms),
                scales: (Scale::Linear, Scale::Log),
            },
            LinePlot {
                title: format!("{watched}: latency CDF"),
                names: ("latency (ms, log)", "% of requests"),
                lines: cdf,
                scales: (Scale::Log, Scale::Linear),
            },
        ];
        for LinePlot { title, names, lines, scales } in &plots {
            if !has_data(lines) {
                continue;
            }
            let groups = small_multiples(lines);
            for (k, group) in groups.iter().enumerate() {
                let title =
                    if groups.len() > 1 { format!("{title} ({} of {})", k + 1, groups.len()) } else { title.clone() };
                let group: Vec<Line> = group
                    .iter()
                    .map(|l| Line { name: l.name.clone(), color: l.color, marker: l.marker, points: l.points.clone() })
                    .collect();
                page.push_str(&line_chart(&title, *names, &group, lines, *scales));
            }
        }
        // The measure's own figures, then each other figure the seed gives a value of in this case, so that
        // every seed figure stands beside iosched's.
        let mut kinds: Vec<(&str, String)> =
            bar_values(runs[0]).into_iter().map(|(m, name, _)| (m, name.to_string())).collect();
        for v in case_verdicts.iter().filter(|v| v.figure.relative_to.is_none()) {
            if !kinds.iter().any(|(m, _)| *m == v.figure.metric) {
                let unit = metric_names(&d.measure).iter().find(|(n, _)| *n == v.figure.metric).map_or("", |(_, u)| *u);
                kinds.push((v.figure.metric.as_str(), format!("{} ({unit})", v.figure.metric.replace('_', " "))));
            }
        }
        for (metric, what) in &kinds {
            let bars: Vec<(String, f64, &str)> = runs
                .iter()
                .filter_map(|r| run_figure(&outcome.runs, r, metric).map(|v| (r.policy.clone(), v, color(&r.policy))))
                .collect();
            if bars.iter().all(|b| b.1 <= 0.0) {
                continue;
            }
            let seed: Vec<SeedBand> = case_verdicts
                .iter()
                .filter(|v| v.figure.metric == *metric && v.figure.relative_to.is_none())
                .filter_map(|v| {
                    bars.iter().position(|b| b.0 == v.figure.policy).map(|bar| SeedBand {
                        bar,
                        low: v.figure.low,
                        high: v.figure.high,
                        says: &v.figure.says,
                        holds: v.holds,
                    })
                })
                .collect();
            page.push_str(&bar_chart(&format!("{}: {what}", case.entry.name), what, &bars, &seed));
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

    fn line(name: &str, points: &[(f64, f64)]) -> Line<'static> {
        Line { name: name.to_string(), color: "#000", marker: 0, points: points.to_vec() }
    }

    #[test]
    fn identical_lines_merge_and_groups_keep_the_baseline() {
        let lines = merge_identical(vec![
            line("noop", &[(1.0, 5.0)]),
            line("a", &[(1.0, 6.0)]),
            line("deadline", &[(1.0, 5.0)]),
            line("b", &[(1.0, 7.0)]),
            line("c", &[(1.0, 8.0)]),
            line("d", &[(1.0, 9.0)]),
        ]);
        let names: Vec<&str> = lines.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["noop = deadline", "a", "b", "c", "d"]);
        let groups: Vec<Vec<&str>> =
            small_multiples(&lines).iter().map(|g| g.iter().map(|l| l.name.as_str()).collect()).collect();
        assert_eq!(groups, [vec!["noop = deadline", "a", "b", "c"], vec!["noop = deadline", "d"]]);
        assert!(groups.iter().all(|g| g.len() <= LINES_PER_PLOT));
    }

    #[test]
    fn a_plot_of_zeros_has_no_data_and_a_log_axis_is_in_decades() {
        assert!(!has_data(&[line("w", &[(1.0, 0.0), (2.0, 0.0)])]));
        assert!(!has_data(&[line("cdf of nothing", &[(0.0, 50.0), (0.0, 100.0)])]));
        assert!(has_data(&[line("r", &[(1.0, 0.0), (2.0, 3.0)])]));
        assert_eq!(decades([0.3, 25_000.0].into_iter()), (0.1, 100_000.0));
        let svg = line_chart(
            "p99",
            ("time (s)", "ms"),
            &[line("a", &[(1.0, 0.5), (2.0, 25_000.0)])],
            &[line("a", &[(1.0, 0.5), (2.0, 25_000.0)])],
            (Scale::Linear, Scale::Log),
        );
        assert!(svg.contains(r#"data-scale="log""#) && svg.contains(">100000<") && svg.contains(">0.10<"), "{svg}");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
