"""perfx for assistants: an MCP server (stdio) whose tools answer what the CLI answers.

Each tool returns the answer's JSON, the same as the command's ``--format json``: the
sentence and every value it quotes, so that an assistant cites perfx's numbers instead of
guessing its own. A question perfx cannot answer (a malformed query, an unreadable log) is a
tool error carrying perfx's one-line message, with the caret under the offending text.

Loaded logs are kept between calls (an assistant asks several questions of one log), the
last few only; a REST API is read again for each call (a running application moves on).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar

from perfx.explain.options import DEFAULT_SAMPLE

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from .session import Session

KEPT_SESSIONS = 4
"""Loaded logs kept for the next questions."""

INSTRUCTIONS = (
    "perfx explains why Spark and MapReduce tasks and jobs were slow, from event logs, feature "
    "stores or Spark's REST API (http://host:18080 for a History Server, http://driver:4040 for "
    "a running application). Quote the numbers of its answers; do not compute your own."
)

F = TypeVar("F", bound=Callable[..., str])


class Sessions:
    """The last ``KEPT_SESSIONS`` loaded logs, by what was asked to load."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple, Session] = OrderedDict()

    def get(self, logs: Sequence[str], app: str | None, headers: dict[str, str] | None) -> Session:
        from perfx.logs.rest.client import is_rest_url

        from .session import open as open_session

        if any(is_rest_url(source) for source in logs):  # a live application moves on
            return open_session(list(logs), app=app, headers=headers)
        key = (tuple(logs), app, tuple(sorted((headers or {}).items())))
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        session = open_session(list(logs), app=app, headers=headers)
        self._kept[key] = session
        while len(self._kept) > KEPT_SESSIONS:
            self._kept.popitem(last=False)
        return session


def _as_json(payload: Any) -> str:
    """A result's JSON as the CLI prints it (``to_dict`` for results, else the object)."""
    data = payload.to_dict() if hasattr(payload, "to_dict") else payload
    return json.dumps(data, indent=2)


def _tool_errors(tool: F) -> F:
    """perfx's user errors (and bad arguments) as MCP tool errors with perfx's message."""

    @wraps(tool)
    def answer(*args: Any, **kwargs: Any) -> str:
        from mcp.server.mcpserver.exceptions import ToolError

        from perfx.explain.wording import printable

        from .user_errors import user_error_types

        expected: tuple[type[Exception], ...] = (*user_error_types(), ValueError)
        try:
            return tool(*args, **kwargs)
        except expected as err:
            raise ToolError(f"perfx: {printable(str(err))}") from None

    return answer  # type: ignore[return-value]


