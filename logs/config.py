"""The applications' Spark configuration as features: the ``spark.*`` settings whose values
differ between the loaded applications (a setting every app shares explains nothing).

``spark.executor.memory`` becomes ``spark_executor_memory``. A setting is numeric when every
value parses as a number or a size (``4g`` -> bytes), else nominal. Settings that only name
a run (ids, ports, hosts, directories, start times) are left out: they differ between any two
runs and would be spurious explanations.
"""

from __future__ import annotations

import re

import pandas as pd

from .registry import FeatureSpec, spec

NAMING_SETTINGS = re.compile(
    r"(\.id$|\.ids?\.|port$|host$|address|uri$|url$|dir$|\.path$|outputdir|starttime|submittime|"
    r"appattempt|\.name$|\.amfilter\.|proxy|secret|password|token|keytab|principal|log\.dir|tags$)",
    re.IGNORECASE,
)
SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?\s*$", re.IGNORECASE)
SIZE_FACTOR = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}


def column_name(key: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", key.lower()).strip("_")


def _number(value: str) -> tuple[float, bool] | None:
    """(value, is a size) if the setting parses as a plain number or a size, else None."""
    try:
        return float(value), False
    except ValueError:
        pass
    match = SIZE.match(value)
    if match and match.group(2):
        return float(match.group(1)) * SIZE_FACTOR[match.group(2).lower()], True
    return None


def varying_settings(
    properties: dict[str, dict[str, str]],
) -> tuple[pd.DataFrame, list[FeatureSpec]]:
    """For app key -> its Spark properties: a frame indexed by app key with one column per
    varying setting, and the settings' specs."""
    keys = sorted({k for props in properties.values() for k in props if k.startswith("spark.")})
    columns: dict[str, list] = {}
    specs: list[FeatureSpec] = []
    apps = list(properties)
    for key in keys:
        if NAMING_SETTINGS.search(key):
            continue
        values = [properties[app].get(key) for app in apps]
        if len(set(values)) < 2:
            continue
        name = column_name(key)
        parsed = [_number(v) if v is not None else (None, False) for v in values]
        numbers = [p for p in parsed if p is not None]
        if len(numbers) == len(parsed):
            is_size = any(size for _, size in numbers)
            columns[name] = [number for number, _ in numbers]
            specs.append(
                spec(
                    name,
                    "numeric",
                    "bytes" if is_size else "none",
                    "feature",
                    f"Spark setting {key} (differs between the loaded apps).",
                    key,
                    context=True,
                )
            )
        else:
            columns[name] = [v if v is not None else "" for v in values]
            specs.append(
                spec(
                    name,
                    "nominal",
                    "none",
                    "feature",
                    f"Spark setting {key} (differs between the loaded apps).",
                    key,
                    context=True,
                )
            )
    return pd.DataFrame(columns, index=pd.Index(apps, name="app_key")), specs
