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
