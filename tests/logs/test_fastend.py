"""The TaskEnd fast path (logs.eventlog.fastend) gives exactly the tables of the orjson path
on every shared log and on pyspark-free synthetic variants of its layouts, and it is taken
for the usual layouts of Spark 2.x-4.x."""

from __future__ import annotations

import orjson
import pandas as pd
import pytest

from perfx.logs.eventlog import build, events, fastend
from perfx.logs.loader import load_log
from tests.data_files import DATA, fixture_log

from .test_each_file import NOT_LOGS, every_file

LOGS = [p for p in every_file() if p.name not in NOT_LOGS and not p.name.startswith("appstatus_")]
TEMPLATE = fixture_log("spark-events/app-20200706201101-0003")


def load_without_fast_path(path, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(build.fastend, "read", lambda line: None)
        return load_log(path)


@pytest.mark.slow
@pytest.mark.parametrize("path", LOGS, ids=lambda p: str(p.relative_to(DATA)))
def test_fast_path_tables_equal_orjson_tables(path, monkeypatch) -> None:
    fast, slow = load_log(path), load_without_fast_path(path, monkeypatch)
    for entity in ("task", "stage", "job", "app"):
        pd.testing.assert_frame_equal(
            fast.table(entity), slow.table(entity), check_exact=True, obj=entity
        )
    assert fast.skipped == slow.skipped


def task_end_lines(path=TEMPLATE) -> list[bytes]:
    return [
        line
        for line in path.read_bytes().splitlines(keepends=True)
        if line.startswith(b'{"Event":"SparkListenerTaskEnd"')
    ]


def test_usual_layouts_take_the_fast_path() -> None:
    for name in (
        "app-20200706201101-0003",
        "application_1578436911597_0052",
        "local-1642039451826",
        "app-20180109111548-0000",
    ):
        lines = task_end_lines(fixture_log("spark-events") / name)
        successes = [
            line
            for line in lines
            if b'"Task End Reason":{"Reason":"Success"}' in line and b'"Updated Blocks":[]' in line
        ]
        assert successes and all(fastend.read(line) is not None for line in successes), name


@pytest.mark.parametrize(
    "change",
    [
        (b'"Finish Time":', b'"Finish Time":1.5e3,"X":'),  # not an integer
        (b'"Reason":"Success"', b'"Reason":"TaskKilled"'),
        (b'"Failed":false', b'"Failed":true'),
        (b'"Finish Time":', b'"Finish Time":0,"X":'),
    ],
)
def test_other_lines_leave_the_fast_path(change) -> None:
    line = task_end_lines()[0]
    assert fastend.read(line) is not None
    assert fastend.read(line.replace(*change, 1)) is None


def test_escaped_strings_are_decoded_like_orjson() -> None:
    line = task_end_lines()[0].replace(b'"Host":"', b'"Host":"a\\"b', 1)
    assert fastend.read(line) == events.task_end(orjson.loads(line))


def test_truncated_line_leaves_the_fast_path() -> None:
    line = task_end_lines()[0]
    for cut in (len(line) - 2, len(line) - 3, len(line) // 2):
        assert fastend.read(line[:cut]) is None


SPARK4_TASK_END = (
    b'{"Event":"SparkListenerTaskEnd","Stage ID":1,"Stage Attempt ID":0,"Task Type":"ResultTask","Task'
    b' End Reason":{"Reason":"Success"},"Task Info":{"Task ID":6,"Index":2,"Attempt":0,"Partition ID":'
    b'2,"Launch Time":1795320088534,"Executor ID":"driver","Host":"192.0.2.2","Locality":"NODE_LOCAL",'
    b'"Speculative":false,"Getting Result Time":0,"Finish Time":1795320088647,"Failed":false,"Killed":'
    b'false,"Accumulables":[{"ID":3,"Name":"internal.metrics.executorRunTime","Update":62,"Value":230,'
    b'"Internal":true,"Count Failed Values":true}]},"Task Executor Metrics":{"JVMHeapMemory":0,"JVMOff'
    b'HeapMemory":0,"OnHeapExecutionMemory":0,"OffHeapExecutionMemory":0,"OnHeapStorageMemory":0,"OffH'
    b'eapStorageMemory":0,"OnHeapUnifiedMemory":0,"OffHeapUnifiedMemory":0,"DirectPoolMemory":0,"Mappe'
    b'dPoolMemory":0,"ProcessTreeJVMVMemory":0,"ProcessTreeJVMRSSMemory":0,"ProcessTreePythonVMemory":'
    b'0,"ProcessTreePythonRSSMemory":0,"ProcessTreeOtherVMemory":0,"ProcessTreeOtherRSSMemory":0,"Mino'
    b'rGCCount":0,"MinorGCTime":0,"MajorGCCount":0,"MajorGCTime":0,"TotalGCTime":0,"ConcurrentGCCount"'
    b':0,"ConcurrentGCTime":0},"Task Metrics":{"Executor Deserialize Time":4,"Executor Deserialize CPU'
    b' Time":2698857,"Executor Run Time":62,"Executor CPU Time":11850947,"Peak Execution Memory":0,"Pe'
    b'ak On Heap Execution Memory":0,"Peak Off Heap Execution Memory":0,"Result Size":2811,"JVM GC Tim'
    b'e":17,"Result Serialization Time":20,"Memory Bytes Spilled":0,"Disk Bytes Spilled":0,"Shuffle Re'
    b'ad Metrics":{"Remote Blocks Fetched":0,"Local Blocks Fetched":4,"Fetch Wait Time":0,"Remote Byte'
    b's Read":0,"Remote Bytes Read To Disk":0,"Local Bytes Read":1241,"Total Records Read":12,"Remote '
    b'Requests Duration":0,"Push Based Shuffle":{"Corrupt Merged Block Chunks":0,"Merged Fetch Fallbac'
    b'k Count":0,"Merged Remote Blocks Fetched":0,"Merged Local Blocks Fetched":0,"Merged Remote Chunk'
    b's Fetched":0,"Merged Local Chunks Fetched":0,"Merged Remote Bytes Read":0,"Merged Local Bytes Re'
    b'ad":0,"Merged Remote Requests Duration":0}},"Shuffle Write Metrics":{"Shuffle Bytes Written":0,"'
    b'Shuffle Write Time":0,"Shuffle Records Written":0},"Input Metrics":{"Bytes Read":0,"Records Read'
    b'":0},"Output Metrics":{"Bytes Written":0,"Records Written":0},"Updated Blocks":[]}}'
) + b"\n"
"""A TaskEnd as pyspark 4.0 writes it (accumulables shortened): ``Partition ID``, the peak
on/off-heap memory metrics, ``Remote Requests Duration`` and ``Push Based Shuffle``."""


def test_spark4_layout_takes_the_fast_path_with_the_same_values() -> None:
    assert fastend.read(SPARK4_TASK_END) == events.task_end(orjson.loads(SPARK4_TASK_END))


def test_a_log_rewritten_by_python_json_reads_alike_and_takes_the_fast_path(
    tmp_path, monkeypatch
) -> None:
    """A log a script rewrote with ``json.dumps`` (a space after every colon and comma: an
    anonymised or filtered copy) gives the tables of Spark's own compact layout, and its
    task events take the same fast paths (lines.EVENT_KEYS)."""
    import json

    spaced = tmp_path / TEMPLATE.name
    lines = TEMPLATE.read_bytes().splitlines()
    spaced.write_text("".join(json.dumps(orjson.loads(line)) + "\n" for line in lines))
    assert spaced.read_bytes().startswith(b'{"Event": "')
    taken: list[bool] = []
    read = fastend.read
    monkeypatch.setattr(
        build.fastend, "read", lambda line: taken.append((row := read(line)) is not None) or row
    )
    compact = load_log(TEMPLATE)
    compact_taken, taken[:] = list(taken), []
    rewritten = load_log(spaced)
    for entity in ("task", "stage", "job", "app"):
        pd.testing.assert_frame_equal(
            rewritten.table(entity).drop(columns="source", errors="ignore"),
            compact.table(entity).drop(columns="source", errors="ignore"),
            check_exact=True,
            obj=entity,
        )
    assert rewritten.skipped == compact.skipped == []
    assert taken == compact_taken and sum(taken) == len(task_end_lines())
