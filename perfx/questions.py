"""The log that questions are asked of: the loaded log plus the blocked-time analysis's
straggler cause and time shares as task features, so that an explanation may say "because
its GC share was higher" or "because it was the first task on its executor"."""

from __future__ import annotations

from collections.abc import Sequence


def load_for_questions(
    paths: Sequence[str], *, host_metrics=None, progress: bool = False, query=None, bind=()
):
    """``perfx.load_log`` then ``add_straggler_features``: what explain, batch and the REPL use.

    Given the ``query`` (and its ``bind`` values), a large feature store among ``paths`` is
    read only as far as that question needs (its executions' applications and a sample)."""
    from perfx.explain.blocked.features import add_straggler_features
    from perfx.logs.loader import load_log

    entity, focus = _focus(query, bind) if query is not None else (None, ())
    return add_straggler_features(
        load_log(
            list(paths), host_metrics=host_metrics, progress=progress, focus=focus, entity=entity
        )
    )


def _focus(query: str, bind: Sequence[object]) -> tuple[str | None, tuple[str, ...]]:
    """The entity and ids a query names; none when it does not parse yet (the question's own
    parse reports why, against the loaded log's features)."""
    from perfx.grammar.errors import PxqlError
    from perfx.grammar.parser import parse

    try:
        parsed = parse(query)
        if bind or parsed.placeholders:
            parsed = parsed.bind(*bind)
    except PxqlError:
        return None, ()
    ids = tuple(e.text for e in (parsed.first, parsed.second) if e is not None and e.text)
    return parsed.entity, ids