def server() -> MCPServer:
    """The MCP server and its tools."""
    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("perfx", instructions=INSTRUCTIONS)
    sessions = Sessions()

    @mcp.tool()
    @_tool_errors
    def list_applications(logs: list[str], headers: dict[str, str] | None = None) -> str:
        """The applications of event logs, folders, feature stores or a Spark REST API
        (http://host:18080): id, name, Spark version, start, end and duration (ms)."""
        from perfx.logs.rest.client import RestAccess, is_rest_url
        from perfx.logs.rest.reader import list_apps

        rows = []
        for source in logs:
            if is_rest_url(source):
                rows += list_apps(source, RestAccess(headers=dict(headers or {})))
                continue
            apps = sessions.get([source], None, headers).raw.apps
            for app in apps.astype(object).where(apps.notna(), None).to_dict("records"):
                rows.append(
                    {
                        "id": app.get("app_key"),
                        "name": app.get("name"),
                        "start_time": app.get("start_time"),
                        "end_time": app.get("end_time"),
                        "completed": app.get("completed") == "T",
                        "spark_version": app.get("spark_version"),
                    }
                )
        return _as_json({"applications": rows})

    @mcp.tool()
    @_tool_errors
    def explain(
        logs: list[str],
        query: str,
        app: str | None = None,
        headers: dict[str, str] | None = None,
        width: int | None = None,
        sample: int = DEFAULT_SAMPLE,
        seed: int = 0,
    ) -> str:
        """Answer a PXQL question, e.g. "WHY TASK 33 SLOWER" or "WHY JOB 4 SLOWER THAN JOB
        2": the explanation (DESPITE, BECAUSE with relevance, precision, generality), the gap
        split into its parts with a diagnosis, and its sentence. ``app`` picks an application
        of a REST API by id or name (the latest by default)."""
        session = sessions.get(logs, app, headers)
        return _as_json(session.explain(query, width=width, sample=sample, seed=seed))

    @mcp.tool()
    @_tool_errors
    def stragglers(
        logs: list[str], app: str | None = None, headers: dict[str, str] | None = None
    ) -> str:
        """Stragglers per stage and their causes (GC, shuffle read/write, input read,
        scheduler delay, (de)serialization, output skew, first task on its executor)."""
        return _as_json(sessions.get(logs, app, headers).stragglers())

    @mcp.tool()
    @_tool_errors
    def whatif(
        logs: list[str],
        without: list[str] | None = None,
        app: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> str:
        """Job and application completion times without some of their time: each item of
        ``without`` is a scenario, comma-separated names removed together (gc, network, disk,
        stragglers, ...); by default the paper's scenarios one by one."""
        return _as_json(sessions.get(logs, app, headers).whatif(without or ()))

    @mcp.tool()
    @_tool_errors
    def compare_job(
        store: str, job: str, earlier: str | None = None, sample: int = DEFAULT_SAMPLE
    ) -> str:
        """Compare a job with an earlier run of it in a feature store (perfx ingest), or in
        any other source (a log, a REST API's URL) given ``earlier``: ``job`` is its full id
        (app/job); its runs are the jobs of the same name and rank among that name's jobs in
        each application; the earlier run is ``earlier`` (a full job id) or its run in the
        latest application started before. Returns the runs (oldest first) and perfx's
        answer to WHY JOB <job> SLOWER (or FASTER) THAN JOB <earlier>."""
        return _as_json(
            compare_with_earlier(sessions.get([store], None, None), job, earlier, sample)
        )

    @mcp.tool()
    @_tool_errors
    def culprits(
        run: str,
        store: str | None = None,
        stage: int | None = None,
        partition: int | None = None,
        top: int = 10,
    ) -> str:
        """The input records that cost the time in a traced run (perfx isolate, perfx why):
        the ``top`` culprits of its outputs, or inside one task's partition (``stage`` and
        ``partition``, as perfx runs lists them)."""
        from perfx.isolation.queries import StoredRun
        from perfx.isolation.stores import open_store

        from .results.culprits import culprits_payload

        stored = StoredRun.open(open_store(store), run)
        return json.dumps(culprits_payload(stored, run, top, stage, partition), indent=2)

    return mcp


def job_runs(session: Session, job: str):
    """The runs of ``job`` (full id app/job) in the session's applications, oldest
    application first, with ``app_start``: in each application, the job of the same name
    that comes as often after others of that name (the third ``count at etl.py:12`` of
    each run of a program is one job)."""
    from perfx.explain.errors import ExplainError

    jobs = session.raw.jobs.sort_values(["app_key", "submission_time"], kind="stable")
    jobs = jobs.assign(
        occurrence=jobs.groupby(["app_key", "name"], sort=False).cumcount(),
        app_start=jobs["app_key"].map(session.raw.apps.set_index("app_key")["start_time"]),
    )
    found = jobs[jobs["id"] == job]
    if found.empty:
        raise ExplainError(f"no job {job!r} in the store (full ids: app/job)")
    same = (jobs["name"] == found["name"].iloc[0]) & (
        jobs["occurrence"] == found["occurrence"].iloc[0]
    )
    return jobs[same].sort_values(["app_start", "submission_time"], kind="stable")


def compare_with_earlier(
    session: Session, job: str, earlier: str | None, sample: int = DEFAULT_SAMPLE
) -> dict[str, Any]:
    """The runs of ``job`` (job_runs) and why it was slower or faster than ``earlier``, by
    default its latest run in an application started before."""
    from perfx.explain.errors import ExplainError

    runs = job_runs(session, job)
    this = runs[runs["id"] == job].iloc[0]
    if earlier is None:
        before = runs[runs["app_start"] < this["app_start"]]
        if before.empty:
            raise ExplainError(f"no earlier run of job {job!r} ({this['name']}) in the store")
        earlier = str(before["id"].iloc[-1])
    jobs = session.raw.jobs
    then = jobs[jobs["id"] == earlier]
    if then.empty:
        raise ExplainError(f"no job {earlier!r} in the store (full ids: app/job)")
    result: dict[str, Any] = {
        "job": job,
        "name": this["name"],
        "earlier": earlier,
        "runs": [
            {
                "id": r.id,
                "app": r.app_key,
                "duration_ms": None if r.duration != r.duration else r.duration,
            }
            for r in runs[["id", "app_key", "duration"]].itertuples()
        ],
    }
    verb = _verb(float(this["duration"]), float(then["duration"].iloc[0]))
    if verb is None:
        result["note"] = "the two runs took about as long (within 10 %): nothing to explain"
        return result
    query = f"WHY JOB '{job}' {verb} THAN JOB '{earlier}'"
    result["answer"] = session.explain(query, sample=sample).to_dict()
    return result


def _verb(now: float, before: float) -> str | None:
    """SLOWER or FASTER when the durations differ as PXQL's compare does (by more than
    10 % of the larger), None when they are similar; SLOWER when either is unknown."""
    if now != now or before != before:  # NaN: a job that never ended
        return "SLOWER"
    if abs(now - before) <= 0.1 * max(abs(now), abs(before)):
        return None
    return "SLOWER" if now > before else "FASTER"


def serve() -> None:
    """Serve over stdio until the client closes the connection."""
    server().run("stdio")
