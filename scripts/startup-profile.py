#!/usr/bin/env python3
"""What a program's cold start asks of the disk: its block requests, measured, and a fio job that describes them.

bfq-startup (seed 004) describes an application's start-up as a fio job (experiments/bfq-startup/app.fio): how
much it reads, in what sizes, how much of it continues the read before, and how long it computes between reads.
This script measures those figures on a real program: it drops the page cache, runs the command while the
kernel's trace buffer records the block layer's request issue and completion events (system-wide, on the busiest
device: a start-up's reads made by another
process on its behalf, an X server loading fonts say, count too), and prints

  - wall time; requests, MiB, and the request sizes;
  - the share of requests that continue one made before (the rest are seeks: fio's percentage_random);
  - the time with no request at the disk (the program computing or waiting on something else), split into
    the gaps between requests, as a histogram: this is the think time a fio job gives with thinktime=.

With --fio FILE it writes a fio job of the same shape: io_size, bssplit, percentage_random, and thinktime after
every read set to the mean gap times --think-scale (a fixed pause approximates a measured distribution; the
histogram says how far apart they are). --think-scale scales the CPU time to another machine's, for example 3
for a 2010 desktop against a 2026 server core (an estimate: say where it comes from).

Needs root (to drop the page cache and read the trace buffer, /sys/kernel/tracing). Measuring a
program that needs a display: run it under Xvfb (DISPLAY=:99 after `Xvfb :99 &`). --from-trace FILE
summarises a saved trace buffer (/sys/kernel/tracing/trace) or `perf script` output instead of running anything.

Usage: scripts/startup-profile.py [--runs N] [--fio FILE] [--think-scale X] -- COMMAND [ARGS...]
       scripts/startup-profile.py --from-trace FILE [--fio FILE] [--think-scale X]
"""
import argparse
import collections
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

# One block event, as `perf script` prints it ("comm pid [cpu] time: block:block_rq_issue: ...") or as the kernel's
# trace buffer does ("comm-pid [cpu] flags time: block_rq_issue: ...").
EVENT = re.compile(
    r"^\s*(?P<comm>.+?)(?:-|\s+)(?P<pid>\d+)\s+\[\d+\]\s+(?:\S+\s+)?(?P<t>[\d.]+):\s+(?:block:)?"
    r"(?P<kind>block_rq_issue|block_rq_complete):\s+(?P<dev>\d+,\d+)\s+(?P<rwbs>\S+)\s+(?:\d+\s+)?\(\)\s+"
    r"(?P<sector>\d+)\s+\+\s+(?P<sectors>\d+)"
)
GAP_EDGES_MS = [0.5, 1, 2, 5, 10, 20, 50, 100]
SIZE_BUCKETS_KIB = [4, 16, 64, 128]


def parse(lines):
    """Events (time s, kind, comm, rwbs, sector, sectors) of the busiest device in a `perf script` output or a
    trace buffer's text, in time order."""
    events = []
    for n, line in enumerate(lines, 1):
        m = EVENT.match(line)
        if m is None:
            if re.search(r"block_rq_(issue|complete):", line):
                raise ValueError(f"line {n}: a block event this script cannot read: {line.strip()}")
            continue
        events.append(
            (
                m["dev"],
                float(m["t"]),
                "issue" if m["kind"] == "block_rq_issue" else "complete",
                m["comm"].strip(),
                m["rwbs"],
                int(m["sector"]),
                int(m["sectors"]),
            )
        )
    if not events:
        return []
    devices = {}
    for e in events:
        devices[e[0]] = devices.get(e[0], 0) + (e[2] == "issue")
    busiest = max(devices, key=devices.get)
    return sorted((e[1:] for e in events if e[0] == busiest), key=lambda e: e[0])


