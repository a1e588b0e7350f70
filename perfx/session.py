"""The one front door: a loaded history of executions and every question perfx answers about
it. The CLI commands, the REPL, batch, the demo and Python users all go through a Session, so
they see the same features and give the same answers::

    import perfx

    session = perfx.open(["tests/data/spark-events/local-1430917381534"])
    print(session.explain("WHY TASK 3 SLOWER THAN TASK 1"))
    session.stragglers().to_dict()

Two views of the log are kept: ``raw`` as read (what the blocked-time analysis, what-if and
skew detection work on) and ``log``, the raw log plus the straggler and time-share features
that questions may name (``DESPITE straggler_cause isSame = T``), built on first use. A
question about tasks that names none of them is asked of ``raw``: being computed from the
duration, they are symptoms the search never proposes, and finding them is the straggler
analysis of every stage (0.7 s of a first ``perfx explain`` on 150,000 tasks).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from perfx.explain.blocked.stragglers import StragglerReport as StragglerAnalysis
    from perfx.explain.explanation import Explanation
    from perfx.explain.options import ExplainOptions
    from perfx.grammar.ast import Query
    from perfx.logs.model import Log

    from .notebook import ReportPage
    from .results.features import FeatureList
    from .results.skew import SkewReport
    from .results.stragglers import StragglerReport
    from .results.summary import LogSummary
    from .results.whatif import WhatIfReport

PathLike = str | Path


class Session:
    """Questions about one loaded log (any number of event logs, histories or folders)."""

    def __init__(self, raw: Log):
        self.raw = raw

    @cached_property
    def straggler_analysis(self) -> StragglerAnalysis:
        """The stragglers of ``raw``'s stages and their causes, found once for the features
        questions see, the stragglers listing and the report's stage table."""
        from perfx.explain.blocked.kept import straggler_analysis

        return straggler_analysis(self.raw)

    @cached_property
    def log(self) -> Log:
        """The log questions are asked of: ``raw`` plus straggler and time-share features."""
        from perfx.explain.blocked.features import add_straggler_features

        return add_straggler_features(self.raw, self.straggler_analysis)

    def explain(
        self,
        query: str | Query,
        options: ExplainOptions | None = None,
        *,
        bind: Sequence[str] = (),
        run: str | None = None,
        store: str | None = None,
        top: int = 5,
        strict: bool = True,
        **changes: Any,
    ) -> Explanation:
        """Answer one PXQL question (its text, or the Query parsed from it) with ``options``
        (explain.options; ``changes`` to its fields as keywords: ``sample=500``). With a
        traced ``run``, the answer carries the ``top`` culprit records of the slow task;
        without ``strict`` (a batch), a task the run cannot be linked to gets a note instead
        of an error."""
        from perfx.chain import explain
        from perfx.explain.options import ExplainOptions

        return explain(
            self._log_for(query),
            query,
            ExplainOptions.of(options, **changes),
            bind=tuple(bind),
            run=run,
            store=store,
            top=top,
            strict=strict,
        )

    def _log_for(self, query: str | Query) -> Log:
        """The view of the log ``query`` is asked of: ``raw`` for a question about tasks
        naming none of the straggler features (module docstring), else ``log``. Answers are
        the same either way (165 questions of the public and held-out logs, JSON compared);
        a query that does not parse is left to ``log``, whose answer is its error."""
        from perfx.explain.blocked.features import NAMES
        from perfx.grammar.errors import PxqlError
        from perfx.grammar.names import name_key
        from perfx.grammar.parser import parse

        if "log" in self.__dict__:  # built already: nothing to save
            return self.log
        try:
            parsed = parse(query) if isinstance(query, str) else query
        except PxqlError:
            return self.log
        named = {
            name_key(atom.feature)
            for clause in (parsed.despite, parsed.observed, parsed.expected)
            for atom in clause
        }
        if parsed.entity != "task" or named & {name_key(n) for n in NAMES}:
            return self.log
        return self.raw

    def features(self, entity: str = "task") -> FeatureList:
        """The features PXQL may name for ``entity`` (task, stage, job, app)."""
        from .results.features import FeatureList

        return FeatureList.of(self.log, entity)

    def stragglers(self) -> StragglerReport:
        """Stragglers per stage and what caused them (blocked-time analysis, NSDI 2015)."""
        from .results.stragglers import StragglerReport

        return StragglerReport.of(self.straggler_analysis, self.log)

    def whatif(self, without: Sequence[str] = ()) -> WhatIfReport:
        """Job and app times without each scenario (``"gc"``, ``"network,disk"``: names
        removed together); by default the paper's scenarios one by one."""
        from .results.whatif import WhatIfReport, scenarios_of

        return WhatIfReport.of(self.raw, scenarios_of(without))

    def skew(
        self, factor: float = 1.5, min_excess: float = 100.0, top: int | None = 20
    ) -> SkewReport:
        """Stages with computation skew and the command that re-runs the program traced."""
        from .results.skew import SkewReport

        return SkewReport.of(self.raw, factor, min_excess, top, asked=self.log)

    def report(
        self, *, questions: int = 8, options: ExplainOptions | None = None, **changes: Any
    ) -> ReportPage:
        """``perfx report``'s page of this log (overview, stages, timeline and the answers
        to up to ``questions`` questions about its stragglers; ``options`` and ``changes`` as
        for ``explain``): shown in a notebook, saved with ``.save(path)``."""
        from perfx.explain.options import ExplainOptions

        from .notebook import ReportPage
        from .report.build import render_report

        report = render_report(self, options=ExplainOptions.of(options, **changes), limit=questions)
        return ReportPage(report.html, report.items)

    def summary(self) -> LogSummary:
        """What the log holds: counts, Spark versions, skipped lines."""
        from .results.summary import LogSummary

        return LogSummary.of(self.raw)


