"""Overview of each application, the most time at stake first: what it was (name, id, Spark
version, duration, jobs, stages, tasks, executors), how much of its executors' capacity its
tasks left idle, its stages' critical path, where its task time went (the blocked-time
components, summed over its tasks, each in its cause's colour), and how much sooner its jobs
and it would have finished without each component or without stragglers, or with more or
fewer executors (the what-if replay, with the model's own error beside it)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfx.explain.gap import PARTS
from perfx.results.whatif import left_out_words

from . import colours, plots
from .page import Html, Section, join, ms, percent, table, tag

JOBS_SHOWN = 15
"""Jobs listed in an app's what-if table (the longest first)."""
SLOT_FACTORS = (2.0, 0.5)
"""The executors' what-ifs: every executor's task slots doubled, then halved."""
PATH_SHOWN = 12
"""Stages named on a critical path before "and N more"."""


@dataclass(frozen=True)
class App:
    """One application run of the log, its task attempts, and the time its stragglers took
    beyond their stages' medians (``perfx stragglers``' time at stake, ms)."""

    key: str
    facts: dict
    tasks: pd.DataFrame
    jobs: pd.DataFrame
    at_stake: float = 0.0


def applications(log, stakes: dict[str, float] | None = None) -> list[App]:
    """The log's application runs (``app_key`` tells apart attempts of one id), the most time
    at stake first (``stakes``: per stage key, ``StragglerReport.at_stake``), then the
    longest; a log without an application table (MapReduce, tabular) is one application."""
    tasks, jobs = log.tasks, log.jobs
    stakes = stakes or {}
    if log.apps.empty or "app_key" not in tasks.columns:
        facts = {"name": ", ".join(log.sources), "id": "-", "spark_version": "-"}
        return [App("log", facts, tasks, jobs, sum(stakes.values()))]
    per_app: dict[str, float] = {}
    for stage, stake in stakes.items():
        app_key = stage.rsplit("/", 2)[0]
        per_app[app_key] = per_app.get(app_key, 0.0) + stake
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
        apps.append(
            App(key, facts, tasks[tasks["app_key"].astype(str) == key], mine, per_app.get(key, 0.0))
        )
    # jobs and tasks of no application: MapReduce job histories read beside Spark logs
    from perfx.results.summary import without_app

    no_app, no_app_jobs = without_app(tasks), without_app(jobs)
    if no_app.any() or no_app_jobs.any():
        names = jobs.loc[no_app_jobs, "name"].dropna().astype(str) if "name" in jobs else []
        facts = {"name": ", ".join(dict.fromkeys(names)) or "-", "id": "-", "spark_version": "-"}
        keys = set(log.apps["app_key"].astype(str))
        stake = sum(v for k, v in per_app.items() if k not in keys)
        apps.append(App("log", facts, tasks[no_app], jobs[no_app_jobs], stake))
    return sorted(apps, key=lambda a: (-a.at_stake, -_number(a.facts.get("duration"))))


def _number(value) -> float:
    """A duration to sort by: unknown ones last."""
    number = pd.to_numeric(value, errors="coerce")
    return 0.0 if pd.isna(number) else float(number)


