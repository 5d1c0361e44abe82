#!/usr/bin/env python3
"""How close to Linux: the kernel's own schedulers against iosched's, on the same job file and the same storage.

The kernel side runs fio on a loop device (losetup --direct-io=on) over a backing file, with the loop device's
scheduler set to none, mq-deadline, kyber or bfq; the iosched side runs `iosched run` with the same job file on
the backing file itself, with noop, deadline, kyber or bfq, told the loop device's rotational flag. The two
sides alternate, several rounds, and the medians are compared. Only behaviour compares (who wins, by what ratio):
the loop device adds a layer iosched does not have, so absolute figures differ.

Each workload (scripts/kernel-compare/*.fio) names the behaviour it measures:
  reader-beside-writer  the reader's p90 latency under a scheduler over its p90 without one (none / noop); p90,
                        not p99: on a virtual disk a single host stall in a 5 s run moves p99 by 5x
  bfq-weights           bfq's IOPS share: the level-0 reader's IOPS over the level-7 reader's (also with
                        low_latency=0 on both sides: the weights without weight raising)

Needs root (losetup, sysfs), fio and a built iosched. Exit status 3, with the reason on stderr, where it cannot
run; 0 after printing the table.

  scripts/kernel-compare.py                       # 3 rounds of 5 s per run (about 3 minutes)
  scripts/kernel-compare.py --rounds 1 --seconds 1.5 --json   # the short version the test runs
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
JOBS = os.path.join(HERE, "kernel-compare")

# (workload, kernel scheduler, iosched policy, baseline kernel scheduler, baseline iosched policy, metric,
#  tunables set on both sides: the kernel's queue/iosched/NAME and iosched's --set NAME=VALUE)
COMPARISONS = [
    ("reader-beside-writer", "mq-deadline", "deadline", "none", "noop", "reader_p90_vs_baseline", {}),
    ("reader-beside-writer", "kyber", "kyber", "none", "noop", "reader_p90_vs_baseline", {}),
    ("bfq-weights", "bfq", "bfq", None, None, "level0_over_level7_iops", {}),
    # The weights alone, without weight raising (which both sides start both readers with).
    ("bfq-weights", "bfq", "bfq", None, None, "level0_over_level7_iops", {"low_latency": "0"}),
]


class CannotRun(Exception):
    pass


def run(cmd, **kw):
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()[:2000]}")
    return out.stdout


def job(report, name):
    for j in report["jobs"]:
        if j["jobname"] == name:
            return j
    raise RuntimeError(f"no job {name} in the report")


def p90_ms(j):
    pct = j["read"]["clat_ns"].get("percentile", {})
    for key in ("90.000000", "90.00"):
        if key in pct:
            return pct[key] / 1e6
    raise RuntimeError("no p90 in the report")


def figures(report):
    """Every figure a metric may need, from fio's JSON (both sides write it)."""
    names = {j["jobname"] for j in report["jobs"]}
    out = {}
    if "reader" in names:
        out["reader_p90_ms"] = p90_ms(job(report, "reader"))
    if "level0" in names:
        out["level0_iops"] = job(report, "level0")["read"]["iops"]
        out["level7_iops"] = job(report, "level7")["read"]["iops"]
    return out


class Loop:
    """A loop device over the backing file, with direct I/O, removed on exit."""

    def __init__(self, backing):
        self.dev = run(["losetup", "--direct-io=on", "--find", "--show", backing]).strip()
        self.name = os.path.basename(self.dev)

    def sysfs(self, leaf):
        return f"/sys/block/{self.name}/queue/{leaf}"

    def set_scheduler(self, sched, tunables=None):
        with open(self.sysfs("scheduler"), "w") as f:
            f.write(sched)
        # Choosing a scheduler starts it with its defaults; then the tunables asked for.
        for name, value in (tunables or {}).items():
            with open(self.sysfs(f"iosched/{name}"), "w") as f:
                f.write(value)

    def rotational(self):
        with open(self.sysfs("rotational")) as f:
            return f.read().strip()

    def close(self):
        subprocess.run(["losetup", "-d", self.dev], capture_output=True)


def kernel_run(loop, jobfile, sched, seconds, tunables=None):
    loop.set_scheduler(sched, tunables)
    text = run(["fio", "--output-format=json", f"--filename={loop.dev}", f"--runtime={seconds}", jobfile])
    return figures(json.loads(text[text.index("{"):]))


def iosched_run(iosched, backing, jobfile, policy, seconds, rotational, tunables=None):
    sets = [arg for name, value in (tunables or {}).items() for arg in ("--set", f"{name}={value}")]
    text = run([iosched, "run", jobfile, "--target", backing, "--policy", policy, "--runtime", str(seconds),
                "--rotational", rotational, "--json"] + sets)
    return figures(json.loads(text))


