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
of its extra compute to volume. Data skew is repartitioned; computation skew (the same
volume, each unit dearer) is traced to the records that cost the time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from perfx.logs.time_parts import TIME_PARTS

from .columns import Columns

PARTS: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    (part.name, part.label, part.columns) for part in TIME_PARTS
)
"""(part, label, columns): the measured components of a duration (logs.time_parts); compute
is what they leave."""

VOLUMES: tuple[tuple[str, str, str], ...] = (
    ("records_in", "records", "time per record"),
    ("bytes_in", "bytes", "time per byte"),
    ("input_records", "records", "time per record"),
    ("input_bytes", "bytes", "time per byte"),
    ("input_size", "bytes", "time per byte"),
)
"""Volume measures in order of preference: the first both executions have (> 0) splits the
compute gap."""

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


@dataclass(frozen=True)
class Diagnosis:
    """What the gap's largest part says, in words, with the next step where there is one."""

    name: str
    detail: str
    next_step: str = ""

    def to_dict(self) -> dict:
        return {"name": self.name, "detail": self.detail, "next_step": self.next_step or None}


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

    @property
    def total(self) -> float:
        return self.first_total - self.second_total

    @cached_property
    def shares(self) -> dict[str, float]:
        """Each part's share of the time that moved in the gap's direction (compute as its
        volume and cost when split): parts moving the other way count zero, and the shares
        of the parts that moved with it add up to one."""
        sign = 1.0 if self.total >= 0 else -1.0
        moves = {
            p.name: sign * p.delta for p in self.parts if p.name != "compute" or self.split is None
        }
        if self.split is not None:
            moves["volume"], moves["cost"] = sign * self.split.volume_ms, sign * self.split.cost_ms
        positive = sum(v for v in moves.values() if v > 0)
        return {k: (max(v, 0.0) / positive if positive > 0 else 0.0) for k, v in moves.items()}

    def share(self, part: str) -> float:
        return self.shares.get(part, 0.0)

    def accounted(self, accounts: tuple[str, ...]) -> float:
        """The share of the gap the parts in ``accounts`` (a feature's ``accounts``) explain;
        ``compute`` stands for both volume and cost, ``cost`` for all of compute when it
        could not be split."""
        names = set(accounts)
        if "compute" in names:
            names |= {"volume", "cost"}
        if "cost" in names and self.split is None:
            names.add("compute")
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
        if part.name == "compute" and self.split is not None and part.delta != 0:
            s = self.split
            volume = s.volume_ms / part.delta
            text += (
                f" ({s.volume_ratio:.1f}x the {s.unit}: {_percent(volume)}; "
                f"{s.cost_ratio:.1f}x the {s.rate_label}: {_percent(1 - volume)})"
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
                    "share": round(self.share(p.name), 4),
                }
                for p in self.parts
            ],
            "compute_split": None,
            "diagnosis": self.diagnosis.to_dict() if self.diagnosis else None,
            "line": self.line(),
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
    present = set(cols.table.columns)
    total = "duration" + suffix
    if total not in present:
        return None
    a, b = _pair(cols, total, first, second)
    if math.isnan(a) or math.isnan(b):
        return None
    parts: list[Part] = []
    for name, label, columns in PARTS:
        found = [c + suffix for c in columns if c + suffix in present]
        if found:
            values = [_pair(cols, c, first, second) for c in found]
            parts.append(Part(name, label, _sum(v[0] for v in values), _sum(v[1] for v in values)))
    compute = Part(
        "compute", "compute", a - sum(p.first for p in parts), b - sum(p.second for p in parts)
    )
    parts.append(compute)
    gap = Gap(
        a,
        b,
        "duration" if not suffix else "task time",
        parts,
        _split(cols, suffix, present, first, second, compute),
    )
    gap.diagnosis = diagnose(cols, first, second, gap)
    return gap