def idle_capacity(tasks: pd.DataFrame) -> tuple[float, float] | None:
    """The app's task slot-time and the share of it no task used (ms, ratio), or None without
    task times. Each executor offers as many slots as it ran attempts at once
    (``explain.blocked.slots.executor_slots``, as the what-if replay counts them) from its
    first task's launch to its last task's finish; its attempts (failed ones too) used them."""
    from perfx.explain.blocked.slots import executor_slots, slot_release

    if not {"launch_time", "finish_time"} <= set(tasks.columns) or tasks.empty:
        return None
    launch = pd.to_numeric(tasks["launch_time"], errors="coerce")
    finish = pd.to_numeric(tasks["finish_time"], errors="coerce")
    ok = launch.notna() & finish.notna() & (finish >= launch)
    if not ok.any():
        return None
    t = tasks[ok]
    machine = next((c for c in ("executor_id", "host") if c in t.columns), None)
    executor = t[machine].astype(str) if machine else pd.Series("-", index=t.index)
    if "app_id" not in t.columns and "job_id" in t.columns:
        # job histories of no application: each job's own slots on each host, where the
        # jobs of a folder (years apart, on one host) made one span "100 % idle of 8.3
        # million min" (a probe of the report)
        executor = t["job_id"].astype(str) + "\0" + executor
    launch, finish = launch[ok].to_numpy(float), finish[ok].to_numpy(float)
    slots = executor_slots(executor, launch, slot_release(t))
    span = (
        pd.Series(finish).groupby(executor.to_numpy()).max()
        - pd.Series(launch).groupby(executor.to_numpy()).min()
    )
    capacity = float((slots.reindex(span.index) * span).sum())
    used = float((finish - launch).sum())
    if capacity <= 0:
        return None
    return capacity, max(0.0, 1 - used / capacity)


def _parents(stages: pd.DataFrame) -> dict[int, list[int]]:
    """Each stage id's parent stage ids; in a log that names none (Spark before 1.5), the
    stages of its job that completed before it was submitted (as the what-if replay orders
    them)."""
    first = stages.groupby("stage_id").first()
    named = {
        int(k): [int(p) for p in str(v).split(",") if p.strip().lstrip("-").isdigit()]
        for k, v in first["parent_ids"].items()
    }
    if any(named.values()) or not {"submission_time", "completion_time"} <= set(first.columns):
        return named
    submitted = pd.to_numeric(first["submission_time"], errors="coerce")
    completed = pd.to_numeric(first["completion_time"], errors="coerce")
    return {
        int(k): [
            int(o)
            for o in first.index[(first["job_id"] == first.at[k, "job_id"]).to_numpy()]
            if o != k and completed[o] <= submitted[k]
        ]
        for k in first.index
    }


def critical_path(stages: pd.DataFrame, app_key: str) -> tuple[list[str], float] | None:
    """The app's stages' critical path: per job, its longest chain of stages each a parent of
    the next (``_parents``; by stage time: submission to completion, retries summed), the
    jobs' chains one after the other (as Sparklens counts it): its stage ids and its time
    (ms); None without the stages' jobs and times."""
    need = {"app_key", "stage_id", "job_id", "parent_ids", "duration"}
    if stages.empty or not need <= set(stages.columns):
        return None
    mine = stages[stages["app_key"].astype(str) == app_key].dropna(subset=["stage_id"])
    if mine.empty:
        return None
    mine = mine.assign(stage_id=mine["stage_id"].astype(int))
    time = (
        pd.to_numeric(mine["duration"], errors="coerce").fillna(0).groupby(mine["stage_id"]).sum()
    )
    parents = _parents(mine)
    path: list[str] = []
    total = 0.0
    for _job, ids in mine.groupby("job_id", sort=True)["stage_id"]:
        best: dict[int, tuple[float, list[int]]] = {}
        for stage in sorted(set(ids)):  # Spark numbers a parent before its child
            before = max(
                (best[p] for p in parents.get(stage, []) if p in best),
                key=lambda c: c[0],
                default=(0.0, []),
            )
            best[stage] = (before[0] + float(time.get(stage, 0.0)), [*before[1], stage])
        chain = max(best.values(), key=lambda c: c[0], default=(0.0, []))
        total += chain[0]
        path += [str(i) for i in chain[1]]
    return path, total


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


