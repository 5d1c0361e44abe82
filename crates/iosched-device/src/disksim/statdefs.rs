//! DiskSim's statistic distributions: how a `statdefs` file says a statistic's values are counted into buckets,
//! and the cumulative distribution DiskSim prints from those counts.
//!
//! DiskSim's demerit figure is not computed from the requests' times themselves: its `rms` tool reads two of
//! these printed distributions back from the output file ("IOdriver Physical access time" for the simulated
//! times, "VALIDATE Trace access time" for the measured ones) and compares them. So reproducing DiskSim's figure
//! needs its buckets. With the statdefs file shipped with the validated drives (1750 buckets, scale 1000, start 0,
//! step 1, grow 1 %), buckets are 1 µs wide below 0.1 ms and then 1 % of their value: 100 µs at 10 ms.
//!
//! Source: DiskSim 4.0, src/disksim_stat.c (stat_initialize, stat_get_large_dist, stat_update,
//! stat_print_large_dist). Only the "large" form (more than 10 buckets, a `Start a step b grow c` line) is read:
//! DiskSim prints distributions of 10 buckets or fewer as a one-line table that its rms tool cannot read.

use super::params::{Loc, ParamError, ParamFile};
use iosched_core::input::read_text;
use std::path::{Path, PathBuf};

/// The name of the simulated access times' distribution (the iodriver's "Physical access time").
pub const SIMULATED_ACCESS_TIME: &str = "Physical access time";
/// The name of the measured access times' distribution (a validate trace's service times).
pub const MEASURED_ACCESS_TIME: &str = "Trace access time";

/// DiskSim counts small distributions in a fixed table of this many buckets; more make a "large" one.
const SMALL_BUCKETS: usize = 10;
/// More buckets than any statdefs needs; a bound so a typo cannot ask for gigabytes.
const MAX_BUCKETS: usize = 1_000_000;

/// A statistic's distribution as a statdefs file defines it (large form).
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution {
    /// Values are multiplied by this and truncated to a whole number before being counted.
    pub scale: i64,
    /// The first `equals` buckets count only values equal to their bound.
    pub equals: usize,
    /// Each bucket's bound, in scaled units: bucket 0 holds values below `bounds[0]`, bucket i > 0 values from
    /// `bounds[i - 1]` up to below `bounds[i]`, and the last bucket everything from `bounds[len - 2]` up.
    pub bounds_scaled: Vec<i64>,
    /// Whether the bounds grow by a percentage (`grow` > 0), which changes how DiskSim finds a value's bucket.
    pub growing: bool,
}

impl Distribution {
    /// The definition of the access-time distributions in the statdefs file DiskSim ships with its validated
    /// drives: 1750 buckets, scale 1000 (µs for values in ms), start 0, step 1, grow 1 %.
    pub fn disksim_access_time() -> Distribution {
        Distribution::from_steps(1750, 1000, 0, 0, 1, 1).expect("the shipped definition is valid")
    }

    /// A large distribution from the numbers of its statdefs entry, or what is wrong with them.
    pub fn from_steps(
        buckets: usize,
        scale: i64,
        equals: usize,
        start: i64,
        step: i64,
        grow_percent: i64,
    ) -> Result<Distribution, String> {
        check_bucket_count(buckets)?;
        // DiskSim reads these into C ints.
        let int = 1..=i64::from(i32::MAX);
        if !int.contains(&scale) {
            return Err(format!("scale {scale}: expected a whole number from 1 to 2^31 - 1"));
        }
        if equals > buckets {
            return Err(format!("equals {equals}: expected at most the {buckets} buckets"));
        }
        if !int.contains(&step) || !(0..=i64::from(i32::MAX)).contains(&grow_percent) || start.abs() > *int.end() {
            return Err(format!(
                "start {start}, step {step}, grow {grow_percent}: expected a start within ±2^31, a step of at least \
                 1 and a growth of at least 0 %"
            ));
        }
        // Bucket i's bound is the one before plus the step plus grow % of it (whole units), as DiskSim prints
        // them; its counters are C ints, so bounds past 2^31 would wrap there.
        let mut bounds_scaled = Vec::with_capacity(buckets);
        let mut bound = start;
        for _ in 0..buckets {
            if bound.abs() > i64::from(i32::MAX) {
                return Err(format!(
                    "the bucket bounds pass 2^31 at bucket {} (DiskSim keeps them in C ints): expected fewer \
                     buckets, a smaller step or less growth",
                    bounds_scaled.len()
                ));
            }
            bounds_scaled.push(bound);
            bound += step + bound.abs() * grow_percent / 100;
        }
        Ok(Distribution { scale, equals, bounds_scaled, growing: grow_percent > 0 })
    }

