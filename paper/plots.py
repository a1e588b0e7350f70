"""PNG plots of an evaluation summary, drawn like the paper's Figures 3 and 4 (matplotlib,
Agg backend: no display needed)."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from .evaluation import TITLES

STYLE = {
    "perfxplain": ("PerfXplain", "o-"),
    "ruleofthumb": ("RuleOfThumb", "s--"),
    "simbutdiff": ("SimButDiff", "^:"),
}


def plot_all(summary: dict, out: Path) -> list[Path]:
    """fig3a.png ... fig4c.png and table3.png for the tables the summary has."""
    tables = summary.get("tables", {})
    paths = []
    for name, x_label in (
        ("fig3a", "width"),
        ("fig3b", "width"),
        ("fig3c", "width"),
        ("fig3d", "fraction of the jobs in the training log"),
    ):
        if tables.get(name):
            paths.append(_lines(tables[name], TITLES[name], x_label, out / f"{name}.png", STYLE))
    if tables.get("fig4b"):
        paths.append(_tradeoff(tables["fig4b"], out / "fig4b.png"))
    if tables.get("fig4c"):
        levels = {
            level: (f"level {level}", style) for level, style in zip((1, 2, 3), ("s--", "^:", "o-"))
        }
        paths.append(_lines(tables["fig4c"], TITLES["fig4c"], "width", out / "fig4c.png", levels))
    if tables.get("fig4a"):
        queries = {q: (q, style) for q, style in zip(tables["fig4a"], ("o-", "s--"))}
        paths.append(
            _lines(
                tables["fig4a"],
                TITLES["fig4a"],
                "DESPITE width",
                out / "fig4a.png",
                queries,
                "relevance",
            )
        )
    if tables.get("table3"):
        paths.append(_relevance(tables["table3"], out / "table3.png"))
    return paths


def _lines(
    table: dict, title: str, x_label: str, path: Path, styles: dict, y_label: str = "precision"
) -> Path:
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for key, series in table.items():
        label, style = styles.get(key, (str(key), "o-"))
        xs = sorted(series)
        ax.errorbar(
            xs,
            [series[x]["mean"] for x in xs],
            yerr=[_zero(series[x]["std"]) for x in xs],
            fmt=style,
            capsize=3,
            label=label,
        )
    return _finish(fig, ax, title, x_label, y_label, path)


def _tradeoff(table: dict, path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for method, widths in table.items():
        label, style = STYLE.get(method, (method, "o"))
        xs = sorted(widths)
        ax.plot(
            [widths[w]["generality"] for w in xs],
            [widths[w]["precision"] for w in xs],
            style if method == "perfxplain" else style[0],
            label=label,
        )
    return _finish(fig, ax, TITLES["fig4b"], "generality", "precision", path)


def _relevance(table: dict, path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(5.5, 4))
    kinds = ("none", "user", "generated")
    for k, query in enumerate(table):
        ax.bar(
            [k + (i - 1) * 0.25 for i in range(3)],
            [table[query][kind]["mean"] for kind in kinds],
            width=0.25,
            yerr=[_zero(table[query][kind]["std"]) for kind in kinds],
            color=["#bbbbbb", "#7799cc", "#225599"],
            capsize=3,
        )
    ax.set_xticks(range(len(table)), [q.replace("Despite", "\nDespite") for q in table], fontsize=7)
    ax.legend(
        handles=[plt.Rectangle((0, 0), 1, 1, color=c) for c in ("#bbbbbb", "#7799cc", "#225599")],
        labels=["no DESPITE", "user's DESPITE", "generated DESPITE"],
        fontsize=7,
    )
    return _finish(fig, ax, TITLES["table3"], "", "relevance", path, legend=False)


def _finish(
    fig, ax, title: str, x_label: str, y_label: str, path: Path, legend: bool = True
) -> Path:
    ax.set_title(title, fontsize=8, wrap=True)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_ylim(0, 1.05)
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _zero(x: float) -> float:
    return 0.0 if x is None or math.isnan(x) else x
