"""The README's demo runs end to end (in its own process: it starts its own Spark sessions)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest


@pytest.mark.spark
def test_demo_explains_the_slow_task_and_finds_its_culprit(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "perfx.demo", "--keep", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        env={"COLUMNS": "200", **_env()},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = " ".join(result.stdout.split())
    # The hot movie's line is one record among as many as its peers read, but ~30x their
    # bytes: where the stage's cost model sees its tasks' time follow their input bytes it is
    # skew in bytes, else a dearer record; either way its culprit is that one record.
    assert re.search(
        r"most likely because its (input bytes were|compute time was) higher "
        r"\([\d.,]+ [kKMG]?B?\w* against",
        out,
    ), out[-3000:]
    assert re.search(
        r"diagnosis: (data skew: it read [\d.]+x the input bytes|computation skew)", out
    ), out[-3000:]
    slow = int(re.search(r"slowest: \S+ \(\d+ ms, partition (\d+)\)", out).group(1))
    # The slow task's partition is the file holding the 1,200,000-rating movie, and the first
    # culprit inside it, linked from the first run's log to the traced run, is that movie's line.
    hot_day = int(re.search(r"1,200,000 ratings on day (\d+)", out).group(1))
    inside = re.search(
        rf"culprits in task \S+'s partition {slow} \(run \S+, traced stage \d+, traced [\d,]+ ms; "
        rf"linked by stage position in its job\): (?:heavy keys .*? by impact: )?"  # data skew: keys
        rf"1\. \S+day-(\d+)\.txt@\d+: impact [\d,]+ ms",
        out,
    )
    assert inside and int(inside.group(1)) == hot_day, out[-3000:]
    # perfx why, in one command, finds the same task's skew in its own traced run.
    why = out.split("5. The same chain in one command", 1)[1]
    assert re.search(r"diagnosis: (data|computation) skew", why), why[-2000:]
    assert "linked by the traced run's own log" in why
    assert re.search(rf"1\. \S+day-{hot_day:02d}\.txt@\d+: impact", why), why[-2000:]


def _env() -> dict:
    import os

    return {k: v for k, v in os.environ.items() if k != "COLUMNS"}
