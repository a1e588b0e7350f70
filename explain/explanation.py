"""The result of an explanation request, shared by PerfXplain and the baselines.

An ``Explanation`` is plain data (what the engine found and its figures) plus three views of
it: ``to_dict`` (the stable JSON form of ``perfx explain --format json``), ``render_text``
(reads like the paper: "Despite ..., task 33 was slower most likely because ...", with a
figures table) and ``_repr_html_`` for notebooks.
"""

from __future__ import annotations

import html
import io
import math
from dataclasses import dataclass, field
from typing import Literal

from perfx.grammar.ast import Atom, Predicate, Query
from perfx.grammar.printer import atom_to_pxql, predicate_to_pxql

from . import wording
from .attempts import NOT_A_RUN
from .gap import NOTHING_STANDS_OUT, Gap

ClauseKind = Literal["despite", "because"]


def format_atom(atom: Atom) -> str:
    """``feature pair_op op value`` in the paper's style (the grammar's canonical printer)."""
    return atom_to_pxql(atom)


def format_conjunction(atoms) -> str:
    return predicate_to_pxql(Predicate(tuple(atoms))) or "true"


@dataclass(frozen=True)
class Step:
    """One predicate of a clause with the clause's figures *up to and including* it.

    ``score`` is relevance for a DESPITE step and precision for a BECAUSE step; both figures
    are cumulative over the clause so far (the paper orders by marginal contribution)."""

    atom: Atom
    kind: ClauseKind
    score: float
    generality: float

    @property
    def predicate(self) -> str:
        return format_atom(self.atom)

    def to_dict(self) -> dict:
        name = "relevance" if self.kind == "despite" else "precision"
        return {
            "predicate": self.predicate,
            name: _num(self.score),
            "generality": _num(self.generality),
        }


@dataclass(frozen=True)
class Metrics:
    """Figures of a whole explanation (section 3.3), estimated over the related pairs.

    ``related_pairs`` is exact when ``related_exact`` (all candidate pairs were checked),
    otherwise estimated from a uniform sample of candidate pairs; ``sampled`` is the size of
    the balanced training sample; ``observed``/``expected`` count its two labels."""

    relevance: float
    precision: float
    generality: float
    related_pairs: int
    sampled: int
    observed: int
    expected: int
    related_exact: bool = True

    def to_dict(self) -> dict:
        return {
            "relevance": _num(self.relevance),
            "precision": _num(self.precision),
            "generality": _num(self.generality),
            "related_pairs": int(self.related_pairs),
            "related_pairs_exact": bool(self.related_exact),
            "sampled": int(self.sampled),
            "observed": int(self.observed),
            "expected": int(self.expected),
        }