def summarise(events):
    """The figures of a start-up from its block events (reads only; writes are counted apart)."""
    reads = [e for e in events if e[1] == "issue" and "R" in e[3] and e[5] > 0]
    writes = [e for e in events if e[1] == "issue" and "W" in e[3]]
    if not reads:
        raise ValueError("no read requests were recorded: was the page cache dropped, and were the block events recorded?")
    completions = {}
    for t, kind, _, _, sector, sectors in events:
        if kind == "complete":
            completions.setdefault((sector, sectors), []).append(t)
    # Each read's interval at the disk; a completion the record lost is taken as the median latency.
    spans, latencies = [], []
    for t, _, _, _, sector, sectors in reads:
        done = [c for c in completions.get((sector, sectors), []) if c >= t]
        spans.append([t, done[0] if done else None])
        if done:
            latencies.append(done[0] - t)
    median = statistics.median(latencies) if latencies else 0.0
    for s in spans:
        if s[1] is None:
            s[1] = s[0] + median
    spans.sort()
    busy, gaps = 0.0, []
    start, end = spans[0]
    for a, b in spans[1:]:
        if a > end:
            busy += end - start
            gaps.append(a - end)
            start, end = a, b
        else:
            end = max(end, b)
    busy += end - start
    ends, continuing = set(), 0
    for _, _, _, _, sector, sectors in reads:
        continuing += sector in ends
        ends.add(sector + sectors)
    sizes = [e[5] * 512 for e in reads]
    buckets = {k: 0 for k in SIZE_BUCKETS_KIB}
    for b in sizes:
        # The bucket whose size is nearest on a log scale.
        near = min(SIZE_BUCKETS_KIB, key=lambda k: abs(math.log(b / 1024 / k)))
        buckets[near] += 1
    return {
        "span_s": spans[-1][1] - spans[0][0],
        "reads": len(reads),
        "writes": len(writes),
        "read_bytes": sum(sizes),
        "completions_seen": len(latencies),
        "latency_median_ms": median * 1e3,
        "continuing": continuing,
        "busy_s": busy,
        "gaps_ms": [g * 1e3 for g in gaps],
        "size_buckets": buckets,
        "by_process": collections.Counter(e[2] for e in reads).most_common(),
    }


def gap_histogram(gaps_ms):
    edges = [0.0] + GAP_EDGES_MS + [float("inf")]
    rows = []
    for lo, hi in zip(edges, edges[1:]):
        inside = [g for g in gaps_ms if lo <= g < hi]
        label = f">= {lo:g} ms" if hi == float("inf") else f"{lo:g}-{hi:g} ms"
        rows.append((label, len(inside), sum(inside)))
    return rows


def report(s, out=sys.stdout):
    mib = s["read_bytes"] / 2**20
    idle_ms = sum(s["gaps_ms"])
    print(f"reads {s['reads']} ({mib:.2f} MiB, mean {s['read_bytes'] / s['reads'] / 1024:.0f} KiB), writes {s['writes']}", file=out)
    print(f"  by process: {', '.join(f'{c} {n}' for c, n in s['by_process'])}", file=out)
    sizes = ", ".join(f"{k} KiB {n}" for k, n in s["size_buckets"].items())
    print(f"  sizes (nearest of {'/'.join(map(str, SIZE_BUCKETS_KIB))} KiB): {sizes}", file=out)
    share = 100 * s["continuing"] / s["reads"]
    print(f"  continuing an earlier request: {s['continuing']} ({share:.0f} %); seeks: {100 - share:.0f} %", file=out)
    print(
        f"span {s['span_s'] * 1e3:.1f} ms: a request at the disk {s['busy_s'] * 1e3:.1f} ms, none {idle_ms:.1f} ms "
        f"in {len(s['gaps_ms'])} gaps; median latency {s['latency_median_ms']:.3f} ms "
        f"({s['completions_seen']} of {s['reads']} completions recorded)",
        file=out,
    )
    print("  gaps without a request at the disk:", file=out)
    for label, n, total in gap_histogram(s["gaps_ms"]):
        print(f"    {label:>12}: {n:4d} gaps, {total:8.1f} ms", file=out)


