"""Overview of each application: what it was (name, id, Spark version, duration, jobs, stages,
tasks, executors), where its task time went (the blocked-time components, summed over its
tasks), and how much sooner its jobs and it would have finished without each component or
without stragglers (the what-if replay, with the model's own error beside it)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfx.explain.gap import PARTS

from . import plots
from .page import Html, Section, join, ms, percent, table, tag

JOBS_SHOWN = 15
"""Jobs listed in an app's what-if table (the longest first)."""


@dataclass(frozen=True)
class App:
    """One application run of the log and its task attempts."""

    key: str
    facts: dict
    tasks: pd.DataFrame
    jobs: pd.DataFrame


def applications(log) -> list[App]:
    """The log's application runs (``app_key`` tells apart attempts of one id); a log
    without an application table (MapReduce, tabular) is one application."""
    tasks, jobs = log.tasks, log.jobs
    if log.apps.empty or "app_key" not in tasks.columns:
        facts = {"name": ", ".join(log.sources), "id": "-", "spark_version": "-"}
        return [App("log", facts, tasks, jobs)]
    apps = []
    for _, app in log.apps.iterrows():
        key = str(app["app_key"])
        facts = {
            "name": app.get("name", ""),
            "id": app.get("app_id", key),
            "attempt": app.get("app_attempt_id", ""),
            "spark_version": app.get("spark_version", "") or "unknown (< 1.3)",
            "duration": app.get("duration"),
        }
        mine = jobs[jobs["app_key"].astype(str) == key] if "app_key" in jobs.columns else jobs
        apps.append(App(key, facts, tasks[tasks["app_key"].astype(str) == key], mine))
    return apps


def time_components(tasks: pd.DataFrame) -> list[tuple[str, float]]:
    """Task time summed over ``tasks`` per component (``explain.gap``'s parts, compute being
    what they leave), in ms; components the log does not record are left out."""
    if "duration" not in tasks.columns:
        return []
    total = float(pd.to_numeric(tasks["duration"], errors="coerce").clip(lower=0).sum())
    parts = []
    for _name, label, columns in PARTS:
        found = [c for c in columns if c in tasks.columns and tasks[c].notna().any()]
        if found:
            value = tasks[found].apply(pd.to_numeric, errors="coerce").clip(lower=0).sum().sum()
            parts.append((label, float(value)))
    return [("compute", max(0.0, total - sum(v for _, v in parts))), *parts]


def _facts(app: App) -> Html:
    tasks = app.tasks
    stages = tasks["stage_key"].nunique() if "stage_key" in tasks.columns else 0
    executors = tasks["executor_id"].nunique() if "executor_id" in tasks.columns else 0
    rows = [
        ("name", app.facts["name"]),
        (
            "id",
            app.facts["id"]
            + (f" (attempt {app.facts['attempt']})" if app.facts.get("attempt") else ""),
        ),
        ("Spark version", app.facts["spark_version"]),
        ("duration", ms(app.facts.get("duration"))),
        ("jobs", f"{len(app.jobs):,}"),
        ("stages", f"{stages:,}"),
        ("tasks", f"{len(tasks):,}"),
        ("executors", f"{executors:,}"),
    ]
    return table(None, rows)


def _where(app: App) -> tuple[Html, str]:
    parts = time_components(app.tasks)
    total = sum(v for _, v in parts)
    if not total:
        return tag("p", "No task time recorded."), "no task time recorded"
    rows = [(label, ms(value), percent(value / total)) for label, value in parts]
    top = max(parts, key=lambda p: p[1])
    chart = plots.component_bars(parts, f"components-{app.key}")
    body = join(
        [table(["component", "task time", "share"], rows, numeric=(1, 2)), tag("figure", chart)]
    )
    return body, f"{ms(total)} of task time, {percent(top[1] / total, 0)} {top[0]}"


def _descriptions(jobs: pd.DataFrame) -> dict[str, str]:
    """Job id -> its description (``spark.job.description``), else its name (call site)."""
    if jobs.empty or "job_id" not in jobs.columns:
        return {}
    text = jobs.get("description", pd.Series("", index=jobs.index)).fillna("").astype(str)
    names = jobs.get("name", pd.Series("", index=jobs.index)).fillna("").astype(str)
    return dict(zip(jobs["job_id"].astype(str), text.where(text != "", names)))


