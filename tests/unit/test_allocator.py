"""The command line's allocator setting (perfx.allocator): an array above the threshold,
freed below another live block, is returned to the system, where glibc's own rising
threshold keeps it in the process; arrays below it, freed at the heap's top, are kept
for the next ones; those freed inside the heap are handed back once a command's log is
loaded. Each case runs in a process of its own (the setting is the process's)."""

from __future__ import annotations

import subprocess
import sys

import pytest

RSS = """
import ctypes, sys
import numpy as np
from perfx import allocator

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024  # in KB: MB rounded down moved by one
"""

FREED_BELOW_A_LIVE_BLOCK = """
if sys.argv[1] == "set":
    allocator.return_large_blocks()
before = rss_mb()
first = np.ones(10 << 17); del first  # 10 MB freed: glibc raises its threshold to 10 MB
kept = [np.ones(1 << 16) for _ in range(4)]
second = np.ones(10 << 17); after = np.ones(1 << 16); del second  # 10 MB below a live block
print(rss_mb() - before)
"""


def _printed_mb(case: str, setting: str) -> float:
    """The MB the ``case`` (a script after ``RSS``) prints, run with ``setting``."""
    done = subprocess.run(
        [sys.executable, "-c", RSS + case, setting], capture_output=True, text=True, check=True
    )
    return float(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc, /proc")
def test_a_large_array_freed_is_returned_to_the_system():
    assert _printed_mb(FREED_BELOW_A_LIVE_BLOCK, "glibc") >= 10  # glibc's threshold keeps it
    assert _printed_mb(FREED_BELOW_A_LIVE_BLOCK, "set") < 5


FREED_AT_THE_HEAPS_TOP = """
if sys.argv[1] == "set":
    allocator.return_large_blocks()
else:  # the mmap threshold alone: glibc's trim threshold stays at 128 KB
    ctypes.CDLL(None).mallopt(allocator.M_MMAP_THRESHOLD, allocator.MMAP_THRESHOLD)
blocks = [np.ones(1 << 17) for _ in range(6)]  # 6 MB of 1 MB arrays: in the heap, at its top
before = rss_mb()
del blocks
print(before - rss_mb())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc, /proc")
def test_the_heaps_top_is_kept_for_the_next_arrays():
    assert _printed_mb(FREED_AT_THE_HEAPS_TOP, "set") < 0.5
    assert _printed_mb(FREED_AT_THE_HEAPS_TOP, "mmap threshold alone") > 5.5  # of 6 MB


FREED_INSIDE_THE_HEAP = """
allocator.return_large_blocks()
blocks = [np.ones(1 << 17) for _ in range(20)]  # 20 MB of 1 MB arrays: in the heap
live = np.ones(1 << 12)  # above them: the heap's top is not free
del blocks
before = rss_mb()
if sys.argv[1] == "hand back":
    allocator.hand_back_free_pages()
print(before - rss_mb())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc, /proc")
def test_free_pages_inside_the_heap_are_handed_back():
    assert _printed_mb(FREED_INSIDE_THE_HEAP, "keep") < 0.5
    assert _printed_mb(FREED_INSIDE_THE_HEAP, "hand back") >= 15


def test_a_command_hands_back_what_loading_its_log_freed(monkeypatch):
    from perfx.commands import options

    calls = []
    monkeypatch.setattr("perfx.allocator.hand_back_free_pages", lambda: calls.append(1))
    monkeypatch.setattr("perfx.session.open", lambda *args, **kwargs: "session")
    assert options.open_session(("a log",)) == "session"
    assert calls == [1]


def test_the_command_line_sets_it(monkeypatch):
    from perfx import cli

    calls = []
    monkeypatch.setattr(cli, "return_large_blocks", lambda: calls.append(1))
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert calls == [1]
