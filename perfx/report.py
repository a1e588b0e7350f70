"""Self-contained HTML reports of batch answers: one section per question, each with the
explanation (the Explanation's own HTML) and a chart of how each BECAUSE predicate raised
precision and narrowed generality. Images are embedded, so the report is one file to share.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence

from .batch import BatchItem

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
section { border-top: 1px solid #ccc; padding: 1em 0; }
.failed { color: #a00; }
.summary { font-size: 1.1em; }
table { border-collapse: collapse; } td, th { padding: 0.2em 0.6em; border-bottom: 1px solid #eee; }
code { background: #f5f5f5; padding: 0.1em 0.3em; }
"""


def figures_chart(explanation: dict) -> bytes | None:
    """PNG bars of cumulative precision and generality after each BECAUSE predicate."""
    because = explanation.get("because") or []
    if not because:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [item["predicate"] for item in because]
    precision = [item.get("precision") or 0.0 for item in because]
    generality = [item.get("generality") or 0.0 for item in because]
    figure, axes = plt.subplots(figsize=(7, 0.5 + 0.45 * len(labels)))
    positions = range(len(labels))
    axes.barh(
        [p + 0.2 for p in positions], precision, height=0.4, label="precision", color="#3b6ea5"
    )
    axes.barh(
        [p - 0.2 for p in positions], generality, height=0.4, label="generality", color="#e8a33d"
    )
    axes.set_yticks(list(positions), labels=labels, fontsize=8)
    axes.invert_yaxis()
    axes.set_xlim(0, 1)
    axes.set_xlabel("cumulative, after each BECAUSE predicate")
    axes.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, metadata={"Software": None})
    plt.close(figure)
    return buffer.getvalue()


def _item_html(number: int, item: BatchItem) -> str:
    binding = f" with <code>{html.escape(', '.join(item.binding))}</code>" if item.binding else ""
    head = f"<h2>{number}. <code>{html.escape(item.query)}</code>{binding}</h2>"
    if not item.ok:
        return f'<section class="failed">{head}<p>Not answered: {html.escape(item.error or "")}</p></section>'
    body = item.explanation._repr_html_()
    chart = figures_chart(item.explanation.to_dict())
    image = ""
    if chart is not None:
        encoded = base64.b64encode(chart).decode("ascii")
        image = f'<p><img alt="precision and generality per predicate" src="data:image/png;base64,{encoded}"></p>'
    return f"<section>{head}{body}{image}</section>"


def render_html(
    items: Sequence[BatchItem], *, title: str = "perfx report", log_summary: str = ""
) -> str:
    answered = sum(item.ok for item in items)
    status = "all answered" if answered == len(items) else f"{len(items) - answered} NOT answered"
    parts = [
        "<!doctype html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{html.escape(log_summary)}</p>" if log_summary else "",
        f'<p class="summary">{answered} of {len(items)} questions answered ({status}).</p>',
        *(_item_html(n, item) for n, item in enumerate(items, 1)),
        "</body></html>",
    ]
    return "\n".join(part for part in parts if part)
