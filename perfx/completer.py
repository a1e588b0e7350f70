"""prompt_toolkit completions for the REPL, from perfx.suggest's suggestions.

The completer holds only the lists that change while the REPL runs (the loaded log's feature
names, the special commands); what fits where is perfx.suggest's business.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from perfx.grammar.names import completes
from perfx.grammar.printer import id_to_pxql

from .suggest import query_entity, suggest

IDS_SHOWN = 100
"""Ids offered at most for one prefix (a log has 10^5 tasks): the first by the order the
session gives them in, the slowest first."""


class PxqlCompleter(Completer):
    """Completes PXQL keywords, feature names of the loaded log (those of the query's entity,
    once the query names it), ids of the loaded log after ``WHY TASK`` (slowest first, with
    their duration) and ``\\commands``."""

    def __init__(
        self,
        features: Callable[[str | None], Iterable[str]],
        specials: Callable[[], Iterable[str]],
        ids: Callable[[str], Iterable[tuple[str, str]]] = lambda entity: (),
    ):
        self._features = features
        self._specials = specials
        self._ids = ids

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        text = document.text_before_cursor
        word = document.get_word_before_cursor(WORD=True)
        if text.lstrip().startswith("\\"):
            word = text.lstrip()
        for suggestion in suggest(text):
            if suggestion.kind == "id":
                yield from self._id_completions(suggestion.options[0], word)
                continue
            if suggestion.kind == "feature":
                options: Iterable[str] = sorted(self._features(query_entity(text)))
            elif suggestion.kind == "special":
                options = sorted(self._specials())
            else:
                options = suggestion.options
            for option in options:
                if completes(word, option):
                    yield Completion(
                        option, start_position=-len(word), display_meta=suggestion.kind
                    )

    def _id_completions(self, entity: str, word: str) -> Iterator[Completion]:
        """The ids of ``entity`` that start with ``word`` (typed bare or after a quote),
        written as PXQL writes them."""
        typed = word.lstrip("'\"")
        shown = 0
        for text, meta in self._ids(entity):
            if text.startswith(typed):
                yield Completion(id_to_pxql(text), start_position=-len(word), display_meta=meta)
                shown += 1
                if shown == IDS_SHOWN:
                    return
