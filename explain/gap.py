"""The duration gap of a pair, split into where the time went, and what that diagnoses.

An explanation says *why* one execution was slower; the gap says *how much* of the
difference each part of the time accounts for, so that a cause can be weighed by the share
of the gap it explains (``explain.search``) and the answer can say "2.43 s slower: compute
+2.21 s (12.0x the records: 89 %; 1.1x the time per record: 11 %), GC +0.15 s".

For a task the parts are the measured components of its duration (scheduler delay, task
deserialization, GC, shuffle fetch wait, shuffle write, input read where measured, result
serialization, getting the result: ``blocked.components``) and *compute*, the rest. Spark
times GC, fetch waits and shuffle writes inside the executor run time and the others outside
it, so compute is run time minus its measured parts, and the parts add up to the duration
exactly. Stages, jobs and apps are split the same way over the sums of their tasks' parts
(their task time, not their wall-clock span, which overlapping tasks do not add up to).

**Volume and cost per unit** (the compute split). Compute time is volume times cost per
unit, C = n·c, with n the records read (input plus shuffle; bytes when no records are
logged). Its gap is split by the logarithmic mean Divisia index (LMDI-I), which is exact and
symmetric: with L = (C₁ − C₂) / (ln C₁ − ln C₂),

    ΔC = L·ln(n₁/n₂)  +  L·ln(c₁/c₂)
         volume          cost per unit

so a task that read 12x the records at 1.1x the cost per record owes ln 12 / ln 13.2 = 96 %
of its extra compute to volume. That split is the fallback: two tasks of a stage large enough
to fit its cost model (``explain.costmodel``) have their compute gap split per volume (input,
shuffle read and write, output, result, spill), the rest being cost per unit, which is
computation skew only beyond the stage's spread. Data skew is repartitioned; computation skew
(the same volume, each unit dearer) is traced to the records that cost the time.

**Whether anything stands out.** A task whose duration lies within its stage's normal spread
(``costmodel.standing``) gets no mechanism: its gap is noise, and the diagnosis says so. Extra
time that nothing measured explains (a cost per unit: computation skew) is named only for a
task well clear of its stage's noise (``UNEXPLAINED_FOLD``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from perfx.grammar.units import format_ms
from perfx.logs.eventlog import sqlplan
from perfx.logs.time_parts import TIME_PARTS

from . import costmodel
from .attempts import attempt_diagnosis, retry_diagnosis
from .columns import Columns
from .costmodel import NORMAL_FOLD, ModelSplit, Standing
from .diagnosis import Diagnosis
from .gc import garbage_of_another, on_more_input
from .hosts import slow_host
from .starts import cold_start

PARTS: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    (part.name, part.label, part.columns) for part in TIME_PARTS
)
"""(part, label, columns): the measured components of a duration (logs.time_parts); compute
is what they leave."""

RECORDS_SPLIT: tuple[tuple[str, str, str], ...] = (
    ("records_in", "records", "time per record"),
    ("bytes_in", "bytes", "time per byte"),
    ("input_records", "records", "time per record"),
    ("input_bytes", "bytes", "time per byte"),
    ("input_size", "bytes", "time per byte"),
)
"""Volume measures of the records-only split (without a cost model), in order of preference:
the first both executions have (> 0) splits the compute gap."""

SIMILAR_VOLUME = 1.5
"""Up to this much more volume is "no more input": a compute gap then is a cost per unit,
computation skew (reading less and still taking longer is computation skew too)."""

NOTABLE = 0.01
"""Parts moving less than this share of the gap (or 1 ms) are left out of the gap line."""


@dataclass(frozen=True)
class Part:
    """One part of the time: its value for each execution of the pair (ms)."""

    name: str
    label: str
    first: float
    second: float

    @property
    def delta(self) -> float:
        return self.first - self.second


@dataclass(frozen=True)
class Split:
    """The compute gap as volume plus cost per unit (LMDI-I, see the module docstring)."""

    unit: str
    rate_label: str
    first_volume: float
    second_volume: float
    volume_ms: float
    cost_ms: float
    cost_ratio: float
    """How much dearer each unit was for the first: (C₁/n₁) / (C₂/n₂)."""

    @property
    def volume_ratio(self) -> float:
        return self.first_volume / self.second_volume


@dataclass
class Gap:
    """The pair's duration gap (first minus second) and its parts.

    ``basis`` is ``duration`` for tasks and ``task time`` (the sum of their tasks'
    durations) for stages, jobs and apps."""

    first_total: float
    second_total: float
    basis: str
    parts: list[Part]
    split: Split | None
    diagnosis: Diagnosis | None = None
    model: ModelSplit | None = None
    """The compute gap split by the stage's cost model (tasks of one fitted stage); when set,
    it replaces ``split``."""
    standing: Standing | None = None
    """Where the first task's duration lies among its stage's other tasks."""

    @property
    def total(self) -> float:
        return self.first_total - self.second_total

    @cached_property
    def shares(self) -> dict[str, float]:
        """Each part's share of the time that moved in the gap's direction (compute as its
        volume and cost when split): parts moving the other way count zero, and the shares
        of the parts that moved with it add up to one."""
        sign = 1.0 if self.total >= 0 else -1.0
        split = self.split is not None or self.model is not None
        moves = {p.name: sign * p.delta for p in self.parts if p.name != "compute" or not split}
        if self.model is not None:
            for v in self.model.volumes:
                moves[f"volume:{v.kind}"] = sign * v.ms
            moves["cost"] = sign * self.model.cost_ms
        elif self.split is not None:
            moves["volume"], moves["cost"] = sign * self.split.volume_ms, sign * self.split.cost_ms
        positive = sum(v for v in moves.values() if v > 0)
        return {k: (max(v, 0.0) / positive if positive > 0 else 0.0) for k, v in moves.items()}

    def share(self, part: str) -> float:
        """``part``'s share of the gap; ``volume`` is every kind of volume's together where
        the stage's cost model split compute per kind (``volume:input``, ...)."""
        shares = self.shares
        if part == "volume" and self.model is not None:
            return sum(v for k, v in shares.items() if k.startswith("volume:"))
        return shares.get(part, 0.0)

    def _part_share(self, part: str) -> float:
        """A part's share as the gap line shows the part: compute's, where the cost model
        split it, is its volumes' and cost's together (its own key then holds none, and the
        JSON said 0 of a compute that carried 78 % of the gap: a probe of the CLI)."""
        if part == "compute" and (self.split is not None or self.model is not None):
            return self.share("volume") + self.share("cost")
        return self.share(part)

    def accounted(self, accounts: tuple[str, ...], feature: str = "") -> float:
        """The share of the gap the parts in ``accounts`` (``feature``'s ``accounts``)
        explain; ``compute`` stands for both volume and cost, ``cost`` for all of compute
        when it could not be split. Split by the cost model, ``volume`` is the share of the
        feature's own kind of volume (``costmodel.KIND_OF``), or of every kind for a feature
        that is not a volume. The features of the diagnosed mechanism account for the parts
        its diagnosis says it took the time of (``Diagnosis.parts``)."""
        names = set(accounts)
        if "compute" in names:
            names |= {"volume", "cost"}
        if "cost" in names and self.split is None and self.model is None:
            names.add("compute")
        diagnosis = self.diagnosis
        if (
            diagnosis is not None
            and diagnosis.carried_by
            and (costmodel.KIND_OF.get(feature) == diagnosis.carried_by)
        ):
            names |= set(diagnosis.parts)
        if self.model is not None and "volume" in names:
            names.discard("volume")
            kinds = costmodel.KIND_OF.get(feature)
            names |= {
                k
                for k in self.shares
                if k.startswith("volume:") and (kinds is None or k[7:] in kinds.split("+"))
            }
        return min(1.0, sum(self.share(n) for n in names))

    def line(self) -> str:
        """``2.43 s slower: compute +2.21 s (12.0x the records: 89 %; 1.1x the time per
        record: 11 %), GC +0.15 s``."""
        direction = "slower" if self.total > 0 else "faster" if self.total < 0 else "as fast"
        basis = "" if self.basis == "duration" else f" in {self.basis}"
        head = f"{format_ms(abs(self.total))} {direction}{basis}"
        floor = max(1.0, NOTABLE * abs(self.total))
        moved = sorted(
            (p for p in self.parts if abs(p.delta) >= floor), key=lambda p: -abs(p.delta)
        )
        if not moved:
            return head
        return f"{head}: " + ", ".join(self._part_text(p) for p in moved[:5])

    def _part_text(self, part: Part) -> str:
        text = f"{part.label} {'+' if part.delta >= 0 else '-'}{format_ms(abs(part.delta))}"
        if part.name == "compute" and self.model is not None and part.delta != 0:
            m = self.model
            floor = max(1.0, NOTABLE * abs(part.delta))
            moved = sorted((v for v in m.volumes if abs(v.ms) >= floor), key=lambda v: -abs(v.ms))
            pieces = [f"{_signed(v.ms)} from {_times(v.ratio)} the {v.label}" for v in moved[:3]]
            higher = "a higher" if m.cost_ms >= 0 else "a lower"
            pieces.append(f"{_signed(m.cost_ms)} from {higher} cost per unit of volume")
            text += f" ({'; '.join(pieces)}; cost model {m.model.quality()})"
        elif part.name == "compute" and self.split is not None and part.delta != 0:
            s = self.split
            said = split_shares(
                [
                    (f"{s.volume_ratio:.1f}x the {s.unit}", s.volume_ms),
                    (f"{s.cost_ratio:.1f}x the {s.rate_label}", s.cost_ms),
                ]
            )
            text += (
                f" ({said}"
                f"{'' if self.basis != 'duration' else '; no cost model of its stage: records only'})"
            )
        return text

    def to_dict(self) -> dict:
        out: dict = {
            "basis": self.basis,
            "first_ms": _ms(self.first_total),
            "second_ms": _ms(self.second_total),
            "gap_ms": _ms(self.total),
            "parts": [
                {
                    "part": p.name,
                    "label": p.label,
                    "first_ms": _ms(p.first),
                    "second_ms": _ms(p.second),
                    "delta_ms": _ms(p.delta),
                    "share": round(self._part_share(p.name), 4),
                }
                for p in self.parts
            ],
            "compute_split": None,
            "cost_model": None,
            "standing": None,
            "diagnosis": self.diagnosis.to_dict() if self.diagnosis else None,
            "line": self.line(),
        }
        if self.standing is not None:
            st = self.standing
            out["standing"] = {
                "value_ms": _ms(st.value),
                "median_ms": _ms(st.median),
                "spread_ms": [_ms(st.low), _ms(st.high)],
                "robust_z": round(st.z, 2),
                "peers": st.peers,
                "stands_out": st.stands_out,
            }
        if self.model is not None:
            m = self.model
            out["cost_model"] = {
                "volumes": [
                    {
                        "kind": v.kind,
                        "measure": v.label,
                        "first": v.first,
                        "second": v.second,
                        "ms": _ms(v.ms),
                    }
                    for v in m.volumes
                ],
                "cost_ms": _ms(m.cost_ms),
                "residual_z": round(m.residual_z, 2),
                "beyond_spread": m.beyond_spread,
                "r2": None if not math.isfinite(m.model.r2) else round(m.model.r2, 4),
                "typical_tasks": m.model.typical,
                "tasks": m.model.tasks,
            }
        if self.split is not None:
            s = self.split
            out["compute_split"] = {
                "unit": s.unit,
                "first": s.first_volume,
                "second": s.second_volume,
                "volume_ratio": round(s.volume_ratio, 4),
                "cost_ratio": round(s.cost_ratio, 4),
                "volume_ms": _ms(s.volume_ms),
                "cost_ms": _ms(s.cost_ms),
                "volume_share": round(self.share("volume"), 4),
                "cost_share": round(self.share("cost"), 4),
            }
        return out


