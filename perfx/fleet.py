"""Questions only a feature store (``perfx ingest``) can answer: stragglers over the
applications of a date range, read application by application so that memory holds one
application's tasks at a time."""

from __future__ import annotations

from datetime import datetime

from .results.stragglers import StragglerReport


def stragglers_over(
    store: str, since: datetime | None = None, until: datetime | None = None
) -> StragglerReport:
    """Stragglers of every application of ``store`` that started in [since, until)."""
    import pandas as pd

    from perfx.explain.blocked.stragglers import StragglerReport as Analysis
    from perfx.explain.blocked.stragglers import find_stragglers
    from perfx.logs.errors import NotALog
    from perfx.logs.store.read import app_tasks

    def epoch_ms(day: datetime | None) -> float | None:
        return None if day is None else day.timestamp() * 1000

    tasks, stages, causes = [], [], {}
    for _, app in app_tasks(store, epoch_ms(since), epoch_ms(until)):
        report = find_stragglers(app)
        tasks.append(report.tasks[report.tasks["straggler"]])
        stages.append(report.stages)
        causes.update(dict.fromkeys(report.causes))
    if not stages:
        raise NotALog(f"{store}: no application in the store started in that range")
    stage_table = pd.concat(stages, ignore_index=True)
    for cause in causes:
        stage_table[cause] = stage_table.get(cause, 0)
        stage_table[cause] = stage_table[cause].fillna(0).astype(int)
    return StragglerReport(
        Analysis(pd.concat(tasks, ignore_index=True), stage_table, tuple(causes))
    )
