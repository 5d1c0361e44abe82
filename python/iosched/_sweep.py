"""Sweeps: every combination of job files, devices, policies, tunable values and seeds, one task each, on a
thread pool or a Ray cluster, the rows streaming into one Parquet file.

The points and the rows are the command line's (``iosched sweep``): the native module plans the sweep (so point
``i`` is the same point however it is run, its seed tied to it, not to a worker) and simulates each point into
the rows of the sweep table (see crates/iosched/src/sweep_table.rs for the columns), handed over as Arrow IPC.
Finished rows are written every ``flush_seconds`` (and on Ctrl-C or an error) into ``OUTPUT.parts/``, each part
written under a temporary name and renamed, so a crash loses at most the rows since the last part; at the end
the parts and any earlier output are combined, sorted by point, into OUTPUT. A rerun with the same arguments
skips the points OUTPUT and its parts already hold.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import time
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence, Union

from . import _cli, _native

PathLike = Union[str, "os.PathLike[str]"]

# The columns that say which point a row belongs to; a rerun checks them against the plan.
_POINT_COLUMNS = ("point", "jobfile", "device", "policy", "settings", "seed")


def sweep_args(
    jobs: Union[PathLike, Sequence[PathLike]],
    grid: Optional[Mapping[str, Sequence[object]]] = None,
    devices: Optional[Sequence[str]] = None,
    policies: Sequence[str] = ("noop", "deadline", "bfq"),
    seeds: Sequence[int] = (1,),
    runtime: Union[str, float, None] = None,
    sections: Sequence[str] = (),
) -> list[str]:
    """``iosched sweep``'s arguments for these axes."""
    if isinstance(jobs, (str, os.PathLike)):
        jobs = [jobs]
    if _cli.is_job_text(jobs):
        raise ValueError("sweep takes job files (every worker reads them), not job text")
    args = [_cli.require_file(j, "job file") for j in jobs]
    if not args:
        raise ValueError("give at least one job file")
    if isinstance(policies, str):
        policies = [p.strip() for p in policies.split(",")]
    args += ["--policies", ",".join(policies)]
    for key, values in (grid or {}).items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            values = [values]
        args += ["--grid", f"{key}={','.join(_cli.format_value(v) for v in values)}"]
    for device in devices or []:
        args += ["--device", device]
    seeds = [int(s) for s in ([seeds] if isinstance(seeds, int) else seeds)]
    if not seeds:
        raise ValueError("give at least one seed")
    args += ["--seeds", ",".join(str(s) for s in seeds)]
    if runtime is not None:
        args += ["--runtime", str(runtime)]
    return args + _cli.section_args(sections)


def sweep_points(
    jobs, grid=None, devices=None, policies=("noop", "deadline", "bfq"), seeds=(1,), runtime=None, sections=()
):
    """The points a sweep would run, as a DataFrame (point, jobfile, device, policy, settings, seed)."""
    import pandas as pd

    plan = _plan(sweep_args(jobs, grid, devices, policies, seeds, runtime, sections))
    return pd.DataFrame.from_records(
        [
            {
                "point": p["point"],
                "jobfile": p["jobfile"],
                "device": p["device"],
                "policy": p["policy"],
                "settings": " ".join(f"{k}={v}" for k, v in p["settings"]),
                "seed": p["seed"],
            }
            for p in plan["points"]
        ]
    )


def _plan(args: list[str]) -> dict:
    return json.loads(bytes(_native.sweep(args, [], 1)))


def _table_of(ipc: bytes):
    import pyarrow as pa

    return pa.ipc.open_stream(pa.py_buffer(ipc)).read_all()


def _run_point(args: list[str], index: int) -> bytes:
    """One point's rows (Arrow IPC): what a task runs, in a thread or in a Ray worker."""
    return bytes(_native.sweep(args, [index], 1))


def _run_points_on_node(args: list[str], indices: list[int]) -> tuple[str, list[bytes]]:
    """A Ray task: the node it ran on, and each point's rows (one after the other, on the task's one CPU)."""
    import ray

    return ray.get_runtime_context().get_node_id(), [_run_point(args, i) for i in indices]


