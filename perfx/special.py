"""The REPL's backslash commands (``\\log``, ``\\features``, ``\\set``, ...), in a registry.

Each command is a function registered with :func:`special`; the REPL looks commands up here,
``\\help`` lists them, and the completer offers their names. Handlers receive the REPL session
and the rest of the line, and print through the session's console.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.console import Console

from perfx.terminal import page, safe_text, with_note, working

if TYPE_CHECKING:
    from perfx.explain.explanation import Explanation
    from perfx.explain.options import ExplainOptions

    from .session import Session


class ReplSession(Protocol):
    """What a command may use of the REPL's session (perfx.repl.ReplSession): the commands
    know this much of it, and the REPL module knows the commands only through the registry."""

    console: Console
    options: dict[str, Any]
    last: Explanation | None

    def load(self, paths: Sequence[str]) -> None: ...

    def require_session(self) -> Session: ...

    def explain_options(self) -> ExplainOptions: ...

    def set_option(self, key: str, value: Any) -> None: ...


Handler = Callable[["ReplSession", str], None]


class QuitRepl(Exception):
    """Raised by ``\\quit`` to end the session."""


@dataclass(frozen=True)
class SpecialCommand:
    name: str
    usage: str
    description: str
    handler: Handler
    aliases: tuple[str, ...] = ()


REGISTRY: dict[str, SpecialCommand] = {}


def special(
    name: str, usage: str, description: str, aliases: tuple[str, ...] = ()
) -> Callable[[Handler], Handler]:
    """Register the decorated function as the backslash command ``name`` (and its aliases)."""

    def register(handler: Handler) -> Handler:
        command = SpecialCommand(name, usage, description, handler, aliases)
        for key in (name, *aliases):
            REGISTRY[key] = command
        return handler

    return register


def names() -> list[str]:
    """Every spelling a user may type, for completion."""
    return sorted(REGISTRY)


def run(session: ReplSession, line: str) -> None:
    """Run one ``\\command args`` line; an unknown command gets a did-you-mean."""
    word, _, rest = line.strip().partition(" ")
    command = REGISTRY.get(word)
    if command is None:
        from perfx.grammar.names import closest

        close = closest(word, names(), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ValueError(f"unknown command {word}{hint}; \\help lists the commands")
    command.handler(session, rest.strip())


@special("\\help", "\\help", "List these commands.", aliases=("\\?",))
def _help(session: ReplSession, arg: str) -> None:
    from rich.table import Table

    table = Table(title="commands (anything else is a PXQL query)", show_header=True)
    for column in ("command", "usage", "does"):
        table.add_column(column)
    for command in sorted({c.name: c for c in REGISTRY.values()}.values(), key=lambda c: c.name):
        spelled = ", ".join((command.name, *command.aliases))
        table.add_row(spelled, command.usage, command.description)
    session.console.print(table)


@special("\\quit", "\\quit", "Leave the REPL (Ctrl-D does too).", aliases=("\\q",))
def _quit(session: ReplSession, arg: str) -> None:
    raise QuitRepl


@special("\\log", "\\log PATH [PATH ...]", "Load event logs (replacing the loaded ones).")
def _log(session: ReplSession, arg: str) -> None:
    paths = shlex.split(arg)
    if not paths:
        raise ValueError("\\log needs at least one path")
    session.load(paths)


def _all_rows(arg: str, command: str) -> bool:
    """``\\stragglers all``: every row of the tables (the CLI's --all)."""
    if arg not in ("", "all"):
        raise ValueError(f"{command} takes no argument but 'all', not {arg!r}")
    return arg == "all"


def _answer_first(name: str, description: str, answer: Callable[[Session, bool], Any]) -> None:
    """Register ``NAME [all]``: the loaded log's ``answer`` as the CLI prints it, its summary
    first, then the rows with the most at stake (every row with ``all``, the CLI's --all),
    through the pager when taller than the terminal."""

    def show(session: ReplSession, arg: str) -> None:
        from perfx.logs.model import log_notes

        every = _all_rows(arg, name)
        loaded = session.require_session()
        page(with_note(answer(loaded, every), log_notes(loaded.log)), session.console)

    special(name, f"{name} [all]", description)(show)


def _every_row(result: Any, every: bool) -> Any:
    return dataclasses.replace(result, limit=None) if every else result


_answer_first(
    "\\stragglers",
    "The loaded log's stragglers per stage and their causes, as perfx stragglers prints them.",
    lambda loaded, every: _every_row(loaded.stragglers(), every),
)
_answer_first(
    "\\whatif",
    "Job and application times without GC, network, disk, ... or stragglers (perfx whatif).",
    lambda loaded, every: _every_row(loaded.whatif(), every),
)
_answer_first(
    "\\skew",
    "Tasks with computation skew and the traced re-run that names their records (perfx skew).",
    lambda loaded, every: loaded.skew(top=None) if every else loaded.skew(),
)


@special(
    "\\report",
    "\\report PATH",
    "Write the loaded log's HTML report to PATH, as perfx report --out PATH does.",
)
def _report(session: ReplSession, arg: str) -> None:
    from perfx.report import render_report

    if not arg:
        raise ValueError("\\report needs the path of the HTML page to write")
    out = Path(arg).expanduser()
    if not out.parent.is_dir():
        raise ValueError(f"cannot write {arg}: no folder {out.parent}")
    loaded = session.require_session()
    with working("writing the report (Ctrl-C cancels)", session.console):
        report = render_report(loaded, None, session.explain_options(), sources=loaded.log.sources)
        out.write_text(report.html, encoding="utf-8")
    answered = sum(item.ok for item in report.items)
    session.console.print(
        safe_text(f"{answered} of {len(report.items)} questions answered; report written to {out}")
    )


@special("\\features", "\\features [task|stage|job|app]", "List the loaded log's features.")
def _features(session: ReplSession, arg: str) -> None:
    from perfx.logs.registry import ENTITIES

    entity = arg or "task"
    if entity not in ENTITIES:
        raise ValueError(f"\\features takes one of {', '.join(ENTITIES)}, not {entity!r}")
    listed = session.require_session().features(entity)
    # every feature: the list is what queries are written from (a terminal pages it)
    session.console.print(dataclasses.replace(listed, limit=None))


@special(
    "\\set",
    "\\set [OPTION VALUE]",
    "Show or change an option (width, despite_width, sample, seed, method, format, run, store;"
    " 'none' resets width, despite_width, run and store).",
)
def _set(session: ReplSession, arg: str) -> None:
    if not arg:
        for key, value in session.options.items():
            session.console.print(safe_text(f"{key} = {value}"))
        return
    key, _, value = arg.partition(" ")
    session.set_option(key.strip(), value.strip())


@special(
    "\\culprits",
    "\\culprits",
    "The input records that cost the last answer's task its time (ask with --run RUN).",
)
def _culprits(session: ReplSession, arg: str) -> None:
    from rich.table import Table

    answer = session.last
    if answer is None:
        raise ValueError("no answer yet: ask a question first, e.g. WHY TASK 4 SLOWER --run RUN")
    if answer.culprits is None:
        raise ValueError(
            "the last answer has no culprits: ask it with --run RUN (perfx runs lists the traced runs)"
        )
    found = answer.culprits
    table = Table(
        title=safe_text(
            f"culprits in task {found['task']}'s partition {found['partition']} (run {found['run']})"
        )
    )
    for column in ("#", "location", "impact ms", "share", "content"):
        table.add_column(column, overflow="fold")
    for rank, record in enumerate(found["records"], 1):
        share = f"{record['share']:.0%}" if record.get("share") is not None else ""
        table.add_row(
            str(rank),
            safe_text(record["location"]),
            f"{record['impact_ms']:,.0f}",
            share,
            safe_text(record["excerpt"]),
        )
    session.console.print(table)