def metric(name, runs, base_runs):
    if name == "level0_over_level7_iops":
        return statistics.median(r["level0_iops"] / max(r["level7_iops"], 1e-9) for r in runs)
    if name == "reader_p90_vs_baseline":
        return statistics.median(r["reader_p90_ms"] for r in runs) / statistics.median(
            r["reader_p90_ms"] for r in base_runs)
    raise ValueError(name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iosched", default=os.path.join(HERE, "..", "target", "release", "iosched"),
                    help="the iosched binary (default: target/release/iosched)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of every run, alternating sides (default 3)")
    ap.add_argument("--seconds", type=float, default=5.0, help="runtime of every run (default 5)")
    ap.add_argument("--backing-mib", type=int, default=1024, help="size of the backing file (default 1024)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON lines instead of a table")
    args = ap.parse_args()
    if args.rounds < 1 or not (0.2 <= args.seconds <= 600):
        ap.error("--rounds expects at least 1 and --seconds 0.2 to 600")
    try:
        if os.geteuid() != 0:
            raise CannotRun("loop devices and their schedulers need root")
        for tool in ("losetup", "fio"):
            if shutil.which(tool) is None:
                raise CannotRun(f"{tool} is not installed")
        if not os.access(args.iosched, os.X_OK):
            raise CannotRun(f"no iosched binary at {args.iosched} (cargo build --release, or --iosched PATH)")
        rows = compare(args)
    except CannotRun as e:
        print(f"kernel-compare: cannot run: {e}", file=sys.stderr)
        return 3
    for row in rows:
        if args.json:
            print(json.dumps(row))
    if not args.json:
        print(f"{'workload':<36} {'kernel':<12} {'iosched':<9} {'behaviour':<26} {'kernel':>8} {'iosched':>8} "
              f"{'ratio':>6}  same way")
        for r in rows:
            print(f"{r['workload']:<36} {r['kernel']:<12} {r['iosched']:<9} {r['metric']:<26} "
                  f"{r['kernel_value']:>8.2f} {r['iosched_value']:>8.2f} {r['ratio']:>6.2f}  "
                  f"{'yes' if r['same_direction'] else 'NO'}")
        print(f"\n{args.rounds} round(s) of {args.seconds} s per run; medians. ratio = iosched / kernel; "
              "'same way' = both above 1 or both at or below 1.")
    return 0


def compare(args):
    work = tempfile.mkdtemp(prefix="iosched-kernel-compare-")
    backing = os.path.join(work, "backing.img")
    # Written out, not sparse: reads of holes cost nothing and writes into them allocate.
    with open(backing, "wb") as f:
        block = b"\0" * (1 << 20)
        for _ in range(args.backing_mib):
            f.write(block)
        # On disk before the first run, so that no run pays for writing it back.
        f.flush()
        os.fsync(f.fileno())
    loop = None
    try:
        try:
            loop = Loop(backing)
        except RuntimeError as e:
            raise CannotRun(f"losetup refused: {e}")
        rotational = loop.rotational()
        with open(loop.sysfs("scheduler")) as f:
            schedulers = f.read()
        rows = []
        for workload, ksched, policy, kbase, pbase, name, tunables in COMPARISONS:
            if ksched not in schedulers or (kbase and kbase not in schedulers):
                raise CannotRun(f"the kernel has no {ksched} scheduler here ({schedulers.strip()})")
            jobfile = os.path.join(JOBS, workload + ".fio")
            k, i, kb, ib = [], [], [], []
            runs = [
                lambda: k.append(kernel_run(loop, jobfile, ksched, args.seconds, tunables)),
                lambda: i.append(iosched_run(args.iosched, backing, jobfile, policy, args.seconds, rotational,
                                             tunables)),
            ]
            if kbase:
                runs.append(lambda: kb.append(kernel_run(loop, jobfile, kbase, args.seconds)))
                runs.append(lambda: ib.append(iosched_run(args.iosched, backing, jobfile, pbase, args.seconds,
                                                          rotational)))
            for r in range(args.rounds):
                # Each round starts with a different run, so that no side always follows the other's writes;
                # and everything written before is on disk before a run starts.
                for n in range(len(runs)):
                    os.sync()
                    runs[(r + n) % len(runs)]()
            kv, iv = metric(name, k, kb), metric(name, i, ib)
            label = ",".join(f"{k}={v}" for k, v in tunables.items())
            rows.append({
                "workload": workload + (f" ({label})" if label else ""), "kernel": ksched, "iosched": policy,
                "metric": name,
                "kernel_value": round(kv, 3), "iosched_value": round(iv, 3), "ratio": round(iv / kv, 3),
                "same_direction": (kv > 1) == (iv > 1), "rotational": rotational, "rounds": args.rounds,
                "seconds": args.seconds,
            })
        return rows
    finally:
        if loop:
            if os.path.exists(loop.sysfs("scheduler")):
                loop.set_scheduler("none")
            loop.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