def decompose(cols: Columns, first: int, second: int) -> Gap | None:
    """The gap between rows ``first`` and ``second`` of ``cols``' table, or None when the
    table has no duration to split (or either value is missing)."""
    suffix = "" if cols.entity == "task" else "_sum"
    present = cols.present
    total = "duration" + suffix
    if total not in present:
        return None
    a, b = _pair(cols, total, first, second)
    if math.isnan(a) or math.isnan(b):
        return None
    parts: list[Part] = []
    for name, label, values in _logged_parts(cols, suffix):
        parts.append(Part(name, label, float(values[first]), float(values[second])))
    compute = Part(
        "compute", "compute", a - sum(p.first for p in parts), b - sum(p.second for p in parts)
    )
    parts.append(compute)
    model = costmodel.split(cols, first, second) if not suffix else None
    gap = Gap(
        a,
        b,
        "duration" if not suffix else "task time",
        parts,
        _split(cols, suffix, present, first, second, compute) if model is None else None,
        model=model,
        standing=costmodel.standing(cols, first, least_peers=1) if not suffix else None,
    )
    gap.diagnosis = diagnose(cols, first, second, gap)
    return gap


def _logged_parts(cols: Columns, suffix: str) -> list[tuple[str, str, np.ndarray]]:
    """``PARTS`` with each part's value in every row of the table: the sum of the part's
    columns the table logs (``suffix``: ``_sum`` for a stage's, job's or app's), a missing
    value counting as zero, added in the order ``_sum`` adds them; the parts it logs none of
    are left out. Summed once per table: a report decomposes the gap of every straggler."""
    key = ("logged parts", suffix)
    found = cols.derived.get(key)
    if found is None:
        found = []
        for name, label, columns in PARTS:
            logged = [c + suffix for c in columns if c + suffix in cols.present]
            if logged:
                total = np.zeros(cols.n)
                for column in logged:
                    values = cols.numeric(column)
                    total = total + np.where(np.isnan(values), 0.0, values)
                found.append((name, label, total))
        cols.derived[key] = found
    return found


