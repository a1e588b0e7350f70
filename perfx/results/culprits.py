"""A traced run's culprits as JSON: what ``perfx culprits --format json`` and ``perfx isolate
--format json`` print and what assistants get (perfx mcp)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _same(value: Any) -> Any:
    return value


def _ms(value: Any) -> float:
    """A time in ms, to the nanosecond."""
    return round(float(value), 6)


def _ms_or_none(value: Any) -> float | None:
    return None if value is None else _ms(value)


def _share(value: Any) -> float | None:
    return None if value != value else _ms(value)  # NaN: no share (the task's time unknown)


def _line(value: Any) -> int | None:
    return None if value is None or value != value else int(value)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


Fields = tuple[tuple[str, str, Callable[[Any], Any]], ...]
"""(JSON key, the frame's column, how its value is written): one row's JSON spelling."""

OUTPUT_FIELDS: Fields = (
    ("out_id", "out_id", int),
    ("key", "key", _same),
    ("record", "record", _same),
    ("latency_ms", "latency_ms", _ms),
    ("slowest_input", "source", int),
    ("slowest_input_location", "location", _same),
    ("slowest_input_excerpt", "excerpt", _same),
    ("remediated_ms", "remediated_ms", _ms),
)
CULPRIT_FIELDS: Fields = (
    ("id", "source", int),
    ("location", "location", _same),
    ("excerpt", "excerpt", _same),
    ("impact_ms", "impact_ms", _ms),
    ("max_total_ms", "max_total_ms", _ms),
    ("max_remediated_ms", "max_remediated_ms", _ms),
    ("outputs", "outputs", int),
    ("cost_ms", "cost_ms", _ms_or_none),
)
UDF_FIELDS: Fields = (
    ("udf", "udf", _same),
    ("ms", "ms", _ms),
    ("share", "share", _share),
    ("rows", "rows", int),
    ("location", "location", _text),
    ("line", "line", _line),
    ("excerpt", "excerpt", _same),
    ("spark_stage", "spark_stage", int),
    ("partition", "partition", int),
)


def _rows(frame, fields: Fields) -> list[dict]:
    return [
        {key: write(getattr(row, column)) for key, column, write in fields}
        for row in frame.itertuples()
    ]


def outputs_json(frame) -> list[dict]:
    """A traced run's slowest outputs, each with its slowest input record."""
    return _rows(frame, OUTPUT_FIELDS)


def culprits_json(frame) -> list[dict]:
    """Culprit input records, the most impact first."""
    return _rows(frame, CULPRIT_FIELDS)


def udf_culprits_json(frame) -> list[dict] | None:
    """The rows whose Python UDF calls cost the most in the slowest task (None: no UDF)."""
    return None if frame is None else _rows(frame, UDF_FIELDS)


def scope_of(stage: int | None, partition: int | None) -> str:
    return "the final outputs" if stage is None else f"stage {stage} partition {partition}"


def culprits_payload(
    stored, run: str, top: int, stage: int | None = None, partition: int | None = None
) -> dict:
    """``perfx culprits --format json``: the ``top`` culprits of the run's final outputs
    (with the outputs) or of one task's partition, and for a script's run the rows whose
    Python UDF calls cost the most (``udf_culprits``); also what assistants get (perfx mcp)."""
    from perfx.isolation.queries import outputs, top_culprits

    traced = bool(stored.meta.get("outputs"))  # a script may have run no RDD action
    ranked = top_culprits(stored, top, stage=stage, partition=partition) if traced else None
    payload: dict[str, Any] = {
        "run": run,
        "scope": scope_of(stage, partition),
        "culprits": culprits_json(ranked) if ranked is not None else [],
    }
    if stage is None:
        payload["outputs"] = outputs_json(outputs(stored)) if traced else []
        calls = udf_calls_of(stored)
        if calls is not None:
            payload["udf_culprits"] = udf_culprits_json(_top_udf_rows(calls, top))
    return payload


def udf_calls_of(stored):
    """The stored run's Python UDF calls (a script's run), or None."""
    from perfx.isolation.udf import stored_calls

    return stored_calls(stored.store.local_dir(stored.run))


def _top_udf_rows(calls, top: int):
    from perfx.isolation.udf import udf_culprits

    return udf_culprits(calls, top=top)
