"""``perfx report``'s page: the overview of each application, its stages, its timeline and
the questions asked of it (by default, one per cause among the stragglers of the stages with
the most time at stake), applications and stages by impact, every cause in one colour."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfx.explain.options import ExplainOptions
from perfx.logs.background import Background
from perfx.logs.model import log_notes

from . import colours, plots
from .overview import app_overviews, applications, overview_replays, overview_section
from .page import document
from .questions import candidate_tasks, default_questions, how_chosen, questions_section
from .stages import stage_table, stages_section
from .timeline import timeline_section


def damaged_attempts(log) -> frozenset[str]:
    """The ids of the log's task attempts launched outside their application's logged span
    (``replay.outside_their_app``), which neither the what-ifs nor the timelines show."""
    from perfx.explain.blocked.replay import outside_their_app

    tasks = log.tasks
    if not {"id", "launch_time"} <= set(tasks.columns) or "app_id" not in tasks.columns:
        return frozenset()
    return frozenset(tasks.loc[outside_their_app(tasks, log.apps), "id"].astype(str))


@dataclass(frozen=True)
class Report:
    """The page and the questions it answered (``perfx.batch.BatchItem``)."""

    html: str
    items: list


def render_report(
    session,
    items: Sequence | None = None,
    options: ExplainOptions | None = None,
    *,
    sources: Sequence[str] = (),
    run: str | None = None,
    store=None,
    limit: int = 8,
) -> Report:
    """The report of a :class:`perfx.session.Session`'s log. ``items`` are
    answered questions (``perfx.batch.BatchItem``); without them the stragglers of the stages
    with the most at stake are asked about (one question per cause, at most ``limit``), with
    ``options`` passed to the explainer and culprit records from the traced ``run``."""
    from perfx.batch import expand, run_batch
    from perfx.explain.cause import cause_names

    log = session.log
    # the what-ifs replay the log in a child (started first: it draws nothing) while this
    # process names the stragglers' causes; the timelines, each application's charts and facts,
    # and the stages' charts are drawn in three more while it asks the questions (with the
    # charting library imported here, once, before the forks)
    replays = Background.start(overview_replays, log)
    plots.load_pyplot()
    result = session.stragglers()
    stakes = result.at_stake()
    stages = stage_table(log, session.straggler_analysis, result.named, stakes)
    apps = applications(log, stakes)
    report = stages.report
    stragglers = (
        set(report.tasks.loc[report.tasks["straggler"], "id"].astype(str))
        if "id" in report.tasks
        else set()
    )
    timeline = Background.start(timeline_section, apps, stragglers, damaged_attempts(log))
    overviews = Background.start(app_overviews, log, apps)
    stage_page = Background.start(stages_section, log, stages)  # its charts, while it asks
    how = "Questions from the queries file."
    questions: list = []
    if items is None:
        tasks = candidate_tasks(stages)
        causes = dict(result.named or {})
        causes.update(cause_names(log, [t for t in tasks if t not in causes]))
        questions = default_questions(tasks, causes, limit)
        queries = [q.query for q in questions]
        items = run_batch(session, expand(queries, []), options, run=run, store=store)
        how = how_chosen(limit, asked=bool(queries))
    answers = questions_section(items, run=run, store=store, how=how, questions=questions)
    rest = [stage_page.result(), timeline.result(), answers]
    overview = overview_section(apps, replays.result(), overviews.result())
    sections = [overview, *rest]  # the what-ifs waited for last
    legend = colours.legend(list(dict.fromkeys(c for s in sections for c in s.causes)))
    title = "perfx report: " + ", ".join(str(a.facts["name"]) for a in apps[:3])
    intro = [
        f"{len(log.tasks):,} task attempts from {', '.join(sources) or ', '.join(log.sources)}."
    ]
    if note := log_notes(log):  # a page about part of a log says so
        intro.append(note)
    return Report(document(title, intro, sections, legend), list(items))