    /// The bucket DiskSim counts `value` in.
    pub fn bucket_of(&self, value: f64) -> usize {
        let b = &self.bounds_scaled;
        let last = b.len() - 1;
        // DiskSim casts the scaled value to a C int, truncating toward zero.
        let v = (value * self.scale as f64).clamp(i32::MIN as f64, i32::MAX as f64) as i64;
        let (start, step) = (b[0], b[1] - b[0]);
        if v < start {
            return 0;
        }
        if !self.growing {
            // Equal steps: the bucket is found by division. The first `equals` bounds count exact hits there, in
            // bucket value / step: DiskSim's rule, right for a start of 0 (else it can point outside the buckets,
            // so it is kept inside them here).
            let exact = self.equals > 0 && v <= start + step * (self.equals as i64 - 1) && (v - start) % step == 0;
            let i = if exact { v / step } else { (v - start) / step + 1 };
            return (i.max(0) as usize).min(last);
        }
        if let Some(i) = b[..self.equals.min(b.len())].iter().position(|&x| x == v) {
            return i;
        }
        if v >= b[last - 1] {
            return last;
        }
        // The last bound at or below the value, searched from the first bucket past the exact ones; counted in
        // the bucket after it (whose printed bound is the first one above the value).
        let from = self.equals.min(last - 1);
        let below = from + b[from + 1..last].partition_point(|&x| x <= v);
        below + 1
    }

    /// The distribution of `values` as DiskSim prints it and its rms tool reads it back: (bound, cumulative
    /// fraction) for each bucket up to the first whose cumulative fraction reaches 1, the bound printed with
    /// three decimals (when scaled) and the fraction with six. Empty for no values (DiskSim prints nothing).
    pub fn printed_cumulative(&self, values: &[f64]) -> Vec<(f64, f64)> {
        if values.is_empty() {
            return Vec::new();
        }
        let mut counts = vec![0u64; self.bounds_scaled.len()];
        for &v in values {
            counts[self.bucket_of(v)] += 1;
        }
        let n = values.len() as f64;
        let mut out = Vec::new();
        let mut below = 0u64;
        for (bound, count) in self.bounds_scaled.iter().zip(counts) {
            below += count;
            let x = if self.scale == 1 { *bound as f64 } else { round_to(*bound as f64 / self.scale as f64, 3) };
            let y = round_to(below as f64 / n, 6);
            out.push((x, y));
            if y >= 1.0 {
                break;
            }
        }
        out
    }
}

/// Whether DiskSim keeps a distribution of `buckets` buckets in the large form its rms tool can read.
fn check_bucket_count(buckets: usize) -> Result<(), String> {
    if SMALL_BUCKETS < buckets && buckets <= MAX_BUCKETS {
        return Ok(());
    }
    Err(format!(
        "{buckets} buckets: expected {} to {MAX_BUCKETS} (DiskSim prints distributions of {SMALL_BUCKETS} buckets or \
         fewer as a table its rms tool cannot read)",
        SMALL_BUCKETS + 1
    ))
}

fn round_to(x: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (x * f).round() / f
}

/// The two distributions DiskSim's rms tool compares, as a statdefs file buckets them.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessTimeBuckets {
    /// The simulated times' ("Physical access time").
    pub simulated: Distribution,
    /// The measured times' ("Trace access time").
    pub measured: Distribution,
}

impl AccessTimeBuckets {
    /// The buckets of the statdefs file DiskSim ships with its validated drives.
    pub fn disksim() -> AccessTimeBuckets {
        AccessTimeBuckets {
            simulated: Distribution::disksim_access_time(),
            measured: Distribution::disksim_access_time(),
        }
    }

