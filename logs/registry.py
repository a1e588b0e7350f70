"""The feature registry: every raw feature of every entity kind, named once.

The registry is what keeps explanations honest. Each feature has a *role*:

* ``feature`` — a candidate for DESPITE and BECAUSE predicates (the parts of the time, sizes,
  placement, configuration, derived rates);
* ``outcome`` — restates the duration (duration, executor run time, finish time): explaining
  "slower" by "longer run time" explains nothing, so these are never candidates;
* ``identity`` — names an execution (ids, launch timestamps): never candidates either.

Derived features declare their *provenance*, the columns they are computed from (``inputs``).
A feature computed from an outcome, directly or through another derived feature (time per
record, GC fraction, a time share, a straggler flag), is a *symptom*: it restates the duration,
and a tautology is always precise, so the search never proposes it. Two kinds of derived
feature read an outcome column without restating it, and say so:

* ``time_part`` — a part of the time (compute time is run time minus its measured parts;
  scheduler delay is what Spark's own formula leaves): it says *where* the time went;
* ``window`` — the outcome only bounds the interval over which it measures the surroundings
  (the host's time-weighted load while the task ran) or ranks it among its stage (its wave).

Two more annotations steer explanations towards causes. ``accounts`` names the parts of a
pair's duration gap (``explain.gap``) a difference in the feature can account for: GC time
accounts for the GC part, records in for the volume part of compute (each volume for its own
kind's part where the stage's cost model splits compute per volume: explain.costmodel), spill
for its volume and its cost per record. ``context`` marks what makes two executions comparable (input volume, stage, job,
host, executor, configuration, wave): a generated DESPITE is made of those only.

Users may still write any registered feature in a query; roles only restrict what the search
proposes. Names are snake_case; ``aliases`` hold the paper's spellings (``inputsize``,
``hostname``, ``jobID``) and older names, matched loosely (grammar.names).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from perfx.grammar.names import closest, resolve_name

from .spark_metrics import SOURCE

Entity = Literal["app", "job", "stage", "task"]
Kind = Literal["numeric", "nominal"]
Unit = Literal["ms", "bytes", "count", "ratio", "none"]
Role = Literal["feature", "outcome", "identity"]

ENTITIES: tuple[Entity, ...] = ("app", "job", "stage", "task")

GAP_PARTS: tuple[str, ...] = (
    "scheduler_delay",
    "task_deserialization",
    "gc",
    "shuffle_read",
    "shuffle_write",
    "input_read",
    "result_serialization",
    "getting_result",
    "compute",
    "volume",
    "cost",
)
"""The parts of a duration gap (``explain.gap``) a feature may account for: the measured
components (named as the blocked-time causes), compute, and compute's split into volume (more
records or bytes) and cost per unit."""


@dataclass(frozen=True)
class FeatureSpec:
    name: str
    kind: Kind
    unit: Unit
    role: Role
    description: str
    source: str = ""
    aliases: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()
    """Columns it is computed from (empty for a field read from the log); ``task.x`` names a
    column of the task table (aggregates of stages, jobs and apps)."""
    time_part: bool = False
    window: bool = False
    accounts: tuple[str, ...] = ()
    context: bool = False

    @property
    def is_candidate(self) -> bool:
        """May the explanation search propose predicates on this feature (role only; the
        registry's ``candidates`` also leaves out symptoms)?"""
        return self.role == "feature"

    @property
    def is_derived(self) -> bool:
        return self.source in ("derived", "aggregate")


@dataclass
class FeatureRegistry:
    """Feature specs per entity kind, with case-insensitive lookup by name or alias."""

    _specs: dict[str, dict[str, FeatureSpec]] = field(
        default_factory=lambda: {e: {} for e in ENTITIES}
    )
    _resolved: dict[str, tuple[dict[str, str], dict[str, str | None]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """Per entity: its spellings and the names resolved so far (``resolve`` is asked for the
    same few names once per task a report names the cause of); emptied by ``register``."""

    def register(self, entity: str, spec: FeatureSpec, *, replace: bool = False) -> None:
        self._resolved.pop(entity, None)
        table = self._specs.setdefault(entity, {})
        if spec.name in table and not replace:
            raise ValueError(f"feature {spec.name!r} is already registered for {entity}")
        table[spec.name] = spec

    def register_all(
        self, entity: str, specs: Iterable[FeatureSpec], *, replace: bool = False
    ) -> None:
        for spec in specs:
            self.register(entity, spec, replace=replace)

    def specs(self, entity: str) -> list[FeatureSpec]:
        return list(self._specs.get(entity, {}).values())

    def names(self, entity: str) -> list[str]:
        return list(self._specs.get(entity, {}))

    def candidates(self, entity: str, kind: Kind | None = None) -> list[FeatureSpec]:
        """Features the explanation search may use (role ``feature``, not a symptom),
        optionally of one kind."""
        return [
            s
            for s in self.specs(entity)
            if s.is_candidate
            and not self.is_symptom(entity, s.name)
            and (kind is None or s.kind == kind)
        ]

    def context(self, entity: str) -> list[FeatureSpec]:
        """Candidates that make two executions comparable: what a generated DESPITE may say.
        Identities marked ``context`` (stage, job) count: "despite the same stage"."""
        return [
            s
            for s in self.specs(entity)
            if s.context and s.role != "outcome" and not self.is_symptom(entity, s.name)
        ]

    def role_of(self, entity: str, spec: FeatureSpec) -> str:
        """The role a listing shows: ``symptom`` for a feature computed from an outcome."""
        return (
            "symptom"
            if spec.role == "feature" and self.is_symptom(entity, spec.name)
            else spec.role
        )

    def is_symptom(self, entity: str, name: str) -> bool:
        """Is the feature an outcome, or computed from one (through its ``inputs``, followed
        down to the columns read from the log) without being a time part or a window?"""
        return self._symptom(entity, name, frozenset())

    def _symptom(self, entity: str, name: str, seen: frozenset[tuple[str, str]]) -> bool:
        if name.split(".", 1)[0] in ENTITIES:
            entity, name = name.split(".", 1)
        found = self._specs.get(entity, {}).get(name)
        if found is None or (entity, name) in seen:  # unregistered helper columns restate nothing
            return False
        if found.role == "outcome":
            return True
        if found.time_part or found.window:
            return False
        return any(self._symptom(entity, i, seen | {(entity, name)}) for i in found.inputs)

    def resolve(self, entity: str, name: str) -> FeatureSpec | None:
        """The spec a user-written name refers to (its name or an alias, written loosely as
        grammar.names allows), or None."""
        if entity not in self._resolved:
            self._resolved[entity] = (self._spellings(entity), {})
        spellings, resolved = self._resolved[entity]
        if name not in resolved:
            resolved[name] = resolve_name(name, spellings)
        found = resolved[name]
        return self._specs[entity][found] if found is not None else None

    def suggest(self, entity: str, name: str, n: int = 3) -> list[str]:
        """The closest registered names to a misspelled one, for "did you mean" messages."""
        return closest(name, self._spellings(entity), n=n)

    def _spellings(self, entity: str) -> dict[str, str]:
        """Every name and alias of the entity's specs -> the spec's name."""
        spellings: dict[str, str] = {}
        for spec in self._specs.get(entity, {}).values():
            spellings.setdefault(spec.name, spec.name)
            for alias in spec.aliases:
                spellings.setdefault(alias, spec.name)
        return spellings

    def copy(self) -> FeatureRegistry:
        return FeatureRegistry({e: dict(t) for e, t in self._specs.items()})


def spec(
    name: str,
    kind: Kind,
    unit: Unit,
    role: Role,
    description: str,
    source: str = "",
    *aliases: str,
    inputs: tuple[str, ...] = (),
    time_part: bool = False,
    window: bool = False,
    accounts: tuple[str, ...] = (),
    context: bool = False,
) -> FeatureSpec:
    """Terse constructor for the tables of specs below and in the readers."""
    return FeatureSpec(
        name,
        kind,
        unit,
        role,
        description,
        source,
        tuple(aliases),
        inputs,
        time_part,
        window,
        accounts,
        context,
    )


N: Kind = "numeric"
C: Kind = "nominal"

# Columns every entity table has. ``id`` is unique within the table and is what PXQL ids
# resolve to (see logs.model.Log.find).
COMMON = [
    spec("id", C, "none", "identity", "Unique id of the execution within its table."),
    spec(
        "duration",
        N,
        "ms",
        "outcome",
        "Wall-clock duration of the execution.",
        "",
        "runtime",
        "elapsed",
    ),
]

# Derived (logs.derive.add_host_load) for every task log that names a task's host and its
# launch and finish times: Spark, Hadoop job histories, tabular logs.
TASK_HOST_LOAD = [
    spec(
        "concurrent_tasks_host",
        N,
        "count",
        "feature",
        "Other tasks running on the same host while this one ran (a longer task overlaps more: a symptom).",
        "derived",
        inputs=("launch_time", "finish_time", "host"),
    ),
    spec(
        "mean_concurrent_tasks_host",
        N,
        "count",
        "feature",
        "Other tasks running on the same host, on average over this task's run (time-weighted): "
        "0.5 for a task that shared its host with one other for half its run.",
        "derived",
        "host_task_load",
        inputs=("launch_time", "finish_time", "host"),
        window=True,
        accounts=("cost",),
    ),
]

# Spark tasks: one row per task attempt. Spark field names in ``source`` (the task metrics'
# from logs.spark_metrics); nanosecond fields (CPU times, shuffle write time) are converted to
# ms by the reader.
SPARK_TASK = COMMON + [
    spec("app_id", C, "none", "identity", "Spark application id.", "App ID", "appID"),
    spec(
        "app_attempt_id",
        C,
        "none",
        "identity",
        "Application attempt id (YARN), '' if none.",
        "App Attempt ID",
    ),
    spec(
        "job_id",
        C,
        "none",
        "identity",
        "Id of the job the task's stage belongs to (first job).",
        "Job ID",
        "jobID",
        context=True,
    ),
    spec("stage_id", N, "none", "identity", "Stage id within the app.", "Stage ID", "stageID"),
    spec("stage_attempt_id", N, "none", "identity", "Stage attempt.", "Stage Attempt ID"),
    spec(
        "stage_key",
        C,
        "none",
        "identity",
        "app_id/stage_id/stage_attempt_id: one stage attempt.",
        "",
        context=True,
    ),
    spec(
        "task_id",
        N,
        "none",
        "identity",
        "Spark task id (unique within an app).",
        "Task ID",
        "taskID",
    ),
    spec("task_index", N, "none", "identity", "Index of the task within its stage.", "Index"),
    spec("attempt", N, "none", "identity", "Task attempt number.", "Attempt"),
    spec(
        "partition_id",
        N,
        "none",
        "identity",
        "RDD partition the task computed (-1 if not logged).",
        "Partition ID",
    ),
    spec("launch_time", N, "ms", "identity", "Epoch ms the task was launched.", "Launch Time"),
    spec("finish_time", N, "ms", "outcome", "Epoch ms the task finished.", "Finish Time"),
    spec(
        "executor_id",
        C,
        "none",
        "feature",
        "Executor that ran the task.",
        "Executor ID",
        "executor",
        context=True,
    ),
    spec(
        "host",
        C,
        "none",
        "feature",
        "Host that ran the task.",
        "Host",
        "hostname",
        "tracker",
        context=True,
    ),
    spec(
        "locality",
        C,
        "none",
        "feature",
        "Task locality (PROCESS_LOCAL, NODE_LOCAL, ...).",
        "Locality",
        accounts=("input_read", "shuffle_read"),
        context=True,
    ),
    spec(
        "speculative",
        C,
        "none",
        "feature",
        "Whether the attempt is a speculative copy.",
        "Speculative",
    ),
    spec(
        "task_type",
        C,
        "none",
        "feature",
        "ShuffleMapTask or ResultTask.",
        "Task Type",
        context=True,
    ),
    spec("status", C, "none", "outcome", "SUCCESS, FAILED, KILLED or UNKNOWN (no end event).", ""),
    spec(
        "end_reason",
        C,
        "none",
        "outcome",
        "Task end reason (Success, ExceptionFailure, ...).",
        "Task End Reason/Reason",
    ),
    spec(
        "executor_run_time",
        N,
        "ms",
        "outcome",
        "Time the executor spent running the task.",
        SOURCE["executor_run_time"],
        "runtime_ms",
    ),
    spec(
        "executor_cpu_time",
        N,
        "ms",
        "feature",
        "JVM CPU time of the task (ns in the log).",
        SOURCE["executor_cpu_time"],
        "cpu_time",
        time_part=True,
        accounts=("cost",),
    ),
    spec(
        "deserialize_time",
        N,
        "ms",
        "feature",
        "Time deserializing the task.",
        SOURCE["deserialize_time"],
        time_part=True,
        accounts=("task_deserialization",),
    ),
    spec(
        "deserialize_cpu_time",
        N,
        "ms",
        "feature",
        "CPU time deserializing the task (ns in the log).",
        SOURCE["deserialize_cpu_time"],
        time_part=True,
        accounts=("task_deserialization",),
    ),
    spec(
        "result_serialization_time",
        N,
        "ms",
        "feature",
        "Time serializing the task result.",
        SOURCE["result_serialization_time"],
        time_part=True,
        accounts=("result_serialization",),
    ),
    spec(
        "getting_result_time",
        N,
        "ms",
        "feature",
        "Time the driver spent fetching the result.",
        "Getting Result Time",
        time_part=True,
        accounts=("getting_result",),
    ),
    spec(
        "scheduler_delay",
        N,
        "ms",
        "feature",
        "duration - run - deserialize - serialize - getting result, floored at 0 (as Spark computes it).",
        "derived",
        inputs=(
            "duration",
            "executor_run_time",
            "deserialize_time",
            "result_serialization_time",
            "getting_result_time",
        ),
        time_part=True,
        accounts=("scheduler_delay",),
    ),
    spec(
        "gc_time",
        N,
        "ms",
        "feature",
        "JVM garbage collection time.",
        SOURCE["gc_time"],
        "gc",
        time_part=True,
        accounts=("gc",),
    ),
    spec(
        "result_size",
        N,
        "bytes",
        "feature",
        "Size of the serialized task result.",
        SOURCE["result_size"],
        accounts=("volume", "result_serialization", "getting_result"),
    ),
    spec(
        "peak_execution_memory",
        N,
        "bytes",
        "feature",
        "Peak execution memory.",
        SOURCE["peak_execution_memory"],
        accounts=("gc",),
    ),
    spec(
        "memory_bytes_spilled",
        N,
        "bytes",
        "feature",
        "Bytes spilled from memory.",
        SOURCE["memory_bytes_spilled"],
        accounts=("volume", "cost"),
    ),
    spec(
        "disk_bytes_spilled",
        N,
        "bytes",
        "feature",
        "Bytes spilled to disk.",
        SOURCE["disk_bytes_spilled"],
        accounts=("volume", "cost"),
    ),
    spec(
        "input_bytes",
        N,
        "bytes",
        "feature",
        "Bytes read from the input source.",
        SOURCE["input_bytes"],
        "inputsize",
        "input_size",
        accounts=("volume", "input_read"),
        context=True,
    ),
    spec(
        "input_records",
        N,
        "count",
        "feature",
        "Records read from the input source.",
        SOURCE["input_records"],
        accounts=("volume", "input_read"),
        context=True,
    ),
    spec(
        "output_bytes",
        N,
        "bytes",
        "feature",
        "Bytes written to the output.",
        SOURCE["output_bytes"],
        "outputsize",
        accounts=("volume",),
    ),
    spec(
        "output_records",
        N,
        "count",
        "feature",
        "Records written to the output.",
        SOURCE["output_records"],
        accounts=("volume",),
    ),
    spec(
        "shuffle_read_bytes",
        N,
        "bytes",
        "feature",
        "Remote + local shuffle bytes read.",
        "Shuffle Read Metrics",
        accounts=("volume", "shuffle_read"),
        context=True,
    ),
    spec(
        "shuffle_remote_bytes_read",
        N,
        "bytes",
        "feature",
        "Shuffle bytes read from other executors.",
        SOURCE["shuffle_remote_bytes_read"],
        accounts=("shuffle_read",),
    ),
    spec(
        "shuffle_remote_bytes_read_to_disk",
        N,
        "bytes",
        "feature",
        "Remote shuffle bytes fetched to disk.",
        SOURCE["shuffle_remote_bytes_read_to_disk"],
        accounts=("shuffle_read",),
    ),
    spec(
        "shuffle_local_bytes_read",
        N,
        "bytes",
        "feature",
        "Shuffle bytes read locally.",
        SOURCE["shuffle_local_bytes_read"],
    ),
    spec(
        "shuffle_read_records",
        N,
        "count",
        "feature",
        "Shuffle records read.",
        SOURCE["shuffle_read_records"],
        accounts=("volume", "shuffle_read"),
        context=True,
    ),
    spec(
        "shuffle_remote_blocks_fetched",
        N,
        "count",
        "feature",
        "Remote shuffle blocks fetched.",
        SOURCE["shuffle_remote_blocks_fetched"],
        accounts=("shuffle_read",),
    ),
    spec(
        "shuffle_local_blocks_fetched",
        N,
        "count",
        "feature",
        "Local shuffle blocks fetched.",
        SOURCE["shuffle_local_blocks_fetched"],
    ),
    spec(
        "shuffle_fetch_wait_time",
        N,
        "ms",
        "feature",
        "Time blocked waiting for shuffle fetches.",
        SOURCE["shuffle_fetch_wait_time"],
        "fetch_wait_time",
        time_part=True,
        accounts=("shuffle_read",),
    ),
    spec(
        "shuffle_remote_reqs_duration",
        N,
        "ms",
        "feature",
        "Duration of remote shuffle requests.",
        SOURCE["shuffle_remote_reqs_duration"],
        accounts=("shuffle_read",),
    ),
    spec(
        "shuffle_write_bytes",
        N,
        "bytes",
        "feature",
        "Shuffle bytes written.",
        SOURCE["shuffle_write_bytes"],
        accounts=("volume", "shuffle_write"),
    ),
    spec(
        "shuffle_write_records",
        N,
        "count",
        "feature",
        "Shuffle records written.",
        SOURCE["shuffle_write_records"],
        accounts=("volume", "shuffle_write"),
    ),
    spec(
        "shuffle_write_time",
        N,
        "ms",
        "feature",
        "Time blocked writing shuffle data (ns in the log).",
        SOURCE["shuffle_write_time"],
        time_part=True,
        accounts=("shuffle_write",),
    ),
    # Derived (logs.derive): what makes explanations on Spark logs precise.
    spec(
        "records_in",
        N,
        "count",
        "feature",
        "input_records + shuffle_read_records: records the task consumed.",
        "derived",
        inputs=("input_records", "shuffle_read_records"),
        accounts=("volume",),
        context=True,
    ),
    spec(
        "bytes_in",
        N,
        "bytes",
        "feature",
        "input_bytes + shuffle_read_bytes: bytes the task consumed.",
        "derived",
        inputs=("input_bytes", "shuffle_read_bytes"),
        accounts=("volume",),
        context=True,
    ),
    spec(
        "time_per_record",
        N,
        "ratio",
        "feature",
        "Inverse progress rate: duration / records_in (ms per record).",
        "derived",
        inputs=("duration", "records_in"),
    ),
    spec(
        "time_per_mb",
        N,
        "ratio",
        "feature",
        "Inverse progress rate: duration / (bytes_in in MB).",
        "derived",
        inputs=("duration", "bytes_in"),
    ),
    spec(
        "gc_fraction",
        N,
        "ratio",
        "feature",
        "gc_time / executor_run_time.",
        "derived",
        inputs=("gc_time", "executor_run_time"),
    ),
    spec(
        "compute_time",
        N,
        "ms",
        "feature",
        "executor_run_time minus its measured parts (GC, shuffle fetch wait, shuffle write, input read): "
        "the time the task's own code ran.",
        "derived",
        inputs=("executor_run_time", "gc_time", "shuffle_fetch_wait_time", "shuffle_write_time"),
        time_part=True,
        accounts=("cost",),
    ),
    spec(
        "blocked_network_time",
        N,
        "ms",
        "feature",
        "Time blocked on the network (shuffle fetch wait).",
        "derived",
        inputs=("shuffle_fetch_wait_time",),
        accounts=("shuffle_read",),
    ),
    spec(
        "blocked_disk_time",
        N,
        "ms",
        "feature",
        "Time blocked on disk (shuffle write time, input read time where logged).",
        "derived",
        inputs=("shuffle_write_time",),
        accounts=("shuffle_write", "input_read"),
    ),
    spec(
        "concurrent_tasks_executor",
        N,
        "count",
        "feature",
        "Other tasks running on the same executor while this one ran (a longer task overlaps more: a symptom).",
        "derived",
        inputs=("launch_time", "finish_time", "executor_id"),
    ),
    *TASK_HOST_LOAD,
    spec(
        "first_task_on_executor",
        C,
        "none",
        "feature",
        "T if this was its stage's first task on its executor (cold JIT / caches).",
        "derived",
        inputs=("launch_time", "task_id", "stage_key", "executor_id"),
        accounts=("task_deserialization", "cost"),
    ),
    spec(
        "wave",
        N,
        "count",
        "feature",
        "Scheduling wave of the task within its stage (0-based).",
        "derived",
        inputs=("launch_time", "finish_time", "stage_key"),
        window=True,
        context=True,
    ),
]
"""The Spark task table's fixed columns. Readers add app configuration (``spark_*`` settings
that vary between apps) and host metrics (``host_*``) at load time, registering them too."""
