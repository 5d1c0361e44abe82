"""iosched.sweep: the same table as `iosched sweep --parquet` whatever the executor and the number of workers;
streaming parts, resuming, and nothing lost on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

import iosched
from conftest import REPO, cli


AXES = dict(
    policies=["deadline", "noop"],
    grid={"fifo_batch": [2, 16]},
    devices=["hdd:sata7200", "simple,latency_us=50"],
    seeds=[1, 2],
    runtime="0.2",
)  # 2 devices x (2 deadline settings + noop) x 2 seeds = 12 points


def cli_table(job, tmp_path):
    out_path = tmp_path / "cli.parquet"
    args = ["sweep", str(job), "--policies", "deadline,noop", "--grid", "fifo_batch=2,16"]
    args += ["--device", "hdd:sata7200", "--device", "simple,latency_us=50", "--seeds", "1-2", "--runtime", "0.2"]
    out = cli(*args, "--parquet", str(out_path))
    assert out.returncode == 0, out.stderr
    return pq.read_table(out_path), out.stdout


def test_threads_give_the_cli_table_whatever_the_workers(job, tmp_path):
    expected, summary = cli_table(job, tmp_path)
    assert expected.num_rows == 48  # 12 points x 2 jobs x (read, write)
    for workers in (1, 2):
        output = tmp_path / f"threads-{workers}.parquet"
        frame = iosched.sweep(job, output=output, workers=workers, **AXES)
        table = pq.read_table(output)
        assert table.equals(expected), f"workers={workers}"
        assert len(frame) == expected.num_rows
        assert not (tmp_path / f"threads-{workers}.parquet.parts").exists()
    points = iosched.sweep_points(job, **AXES)
    assert list(points["point"]) == list(range(12))
    assert set(points["settings"]) == {"fifo_batch=2", "fifo_batch=16", ""}


def test_sections_sweep_only_the_named_jobs_as_the_cli(job, tmp_path):
    out_path = tmp_path / "cli.parquet"
    args = ["sweep", str(job), "--policies", "noop", "--runtime", "0.2", "--section", "reader"]
    out = cli(*args, "--parquet", str(out_path))
    assert out.returncode == 0, out.stderr
    expected = pq.read_table(out_path)
    output = tmp_path / "py.parquet"
    frame = iosched.sweep(job, policies=["noop"], runtime="0.2", sections=["reader"], output=output, workers=1)
    assert pq.read_table(output).equals(expected)
    assert set(frame["job"]) == {"reader"}


def test_a_rerun_runs_only_what_is_missing(job, tmp_path):
    output = tmp_path / "sweep.parquet"
    full = iosched.sweep(job, output=output, **AXES)
    # Drop some finished points, as if the run had stopped there, then rerun: the rest is not run again.
    table = pq.read_table(output)
    keep = table.filter(pq.read_table(output).column("point").to_numpy() < 5)
    pq.write_table(keep, output)
    before = os.stat(output).st_mtime_ns
    again = iosched.sweep(job, output=output, **AXES)
    assert pq.read_table(output).equals(table)
    assert again.equals(full)
    assert os.stat(output).st_mtime_ns != before


def test_the_output_of_another_sweep_is_not_mixed_in(job, tmp_path):
    output = tmp_path / "sweep.parquet"
    iosched.sweep(job, output=output, policies=["noop"], seeds=[1], runtime="0.1")
    with pytest.raises(ValueError, match="different sweep"):
        iosched.sweep(job, output=output, policies=["noop"], seeds=[5], runtime="0.1")
    with pytest.raises(ValueError, match="different sweep"):
        iosched.sweep(job, output=output, **AXES)


def test_bad_sweeps_raise(job, tmp_path):
    with pytest.raises(ValueError, match="--grid bogus"):
        iosched.sweep(job, output=tmp_path / "x.parquet", grid={"bogus": [1]}, policies=["deadline"])
    with pytest.raises(FileNotFoundError):
        iosched.sweep(tmp_path / "missing.fio", output=tmp_path / "x.parquet")
    with pytest.raises(ValueError, match="executor"):
        iosched.sweep(job, output=tmp_path / "x.parquet", executor="spark")
    assert not (tmp_path / "x.parquet").exists()


def test_ctrl_c_keeps_finished_rows_and_a_rerun_completes(job, tmp_path):
    """`python -m iosched sweep` interrupted by SIGINT (as Ctrl-C sends) exits 130 with its finished rows in
    parts; the rerun completes the rest and gives the uninterrupted table."""
    expected_path = tmp_path / "expected.parquet"
    many = ["--policies", "deadline,noop,bfq", "--device", "hdd:sata7200", "--seeds", "1-16", "--runtime", "0.5"]
    out = cli("sweep", str(job), *many, "--parquet", str(expected_path))
    assert out.returncode == 0, out.stderr
    expected = pq.read_table(expected_path)

    output = tmp_path / "interrupted.parquet"
    parts = tmp_path / "interrupted.parquet.parts"
    command = [sys.executable, "-m", "iosched", "sweep", str(job), *many, "--parquet", str(output)]
    command += ["--jobs", "1", "--flush-seconds", "0"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    deadline = time.monotonic() + 120
    while not (parts.is_dir() and len(list(parts.glob("part-*.parquet"))) >= 3):
        assert child.poll() is None, f"finished before it could be interrupted: {child.communicate()}"
        assert time.monotonic() < deadline, "no parts written"
        time.sleep(0.01)
    child.send_signal(signal.SIGINT)
    stdout, stderr = child.communicate(timeout=120)
    assert child.returncode == 130, stderr
    assert "finished rows are kept" in stderr
    assert not output.exists()
    saved = sum(pq.read_table(p).num_rows for p in parts.glob("part-*.parquet"))
    assert 0 < saved < expected.num_rows, saved

    rerun = subprocess.run(command[:-4], capture_output=True, text=True, cwd=REPO)
    assert rerun.returncode == 0, rerun.stderr
    assert pq.read_table(output).equals(expected)
    assert not parts.exists()
    assert "48 points" in rerun.stdout
