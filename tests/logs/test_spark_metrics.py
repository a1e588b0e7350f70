"""Spark's task metrics are spelled once (logs/spark_metrics.py): the readers take their order
from the table, the registry its provenance, the aggregates their list."""

from __future__ import annotations

from perfx.logs import spark_metrics
from perfx.logs.aggregate import TASK_METRICS
from perfx.logs.eventlog.events import NO_METRICS, TASK_NUMERIC, task_metrics
from perfx.logs.feature_tables import SPARK_TASK


def test_the_table_is_in_the_order_the_readers_read():
    groups = [metric.group for metric in spark_metrics.TASK_METRICS]
    order = [spark_metrics.TOP, *spark_metrics.GROUPS]
    assert groups == sorted(groups, key=order.index)
    for group in order:
        recent = [metric.recent for metric in spark_metrics.in_group(group)]
        assert recent == sorted(recent), f"recent fields of {group or 'Task Metrics'} come last"


def test_every_metric_is_a_task_column_and_a_registered_feature_with_its_source():
    assert TASK_NUMERIC[-len(spark_metrics.COLUMNS) :] == spark_metrics.COLUMNS
    assert len(NO_METRICS) == 1 + len(spark_metrics.COLUMNS)
    sources = {spec.name: spec.source for spec in SPARK_TASK}
    for metric in spark_metrics.TASK_METRICS:
        assert sources[metric.column] == metric.source
        assert metric.column in TASK_METRICS


def test_both_readers_agree_field_by_field():
    """The fast path (one lookup per group) and the field-by-field path of old logs read the
    same value for every metric, a recent field missing or not."""
    metrics: dict = {spark_metrics.TOP: {}}
    for number, metric in enumerate(spark_metrics.TASK_METRICS, start=1):
        metrics.setdefault(metric.group, {})[metric.field] = number
    event = {**metrics.pop(spark_metrics.TOP), **metrics}
    expected = (1, *range(1, len(spark_metrics.TASK_METRICS) + 1))
    assert task_metrics(event) == expected
    recent = next(m for m in spark_metrics.TASK_METRICS if m.recent)
    del event[recent.group][recent.field]
    assert task_metrics(event)[1 + spark_metrics.TASK_METRICS.index(recent)] == 0