def _plain(value: object) -> object:
    """A JSON value: numpy scalars as Python ones, NaN as None, anything else as text."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value if isinstance(value, (int, float, str, bool)) or value is None else str(value)


_VERBS = {"GT": "slower than", "LT": "faster than", "SIM": "about as fast as"}


@dataclass
class Explanation:
    """An answer to one PXQL query: (des′, bec) for the pair of interest, with figures.

    ``query`` is the canonical PXQL of the query actually answered (reference picked,
    placeholders bound); ``despite`` holds only the *generated* extension des′ (the user's own
    DESPITE is in the query); ``notes`` say what perfx decided on the user's behalf."""

    query: str
    entity: str
    pair: tuple[str, str]
    despite: list[Step]
    because: list[Step]
    metrics: Metrics
    notes: list[str] = field(default_factory=list)
    method: str = "perfxplain"
    query_ast: Query | None = field(default=None, repr=False, compare=False)
    gap: Gap | None = None
    """The pair's duration gap split into its parts, with its diagnosis (``explain.gap``)."""
    values: dict[str, wording.PairValues] = field(default_factory=dict)
    """Each clause feature's value for the two executions, for sentences with numbers."""
    culprits: dict | None = None
    """The input records inside the first task's partition that cost the time, from a traced
    run (linked by the front, see ``perfx/chain.py``): ``run``, ``partition``, ``traced_task_ms``
    and ``records``."""

    @property
    def despite_atoms(self) -> tuple[Atom, ...]:
        return tuple(s.atom for s in self.despite)

    @property
    def because_atoms(self) -> tuple[Atom, ...]:
        return tuple(s.atom for s in self.because)

    def to_dict(self) -> dict:
        return {
            "sentence": self.sentence(),
            "quoted": self.quoted(),
            "query": self.query,
            "method": self.method,
            "entity": self.entity,
            "pair": list(self.pair),
            "despite": [s.to_dict() for s in self.despite],
            "because": [s.to_dict() for s in self.because],
            "metrics": self.metrics.to_dict(),
            "gap": self.gap.to_dict() if self.gap is not None else None,
            "culprits": self.culprits,
            "notes": list(self.notes),
        }

    def quoted(self) -> dict[str, dict]:
        """Every value the sentence quotes: each DESPITE and BECAUSE feature's value for the
        first and the second execution, with its unit (JSON users need not parse the
        sentence)."""
        user = tuple(self.query_ast.despite.atoms) if self.query_ast is not None else ()
        atoms = (*user, *self.despite_atoms, *self.because_atoms)
        out: dict[str, dict] = {}
        for atom in atoms:
            values = self.values.get(atom.feature)
            if values is not None and atom.feature not in out:
                out[atom.feature] = {
                    "first": _plain(values.first),
                    "second": _plain(values.second),
                    "unit": values.unit,
                }
        return out

    def sentence(self) -> str:
        """The explanation as one sentence, in the paper's words."""
        first, second = self.pair
        user_despite = tuple(self.query_ast.despite.atoms) if self.query_ast is not None else ()
        despite = user_despite + self.despite_atoms
        verb = self._verb()
        head = (
            f"Despite {wording.join([wording.despite_phrase(a, self.values.get(a.feature)) for a in despite])}, "
            if despite
            else ""
        )
        subject = f"{self.entity} {first} was {verb} {self.entity} {second}"
        if not self.because:
            return f"{head}{subject}; no predicate separates the pairs that behaved as observed from the others."
        reasons = wording.join(
            [wording.because_phrase(a, self.values.get(a.feature)) for a in self.because_atoms]
        )
        diagnosis = self.gap.diagnosis if self.gap is not None else None
        # Where the gap's own figures name no cause (a failed or speculative attempt's time is
        # no run of its records; a gap within what its work varies by is noise), the
        # history's pattern is no cause either, and said as one it contradicted the
        # diagnosis under it (probes: "most likely because its executor id was 8 against 9"
        # over a lost executor; "... its shuffle read bytes were higher" over "no cause
        # stands out").
        instead = (
            diagnosis.detail
            if diagnosis is not None and diagnosis.name in NOT_A_RUN
            else "no cause stands out: the gap lies within what the same work varies by"
            if diagnosis is not None and diagnosis.name == NOTHING_STANDS_OUT
            else None
        )
        if instead is not None:
            return (
                f"{head}{subject}, but {instead}. The closest pattern in the log's history: "
                f"{reasons}."
            )
        return f"{head}{subject}, most likely because {reasons}."

    def gap_lines(self) -> list[str]:
        """``gap: 2.43 s slower: compute +2.21 s (...)`` and ``diagnosis: ...`` lines."""
        if self.gap is None:
            return []
        lines = [f"gap: {self.gap.line()}"]
        diagnosis = self.gap.diagnosis
        if diagnosis is not None:
            lines.append(f"diagnosis: {diagnosis.name}: {diagnosis.detail}")
            if diagnosis.next_step and self.culprits is None:
                lines.append(f"next step: {diagnosis.next_step}")
        return lines + self.culprit_lines()

    def culprit_lines(self) -> list[str]:
        """``culprits in task 4's partition 2 (run R): ...`` and one line per record."""
        if self.culprits is None:
            return []
        c = self.culprits
        traced = (
            f", traced {c['traced_task_ms']:,.0f} ms" if c.get("traced_task_ms") is not None else ""
        )
        lines = [
            f"culprits in {self.entity} {c['task']}'s partition {c['partition']} (run {c['run']}, "
            f"traced stage {c['traced_stage']}{traced}; linked by {c['rule']}):"
        ]
        if not c["records"]:
            lines.append("  no input record of that partition has a measurable impact")
        if c.get("keys"):
            lines.append(f"heavy keys of partition {c['partition']} (records it combined per key):")
            lines += [
                f"  {rank}. {k['key']}: {k['records']:,} records ({k['share'] * 100:.0f} % of the partition's)"
                for rank, k in enumerate(c["keys"], 1)
            ]
            lines.append("records of the partition by impact:")
        for rank, r in enumerate(c["records"], 1):
            share = (
                f" ({r['share'] * 100:.0f} % of the task's traced time)"
                if r.get("share") is not None
                else ""
            )
            lines.append(
                f"  {rank}. {r['location']}: impact {r['impact_ms']:,.0f} ms{share}; {r['excerpt']}"
            )
        return lines

    def _verb(self) -> str:
        """ "slower than" for OBSERVED duration compare = GT etc.; a generic verb otherwise."""
        if self.query_ast is not None:
            for atom in self.query_ast.observed.atoms:
                if (
                    atom.feature.lower() == "duration"
                    and atom.pair_op == "compare"
                    and atom.op == "="
                ):
                    return _VERBS.get(getattr(atom.value, "value", ""), "different from")
            if self.query_ast.observed.atoms:
                return f"({format_conjunction(self.query_ast.observed.atoms)}) compared with"
        return "different from"

    def _figures_table(self):
        from rich.table import Table

        table = Table(title="figures (cumulative)", show_lines=False)
        for col in ("clause", "predicate", "relevance", "precision", "generality"):
            table.add_column(
                col, justify="right" if col in ("relevance", "precision", "generality") else "left"
            )
        from rich.text import Text

        for s in self.despite:
            table.add_row(
                "DESPITE",
                Text(wording.printable(s.predicate)),
                f"{s.score:.2f}",
                "",
                f"{s.generality:.2f}",
            )
        for s in self.because:
            table.add_row(
                "BECAUSE",
                Text(wording.printable(s.predicate)),
                "",
                f"{s.score:.2f}",
                f"{s.generality:.2f}",
            )
        m = self.metrics
        table.add_row(
            "overall",
            "",
            f"{m.relevance:.2f}",
            f"{m.precision:.2f}",
            f"{m.generality:.2f}",
            style="bold",
        )
        return table

    def _footer(self) -> list[str]:
        m = self.metrics
        related = f"{m.related_pairs:,}" + ("" if m.related_exact else " (estimated)")
        lines = [
            f"related pairs: {related}; sampled {m.sampled:,} ({m.observed:,} observed, {m.expected:,} expected); method: {self.method}",
        ]
        lines += [f"note: {n}" for n in self.notes]
        return lines

    def __rich_console__(self, console, options):
        from rich.text import Text

        # Text, never markup: sentences carry values from the log and the query.
        yield Text(wording.printable(self.sentence()))
        yield from (Text(wording.printable(line)) for line in self.gap_lines())
        yield Text("")
        yield self._figures_table()
        yield from (Text(wording.printable(line)) for line in self._footer())

    def render_text(self, width: int = 100) -> str:
        """The explanation sentence, the figures table and the notes, as plain text."""
        from rich.console import Console

        buffer = io.StringIO()
        Console(file=buffer, width=width, color_system=None, force_terminal=False).print(self)
        return wording.printable(buffer.getvalue())

    def __str__(self) -> str:
        return self.render_text()

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{kind}</td><td><code>{html.escape(s.predicate)}</code></td>"
            f"<td>{_cell(s.score if kind == 'DESPITE' else None)}</td>"
            f"<td>{_cell(s.score if kind == 'BECAUSE' else None)}</td><td>{_cell(s.generality)}</td></tr>"
            for kind, steps in (("DESPITE", self.despite), ("BECAUSE", self.because))
            for s in steps
        )
        m = self.metrics
        rows += (
            f"<tr><th>overall</th><td></td><th>{_cell(m.relevance)}</th><th>{_cell(m.precision)}</th>"
            f"<th>{_cell(m.generality)}</th></tr>"
        )
        footer = "".join(
            f"<li>{html.escape(line)}</li>" for line in self.gap_lines() + self._footer()
        )
        return (
            f"<div><p>{html.escape(self.sentence())}</p>"
            "<table><tr><th>clause</th><th>predicate</th><th>relevance</th><th>precision</th>"
            f"<th>generality</th></tr>{rows}</table><ul>{footer}</ul></div>"
        )


def _num(x: float) -> float | None:
    """JSON-safe figure: NaN (no pair to measure on) becomes null."""
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 4)


def _cell(x: float | None) -> str:
    return "" if x is None or math.isnan(x) else f"{x:.2f}"
