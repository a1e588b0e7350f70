"""Feature provenance: every derived feature says what it is computed from, and a feature
computed from an outcome is a symptom the explanation search never proposes."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfx.explain.blocked.features import STRAGGLER_SPECS, _share_specs, add_straggler_features
from perfx.logs.aggregate import SPREAD, SUMMED, aggregate_specs
from perfx.logs.feature_tables import SPARK_TASK
from perfx.logs.jhist.tables import JHIST_TASK
from perfx.logs.loader import load_log
from perfx.logs.ousterhout import OUSTERHOUT_TASK
from perfx.logs.registry import ENTITIES, GAP_PARTS, FeatureRegistry
from tests.data_files import public_log

REPO = Path(__file__).resolve().parents[2]
EC2_SAMPLE = REPO / "paper" / "fixtures" / "ec2-seed1-small"

SPARK = (
    SPARK_TASK
    + OUSTERHOUT_TASK
    + STRAGGLER_SPECS
    + _share_specs(["gc_share", "fetch_wait_share", "serialization_share"])
)


def _spark_registry() -> FeatureRegistry:
    registry = FeatureRegistry()
    registry.register_all("task", SPARK)
    names = {s.name for s in SPARK}
    registry.register_all(
        "stage",
        aggregate_specs(
            SPARK,
            {f"{n}_{x}" for n in names for x in ("sum", "mean", "max", "skew")} | {"task_count"},
        ),
    )
    return registry


def _registries() -> list[tuple[str, FeatureRegistry]]:
    """The static tables, and the registries of real loaded logs of other formats."""
    jhist = FeatureRegistry()
    jhist.register_all("task", JHIST_TASK)
    ec2 = add_straggler_features(load_log([EC2_SAMPLE]))
    return [("spark", _spark_registry()), ("jhist", jhist), ("ec2 tabular", ec2.registry)]


@pytest.mark.parametrize(
    "name, registry", _registries(), ids=lambda x: x if isinstance(x, str) else ""
)
def test_every_derived_feature_declares_the_registered_columns_it_is_computed_from(name, registry):
    for entity in ENTITIES:
        for spec in registry.specs(entity):
            if spec.is_derived:
                assert spec.inputs, (
                    f"{name} {entity} feature {spec.name!r} is derived but declares no inputs"
                )
            assert set(spec.accounts) <= set(GAP_PARTS), (spec.name, spec.accounts)


def test_inputs_name_columns_that_exist():
    registry = _spark_registry()
    known = {s.name for s in SPARK} | {"input_read_time", "app_key"}
    for entity in ("task", "stage"):
        for spec in registry.specs(entity):
            for column in spec.inputs:
                owner, _, name = column.rpartition(".")
                assert name in known, (spec.name, column)
                assert owner in ("", "task"), (spec.name, column)


SYMPTOMS = [
    "time_per_record",
    "time_per_mb",
    "gc_fraction",
    "gc_share",
    "fetch_wait_share",
    "serialization_share",
    "straggler",
    "straggler_cause",
    "progress_ratio",
    "concurrent_tasks_host",
    "concurrent_tasks_executor",
    "duration",
    "executor_run_time",
    "finish_time",
]
CAUSES = [
    "compute_time",
    "scheduler_delay",
    "gc_time",
    "shuffle_fetch_wait_time",
    "shuffle_write_time",
    "deserialize_time",
    "getting_result_time",
    "records_in",
    "bytes_in",
    "memory_bytes_spilled",
    "first_task_on_executor",
    "mean_concurrent_tasks_host",
    "wave",
    "input_read_time",
    "blocked_network_time",
]


def test_outcomes_and_what_is_computed_from_them_are_symptoms_but_the_parts_of_the_time_are_not():
    registry = _spark_registry()
    assert [n for n in SYMPTOMS if not registry.is_symptom("task", n)] == []
    assert [n for n in CAUSES if registry.is_symptom("task", n)] == []
    candidates = {s.name for s in registry.candidates("task")}
    assert not candidates & set(SYMPTOMS)
    assert set(CAUSES) <= candidates


def test_aggregates_inherit_their_task_columns_provenance():
    registry = _spark_registry()
    assert registry.is_symptom("stage", "time_per_record_mean") and registry.is_symptom(
        "stage", "duration_sum"
    )
    assert not registry.is_symptom("stage", "gc_time_sum") and not registry.is_symptom(
        "stage", "compute_time_sum"
    )
    assert registry.resolve("stage", "gc_time_sum").accounts == ("gc",)
    assert {"compute_time", "records_in"} <= set(SUMMED) and "time_per_record" in SPREAD


def test_context_is_what_makes_executions_comparable():
    registry = _spark_registry()
    context = {s.name for s in registry.context("task")}
    assert {
        "host",
        "executor_id",
        "stage_key",
        "job_id",
        "input_records",
        "records_in",
        "wave",
        "locality",
    } <= context
    assert not context & {
        "result_size",
        "gc_time",
        "compute_time",
        "straggler_cause",
        "time_per_record",
        "duration",
    }
    ec2 = load_log([EC2_SAMPLE]).registry
    ec2_context = {s.name for s in ec2.context("job")}
    assert {"num_instances", "input_size", "block_size", "pig_script"} <= ec2_context
    assert not any(n.startswith("host_") for n in ec2_context)


def test_perfx_features_shows_symptoms_and_provenance(tmp_path):
    import json as _json

    from click.testing import CliRunner

    from perfx.cli import cli

    log = public_log("groupon__sparklint/spark_event_log_example")
    result = CliRunner().invoke(cli, ["features", "--log", str(log), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in _json.loads(result.output)["features"]}
    assert rows["time_per_record"]["role"] == "symptom" and rows["time_per_record"]["inputs"] == [
        "duration",
        "records_in",
    ]
    assert rows["compute_time"]["role"] == "feature" and rows["compute_time"]["accounts_for"] == [
        "cost"
    ]
    assert rows["host"]["context"] and not rows["gc_time"]["context"]
