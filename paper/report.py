"""Summaries of an ``Evaluation``: the paper's figures and Table 3 as mean ± std tables, the
acceptance checks, and the files ``perfx evaluate`` writes (results.json, results.md, PNGs).

Means and standard deviations are over runs (NaN figures — no test pair satisfied the
explanation — are left out of both and counted in ``n``)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pandas as pd

from .evaluation import METHODS, TITLES, Evaluation
from .plots import plot_all


def summarise(evaluation: Evaluation) -> dict:
    """Every table as nested dicts of {"mean", "std", "n"}, plus checks and explanations."""
    df = pd.DataFrame(evaluation.records)
    out: dict = {"runs": evaluation.runs, "seed": evaluation.seed, "sample": evaluation.sample}
    if df.empty:
        return out | {"tables": {}, "checks": {}, "explanations": {}, "skipped": evaluation.skipped}
    tables = {}
    for exp in ("fig3a", "fig3b", "fig3c"):
        tables[exp] = _stats(df[df.experiment == exp], ["method", "width"], "precision")
    tables["fig3d"] = _stats(df[df.experiment == "fig3d"], ["method", "fraction"], "precision")
    fig3b = df[(df.experiment == "fig3b") & (df.get("width", 0) > 0)]
    tables["fig4b"] = {
        m: {
            int(w): {"precision": _mean(g.precision), "generality": _mean(g.generality)}
            for w, g in gm.groupby(gm["width"].astype(int))
        }
        for m, gm in fig3b.groupby("method")
    }
    tables["fig4c"] = _stats(df[df.experiment == "fig4c"], ["level", "width"], "precision")
    tables["fig4a"] = _stats(df[df.experiment == "fig4a"], ["query", "width"], "relevance")
    t3 = df[df.experiment == "table3"]
    tables["table3"] = {
        q: {k: _cell(g[f"relevance_{k}"]) for k in ("none", "user", "generated")}
        for q, g in t3.groupby("query")
    }
    out["tables"] = tables
    out["kinds"] = kinds(df)
    out["checks"] = checks(tables, out["kinds"])
    out["explanations"] = {
        exp: {
            m: _common(g.explanation)
            for m, g in df[(df.experiment == exp) & (df.get("width", 0) == 3)].groupby("method")
        }
        for exp in ("fig3a", "fig3b", "fig3c")
    }
    out["explanations"]["table3"] = {q: _common(g.despite) for q, g in t3.groupby("query")}
    out["skipped"] = evaluation.skipped
    return out


GANGLIA_LOAD_CPU = ("host_cpu_", "host_load_", "host_proc_")
"""Ganglia's CPU, load average and process counts of a task's instance."""
LOAD_CPU = GANGLIA_LOAD_CPU + ("concurrent_tasks_host", "mean_concurrent_tasks_host")
"""Features of the load and CPU of a task's instance (the paper's WhyLastTaskFaster answer:
"the system load is lighter for the last task"): Ganglia's, and the task load on the host
that the loader derives from the log's own launch and finish times."""


CHECKED_KINDS = (
    "fig3a_led_by_load_or_cpu",
    "fig3b_input_size_greater",
    "fig3b_input_size_greater_and_instances",
)
"""The kinds the issue asks for; ``kinds`` also reports the Ganglia-only share of the first."""


