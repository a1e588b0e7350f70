"""The TaskEnd fast path: the values perfx reads from a TaskEnd line, without parsing its JSON.

TaskEnds are most of an event log's bytes and all of its rows, and a TaskEnd of a successful
task is written by Spark 2.x-4.x (Jackson, fields in declaration order) in a handful of
layouts: two precompiled regular expressions, one for the event's head (up to Task Info's
``Accumulables``) and one for its ``Task Metrics`` to the end of the line, capture every
value perfx uses. Building no dicts costs about half of orjson plus field lookups.

Anything else — another layout, a failed or killed task, an escaped string, a number that is
not an integer, a truncated line, a non-empty ``Updated Blocks`` — does not match, and the
caller parses the line with orjson (events.task_end), which stays the reference: both paths
give the same values. The unused middle of the line (accumulator updates, executor metrics)
is not checked: a line broken only there is read rather than skipped.
"""

from __future__ import annotations

import re
from operator import itemgetter
from sys import intern

import numpy as np
import pandas as pd

_INT = rb"(-?\d+)"
_STR = rb'"([^"\\]*)"'
_BOOL = rb"(true|false)"

HEAD = re.compile(
    rb'\{"Event":"SparkListenerTaskEnd","Stage ID":' + _INT + rb',"Stage Attempt ID":' + _INT
    + rb',"Task Type":' + _STR + rb',"Task End Reason":\{"Reason":"Success"\},"Task Info":\{"Task ID":' + _INT
    + rb',"Index":' + _INT + rb',"Attempt":' + _INT + rb',(?:"Partition ID":' + _INT + rb',)?"Launch Time":' + _INT
    + rb',"Executor ID":' + _STR + rb',"Host":' + _STR + rb',"Locality":' + _STR + rb',"Speculative":' + _BOOL
    + rb',"Getting Result Time":' + _INT + rb',"Finish Time":([1-9]\d*),"Failed":false,"Killed":false'
    + rb',"Accumulables":\['
)
"""Groups: stage, stage attempt, task type, task id, index, attempt, partition (optional:
Spark >= 3.3), launch, executor, host, locality, speculative, getting-result, finish. Only a
finished, successful attempt matches: its status is SUCCESS."""

METRICS = re.compile(
    rb',"Task Metrics":\{"Executor Deserialize Time":' + _INT + rb',"Executor Deserialize CPU Time":' + _INT
    + rb',"Executor Run Time":' + _INT + rb',"Executor CPU Time":' + _INT
    + rb',(?:"Peak Execution Memory":' + _INT + rb',)?'
    + rb'(?:"Peak On Heap Execution Memory":-?\d+,"Peak Off Heap Execution Memory":-?\d+,)?"Result Size":' + _INT + rb',"JVM GC Time":' + _INT
    + rb',"Result Serialization Time":' + _INT + rb',"Memory Bytes Spilled":' + _INT + rb',"Disk Bytes Spilled":' + _INT
    + rb',"Shuffle Read Metrics":\{"Remote Blocks Fetched":' + _INT + rb',"Local Blocks Fetched":' + _INT
    + rb',"Fetch Wait Time":' + _INT + rb',(?:"Fetch Backoff Count":-?\d+,)?"Remote Bytes Read":' + _INT
    + rb',(?:"Remote Bytes Read To Disk":' + _INT + rb',)?"Local Bytes Read":' + _INT + rb',"Total Records Read":' + _INT
    + rb'(?:,"Remote Requests Duration":' + _INT + rb')?'
    + rb'(?:,"(?:Shuffle Push Read Metrics|Push Based Shuffle)":\{[^{}]*\})?\}'
    + rb',"Shuffle Write Metrics":\{"Shuffle Bytes Written":' + _INT + rb',"Shuffle Write Time":' + _INT
    + rb',"Shuffle Records Written":' + _INT + rb'\},"Input Metrics":\{"Bytes Read":' + _INT + rb',"Records Read":' + _INT
    + rb'\},"Output Metrics":\{"Bytes Written":' + _INT + rb',"Records Written":' + _INT
    + rb'\}(?:,"Updated Blocks":\[\])?\}\}\s*\Z'
)
"""Groups: the 25 metric values of events.task_metrics, in its order (a metric Spark did not
write yet, such as Peak Execution Memory in 2.x, defaults to 0 as there)."""

TASK_METRICS = b',"Task Metrics":{'
_NUMERIC_HEAD = itemgetter(3, 4, 5, 6, 7, 13, 12, 0, 1)
"""Head groups in events.TASK_NUMERIC order (task id ... stage attempt)."""


def match(line: bytes) -> tuple[tuple[bytes, ...], tuple[bytes, ...]] | None:
    """(head groups, metric groups) of a TaskEnd line in a known layout, else None."""
    head = HEAD.match(line)
    if head is None:
        return None
    at = line.rfind(TASK_METRICS)
    metrics = METRICS.match(line, at) if at > 0 else None
    if metrics is None:
        return None
    return head.groups(b"-1"), metrics.groups(b"0")


def numeric_text(head: tuple[bytes, ...], metrics: tuple[bytes, ...]) -> bytes:
    """The 35 values of events.TASK_NUMERIC as space-separated text, for pandas to parse a
    block of rows at once."""
    return b" ".join(_NUMERIC_HEAD(head)) + b" 1 " + b" ".join(metrics)


RAW_NOMINAL = ("executor_id", "host", "locality", "task_type")
"""The nominal columns nominal_values leaves as bytes."""


def nominal_values(head: tuple[bytes, ...]) -> tuple:
    """The values of events.TASK_NOMINAL, the executor, host, locality and task type still as
    bytes: they are decoded once per distinct value when the table is built (decode_column)."""
    return head[8], head[9], head[10], "T" if head[11] == b"true" else "F", head[2], "SUCCESS", "Success", ""


def decode_column(values: tuple) -> np.ndarray:
    """A nominal column whose values are str or (from the fast path) UTF-8 bytes, as an object
    array of str holding one str object per distinct value."""
    codes, uniques = pd.factorize(np.array(values, dtype=object))
    texts = [intern(u.decode()) if isinstance(u, bytes) else u for u in uniques.tolist()]
    return np.array(texts, dtype=object)[codes]
