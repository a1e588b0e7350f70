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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from perfx.logs.registry import ENTITIES

from . import special
from .cli import user_error_types

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
        self.console = console or Console()
        self.log = None
        self.last = None
        """The last answer, for ``\\culprits``."""
        self.options: dict[str, Any] = {
            "width": None,
            "despite_width": None,
            "sample": 2000,
            "seed": 0,
            "method": "perfxplain",
            "format": "text",
            "run": None,
            "store": None,
        }
        for key, value in options.items():
            self.set_option(key, value)

    # -- state -----------------------------------------------------------------------------
    def load(self, paths: Sequence[str]) -> None:
        from perfx.questions import load_for_questions

        self.log = load_for_questions(paths, progress=True)
        tasks = len(self.log.tasks)
        skipped = len(self.log.skipped)
        note = f", {skipped} line(s) skipped" if skipped else ""
        self.console.print(f"loaded {tasks} task(s) from {len(paths)} path(s){note}")

    def require_log(self):
        if self.log is None:
            raise ValueError("no log loaded: \\log PATH loads one")
        return self.log

    def set_option(self, key: str, value: Any) -> None:
        if key not in OPTION_TYPES:
            raise ValueError(f"unknown option {key!r}; options: {', '.join(OPTION_TYPES)}")
        if value in (None, "", "none", "None") and key in NULLABLE:
            self.options[key] = None
            return
        try:
            converted = OPTION_TYPES[key](value)
        except (TypeError, ValueError):
            raise ValueError(
                f"option {key} takes a {OPTION_TYPES[key].__name__}, not {value!r}"
            ) from None
        if key == "format" and converted not in ("text", "json"):
            raise ValueError("format is text or json")
        self.options[key] = converted

    def feature_names(self) -> list[str]:
        if self.log is None:
            return []
        return sorted({spec.name for entity in ENTITIES for spec in self.log.features(entity)})

    # -- one input ---------------------------------------------------------------------------
    def execute(self, text: str) -> bool:
        """Run one input; False when the session should end. Errors are printed, not raised."""
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
        except (ValueError, *user_error_types()) as err:
            from rich.text import Text

            self.console.print(
                Text(str(err), style="red")
            )  # text from queries and logs, never markup
        return True

    def explain(self, query: str) -> None:
        from perfx.chain import explain
        from perfx.grammar.parser import parse

        options = {k: v for k, v in self.options.items() if k != "format"}
        suffix = RUN_SUFFIX.search(query)
        if suffix:
            query = query[: suffix.start()]
            options["run"], options["store"] = suffix["run"], suffix["store"] or options["store"]
        if self.log is None:
            parse(query)  # syntax errors show even before a log is loaded
        # the text, not a parsed query: the engine checks its feature names against the log
        explanation = explain(self.require_log(), query, **options)
        self.last = explanation
        if self.options["format"] == "json":
            self.console.print_json(json.dumps(explanation.to_dict()))
        else:
            self.console.print(explanation)


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
    prompt = PromptSession(
        history=FileHistory(str(path)),
        completer=PxqlCompleter(session.feature_names, special.names),
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
