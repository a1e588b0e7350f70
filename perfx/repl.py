"""``perfx repl``: ask many PXQL questions of one loaded log, interactively.

The session (:class:`ReplSession`) holds the log and the options and runs one input at a time;
it knows nothing of the terminal, so tests drive it directly. :func:`run` wraps it in a
prompt_toolkit prompt with history under the XDG state directory, completion of keywords,
features and ``\\commands``, and multi-line entry: Enter submits once the query is complete
(or is a ``\\command``) and starts a new line while the query is still unfinished.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from perfx.explain.options import ExplainOptions, option_problem
from perfx.logs.registry import ENTITIES
from perfx.terminal import SafeConsole, safe_text, with_note, working

from . import special
from .user_errors import user_error_types

if TYPE_CHECKING:
    from perfx.explain.explanation import Explanation
    from perfx.logs.model import Log

    from .session import Session

EXPLAIN_FIELDS = ("width", "despite_width", "sample", "seed", "method")
"""The explanation options (explain.options) ``\\set`` changes."""
OPTION_TYPES: dict[str, type] = {
    "width": int,
    "despite_width": int,
    "sample": int,
    "seed": int,
    "method": str,
    "format": str,
    "run": str,
    "store": str,
}
TYPE_WORDS: dict[type, str] = {int: "a whole number", str: "text"}
"""How an option's type is said in an error: "takes a whole number", never "takes a int"."""
NULLABLE = {"width", "despite_width", "run", "store"}
"""Options that ``none`` resets (to the query's own WITH WIDTH, no generated DESPITE, no
traced run, the default lineage store)."""

RUN_SUFFIX = re.compile(r"\s--run\s+(?P<run>\S+)(?:\s+--store\s+(?P<store>\S+))?\s*$")
"""``WHY TASK 4 SLOWER --run RUN [--store S]``: one question with a traced run's culprits."""


