"""iosched from Python: disk I/O scheduling policies on a deterministic device simulator.

The simulator runs in this process (a native module built from the same Rust code as the ``iosched`` command),
with the GIL released, so threads run simulations in parallel. Every function takes what the command line takes
and returns values instead of text:

>>> import iosched
>>> r = iosched.simulate("[reader]\\nrw=randread\\nnumber_ios=1000\\n", policy="deadline", device="hdd:sata7200")
>>> r.jobs()          # a DataFrame: one row per job and direction
>>> r.latency()       # percentiles as columns
>>> r.json            # exactly what `iosched sim --json` prints

``sweep`` runs every combination of job files, devices, policies, tunable values and seeds on threads or on a
Ray cluster, streaming rows into one Parquet file that a rerun resumes (see ``iosched.sweep``).
"""

from __future__ import annotations

import json as _json
import os
from typing import Mapping, Optional, Sequence, Union

from . import _cli, _native
from ._result import Result
from ._sweep import sweep, sweep_points

__all__ = ["simulate", "experiment", "validate", "policies", "devices", "sweep", "sweep_points", "Result"]
__version__ = _native.__version__


def simulate(
    jobs=None,
    policy: str = "noop",
    settings: Optional[Mapping[str, object]] = None,
    device: Optional[str] = None,
    seed: int = 1,
    runtime: Union[str, float, None] = None,
    traces: Sequence[Union[str, "os.PathLike[str]"]] = (),
    trace_format: Optional[str] = None,
    replay: Optional[str] = None,
    switch_at: Sequence[str] = (),
    sections: Sequence[str] = (),
) -> Result:
    """Simulate fio jobs and/or block traces under a policy on a device model, as ``iosched sim --json`` does.

    jobs: a job file's path, a list of paths (they run together), or fio job text.
    policy, settings: a policy of ``policies()`` and its tunables, e.g. ``settings={"fifo_batch": 16}``.
    device: a device spec (see ``devices()``), by default the command line's default.
    seed: the random streams' seed; the same inputs and seed give the same result.
    runtime: override every job's runtime (seconds, or a time such as "500ms").
    traces, trace_format, replay: block traces to replay, their format and replay mode (as --trace, --format,
    --replay).
    switch_at: policy switches during the run, each "TIME:POLICY[,KEY=VALUE...]".
    sections: run only these job sections of the job files, as fio's --section ([global] still applies).
    """
    if jobs is None and not traces:
        raise ValueError("give fio jobs (a path, a list of paths or job text), traces, or both")
    args = ["sim", "--json", "--policy", policy, "--seed", str(int(seed))]
    args += _cli.settings_args(settings)
    if device is not None:
        args += ["--device", device]
    if runtime is not None:
        args += ["--runtime", str(runtime)]
    for trace in traces:
        args += ["--trace", _cli.require_file(trace, "trace")]
    if trace_format is not None:
        args += ["--format", trace_format]
    if replay is not None:
        args += ["--replay", replay]
    for switch in switch_at:
        args += ["--switch-at", switch]
    args += _cli.section_args(sections)
    with _cli.job_paths(jobs) as paths:
        return Result(_cli.run(args + paths))


def experiment(name_or_folder: Union[str, "os.PathLike[str]"], policies: Optional[Sequence[str]] = None) -> dict:
    """Run a seed experiment (built-in name, or a folder with an experiment.toml), as ``iosched experiment
    NAME --json``: ``{"experiment": NAME, "results": [...]}`` with each run's measures and each seed figure's
    verdict."""
    args = ["experiment", os.fspath(name_or_folder), "--json"]
    if policies:
        args += ["--policies", ",".join(policies)]
    return _json.loads(_cli.run(args))


def validate(parv: Union[str, "os.PathLike[str]"], trace: Union[str, "os.PathLike[str]"], **options) -> dict:
    """Replay a DiskSim validation trace on a DiskSim drive, as ``iosched validate --disksim PARV --trace TRACE
    --json``: the demerit against the measured times and the per-kind figures. Keyword options are the command's
    long options (``jitter_us=2``, ``seeds=5``)."""
    args = ["validate", "--disksim", os.fspath(parv), "--trace", _cli.require_file(trace, "trace"), "--json"]
    for key, value in options.items():
        args += [f"--{key.replace('_', '-')}", _cli.format_value(value)]
    return _json.loads(_cli.run(args))


def policies() -> list[dict]:
    """Every scheduling policy with its summary, source and tunables (``iosched policies --json``)."""
    return _json.loads(_cli.run(["policies", "--json"]))["policies"]


def devices() -> list[dict]:
    """Every kind of device spec with its form, presets and keys (``iosched devices --json``)."""
    return _json.loads(_cli.run(["devices", "--json"]))["devices"]