def _split(
    cols: Columns, suffix: str, present: frozenset, first: int, second: int, compute: Part
) -> Split | None:
    if compute.first <= 0 or compute.second <= 0:
        return None
    for column, unit, rate in RECORDS_SPLIT:
        if column + suffix not in present:
            continue
        n1, n2 = _pair(cols, column + suffix, first, second)
        if n1 > 0 and n2 > 0:
            c1, c2 = compute.first, compute.second
            mean = (c1 - c2) / (math.log(c1) - math.log(c2)) if c1 != c2 else c1
            volume = mean * math.log(n1 / n2)
            cost_ratio = (c1 / n1) / (c2 / n2)
            return Split(unit, rate, n1, n2, volume, (c1 - c2) - volume, cost_ratio)
    return None


DIAGNOSES = {
    "scheduler_delay": (
        "scheduler delay",
        "it waited longer to be scheduled or to send its result",
    ),
    "task_deserialization": (
        "task deserialization",
        "it took longer to deserialize its task (a cold executor or a large closure)",
    ),
    "gc": ("GC pressure", "its JVM spent more time collecting garbage"),
    "shuffle_read": (
        "shuffle fetch wait",
        "it waited longer for shuffle blocks from other executors",
    ),
    "shuffle_write": ("shuffle write", "it spent longer writing shuffle output"),
    "input_read": ("input read", "it spent longer reading its input"),
    "result_serialization": ("result serialization", "it spent longer serializing its result"),
    "getting_result": ("getting result", "the driver spent longer fetching its result"),
    "compute": ("compute", "its own code ran longer"),
}

ISOLATE = "perfx isolate PROGRAM.py --input INPUT"
"""The next step for computation skew (trace the records inside the task that cost the
time) and data skew (trace them to see which keys the task's partition holds), where Python
code handled the records (``_where_isolation_fits``); the front fills in the program and
input the log names (its ``isolate_command``)."""


def diagnose(cols: Columns, first: int, second: int, gap: Gap) -> Diagnosis | None:
    """The gap's largest part, named as a mechanism (``mechanism``), once the first task
    stands out from its stage at all: one within its stage's normal spread gets "no cause
    stands out" and no mechanism. Every diagnosis says how far the task stands out. A task
    attempt that did not run to success on its own (a speculative copy, a failed attempt:
    ``explain.attempts``) is said so first: its time is no completed run of its records."""
    if gap.total <= 0 or not gap.shares:
        return None
    if cols.entity == "task":  # a speculative copy's or a failed attempt's time is no run's
        told = attempt_diagnosis(cols, first)
        if told is not None:
            return told
    standing = gap.standing
    if (
        standing is not None
        and not standing.stands_out
        and not _part_stands_out(cols, first, gap, standing)
    ):
        return Diagnosis(
            NOTHING_STANDS_OUT,
            f"{cols.entity} {cols.values('id')[first]} took {format_ms(standing.value)}, within "
            + (
                f"its stage's normal range of {_range(standing)}"
                if standing.peers > 1
                else f"{NORMAL_FOLD:g}x the {format_ms(standing.median)} of its stage's only "
                "other task, as much as tasks doing the same work vary"
            ),
        )
    found = mechanism(cols, first, second, gap)
    if found is None:
        return None
    if found.next_step == ISOLATE:
        found = _where_isolation_fits(cols, first, found)
    if standing is None:
        return found
    strength = (
        f"; it took {format_ms(standing.value)} against its stage's median "
        f"{format_ms(standing.median)}, "
        f"robust z {standing.z:,.1f} over {standing.peers} peers"
        if standing.peers > 1
        else f"; it took {format_ms(standing.value)} against the "
        f"{format_ms(standing.median)} of its stage's one other task"
    )
    return replace(found, detail=found.detail + strength)


