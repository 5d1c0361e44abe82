"""Shared helpers of the package's tests: the repository, the command-line binary to compare with, test data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def required() -> bool:
    """Every test must run (CI): one that cannot fails instead of skipping, as the Rust tests do."""
    return os.environ.get("CI") == "true" or os.environ.get("IOSCHED_REQUIRE_ALL") == "1"


def skip_loudly(reason: str) -> None:
    if required():
        pytest.fail(f"this test cannot run here: {reason} (CI=true or IOSCHED_REQUIRE_ALL=1: every test must run)")
    print(f"SKIPPED: {reason}", file=sys.stderr)
    pytest.skip(reason)


def cli_binary() -> Path:
    """The `iosched` command to compare with: IOSCHED_BIN, else the newer of the workspace's
    target/{release,debug}/iosched."""
    if os.environ.get("IOSCHED_BIN"):
        return Path(os.environ["IOSCHED_BIN"])
    built = [p for p in (REPO / "target" / d / "iosched" for d in ("release", "debug")) if p.exists()]
    if not built:
        skip_loudly("no iosched binary (cargo build, or set IOSCHED_BIN)")
    return max(built, key=lambda p: p.stat().st_mtime)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(cli_binary()), *args], capture_output=True, text=True, cwd=REPO)


def shared_data(part: str) -> Path:
    root = Path(os.environ.get("IOSCHED_TEST_DATA", REPO.parent / "shared" / "data"))
    path = root / part
    if not path.exists():
        skip_loudly(f"test data {path} not found (set IOSCHED_TEST_DATA)")
    return path


@pytest.fixture
def in_repo(monkeypatch):
    """Run with the repository as the working folder (job file paths as the CLI sees them)."""
    monkeypatch.chdir(REPO)
    return REPO


# A random reader beside a sequential writer, after a [global] section that sizes them.
READER_AND_WRITER = """[reader]
rw=randread
bs=4k
[writer]
rw=write
bs=64k
ioengine=libaio
iodepth=8
"""

# The sweep tests' job file.
MIXED_JOB = "[global]\nsize=256m\n" + READER_AND_WRITER


@pytest.fixture
def job(tmp_path):
    """MIXED_JOB as a job file."""
    path = tmp_path / "mix.fio"
    path.write_text(MIXED_JOB)
    return path
