//! Mutations of a corpus entry: the kinds of damage and oddity real files show.

use iosched_core::rng::SimRng;

/// Tokens worth inserting: separators, signs, units, and numbers at the edges of the types readers use.
const TOKENS: &[&str] = &[
    "0",
    "1",
    "-1",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "1e308",
    "NaN",
    "inf",
    "0.0000001",
    ",",
    " ",
    "\t",
    "\n",
    "=",
    "%",
    "k",
    "m",
    "g",
    "t",
    "p",
    ":",
    "/",
    "-",
    ".",
    "[",
    "]",
    "[global]\n",
    "include ",
    "#",
    ";",
    "+",
    "R",
    "W",
    "Q",
    "D",
    "FWS",
    "fio version 3 iolog\n",
    "time_based\n",
    "bssplit=",
    "random_distribution=zipf:",
    "rate_iops=",
    "latency_target=",
    "stonewall\n",
    "numjobs=",
];

fn pick<'a>(items: &'a [Vec<u8>], rng: &mut SimRng) -> &'a [u8] {
    &items[rng.below(items.len() as u64) as usize]
}

/// A mutated copy of one corpus entry (1 to 4 mutations).
pub fn mutate(corpus: &[Vec<u8>], rng: &mut SimRng) -> Vec<u8> {
    let mut data = pick(corpus, rng).to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = data.len() as u64;
        match rng.below(8) {
            0 if len > 0 => {
                let at = rng.below(len) as usize;
                data[at] ^= 1 << rng.below(8);
            }
            1 => {
                let at = rng.below(len + 1) as usize;
                let token = TOKENS[rng.below(TOKENS.len() as u64) as usize].as_bytes();
                data.splice(at..at, token.iter().copied());
            }
            2 if len > 0 => {
                let start = rng.below(len) as usize;
                let end = (start + 1 + rng.below(16) as usize).min(data.len());
                data.drain(start..end);
            }
            3 => {
                // Replace a run of digits by an interesting number.
                if let Some(start) = (0..data.len()).find(|&i| data[i].is_ascii_digit() && rng.below(4) == 0) {
                    let end = (start..data.len()).find(|&i| !data[i].is_ascii_digit()).unwrap_or(data.len());
                    let token = ["0", "18446744073709551615", "99999999999999999999", "-5", "4096"]
                        [rng.below(5) as usize]
                        .as_bytes();
                    data.splice(start..end, token.iter().copied());
                }
            }
            4 => {
                // Duplicate or drop a line.
                let lines: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
                if !lines.is_empty() {
                    let k = rng.below(lines.len() as u64) as usize;
                    let mut out: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
                    if rng.below(2) == 0 {
                        out.insert(k, out[k].clone());
                    } else {
                        out.remove(k);
                    }
                    data = out.join(&b'\n');
                }
            }
            5 => {
                // Splice in the tail of another entry.
                let other = pick(corpus, rng);
                let from = rng.below(other.len() as u64 + 1) as usize;
                let at = rng.below(len + 1) as usize;
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
            6 if len > 0 => {
                let at = rng.below(len) as usize;
                data[at] = rng.below(256) as u8;
            }
            _ => {
                let at = rng.below(len + 1) as usize;
                data.truncate(at);
            }
        }
    }
    data
}
