"""What-if job and app completion times: without a blocked-time component, or without stragglers.

Each task's duration is shortened (blocked time of the named components subtracted, floored
at zero; for ``stragglers``, every task slower than its stage's median progress rate gets the
median rate, as the paper's section 5.1 does after Dolly) and the log is replayed
(``replay``). Components are removed first and stragglers after, on the shortened durations.

As in the paper, the improvement compares the what-if replay with the replay of the real
durations (``modelled``), not with the real time, so the model's own error does not count as
improvement; that error, modelled vs real, is reported beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from perfx.logs.model import Log
from perfx.logs.progress import stage_median, work

from ..errors import ExplainError
from . import components
from .replay import REQUIRED, app_column, outside_their_app, replayable, schedule

STRAGGLERS = "stragglers"
CHOICES = (*components.RESOURCES, STRAGGLERS)
"""Names ``--without`` accepts."""


class UnknownScenario(ValueError):
    """A ``--without`` name that is neither a blocked-time component nor ``stragglers``."""

    exit_code = 2

    def __init__(self, names: Sequence[str]):
        super().__init__(
            f"unknown what-if {', '.join(map(repr, names))}; choose from {', '.join(CHOICES)}"
        )


@dataclass(frozen=True)
class WhatIf:
    """Per job and per app: ``real_ms``, ``modelled_ms`` (replay of the real durations),
    ``whatif_ms``, ``improvement`` (1 - whatif/modelled) and ``model_error``
    ((modelled - real) / real); ``without`` names what was removed; ``slots`` is the factor
    every executor's slot count was scaled by (1: as it ran)."""

    jobs: pd.DataFrame
    apps: pd.DataFrame
    without: tuple[str, ...]
    slots: float = 1.0
    app_slots: dict[str, int] | None = None
    """With ``slots``: each app's task slots in that replay (its executors' summed)."""
    left_out: int = 0
    """Task attempts not replayed: their times lie outside their application's logged span
    (``replay.outside_their_app``)."""
    left_out_by_app: dict[str, int] = field(default_factory=dict)
    """``left_out`` per application run (``app_key``, else ``app_id``) that has any: a report
    says each application's own, where it said the log's of every one (a probe)."""


def without_stragglers(tasks: pd.DataFrame, durations: pd.Series) -> pd.Series:
    """Durations with every task slower than its stage's median progress rate set to the
    median rate (median over the stage's successful attempts)."""
    size = work(tasks)["size"]
    rate = durations / size
    ok = (
        tasks["status"].astype(str).eq("SUCCESS")
        if "status" in tasks.columns
        else pd.Series(True, index=tasks.index)
    )
    median = stage_median(rate.where(ok), tasks["stage_key"])
    return durations.where(~(rate > median), median * size)


def new_durations(tasks: pd.DataFrame, without: Sequence[str]) -> pd.Series:
    """Each task's duration (finish - launch) with ``without`` removed."""
    unknown = [n for n in without if n not in CHOICES]
    if unknown:
        raise UnknownScenario(unknown)
    durations = (pd.to_numeric(tasks["finish_time"]) - pd.to_numeric(tasks["launch_time"])).astype(
        float
    )
    causes = components.expand([n for n in without if n != STRAGGLERS])
    durations = (durations - components.blocked_ms(tasks, causes)).clip(lower=0)
    if STRAGGLERS in without:
        durations = without_stragglers(tasks, durations)
    return durations


def _compare(real: pd.DataFrame, changed: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    out = real.rename(columns={"replay_ms": "modelled_ms"})
    out = out.merge(
        changed[[*keys, "replay_ms"]].rename(columns={"replay_ms": "whatif_ms"}),
        on=keys,
        how="left",
    )
    out["improvement"] = 1 - out["whatif_ms"] / out["modelled_ms"].where(out["modelled_ms"] > 0)
    out["model_error"] = (out["modelled_ms"] - out["real_ms"]) / out["real_ms"].where(
        out["real_ms"] > 0
    )
    return out


def with_slots(slots: pd.Series, factor: float) -> pd.Series:
    """Each executor's slot count scaled by ``factor``, rounded, at least one: as many more
    (or fewer) task slots as that many more (or fewer) executors of the same size give."""
    return (slots * factor).round().clip(lower=1).astype(int)


def whatifs(
    log: Log, scenarios: Sequence[Sequence[str]], slot_factors: Sequence[float] = ()
) -> list[WhatIf]:
    """One ``WhatIf`` per scenario (each a list of names removed together), then one per
    slot factor (the real durations replayed on every executor's slots scaled by it:
    ``with_slots``); the replay of the real durations is shared."""
    attempts = replayable(log.tasks)
    if len(log.tasks) and attempts.empty:
        missing = [c for c in REQUIRED if c not in log.tasks.columns]
        if missing:
            raise ExplainError(
                f"what-if replays Spark stages, and this log's tasks have no {', '.join(missing)} "
                "(MapReduce and tabular logs have jobs and tasks only: try perfx stragglers)"
            )
        raise ExplainError(
            "what-if replays finished task attempts, and no task of this log has both a launch "
            "and a finish time in a stage of a job (a log that ends before its tasks do?)"
        )
    outside = outside_their_app(attempts, log.apps)
    left_out = int(outside.sum())
    if left_out == len(attempts) and left_out:
        which = (
            "the one task attempt of this log was launched outside its"
            if left_out == 1
            else f"all {left_out} task attempts of this log were launched outside their"
        )
        raise ExplainError(
            f"what-if replays Spark stages, and {which} application's logged span: damaged "
            "times (perfx logs --entity task shows them)"
        )
    by_app = (
        {str(k): int(n) for k, n in attempts[outside].groupby(app_column(attempts)).size().items()}
        if left_out
        else {}
    )
    attempts = attempts[~outside] if left_out else attempts
    changed = [new_durations(attempts, without) for without in scenarios]
    planned = schedule(attempts, log.jobs, log.apps, log.stages)
    base = planned.replay((attempts["finish_time"] - attempts["launch_time"]).astype(float))
    results = []
    for without, durations in zip(scenarios, changed):
        alt = planned.replay(durations)
        results.append(
            WhatIf(
                _compare(base.jobs, alt.jobs, ["app_id", "job_id"]),
                _compare(base.apps, alt.apps, ["app_id"]),
                tuple(without),
                left_out=left_out,
                left_out_by_app=by_app,
            )
        )
    real = (attempts["finish_time"] - attempts["launch_time"]).astype(float)
    for factor in slot_factors:
        slots = with_slots(planned.slots, factor)
        alt = replace(planned, slots=slots).replay(real)
        per_app = slots.groupby(slots.index.str.split("\0").str[0]).sum()
        results.append(
            WhatIf(
                _compare(base.jobs, alt.jobs, ["app_id", "job_id"]),
                _compare(base.apps, alt.apps, ["app_id"]),
                (),
                factor,
                {str(k): int(v) for k, v in per_app.items()},
                left_out,
                by_app,
            )
        )
    return results


def whatif(log: Log, without: Sequence[str]) -> WhatIf:
    """Replays the log's tasks as they were and with ``without`` removed."""
    return whatifs(log, [without])[0]