def kinds(df: pd.DataFrame) -> dict:
    """Whether PerfXplain's width-3 explanations are of the paper's kind, as the share of runs:
    WhyLastTaskFaster led by a load/CPU predicate that points one way (LT/GT, not isSame or
    SIM); WhySlowerDespiteSameNumInstances with ``input_size compare = GT``, and with it a
    bound on the number of instances."""
    mine = df[(df.get("method") == "perfxplain") & (df.get("width") == 3)]

    def share(experiment: str, test) -> float:
        texts = mine.loc[mine.experiment == experiment, "explanation"].dropna()
        return float(texts.map(test).mean()) if len(texts) else math.nan

    def led_by(prefixes: tuple[str, ...]):
        def test(text: str) -> bool:
            first = text.split(" AND ")[0]
            return first.startswith(prefixes) and (first.endswith("= LT") or first.endswith("= GT"))

        return test

    return {
        "fig3a_led_by_load_or_cpu": share("fig3a", led_by(LOAD_CPU)),
        "fig3a_led_by_ganglia_load_or_cpu": share("fig3a", led_by(GANGLIA_LOAD_CPU)),
        "fig3b_input_size_greater": share("fig3b", lambda t: "input_size compare = GT" in t),
        "fig3b_input_size_greater_and_instances": share(
            "fig3b", lambda t: "input_size compare = GT" in t and "num_instances" in t
        ),
    }


def checks(tables: dict, kind: dict) -> dict:
    """The acceptance targets of the evaluation, each with the figures it compares."""
    result = {}
    for name in CHECKED_KINDS:
        value = kind[name]
        result[f"{name}_in_most_runs"] = {"value": value, "passed": _ok(value) and value >= 0.5}
    b3 = tables.get("fig3b", {})
    p = _get(b3, "perfxplain", 3)
    base = {m: _get(b3, m, 3) for m in ("ruleofthumb", "simbutdiff")}
    result["fig3b_width3_precision_at_least_0.85"] = {
        "value": p,
        "passed": p >= 0.85 if _ok(p) else False,
    }
    # With each margin, the precision 40 % above that baseline would take: above 1, no
    # explanation of any method can reach it on this log.
    result["fig3b_width3_40pct_above_baselines"] = {
        "value": {
            m: {
                "above": (p / v - 1) if _ok(p) and _ok(v) and v > 0 else None,
                "needs": 1.4 * v if _ok(v) else None,
            }
            for m, v in base.items()
        },
        "passed": all(_ok(p) and _ok(v) and p >= 1.4 * v for v in base.values()),
    }
    a = tables.get("fig3a", {})
    widths = sorted({w for m in a.values() for w in m if w >= 1})
    fails = [
        w
        for w in widths
        for m in ("ruleofthumb", "simbutdiff")
        if not (
            _ok(_get(a, "perfxplain", w))
            and _get(a, "perfxplain", w) >= (_get(a, m, w) if _ok(_get(a, m, w)) else -1)
        )
    ]
    result["fig3a_perfxplain_at_least_baselines_every_width"] = {
        "value": sorted(set(fails)),
        "passed": bool(widths) and not fails,
    }
    t3 = tables.get("table3", {})
    result["table3_generated_despite_raises_relevance"] = {
        "value": {q: [v["none"]["mean"], v["generated"]["mean"]] for q, v in t3.items()},
        "passed": len(t3) == 2
        and all(
            _ok(v["generated"]["mean"]) and v["generated"]["mean"] > v["none"]["mean"]
            for v in t3.values()
        ),
    }
    return result


