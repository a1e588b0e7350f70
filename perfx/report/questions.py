"""Questions and their answers: each answer's sentence, the two executions' values for every
predicate, the gap between them split into its parts (a chart and its line), the figures of
the explanation, and, from a traced run, the input records inside the slow task that cost
the time; with a run, PerfDebug's latency heat map of its output records heads the section.

``perfx batch`` builds its page from the same parts (``answer``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from perfx.explain import wording
from perfx.explain.cause import NO_REFERENCE
from perfx.explain.explanation import format_atom
from perfx.explain.pairs import SIMILARITY
from perfx.logs.background import in_halves

from . import colours, plots
from .page import Html, Section, join, ms, percent, table, tag

HEAT_ROWS = 25
"""Output records in the latency heat map (the slowest first)."""
LABEL_CHARS = 48
"""Characters of an output record shown as its heat-map label."""


MIN_TASKS = 3
"""Stages asked about have at least this many tasks: a slow task needs peers to be compared
with (perfx picks its reference among them)."""
SLOWEST_STAGES = 3
"""The first stages (most at stake first, of MIN_TASKS tasks or more) whose tasks a report
asks about."""
COVERED_SHOWN = 10
"""Tasks named under a question that stands for several (the others counted)."""


@dataclass(frozen=True)
class Question:
    """``WHY TASK '<task>' SLOWER``, asked once for every candidate task of its ``cause``:
    ``covers`` holds them all (``task``, the longest, first)."""

    task: str
    cause: str
    covers: tuple[str, ...]

    @property
    def query(self) -> str:
        return f"WHY TASK '{self.task}' SLOWER"


def candidate_tasks(stages) -> list[str]:
    """The tasks a report would ask about, in order, each once: for the SLOWEST_STAGES first
    stages of MIN_TASKS tasks or more (the most at stake first), each one's slowest task (what
    its time waited on), then its stragglers, the longest first. Only tasks that ran longer
    than another task of their stage by more than PXQL's similarity margin: in a stage whose
    tasks all took about as long, "slower" has no task to be compared with, and perfx would
    refuse its own question."""
    tasks = stages.report.tasks
    if "id" not in tasks.columns:
        return []
    sizes = tasks["stage_key"].value_counts()
    chosen: dict[str, None] = {}  # in order, each task once (the slowest is often a straggler)
    stages_asked = [k for k in stages.first(len(sizes)) if sizes.get(k, 0) >= MIN_TASKS]
    for key in stages_asked[:SLOWEST_STAGES]:
        mine = tasks[tasks["stage_key"] == key].sort_values("duration", ascending=False)
        mine = mine[mine["duration"] * (1 - SIMILARITY) > mine["duration"].min()]
        picks = [*mine["id"].iloc[:1], *mine.loc[mine["straggler"], "id"]]
        chosen.update(dict.fromkeys(map(str, picks)))
    return list(chosen)


def default_questions(tasks: Sequence[str], causes: dict[str, str], limit: int) -> list[Question]:
    """One question per cause (``causes``: each task's, as ``perfx explain`` names it) among
    ``tasks`` (``candidate_tasks``, in order): about the first task of that cause, standing for
    every task of it; at most ``limit``. Eight cold starts are one question, not eight."""
    grouped: dict[str, list[str]] = {}
    for task in tasks:
        grouped.setdefault(causes.get(task, NO_REFERENCE), []).append(task)
    return [Question(ids[0], cause, tuple(ids)) for cause, ids in grouped.items()][:limit]


def how_chosen(limit: int, asked: bool) -> str:
    """The page's words for how ``default_questions`` chose its questions (or found none)."""
    if not asked:
        return (
            f"No task to ask about: in none of the {SLOWEST_STAGES} first stages of "
            f"{MIN_TASKS} tasks or more did a task run more than {SIMILARITY:.0%} longer than "
            "another."
        )
    return (
        f"Why was each of these tasks slower? Among the slowest task of each of the "
        f"{SLOWEST_STAGES} stages with the most time at stake (of {MIN_TASKS} tasks or more) "
        "and their stragglers, the longest first, one question per cause (as perfx explain "
        f"names it), about its longest task, standing for the others (at most {limit}); each "
        f"ran more than {SIMILARITY:.0%} longer than another task of its stage, so that it has "
        "one to be compared with."
    )


def _values(explanation) -> Html:
    """Every predicate of the answer with the two executions' values of its feature."""
    user = tuple(explanation.query_ast.despite.atoms) if explanation.query_ast is not None else ()
    clauses = [("DESPITE", a) for a in user + explanation.despite_atoms]
    clauses += [("BECAUSE", a) for a in explanation.because_atoms]
    first, second = explanation.pair
    rows = []
    for clause, atom in clauses:
        values = explanation.values.get(atom.feature)
        a, b = (
            ("-", "-")
            if values is None
            else (
                wording.value_text(values.first, values.unit),
                wording.value_text(values.second, values.unit),
            )
        )
        rows.append((clause, tag("code", format_atom(atom)), wording.label(atom.feature), a, b))
    if not rows:
        return Html("")
    return table(
        [
            "clause",
            "predicate",
            "feature",
            f"{explanation.entity} {first}",
            f"{explanation.entity} {second}",
        ],
        rows,
    )


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _figures(explanation) -> Html:
    """The explanation's cumulative figures per predicate, and overall."""
    data = explanation.to_dict()
    rows: list[tuple[object, ...]] = [
        (
            "DESPITE",
            tag("code", s["predicate"]),
            _figure(s["relevance"]),
            "",
            _figure(s["generality"]),
        )
        for s in data["despite"]
    ]
    rows += [
        (
            "BECAUSE",
            tag("code", s["predicate"]),
            "",
            _figure(s["precision"]),
            _figure(s["generality"]),
        )
        for s in data["because"]
    ]
    m = data["metrics"]
    rows.append(("overall", "", *(_figure(m[k]) for k in ("relevance", "precision", "generality"))))
    return table(
        ["clause", "predicate", "relevance", "precision", "generality"], rows, numeric=(2, 3, 4)
    )


def _gap(explanation, key: str) -> Html:
    gap = explanation.gap
    if gap is None:
        return Html("")
    lines = explanation.gap_lines()[
        : len(explanation.gap_lines()) - len(explanation.culprit_lines())
    ]
    first, second = explanation.pair
    chart = plots.gap_bars(
        [(p.label, p.first, p.second) for p in gap.parts],
        (f"{explanation.entity} {first}", f"{explanation.entity} {second}"),
        f"gap-{key}",
    )
    return join([tag("ul", *(tag("li", line) for line in lines)), tag("figure", chart)])


def _culprits(explanation) -> Html:
    c = explanation.culprits
    if c is None:
        return Html("")
    head = explanation.culprit_lines()[0]
    parts = [tag("h4", "Culprit records"), tag("p", head)]
    if c.get("keys"):
        parts.append(
            table(
                ["heavy key", "records", "share of the partition's"],
                [(k["key"], f"{k['records']:,}", percent(k["share"], 0)) for k in c["keys"]],
                numeric=(1, 2),
            )
        )
    if c["records"]:
        parts.append(
            table(
                ["#", "location", "record", "impact", "share of the task"],
                [
                    (
                        rank,
                        r["location"],
                        tag("code", r["excerpt"]),
                        ms(r["impact_ms"]),
                        percent(r.get("share"), 0),
                    )
                    for rank, r in enumerate(c["records"], 1)
                ],
                numeric=(0, 3, 4),
            )
        )
    else:
        parts.append(tag("p", "No input record of that partition has a measurable impact."))
    return join(parts)


def diagnosis_name(item) -> str | None:
    """The cause an answered question's gap names, if any."""
    if not item.ok or item.explanation.gap is None or item.explanation.gap.diagnosis is None:
        return None
    return item.explanation.gap.diagnosis.name


def _covers(question: Question | None, cause: str | None) -> Html:
    """What a question stands for: its cause in its colour, and the other tasks of that cause."""
    if cause is None:
        return Html("")
    if question is None or len(question.covers) < 2:
        return tag("p", "Cause: ", colours.swatch(cause), cls="note")
    others = question.covers[1:]
    named = ", ".join(others[:COVERED_SHOWN]) + (
        f" and {len(others) - COVERED_SHOWN:,} more" if len(others) > COVERED_SHOWN else ""
    )
    return tag(
        "p",
        "Cause: ",
        colours.swatch(cause),
        f" — this question stands for {len(question.covers):,} tasks of that cause; the others: "
        f"{named}.",
        cls="note covers",
        data_covers=str(len(question.covers)),
    )


def answer(number: int, item, question: Question | None = None) -> Html:
    """One question (a ``perfx.batch.BatchItem``) and its answer, as an article; ``question``
    says which tasks of the same cause it stands for."""
    binding = f" with {', '.join(item.binding)}" if item.binding else ""
    head = tag("h3", f"{number}. ", tag("code", item.query), binding)
    cause = diagnosis_name(item) or (question.cause if question is not None else None)
    if not item.ok:
        return tag(
            "article",
            head,
            _covers(question, cause),
            tag("p", f"Not answered: {item.error}", cls="failed"),
            id=f"q{number}",
        )
    return tag(
        "article",
        head,
        _covers(question, cause),
        explanation_body(item.explanation, str(number)),
        id=f"q{number}",
    )


def explanation_body(e, key: str) -> Html:
    """One answer: its sentence, both executions' values for every predicate, the gap chart
    and its lines, the culprit records and the explanation's figures. ``key`` tells its
    charts apart from the page's others. Also a notebook's view of an answer (perfx.notebook)."""
    because = plots.figures_chart(e.to_dict()["because"], f"figures-{key}")
    notes = e._footer()
    return join(
        [
            tag("p", e.sentence(), cls="sentence"),
            _values(e),
            _gap(e, key),
            _culprits(e),
            tag(
                "details",
                tag("summary", "Figures of the explanation"),
                _figures(e),
                tag("figure", because) if because else "",
                tag("ul", *(tag("li", n) for n in notes)),
                open="open",
            ),
        ]
    )


def heat_map(run: str, store=None) -> Html:
    """PerfDebug's latency heat map of a traced run's output records, the slowest first."""
    from perfx.chain import open_run
    from perfx.isolation.queries import outputs

    frame = outputs(open_run(run, store), limit=HEAT_ROWS)
    if frame.empty:
        return tag("p", f"Run {run} has no output record.")
    labels = [_short(f"{r.record}") for r in frame.itertuples()]
    chart = plots.latency_heatmap(
        labels, frame[["latency_ms", "remediated_ms"]].to_numpy(float), f"heat-{run}"
    )
    caption = (
        f"Traced run {run}: the {len(frame)} slowest output records, each with its latency (the "
        "time spent on the records it derives from) and its latency had its most expensive input "
        "record been left out."
    )
    return tag("figure", chart, tag("figcaption", caption))


def _short(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


ANSWERS_IN_HALVES = 4
"""From this many answers on, half of them are rendered in a forked child
(``background.in_halves``): each draws two charts (a fifth of a second or more), while the
report's other children are done with theirs and a core waits."""


def _answers(items: Sequence, by_query: dict, numbers: list[int]) -> dict[int, Html]:
    """The answers (``answer``) to the questions numbered ``numbers`` (from 1) of ``items``."""
    return {n: answer(n, items[n - 1], by_query.get(items[n - 1].query)) for n in numbers}


def questions_section(
    items: Sequence,
    *,
    run: str | None = None,
    store=None,
    how: str = "",
    questions: Sequence[Question] = (),
) -> Section:
    """The questions asked (``BatchItem``s) and their answers; with a traced ``run``, its heat
    map first. ``questions`` (the report's own, in the order asked) say which tasks each
    answer stands for."""
    answered = sum(item.ok for item in items)
    status = "all answered" if answered == len(items) else f"{len(items) - answered} NOT answered"
    with_culprits = sum(1 for i in items if i.ok and i.explanation.culprits is not None)
    summary = f"{answered} of {len(items)} questions answered ({status})" if items else "none asked"
    if run is not None:
        summary += f"; {with_culprits} with culprit records from run {run}"
    parts = [tag("p", how, cls="note")] if how else []
    if run is not None:
        parts += [tag("h3", f"Traced run {run}"), heat_map(run, store)]
    by_query = {q.query: q for q in questions}
    numbers = list(range(1, len(items) + 1))
    answers = in_halves(partial(_answers, items, by_query), numbers, ANSWERS_IN_HALVES)
    parts += [answers[n] for n in numbers]
    covered = sum(len(q.covers) for q in questions)
    if covered > len(questions):
        summary += f"; they stand for {covered:,} tasks, one question per cause"
    causes = [diagnosis_name(item) or "" for item in items]
    causes += [q.cause for q in questions]
    causes += [
        p.label
        for item in items
        if item.ok and item.explanation.gap is not None
        for p in item.explanation.gap.parts
        if p.first > 0 or p.second > 0
    ]
    return Section(
        "questions", "Questions", summary, join(parts), tuple(dict.fromkeys(c for c in causes if c))
    )
