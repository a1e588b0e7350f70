"""The page shell every report is built in: escaping, tables, sections with a summary line,
a table of contents, and a style sheet that reads on screen and prints.

Escaping has one rule: every ``str`` is text and is escaped where it is placed; only
:class:`Html` (fragments this package built from escaped parts, and matplotlib's SVG, whose
writer escapes the text it draws) goes into the page as it is. Text from logs, records and
queries therefore cannot become markup, whatever it holds.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


class Html(str):
    """A fragment of markup built by this package: placed as it is, never escaped again."""


def esc(value: object) -> Html:
    """``value`` as text in the page (``Html`` stays markup)."""
    if isinstance(value, Html):
        return value
    return Html(html.escape("" if value is None else str(value)))


def join(parts: Iterable[object]) -> Html:
    return Html("".join(esc(p) for p in parts))


def tag(name: str, *content: object, cls: str = "", **attributes: str) -> Html:
    """``<name class=... attr=...>content</name>`` with the content and attributes escaped
    (``data_cause=`` is written ``data-cause=``)."""
    attrs = f' class="{esc(cls)}"' if cls else ""
    attrs += "".join(
        f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"' for k, v in attributes.items()
    )
    return Html(f"<{name}{attrs}>{join(content)}</{name}>")


def table(
    headers: Sequence[str] | None, rows: Iterable[Sequence[object]], *, numeric: Iterable[int] = ()
) -> Html:
    """A table of text cells (``Html`` cells stay markup); columns in ``numeric`` align right;
    without ``headers``, no header row."""
    right = set(numeric)

    def cell(kind: str, i: int, value: object) -> Html:
        return tag(kind, value, cls="num" if i in right else "")

    body = tag("tbody", *(tag("tr", *(cell("td", i, v) for i, v in enumerate(r))) for r in rows))
    if headers is None:
        return tag("table", body)
    head = tag("tr", *(cell("th", i, h) for i, h in enumerate(headers)))
    return tag("table", tag("thead", head), body)


def ms(value: float | None) -> str:
    """A duration in ms for a table cell: ``730 ms``, ``2.43 s``, ``3.2 min``; ``-`` if unknown."""
    from perfx.grammar.units import format_ms

    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return format_ms(float(value))


def percent(value: float | None, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{100 * value:.{digits}f} %"


@dataclass(frozen=True)
class Section:
    """One part of the page: its anchor, heading, the one line that sums it up, and body."""

    anchor: str
    title: str
    summary: str
    body: Html
    causes: tuple[str, ...] = ()
    """The causes its charts and tables colour (``colours``), for the page's legend."""

    def html(self) -> Html:
        return tag(
            "section",
            tag("h2", self.title),
            tag("p", self.summary, cls="summary"),
            self.body,
            id=self.anchor,
        )


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 62em; color: #222;
       padding: 0 1em; line-height: 1.4; }
h1 { margin-bottom: 0.2em; } h2 { margin-bottom: 0.2em; } h3 { margin: 1.2em 0 0.3em; }
section { border-top: 1px solid #ccc; padding: 0.8em 0; }
article { border-top: 1px dashed #ddd; padding: 0.5em 0; }
.summary { font-size: 1.05em; font-weight: 600; margin-top: 0.2em; }
.note { color: #555; font-size: 0.9em; }
.failed { color: #a00; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
td, th { padding: 0.2em 0.6em; border-bottom: 1px solid #eee; text-align: left;
         vertical-align: top; }
td { overflow-wrap: anywhere; } td:first-child { white-space: nowrap; }
th { background: #f6f6f6; } .num { text-align: right; white-space: nowrap; }
code { background: #f5f5f5; padding: 0.1em 0.3em; overflow-wrap: anywhere; }
figure { margin: 0.5em 0; } figcaption { color: #555; font-size: 0.85em; }
svg { max-width: 100%; height: auto; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.25em;
          vertical-align: -0.05em; border-radius: 2px; }
.legend .cause { margin-right: 0.8em; white-space: nowrap; }
@media print {
  body { margin: 0; max-width: none; } nav { page-break-after: always; }
  section { page-break-before: always; } figure, table, article { page-break-inside: avoid; }
}
"""


def document(
    title: str, intro: Sequence[object], sections: Sequence[Section], legend: Html | None = None
) -> str:
    """The whole page: title, intro paragraphs, a table of contents, the ``legend`` of the
    causes' colours, then the sections. No script, no external resource: the file is all
    there is."""
    contents = tag(
        "nav",
        tag("h2", "Contents"),
        tag(
            "ol",
            *(
                tag("li", Html(f'<a href="#{esc(s.anchor)}">{esc(s.title)}</a>'), f" — {s.summary}")
                for s in sections
            ),
        ),
    )
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>",
        tag("h1", title),
        *(tag("p", line) for line in intro),
        contents,
        legend or "",
        *(s.html() for s in sections),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"