def history_path() -> Path:
    """``$XDG_STATE_HOME/perfx/history`` (default ``~/.local/state/perfx/history``)."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(state) / "perfx" / "history"


class ReplSession:
    """A loaded log plus explanation options; runs queries and ``\\commands`` one at a time."""

    def __init__(self, console: Console | None = None, **options: Any):
        self.console = console or SafeConsole()
        self.session: Session | None = None
        self.last: Explanation | None = None
        """The last answer, for ``\\culprits``."""
        self._ids: dict[str, tuple[Log, list[tuple[str, str]]]] = {}
        self.options: dict[str, Any] = {
            **{name: ExplainOptions.default(name) for name in EXPLAIN_FIELDS},
            "format": "text",
            "run": None,
            "store": None,
        }
        for key, value in options.items():
            self.set_option(key, value)

    # -- state -----------------------------------------------------------------------------

    def load(self, paths: Sequence[str], **source: Any) -> None:
        """Load ``paths``; ``source``: ``app`` and ``headers`` of a REST API (perfx.open)."""
        from perfx.session import open as open_session

        with self._busy(f"loading {len(paths)} path(s)"):
            self.session = open_session(list(paths), progress=True, **source)
            self.session.log  # noqa: B018 (loaded here, under the busy indicator)
            # what perfx logs says of it: one count of applications, jobs, stages and tasks
            headline = self.session.summary().headline().text
        self.console.print(safe_text(f"loaded {len(paths)} path(s): {headline}"))

    @property
    def log(self) -> Log | None:
        return self.session.log if self.session is not None else None

    def require_session(self) -> Session:
        if self.session is None:
            raise ValueError("no log loaded: \\log PATH loads one")
        return self.session

    def set_option(self, key: str, value: Any) -> None:
        """Set one option, checked now rather than at the next query: an unknown option or
        method, a width below 1 or a run that does not exist is an error and changes nothing."""
        if key not in OPTION_TYPES:
            raise ValueError(f"unknown option {key!r}; options: {', '.join(OPTION_TYPES)}")
        if value in (None, "", "none", "None") and key in NULLABLE:
            self.options[key] = None
            return
        try:
            converted = OPTION_TYPES[key](value)
        except (TypeError, ValueError):
            raise ValueError(
                f"option {key} takes {TYPE_WORDS[OPTION_TYPES[key]]}, not {value!r}"
            ) from None
        check = CHECKS.get(key)
        problem = check(converted, self.options) if check else None
        if problem:
            raise ValueError(f"option {key}: {problem}")
        self.options[key] = converted

    def feature_names(self, entity: str | None = None) -> list[str]:
        """Feature names of the loaded log for ``entity`` (all entities when None)."""
        log = self.log
        if log is None:
            return []
        entities = [entity] if entity in ENTITIES else ENTITIES
        return sorted({spec.name for e in entities for spec in log.features(e)})

    def explain_options(self) -> ExplainOptions:
        """The explanation options ``\\set`` gave, as the explainer takes them."""
        return ExplainOptions.of(**{name: self.options[name] for name in EXPLAIN_FIELDS})

    def entity_ids(self, entity: str) -> list[tuple[str, str]]:
        """``(id, duration)`` of the loaded log's executions of ``entity``, slowest first:
        what completion offers after ``WHY TASK`` (the slow ones are what users ask about)."""
        log = self.log
        if log is None or entity not in ENTITIES:
            return []
        cached = self._ids.get(entity)
        if cached is None or cached[0] is not log:
            from perfx.grammar.units import format_ms

            table = log.table(entity)
            if "id" not in table.columns:
                return []
            if "duration" in table.columns:
                table = table.sort_values("duration", ascending=False, kind="stable")
                metas = [format_ms(float(d)) if d == d else "" for d in table["duration"]]
            else:
                metas = [""] * len(table)
            cached = self._ids[entity] = (log, list(zip(table["id"].astype(str), metas)))
        return cached[1]

    # -- one input ---------------------------------------------------------------------------

    def execute(self, text: str) -> bool:
        """Run one input; False when the session should end. Errors are printed, not raised;
        Ctrl-C cancels the running input and returns to the prompt."""
        text = text.strip().removesuffix(";").strip()
        if not text:
            return True
        try:
            if text.startswith("\\"):
                special.run(self, text)
            else:
                self.explain(text)
        except special.QuitRepl:
            return False
        except KeyboardInterrupt:
            self.console.print(safe_text("cancelled", style="yellow"))
        except self._reported() as err:
            # text from queries and logs, never markup
            self.console.print(safe_text(str(err), style="red"))
        return True

    @staticmethod
    def _reported() -> tuple[type[Exception], ...]:
        """Errors printed as one line, the REPL going on: the user's, and ValueError of
        ``\\commands`` and options."""
        return (ValueError, *user_error_types())

    def explain(self, query: str) -> None:
        from perfx.grammar.parser import parse
        from perfx.logs.model import log_notes

        options = self.explain_options()
        run, store = self.options["run"], self.options["store"]
        suffix = RUN_SUFFIX.search(query)
        if suffix:
            query = query[: suffix.start()]
            run, store = suffix["run"], suffix["store"] or store
        if self.session is None:
            parse(query)  # syntax errors show even before a log is loaded
        session = self.require_session()
        with self._busy("answering"):
            # the text, not a parsed query: the engine checks its feature names against the log
            explanation = session.explain(query, options=options, run=run, store=store)
        self.last = explanation
        note = log_notes(session.log)  # as perfx explain says it: an answer from part of a log
        if self.options["format"] == "json":
            said = explanation.to_dict()
            self.console.print_json(json.dumps({**said, "log_note": note} if note else said))
        else:
            self.console.print(with_note(explanation, note))

    def _busy(self, what: str) -> AbstractContextManager[None]:
        """A spinner once work has run a second (on a terminal; nothing is drawn elsewhere)."""
        return working(f"{what} (Ctrl-C cancels)", self.console)


def _explain_option(name: str) -> Callable[[Any, dict[str, Any]], str | None]:
    return lambda value, _: option_problem(name, value)


def _run_exists(run: str, options: dict[str, Any]) -> str | None:
    from perfx.chain import open_run
    from perfx.isolation.errors import IsolationError

    try:
        open_run(run, options.get("store"))
    except IsolationError as err:
        return str(err)
    return None


CHECKS: dict[str, Callable[[Any, dict[str, Any]], str | None]] = {
    **{name: _explain_option(name) for name in EXPLAIN_FIELDS},
    "format": lambda v, _: None if v in ("text", "json") else "is text or json",
    "run": _run_exists,
}
"""Checks of ``\\set`` values beyond their type: a message when the value is refused."""


def query_is_complete(text: str) -> bool:
    """Should Enter submit ``text``? Yes for ``\\commands``, blank input, a trailing ``;``,
    a query that parses, and a query whose error is not at its end (the user should see it)."""
    from perfx.grammar.errors import PxqlError
    from perfx.grammar.parser import parse

    stripped = text.strip()
    if not stripped or stripped.startswith("\\") or stripped.endswith(";"):
        return True
    try:
        parse(stripped)
    except PxqlError as err:
        start = err.span[0] if err.span else 0
        return start < len(stripped)
    return True


def run(session: ReplSession) -> None:
    """The interactive loop (needs a terminal)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.key_binding import KeyBindings

    from .completer import PxqlCompleter
    from .highlight import PxqlLexer, style

    bindings = KeyBindings()

    @bindings.add("enter")
    def _enter(event) -> None:
        buffer = event.current_buffer
        if query_is_complete(buffer.text):
            buffer.validate_and_handle()
        else:
            buffer.insert_text("\n")

    path = history_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    prompt: PromptSession[str] = PromptSession(
        history=FileHistory(str(path)),
        enable_history_search=True,  # the up arrow finds earlier inputs starting as this one
        completer=PxqlCompleter(session.feature_names, special.names, session.entity_ids),
        lexer=PxqlLexer(),
        style=style(),
        complete_while_typing=True,
        multiline=True,
        key_bindings=bindings,
        prompt_continuation=lambda width, line, soft: "...> ".rjust(width),
    )
    session.console.print(
        "perfx REPL: ask in PXQL (e.g. WHY TASK 33 SLOWER); \\help for commands, Ctrl-D to leave"
    )
    while True:
        try:
            text = prompt.prompt("perfx> ")
        except KeyboardInterrupt:
            continue
        except EOFError:
            break
        if not session.execute(text):
            break
