//! MQSim's random number generator, so that what iosched draws where MQSim draws (today a synthetic flow's
//! requests, in iosched-workload) is what MQSim draws, and the two simulators compare event by event rather
//! than as two draws of the same distribution. It lives here, beside iosched's own generator, so that the device
//! models can draw from it too (MQSim's cleaning draws its candidates from one).
//!
//! Source: MQSim's utils/CMRRandomGenerator (L'Ecuyer's combined multiple recursive generator MRG32k3a, stepped
//! in doubles) and utils/RandomGenerator (its seeding and uniform draws). As there, the generator for seed `s`
//! starts from the state all ones advanced by `s / 200 + 1` steps of the recurrence matrix squared `s % 200`
//! times. MQSim squares and multiplies those matrices in signed 64-bit integers, whose products of two residues
//! overflow; the arithmetic here wraps as that compiled code does (two's complement), so the states, and the
//! numbers drawn, are MQSim's.

/// One of MQSim's generators (CMRRandomGenerator behind RandomGenerator).
#[derive(Clone, Debug)]
pub struct MqsimRandom {
    s: [[f64; 3]; 2],
    /// RandomGenerator's Normal_z2: the second normal draw of a pair, kept for the next call (0: none kept).
    kept_normal: f64,
}

const NORM: f64 = 2.328306549295728e-10;
const M1: f64 = 4294967087.0;
const M2: f64 = 4294944443.0;
const A12: f64 = 1403580.0;
const A13: f64 = -810728.0;
const A21: f64 = 527612.0;
const A23: f64 = -1370589.0;

/// The two recurrences' matrices.
const A: [[[f64; 3]; 3]; 2] =
    [[[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [A13, A12, 0.0]], [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [A23, 0.0, A21]]];

/// C's `(int64_t)x` for a value toward a residue (MQSim's ftoi).
fn ftoi(x: f64, m: f64) -> i64 {
    if x >= 0.0 {
        x as i64
    } else {
        (x + m) as i64
    }
}

/// MQSim's mm_mul: c = a x b mod m, each step `(a * b + d) % m` in wrapping signed 64-bit arithmetic.
fn mm_mul(a: &[[i64; 3]; 3], b: &[[i64; 3]; 3], m: i64) -> [[i64; 3]; 3] {
    let mut d = [[0i64; 3]; 3];
    for (i, row) in d.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            for k in 0..3 {
                *cell = a[i][k].wrapping_mul(b[k][j]).wrapping_add(*cell).wrapping_rem(m);
            }
        }
    }
    d
}

/// MQSim's mv_mul: v = a x u mod m, as [`mm_mul`].
fn mv_mul(a: &[[i64; 3]; 3], u: &[i64; 3], m: i64) -> [i64; 3] {
    let mut w = [0i64; 3];
    for (i, cell) in w.iter_mut().enumerate() {
        for j in 0..3 {
            *cell = a[i][j].wrapping_mul(u[j]).wrapping_add(*cell).wrapping_rem(m);
        }
    }
    w
}

/// MQSim's mod for doubles: x - trunc(x / m) x m, made non-negative.
fn fmod(x: f64, m: f64) -> f64 {
    let k = (x / m) as i64;
    let x = x - k as f64 * m;
    if x < 0.0 {
        x + m
    } else {
        x
    }
}

impl MqsimRandom {
    /// The generator MQSim's `RandomGenerator(seed)` makes.
    pub fn new(seed: i32) -> MqsimRandom {
        let mut g = MqsimRandom { s: [[1.0; 3]; 2], kept_normal: 0.0 };
        g.advance(seed as i64 / 200 + 1, seed % 200);
        g
    }

    /// CMRRandomGenerator::Advance.
    fn advance(&mut self, mut n: i64, mut e: i32) {
        let m = [M1, M2];
        let mut b = [[[0i64; 3]; 3]; 2];
        let mut s = [[0i64; 3]; 2];
        for i in 0..2 {
            b[i] = A[i].map(|row| row.map(|x| ftoi(x, m[i])));
            s[i] = self.s[i].map(|x| ftoi(x, m[i]));
        }
        let mi = [m[0] as i64, m[1] as i64];
        while e != 0 {
            e -= 1;
            for i in 0..2 {
                b[i] = mm_mul(&b[i], &b[i], mi[i]);
            }
        }
        while n != 0 {
            if n & 1 != 0 {
                for i in 0..2 {
                    s[i] = mv_mul(&b[i], &s[i], mi[i]);
                }
            }
            n >>= 1;
            if n != 0 {
                for i in 0..2 {
                    b[i] = mm_mul(&b[i], &b[i], mi[i]);
                }
            }
        }
        for (state, ints) in self.s.iter_mut().zip(s) {
            *state = ints.map(|v| v as f64);
        }
    }

    /// CMRRandomGenerator::NextDouble: in (0, 1).
    pub fn next_f64(&mut self) -> f64 {
        let s = &mut self.s;
        let p1 = fmod(A12 * s[0][1] + A13 * s[0][0], M1);
        s[0] = [s[0][1], s[0][2], p1];
        let p2 = fmod(A21 * s[1][2] + A23 * s[1][0], M2);
        s[1] = [s[1][1], s[1][2], p2];
        let p = if p1 - p2 < 0.0 { p1 - p2 + M1 } else { p1 - p2 };
        (p + 1.0) * NORM
    }

    /// RandomGenerator::Uniform(a, b).
    pub fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.next_f64()
    }

    /// RandomGenerator::Uniform_ulong(m, n): m..=n.
    pub fn uniform_u64(&mut self, m: u64, n: u64) -> u64 {
        m + ((n - m + 1) as f64 * self.next_f64()) as u64
    }

    /// RandomGenerator::Normal(mean, sd): the polar Box-Muller method, which makes two normal numbers at a time
    /// and keeps the second for the next call.
    pub fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let z = if self.kept_normal != 0.0 {
            std::mem::take(&mut self.kept_normal)
        } else {
            let (v1, v2, w) = loop {
                let v1 = 2.0 * self.next_f64() - 1.0;
                let v2 = 2.0 * self.next_f64() - 1.0;
                let w = v1 * v1 + v2 * v2;
                if w < 1.0 {
                    break (v1, v2, w);
                }
            };
            let w = ((-2.0 * w.ln()) / w).sqrt();
            self.kept_normal = v2 * w;
            v1 * w
        };
        mean + z * sd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MQSim's own RandomGenerator (utils/RandomGenerator.cpp and CMRRandomGenerator.cpp of ../shared/peers,
    /// compiled with g++ -O3 and -O0 alike) drawing Uniform_uint(0, 255) ten times, for seeds 322 and 432 (432 is
    /// what MQSim's GC unit always takes: see BENCHMARKS.md).
    #[test]
    fn the_generator_draws_what_mqsims_draws() {
        let draws = |seed| {
            let mut g = MqsimRandom::new(seed);
            (0..10).map(|_| (256.0 * g.next_f64()) as u32).collect::<Vec<_>>()
        };
        assert_eq!(draws(322), [190, 67, 249, 6, 243, 9, 108, 212, 42, 88]);
        assert_eq!(draws(432), [125, 179, 115, 249, 168, 17, 161, 229, 82, 230]);
    }
}