def _whatif(results, app: App) -> tuple[Html, str]:
    """The app's completion time without each part (one row per scenario), then its longest
    jobs' real and modelled times and each scenario's improvement."""
    labels = ["+".join(r.without) for r in results]
    mine = [r.apps[r.apps["app_id"].astype(str) == app.key] for r in results]
    if mine[0].empty:
        return tag("p", "No replayable task in this application."), "no what-if replay"
    base = mine[0].iloc[0]
    app_rows = [
        ("as it ran", ms(base["real_ms"]), ""),
        (
            "replayed as it ran (model)",
            ms(base["modelled_ms"]),
            f"error {percent(base['model_error'])}",
        ),
    ]
    app_rows += [
        (
            f"without {label}",
            ms(row.iloc[0]["whatif_ms"]),
            f"{percent(row.iloc[0]['improvement'])} sooner",
        )
        for label, row in zip(labels, mine)
    ]
    jobs = [r.jobs[r.jobs["app_id"].astype(str) == app.key] for r in results]
    order = jobs[0].sort_values("real_ms", ascending=False, kind="stable").index[:JOBS_SHOWN]
    described = _descriptions(app.jobs)
    job_rows = [
        (
            f"job {jobs[0].at[i, 'job_id']}",
            described.get(str(jobs[0].at[i, "job_id"]), ""),
            ms(jobs[0].at[i, "real_ms"]),
            percent(jobs[0].at[i, "model_error"]),
            *(percent(j.at[i, "improvement"]) for j in jobs),
        )
        for i in order
    ]
    errors = np.abs(jobs[0]["model_error"].dropna())
    error = (
        f"model error |modelled − real| / real over {len(errors)} jobs: median "
        f"{percent(float(np.median(errors)))}, max {percent(float(errors.max()))}"
        if len(errors)
        else "no job to measure the model's error on"
    )
    shown = (
        f"the {JOBS_SHOWN} longest of {len(jobs[0])} jobs; " if len(jobs[0]) > JOBS_SHOWN else ""
    )
    body = join(
        [
            table(["application", "completion time", ""], app_rows, numeric=(1,)),
            table(
                ["job", "description", "real", "model error", *(f"−{label}" for label in labels)],
                job_rows,
                numeric=range(2, 4 + len(labels)),
            ),
            tag(
                "p",
                f"Replayed on the slots each stage really used, with each part's time removed from every "
                f"task (−stragglers: each straggler at its stage's median rate); a job's cells are how much "
                f"sooner it would have finished than its replay as it ran ({shown}{error}).",
                cls="note",
            ),
        ]
    )
    improvements = [(label, row.iloc[0]["improvement"]) for label, row in zip(labels, mine)]
    label, best = max(improvements, key=lambda p: -1 if pd.isna(p[1]) else p[1])
    summary = (
        f"without {label} it would have finished {percent(best)} sooner"
        if not pd.isna(best)
        else error
    )
    return body, summary


def overview_section(log, apps: list[App]) -> Section:
    """The overview of every application of the log."""
    from perfx.explain.blocked.whatif import whatifs
    from perfx.explain.errors import ExplainError
    from perfx.results.whatif import DEFAULT_SCENARIOS

    try:
        results = whatifs(log, [[s] for s in DEFAULT_SCENARIOS])
        whatif_error = None
    except ExplainError as err:
        results, whatif_error = None, str(err)
    parts, lines = [], []
    for app in apps:
        where, where_line = _where(app)
        if results is not None:
            whatif, whatif_line = _whatif(results, app)
        else:
            whatif, whatif_line = tag("p", f"No what-if: {whatif_error}."), "no what-if replay"
        lines.append(
            f"{app.facts['name']}: {ms(app.facts.get('duration'))}, {where_line}; {whatif_line}"
        )
        parts.append(
            tag(
                "article",
                tag("h3", f"{app.facts['name']} ({app.facts['id']})"),
                tag("p", f"{where_line}; {whatif_line}.", cls="summary"),
                _facts(app),
                tag("h4", "Where the time went"),
                where,
                tag("h4", "What if"),
                whatif,
            )
        )
    summary = lines[0] if len(lines) == 1 else f"{len(apps)} applications; " + "; ".join(lines[:3])
    return Section("overview", "Overview", summary, join(parts))