def markdown(summary: dict) -> str:
    """results.md: one mean ± std table per figure, Table 3, the checks and explanations."""
    t = summary.get("tables", {})
    lines = [
        "# perfx evaluation (PerfXplain section 6)",
        "",
        f"{summary['runs']} runs, seed {summary['seed']}, training sample {summary['sample']} pairs; "
        "precision measured on the held-out jobs.",
        "",
    ]
    for exp, col in (
        ("fig3a", "width"),
        ("fig3b", "width"),
        ("fig3c", "width"),
        ("fig3d", "fraction"),
    ):
        lines += _table(TITLES[exp], t.get(exp, {}), "method", col)
    lines += [
        f"## {TITLES['fig4b']}",
        "",
        "| method | width | precision | generality |",
        "|---|---|---|---|",
    ]
    for m, widths in t.get("fig4b", {}).items():
        lines += [
            f"| {m} | {w} | {_f(v['precision'])} | {_f(v['generality'])} |"
            for w, v in widths.items()
        ]
    lines += [""] + _table(TITLES["fig4c"], t.get("fig4c", {}), "level", "width")
    lines += _table(TITLES["fig4a"], t.get("fig4a", {}), "query", "width")
    lines += [
        f"## {TITLES['table3']}",
        "",
        "| query | no DESPITE | user's DESPITE | generated DESPITE |",
        "|---|---|---|---|",
    ]
    for q, v in t.get("table3", {}).items():
        lines.append(f"| {q} | {_pm(v['none'])} | {_pm(v['user'])} | {_pm(v['generated'])} |")
    lines += ["", "## Acceptance checks", ""]
    for name, c in summary.get("checks", {}).items():
        lines.append(
            f"- {'PASS' if c['passed'] else 'MISS'} `{name}`: {json.dumps(_jsonable(c['value']))}"
        )
    lines += ["", "## Width-3 PerfXplain explanations of the paper's kind (share of runs)", ""]
    lines += [f"- `{name}`: {_f(value)}" for name, value in summary.get("kinds", {}).items()]
    lines += ["", "## Most frequent width-3 explanations (count over runs)", ""]
    for exp, methods in summary.get("explanations", {}).items():
        for m, common in methods.items():
            for text, count in common:
                lines.append(f"- {exp} {m} ({count}x): `{text}`")
    skipped = summary.get("skipped", [])
    if skipped:
        lines += ["", f"## Skipped ({len(skipped)})", ""] + [
            f"- {s['experiment']} run {s['run']}: {s['reason']}" for s in skipped[:20]
        ]
    return "\n".join(lines) + "\n"


def write(evaluation: Evaluation, out: str | Path) -> list[Path]:
    """results.json (records and summary), results.md and the PNG plots under ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = summarise(evaluation)
    results = out / "results.json"
    results.write_text(
        json.dumps(_jsonable({"summary": summary, "records": evaluation.records}), indent=1) + "\n"
    )
    md = out / "results.md"
    md.write_text(markdown(summary))
    return [results, md, *plot_all(summary, out)]


def _stats(df: pd.DataFrame, keys: list[str], value: str) -> dict:
    if df.empty:
        return {}
    return {
        _key(a): {_key(b): _cell(g[value]) for b, g in ga.groupby(keys[1])}
        for a, ga in df.groupby(keys[0])
    }


def _cell(values: pd.Series) -> dict:
    v = pd.to_numeric(values, errors="coerce").dropna()
    return {
        "mean": float(v.mean()) if len(v) else math.nan,
        "std": float(v.std(ddof=0)) if len(v) else math.nan,
        "n": len(values),
    }


def _mean(values: pd.Series) -> float:
    return _cell(values)["mean"]


def _common(texts: pd.Series, k: int = 2) -> list[tuple[str, int]]:
    return Counter(texts.dropna()).most_common(k)


def _get(table: dict, method, width) -> float:
    return table.get(method, {}).get(width, {}).get("mean", math.nan)


def _ok(x) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def _key(x):
    return int(x) if isinstance(x, (int, float)) and float(x).is_integer() else x


def _table(title: str, table: dict, row: str, col: str) -> list[str]:
    cols = sorted({c for r in table.values() for c in r})
    order = [m for m in METHODS if m in table] + [r for r in table if r not in METHODS]
    lines = [
        f"## {title}",
        "",
        f"| {row} | " + " | ".join(f"{col} {c}" for c in cols) + " |",
        "|---|" + "---|" * len(cols),
    ]
    for r in order:
        lines.append(
            f"| {r} | " + " | ".join(_pm(table[r][c]) if c in table[r] else "" for c in cols) + " |"
        )
    return lines + [""]


def _pm(cell: dict) -> str:
    return f"{_f(cell['mean'])} ± {_f(cell['std'])}" if _ok(cell["mean"]) else "n/a"


def _f(x) -> str:
    return f"{x:.2f}" if _ok(x) else "n/a"


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float) and math.isnan(x):
        return None
    if hasattr(x, "item"):
        return _jsonable(x.item())
    return x