    /// The buckets of the statdefs file a `.parv` names ("Stat definition file" in its `disksim_global` block,
    /// resolved relative to the file that names it) and that file's path; None when the `.parv` names none.
    pub fn named_in(file: &ParamFile) -> Result<Option<(AccessTimeBuckets, PathBuf)>, ParamError> {
        let Some((path, named_at)) = file_named_in(file)? else { return Ok(None) };
        let text = read_text(&path, "statdefs file").map_err(|e| {
            ParamError::new(named_at, format!("Stat definition file {}: {}", path.display(), e.message))
        })?;
        let buckets = AccessTimeBuckets {
            simulated: parse(&text, &path, SIMULATED_ACCESS_TIME)?,
            measured: parse(&text, &path, MEASURED_ACCESS_TIME)?,
        };
        Ok(Some((buckets, path)))
    }
}

/// The statdefs file a `.parv` names, with where it is named.
fn file_named_in(file: &ParamFile) -> Result<Option<(PathBuf, Loc)>, ParamError> {
    let Some(global) = file.blocks.iter().find(|b| b.type_name == "disksim_global") else { return Ok(None) };
    if global.get("Stat definition file").is_none() {
        return Ok(None);
    }
    let (name, loc) = global.word("Stat definition file")?;
    Ok(Some((super::params::resolve(Path::new(&loc.file), name), loc.clone())))
}

