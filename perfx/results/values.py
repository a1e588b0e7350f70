"""Plain values for JSON: numpy scalars as Python numbers, NaN as None."""

from __future__ import annotations

import math
from typing import Any


def plain(value: Any) -> Any:
    """A JSON-safe scalar: numpy numbers as Python numbers, NaN as None."""
    if hasattr(value, "item"):
        value = value.item()
    return None if isinstance(value, float) and math.isnan(value) else value


def job_label(job_id: Any) -> str | None:
    """A job's id as a sentence names it (``7``, not ``7.0``), or None where the log lost it:
    a log without the job's start has its stages' job as "", and the headlines read
    "stage 0 (job )" and "Job  has the most at stake" (a probe of damaged logs)."""
    value = plain(job_id)
    if value is None or value == "":
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def records(frame: Any) -> list[dict[str, Any]]:
    """A DataFrame's rows as JSON-safe dicts."""
    return [{k: plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]
