"""``perfx.explain(log, query, options)``: from PXQL text to an ``Explanation``.

The engine owns everything that is the same for every method: parsing, binding ``?``
placeholders, resolving ids, picking the reference when the query names only one execution,
and checking the pair of interest against its own clauses. Methods live in ``METHODS``
(explain/methods.py: name -> callable taking a ``Request``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfx.grammar.ast import Query
from perfx.logs.model import Log

from .errors import ExplainError, QueryFault
from .explanation import Explanation
from .methods import METHODS
from .options import ExplainOptions
from .request import Request


def explain(
    log: Log,
    query: str | Query,
    options: ExplainOptions | None = None,
    *,
    bind: Sequence[object] = (),
    **changes: Any,
) -> Explanation:
    """Explain why the query's pair of executions behaved as OBSERVED rather than EXPECTED.

    ``options`` (explain.options: width, despite width, sample, seed, method, level and the
    search's weights; the defaults without it), with ``changes`` to its fields given as
    keywords (``sample=500``). ``width`` defaults to the query's ``WITH WIDTH``, else 3;
    ``despite_width`` (default: the query's ``WITH DESPITE WIDTH``) asks for a generated
    DESPITE extension — one is also generated, up to width 2, when the query has no DESPITE.
    ``bind`` fills the query's ``?`` placeholders."""
    from .reference import resolve_request

    chosen = ExplainOptions.of(options, **changes)
    parsed = _parse(query, log)
    if bind or parsed.placeholders:
        parsed = parsed.bind(*bind)
    try:
        request = resolve_request(log, parsed, chosen.for_query(parsed))
        answer = METHODS[chosen.method](request)
    except QueryFault as err:
        raise _pointed_at(err, parsed) from None
    answer.method = chosen.method
    answer.gap = request.gap
    answer.values = _pair_values(
        request, [*parsed.despite.atoms, *answer.despite_atoms, *answer.because_atoms]
    )
    return answer


def _pointed_at(err: QueryFault, query: Query) -> Exception:
    """A fault of the query's text as a query error with a caret under it (exit 2, as the
    parser's): ``host compare = GT`` was an error of one line and exit 1, where ``host >
    'a'`` had its caret (a probe of the CLI). A fault in no text the user wrote (a
    generated atom, a built query) keeps the error as it is."""
    from perfx.grammar.errors import PxqlError

    if err.span is None or query.source is None:
        return err
    return PxqlError(str(err), span=(err.span.start, err.span.end)).with_source(query.source)


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
    """The query parsed with the log's feature names checked: a text is parsed here; a Query
    parsed before the log was loaded (the command line parses once) has its features checked
    now, as that parse would have with the log's features."""
    from perfx.grammar.checks import check_features
    from perfx.grammar.errors import PxqlError
    from perfx.grammar.parser import parse

    if not isinstance(query, Query):
        return parse(query, features=_spellings(log))
    if query.source is None:  # built, not parsed: its features are checked when resolved
        return query
    try:
        check_features(query, query.source, _spellings(log))
    except PxqlError as err:
        raise err.with_source(query.source) from None
    return query


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
