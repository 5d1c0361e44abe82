"""iosched.sweep on a Ray cluster of two nodes (a head and a second `ray start --address` node on this machine):
the same table as on threads, work on both nodes, and a worker killed mid-task loses nothing."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import iosched
from conftest import READER_AND_WRITER, skip_loudly


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    # Token authentication, as a real cluster has it: every node and this driver share one token, a fresh one so
    # that a ~/.ray/auth_token left by another Ray session cannot make them disagree (set before Ray is
    # imported, which reads them then).
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    try:
        import ray
    except ImportError:
        skip_loudly("Ray is not installed (pip install 'iosched[ray]')")
    ray_cli = Path(sys.executable).with_name("ray")
    port = free_port()
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    common = ["--num-cpus=1", "--disable-usage-stats"]
    head = [str(ray_cli), "start", "--head", f"--port={port}", "--include-dashboard=false", *common]
    subprocess.run(head, check=True, capture_output=True, env=env)
    try:
        worker = [str(ray_cli), "start", f"--address=127.0.0.1:{port}", *common]
        subprocess.run(worker, check=True, capture_output=True, env=env)
        address = f"127.0.0.1:{port}"
        ray.init(address=address, log_to_driver=False)
        deadline = time.monotonic() + 60
        while len([n for n in ray.nodes() if n["Alive"]]) < 2:
            assert time.monotonic() < deadline, "the second node did not join"
            time.sleep(0.2)
        # One task pinned to each node first: each node then has a worker started and has taken work, so a sweep
        # that follows is not finished by the head alone while the second node is still starting its first
        # worker (a run of 32 short tasks once all ran on the head).
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        here = ray.remote(num_cpus=1)(lambda: ray.get_runtime_context().get_node_id())
        nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
        pinned = [here.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n, soft=False)).remote() for n in nodes]
        assert sorted(ray.get(pinned, timeout=120)) == sorted(nodes)
        yield address
    finally:
        ray.shutdown()
        subprocess.run([str(ray_cli), "stop", "--force"], capture_output=True, env=env)
        for key in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN"):
            os.environ.pop(key, None)


def test_ray_on_two_nodes_gives_the_threads_table(cluster, job, tmp_path):
    # 96 points: Ray tasks of three points each (_points_per_task), so a task's rows are split back into points.
    axes = dict(policies=["deadline", "noop", "bfq"], devices=["hdd:sata7200"], seeds=range(1, 33), runtime="0.3")
    threads = iosched.sweep(job, output=tmp_path / "threads.parquet", **axes)
    on_ray = iosched.sweep(job, output=tmp_path / "ray.parquet", executor="ray", ray_address=cluster, **axes)
    assert pq.read_table(tmp_path / "ray.parquet").equals(pq.read_table(tmp_path / "threads.parquet"))
    assert on_ray.drop(columns=[]).equals(threads)
    assert len(on_ray.attrs["ray_nodes"]) == 2, on_ray.attrs


def test_a_worker_killed_mid_sweep_loses_nothing(cluster, tmp_path):
    # Points long enough to be caught running: the job runs for its whole runtime (time_based), 300 simulated
    # seconds, about half a second of a task's CPU here. The shared job file ends each point after 256 MB, a few
    # milliseconds of a task, which a killer polling with pgrep can miss altogether (a CI run once did).
    job = tmp_path / "timed.fio"
    job.write_text("[global]\nsize=256m\ntime_based=1\n" + READER_AND_WRITER)
    axes = dict(policies=["bfq", "deadline"], devices=["hdd:sata7200"], seeds=range(1, 5), runtime="300")
    expected = iosched.sweep(job, output=tmp_path / "threads.parquet", **axes)
    killed = []

    def kill_one_worker():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            found = subprocess.run(["pgrep", "-f", "ray::_run_points_on_node"], capture_output=True, text=True)
            pids = found.stdout.split()
            if pids:
                subprocess.run(["kill", "-9", pids[0]])
                killed.append(pids[0])
            time.sleep(0.005)

    killer = threading.Thread(target=kill_one_worker)
    killer.start()
    result = iosched.sweep(job, output=tmp_path / "ray.parquet", executor="ray", ray_address=cluster, **axes)
    killer.join()
    assert killed, "no worker was caught running a point"
    assert pq.read_table(tmp_path / "ray.parquet").equals(pq.read_table(tmp_path / "threads.parquet"))
    assert result.equals(expected)


def test_tasks_hold_several_points_only_when_there_are_many():
    from iosched._sweep import _points_per_task

    assert _points_per_task(96, 2) == 3
    assert _points_per_task(10, 2) == 1
    assert _points_per_task(100_000, 64) == 8