def open(
    paths: PathLike | Sequence[PathLike] | object,
    *,
    host_metrics: PathLike | None = None,
    progress: bool = False,
    questions: Sequence[tuple[str | Query, Sequence[object]]] = (),
    app: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
    cache: bool | None = None,
) -> Session:
    """Load event logs, MapReduce histories, feature stores (``perfx ingest``) or folders of
    them (any codec, rolled, Databricks layouts) and return the Session that answers
    questions about them. ``host_metrics`` joins a CSV/Parquet of host metrics onto tasks
    and jobs. ``questions`` (queries, each with its ``?`` values): a large store is read only
    as far as they need, their executions' applications and a sample of the others.

    A source may also be Spark's monitoring REST API: ``"http://host:18080"`` (a History
    Server; ``app`` picks an application by id or name, the latest by default; ``headers``
    for a proxy's credentials) or a live SparkSession, read through its UI (what it has run
    so far: open it again after the next job).

    Event logs' tables are kept in a cache (``$PERFX_HOME/cache``) and read back while the
    logs are unchanged; ``cache=False`` reads the logs anew and keeps nothing (so does
    ``PERFX_CACHE=0`` in the environment)."""
    from perfx.logs.loader import load_log
    from perfx.logs.rest.client import RestAccess

    if "IPython" in sys.modules:  # answers show as HTML in a notebook
        from .notebook import register_formatters

        register_formatters()
    if _is_spark_session(paths):
        paths, app = _ui_of(paths), app or paths.sparkContext.applicationId  # type: ignore[attr-defined]
    sources = [paths] if isinstance(paths, (str, Path)) else list(paths)  # type: ignore[call-overload]
    entity, focus = _focus_of(questions)
    return Session(
        load_log(
            [str(p) for p in sources],
            host_metrics=host_metrics,
            progress=progress,
            focus=focus,
            entity=entity,
            app=app,
            rest=RestAccess(headers=dict(headers or {}), timeout=timeout),
            cache=cache,
        )
    )


def _is_spark_session(source: object) -> bool:
    """A SparkSession (duck-typed: pyspark is imported only by those who run one)."""
    return hasattr(source, "sparkContext") and hasattr(source, "sql")


def _ui_of(spark: object) -> str:
    """The address of a SparkSession's UI, whose REST API perfx reads."""
    from perfx.logs.rest.client import RestError

    url = spark.sparkContext.uiWebUrl  # type: ignore[attr-defined]
    if not url:
        raise RestError(
            "this SparkSession has no UI to read (spark.ui.enabled=false): start it with the UI on"
        )
    return str(url)


def _focus_of(
    questions: Sequence[tuple[str | Query, Sequence[object]]],
) -> tuple[str | None, tuple[str, ...]]:
    """The entity and the ids the questions name, when they all ask about one entity (a
    store is read for one entity's ids); else none."""
    found = [_focus(query, bind) for query, bind in questions]
    entities = {entity for entity, _ in found if entity is not None}
    if len(entities) != 1:
        return None, ()
    return entities.pop(), tuple(dict.fromkeys(i for _, ids in found for i in ids))


def _focus(query: str | Query, bind: Sequence[object]) -> tuple[str | None, tuple[str, ...]]:
    """The entity and ids a query (text, or already parsed) names; none when it does not parse
    yet (the question's own parse reports why, against the loaded log's features)."""
    from perfx.grammar.ast import Query
    from perfx.grammar.errors import PxqlError
    from perfx.grammar.parser import parse

    try:
        parsed = query if isinstance(query, Query) else parse(query)
        if bind or parsed.placeholders:
            parsed = parsed.bind(*bind)
    except PxqlError:
        return None, ()
    ids = tuple(e.text for e in (parsed.first, parsed.second) if e is not None and e.text)
    return parsed.entity, ids
