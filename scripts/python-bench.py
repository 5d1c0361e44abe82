#!/usr/bin/env python3
"""The Python package's costs, as BENCHMARKS.md reports them (issue 33).

1. Per-run overhead: the same simulation through `iosched sim --json` (a process per run, as a shell script
   would run it) and through `iosched.simulate(...)` in this process, interleaved, for runs of about 0.1 s and
   1 s; the overhead is the median Python time over the median CLI time, minus one.
2. A 500-run sweep on one worker thread, on two threads, and on a local Ray cluster of two nodes (a head and a
   second `ray start --address` node on this machine, one CPU each): runs per second and the ratio to one
   worker; the Ray table must equal the one-thread table row for row.

Run it with a release CLI and a release wheel (see BENCHMARKS.md for the command):
    python scripts/python-bench.py --bin target/release/iosched
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

import iosched

REPO = Path(__file__).resolve().parents[1]
JOB = "experiments/geom-sched/cvs.fio"


def overhead(binary: str, runtime_s: str, rounds: int) -> dict:
    args = dict(policy="bfq", device="hdd:sata7200", runtime=runtime_s, seed=1)
    cli_cmd = [binary, "sim", JOB, "--policy", "bfq", "--device", "hdd:sata7200", "--runtime", runtime_s, "--json"]
    cli_s, py_s = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        out = subprocess.run(cli_cmd, capture_output=True, text=True, cwd=REPO, check=True)
        cli_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        result = iosched.simulate(JOB, **args)
        py_s.append(time.perf_counter() - started)
        assert result.json == out.stdout, "the Python result differs from the CLI's"
    cli, py = statistics.median(cli_s), statistics.median(py_s)
    return {"runtime": runtime_s, "cli_s": cli, "python_s": py, "overhead": py / cli - 1}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sweep_rates(runtime_s: str, seeds: int, folder: Path) -> list[dict]:
    axes = dict(
        policies=["noop", "deadline", "bfq", "cfq", "rr"],
        devices=["hdd:sata7200"],
        seeds=range(1, seeds + 1),
        runtime=runtime_s,
        progress=False,
    )
    rows = []

    def timed(label, output, **kw):
        started = time.perf_counter()
        frame = iosched.sweep(JOB, output=folder / output, **axes, **kw)
        elapsed = time.perf_counter() - started
        runs = frame["point"].nunique()
        rows.append({"executor": label, "runs": runs, "seconds": elapsed, "runs_per_s": runs / elapsed})
        print(f"  {label}: {runs} runs in {elapsed:.1f} s", file=sys.stderr)
        return frame

    os.chdir(REPO)
    timed("threads, 1 worker", "one.parquet", workers=1)
    timed("threads, 2 workers", "two.parquet", workers=2)
    ray_cli = str(Path(sys.executable).with_name("ray"))
    port = free_port()
    # Token authentication with a fresh token shared by the nodes and this driver (as in python/tests/test_ray.py).
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    common = ["--num-cpus=1", "--disable-usage-stats"]
    subprocess.run([ray_cli, "start", "--head", f"--port={port}", "--include-dashboard=false", *common],
                   check=True, capture_output=True, env=env)
    try:
        subprocess.run([ray_cli, "start", f"--address=127.0.0.1:{port}", *common],
                       check=True, capture_output=True, env=env)
        import ray

        ray.init(address=f"127.0.0.1:{port}", log_to_driver=False)
        while len([n for n in ray.nodes() if n["Alive"]]) < 2:
            time.sleep(0.2)
        frame = timed("Ray, 2 nodes of 1 CPU", "ray.parquet", executor="ray", ray_address=f"127.0.0.1:{port}")
        rows[-1]["nodes"] = len(frame.attrs["ray_nodes"])
    finally:
        import ray

        ray.shutdown()
        subprocess.run([ray_cli, "stop", "--force"], capture_output=True, env=env)
    same = pq.read_table(folder / "ray.parquet").equals(pq.read_table(folder / "one.parquet"))
    for r in rows:
        r["ratio"] = r["runs_per_s"] / rows[0]["runs_per_s"]
    rows[-1]["same_rows_as_threads"] = same
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=str(REPO / "target/release/iosched"), help="the iosched CLI to compare")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds per overhead measure")
    parser.add_argument("--sweep-runtime", default="100", help="each sweep run's simulated seconds")
    parser.add_argument("--sweep-seeds", type=int, default=100, help="seeds per policy (5 policies)")
    a = parser.parse_args()
    os.chdir(REPO)
    print("per-run overhead (medians of interleaved rounds):")
    print(f"  {'simulated':>9}  {'CLI s':>8}  {'Python s':>8}  overhead")
    for runtime_s in ("100", "1000"):
        o = overhead(a.bin, runtime_s, a.rounds)
        print(f"  {o['runtime']:>8}s  {o['cli_s']:8.3f}  {o['python_s']:8.3f}  {o['overhead'] * 100:+.1f} %")
    print(f"sweep of {5 * a.sweep_seeds} runs ({a.sweep_runtime} s simulated each), {os.cpu_count()} cores:")
    with tempfile.TemporaryDirectory() as folder:
        rows = sweep_rates(a.sweep_runtime, a.sweep_seeds, Path(folder))
    for r in rows:
        extra = ""
        if "nodes" in r:
            extra = f"  ({r['nodes']} nodes ran tasks; rows equal to one thread's: {r['same_rows_as_threads']})"
        print(f"  {r['executor']:<22} {r['seconds']:7.1f} s  {r['runs_per_s']:6.2f} runs/s  {r['ratio']:.2f}x{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
