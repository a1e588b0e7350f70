"""The applications' varying Spark settings become features of every table."""

from __future__ import annotations

import orjson

import perfx
from perfx.logs.config import varying_settings
from tests.data_files import fixture_log

FIXTURE = fixture_log("spark-events/local-1430917381534")


def with_settings(path, app_id: str, settings: dict[str, str]) -> None:
    """A copy of the fixture as another app with some Spark properties set."""
    out = []
    for line in FIXTURE.read_bytes().splitlines():
        event = orjson.loads(line)
        if event["Event"] == "SparkListenerEnvironmentUpdate":
            event["Spark Properties"].update(settings)
        if event["Event"] == "SparkListenerApplicationStart":
            event["App ID"] = app_id
        out.append(orjson.dumps(event))
    path.write_bytes(b"\n".join(out) + b"\n")


def test_varying_settings_become_typed_registered_features(tmp_path) -> None:
    with_settings(
        tmp_path / "a",
        "app-a",
        {"spark.executor.memory": "2g", "spark.serializer": "java", "spark.executor.cores": "2"},
    )
    with_settings(
        tmp_path / "b",
        "app-b",
        {"spark.executor.memory": "4g", "spark.serializer": "kryo", "spark.executor.cores": "2"},
    )
    log = perfx.load_log(tmp_path)
    assert isinstance(log, perfx.Log)
    memory = log.tasks.groupby("app_id")["spark_executor_memory"].first().to_dict()
    assert memory == {"app-a": 2 * 2**30, "app-b": 4 * 2**30}
    spec = log.registry.resolve("task", "spark_executor_memory")
    assert (spec.kind, spec.unit, spec.role) == ("numeric", "bytes", "feature")
    assert log.registry.resolve("job", "spark_serializer").kind == "nominal"
    assert set(log.apps["spark_serializer"]) == {"java", "kryo"}
    for entity in ("task", "stage", "job", "app"):
        columns = set(log.table(entity).columns)
        assert (
            "spark_executor_memory" in columns and "spark_executor_cores" not in columns
        )  # same in both
        assert "spark_app_id" not in columns  # names a run, explains nothing


def test_settings_parse_numbers_and_sizes() -> None:
    frame, specs = varying_settings(
        {
            "a": {
                "spark.a.n": "10",
                "spark.b.size": "512m",
                "spark.c.mixed": "x",
                "spark.driver.port": "1",
            },
            "b": {
                "spark.a.n": "20.5",
                "spark.b.size": "1g",
                "spark.c.mixed": "10",
                "spark.driver.port": "2",
            },
            "c": {"spark.a.n": "10"},
        }
    )
    kinds = {s.name: (s.kind, s.unit) for s in specs}
    assert kinds == {
        "spark_a_n": ("numeric", "none"),
        "spark_b_size": ("numeric", "bytes"),
        "spark_c_mixed": ("nominal", "none"),
    }
    assert frame.loc["b", "spark_b_size"] == 2**30 and frame.loc["c", "spark_c_mixed"] == ""