/// The distribution called `name` in the text of the statdefs file at `path`.
pub fn parse(text: &str, path: &Path, name: &str) -> Result<Distribution, ParamError> {
    let at = |line: usize| Loc::new(path.display().to_string(), line);
    let lines: Vec<&str> = text.lines().collect();
    let Some(first) = lines.iter().position(|l| l.trim_end() == name) else {
        return Err(ParamError::new(
            at(0),
            format!("no '{name}' distribution: expected a line '{name}' followed by its 'Distribution size: N'"),
        ));
    };
    let line = |i: usize, what: &str| {
        lines
            .get(i)
            .map(|l| l.trim())
            .ok_or_else(|| ParamError::new(at(lines.len()), format!("'{name}' ends early: expected {what}")))
    };
    let size = line(first + 1, "'Distribution size: N'")?;
    let buckets: usize = size
        .strip_prefix("Distribution size:")
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| ParamError::new(at(first + 2), format!("expected 'Distribution size: N', found '{size}'")))?;
    let scale_line = line(first + 2, "'Scale/Equals: S/E'")?;
    let (scale, equals) = scale_line
        .strip_prefix("Scale/Equals:")
        .and_then(|s| s.trim().split_once('/'))
        .and_then(|(s, e)| Some((s.trim().parse::<i64>().ok()?, e.trim().parse::<usize>().ok()?)))
        .ok_or_else(|| {
            ParamError::new(
                at(first + 3),
                format!("expected 'Scale/Equals: S/E' (whole numbers), found '{scale_line}'"),
            )
        })?;
    check_bucket_count(buckets).map_err(|e| ParamError::new(at(first + 2), format!("'{name}': {e}")))?;
    let steps_line = line(first + 3, "'Start a step b grow c'")?;
    let words: Vec<&str> = steps_line.split_whitespace().collect();
    let steps = match words.as_slice() {
        ["Start", a, "step", b, "grow", c] => (|| Some((a.parse().ok()?, b.parse().ok()?, c.parse().ok()?)))(),
        _ => None,
    };
    let (start, step, grow) = steps.ok_or_else(|| {
        ParamError::new(
            at(first + 4),
            format!("expected 'Start a step b grow c' (whole numbers), found '{steps_line}'"),
        )
    })?;
    Distribution::from_steps(buckets, scale, equals, start, step, grow)
        .map_err(|e| ParamError::new(at(first + 4), format!("'{name}': {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_access_time_buckets_are_one_microsecond_then_one_percent() {
        let d = Distribution::disksim_access_time();
        let b = &d.bounds_scaled;
        assert_eq!(b.len(), 1750);
        assert_eq!(&b[..4], &[0, 1, 2, 3]);
        // Step 1 up to 100 µs, then 1 % of the bound more: 100, 102, 104, ...
        assert_eq!(&b[99..104], &[99, 100, 102, 104, 106]);
        let at_10ms = b.partition_point(|&x| x <= 10_000);
        assert_eq!(b[at_10ms] - b[at_10ms - 1], 100, "100 µs wide at 10 ms");
        assert!(*b.last().unwrap() < i64::from(i32::MAX));
        // A value goes in the bucket whose printed bound is the first above it; the scaled value is truncated.
        assert_eq!(d.bucket_of(0.0), 1);
        assert_eq!(d.bucket_of(0.0999), 100, "99.9 µs truncates to 99, below the bound 100");
        assert_eq!(d.bucket_of(0.1), 101, "100 µs is not below 100: the next bound, 102");
        assert_eq!(d.bucket_of(0.1019), 101);
        assert_eq!(d.bucket_of(1e9), 1749, "past the last bound but one: the last bucket");
        assert_eq!(d.bucket_of(-1.0), 0);
    }

    #[test]
    fn the_printed_distribution_is_cumulative_and_stops_at_one() {
        let d = Distribution::from_steps(20, 1, 0, 0, 2, 0).unwrap();
        // Bounds 0, 2, 4, ...; values 1 and 3 and 3.5: below 2 one third, below 4 all.
        let p = d.printed_cumulative(&[1.0, 3.0, 3.5]);
        assert_eq!(p, vec![(0.0, 0.0), (2.0, 0.333333), (4.0, 1.0)]);
        assert!(d.printed_cumulative(&[]).is_empty());
        // Scaled bounds print with three decimals: 1/3 ms steps.
        let s = Distribution::from_steps(20, 3, 0, 0, 1, 0).unwrap();
        assert_eq!(s.printed_cumulative(&[0.5])[..3], [(0.0, 0.0), (0.333, 0.0), (0.667, 1.0)]);
        // Equal steps with exact buckets first: with equals 2, values 0 and 2 count where their bound is.
        let e = Distribution::from_steps(20, 1, 2, 0, 2, 0).unwrap();
        assert_eq!((e.bucket_of(0.0), e.bucket_of(2.0), e.bucket_of(3.0)), (0, 1, 2));
        // DiskSim's exact-bucket rule divides the value by the step whatever the start: kept inside the buckets.
        let odd = Distribution::from_steps(20, 1, 2, -10, 5, 0).unwrap();
        assert_eq!((odd.bucket_of(-10.0), odd.bucket_of(-5.0), odd.bucket_of(-4.0)), (0, 0, 2));
        let g = Distribution::from_steps(20, 1, 1, 0, 1, 50).unwrap();
        assert_eq!(&g.bounds_scaled[..5], &[0, 1, 2, 4, 7]);
        assert_eq!((g.bucket_of(0.0), g.bucket_of(5.0)), (0, 4), "0 exactly in bucket 0, 5 below 7");
    }

    #[test]
    fn statdefs_entries_are_read_and_bad_ones_named_by_line() {
        let path = Path::new("statdefs");
        let text = "\nQueue time\nDistribution size: 10\nScale/Equals: 1/0\n5 10 20 40 60 90 120 150 200\n\n\
                    Physical access time\nDistribution size: 1750\nScale/Equals: 1000/0\nStart 0  step 1  grow 1\n";
        let d = parse(text, path, SIMULATED_ACCESS_TIME).unwrap();
        assert_eq!(d, Distribution::disksim_access_time());
        let err = |text: &str, name: &str| parse(text, path, name).unwrap_err().to_string();
        assert_eq!(
            err(text, MEASURED_ACCESS_TIME),
            "statdefs: no 'Trace access time' distribution: expected a line 'Trace access time' followed by its \
             'Distribution size: N'"
        );
        assert!(err(text, "Queue time").starts_with("statdefs:3: 'Queue time': 10 buckets: expected 11 to"));
        let bad_steps = text.replace("Start 0  step 1  grow 1", "Start 0 step one grow 1");
        assert_eq!(
            err(&bad_steps, SIMULATED_ACCESS_TIME),
            "statdefs:10: expected 'Start a step b grow c' (whole numbers), found 'Start 0 step one grow 1'"
        );
        let bad_scale = text.replace("1000/0", "1000");
        assert!(err(&bad_scale, SIMULATED_ACCESS_TIME).starts_with("statdefs:9: expected 'Scale/Equals: S/E'"));
        let truncated = &text[..text.find("Scale/Equals: 1000").unwrap()];
        assert!(err(truncated, SIMULATED_ACCESS_TIME).contains("ends early: expected 'Scale/Equals: S/E'"));
        let huge = text.replace("grow 1", "grow 99999999999");
        assert!(err(&huge, SIMULATED_ACCESS_TIME).contains("expected a start within"), "{}", err(&huge, "x"));
        let overflow = text.replace("grow 1", "grow 50");
        assert!(err(&overflow, SIMULATED_ACCESS_TIME).contains("pass 2^31"), "{}", err(&overflow, "x"));
    }
}
