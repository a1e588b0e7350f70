"""A log's tables have the same columns in the same order in every process, whatever its
string hash seed: the order shows in exports and query results, and the cache keeps it.
Ousterhout's reader once added the columns a trace lacks in a set's order."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.data_files import REPO, fixture_log

LOGS = (
    fixture_log("ousterhout-traces/04_15_14_disk"),
    fixture_log("hadoop-jhist/job_2.4.0-FAILED.jhist"),
    fixture_log("spark-events/application_1628109047826_1317105"),
)
COLUMNS = """
import json, sys
from perfx.logs.loader import load_log
print(json.dumps({
    path: {e: list(load_log(path, cache=False).table(e).columns) for e in ("task", "stage", "job", "app")}
    for path in sys.argv[1:]
}))
"""


def columns_with_seed(seed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    done = subprocess.run(
        [sys.executable, "-c", COLUMNS, *map(str, LOGS)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        check=True,
    )
    return json.loads(done.stdout)


def test_columns_are_in_the_same_order_whatever_the_hash_seed() -> None:
    first, second = columns_with_seed("1"), columns_with_seed("2")
    assert set(first) == {str(p) for p in LOGS}
    assert first == second
