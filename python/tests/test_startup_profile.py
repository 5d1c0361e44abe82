"""scripts/startup-profile.py's reading of block events: requests, seeks, the gaps with no request at the disk,
and the fio job it writes (which iosched must accept). The recording itself needs root and a real program; this
test feeds it text in both formats it reads."""

from __future__ import annotations

import importlib.util
import subprocess

import pytest
from conftest import REPO, cli_binary

spec = importlib.util.spec_from_file_location("startup_profile", REPO / "scripts" / "startup-profile.py")
startup_profile = importlib.util.module_from_spec(spec)
spec.loader.exec_module(startup_profile)

# Three reads of one program on device 254,0: 8 sectors at 1000, 32 continuing it, 16 elsewhere; a write of
# another device (8,0) that is not the busiest and is left out. Between them, 2 ms and 10 ms with nothing at
# the disk. The trace buffer's format, then perf script's.
TRACE = """\
# tracer: nop
           app-100   [000] ..... 10.000000: block_rq_issue: 254,0 RA 4096 () 1000 + 8 be,0,4 [app]
        <idle>-0     [000] ..s1. 10.001000: block_rq_complete: 254,0 RA () 1000 + 8 be,0,4 [0]
           app-100   [000] ..... 10.003000: block_rq_issue: 254,0 RA 16384 () 1008 + 32 be,0,4 [app]
           app-100   [000] ..s.. 10.004000: block_rq_complete: 254,0 RA () 1008 + 32 be,0,4 [0]
          kw-7       [001] ..... 10.005000: block_rq_issue: 8,0 WS 4096 () 5 + 8 be,0,4 [kw]
           app-100   [000] ..... 10.014000: block_rq_issue: 254,0 RM 8192 () 900000 + 16 be,0,4 [app]
           app-100   [000] ..s.. 10.016000: block_rq_complete: 254,0 RM () 900000 + 16 be,0,4 [0]
"""
PERF = """\
             app   100 [000]    10.000000:    block:block_rq_issue: 254,0 RA 4096 () 1000 + 8 0x2,0,4 [app]
             app   100 [000]    10.001000: block:block_rq_complete: 254,0 RA () 1000 + 8 0x2,0,4 [0]
             app   100 [000]    10.003000:    block:block_rq_issue: 254,0 RA 16384 () 1008 + 32 0x2,0,4 [app]
             app   100 [000]    10.004000: block:block_rq_complete: 254,0 RA () 1008 + 32 0x2,0,4 [0]
             app   100 [000]    10.014000:    block:block_rq_issue: 254,0 RM 8192 () 900000 + 16 0x2,0,4 [app]
"""


@pytest.mark.parametrize("text", [TRACE, PERF], ids=["trace-buffer", "perf-script"])
def test_reads_seeks_and_gaps_are_counted(text):
    s = startup_profile.summarise(startup_profile.parse(text.splitlines()))
    assert s["reads"] == 3 and s["writes"] == 0
    assert s["read_bytes"] == (8 + 32 + 16) * 512
    assert s["continuing"] == 1  # the second read continues the first; the third seeks
    assert s["gaps_ms"] == pytest.approx([2.0, 10.0])
    assert s["size_buckets"] == {4: 2, 16: 1, 64: 0, 128: 0}  # 4 KiB, 16 KiB, and 8 KiB (as far from both on a log scale: the smaller)
    # perf lost the last completion: it is taken as the median latency (1 ms).
    assert s["span_s"] == pytest.approx(0.016 if text is TRACE else 0.015)


def test_an_unreadable_block_event_names_its_line():
    text = TRACE.replace("() 1008 + 32", "(?) 1008 + 32", 1)
    with pytest.raises(ValueError, match="line 4"):
        startup_profile.parse(text.splitlines())


def test_the_fio_job_it_writes_runs_in_iosched(tmp_path):
    s = startup_profile.summarise(startup_profile.parse(TRACE.splitlines()))
    job = tmp_path / "app.fio"
    job.write_text(startup_profile.fio_job(s, 3.0, "test"))
    text = job.read_text()
    assert "percentage_random=67" in text and "thinktime=18000us" in text  # (2 + 10) / 2 ms x 3
    assert "bssplit=4k/67:16k/33" in text
    out = subprocess.run(
        [str(cli_binary()), "sim", "--device", "hdd:sata7200", str(job)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "app" in out.stdout
