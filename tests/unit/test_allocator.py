"""The command line's allocator setting (perfx.allocator): an array above the threshold,
freed below another live block, is returned to the system, where glibc's own rising
threshold keeps it in the process. Each case runs in a process of its own (the setting is
the process's)."""

from __future__ import annotations

import subprocess
import sys

import pytest

FREED_BELOW_A_LIVE_BLOCK = """
import sys
import numpy as np
from perfx import allocator

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024

if sys.argv[1] == "set":
    allocator.return_large_blocks()
before = rss_mb()
first = np.ones(10 << 17); del first  # 10 MB freed: glibc raises its threshold to 10 MB
kept = [np.ones(1 << 16) for _ in range(4)]
second = np.ones(10 << 17); after = np.ones(1 << 16); del second  # 10 MB below a live block
print(rss_mb() - before)
"""


def _kept_mb(setting: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", FREED_BELOW_A_LIVE_BLOCK, setting],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc, /proc")
def test_a_large_array_freed_is_returned_to_the_system():
    assert _kept_mb("glibc") >= 10  # glibc's own threshold keeps it
    assert _kept_mb("set") < 5


def test_the_command_line_sets_it(monkeypatch):
    from perfx import cli

    calls = []
    monkeypatch.setattr(cli, "return_large_blocks", lambda: calls.append(1))
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert calls == [1]