NOTHING_STANDS_OUT = "no cause stands out"

VOLUME_SHARE = 0.5
"""A part (a volume, GC, ...) that accounts for at least this share of the gap and stands out
from the stage by itself is a cause even when the task's duration lies within its (noisy)
stage's spread."""


def _part_stands_out(cols: Columns, first: int, gap: Gap, standing: Standing) -> bool:
    """Does the part that accounts for most of the gap (a volume of the cost model, or a
    measured part such as GC) lie beyond the stage's spread of its own column
    (``costmodel.standing``)? A noisy stage can hide a task's 7x GC time in its spread of
    durations, not in its spread of GC times. Where the task's peers have none of the part
    (a median of zero), no fold of it can be measured and any of it would stand out: there
    the part must cost the task more than its duration's normal spread above the median (14
    ms of GC where the peers had none does not make a 155 ms task of a stage spread up to
    233 ms slow: a control stage of the causes benchmark, diagnosed "GC pressure" before)."""
    columns = {f"volume:{v.kind}": v.column for v in gap.model.volumes} if gap.model else {}
    columns |= {name: measured[0] for name, _, measured in PARTS}
    for part, share in gap.shares.items():
        column = columns.get(part)
        if share >= VOLUME_SHARE and column is not None and column in cols.present:
            found = costmodel.standing(cols, first, column)
            if found is None or not found.stands_out:
                return False
            return found.median > 0 or share * gap.total > standing.high - standing.median
    return False


def _range(standing: Standing) -> str:
    """The stage's normal range (``costmodel.standing``) and what bounds it from above: its
    top is a threshold, not a task the stage ran (up to 1.6 min where the slowest took 66 s)."""
    low, high = format_ms(standing.low), format_ms(standing.high)
    return f"{low}-{high} (median {format_ms(standing.median)}; up to {standing.top})"


VOLUME_MECHANISMS = {
    "input": ("data skew", "it read", "repartition or split the heavy keys"),
    "input+shuffle read": ("data skew", "it read", "repartition or split the heavy keys"),
    "shuffle read": ("data skew", "it read", "split the heavy keys: salt them"),
    "shuffle write": (
        "shuffle fan-out",
        "it wrote",
        "its records multiply (flatMap, explode, a join's matches): filter or aggregate "
        "before the shuffle, or raise spark.sql.shuffle.partitions",
    ),
    "output": (
        "output skew",
        "it wrote",
        "its partition writes more: repartition by the output key before the write",
    ),
    "result": (
        "result size",
        "it returned",
        "return less to the driver (aggregate on the executors, or write out instead of "
        "collect); spark.driver.maxResultSize bounds it",
    ),
}


