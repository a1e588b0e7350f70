"""A traced run's culprits as JSON: what ``perfx culprits --format json`` and ``perfx isolate
--format json`` print and what assistants get (perfx mcp)."""

from __future__ import annotations

from typing import Any


def outputs_json(frame) -> list[dict]:
    return [
        {
            "out_id": int(r.out_id),
            "key": r.key,
            "record": r.record,
            "latency_ms": round(float(r.latency_ms), 6),
            "slowest_input": int(r.source),
            "slowest_input_location": r.location,
            "slowest_input_excerpt": r.excerpt,
            "remediated_ms": round(float(r.remediated_ms), 6),
        }
        for r in frame.itertuples()
    ]


def culprits_json(frame) -> list[dict]:
    return [
        {
            "id": int(r.source),
            "location": r.location,
            "excerpt": r.excerpt,
            "impact_ms": round(float(r.impact_ms), 6),
            "max_total_ms": round(float(r.max_total_ms), 6),
            "max_remediated_ms": round(float(r.max_remediated_ms), 6),
            "outputs": int(r.outputs),
            "cost_ms": None if r.cost_ms is None else round(float(r.cost_ms), 6),
        }
        for r in frame.itertuples()
    ]


def udf_culprits_json(frame) -> list[dict] | None:
    """The rows whose Python UDF calls cost the most in the slowest task (None: no UDF)."""
    if frame is None:
        return None
    return [
        {
            "udf": r.udf,
            "ms": round(float(r.ms), 6),
            "share": None if r.share != r.share else round(float(r.share), 6),
            "rows": int(r.rows),
            "location": r.location if isinstance(r.location, str) else None,
            "line": None if r.line is None or r.line != r.line else int(r.line),
            "excerpt": r.excerpt,
            "spark_stage": int(r.spark_stage),
            "partition": int(r.partition),
        }
        for r in frame.itertuples()
    ]


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
