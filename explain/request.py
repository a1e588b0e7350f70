"""A validated explanation request: what every method (PerfXplain, the baselines) receives.

The engine turns the user's query into a ``Request`` once — parsed, placeholders bound, ids
resolved to table rows, reference picked, the pair of interest checked against its own
clauses — so that each method only has to search.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from perfx.grammar.ast import Query
from perfx.logs.model import Log

from .options import DEFAULT_WIDTH, ExplainOptions


@dataclass
class Request:
    """``query`` is fully resolved (both ids set); ``first``/``second`` are row positions of
    the pair of interest in ``log.table(query.entity)``; ``options`` are the explanation's,
    their width resolved from the query (``options.width`` is set); ``notes`` collects what the engine
    decided for the user (picked reference, generated DESPITE) and ends up in the answer."""

    log: Log
    query: Query
    first: int
    second: int
    options: ExplainOptions
    notes: list[str] = field(default_factory=list)

    @property
    def width(self) -> int:
        """The BECAUSE clause's width (resolved from the query when the request was built)."""
        return self.options.width or DEFAULT_WIDTH

    @property
    def entity(self) -> str:
        return self.query.entity

    @cached_property
    def gap(self):
        """The pair's duration gap split into its parts (``explain.gap.Gap``), or None."""
        from .columns import columns_for
        from .gap import decompose

        return decompose(columns_for(self.log, self.entity), self.first, self.second)

    @property
    def pair_ids(self) -> tuple[str, str]:
        ids = self.log.table(self.entity)["id"].to_numpy()
        return str(ids[self.first]), str(ids[self.second])
