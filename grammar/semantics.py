"""The checks of a query that need a log (docs/design.md, "PXQL"; the paper's Definition 1).

A PXQL query only makes sense if the pair of interest satisfies DESPITE and OBSERVED, does
not satisfy EXPECTED, and if OBSERVED and EXPECTED exclude each other (obs => not exp).
The grammar cannot evaluate predicates; the explanation engine can. It hands check_pair() a
PairOracle over its log and gets back, on failure, a PxqlError whose caret points at the
clause (or the single atom) at fault in the query text.
"""

from __future__ import annotations

from typing import Protocol

from .ast import Atom, Predicate, Query, Span
from .errors import PxqlError
from .printer import atom_to_pxql


class PairOracle(Protocol):
    """What the engine knows about its log, for one query's pair of interest."""

    def holds(self, predicate: Predicate) -> bool:
        """Whether the pair of interest satisfies ``predicate`` (the empty one always holds)."""
        ...

    def overlap(self, a: Predicate, b: Predicate) -> int:
        """How many pairs of the log satisfy both ``a`` and ``b``."""
        ...


def check_pair(query: Query, oracle: PairOracle) -> None:
    """Raise PxqlError unless the query's pair of interest is one the query can be asked of."""
    pair = _pair_words(query)
    for name, clause in (("DESPITE", query.despite), ("OBSERVED", query.observed)):
        if clause and not oracle.holds(clause):
            culprit = _first_failing_atom(clause, oracle)
            what = f"'{atom_to_pxql(culprit)}'" if culprit is not None else name
            raise _error(
                f"{pair} does not satisfy {name}: {what} is false for it",
                culprit.span if culprit is not None else clause.span,
                query,
            )
    if oracle.holds(query.expected):
        raise _error(
            f"{pair} already satisfies EXPECTED: there is nothing to explain",
            query.expected.span,
            query,
        )
    both = oracle.overlap(query.observed, query.expected)
    if both:
        raise _error(
            f"OBSERVED and EXPECTED overlap: {both} pair(s) of the log satisfy both, so they "
            "cannot tell observed from expected behaviour apart",
            query.expected.span,
            query,
        )


def _first_failing_atom(clause: Predicate, oracle: PairOracle) -> Atom | None:
    """The atom to blame when a conjunction fails: the first that fails on its own."""
    if len(clause) == 1:
        return clause.atoms[0]
    return next((atom for atom in clause if not oracle.holds(Predicate((atom,)))), None)


def _pair_words(query: Query) -> str:
    """``the pair (T1 = 33, T2 = 22)`` for messages."""
    first, second = query.variables
    ids = [f"{first} = {query.first.text or '?'}"]
    if query.second is not None:
        ids.append(f"{second} = {query.second.text or '?'}")
    return f"the pair ({', '.join(ids)})"


def _error(message: str, span: Span | None, query: Query) -> PxqlError:
    err = PxqlError(message, span=(span.start, span.end) if span is not None else None)
    return err.with_source(query.source) if query.source is not None else err