def mechanism(cols: Columns, first: int, second: int, gap: Gap) -> Diagnosis | None:
    """The gap's largest part as a mechanism. Compute time split by the stage's cost model
    names the volume whose cost moved it (data skew on input or shuffle read, shuffle
    fan-out, output skew, result size, spill) or, beyond the stage's spread only, a cost per
    unit: computation skew, said to be off the JVM's CPU when its CPU time did not follow (in
    a PySpark stage the Python worker, computing or waiting, or I/O; in a JVM stage, a wait).
    A cost per unit that spill, a retry after failed attempts (``explain.attempts``), a slow
    host (``explain.hosts``) or a cold start (first task on its executor) goes with is named
    after them instead. Without a cost model, the records-only split of the module
    docstring: data skew when volume dominates, computation skew when the same volume cost
    more per unit."""
    shares = dict(gap.shares)
    model = gap.model
    floor = 0.0
    if model is not None and not model.beyond_spread:
        shares.pop("cost", None)  # within the stage's spread: no cost per unit stands out
        floor = MIN_SHARE  # and what is left must account for the gap, not 3 % of it
    shares = {k: v for k, v in shares.items() if v > floor}
    if not shares:
        return Diagnosis(
            NOTHING_STANDS_OUT,
            "its extra compute lies within the spread of its stage's cost model "
            f"({model.model.quality() if model else 'no model'})",
        )
    part = max(shares, key=lambda k: shares[k])
    percent = f"{_percent(shares[part])} of the extra time"
    split = gap.split
    if part.startswith("volume:") and model is not None:
        kind = part[7:]
        v = next(v for v in model.volumes if v.kind == kind)
        amount = f"{_times(v.ratio)} the {v.label}"
        if kind == "spill":
            return _spill(cols, first, second, f"it spilled {amount} ({percent})", part)
        if kind in ("input", "shuffle read", "input+shuffle read") and _spilled_more(
            cols, first, second
        ):
            return _spill(cols, first, second, f"it read {amount} and spilled ({percent})", part)
        name, verb, step = VOLUME_MECHANISMS[kind]
        if kind == "shuffle read":
            step = _heavy_keys_step(cols, first)
        return _named(
            cols,
            name,
            f"{verb} {amount} ({kind}; {percent})",
            step,
            ISOLATE if name == "data skew" else "",
        )
    if part == "volume" and split is not None:
        source = "shuffle read" if _more(cols, "shuffle_read_records", first, second) else "input"
        return _named(
            cols,
            "data skew",
            f"it read {split.volume_ratio:.1f}x the {split.unit} ({source}; {percent})",
            "repartition or split the heavy keys",
            ISOLATE,
        )
    if part in ("cost", "compute"):
        if _spilled_more(cols, first, second) and _spill_could_take(cols, first, second, gap):
            spilled = [
                _sum(_pair(cols, c, first, second)[k] for c in SPILLED if c in cols.present)
                for k in (0, 1)
            ]
            what = (
                f"it spilled {_times(spilled[0] / spilled[1])} the bytes of its reference"
                if spilled[1] > 0
                else "it spilled while its reference did not"
            )
            return _spill(cols, first, second, f"{what} ({percent})", part)
        if cols.entity == "task":
            told = _retry(cols, first, part, percent) or slow_host(cols, first, second, percent)
            if told is not None:
                return told
        started = cold_start(cols, first, second, percent, runs_python(cols, first))
        if started is not None:
            return started
        where = _off_cpu(cols, first, second, gap)
        noise = _unexplained_within_noise(gap.standing) if where[0] else None
        if noise is None and where[0] and model is not None and cols.entity == "task":
            noise = _residual_within_noise(model)
        if noise is not None:
            return noise
        if model is not None:
            return _named(
                cols,
                "computation skew" if where[0] else "off-CPU wait",
                f"{_volumes_of(model)} cost {format_ms(model.cost_ms)} more than its stage's "
                f"cost model predicts ({model.residual_z:,.1f} robust deviations; {percent})"
                f"{where[1]}",
                "find the records that cost the time" if where[0] else "",
                ISOLATE if where[0] else "",
            )
        if (
            split is not None and split.volume_ratio <= SIMILAR_VOLUME
        ):  # no more input, each unit dearer
            volume = (
                "the same volume of input"
                if split.volume_ratio >= 1 / SIMILAR_VOLUME
                else f"{split.volume_ratio:.1f}x the {split.unit}"
            )
            return _named(
                cols,
                "computation skew",
                f"{volume} cost {split.cost_ratio:.1f}x the {split.rate_label} ({percent}){where[1]}",
                "find the records that cost the time",
                ISOLATE,
            )
        if split is not None:
            return Diagnosis(
                "higher cost per unit",
                f"each of its {split.unit} cost {split.cost_ratio:.1f}x ({percent})",
                ISOLATE,
            )
    if part in ("getting_result", "result_serialization") and _more(
        cols, "result_size", first, second
    ):
        ratio = _pair(cols, "result_size", first, second)
        name, step = VOLUME_MECHANISMS["result"][0], VOLUME_MECHANISMS["result"][2]
        return Diagnosis(
            name,
            f"it returned {_times(ratio[0] / ratio[1] if ratio[1] > 0 else math.inf)} the result "
            f"bytes, and its {DIAGNOSES[part][0]} took the time ({percent}): {step}",
        )
    retried = _retry(cols, first, part, percent)
    if retried is not None:
        return retried
    large = _large_task(cols, first, gap) if part in SHIPPING else None
    if large is not None:
        return large
    name, words = DIAGNOSES.get(part, ("compute", "its own code ran longer"))
    if part == "gc":
        others = garbage_of_another(cols, first, percent)
        if others is not None:
            return others
        return Diagnosis(name, f"{words} ({percent}){on_more_input(cols, first, second)}")
    return Diagnosis(name, f"{words} ({percent})")


def _volumes_of(model: ModelSplit) -> str:
    """The pair's volumes, as a cost per unit beyond the model is said of them: "the same
    volumes", or the one that differs most (beyond ``SIMILAR_VOLUME``). A task of 10x the
    records whose pause took it off its model's line too was said to have "the same
    volumes"."""
    differing = [
        v
        for v in model.volumes
        if v.first > SIMILAR_VOLUME * v.second or v.second > SIMILAR_VOLUME * v.first
    ]
    if not differing:
        return "the same volumes"
    v = max(differing, key=lambda v: max(v.first, v.second) / max(min(v.first, v.second), 1.0))
    return f"with {_times(v.ratio)} the {v.label}, its volumes"


def _heavy_keys_step(cols: Columns, row: int) -> str:
    """What splits the heavy keys of a task that read more of a shuffle. A SQL plan's join
    is split by adaptive execution's skew join, which is on by default since Spark 3.2 and
    splits a partition only beyond its thresholds (telling a user to turn it on, as perfx
    did, says nothing where it ran); an RDD's shuffle (groupByKey, join) is none of its
    business: there the keys are salted or combined before the shuffle."""
    if _plan(cols, row)[0]:
        return (
            "split the heavy keys: adaptive execution's skew join "
            "(spark.sql.adaptive.skewJoin.enabled, on by default since Spark 3.2) splits a "
            "join's partition only beyond skewedPartitionThresholdInBytes (256 MB) and "
            "skewedPartitionFactor (5) times the median: lower them, or salt the keys"
        )
    return (
        "split the heavy keys: salt them, or combine before the shuffle (reduceByKey or "
        "aggregateByKey, not groupByKey)"
    )


SHIPPING = ("scheduler_delay", "task_deserialization")
"""The parts a large task's own size costs: the driver serializes it after its launch is
stamped (scheduler delay), the executor deserializes it (task deserialization)."""

LARGE_TASK_FOLD = 3.0
"""Times its reference's deserialization a task's must take to be called large: a cold
executor's first tasks are dearer to deserialize too, and are named for that
(``explain.starts``)."""

LARGE_TASK_MS = 100.0
"""...and at least this long: a few milliseconds more of a 12 ms task (a public log's) is no
large task. A task's bytes deserialize at some hundreds of MB/s: 100 ms is tens of MB."""


