"""The command line's commands, run in this process by the native module (crates/iosched-py).

Arguments are built here exactly as a user would type them after ``iosched``, so that every default, check and
error message is the command line's own. Bad input raises ValueError (FileNotFoundError for a missing file) with
the command line's one-line message; a failed run raises RuntimeError.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence, Union

from . import _native

PathLike = Union[str, "os.PathLike[str]"]


def run(args: Sequence[str]) -> str:
    """Run ``iosched ARGS...`` and return what it prints on standard output."""
    return _native.run([str(a) for a in args])


def require_file(path: PathLike, what: str) -> str:
    """The path as text, or FileNotFoundError naming what it was for."""
    text = os.fspath(path)
    if not os.path.exists(text):
        raise FileNotFoundError(errno.ENOENT, f"{what} not found", text)
    return text


def is_job_text(jobs: object) -> bool:
    """A string holding fio job text rather than naming a file: it has a line break or a [section]."""
    return isinstance(jobs, str) and ("\n" in jobs or jobs.lstrip().startswith("["))


@contextlib.contextmanager
def job_paths(jobs: object) -> Iterator[list[str]]:
    """The job files of ``jobs`` (a path, a list of paths, or fio job text written to a temporary file)."""
    if jobs is None:
        yield []
        return
    if is_job_text(jobs):
        with tempfile.TemporaryDirectory(prefix="iosched-py-") as folder:
            path = Path(folder) / "jobs.fio"
            path.write_text(str(jobs))
            try:
                yield [str(path)]
            except ValueError as e:
                # Errors name the file; the user gave text, not a file.
                raise ValueError(str(e).replace(str(path), "<job text>")) from None
        return
    if isinstance(jobs, (str, os.PathLike)):
        jobs = [jobs]
    if not isinstance(jobs, Iterable):
        raise TypeError(f"jobs: expected a path, a list of paths or fio job text, found {type(jobs).__name__}")
    yield [require_file(j, "job file") for j in jobs]


def settings_args(settings: Mapping[str, object] | None, flag: str = "--set") -> list[str]:
    """``{"fifo_batch": 16}`` as ``["--set", "fifo_batch=16"]``."""
    out: list[str] = []
    for key, value in (settings or {}).items():
        out += [flag, f"{key}={format_value(value)}"]
    return out


def format_value(value: object) -> str:
    """A tunable's value as the command line takes it (booleans as 1/0)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def section_args(sections) -> list[str]:
    """``--section NAME`` for each job section named (a name or a list of names)."""
    if isinstance(sections, str):
        sections = [sections]
    args: list[str] = []
    for name in sections:
        if not isinstance(name, str) or not name:
            raise ValueError(f"sections: expected job section names, found {name!r}")
        args += ["--section", name]
    return args
