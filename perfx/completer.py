"""prompt_toolkit completions for the REPL, from perfx.suggest's suggestions.

The completer holds only the lists that change while the REPL runs (the loaded log's feature
names, the special commands); what fits where is perfx.suggest's business.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from perfx.grammar.names import completes

from .suggest import query_entity, suggest


class PxqlCompleter(Completer):
    """Completes PXQL keywords, feature names of the loaded log (those of the query's entity,
    once the query names it) and ``\\commands``."""

    def __init__(
        self,
        features: Callable[[str | None], Iterable[str]],
        specials: Callable[[], Iterable[str]],
    ):
        self._features = features
        self._specials = specials

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        text = document.text_before_cursor
        word = document.get_word_before_cursor(WORD=True)
        if text.lstrip().startswith("\\"):
            word = text.lstrip()
        for suggestion in suggest(text):
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