def _large_task(cols: Columns, first: int, gap: Gap) -> Diagnosis | None:
    """``large task`` where shipping the task (``SHIPPING``) is most of the gap and its
    deserialization took ``LARGE_TASK_FOLD`` times its reference's and ``LARGE_TASK_MS`` at
    least, on a warm executor: data or an object its functions refer to travels inside the
    task. A 123 MB slice of
    ``sc.parallelize`` was diagnosed "scheduler delay: it waited longer to be scheduled", its
    deserialization, the other 28 % of the gap, unsaid (a probe's held-out cause)."""
    if _value(cols, "first_task_on_executor", first) == "T":
        return None
    parts = {p.name: p for p in gap.parts if p.name in SHIPPING}
    shipping = parts.get("task_deserialization")
    if shipping is None or shipping.first < max(LARGE_TASK_FOLD * shipping.second, LARGE_TASK_MS):
        return None
    share = sum(gap.shares.get(name, 0.0) for name in SHIPPING)
    if share < 0.5:
        return None
    cost = sum(p.delta for p in parts.values())
    return Diagnosis(
        "large task",
        f"its scheduler delay and deserialization took {format_ms(cost)} more "
        f"({_percent(share)} of the extra time; deserializing it took {format_ms(shipping.first)} "
        f"against {format_ms(shipping.second)}): the task itself is large, data or an object "
        "its functions refer to travelling inside it (sc.parallelize of a large collection, a "
        "large closure), serialized by the driver before it runs; broadcast it or read it "
        "from storage",
    )


BETWEEN_STAGES = {
    "data skew": "more input",
    "output skew": "more output",
    "computation skew": "higher cost per unit",
}
"""Skew is a task's, against its stage's peers running the same code on other records.
Between two stages, jobs or applications (other code, other data) the same parts of a gap
are more volume or a dearer unit, without the skew's remedy (a stage that read 96x the
records of another was "data skew: repartition or split the heavy keys")."""


def _named(cols: Columns, name: str, detail: str, step: str, next_step: str) -> Diagnosis:
    """The diagnosis ``name``: ``detail`` and the remedy ``step`` (the command
    ``next_step``); for anything but a task, a skew's name is ``BETWEEN_STAGES``' and no
    remedy follows."""
    if cols.entity != "task" and name in BETWEEN_STAGES:
        return Diagnosis(BETWEEN_STAGES[name], detail)
    return Diagnosis(name, f"{detail}: {step}" if step else detail, next_step)


UNEXPLAINED = "its extra time is compute that no volume or measured part explains"
"""How both noise rules (``_unexplained_within_noise``, ``_residual_within_noise``) begin."""

UNEXPLAINED_FOLD = 2.0
"""A cost per unit that nothing measured explains (computation skew, a higher cost per unit)
is named only for a task at least this many times its stage's median duration. Below it,
tasks doing the same work reach that much on a busy machine: in the causes benchmark's
controls (nothing injected, 28-36 tasks on 2 cores) the slowest task stood at up to 1.56x the
median, 5-10 robust deviations from a tight stage, with nothing but compute to show for it,
while every injected cause that leaves only compute to show (a costly record, a wait in
Python) stood at 7x or more. A measured part (a volume, spill, GC, a retry, a cold start, a
slow host, a JVM stage's run time that its CPU time did not follow: an off-CPU wait) is
evidence by itself, and needs only the stage's spread."""


def _unexplained_within_noise(standing: Standing | None) -> Diagnosis | None:
    """A "no cause stands out" for extra compute that nothing measured explains, where the task
    lies under ``UNEXPLAINED_FOLD`` times its stage's median; None where it lies clear of that
    noise, or has no stage to stand in (then its gap alone is judged, as before)."""
    if standing is None or standing.value >= UNEXPLAINED_FOLD * standing.median:
        return None
    fold = standing.value / standing.median  # the median is positive: value < 2x it
    return Diagnosis(
        NOTHING_STANDS_OUT,
        f"{UNEXPLAINED}, and at "
        f"{fold:.1f}x its stage's median it is within what tasks doing the same work vary by "
        f"(under {UNEXPLAINED_FOLD:g}x)",
    )


SKEW_RESIDUAL_Z = 8.0
"""Robust deviations from its stage's cost model that a task's extra compute must reach to be
called computation skew (its records cost more: find them). In the causes benchmark every
injected computation skew stood 15-128 deviations off its model; in a probe of held-out causes
on a busy machine the injected ones stood 17-27 off, and four tasks with nothing injected were
called computation skew at 3.7-7.1 (a control at 2.45x its stage's median among them), which
the machine's noise reaches: the user was sent to look for records that were not there. The
cut is the lowest that clears that noise: calls between it and 15 have no ground truth here
(a public GPU log's task at 9.1 deviations and 2.3x its stage's median stays computation
skew)."""


def _residual_within_noise(model: ModelSplit) -> Diagnosis | None:
    """A "no cause stands out" for extra compute that nothing measured explains, where the
    cost model's residual lies under ``SKEW_RESIDUAL_Z``; None otherwise."""
    if model.residual_z >= SKEW_RESIDUAL_Z:
        return None
    return Diagnosis(
        NOTHING_STANDS_OUT,
        f"{UNEXPLAINED}, {format_ms(model.cost_ms)} more than its stage's cost model predicts at "
        f"{model.residual_z:,.1f} robust deviations, within what a busy machine's noise reaches "
        f"(under {SKEW_RESIDUAL_Z:g})",
    )


RETRY_PARTS = ("cost", "compute", "task_deserialization", "scheduler_delay")
"""Parts of a gap a retry's own cost shows in: recomputing what the failed attempt's executor
held (compute) on another, often fresh, executor (deserialization, scheduling)."""


def _retry(cols: Columns, first: int, part: str, percent: str) -> Diagnosis | None:
    """``retry`` (``explain.attempts``) where the gap's largest part is one a retry costs."""
    if cols.entity != "task" or part not in RETRY_PARTS:
        return None
    return retry_diagnosis(cols, first, percent)


def _spilled_more(cols: Columns, first: int, second: int) -> bool:
    return any(_more(cols, c, first, second) for c in SPILLED)


