"""Self-contained HTML reports: one file, no script, no network, styles and SVG plots inline.

* ``page`` — the shell: escaping, tables, sections with a summary line, contents, print style.
* ``plots`` — the matplotlib plots, as inline SVG.
* ``overview``, ``stages``, ``timeline``, ``questions`` — the page parts of ``perfx report``.
* ``build`` — ``perfx report``'s page from a log (and a traced run).
* ``batch_page`` — ``perfx batch``'s page of answers, from the same parts.
"""

from .batch_page import render_html
from .build import render_report

__all__ = ["render_html", "render_report"]
