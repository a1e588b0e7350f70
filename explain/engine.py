"""``perfx.explain(log, query, **options)``: from PXQL text to an ``Explanation``.

The engine owns everything that is the same for every method: parsing, binding ``?``
placeholders, resolving ids, picking the reference when the query names only one execution,
and checking the pair of interest against its own clauses. Methods live in ``METHODS``
(explain/methods.py: name -> callable taking a ``Request``).
"""

from __future__ import annotations

from collections.abc import Sequence

from perfx.grammar.ast import Query
from perfx.logs.model import Log

from .errors import ExplainError
from .explanation import Explanation
from .methods import METHODS
from .request import Request
from .search import GAP_WEIGHT


def explain(
    log: Log,
    query: str | Query,
    *,
    width: int | None = None,
    despite_width: int | None = None,
    sample: int = 2000,
    seed: int = 0,
    method: str = "perfxplain",
    bind: Sequence[object] = (),
    level: int = 3,
    precision_weight: float = 0.8,
    relevance_threshold: float = 0.9,
    gap_weight: float = GAP_WEIGHT,
) -> Explanation:
    """Explain why the query's pair of executions behaved as OBSERVED rather than EXPECTED.

    ``width`` (default: the query's ``WITH WIDTH``, else 3) bounds the BECAUSE clause;
    ``despite_width`` (default: the query's ``WITH DESPITE WIDTH``) asks for a generated
    DESPITE extension — one is also generated, up to width 2, when the query has no DESPITE.
    ``sample`` is the balanced training-sample size (section 4.3) and ``seed`` makes it
    repeatable. ``level`` selects pair features as in section 6.8 (1: isSame; 2: + compare,
    diff; 3: + base features). ``gap_weight`` weighs the share of the pair's duration gap a
    BECAUSE predicate accounts for against the paper's precision/generality score (0: the
    paper's ranking alone; see ``search.grow``)."""
    if method not in METHODS:
        raise ExplainError(f"unknown method {method!r}; available: {', '.join(sorted(METHODS))}")
    if level not in (1, 2, 3):
        raise ExplainError(f"feature level must be 1, 2 or 3, not {level}")
    if sample < 2:
        raise ExplainError(f"the sample size must be at least 2, not {sample}")
    from .reference import resolve_request

    parsed = _parse(query, log)
    if bind or parsed.placeholders:
        parsed = parsed.bind(*bind)
    request = resolve_request(
        log,
        parsed,
        width=width if width is not None else (parsed.width if parsed.width is not None else 3),
        despite_width=despite_width if despite_width is not None else parsed.despite_width,
        sample=sample,
        seed=seed,
        level=level,
        precision_weight=precision_weight,
        relevance_threshold=relevance_threshold,
        gap_weight=gap_weight,
    )
    answer = METHODS[method](request)
    answer.method = method
    answer.gap = request.gap
    answer.values = _pair_values(
        request, [*parsed.despite.atoms, *answer.despite_atoms, *answer.because_atoms]
    )
    return answer


def _pair_values(request: Request, atoms) -> dict:
    """The two executions' values of each clause feature, with its unit, for the sentence."""
    from .columns import columns_for
    from .wording import PairValues

    cols = columns_for(request.log, request.entity)
    out = {}
    for atom in atoms:
        try:
            spec = cols.spec(atom.feature)
        except ExplainError:
            continue
        column = cols.table[spec.name]
        out[atom.feature] = PairValues(
            column.iat[request.first], column.iat[request.second], spec.unit
        )
    return out


def _parse(query: str | Query, log: Log) -> Query:
    if isinstance(query, Query):
        return query
    from perfx.grammar.parser import parse

    return parse(query, features=_spellings(log))


def _spellings(log: Log) -> dict[str, str | None]:
    """Every feature name and alias the log knows, with its unit, for the parser's
    did-you-mean and its unit check (``gc_time < 128MB`` is a size for a time)."""
    from perfx.logs.registry import ENTITIES

    spellings: dict[str, str | None] = {}
    for entity in ENTITIES:
        for spec in log.registry.specs(entity):
            for name in (spec.name, *spec.aliases):
                spellings.setdefault(name, spec.unit)
        for column in log.table(entity).columns:
            spellings.setdefault(str(column), None)
    return spellings


def known_methods() -> list[str]:
    """The names ``explain(..., method=...)`` accepts, for options checked before a query."""
    return sorted(METHODS)