def _split(
    cols: Columns, suffix: str, present: set, first: int, second: int, compute: Part
) -> Split | None:
    if compute.first <= 0 or compute.second <= 0:
        return None
    for column, unit, rate in VOLUMES:
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
time) and data skew (trace them to see which keys the task's partition holds)."""


def diagnose(cols: Columns, first: int, second: int, gap: Gap) -> Diagnosis | None:
    """The gap's largest part, named as a diagnosis. Compute time split into volume and
    cost is *data skew* when volume dominates and *computation skew* when the same volume
    cost more per unit; a cost per unit that spill or a cold start (first task on its
    executor) goes with is named after them instead."""
    if gap.total <= 0 or not gap.shares:
        return None
    part = max(gap.shares, key=lambda k: gap.shares[k])
    share = gap.shares[part]
    if share <= 0:
        return None
    percent = f"{_percent(share)} of the gap"
    split = gap.split
    if part == "volume" and split is not None:
        source = "shuffle read" if _more(cols, "shuffle_read_records", first, second) else "input"
        return Diagnosis(
            "data skew",
            f"it read {split.volume_ratio:.1f}x the {split.unit} ({source}; {percent}): "
            "repartition or split the heavy keys",
            ISOLATE,
        )
    if part in ("cost", "compute"):
        if _more(cols, "memory_bytes_spilled", first, second) or _more(
            cols, "disk_bytes_spilled", first, second
        ):
            return Diagnosis("spill", f"it spilled to disk while its peers did not ({percent})")
        if (
            _value(cols, "first_task_on_executor", first) == "T"
            and _value(cols, "first_task_on_executor", second) != "T"
        ):
            return Diagnosis(
                "cold start", f"it was the first task of its stage on its executor ({percent})"
            )
        if (
            split is not None and split.volume_ratio <= SIMILAR_VOLUME
        ):  # no more input, each unit dearer
            volume = (
                "the same volume of input"
                if split.volume_ratio >= 1 / SIMILAR_VOLUME
                else f"{split.volume_ratio:.1f}x the {split.unit}"
            )
            return Diagnosis(
                "computation skew",
                f"{volume} cost {split.cost_ratio:.1f}x the {split.rate_label} ({percent}): "
                "find the records that cost the time",
                ISOLATE,
            )
        if split is not None:
            return Diagnosis(
                "higher cost per unit",
                f"each of its {split.unit} cost {split.cost_ratio:.1f}x ({percent})",
                ISOLATE,
            )
    name, words = DIAGNOSES[part]
    return Diagnosis(name, f"{words} ({percent})")


def format_ms(ms: float) -> str:
    """``730 ms``, ``2.43 s``, ``3.2 min``."""
    if ms < 1000:
        return f"{ms:,.0f} ms"
    if ms < 60_000:
        return f"{ms / 1000:,.2f} s"
    return f"{ms / 60_000:,.1f} min"


def _pair(cols: Columns, column: str, first: int, second: int) -> tuple[float, float]:
    values = cols.numeric(column)
    return float(values[first]), float(values[second])


def _sum(values) -> float:
    """Sum of values, a missing one counting as zero (a part not logged for that task)."""
    return float(np.nansum(np.fromiter(values, dtype=np.float64)))


def _more(cols: Columns, column: str, first: int, second: int) -> bool:
    """Did the first have clearly more of ``column`` (half again, or some against none)?"""
    if column not in cols.table.columns:
        return False
    a, b = _pair(cols, column, first, second)
    return a > 0 and not (b >= a / SIMILAR_VOLUME)


def _value(cols: Columns, column: str, row: int) -> object:
    if column not in cols.table.columns:
        return None
    return cols.table[column].iat[row]


def _percent(share: float) -> str:
    """``89 %``; ``-4 %`` for a part that worked against the gap (never ``-0 %``)."""
    return f"{round(share * 100) + 0:.0f} %"


def _ms(x: float) -> float:
    return round(float(x), 3)
