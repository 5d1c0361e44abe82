"""``python -m iosched sweep ...``: ``iosched sweep``'s flags, run by the Python sweep (streaming, resumable) on
threads or, with ``--ray [ADDRESS]``, on a Ray cluster; the table goes to ``--parquet FILE`` (default
sweep.parquet) and the summary ``iosched sweep`` prints is printed from it. ``--list``, ``--shard`` and ``merge``
are the command line's own. Any other command runs as ``iosched COMMAND ...`` would."""

from __future__ import annotations

import argparse
import sys

from . import _cli
from ._sweep import sweep


def _sweep_main(argv: list[str]) -> int:
    if argv and argv[0] == "merge" or any(a in ("--list", "--shard", "-h", "--help") for a in argv):
        print(_cli.run(["sweep", *argv]), end="")
        return 0
    parser = argparse.ArgumentParser(prog="python -m iosched sweep", description=__doc__)
    parser.add_argument("jobfiles", nargs="+")
    parser.add_argument("--policies", default="noop,deadline,bfq")
    parser.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2")
    parser.add_argument("--device", action="append", default=[], metavar="SPEC")
    parser.add_argument("--runtime")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--seeds", metavar="LIST")
    parser.add_argument("--jobs", type=int, metavar="N", help="simulations at once (threads, or tasks in flight)")
    parser.add_argument("--parquet", default="sweep.parquet", metavar="FILE")
    parser.add_argument("--ray", nargs="?", const="auto", metavar="ADDRESS", help="run on a Ray cluster")
    parser.add_argument("--flush-seconds", type=float, default=10.0, help=argparse.SUPPRESS)
    a = parser.parse_args(argv)
    grid = {}
    for g in a.grid:
        key, sep, values = g.partition("=")
        if not sep or not key.strip() or not values.strip():
            parser.error(f"--grid expects KEY=V1,V2,..., found '{g}'")
        grid[key.strip()] = [v.strip() for v in values.split(",")]
    if a.seed is not None and a.seeds is not None:
        parser.error("give --seed or --seeds, not both")
    seeds = _seeds(a.seeds) if a.seeds else [a.seed if a.seed is not None else 1]
    sweep(
        a.jobfiles,
        grid=grid,
        devices=a.device,
        policies=a.policies.split(","),
        seeds=seeds,
        runtime=a.runtime,
        executor="ray" if a.ray else "threads",
        ray_address=None if a.ray in (None, "local") else a.ray,
        workers=a.jobs,
        output=a.parquet,
        flush_seconds=a.flush_seconds,
    )
    print(_cli.run(["sweep", "merge", a.parquet]), end="")
    return 0


def _seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        try:
            lo, hi = int(first), int(last or first)
        except ValueError:
            raise ValueError(f"--seeds expects numbers and ranges such as 1-5 or 1,2,10-12; found '{part}'") from None
        seeds += [s for s in range(lo, hi + 1) if s not in seeds]
    return seeds


def main(argv: list[str]) -> int:
    try:
        if argv and argv[0] == "sweep":
            return _sweep_main(argv[1:])
        print(_cli.run(argv), end="")
        return 0
    except (ValueError, FileNotFoundError) as e:
        print(f"iosched: error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"iosched: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("iosched: interrupted; the finished rows are kept, rerun to complete the rest", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