def _points_per_task(points: int, cpus: int) -> int:
    """How many points a Ray task runs: enough that Ray's cost per task (scheduling, a message each way, a few
    milliseconds of its daemons' CPU) is small beside the simulation, few enough that every CPU gets at least
    sixteen tasks (so that the last ones do not leave CPUs idle) and that a lost worker costs little to redo."""
    return max(1, min(8, points // (cpus * 16)))


class _Parts:
    """OUTPUT.parts/: finished rows, written in parts, combined into OUTPUT at the end."""

    def __init__(self, output: Path):
        self.output = output
        self.folder = output.with_name(output.name + ".parts")
        self.pending: list = []
        self.rows = 0

    def existing(self) -> list:
        """The tables already written: OUTPUT and its parts."""
        import pyarrow.parquet as pq

        tables = []
        if self.output.exists():
            tables.append(pq.read_table(self.output))
        if self.folder.is_dir():
            for part in sorted(self.folder.glob("part-*.parquet")):
                tables.append(pq.read_table(part))
        return tables

    def add(self, table) -> None:
        self.pending.append(table)
        self.rows += table.num_rows

    def flush(self) -> None:
        """Write the pending rows as a new part (temporary name, then renamed: a part is whole or absent)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self.pending:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        number = len(list(self.folder.glob("part-*.parquet")))
        while (self.folder / f"part-{number:06d}.parquet").exists():
            number += 1
        final = self.folder / f"part-{number:06d}.parquet"
        partial = self.folder / f".part-{number:06d}.parquet.partial"
        pq.write_table(pa.concat_tables(self.pending), partial)
        os.replace(partial, final)
        self.pending = []

    def combine(self):
        """Every row written, sorted by point, into OUTPUT; the parts removed. Returns the table."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.flush()
        tables = self.existing()
        table = pa.concat_tables(tables)
        # A stable sort: each point's rows keep their order (jobs, then directions).
        table = table.take(pa.compute.sort_indices(table, sort_keys=[("point", "ascending")]))
        partial = self.output.with_name("." + self.output.name + ".partial")
        pq.write_table(table, partial)
        os.replace(partial, self.output)
        if self.folder.is_dir():
            for part in self.folder.glob("part-*.parquet"):
                part.unlink()
            for leftover in self.folder.glob(".part-*.partial"):
                leftover.unlink()
            self.folder.rmdir()
        return table


def _done_points(tables: list, plan: dict, output: Path) -> set[int]:
    """The points the existing tables hold, each checked to be the plan's point of that index."""
    points = plan["points"]
    done: set[int] = set()
    for table in tables:
        names = set(table.column_names)
        wanted = {"set." + k for k in plan["grid_keys"]} | set(_POINT_COLUMNS)
        if not wanted <= names or any(n.startswith("set.") and n[4:] not in plan["grid_keys"] for n in names):
            raise ValueError(f"{output}: holds the table of a different sweep (other grid keys); give another output")
        ids = table.select(list(_POINT_COLUMNS)).group_by(list(_POINT_COLUMNS)).aggregate([])
        for row in ids.to_pylist():
            i = row["point"]
            p = points[i] if 0 <= i < len(points) else None
            settings = " ".join(f"{k}={v}" for k, v in p["settings"]) if p else None
            if p is None or (row["jobfile"], row["device"], row["policy"], row["settings"], row["seed"]) != (
                p["jobfile"],
                p["device"],
                p["policy"],
                settings,
                p["seed"],
            ):
                raise ValueError(
                    f"{output}: point {i} there is not point {i} of this sweep; "
                    "it holds a different sweep: give another output or remove it"
                )
            done.add(i)
    return done


def sweep(
    jobs: Union[PathLike, Sequence[PathLike]],
    grid: Optional[Mapping[str, Sequence[object]]] = None,
    devices: Optional[Sequence[str]] = None,
    policies: Sequence[str] = ("noop", "deadline", "bfq"),
    seeds: Sequence[int] = (1,),
    executor: str = "threads",
    output: PathLike = "sweep.parquet",
    runtime: Union[str, float, None] = None,
    workers: Optional[int] = None,
    ray_address: Optional[str] = None,
    progress: Optional[bool] = None,
    flush_seconds: float = 10.0,
    sections: Sequence[str] = (),
):
    """Run every combination of ``jobs`` (job files), ``devices`` (specs), ``policies``, the ``grid``'s tunable
    values (each applied to the policies that have it) and ``seeds``, one task per combination, and write the
    table into ``output`` (Parquet). Returns the table as a pandas DataFrame.

    executor: "threads" (``workers`` threads of this process, default one per core) or "ray" (tasks on the Ray
    cluster at ``ray_address``; "auto" finds a running one, None starts a local one). Job files and device files
    must be at the same path on every node.
    A rerun with the same arguments skips the points ``output`` already holds; an interrupted run (Ctrl-C, a
    killed worker, a crash) keeps every row written before it stopped. The rows are the same whatever the
    executor and the number of workers.
    progress: a tqdm bar (in a terminal and in Jupyter); None shows it where there is a terminal.
    sections: run only these job sections of each job file, as fio's --section ([global] still applies).
    """
    if executor not in ("threads", "ray"):
        raise ValueError(f"executor: expected 'threads' or 'ray', found {executor!r}")
    args = sweep_args(jobs, grid, devices, policies, seeds, runtime, sections)
    plan = _plan(args)
    output = Path(output)
    if output.parent and not output.parent.exists():
        raise FileNotFoundError(2, "the output's folder does not exist", str(output.parent))
    parts = _Parts(output)
    done = _done_points(parts.existing(), plan, output)
    todo = [p["point"] for p in plan["points"] if p["point"] not in done]
    from tqdm.auto import tqdm

    bar = tqdm(
        total=len(plan["points"]),
        initial=len(done),
        unit="run",
        desc="iosched sweep",
        disable=(not progress) if progress is not None else None,
    )
    nodes: set[str] = set()
    try:
        if todo:
            run = _run_threads if executor == "threads" else _run_ray
            last_flush = time.monotonic()

            def finished(ipc: bytes, node: Optional[str] = None) -> None:
                nonlocal last_flush
                parts.add(_table_of(ipc))
                if node is not None:
                    nodes.add(node)
                bar.update(1)
                if time.monotonic() - last_flush >= flush_seconds:
                    parts.flush()
                    last_flush = time.monotonic()

            run(args, todo, finished, workers, ray_address)
    finally:
        # Whatever stopped the run, the finished rows are kept.
        parts.flush()
        bar.close()
    frame = parts.combine().to_pandas()
    if executor == "ray":
        # The Ray nodes that ran this call's tasks (a check that a cluster's nodes all took work).
        frame.attrs["ray_nodes"] = sorted(nodes)
    return frame


def _run_threads(args, todo, finished, workers, _address) -> None:
    workers = workers or os.cpu_count() or 1
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(_run_point, args, i) for i in todo}
        try:
            for future in concurrent.futures.as_completed(futures):
                finished(future.result())
        except BaseException:
            for f in futures:
                f.cancel()
            raise


def _run_ray(args, todo, finished, workers, address) -> None:
    try:
        import ray
    except ImportError:
        raise ImportError("executor='ray' needs Ray: pip install 'iosched[ray]'") from None
    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    # A worker that dies mid-task (killed, out of memory) has its task run again elsewhere; a task's rows reach
    # the table only when the whole task has finished, so they are written once.
    remote = ray.remote(num_cpus=1, max_retries=5, retry_exceptions=False)(_run_points_on_node)
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    per_task = _points_per_task(len(todo), cpus)
    in_flight_limit = workers or cpus * 4
    queue = [todo[i : i + per_task] for i in range(0, len(todo), per_task)]
    queue.reverse()
    in_flight: list = []
    try:
        while queue or in_flight:
            while queue and len(in_flight) < in_flight_limit:
                in_flight.append(remote.remote(args, queue.pop()))
            ready, in_flight = ray.wait(in_flight, num_returns=1)
            for ref in ready:
                node, tables = ray.get(ref)
                for ipc in tables:
                    finished(ipc, node)
    except BaseException:
        for ref in in_flight:
            ray.cancel(ref, force=True)
        raise
