"""The features a log offers for one entity kind (``perfx features``, ``\\features``,
``Session.features()``): what users can write in PXQL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.table import Table

from perfx.terminal import safe_text

COLUMNS = ("name", "kind", "unit", "role", "description")


@dataclass(frozen=True)
class FeatureList:
    """Each feature with its kind, unit, role (feature, outcome, symptom, identity) and
    provenance (inputs, the gap parts it accounts for, whether it is context)."""

    entity: str
    rows: list[dict[str, Any]]

    @classmethod
    def of(cls, log: Any, entity: str) -> FeatureList:
        rows = [
            {
                "name": s.name,
                "kind": s.kind,
                "unit": s.unit,
                "role": log.registry.role_of(entity, s),
                "description": s.description,
                "aliases": list(s.aliases),
                "inputs": list(s.inputs),
                "accounts_for": list(s.accounts),
                "context": s.context,
            }
            for s in log.features(entity)
        ]
        return cls(entity, rows)

    @property
    def names(self) -> list[str]:
        return [row["name"] for row in self.rows]

    def to_dict(self) -> dict[str, Any]:
        return {"entity": self.entity, "features": self.rows}

    def __rich__(self) -> Table:
        table = Table(title=f"{self.entity} features ({len(self.rows)})")
        for column in COLUMNS:
            table.add_column(column, overflow="fold")
        for row in self.rows:
            table.add_row(*(safe_text(str(row[c])) for c in COLUMNS))
        return table
