"""The console every line perfx prints on a terminal goes through.

Text from logs, records and queries is printed as the characters it holds: no console here
reads rich markup (``[bold]h0`` stays ``[bold]h0``, ``[/]`` cannot raise), highlights numbers,
or passes a control character through (an ANSI escape in a host name is shown as ``\\x1b``,
not obeyed by the terminal). Styles perfx adds itself (``Text(..., style="red")``) still show.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from perfx.explain.wording import has_control, printable


def safe_text(value: object, style: str = "") -> Text:
    """``value`` as rich Text, its control characters shown escaped before rich lays it out
    (so table cells keep their width): how every string from a log, a record or a query
    enters a rendering."""
    return Text(printable(str(value)), style=style)


class SafeConsole(Console):
    """A rich Console without markup or highlighting whose text segments are made printable
    (a last guard: strings made printable by ``safe_text`` before layout keep tables aligned)."""

    def __init__(self, **options: Any):
        options.setdefault("markup", False)
        options.setdefault("highlight", False)
        super().__init__(**options)

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or not has_control(segment.text):
                yield segment
            else:
                yield Segment(printable(segment.text), segment.style)


def console(*, stderr: bool = False, wide: bool = False) -> SafeConsole:
    """A safe console on stdout (or stderr). ``wide``: output piped to a file gets a page of
    160 columns instead of 80 (a report's tables would otherwise fold every cell), unless
    COLUMNS says otherwise."""
    stream = sys.stderr if stderr else sys.stdout
    width = 160 if wide and not stream.isatty() and "COLUMNS" not in os.environ else None
    return SafeConsole(stderr=stderr, width=width)


def with_note(renderable: RenderableType, note: str) -> RenderableType:
    """An answer followed by the one line saying it comes from part of a log (its skipped
    lines, its files cut off: ``logs.model.log_notes``), as the CLI and the REPL print it."""
    from rich.console import Group

    return Group(renderable, safe_text(note)) if note else renderable


def page(renderable: RenderableType, out: Console | None = None) -> None:
    """Print ``renderable`` on stdout (or ``out``); on a terminal, through rich's pager when
    it is taller than the screen (piped output is printed as it is)."""
    out = out or console(wide=True)
    if not out.is_terminal:
        out.print(renderable)
        return
    lines = out.render_lines(renderable, out.options, pad=False)
    if len(lines) <= out.height:
        out.print(renderable)
        return
    with out.pager(styles=True):
        out.print(renderable)


def html_of(renderable: RenderableType, width: int = 140) -> str:
    """What ``console`` would print, as HTML for a notebook (``_repr_html_`` of the CLI's
    tables): laid out by a safe console, its text escaped by rich's HTML export."""
    import io

    recorder = SafeConsole(record=True, file=io.StringIO(), width=width, color_system="truecolor")
    recorder.print(renderable)
    return recorder.export_html(
        inline_styles=True, code_format='<pre class="perfx" style="font-size:0.85em">{code}</pre>'
    )


@contextmanager
def working(what: str, console: Console | None = None, delay: float = 1.0) -> Iterator[None]:
    """A spinner saying ``what`` perfx is doing, shown once the work has taken ``delay``
    seconds (a quick answer flashes nothing) and only on a terminal (stderr by default, so a
    piped answer stays clean)."""
    console = console or SafeConsole(stderr=True)
    if not console.is_terminal:
        yield
        return
    status = console.status(safe_text(f"{what} ..."), spinner="dots")
    timer = threading.Timer(delay, status.start)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()  # a spinner starting at this very moment is stopped below, not left on
        status.stop()
