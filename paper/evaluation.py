"""The paper's evaluation (section 6) on a log: PerfXplain against RuleOfThumb and SimButDiff.

Protocol: each job goes to the training log with probability 1/2, the rest is the test log;
the pair of interest is drawn from the training log (``protocol``); each method
explains it from the training log, and the explanation is measured on the test log
(precision P(obs | bec ∧ des′ ∧ des), generality, relevance). Repeated ``runs`` times.

Experiments (paper figure or table -> ``experiment`` key of the records):

* ``fig3a``/``fig3b``: precision vs width 0–5, WhyLastTaskFaster / WhySlowerDespiteSameNumInstances
  (``fig3b`` also gives Figure 4b, precision vs generality);
* ``fig3c``: training log of simple-groupby jobs only, pair and test log simple-filter;
* ``fig3d``: width 3, training log of 10–50 % of the jobs, tested on the rest;
* ``fig4c``: PerfXplain at feature levels 1–3 (level 3 is ``fig3b``);
* ``table3``: relevance of the query with no DESPITE, with the user's, and with a generated
  DESPITE of width 3 (section 6.4); it also gives ``fig4a``, the generated DESPITE's
  relevance at widths 0–5.

``evaluate(log, runs, seed)`` returns the records; ``report`` summarises and
writes them.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field

import numpy as np

from perfx.explain.engine import explain
from perfx.explain.errors import ExplainError
from perfx.explain.explanation import format_conjunction
from perfx.explain.metrics import measurement_set, metrics_on
from perfx.explain.options import DEFAULT_SAMPLE, ExplainOptions
from perfx.grammar.printer import to_pxql
from perfx.logs.model import Log

from .protocol import bound, candidates, query, restrict, split_jobs, without_despite

METHODS = ("perfxplain", "ruleofthumb", "simbutdiff")
WIDTHS = tuple(range(6))
LOG_FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5)
LEVELS = (1, 2, 3)
DESPITE_WIDTH = 3
DESPITE_WIDTHS = tuple(range(6))
LAST = "WhyLastTaskFaster"
SLOWER = "WhySlowerDespiteSameNumInstances"
EXPERIMENTS = ("fig3a", "fig3b", "fig3c", "fig3d", "fig4c", "table3")
TITLES = {
    "fig3a": f"Figure 3(a): precision vs width, {LAST}",
    "fig3b": f"Figure 3(b): precision vs width, {SLOWER}",
    "fig3c": f"Figure 3(c): precision vs width, {SLOWER}, training log of simple-groupby jobs, simple-filter pair and test log",
    "fig3d": f"Figure 3(d): width-3 precision vs training log size, {SLOWER}",
    "fig4a": "Figure 4(a): relevance of the generated DESPITE vs its width (0 = no DESPITE)",
    "fig4b": f"Figure 4(b): precision vs generality (widths 1-5), {SLOWER}",
    "fig4c": f"Figure 4(c): PerfXplain precision vs width by feature level, {SLOWER}",
    "table3": "Table 3: relevance with no DESPITE, the user's DESPITE, and a generated DESPITE (width 3)",
}
"""The paper's caption of each experiment's figure or table (fig4a and fig4b come with
table3 and fig3b)."""


@dataclass
class Evaluation:
    """Everything measured: one record per (experiment, run, method, width, ...)."""

    records: list[dict] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)
    runs: int = 0
    seed: int = 0
    sample: int = DEFAULT_SAMPLE

    def add(self, **record) -> None:
        self.records.append(record)

    def skip(self, experiment: str, run: int, reason: str) -> None:
        self.skipped.append({"experiment": experiment, "run": run, "reason": reason})


def evaluate(
    log: Log,
    runs: int = 10,
    seed: int = 0,
    sample: int = DEFAULT_SAMPLE,
    progress: bool = False,
    experiments: tuple[str, ...] = EXPERIMENTS,
) -> Evaluation:
    """Run the section-6 experiments ``runs`` times on ``log`` (jobs and tasks tables)."""
    unknown = set(experiments) - set(EXPERIMENTS)
    if unknown:
        raise ValueError(
            f"unknown experiment(s) {', '.join(sorted(unknown))}; known: {', '.join(EXPERIMENTS)}"
        )
    if "id" not in log.jobs.columns or log.jobs.empty:
        raise ExplainError("the evaluation needs a log with a jobs table (e.g. perfx fixtures ec2)")
    result = Evaluation(runs=runs, seed=seed, sample=sample)
    steps = {
        "fig3a": 1,
        "fig3b": 1,
        "fig3c": 1,
        "fig3d": len(LOG_FRACTIONS),
        "fig4c": 1,
        "table3": 2,
    }
    total = runs * sum(steps[e] for e in experiments)
    job_ids = log.jobs["id"].astype(str).to_numpy()
    with _progress(progress, total) as advance:
        for run in range(runs):
            rng = np.random.default_rng([seed, run])
            train_ids, test_ids = split_jobs(job_ids, 0.5, rng)
            train, test = restrict(log, train_ids), restrict(log, test_ids)
            ctx = _Run(result, run, seed * 1000 + run, sample, rng)
            for experiment in experiments:
                if experiment == "fig3a":
                    ctx.widths("fig3a", LAST, train, test)
                elif experiment == "fig3b":
                    ctx.widths("fig3b", SLOWER, train, test)
                elif experiment == "fig3c":
                    ctx.other_script(log)
                elif experiment == "fig3d":
                    for fraction in LOG_FRACTIONS:
                        ctx.log_size(log, job_ids, fraction)
                        advance()
                    continue
                elif experiment == "fig4c":
                    ctx.levels(train, test)
                elif experiment == "table3":
                    for name in (LAST, SLOWER):
                        ctx.despite(name, train, test)
                        advance()
                    continue
                advance()
    return result


class _Run:
    """One repetition: its seed, its random generator and where it records."""

    def __init__(
        self, result: Evaluation, run: int, seed: int, sample: int, rng: np.random.Generator
    ):
        self.result, self.run, self.seed, self.sample, self.rng = result, run, seed, sample, rng
        self._sets: dict = {}
        """Measurement sets by (id of the test log, query, DESPITE); each keeps its log alive
        (``Columns.log``), so an id is never reused within the run."""

    def widths(
        self,
        experiment: str,
        name: str,
        train: Log,
        test: Log,
        methods=METHODS,
        level: int = 3,
        pair: tuple[str, str] | None = None,
        **extra,
    ) -> None:
        """Precision and generality on ``test`` of each method's explanation at widths 0–5.
        The baselines rank predicates once, so their width-w answer is the first w
        predicates of their widest one; PerfXplain's search is rerun per width."""
        q = query(name)
        pair = pair or self._pair(experiment, name, train, q)
        if pair is None:
            return
        empty = self._measure(test, q, (), ())
        for method in methods:
            widest = (
                None
                if method == "perfxplain"
                else self._explain(
                    experiment, train, bound(q, pair), method=method, width=max(WIDTHS)
                )
            )
            for width in WIDTHS:
                if width == 0:
                    despite, because, figures = (), (), empty
                else:
                    answer = widest or self._explain(
                        experiment, train, bound(q, pair), method=method, width=width, level=level
                    )
                    if answer is None:
                        continue
                    despite, because = answer.despite_atoms, answer.because_atoms[:width]
                    figures = self._measure(test, q, despite, because)
                self.result.add(
                    experiment=experiment,
                    query=name,
                    run=self.run,
                    method=method,
                    width=width,
                    level=level,
                    pair=list(pair),
                    precision=figures.precision,
                    generality=figures.generality,
                    explanation=format_conjunction(because),
                    **extra,
                )

    def other_script(self, log: Log) -> None:
        """Section 6.5: the pair and the test log are simple-filter jobs, the training log
        holds only simple-groupby jobs (a random half of them) plus the pair."""
        q = query(SLOWER)
        jobs = log.jobs
        script = jobs["pig_script"].astype(str).to_numpy()
        pair = candidates(log, SLOWER, q, table_filter=script == "simple-filter").pick(
            jobs, self.rng
        )
        if pair is None:
            self.result.skip(
                "fig3c", self.run, "no simple-filter pair for which the query makes sense"
            )
            return
        groupby = jobs.loc[script == "simple-groupby", "id"].astype(str).to_numpy()
        train_ids, _ = split_jobs(groupby, 0.5, self.rng)
        train = restrict(log, np.concatenate([train_ids, list(pair)]))
        test = restrict(log, jobs.loc[script == "simple-filter", "id"].astype(str).to_numpy())
        self.widths("fig3c", SLOWER, train, test, pair=pair)

    def log_size(self, log: Log, job_ids: np.ndarray, fraction: float) -> None:
        """Section 6.6: width 3, training log of ``fraction`` of the jobs, tested on the rest."""
        train_ids, test_ids = split_jobs(job_ids, fraction, self.rng)
        train, test = restrict(log, train_ids), restrict(log, test_ids)
        q = query(SLOWER)
        pair = self._pair("fig3d", SLOWER, train, q)
        if pair is None:
            return
        for method in METHODS:
            answer = self._explain("fig3d", train, bound(q, pair), method=method, width=3)
            if answer is not None:
                figures = self._measure(test, q, answer.despite_atoms, answer.because_atoms)
                self.result.add(
                    experiment="fig3d",
                    query=SLOWER,
                    run=self.run,
                    method=method,
                    width=3,
                    level=3,
                    fraction=fraction,
                    precision=figures.precision,
                    generality=figures.generality,
                    explanation=format_conjunction(answer.because_atoms),
                )

    def levels(self, train: Log, test: Log) -> None:
        """Section 6.8: PerfXplain with isSame only (1), + compare and diff (2), + base (3)."""
        pair = self._pair("fig4c", SLOWER, train, query(SLOWER))
        if pair is None:
            return
        for level in LEVELS:
            self.widths(
                "fig4c", SLOWER, train, test, methods=("perfxplain",), level=level, pair=pair
            )

    def despite(self, name: str, train: Log, test: Log) -> None:
        """Section 6.4: relevance P(exp | des) with no DESPITE, the user's, and a generated one
        of width 3 (Table 3), and of widths 0–5 (Figure 4a)."""
        q = query(name)
        pair = self._pair("table3", name, train, q)
        if pair is None:
            return
        bare = without_despite(q)
        answers = {
            width: self._explain(
                "table3",
                train,
                bound(bare, pair),
                method="perfxplain",
                width=1,
                despite_width=width,
            )
            for width in DESPITE_WIDTHS
            if width
        }
        none = self._measure(test, bare, (), ()).relevance
        for width in DESPITE_WIDTHS:
            answer = answers.get(width)
            if width and answer is None:
                continue
            atoms = answer.despite_atoms if answer is not None else ()
            self.result.add(
                experiment="fig4a",
                query=name,
                run=self.run,
                method="perfxplain",
                pair=list(pair),
                width=width,
                relevance=self._measure(test, bare, atoms, ()).relevance if width else none,
                despite=format_conjunction(atoms),
            )
        answer = answers[DESPITE_WIDTH]
        if answer is None:
            return
        self.result.add(
            experiment="table3",
            query=name,
            run=self.run,
            method="perfxplain",
            pair=list(pair),
            relevance_none=none,
            relevance_user=self._measure(test, q, (), ()).relevance,
            relevance_generated=self._measure(test, bare, answer.despite_atoms, ()).relevance,
            despite=format_conjunction(answer.despite_atoms),
        )

    def _pair(self, experiment: str, name: str, train: Log, q) -> tuple[str, str] | None:
        pair = candidates(train, name, q).pick(train.table(q.entity), self.rng)
        if pair is None:
            self.result.skip(
                experiment, self.run, f"{name}: no pair of interest in the training log"
            )
        return pair

    def _explain(
        self,
        experiment: str,
        train: Log,
        q,
        *,
        method: str,
        width: int,
        level: int = 3,
        despite_width: int | None = None,
    ):
        try:
            options = ExplainOptions(
                width=width,
                despite_width=despite_width,
                sample=self.sample,
                seed=self.seed,
                method=method,
                level=level,
            )
            return explain(train, q, options)
        except ExplainError as err:
            self.result.skip(experiment, self.run, f"{method}: {err}")
            return None

    def _measure(self, test: Log, q, despite, because):
        """``measure`` on ``test``, building each (log, query, DESPITE) measurement set once:
        the widths and methods of one experiment share it."""
        key = (id(test), to_pxql(q), tuple(despite))
        if key not in self._sets:
            self._sets[key] = measurement_set(test, q, despite, sample=self.sample, seed=self.seed)
        cols, ts = self._sets[key]
        return metrics_on(cols, ts, because)


def _progress(wanted: bool, total: int):
    """A rich progress bar yielding an ``advance()`` callable (a no-op when not wanted)."""
    if not wanted:
        return nullcontext(lambda: None)
    from contextlib import contextmanager

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    @contextmanager
    def bar():
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            transient=True,
        ) as p:
            task = p.add_task("Evaluating", total=total)
            yield lambda: p.advance(task)

    return bar()
