"""The loaded log: four canonical entity tables, their feature registry, and what was skipped.

Every other layer (explanations, blocked-time analysis, isolation's task identity) reads a
``Log`` and nothing else, so readers of new formats only have to produce one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .registry import ENTITIES, FeatureRegistry, FeatureSpec, Kind


@dataclass(frozen=True)
class SkippedLine:
    """A line the reader could not use: which file, which line (1-based), and why."""

    path: str
    line: int
    reason: str


@dataclass
class Log:
    """One or more applications' executions as canonical tables.

    Each table has one row per execution, a unique string ``id`` column and ``duration`` in ms.
    MapReduce and EC2-style fixture logs fill only ``jobs`` and ``tasks``."""

    tasks: pd.DataFrame
    stages: pd.DataFrame = field(default_factory=pd.DataFrame)
    jobs: pd.DataFrame = field(default_factory=pd.DataFrame)
    apps: pd.DataFrame = field(default_factory=pd.DataFrame)
    registry: FeatureRegistry = field(default_factory=FeatureRegistry)
    skipped: list[SkippedLine] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def table(self, entity: str) -> pd.DataFrame:
        if entity not in ENTITIES:
            raise ValueError(
                f"unknown entity kind {entity!r}; expected one of {', '.join(ENTITIES)}"
            )
        return {"task": self.tasks, "stage": self.stages, "job": self.jobs, "app": self.apps}[
            entity
        ]

    def features(self, entity: str = "task", kind: Kind | None = None) -> list[FeatureSpec]:
        """Registered features of ``entity`` that are columns of its table."""
        columns = set(self.table(entity).columns)
        return [
            s
            for s in self.registry.specs(entity)
            if s.name in columns and (kind is None or s.kind == kind)
        ]


def merge_logs(logs: list[Log]) -> Log:
    """One Log holding every input's rows; a feature registered by several inputs keeps its
    first spec."""
    if len(logs) == 1:
        return logs[0]
    registry = FeatureRegistry()
    for log in logs:
        for entity in ENTITIES:
            for spec in log.registry.specs(entity):
                if spec.name not in registry.names(entity):
                    registry.register(entity, spec)

    def concat(entity: str) -> pd.DataFrame:
        frames = [log.table(entity) for log in logs if len(log.table(entity).columns)]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    return Log(
        tasks=concat("task"),
        stages=concat("stage"),
        jobs=concat("job"),
        apps=concat("app"),
        registry=registry,
        skipped=[s for log in logs for s in log.skipped],
        sources=[s for log in logs for s in log.sources],
    )
