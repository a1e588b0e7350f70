"""Replays the scheduling of an application's tasks with new durations (paper section 2.3.2,
Figure 2), all of its jobs together on its executors' slots.

Subtracting blocked time from each task and its original finish is not enough: later waves
start earlier and tasks move to slots freed sooner. Nor can a job be replayed alone: the jobs
of one SQL query run at once and share the executors, so a job's tasks wait for slots other
jobs hold. So each application is replayed as one list scheduler over its executors' slots.

* **Slots.** Each executor has as many slots as it ran attempts at once anywhere in the app
  (``slots.executor_slots``). It joins at its first task, as long after that task's stage
  became ready as it really did, and leaves likewise (``pool``).
* **Tasks.** Every attempt with a launch and a finish (failed and killed ones held a slot too)
  takes, in real launch order, the slot of its executor that frees first, or another
  executor's when that one frees more than Spark's locality wait sooner (``pool``). It
  launches when both that slot is free and its stage is ready, plus its *held delay*: how
  long it really waited although both held (locality wait, the driver's lag in offering a
  slot; ``slots.held_delays``). Time it waited for a slot is not kept: the replay's slots,
  shared by every job of the app, decide it.
* **Stages** are ready at their real submission, relative to what ran before them: a stage
  is ready after every stage of its job that had finished before it was submitted, plus the
  real gap between those finishes and its submission (time the driver spent submitting it);
  a stage with nothing before it keeps its real offset from its job's submission.
* **Jobs** are submitted in the same way relative to the jobs of their app that had finished
  before them, else at their real time (jobs that overlapped still overlap), and end at their
  last stage's end plus their real tail (the driver's time to wrap up). A job without tasks
  (all stages skipped) keeps its real duration. An app ends at its last job's end plus its
  real tail.

It is conservative: a stage waits for every stage of its job that finished before it, not
only its parents, and a job for every job before it, so no what-if gets credit for running
earlier than the real order allows. With the real durations the replay lands near the real
times; where it does not (a task moved to another executor's slot, a slot count from peak
concurrency that the executor did not always offer) is the model error ``whatif`` reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from .pool import SlotPool
from .slots import executor_slots, held_delays, slot_release

JOB_START = ("submission_time", "start_time")
JOB_END = ("completion_time", "end_time")
APP_START = ("start_time", "submission_time")
APP_END = ("end_time", "completion_time")


@dataclass(frozen=True)
class Replay:
    """Real and replayed bounds: ``stages``, ``jobs`` and ``apps`` tables, times in ms. Their
    ``app_id`` column holds the app run's ``app_key`` where the log has one (attempts of one
    app are replayed apart). ``jobs.overlaps`` lists the jobs of the same app that really ran
    at the same time as each job."""

    stages: pd.DataFrame
    jobs: pd.DataFrame
    apps: pd.DataFrame


REQUIRED = ("app_id", "job_id", "stage_key", "launch_time", "finish_time")
"""Task columns the replay needs; a table without them (a log with no tasks) replays nothing."""


def replayable(tasks: pd.DataFrame) -> pd.DataFrame:
    """Every Spark task attempt with a launch and a finish time (rows without an app, job or
    stage — MapReduce tasks loaded beside Spark logs — have no stage to replay)."""
    if not set(REQUIRED) <= set(tasks.columns):
        return pd.DataFrame({c: pd.Series(dtype=float) for c in REQUIRED})
    launch = pd.to_numeric(tasks["launch_time"], errors="coerce")
    finish = pd.to_numeric(tasks["finish_time"], errors="coerce")
    placed = tasks[["app_id", "job_id", "stage_key"]].notna().all(axis=1)
    return tasks[placed & launch.notna() & finish.notna() & (finish >= launch)]


def outside_their_app(attempts: pd.DataFrame, apps: pd.DataFrame | None) -> pd.Series:
    """Which ``attempts`` (``replayable``'s) launched before their application started or
    after it ended, by its logged start and end: impossible times, one clock being the
    driver's for both, so a damaged line's (a task pasted in from another log, five years
    before its app). Replayed, one would stretch its job and app over the years between. A
    task may finish after its app ended (one failing as the app stops: ``Filesystem
    closed``), and is replayed."""
    bounds = _bounds(apps, ["app_id"], APP_START, APP_END)
    if attempts.empty or bounds.empty:
        return pd.Series(False, index=attempts.index)
    app = attempts[app_column(attempts)].astype(str)
    start = app.map(bounds["start"]).astype(float)
    end = app.map(bounds["end"]).astype(float)
    launch = pd.to_numeric(attempts["launch_time"]).astype(float)
    return (launch < start) | (launch > end)  # False where a bound is missing (NaN)


def app_column(table: pd.DataFrame) -> str:
    """The column naming an application run: ``app_key`` tells apart attempts of one app id."""
    return "app_key" if "app_key" in table.columns else "app_id"


def _bounds(
    table: pd.DataFrame | None,
    keys: list[str],
    starts: tuple[str, ...],
    ends: tuple[str, ...],
) -> pd.DataFrame:
    """``keys`` + ``start``/``end`` from the first of the candidate columns the table has,
    indexed by ``keys``."""
    if (
        table is None
        or table.empty
        or "app_id" not in table.columns
        or not set(keys[1:]) <= set(table.columns)
    ):
        return pd.DataFrame(columns=[*keys, "start", "end"]).set_index(keys)
    table = table[table[app_column(table)].notna()]  # MapReduce jobs beside Spark apps have none
    out = table[keys[1:]].astype(str).assign(app_id=table[app_column(table)].astype(str))[keys]

    def pick(candidates: tuple[str, ...]) -> pd.Series:
        column = next((c for c in candidates if c in table.columns), None)
        return (
            pd.to_numeric(table[column], errors="coerce")
            if column
            else pd.Series(np.nan, index=table.index)
        )

    out = out.assign(start=pick(starts), end=pick(ends))
    return out.drop_duplicates(keys).set_index(keys)


def _attempts(tasks: pd.DataFrame, stages: pd.DataFrame | None):
    """The attempts in real launch order with what the replay needs of each: app, job, stage,
    executor, real launch/finish, its stage's real submission (``ready``), hand-off ``lag``
    (finish - slot release) and ``held`` delay; and the executors' slots. None of it depends
    on the durations replayed, so what-if scenarios share it."""
    machine = next((c for c in ("executor_id", "host") if c in tasks.columns), None)
    app = tasks[app_column(tasks)].astype(str)
    launch = pd.to_numeric(tasks["launch_time"]).astype(float)
    t = pd.DataFrame(
        {
            "app": app,
            "job": tasks["job_id"].astype(str),
            "stage": tasks["stage_key"].astype(str),
            "executor": app + "\0" + (tasks[machine].astype(str) if machine else ""),
            "launch": launch,
            "finish": pd.to_numeric(tasks["finish_time"]).astype(float),
        },
        index=tasks.index,
    )
    t["release"] = slot_release(tasks)
    t["lag"] = t["finish"] - t["release"]
    first_launch = t.groupby("stage")["launch"].transform("min")
    submitted = t["stage"].map(_stage_submissions(stages)).astype(float)
    t["ready"] = submitted.where(submitted < first_launch, first_launch)
    t = t.sort_values(["launch", "ready", "finish"], kind="stable")
    slots = executor_slots(t["executor"], t["launch"].to_numpy(), t["release"].to_numpy())
    t["held"] = held_delays(
        t["executor"].to_numpy(),
        t["launch"].to_numpy(),
        t["release"].to_numpy(),
        t["ready"].to_numpy(),
        slots.to_dict(),
    )
    return t, slots


def _stage_submissions(stages: pd.DataFrame | None) -> pd.Series:
    """Stage key -> real submission time, where the stages table has one."""
    if stages is None or stages.empty or not {"id", "submission_time"} <= set(stages.columns):
        return pd.Series(dtype=float)
    submitted = pd.to_numeric(stages["submission_time"], errors="coerce")
    return pd.Series(submitted.to_numpy(), index=stages["id"].astype(str)).dropna()


def _follow(
    start: float, ends: np.ndarray, new_ends: np.ndarray, origin: float, new_origin: float
) -> float:
    """Replayed start of a unit that really started at ``start``: after the replayed ends of
    the units that really ended by then, plus the real gap; else at its real offset from the
    replayed origin."""
    before = ends <= start
    if before.any():
        return float(new_ends[before].max() + (start - ends[before].max()))
    return new_origin + (start - origin)


class _AppReplay:
    """One application's replay. Jobs, stages and attempts are events in real time order (a
    job's submission before its stages', a stage's before its attempts'), so whatever a
    unit follows has been replayed when it comes."""

    def __init__(self, attempts: pd.DataFrame, stages: pd.DataFrame, jobs: pd.DataFrame):
        self.attempts, self.stages, self.jobs = attempts, stages, jobs
        job_of_stage = stages["job"].map(pd.Series(np.arange(len(jobs)), index=jobs["job_id"]))
        self.job_of_stage = job_of_stage.to_numpy(int)
        self.stages_of_job = [np.flatnonzero(self.job_of_stage == j) for j in range(len(jobs))]
        self.job_start = jobs["start"].to_numpy(float)
        self.job_end = jobs["end"].to_numpy(float)
        self.job_tail = jobs["tail"].to_numpy(float)
        self.stage_submit = stages["submit"].to_numpy(float)
        self.stage_end = stages["end"].to_numpy(float)
        self.new_job_start = np.full(len(jobs), np.nan)
        self.new_stage_ready = np.full(len(stages), np.nan)
        self.new_stage_end = np.full(len(stages), -np.inf)
        self.new_job_last = np.full(len(jobs), -np.inf)  # replayed end of its last stage

    def new_job_end(self) -> np.ndarray:
        """Replayed end of every job so far: its last stage's end plus its real tail, or, for
        a job without stages, its replayed start plus its real duration."""
        last = self.new_job_last
        with np.errstate(invalid="ignore"):  # jobs without stages have no tail
            return np.where(
                np.isfinite(last),
                last + self.job_tail,
                self.new_job_start + self.job_end - self.job_start,
            )

    def submit_job(self, j: int, origin: float) -> None:
        others = np.arange(len(self.jobs)) != j
        self.new_job_start[j] = _follow(
            self.job_start[j], self.job_end[others], self.new_job_end()[others], origin, origin
        )

    def submit_stage(self, s: int) -> None:
        j = self.job_of_stage[s]
        same = self.stages_of_job[j]
        same = same[same != s]
        self.new_stage_ready[s] = _follow(
            self.stage_submit[s],
            self.stage_end[same],
            self.new_stage_end[same],
            self.job_start[j],
            self.new_job_start[j],
        )

    def run(self, slots: pd.Series, origin: float) -> None:
        """Submits jobs and stages and places every attempt on the slot that frees first."""
        a = self.attempts
        by_executor = a.groupby("executor")
        opens, closes = by_executor["launch"].min(), by_executor["finish"].max()
        counts = slots.reindex(opens.index).astype(int)
        executor_of = a["executor"].map(pd.Series(np.arange(len(opens)), index=opens.index))
        pool = SlotPool(
            list(counts), opens.to_numpy(float).tolist(), closes.to_numpy(float).tolist()
        )
        executor_of = executor_of.to_numpy(int)
        stage_of = a["stage"].map(pd.Series(np.arange(len(self.stages)), index=self.stages.index))
        stage_of = stage_of.to_numpy(int)
        # Python lists, not numpy arrays, in the loop over attempts: a numpy scalar costs ten
        # times a float in the arithmetic of one attempt, and a log has 10^5 of them.
        held, new, lag = a["held"].tolist(), a["new"].tolist(), a["lag"].tolist()
        stage_list, executor_list = stage_of.tolist(), executor_of.tolist()
        job_of_stage, submitted = self.job_of_stage.tolist(), self.stage_submit.tolist()
        stage_end, stage_ready = self.new_stage_end.tolist(), self.new_stage_ready.tolist()
        job_last = self.new_job_last.tolist()
        n_jobs, n_stages = len(self.jobs), len(self.stages)
        kinds = np.repeat([0, 1, 2], [n_jobs, n_stages, len(a)])
        times = np.concatenate([self.job_start, self.stage_submit, a["launch"].to_numpy(float)])
        for event in np.lexsort((kinds, times)).tolist():
            if event < n_jobs:
                self.new_job_last[:] = job_last  # submit_job reads the replayed job ends
                self.submit_job(event, origin)
            elif event < n_jobs + n_stages:
                self.new_stage_end[:] = stage_end  # submit_stage reads the replayed stage ends
                s = event - n_jobs
                self.submit_stage(s)
                stage_ready[s] = float(self.new_stage_ready[s])
            else:
                i = event - n_jobs - n_stages
                s = stage_list[i]
                busy = new[i]
                finish = pool.place(
                    executor_list[i],
                    stage_ready[s],
                    submitted[s],
                    held[i],
                    busy,
                    min(lag[i], busy / 2),
                )
                if finish > stage_end[s]:
                    stage_end[s] = finish
                j = job_of_stage[s]
                if finish > job_last[j]:
                    job_last[j] = finish
        self.new_stage_end[:] = stage_end
        self.new_job_last[:] = job_last


def _overlaps(jobs: pd.DataFrame) -> list[list[str]]:
    """Per job: the other jobs that really ran at the same time (their spans intersect)."""
    start, end, ids = jobs["start"].to_numpy(), jobs["end"].to_numpy(), jobs["job_id"].to_numpy()
    together = (start[:, None] < end[None, :]) & (start[None, :] < end[:, None])
    np.fill_diagonal(together, False)
    return [list(ids[row]) for row in together]


def _app_jobs(stages: pd.DataFrame, bounds: pd.DataFrame) -> pd.DataFrame:
    """One app's jobs with real ``start``/``end`` (the jobs table's, widened to their stages'),
    ``tail`` after their last stage, and stage and task counts."""
    per_job = stages.groupby("job").agg(
        first=("submit", "min"),
        last=("end", "max"),
        stages=("tasks", "size"),
        tasks=("tasks", "sum"),
    )
    jobs = bounds.astype(float).join(per_job, how="outer")
    jobs["start"] = (
        jobs["start"].where(jobs["start"] < jobs["first"], jobs["first"]).fillna(jobs["start"])
    )
    jobs["end"] = jobs["end"].fillna(jobs["last"])
    jobs["tail"] = jobs["end"] - jobs["last"]
    jobs = jobs.dropna(subset=["start", "end"]).fillna({"stages": 0, "tasks": 0})
    return jobs.rename_axis("job_id").reset_index()[
        ["job_id", "start", "end", "tail", "stages", "tasks"]
    ]


@dataclass(frozen=True)
class Schedule:
    """What a replay needs that does not depend on the durations replayed: the attempts in
    launch order with their measured delays, the executors' slots, and the real bounds of
    stages, jobs and apps. Built once, replayed once per what-if scenario."""

    attempts: pd.DataFrame
    slots: pd.Series
    stage_table: pd.DataFrame
    job_bounds: pd.DataFrame
    app_bounds: pd.DataFrame
    _replayed: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    """Each application's replay by its durations: a what-if that changes none of an app's
    (no GC logged, no straggler in it) gives the replay of its real durations, found once.
    ``replace`` (other slots) starts a schedule without them."""

    def replay(self, durations: pd.Series) -> Replay:
        """The schedule replayed with new ``durations`` (ms, aligned to the tasks)."""
        new = durations.reindex(self.attempts.index).astype(float).clip(lower=0).to_numpy()
        stage_rows, job_rows, app_rows = [], [], []
        for app in self._apps:
            key = (app.name, new[app.attempts].tobytes())
            done = self._replayed.get(key)
            if done is not None:  # the same durations: the same replay
                stage_rows.append(done[0])
                job_rows.append(done[1])
                app_rows.append(done[2])
                continue
            attempts = self.attempts.iloc[app.attempts].assign(new=new[app.attempts])
            replayed = _AppReplay(attempts, app.stages, app.jobs)
            replayed.run(self.slots, app.start)
            new_job_end = replayed.new_job_end()
            stage_rows.append(
                app.stages.assign(
                    replay_start=replayed.new_stage_ready, replay_end=replayed.new_stage_end
                )
            )
            job_rows.append(
                app.jobs.assign(
                    app_id=app.name,
                    real_ms=app.jobs["end"] - app.jobs["start"],
                    replay_ms=new_job_end - replayed.new_job_start,
                    overlaps=app.overlaps,
                )
            )
            new_end = new_job_end.max() + (app.end - app.jobs["end"].max())
            span = app.end - app.start
            app_rows.append(
                (app.name, app.start, app.end, span, new_end - app.start, len(app.jobs))
            )
            self._replayed[key] = (stage_rows[-1], job_rows[-1], app_rows[-1])
        listed = {app.name for app in self._apps}
        # apps without jobs keep their real time
        for name, real in self.app_bounds.dropna().iterrows():
            if name not in listed:
                duration = real["end"] - real["start"]
                app_rows.append((name, real["start"], real["end"], duration, duration, 0))
                listed.add(name)
        return Replay(
            _table(stage_rows, STAGE_COLUMNS, index_name="stage_key"),
            _table(job_rows, JOB_COLUMNS),
            pd.DataFrame(app_rows, columns=APP_COLUMNS),
        )

    @cached_property
    def _apps(self) -> list[_App]:
        """Each application with jobs, as every replay needs it whatever the durations: found
        once per schedule (a report replays it once per what-if scenario)."""
        stage_table, job_bounds, app_bounds = self.stage_table, self.job_bounds, self.app_bounds
        apps_seen = list(
            dict.fromkeys([*stage_table["app"], *job_bounds.index.get_level_values(0)])
        )
        app_of_attempt = self.attempts["app"].to_numpy()
        found = []
        for app in apps_seen:
            app_stages = stage_table[stage_table["app"] == app]
            app_jobs = _app_jobs(
                app_stages,
                job_bounds.xs(app, level="app_id")
                if app in job_bounds.index
                else job_bounds.droplevel(0).iloc[0:0],
            )
            if app_jobs.empty:
                continue
            real = app_bounds.loc[app] if app in app_bounds.index else None
            start = app_jobs["start"].min()
            if real is not None and pd.notna(real["start"]):
                start = min(start, real["start"])
            end = (
                real["end"] if real is not None and pd.notna(real["end"]) else app_jobs["end"].max()
            )
            attempts = np.flatnonzero(app_of_attempt == app)
            found.append(_App(app, app_stages, app_jobs, start, end, _overlaps(app_jobs), attempts))
        return found


@dataclass(frozen=True)
class _App:
    """One application of a ``Schedule``: its stages and jobs with their real bounds, the
    jobs each job overlapped, and the positions of its attempts."""

    name: str
    stages: pd.DataFrame
    jobs: pd.DataFrame
    start: float
    end: float
    overlaps: list[list[str]]
    attempts: np.ndarray


def schedule(
    tasks: pd.DataFrame,
    jobs: pd.DataFrame | None = None,
    apps: pd.DataFrame | None = None,
    stages: pd.DataFrame | None = None,
) -> Schedule:
    """The schedule of ``tasks`` (replayable attempts). Stage, job and app bounds come from
    the ``stages``/``jobs``/``apps`` tables where they have them (Spark's submission and
    completion times), else from their tasks."""
    attempts, slots = _attempts(tasks, stages)
    stage_table = attempts.groupby("stage", sort=False).agg(
        app=("app", "first"),
        job=("job", "first"),
        submit=("ready", "min"),
        end=("finish", "max"),
        tasks=("launch", "size"),
    )
    return Schedule(
        attempts,
        slots,
        stage_table,
        _bounds(jobs, ["app_id", "job_id"], JOB_START, JOB_END),
        _bounds(apps, ["app_id"], APP_START, APP_END),
    )


def replay(
    tasks: pd.DataFrame,
    durations: pd.Series,
    jobs: pd.DataFrame | None = None,
    apps: pd.DataFrame | None = None,
    stages: pd.DataFrame | None = None,
) -> Replay:
    """Replays ``tasks`` (replayable attempts) with new ``durations`` (ms, aligned to tasks)."""
    return schedule(tasks, jobs, apps, stages).replay(durations)


STAGE_COLUMNS = [
    "stage_key",
    "app_id",
    "job_id",
    "start",
    "end",
    "tasks",
    "replay_start",
    "replay_end",
]
JOB_COLUMNS = [
    "app_id",
    "job_id",
    "start",
    "end",
    "real_ms",
    "replay_ms",
    "stages",
    "tasks",
    "overlaps",
]
APP_COLUMNS = ["app_id", "start", "end", "real_ms", "replay_ms", "jobs"]


def _table(
    parts: list[pd.DataFrame], columns: list[str], index_name: str | None = None
) -> pd.DataFrame:
    """The per-app parts as one table with ``columns`` (an empty one when no app had any)."""
    if not parts:
        return pd.DataFrame(columns=columns)
    table = pd.concat(parts)
    if index_name:
        table = table.rename_axis(index_name).reset_index()
    return table.rename(columns={"app": "app_id", "job": "job_id", "submit": "start"})[
        columns
    ].reset_index(drop=True)
