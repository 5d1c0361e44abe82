"""A simulation's result: the JSON ``iosched sim --json`` prints, and views of it as pandas and Arrow tables."""

from __future__ import annotations

import json as _json
from functools import cached_property
from typing import Any

DIRECTIONS = ("read", "write", "trim")


class Result:
    """What one run reported.

    ``.json`` is exactly the text ``iosched sim --json`` prints for the same inputs (fio's JSON schema plus an
    "iosched" object); ``.data`` is it parsed; ``.jobs()`` and ``.latency()`` are pandas DataFrames with one row
    per job and direction (directions a job did not use are left out); ``.to_arrow()`` is both as one Arrow table.
    """

    def __init__(self, text: str):
        self.json = text

    def __repr__(self) -> str:
        names = ", ".join(j["jobname"] for j in self.data.get("jobs", []))
        info = self.data.get("iosched", {})
        device = info.get("device", {})
        spec = device.get("spec") if isinstance(device, dict) else device
        return f"<iosched.Result policy={info.get('policy')!r} device={spec!r} jobs=[{names}]>"

    @cached_property
    def data(self) -> dict[str, Any]:
        return _json.loads(self.json)

    def _rows(self) -> list[tuple[dict[str, Any], str, dict[str, Any]]]:
        rows = []
        for job in self.data.get("jobs", []):
            for direction in DIRECTIONS:
                d = job.get(direction, {})
                if d.get("total_ios", 0) or d.get("io_bytes", 0):
                    rows.append((job, direction, d))
        return rows

    def jobs(self):
        """One row per job and direction: I/Os, bytes, bandwidth, IOPS, runtime and completion latency summary."""
        import pandas as pd

        records = []
        for job, direction, d in self._rows():
            lat = d.get("clat_ns", {})
            records.append(
                {
                    "job": job["jobname"],
                    "direction": direction,
                    "ios": d.get("total_ios", 0),
                    "io_bytes": d.get("io_bytes", 0),
                    "bw_bytes_per_s": d.get("bw_bytes", 0),
                    "iops": d.get("iops", 0.0),
                    "runtime_ms": d.get("runtime", 0),
                    "lat_mean_ns": lat.get("mean", 0.0),
                    "lat_min_ns": lat.get("min", 0),
                    "lat_max_ns": lat.get("max", 0),
                    "lat_stddev_ns": lat.get("stddev", 0.0),
                    "error": job.get("error", 0),
                }
            )
        return pd.DataFrame.from_records(records, columns=_JOB_COLUMNS)

    def latency(self):
        """One row per job and direction; each of fio's completion-latency percentiles a column (ns)."""
        import pandas as pd

        records = []
        columns: list[str] = []
        for job, direction, d in self._rows():
            percentiles = d.get("clat_ns", {}).get("percentile", {})
            row: dict[str, Any] = {"job": job["jobname"], "direction": direction}
            for key, value in sorted(percentiles.items(), key=lambda kv: float(kv[0])):
                name = f"p{float(key):g}"
                row[name] = value
                if name not in columns:
                    columns.append(name)
            records.append(row)
        columns.sort(key=lambda c: float(c[1:]))
        return pd.DataFrame.from_records(records, columns=["job", "direction", *columns])

    def to_arrow(self):
        """``jobs()`` and ``latency()`` joined on job and direction, as a pyarrow Table."""
        import pyarrow as pa

        table = self.jobs().merge(self.latency(), on=["job", "direction"], how="left")
        return pa.Table.from_pandas(table, preserve_index=False)


_JOB_COLUMNS = [
    "job",
    "direction",
    "ios",
    "io_bytes",
    "bw_bytes_per_s",
    "iops",
    "runtime_ms",
    "lat_mean_ns",
    "lat_min_ns",
    "lat_max_ns",
    "lat_stddev_ns",
    "error",
]
