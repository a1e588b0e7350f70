"""perfx's answers in a notebook: HTML views of explanations (the report's sentence, values,
gap chart and figures), of straggler and what-if tables, and of the whole report.

Every piece comes from perfx/report (whose one escaping rule keeps text from logs, records
and queries text); tables are the CLI's own, exported by rich, which escapes too
(perfx.terminal.html_of).
Explanations are defined below perfx (explain/), so their view is registered with IPython's
HTML formatter, the way IPython shows types a package does not own; perfx's own results
have ``_repr_html_``.
"""

from __future__ import annotations

import html
import itertools
from typing import Any

from .report.page import Html, tag

_keys = itertools.count(1)
"""Tells the charts of one notebook's answers apart (matplotlib's SVG ids derive from it)."""

NOTEBOOK_STYLE = Html(
    "<style>.perfx table { border-collapse: collapse; } .perfx td, .perfx th { padding: 0.2em "
    "0.6em; border-bottom: 1px solid #eee; text-align: left; } .perfx .num { text-align: right; }"
    " .perfx .sentence { font-weight: 600; } .perfx svg { max-width: 100%; height: auto; }</style>"
)
"""The report's table and chart styles, scoped to perfx's outputs in the notebook."""


def explanation_html(explanation: Any) -> str:
    """An answer as the report shows it: sentence, values, gap chart and lines, figures."""
    from .report.questions import explanation_body

    body = explanation_body(explanation, f"nb{next(_keys)}")
    return NOTEBOOK_STYLE + tag("div", body, cls="perfx")


class ReportPage:
    """``perfx report``'s page, shown in a notebook in a frame of its own (its styles stay
    inside); ``save`` writes the file ``perfx report --out`` writes."""

    def __init__(self, page: str, items: list):
        self.html = page
        self.items = items

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.html)

    def _repr_html_(self) -> str:
        return (
            f'<iframe srcdoc="{html.escape(self.html, quote=True)}" '
            'style="width:100%;height:900px;border:1px solid #ddd"></iframe>'
        )


def register_formatters() -> None:
    """Show explanations as HTML in the running IPython shell, if any (idempotent). Called
    only where IPython is imported (``perfx.open``): elsewhere this module's import is spared."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        return
    formatter = shell.display_formatter.formatters["text/html"]
    formatter.for_type_by_name("perfx.explain.explanation", "Explanation", explanation_html)
