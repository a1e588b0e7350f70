"""The duration gap of a pair, split into its parts: exact sums, the LMDI volume/cost split,
the line the answer prints and the diagnosis it names."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from perfx.explain.columns import columns_for
from perfx.explain.gap import decompose
from perfx.grammar.units import format_ms
from perfx.logs.model import Log

from .handmade import make_log

BASE = {
    "scheduler_delay": 5.0,
    "deserialize_time": 10.0,
    "result_serialization_time": 1.0,
    "getting_result_time": 0.0,
    "shuffle_fetch_wait_time": 0.0,
    "shuffle_write_time": 2.0,
    "gc_time": 20.0,
}


def _task(compute: float, records: float, **parts) -> dict:
    row = {**BASE, **parts}
    run = compute + row["gc_time"] + row["shuffle_fetch_wait_time"] + row["shuffle_write_time"]
    row.update(
        executor_run_time=run,
        records_in=records,
        bytes_in=records * 100.0,
        input_records=records,
        shuffle_read_records=0.0,
        memory_bytes_spilled=row.get("memory_bytes_spilled", 0.0),
        first_task_on_executor=row.get("first_task_on_executor", "F"),
    )
    row["duration"] = (
        run
        + row["scheduler_delay"]
        + row["deserialize_time"]
        + row["result_serialization_time"]
        + row["getting_result_time"]
    )
    return row


def _gap(slow: dict, fast: dict):
    frame = pd.DataFrame([slow, fast]).assign(id=["a", "b"])
    return decompose(columns_for(make_log(frame), "task"), 0, 1)


def test_the_parts_add_up_to_the_duration_gap_and_compute_is_the_rest_of_run_time():
    gap = _gap(_task(2000, 1000, gc_time=150.0, shuffle_fetch_wait_time=40.0), _task(400, 1000))
    parts = {p.name: p.delta for p in gap.parts}
    assert sum(parts.values()) == pytest.approx(gap.total)
    assert parts == pytest.approx(
        {
            "scheduler_delay": 0,
            "task_deserialization": 0,
            "gc": 130,
            "shuffle_read": 40,
            "shuffle_write": 0,
            "result_serialization": 0,
            "getting_result": 0,
            "compute": 1600,
        }
    )
    assert sum(gap.shares.values()) == pytest.approx(1.0)


def test_compute_splits_into_volume_and_cost_by_the_logarithmic_mean():
    """12x the records at 1.1x the time per record: ln 12 / ln 13.2 of the compute gap is volume."""
    gap = _gap(_task(1000 * 12 * 1.1, 12_000), _task(1000, 1000))
    split = gap.split
    assert (split.volume_ratio, split.cost_ratio) == (pytest.approx(12.0), pytest.approx(1.1))
    compute = next(p for p in gap.parts if p.name == "compute")
    assert split.volume_ms / compute.delta == pytest.approx(math.log(12) / math.log(13.2))
    assert split.volume_ms + split.cost_ms == pytest.approx(compute.delta)
    assert gap.diagnosis.name == "data skew" and "12.0x the records" in gap.diagnosis.detail
    assert (
        gap.line()
        == "12.20 s slower: compute +12.20 s (12.0x the records: 96 %; 1.1x the time per record: 4 %; "
        "no cost model of its stage: records only)"
    )


def test_the_same_records_at_a_higher_cost_is_computation_skew_with_isolation_next():
    gap = _gap(_task(5000, 1000), _task(500, 1000))
    assert gap.share("cost") == pytest.approx(1.0) and gap.share("volume") == 0
    assert gap.diagnosis.name == "computation skew" and gap.diagnosis.next_step.startswith(
        "perfx isolate "
    )


@pytest.mark.parametrize(
    "slow, name",
    [
        (_task(500, 1000, gc_time=1210.0), "GC pressure"),
        (_task(500, 1000, shuffle_fetch_wait_time=900.0), "shuffle fetch wait"),
        (_task(500, 1000, scheduler_delay=900.0), "scheduler delay"),
        (_task(3000, 1000, memory_bytes_spilled=2e9), "spill"),
        (_task(3000, 1000, first_task_on_executor="T"), "cold start"),
    ],
)
def test_the_largest_part_names_the_diagnosis(slow, name):
    assert _gap(slow, _task(500, 1000)).diagnosis.name == name


def test_a_faster_first_execution_has_a_negative_gap_and_no_diagnosis():
    gap = _gap(_task(500, 1000), _task(5000, 1000))
    assert gap.total < 0 and gap.line().startswith("4.50 s faster: compute -4.50 s")
    assert gap.diagnosis is None and gap.share("cost") == pytest.approx(1.0)


def test_stages_split_their_task_time_from_the_sums_of_their_tasks_parts():
    frame = pd.DataFrame(
        {
            "id": ["s1", "s2"],
            "duration": [900.0, 300.0],
            "duration_sum": [4000.0, 1000.0],
            "gc_time_sum": [1500.0, 100.0],
            "records_in_sum": [10_000.0, 10_000.0],
        }
    )
    log = make_log(pd.DataFrame({"id": ["t"]}))
    gap = decompose(
        columns_for(Log(tasks=log.tasks, stages=frame, registry=log.registry), "stage"), 0, 1
    )
    assert gap.basis == "task time" and gap.total == 3000
    assert {p.name: p.delta for p in gap.parts} == {"gc": 1400, "compute": 1600}
    assert gap.line().startswith(
        "3.00 s slower in task time: compute +1.60 s (1.0x the records: 0 %"
    )


def test_no_duration_no_gap():
    frame = pd.DataFrame({"id": ["a", "b"], "gc_time": [1.0, 2.0]})
    assert decompose(columns_for(make_log(frame), "task"), 0, 1) is None


@pytest.mark.parametrize("ms, text", [(730, "730 ms"), (2430, "2.43 s"), (192_000, "3.2 min")])
def test_durations_read_as_a_person_writes_them(ms, text):
    assert format_ms(ms) == text


def test_the_jsons_compute_share_is_its_volumes_and_costs_where_they_split_it():
    """Split by the stage's cost model, compute's own share is held by its volumes and cost:
    the JSON gave compute a share of 0 where the text said it carried 78 % (a probe of the
    CLI). The shares of the parts that grew add up to one."""
    from perfx.session import open as open_session
    from tests.data_files import fixture_log

    session = open_session([str(fixture_log("spark-events/local-1430917381534"))])
    gap = session.explain("WHY TASK 0 SLOWER THAN TASK 90").to_dict()["gap"]
    assert gap["cost_model"] is not None or gap["compute_split"] is not None
    parts = {p["part"]: p for p in gap["parts"]}
    assert parts["compute"]["delta_ms"] > 0 and parts["compute"]["share"] > 0.5
    grew = [p["share"] for p in gap["parts"] if p["delta_ms"] > 0]
    assert sum(grew) == pytest.approx(1.0, abs=1e-3)
