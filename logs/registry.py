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

Entity = Literal["app", "job", "stage", "task"]
Kind = Literal["numeric", "nominal"]
Unit = Literal["ms", "bytes", "count", "ratio", "none"]
Role = Literal["feature", "outcome", "identity"]

ENTITIES: tuple[Entity, ...] = ("app", "job", "stage", "task")
ENTITY_TABLE: dict[str, str] = dict(zip(ENTITIES, ("apps", "jobs", "stages", "tasks")))
"""Each entity's table name: a tabular log's files and a feature store's partitions."""

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
    """Terse constructor for the tables of specs (logs.feature_tables and the readers')."""
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
"""The kinds, short, for the tables of specs (logs.feature_tables and the readers')."""