def _spill(cols: Columns, first: int, second: int, what: str, part: str) -> Diagnosis:
    """Spill, with more volume (its partition is larger) or without (its records are), that
    took the time of the gap's ``part`` (its largest): the spill features account for it."""
    more = any(
        _more(cols, c, first, second)
        for c in ("input_records", "input_bytes", "shuffle_read_records", "shuffle_read_bytes")
    )
    why = (
        "with more volume: its partition is larger; repartition it"
        if more
        else "without more volume: its records are larger; give execution more memory "
        "(spark.executor.memory, spark.memory.fraction) or split the large records"
    )
    return Diagnosis("spill", f"{what}, {why}", parts=(part,), carried_by="spill")


SPILLED = ("memory_bytes_spilled", "disk_bytes_spilled")

SPILL_BYTES_PER_MS = 5_000
"""The slowest a spill writes and reads back its bytes (5 MB/s, below a busy disk's, a Python
worker's pickling included): a spill of D more bytes on disk took at most D / this of the
gap beyond the CPU time it added."""


def _spill_could_take(cols: Columns, first: int, second: int, gap: Gap) -> bool:
    """Could the spill have taken half the extra compute: the CPU time the first task added,
    and its extra bytes on disk at ``SPILL_BYTES_PER_MS``? A spill of 10 KB on disk with 15 ms
    more CPU time does not make a 1.5 s wait (a probe of held-out causes: a JVM stage's
    sleeping task, which also spilled 8 MB of memory, was called spill, "give execution more
    memory"). Only a spill to disk is judged so: a GPU's to host memory (a RAPIDS log's 1.8
    GB spilled, none to disk) costs time that neither shows. Where the log lacks the CPU time
    or the disk bytes, it could."""
    if not {"executor_cpu_time", "disk_bytes_spilled"} <= cols.present:
        return True
    cpu = _pair(cols, "executor_cpu_time", first, second)
    compute = next(p for p in gap.parts if p.name == "compute")
    if not (cpu[0] > 0 or cpu[1] > 0) or compute.delta <= 0:  # Spark before 2.1 logs no CPU
        return True
    disk = _pair(cols, "disk_bytes_spilled", first, second)
    if not disk[0] > disk[1]:  # spilled elsewhere than to disk (a GPU's to host memory)
        return True
    most = max(cpu[0] - cpu[1], 0) + (disk[0] - disk[1]) / SPILL_BYTES_PER_MS
    return most >= OFF_CPU * compute.delta


MIN_SHARE = 0.3
"""Once a cost per unit within the stage's spread is set aside, a part must account for at
least this share of the gap to be named: a 21 ms scheduler delay in a 635 ms gap is no cause."""

OFF_CPU = 0.5
"""Extra compute of which the JVM's CPU time rose by less than this share was spent off it."""


def _off_cpu(cols: Columns, first: int, second: int, gap: Gap) -> tuple[bool, str]:
    """(does the extra cost follow records, the words saying where it was spent): extra
    compute the JVM's CPU time did not follow was spent off it, in a PySpark stage (or a SQL
    plan with Python UDFs) in the Python worker (computing or waiting) or in I/O, in a RAPIDS
    plan on the GPU (still computation skew: the worker or the GPU runs the records), in a
    JVM stage (Scala, or a SQL plan of JVM operators alone) waiting (I/O, locks, a busy
    host)."""
    if "executor_cpu_time" not in cols.present:
        return True, ""
    compute = next(p for p in gap.parts if p.name == "compute")
    cpu = _pair(cols, "executor_cpu_time", first, second)
    if not (cpu[0] > 0 or cpu[1] > 0) or compute.delta <= 0:  # Spark before 2.1 logs none
        return True, ""
    extra = cpu[0] - cpu[1]
    if extra >= OFF_CPU * compute.delta:
        return True, f"; on the JVM's CPU (+{format_ms(max(extra, 0))} CPU time)"
    off = f"; off the JVM's CPU (its CPU time +{format_ms(max(extra, 0))} of +{format_ms(compute.delta)}"
    engine = _plan(cols, first)[0]
    if engine == sqlplan.GPU:
        return True, off + "): on the GPU (RAPIDS) or waiting for it"
    if runs_python(cols, first):
        return True, off + "): in the Python worker (computing or waiting) or I/O"
    if engine == sqlplan.JVM or _scala(cols, first):
        return False, off + "): waiting on I/O, locks or a busy host"
    # No call site, or a Java one (a PySpark DataFrame action's, whose Python UDFs run off the
    # JVM's CPU too): the log does not say whether the stage runs Python, so no wait is named.
    return True, off + "): in a Python worker (computing or waiting), I/O or a wait"


def runs_python(cols: Columns, row: int) -> bool:
    """Does ``row``'s stage run Python? Its SQL plan says, where the log has one, before its
    call site: PySpark names a DataFrame action's stages after the script's line whether or
    not its plan runs any Python (a SQL join's stage was said to spend its time "in the
    Python worker" while the same diagnosis said its plan runs none)."""
    engine = _plan(cols, row)[0]
    return engine == sqlplan.PYTHON or (engine != sqlplan.JVM and _pyspark(cols, row))


def _pyspark(cols: Columns, row: int) -> bool:
    """Is ``row``'s stage a PySpark one? Its name (call site) is a Python file's line."""
    text = _call_site(cols, row)
    return ".py:" in text or "PythonRDD" in text or "pyspark" in text


