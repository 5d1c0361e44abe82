"""iosched.simulate and the other commands from Python: values, byte-identical JSON, errors as exceptions."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import iosched
from iosched import _cli
from conftest import READER_AND_WRITER, REPO, cli, shared_data

MIXED = "[global]\nnumber_ios=400\nsize=64m\n" + READER_AND_WRITER

SHIPPED_JOB_FILES = sorted(str(p.relative_to(REPO)) for p in REPO.glob("experiments/*/*.fio")) + sorted(
    str(p.relative_to(REPO)) for p in REPO.glob("scripts/**/*.fio")
)
EXPERIMENTS = ["geom-sched", "netflix-fill", "bfq-startup", "dbload"]


def test_simulate_gives_dataframes():
    r = iosched.simulate(MIXED, policy="deadline", settings={"fifo_batch": 4}, device="hdd:sata7200", seed=3)
    jobs = r.jobs()
    assert isinstance(jobs, pd.DataFrame)
    assert list(jobs[["job", "direction"]].itertuples(index=False, name=None)) == [
        ("reader", "read"),
        ("writer", "write"),
    ]
    assert (jobs["ios"] == 400).all() and (jobs["iops"] > 0).all() and (jobs["lat_mean_ns"] > 0).all()
    latency = r.latency()
    assert {"p50", "p99", "p99.9"} <= set(latency.columns)
    assert (latency["p99"] >= latency["p50"]).all()
    table = r.to_arrow()
    assert isinstance(table, pa.Table) and table.num_rows == 2 and "p99" in table.column_names
    assert r.data["iosched"]["policy"] == "deadline"
    assert r.data["iosched"]["policy_tunables"]["fifo_batch"] == "4"
    assert "deadline" in repr(r) and "hdd:sata7200" in repr(r)


def test_job_text_and_job_file_give_the_same_result(tmp_path):
    path = tmp_path / "mixed.fio"
    path.write_text(MIXED)
    assert iosched.simulate(MIXED).json == iosched.simulate(path).json == iosched.simulate([str(path)]).json


def test_sections_run_only_the_named_jobs_as_the_cli(tmp_path):
    path = tmp_path / "mixed.fio"
    path.write_text(MIXED)
    r = iosched.simulate(path, sections=["writer"])
    assert list(r.jobs()["job"]) == ["writer"]
    out = cli("sim", "--json", str(path), "--section", "writer")
    assert out.returncode == 0, out.stderr
    assert r.json == out.stdout
    assert iosched.simulate(path, sections="reader").json != r.json
    with pytest.raises(ValueError, match="no-such"):
        iosched.simulate(path, sections=["no-such"])


@pytest.mark.parametrize("jobfile", SHIPPED_JOB_FILES)
def test_json_is_byte_identical_to_the_cli(jobfile, in_repo):
    for extra in ([], ["--device", "hdd:sata7200", "--policy", "bfq", "--seed", "7"]):
        out = cli("sim", "--json", jobfile, "--runtime", "0.3", *extra)
        assert out.returncode == 0, out.stderr
        kwargs = {"runtime": "0.3"}
        if extra:
            kwargs.update(device="hdd:sata7200", policy="bfq", seed=7)
        assert iosched.simulate(jobfile, **kwargs).json == out.stdout, jobfile


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiments_are_byte_identical_to_the_cli(name, in_repo):
    out = cli("experiment", name, "--json", "--jobs", "2")
    assert out.returncode == 0, out.stderr
    assert _cli.run(["experiment", name, "--json", "--jobs", "2"]) == out.stdout
    assert json.loads(out.stdout)["experiment"] == name


def test_experiment_is_a_value(in_repo):
    out = cli("experiment", "geom-sched", "--json", "--policies", "noop")
    assert out.returncode == 0, out.stderr
    result = iosched.experiment("geom-sched", policies=["noop"])
    assert result == json.loads(out.stdout)
    assert result["experiment"] == "geom-sched" and result["results"]
    assert {r["policy"] for r in result["results"]} == {"noop"}


def test_validate_matches_the_cli():
    d = shared_data("disksim")
    parv, trace = d / "hp_c2247a.parv", d / "hp_c2247a.trace"
    out = cli("validate", "--disksim", str(parv), "--trace", str(trace), "--json")
    assert out.returncode == 0, out.stderr
    result = iosched.validate(parv, trace)
    expected = json.loads(out.stdout)
    # The simulation rate is wall-clock time, the one figure that differs from run to run.
    assert result.pop("requests_per_s") > 0 and expected.pop("requests_per_s") > 0
    assert result == expected
    assert result["rms_ms"] > 0


def test_policies_and_devices_are_values():
    policies = {p["name"]: p for p in iosched.policies()}
    assert {"noop", "deadline", "bfq", "kyber", "cam"} <= set(policies)
    assert any(t["name"] == "fifo_batch" for t in policies["deadline"]["tunables"])
    devices = {d["kind"]: d for d in iosched.devices()}
    assert "sata7200" in devices["hdd"]["presets"] and "nvme" in devices["ssd"]["presets"]
    assert any(k["name"] == "capacity_gib" for k in devices["ssd"]["keys"])


@pytest.mark.parametrize(
    "call, error, wanted",
    [
        (lambda: iosched.simulate(MIXED, policy="nope"), ValueError, "nope"),
        (lambda: iosched.simulate(MIXED, device="floppy"), ValueError, "floppy"),
        (lambda: iosched.simulate(MIXED, settings={"fifo_batch": -3}, policy="deadline"), ValueError, "fifo_batch"),
        (lambda: iosched.simulate("[a]\nrw=sideways\n"), ValueError, "<job text>"),
        (lambda: iosched.simulate("/no/such/job.fio"), FileNotFoundError, "/no/such/job.fio"),
        (lambda: iosched.simulate(MIXED, traces=["/no/such.trace"]), FileNotFoundError, "/no/such.trace"),
        (lambda: iosched.simulate(MIXED, runtime="soon"), ValueError, "--runtime"),
        (lambda: iosched.simulate(), ValueError, "give fio jobs"),
        (lambda: iosched.experiment("no-such-experiment"), ValueError, "no experiment named"),
        (lambda: _cli.run(["run", "x.fio"]), ValueError, "cannot run embedded"),
    ],
)
def test_bad_input_raises_with_the_cli_message(call, error, wanted):
    with pytest.raises(error) as caught:
        call()
    text = str(caught.value)
    assert wanted in text, text
    assert "\n" not in text.strip(), f"not one line: {text}"


def test_bad_job_text_names_the_line():
    with pytest.raises(ValueError) as caught:
        iosched.simulate("[a]\nrw=randread\nbs=banana\n")
    assert "<job text>:3" in str(caught.value), caught.value


def test_the_gil_is_released_while_simulating():
    """A Python thread keeps running while another simulates."""
    ticks = 0
    stop = threading.Event()

    def count():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1

    counter = threading.Thread(target=count)
    counter.start()
    started = time.monotonic()
    busy = 0.0
    while time.monotonic() - started < 0.3:
        before = ticks
        t = time.monotonic()
        iosched.simulate(MIXED, device="hdd:sata7200", runtime="2", policy="bfq")
        busy += time.monotonic() - t
        progressed = ticks - before
    stop.set()
    counter.join()
    # With the GIL held for the whole simulation, the counter would stand still while it ran.
    assert progressed > 1000, f"{progressed} ticks during {busy:.2f} s of simulation"


def test_jobfile_path_objects_accepted(in_repo):
    assert iosched.simulate(Path("experiments/geom-sched/cvs.fio"), runtime=0.2).jobs().shape[0] == 1
