"""The features a log offers for one entity kind (``perfx features``, ``\\features``,
``Session.features()``): what users can write in PXQL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rich.table import Table

from perfx.terminal import safe_text

from .headline import ROWS, Headline, limited, more

COLUMNS = ("name", "kind", "unit", "role", "description")
ROLES = ("feature", "outcome", "symptom", "identity")


def role_order(pair: tuple[str, int]) -> int:
    """Roles in the order a reader needs them: what explanations propose first."""
    return ROLES.index(pair[0]) if pair[0] in ROLES else len(ROLES)


@dataclass(frozen=True)
class FeatureList:
    """Each feature with its kind, unit, role (feature, outcome, symptom, identity) and
    provenance (inputs, the gap parts it accounts for, whether it is context)."""

    entity: str
    rows: list[dict[str, Any]]
    limit: int | None = ROWS
    """Features the table shows, those explanations may propose first (None: all)."""

    @classmethod
    def of(cls, log: Any, entity: str) -> FeatureList:
        log.held_table(entity)  # a LogError where the log has no such table
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

    def headline(self) -> Headline:
        """How many features of each role, in one paragraph."""
        roles: dict[str, int] = {}
        for row in self.rows:
            roles[row["role"]] = roles.get(row["role"], 0) + 1
        said = ", ".join(f"{n} {role}" for role, n in sorted(roles.items(), key=role_order))
        return Headline(
            f"{len(self.rows)} {self.entity} features ({said}): PXQL may name any of them; "
            "explanations propose only those of role feature.",
            {"entity": self.entity, "features": len(self.rows), "roles": roles},
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.headline().to_dict(),
            "entity": self.entity,
            "features": self.rows,
        }

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        yield self.headline()
        ordered = sorted(self.rows, key=lambda row: role_order((row["role"], 0)))
        shown, hidden = limited(ordered, self.limit)
        table = Table(title=f"{self.entity} features ({len(self.rows)})")
        for column in COLUMNS:
            table.add_column(column, no_wrap=column == "name", overflow="fold")
        for row in shown:
            table.add_row(*(safe_text(str(row[c])) for c in COLUMNS))
        yield table
        if hidden:
            yield more(hidden, "feature", "of the roles listed last")
