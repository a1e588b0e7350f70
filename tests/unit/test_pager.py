"""Long output goes through rich's pager on a terminal, never when piped (issue 24)."""

from __future__ import annotations

import io
import pydoc

from rich.text import Text

from perfx.terminal import SafeConsole, page

LONG = Text("\n".join(f"line {n}" for n in range(100)))


def _paged(monkeypatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(pydoc, "pager", shown.append)
    return shown


def test_a_terminal_pages_what_is_taller_than_the_screen(monkeypatch):
    shown = _paged(monkeypatch)
    out = SafeConsole(file=io.StringIO(), force_terminal=True, height=24, width=80)
    page(LONG, out)
    assert len(shown) == 1 and "line 99" in shown[0]
    page(Text("short"), out)  # a screenful is printed as it is
    assert len(shown) == 1 and "short" in out.file.getvalue()


def test_piped_output_is_never_paged(monkeypatch):
    shown = _paged(monkeypatch)
    out = SafeConsole(file=io.StringIO(), force_terminal=False, height=24, width=80)
    page(LONG, out)
    assert shown == [] and "line 99" in out.file.getvalue()