def app_counts(app: App, log) -> dict[str, int]:
    """The app's jobs, stages and tasks, counted as ``perfx logs`` counts the log's
    (``perfx.results.summary.stage_keys``): the counts of a log's apps add up to its own."""
    from perfx.results.summary import stage_keys

    stages = log.stages
    if "app_key" in stages.columns and app.key != "log":
        stages = stages[stages["app_key"].astype(str) == app.key]
    elif "app_key" in stages.columns and len(log.apps):  # beside applications: those of none
        stages = stages[stages["app_key"].isna()]
    return {
        "jobs": len(app.jobs),
        "stages": len(stage_keys(stages, app.tasks)),
        "tasks": len(app.tasks),
    }


def _facts(app: App, log) -> tuple[Html, str]:
    """The app's facts, and the line that sums up its capacity and critical path."""
    tasks = app.tasks
    counts = app_counts(app, log)
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
        ("jobs", f"{counts['jobs']:,}"),
        ("stages", f"{counts['stages']:,}"),
        ("tasks", f"{counts['tasks']:,}"),
        ("executors", f"{executors:,}"),
        (
            "time at stake",
            f"{ms(app.at_stake)} (what its stragglers took beyond their stages' median rate)",
        ),
    ]
    lines = []
    idle = idle_capacity(tasks)
    if idle is not None:
        capacity, share = idle
        rows.append(
            (
                "idle capacity",
                f"{percent(share)} of {ms(capacity)} slot-time unused by tasks (each executor's "
                "slots, as many as it ran tasks at once, from its first task to its last)",
            )
        )
        lines.append(f"{percent(share, 0)} of executor capacity idle")
    path = critical_path(log.stages, app.key)
    if path is not None and path[0]:
        ids, total = path
        named = " → ".join(ids[:PATH_SHOWN]) + (
            f" and {len(ids) - PATH_SHOWN:,} more" if len(ids) > PATH_SHOWN else ""
        )
        lasted = _number(app.facts.get("duration"))
        of_it = f" ({percent(total / lasted, 0)} of its duration)" if lasted > 0 else ""
        rows.append(
            (
                "critical path",
                f"{ms(total)}{of_it}: stages {named} (per job its longest chain of parent "
                "stages, the jobs one after the other: no number of executors finishes sooner)",
            )
        )
        lines.append(f"critical path {ms(total)}")
    return table(None, rows), ", ".join(lines)


def _where(app: App) -> tuple[Html, str]:
    parts = time_components(app.tasks)
    total = sum(v for _, v in parts)
    if not total:
        return tag("p", "No task time recorded."), "no task time recorded"
    rows = [(colours.swatch(label), ms(value), percent(value / total)) for label, value in parts]
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


def _sooner(improvement: float) -> str:
    """An improvement (1 - what-if / modelled) as "12.0 % sooner" or "30.0 % later"."""
    if pd.isna(improvement):
        return "-"
    return f"{percent(abs(improvement))} {'sooner' if improvement >= 0 else 'later'}"


def _executors(slot_results, app: App) -> tuple[list[tuple[str, str, str]], str]:
    """The app's completion time with every executor's slots scaled (``SLOT_FACTORS``), as
    rows of the what-if table, and the line that sums them up."""
    rows, said = [], []
    for result in slot_results:
        row = result.apps[result.apps["app_id"].astype(str) == app.key]
        if row.empty:
            continue
        slots = (result.app_slots or {}).get(app.key)
        words = "twice the executors" if result.slots > 1 else "half the executors"
        how = f"with {words} ({slots:,} task slots)" if slots else f"with {words}"
        rows.append((how, ms(row.iloc[0]["whatif_ms"]), _sooner(row.iloc[0]["improvement"])))
        said.append(f"{words}: {_sooner(row.iloc[0]['improvement'])}")
    return rows, "; ".join(said)