def _where_isolation_fits(cols: Columns, row: int, found: Diagnosis) -> Diagnosis:
    """``found`` with perfx isolate as its next step where a traced re-run can find the
    records that cost the time: Python code handled them (not a Scala stage, nor a SQL plan
    of JVM operators alone) on a CPU (not a RAPIDS plan), on input this machine can read
    (a remote input is to be copied first). Elsewhere the Spark remedy the detail names is
    the next step, and the detail says why isolation does not fit."""
    engine, scanned = _plan(cols, row)
    if engine == sqlplan.GPU:
        reason = "its SQL plan ran on the GPU (RAPIDS), which a traced re-run on the CPU does not"
    elif engine == sqlplan.JVM:
        reason = "its SQL plan runs no Python code that records pass through"
    elif engine != sqlplan.PYTHON and _scala(cols, row):  # a plan's Python UDFs are Python's
        reason = "this stage is Scala's"
    else:
        if scanned and sqlplan.REMOTE.match(scanned):
            return replace(
                found,
                detail=found.detail
                + f" (perfx isolate re-runs it on this machine: copy its input {scanned} here "
                "and give the copy as --input)",
            )
        return found
    return replace(
        found,
        detail=found.detail + f" (perfx isolate re-runs PySpark programs, and {reason})",
        next_step="",
    )


def _plan(cols: Columns, row: int) -> tuple[str, str]:
    """(engine, first input) of the SQL plan of ``row``'s job (eventlog.sqlplan), or ("", "")
    where the log names none (an RDD job, a log without SQL events)."""
    if cols.entity != "task" or "job_id" not in cols.present:
        return "", ""
    jobs = cols.log.table("job")
    if "plan_engine" not in jobs.columns:
        return "", ""
    found = cols.derived.get("plans")
    if found is None or found[0] is not jobs:  # built once per job table (a report asks per task)
        plans: dict = {}
        for job, engine, scanned in zip(
            jobs["id"].to_numpy(), jobs["plan_engine"].to_numpy(), jobs["plan_input"].to_numpy()
        ):
            plans.setdefault(job, (str(engine or ""), str(scanned or "")))
        found = cols.derived["plans"] = (jobs, plans)
    job = f"{cols.values('app_key')[row]}/{cols.values('job_id')[row]}"
    return found[1].get(job, ("", ""))


def _scala(cols: Columns, row: int) -> bool:
    """Does the log show ``row``'s stage is a Scala program's (a ``.scala`` or shell call
    site)? A PySpark DataFrame action's call site is a Java one (``NativeMethodAccessorImpl``),
    and a log without stage names says nothing: neither is taken for Scala."""
    text = _call_site(cols, row)
    return (".scala:" in text or "<console>:" in text) and not _pyspark(cols, row)


def _call_site(cols: Columns, row: int) -> str:
    """The name and details (call site) of ``row``'s stage, or "" where the log has none."""
    stages = cols.log.table("stage")
    if "stage_key" not in cols.present or "name" not in stages.columns:
        return ""
    found = cols.derived.get("call_sites")
    if found is None or found[0] is not stages:  # built once per stage table
        shown = ["name", "details"] if "details" in stages.columns else ["name"]
        texts: dict = {}
        for key, values in zip(stages["id"].to_numpy(), stages[shown].to_numpy()):
            texts.setdefault(key, []).extend(str(v) for v in values)
        found = cols.derived["call_sites"] = (stages, {k: " ".join(v) for k, v in texts.items()})
    return found[1].get(cols.values("stage_key")[row], "")


def _pair(cols: Columns, column: str, first: int, second: int) -> tuple[float, float]:
    values = cols.numeric(column)
    return float(values[first]), float(values[second])


def _sum(values) -> float:
    """Sum of values, a missing one counting as zero (a part not logged for that task): in
    order, as ``np.nansum`` adds a part's few columns, without building an array per part."""
    total = 0.0
    for value in values:
        if value == value:
            total += value
    return total


def _more(cols: Columns, column: str, first: int, second: int) -> bool:
    """Did the first have clearly more of ``column`` (half again, or some against none)?"""
    if column not in cols.present:
        return False
    a, b = _pair(cols, column, first, second)
    return a > 0 and not (b >= a / SIMILAR_VOLUME)


def _value(cols: Columns, column: str, row: int) -> object:
    if column not in cols.present:
        return None
    return cols.values(column)[row]


def whole_percents(values: list[float]) -> list[int]:
    """Whole percents of ``values`` (all of one sign) that add up to exactly 100: each rounded
    down, then the points left given to the largest remainders (so 33.3/33.3/33.3 is 34/33/33,
    never 99 or 101)."""
    total = sum(values)
    if total == 0:
        return [0] * len(values)
    exact = [100 * v / total for v in values]
    floors = [math.floor(x) for x in exact]
    left = 100 - sum(floors)
    for i in sorted(range(len(values)), key=lambda i: floors[i] - exact[i])[:left]:
        floors[i] += 1
    return floors


def split_shares(pieces: list[tuple[str, float]]) -> str:
    """Parts of a time difference said so that they add up: parts that all moved one way as
    whole percents summing to 100 (``12.0x the records: 89 %; 1.1x the time per record:
    11 %``); parts that pulled in opposite directions as the time each lost or saved
    (``2.0x the records: lost 1.20 s; 0.8x the time per record: saved 200 ms``), never
    ``119 %`` beside ``-19 %``."""
    values = [ms for _, ms in pieces]
    if all(v >= 0 for v in values) or all(v <= 0 for v in values):
        percents = whole_percents([abs(v) for v in values])
        return "; ".join(f"{name}: {p} %" for (name, _), p in zip(pieces, percents))
    return "; ".join(
        f"{name}: {'lost' if ms > 0 else 'saved'} {format_ms(abs(ms))}" for name, ms in pieces
    )


def _percent(share: float) -> str:
    """``89 %``; ``-4 %`` for a part that worked against the gap (never ``-0 %``)."""
    return f"{round(share * 100) + 0:.0f} %"


def _signed(ms: float) -> str:
    return f"{'+' if ms >= 0 else '-'}{format_ms(abs(ms))}"


def _times(ratio: float) -> str:
    """``40.0x``; ``more`` against none."""
    return f"{ratio:.1f}x" if math.isfinite(ratio) else "some against none of"


def _ms(x: float) -> float:
    return round(float(x), 3)
