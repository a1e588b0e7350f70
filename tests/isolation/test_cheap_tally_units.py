"""``udf.CheapTally`` without Spark: a worker's cheap row-UDF calls counted per task in a
memory-mapped file that another process reads while the worker lives."""

from __future__ import annotations

from pathlib import Path

from perfx.isolation.udf import CheapTally


def test_tallies_read_back_per_task_while_the_worker_still_holds_them(tmp_path: Path):
    tally = CheapTally(str(tmp_path), "only_a")
    tally.add((3, 0, 0), 1_000)
    tally.add((3, 0, 0), 2_500)
    tally.add((3, 1, 1), 700)
    assert sorted(CheapTally.read(tmp_path)) == [
        ["only_a", 3, 0, 0, 3_500, 2, "", None, None],
        ["only_a", 3, 1, 1, 700, 1, "", None, None],
    ]


def test_a_tally_grows_past_its_first_slots(tmp_path: Path):
    tally = CheapTally(str(tmp_path), "f")
    tasks = CheapTally.SLOTS * 2 + 5
    for partition in range(tasks):
        tally.add((1, partition, 0), partition + 1)
    tally.add((1, 0, 0), 10)
    rows = {row[2]: row for row in CheapTally.read(tmp_path)}
    assert len(rows) == tasks
    assert rows[0][4:6] == [11, 2] and rows[tasks - 1][4:6] == [tasks, 1]
