"""Plain values for JSON: numpy scalars as Python numbers, NaN as None."""

from __future__ import annotations

import math
from typing import Any


def plain(value: Any) -> Any:
    """A JSON-safe scalar: numpy numbers as Python numbers, NaN as None."""
    if hasattr(value, "item"):
        value = value.item()
    return None if isinstance(value, float) and math.isnan(value) else value


def records(frame: Any) -> list[dict[str, Any]]:
    """A DataFrame's rows as JSON-safe dicts."""
    return [{k: plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]
