#!/usr/bin/env python3
"""Where a validate run's error comes from, by kind of request.

Usage:
  iosched validate --disksim D.parv --trace D.trace --per-request /tmp/r.csv
  scripts/validate-categories.py D.trace /tmp/r.csv [RPM]

Groups the requests of a DiskSim validate trace by what they are (the trace's own label, such as "R Miss" or
"W Trip", whether they continue the previous request's blocks, and what the previous request was) and prints,
per group: how many, the mean of simulated minus measured (ms), that mean without the requests that differ by
more than half a turn, and how many differ by most of a turn either way ("flips": the model or the drive
missed the sector by a hair and waited a whole turn). A mean offset with balanced flips is a fixed cost; flips
leaning one way are a rotational phase offset. Then the two distributions' quantiles, and the share of the
squared distance between them (what the demerit is made of) in each tenth. RPM defaults to the HP C2247A's 5400.
"""
import collections
import csv
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    trace_path, csv_path = sys.argv[1], sys.argv[2]
    rpm = float(sys.argv[3]) if len(sys.argv) == 4 else 5400.0
    turn_ms = 60000.0 / rpm
    with open(trace_path) as f:
        trace = [line.split() for line in f if line.strip()]
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    if len(trace) != len(rows):
        sys.exit(f"{trace_path} has {len(trace)} requests but {csv_path} has {len(rows)}")
    groups = collections.defaultdict(list)
    for i in range(1, len(trace)):
        this, prev = trace[i], trace[i - 1]
        if len(this) < 4 or len(prev) < 4:
            sys.exit(f"{trace_path}:{i + 1}: expected 'OP KIND BLOCK BLOCKS ...'")
        sequential = int(prev[2]) + int(prev[3]) == int(this[2])
        key = f"{this[0]} {this[1]}{' seq' if sequential else ''} after {prev[0]} {prev[1]}"
        groups[key].append(float(rows[i]["simulated_ms"]) - float(rows[i]["measured_ms"]))
    print(f"{'requests':34} {'n':>6} {'mean':>8} {'no flips':>9} {'sim slow':>9} {'real slow':>10}")
    for key in sorted(groups):
        d = groups[key]
        calm = [x for x in d if abs(x) < turn_ms / 2]
        print(
            f"{key:34} {len(d):6d} {sum(d) / len(d):+8.3f} {sum(calm) / max(1, len(calm)):+9.3f} "
            f"{sum(1 for x in d if x > 0.8 * turn_ms):9d} {sum(1 for x in d if x < -0.8 * turn_ms):10d}"
        )
    print_distribution(rows)


def print_distribution(rows):
    """Where the demerit comes from: the distributions' quantiles side by side, and the share of the squared
    distance (sampled at quantiles 0.0001 ... 1.0, nearest rank) that falls in each tenth of the requests."""
    sim = sorted(float(r["simulated_ms"]) for r in rows)
    real = sorted(float(r["measured_ms"]) for r in rows)
    n = len(sim)
    shares = [0.0] * 10
    for i in range(1, 10001):
        k = min(n - 1, int(i / 10000 * n))
        shares[min(9, (i - 1) // 1000)] += (sim[k] - real[k]) ** 2
    total = sum(shares) or 1.0
    print()
    print("share of the squared distance by tenth of the distribution (fastest first):")
    print(" ".join(f"{s / total:.2f}" for s in shares))
    print(f"{'quantile':>9} {'simulated':>10} {'measured':>9}")
    for q in (0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999):
        k = min(n - 1, int(q * n))
        print(f"{q:9} {sim[k]:10.3f} {real[k]:9.3f}")


if __name__ == "__main__":
    main()
