//! Seek time by distance in cylinders, by each of DiskSim's seek models (diskmodel/mech_g1_seektime.c;
//! DiskSim manual B.5.1). A zero-distance seek takes no time.

/// A seek model; times in milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub enum SeekCurve {
    /// The same time for any distance above zero.
    Constant { ms: f64 },
    /// Straight line from the single-cylinder time at distance 1 to the full-stroke time at the last cylinder.
    Linear { single_ms: f64, full_ms: f64, cylinders: u32 },
    /// Lee's three-point curve: a*sqrt(x-1) + b*(x-1) + c through the single-cylinder, average and
    /// full-stroke times.
    Curve { a: f64, b: f64, c: f64 },
    /// Ruemmler and Wilkes: v2 + v3*sqrt(d) below v1 cylinders, v4 + v5*d from there; v6 for one cylinder
    /// unless it is -1; with `first_ten` (hplplus10), the measured times for distances 1 to 10.
    Hpl { v: [f64; 6], first_ten: Option<[f64; 10]> },
    /// A measured table of (distance, ms), interpolated linearly; past the end, the last segment's slope.
    Extracted { points: Vec<(u32, f64)> },
}

impl SeekCurve {
    /// Lee's curve from its three points over `cylinders` cylinders.
    pub fn lee(single_ms: f64, average_ms: f64, full_ms: f64, cylinders: u32) -> SeekCurve {
        let c_cyl = cylinders as f64;
        SeekCurve::Curve {
            a: (-10.0 * single_ms + 15.0 * average_ms - 5.0 * full_ms) / (3.0 * c_cyl.sqrt()),
            b: (7.0 * single_ms - 15.0 * average_ms + 8.0 * full_ms) / (3.0 * c_cyl),
            c: single_ms,
        }
    }

    /// Seek time for `distance` cylinders, in milliseconds.
    pub fn ms(&self, distance: u32) -> f64 {
        if distance == 0 {
            return 0.0;
        }
        let d = distance as f64;
        match self {
            SeekCurve::Constant { ms } => *ms,
            SeekCurve::Linear { single_ms, full_ms, cylinders } => {
                let span = (*cylinders as f64 - 2.0).max(1.0);
                single_ms + (full_ms - single_ms) * (d - 1.0) / span
            }
            SeekCurve::Curve { a, b, c } => a * (d - 1.0).sqrt() + b * (d - 1.0) + c,
            SeekCurve::Hpl { v, first_ten } => {
                if let Some(ten) = first_ten {
                    if distance <= 10 {
                        return ten[distance as usize - 1];
                    }
                }
                if distance == 1 && v[5] != -1.0 {
                    v[5]
                } else if d < v[0] {
                    v[1] + v[2] * d.sqrt()
                } else {
                    v[3] + v[4] * d
                }
            }
            SeekCurve::Extracted { points } => {
                let i = points.partition_point(|(pd, _)| *pd < distance);
                if i < points.len() && points[i].0 == distance {
                    return points[i].1;
                }
                let (lo, hi) = if i == 0 {
                    (points[0], points.get(1).copied().unwrap_or(points[0]))
                } else if i >= points.len() {
                    let n = points.len();
                    (points[n.saturating_sub(2)], points[n - 1])
                } else {
                    (points[i - 1], points[i])
                };
                if hi.0 == lo.0 {
                    return lo.1;
                }
                lo.1 + (hi.1 - lo.1) * (d - lo.0 as f64) / (hi.0 as f64 - lo.0 as f64)
            }
        }
        .max(0.0)
    }

    /// Mean seek time over uniformly random pairs of cylinders out of `cylinders` (distance d has weight
    /// 2 (C - d) / C^2), the way drive data sheets quote an average.
    pub fn average_ms(&self, cylinders: u32) -> f64 {
        let c = cylinders as f64;
        (1..cylinders).map(|d| self.ms(d) * 2.0 * (c - d as f64) / (c * c)).sum::<f64>() / (1.0 - 1.0 / c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lee_curve_hits_its_three_points() {
        let c = 6962;
        let curve = SeekCurve::lee(0.831, 5.47, 10.63, c);
        assert!((curve.ms(1) - 0.831).abs() < 1e-9);
        assert!((curve.ms(c) - 10.63).abs() < 0.01, "{}", curve.ms(c));
        // The average over random pairs comes out near the stated average (Lee's derivation uses a
        // continuous approximation, so within a few per cent).
        let avg = curve.average_ms(c);
        assert!((avg / 5.47 - 1.0).abs() < 0.05, "{avg}");
        assert_eq!(curve.ms(0), 0.0);
    }

    #[test]
    fn hpl_with_first_ten() {
        let v = [300.0, 3.81, 0.33, 7.75, 0.0059, -1.0];
        let ten = [2.89, 3.68, 3.81, 3.98, 4.27, 4.65, 4.52, 4.65, 4.82, 4.99];
        let plain = SeekCurve::Hpl { v, first_ten: None };
        let plus = SeekCurve::Hpl { v, first_ten: Some(ten) };
        assert!((plain.ms(100) - (3.81 + 0.33 * 10.0)).abs() < 1e-12);
        assert!((plain.ms(1000) - (7.75 + 5.9)).abs() < 1e-12);
        assert_eq!(plus.ms(2), 3.68);
        assert_eq!(plus.ms(11), plain.ms(11));
    }

    #[test]
    fn extracted_interpolates_and_extends() {
        let t = SeekCurve::Extracted { points: vec![(1, 1.0), (3, 2.0), (5, 2.5)] };
        assert_eq!(t.ms(1), 1.0);
        assert_eq!(t.ms(2), 1.5);
        assert_eq!(t.ms(4), 2.25);
        assert_eq!(t.ms(7), 3.0);
        let constant = SeekCurve::Constant { ms: 4.0 };
        assert_eq!((constant.ms(0), constant.ms(9)), (0.0, 4.0));
        let linear = SeekCurve::Linear { single_ms: 1.0, full_ms: 11.0, cylinders: 12 };
        assert_eq!((linear.ms(1), linear.ms(11)), (1.0, 11.0));
    }
}