def fio_job(s, think_scale, source):
    total = sum(s["size_buckets"].values())
    split = [(k, round(100 * n / total)) for k, n in s["size_buckets"].items() if n]
    # bssplit's shares must sum to 100: the rounding goes to the largest.
    split.sort(key=lambda kv: -kv[1])
    split[0] = (split[0][0], split[0][1] + 100 - sum(p for _, p in split))
    bssplit = ":".join(f"{k}k/{p}" for k, p in sorted(split) if p > 0)
    think_ms = statistics.mean(s["gaps_ms"]) * think_scale if s["gaps_ms"] else 0.0
    random = round(100 - 100 * s["continuing"] / s["reads"])
    mib = max(1, round(s["read_bytes"] / 2**20))
    return f"""; A cold start measured by scripts/startup-profile.py ({source}): {s['reads']} reads, {mib} MiB,
; {random} % of them seeks; {sum(s['gaps_ms']):.0f} ms without a request at the disk over {len(s['gaps_ms'])} gaps, here a fixed
; {think_ms:.2f} ms after every read (the measured mean x {think_scale:g}; the measured gaps are a distribution).
[app]
rw=randread
percentage_random={random}
bssplit={bssplit}
ioengine=psync
offset=0
size=10%
io_size={mib}m
thinktime={max(1, round(think_ms * 1000))}us
thinktime_blocks=1
"""


TRACING = "/sys/kernel/tracing"
EVENTS = ["block/block_rq_issue", "block/block_rq_complete"]


def tracing(name, value):
    with open(os.path.join(TRACING, name), "w") as f:
        f.write(value)


def record(command, runs):
    """Each run: drop the page cache, then record the block layer's issue and completion events in the kernel's
    trace buffer while the command runs. (The trace buffer rather than perf record: perf lost most completion
    events of one CPU here, the buffer none.)"""
    if os.geteuid() != 0:
        sys.exit("error: dropping the page cache and reading the kernel's trace buffer need root")
    if not os.path.exists(os.path.join(TRACING, "events/block/block_rq_issue")):
        sys.exit(f"error: no block tracepoints under {TRACING} (mount tracefs there: mount -t tracefs nodev {TRACING})")
    out = []
    try:
        tracing("buffer_size_kb", "8192")
        for e in EVENTS:
            tracing(f"events/{e}/enable", "1")
        for run in range(runs):
            tracing("tracing_on", "0")
            tracing("trace", "")
            subprocess.run(["sync"], check=True)
            with open("/proc/sys/vm/drop_caches", "w") as f:
                f.write("3\n")
            time.sleep(0.5)
            tracing("tracing_on", "1")
            began = time.monotonic()
            proc = subprocess.run(command)
            wall = time.monotonic() - began
            tracing("tracing_on", "0")
            if proc.returncode != 0:
                sys.exit(f"error: {' '.join(command)} exited with {proc.returncode}")
            with open(os.path.join(TRACING, "trace")) as f:
                events = parse(f)
            print(f"run {run + 1}: {wall * 1e3:.0f} ms wall, {len(events)} block events", file=sys.stderr)
            out.append(events)
    finally:
        for e in EVENTS:
            tracing(f"events/{e}/enable", "0")
        tracing("trace", "")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="cold starts to measure (default 3); the median one is shown")
    ap.add_argument("--fio", help="write a fio job of the same shape to this file")
    ap.add_argument("--think-scale", type=float, default=1.0, help="scale the measured gaps by this (default 1)")
    ap.add_argument("--from-trace", help="summarise this trace buffer or `perf script` text instead of running")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    a = ap.parse_args()
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    if a.runs < 1:
        ap.error("--runs: expected at least 1")
    if a.think_scale <= 0:
        ap.error("--think-scale: expected more than 0")
    try:
        if a.from_trace:
            with open(a.from_trace) as f:
                runs = [parse(f)]
            source = a.from_trace
        elif command:
            runs = record(command, a.runs)
            source = " ".join(command)
        else:
            ap.error("give a command after --, or --from-trace FILE")
        summaries = sorted((summarise(r) for r in runs), key=lambda s: s["span_s"])
    except (OSError, ValueError) as e:
        sys.exit(f"error: {e}")
    s = summaries[len(summaries) // 2]
    report(s)
    if a.fio:
        with open(a.fio, "w") as f:
            f.write(fio_job(s, a.think_scale, source))
        print(f"wrote {a.fio}", file=sys.stderr)


if __name__ == "__main__":
    main()