def _whatif(results, slot_results, app: App) -> tuple[Html, str]:
    """The app's completion time without each part (one row per scenario) and with more or
    fewer executors, then its longest jobs' real and modelled times and each scenario's
    improvement."""
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
    executor_rows, executor_line = _executors(slot_results, app)
    base_slots = (slot_results[0].app_slots or {}).get(app.key) if slot_results else None
    app_rows += executor_rows
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
                f"task (−stragglers: each straggler at its stage's median rate), or on every executor's "
                f"slots doubled or halved (at least one each: as many slots as twice or half the "
                f"executors give{f', from {base_slots / SLOT_FACTORS[0]:,.0f}' if base_slots else ''}); a job's cells are how much "
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
    if executor_line:
        summary += f"; {executor_line}"
    if left_out := results[0].left_out_by_app.get(app.key, 0):  # the application's own
        body = join([body, tag("p", f"{left_out_words(left_out)}.", cls="note")])
        summary += f"; {left_out_words(left_out)}"
    return body, summary


def overview_replays(log) -> tuple[list | None, list, str | None]:
    """The overview's what-ifs: (one per default scenario, one per slot factor, None), or
    (None, [], why) where the log cannot be replayed. The report computes them beside the
    rest of its page (``background``): they depend on the log alone."""
    from perfx.explain.blocked.whatif import whatifs
    from perfx.explain.errors import ExplainError
    from perfx.results.whatif import DEFAULT_SCENARIOS

    try:
        replays = whatifs(log, [[s] for s in DEFAULT_SCENARIOS], SLOT_FACTORS)
    except ExplainError as err:
        return None, [], str(err)
    return replays[: len(DEFAULT_SCENARIOS)], replays[len(DEFAULT_SCENARIOS) :], None


@dataclass(frozen=True)
class AppOverview:
    """What the overview says of one application whatever its what-ifs: where its time went
    (the chart and its line), its facts (the table and its line) and the causes its chart
    shows. The report computes these beside the rest of its page (``background``)."""

    where: Html
    where_line: str
    facts: Html
    facts_line: str
    causes: tuple[str, ...]


def app_overviews(log, apps: list[App]) -> list[AppOverview]:
    """Each application's ``AppOverview``, in the order of ``apps``."""
    found = []
    for app in apps:
        where, where_line = _where(app)
        causes = tuple(dict.fromkeys(label for label, _ in time_components(app.tasks)))
        facts, facts_line = _facts(app, log)
        found.append(AppOverview(where, where_line, facts, facts_line, causes))
    return found


def overview_section(
    apps: list[App],
    replays: tuple[list | None, list, str | None],
    overviews: list[AppOverview],
) -> Section:
    """The overview of every application of the log: its what-ifs (``overview_replays``) and
    what it says of each whatever they are (``app_overviews``)."""
    results, slot_results, whatif_error = replays
    parts, lines = [], []
    causes: dict[str, None] = {}
    for app, overview in zip(apps, overviews):
        causes.update(dict.fromkeys(overview.causes))
        where_line, facts_line = overview.where_line, overview.facts_line
        if results is not None:
            whatif, whatif_line = _whatif(results, slot_results, app)
        else:
            whatif, whatif_line = tag("p", f"No what-if: {whatif_error}."), "no what-if replay"
        stake = f"{ms(app.at_stake)} at stake, " if app.at_stake else ""
        capacity = f"; {facts_line}" if facts_line else ""
        lines.append(
            f"{app.facts['name']}: {ms(app.facts.get('duration'))}, {stake}{where_line}{capacity}; "
            f"{whatif_line}"
        )
        parts.append(
            tag(
                "article",
                tag("h3", f"{app.facts['name']} ({app.facts['id']})"),
                tag("p", f"{stake}{where_line}{capacity}; {whatif_line}.", cls="summary"),
                overview.facts,
                tag("h4", "Where the time went"),
                overview.where,
                tag("h4", "What if"),
                whatif,
            )
        )
    summary = (
        lines[0]
        if len(lines) == 1
        else f"{len(apps)} applications, the most time at stake first; " + "; ".join(lines[:3])
    )
    return Section("overview", "Overview", summary, join(parts), tuple(causes))
