"""From a parsed query to a validated ``Request``: ids to rows, the reference picked when the
query names one execution only, and the pair of interest checked against its clauses.

Ids may be the table's unique ``id`` (e.g. ``app-1/33``), the entity's own id column (Spark
task ids are unique per app only), or ``app/number``; an id matching several rows is an
error that lists them. ``WHY TASK 33 SLOWER`` compares task 33 with the task of its stage
(a job: of its app) closest to the median duration among those for which OBSERVED holds and
EXPECTED does not — and says which it picked.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, replace

import numpy as np

from perfx.grammar.ast import Atom, EntityId, Ordering, Predicate, Query
from perfx.grammar.semantics import check_pair
from perfx.grammar.units import format_ms
from perfx.logs.model import Log

from .columns import Columns, columns_for
from .costmodel import VOLUMES
from .errors import ExplainError, NoReference, QueryFault
from .explanation import format_conjunction
from .options import ExplainOptions
from .pairs import SIMILARITY, conjunction_mask
from .request import Request
from .sampling import EXACT_LIMIT, all_pairs, blocks

OWN_ID = {"task": "task_id", "stage": "stage_id", "job": "job_id", "app": "app_id"}
"""The entity's own id column, which PXQL ids may name instead of the unique ``id``."""

GROUP = {
    "task": ("stage_key", "stage_id", "job_id"),
    "stage": ("app_id",),
    "job": ("recurring_job", "app_id", "program", "pig_script", "pigscript"),
    "app": (),
}
"""Where a reference is looked for: the first of these columns present in the table. A job
question over a feature store compares the job with the same job in other runs of its
application (``recurring_job``, logs.store.read)."""


def find_row(cols: Columns, entity_id: EntityId) -> int:
    """The table row an id names; errors name near misses or the ambiguous candidates."""
    text = entity_id.text
    if text is None:
        raise ExplainError("the query still has a '?' placeholder: give its value (--bind VALUE)")
    rows = cols.rows_with_id(text)
    if len(rows) == 0:
        rows = _by_own_id(cols, text)
    if len(rows) == 1:
        return int(rows[0])
    entity = cols.entity
    ids = cols.table["id"].to_numpy()
    if len(rows) > 1:
        shown = ", ".join(str(v) for v in ids[rows[:10]]) + (", ..." if len(rows) > 10 else "")
        raise ExplainError(
            f"{entity} id {text!r} is ambiguous: it matches {len(rows)} {entity}s ({shown}); write one of these"
        )
    sample = ", ".join(str(v) for v in ids[:3])
    held = (
        f"1 {entity}, id {sample}"
        if len(ids) == 1
        else f"{len(ids):,} {entity}s, ids like {sample}"
    )
    raise ExplainError(f"no {entity} with id {text!r} in the log ({held})")


def _by_own_id(cols: Columns, text: str) -> np.ndarray:
    table = cols.table
    own = OWN_ID[cols.entity]
    if own not in table.columns:
        return np.zeros(0, dtype=np.int64)
    match = _equal_text(table[own].to_numpy(), text)
    if "/" in text and "app_id" in table.columns:
        app, rest = text.rsplit("/", 1)
        match = _equal_text(table[own].to_numpy(), rest) & (
            table["app_id"].astype(str).to_numpy() == app
        )
    return np.flatnonzero(match)


def _equal_text(values: np.ndarray, text: str) -> np.ndarray:
    """Id equality that sees ``33`` in a float column of 33.0 and ``"33"`` in a string one."""
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None and np.issubdtype(values.dtype, np.number):
        return values == number
    return np.array([str(v) == text for v in values], dtype=bool)


def _durations_beside(cols: Columns, first: int, same: np.ndarray) -> str:
    """How long ``first`` took beside the others it was compared with (``same``), where the
    log has their durations: asked why a task of normal length was slower, the refusal showed
    no figure that says it was not (a probe of held-out causes)."""
    if not len(same) or "duration" not in cols.present:
        return ""
    duration = cols.numeric("duration")
    own, others = duration[first], duration[same]
    others = others[np.isfinite(others)]
    if not np.isfinite(own) or not len(others):
        return ""
    if len(others) == 1:
        return f" (it took {format_ms(float(own))}; the other {cols.entity} took {format_ms(float(others[0]))})"
    low, high = format_ms(float(others.min())), format_ms(float(others.max()))
    if low == high and others.min() != others.max():  # not "1.0 min-1.0 min"
        low, high = (f"{float(x) / 1000:,.1f} s" for x in (others.min(), others.max()))
    return (
        f" (it took {format_ms(float(own))}; the {len(others):,} others {low}-{high}, median "
        f"{format_ms(float(np.median(others)))})"
    )


def pick_reference(cols: Columns, first: int, query: Query) -> tuple[int, str]:
    """The reference row for a one-sided query, and the note saying why it was chosen."""
    if cols.entity == "task" and _asks_slower(query):
        found = _slower_reference(cols, first)
        if found is not None:
            return found
    entity = cols.entity
    table = cols.table
    group, where = _group(cols)
    same = cols.rows_of(group, cols.key(group)[first]) if group is not None else np.arange(cols.n)
    same = same[same != first]
    ok = conjunction_mask(cols, list(query.despite.atoms) + list(query.observed.atoms), first, same)
    if query.expected:  # checked only where OBSERVED holds: an atom's mask is pair by pair
        ok[ok] = ~conjunction_mask(cols, list(query.expected.atoms), first, same[ok])
    fits = same[ok]
    if len(fits) == 0 and len(same) and query.despite.atoms:
        _check_despite_fits(cols, first, same, query.despite.atoms, where)
    if len(fits) == 0:
        durations = _durations_beside(cols, first, same)
        raise NoReference(
            f"no {entity} {where} as {entity} {table['id'].iloc[first]} for which OBSERVED ({format_conjunction(query.observed.atoms)}) "
            f"holds and EXPECTED does not{durations}: name the "
            f"reference yourself (THAN {entity.upper()} ...)",
            durations,
        )
    fits, comparable = _comparable(cols, first, fits)
    fits, alike = _like_with_like(cols, first, fits, group, where)
    duration = cols.numeric("duration")[fits]
    # np.nanmedian's answer, without its per-call overhead: the median of the non-NaN values
    median = (
        float(np.median(duration[~np.isnan(duration)]))
        if np.isfinite(duration).any()
        else float("nan")
    )
    # np.nanargmin's answer (the first closest, missing durations never), without its cost
    distance = np.abs(duration - median)
    distance[np.isnan(distance)] = np.inf
    pick = int(fits[int(np.argmin(distance))]) if np.isfinite(median) else int(fits[0])
    return pick, _note(cols, pick, where, median, f"{len(fits)}{alike}", comparable)


def _check_despite_fits(
    cols: Columns, first: int, same: np.ndarray, despite: tuple[Atom, ...], where: str
) -> None:
    """Raise the error that says DESPITE is why no reference fits, when no candidate satisfies
    it with ``first`` whatever OBSERVED says. A bare numeric feature (``input_bytes > 10MB``)
    holds only for a pair sharing its value, which continuous values rarely do: said too."""
    if conjunction_mask(cols, list(despite), first, same).any():
        return
    entity = cols.entity
    shared = [
        a.feature for a in despite if a.pair_op == "base" and cols.spec(a.feature).kind == "numeric"
    ]
    hint = (
        f" (a bare {shared[0]} holds only where both share its value: "
        f"'{shared[0]} compare = SIM' asks for similar values)"
        if shared
        else ""
    )
    raise ExplainError(
        f"no {entity} {where} as {entity} {cols.table['id'].iloc[first]} satisfies DESPITE "
        f"({format_conjunction(despite)}) with it{hint}: relax DESPITE or name the reference "
        f"yourself (THAN {entity.upper()} ...)"
    )


def _group(cols: Columns) -> tuple[str | None, str]:
    """The column a reference is looked for within (``GROUP``; None: the whole log), and the
    words for it in the note (``of the same stage``)."""
    group = next((g for g in GROUP[cols.entity] if g in cols.present), None)
    if group is None:
        return None, "of the log"
    return group, f"of the same {group.removesuffix('_key').removesuffix('_id')}"


def _note(cols: Columns, pick: int, where: str, median: float, among: str, comparable: str) -> str:
    """Why the reference ``pick`` was chosen: ``reference: task app-1/12, the task of the same
    stage closest to the median duration (1,204 ms) among the 97 for which ...``."""
    entity = cols.entity
    return (
        f"reference: {entity} {cols.values('id')[pick]}, the {entity} {where} closest to the "
        f"median duration ({median:,.0f} ms) among the {among} for which OBSERVED holds and "
        "EXPECTED does not" + comparable
    )


def _asks_slower(query: Query) -> bool:
    """Does ``query`` ask ``WHY TASK <it> SLOWER`` with the default clauses (no DESPITE,
    OBSERVED ``duration compare = GT``, EXPECTED ``duration compare = SIM``)? The question a
    report asks of every straggler: ``_slower_reference`` answers it from its stage's sorted
    durations."""
    return (
        not query.despite.atoms
        and query.observed.atoms == (_DURATION_GT,)
        and query.expected is not None
        and query.expected.atoms == (_DURATION_SIM,)
    )


_DURATION_GT = Atom("duration", "compare", "=", Ordering("GT"))
_DURATION_SIM = Atom("duration", "compare", "=", Ordering("SIM"))


def _slower_reference(cols: Columns, first: int) -> tuple[int, str] | None:
    """``pick_reference``'s answer to ``WHY TASK <first> SLOWER`` (``_asks_slower``), found
    by bisection in its stage's durations sorted once, where the general path reads the whole
    stage once per question (a report asks it of every straggler: 24,570 in a 9,100-task stage
    of the report benchmark). None where the general path must answer: a stage with a
    negative or missing duration (the candidates for which OBSERVED holds are a prefix of the
    sorted durations only when every one is finite and non-negative), or no candidate (the
    general path raises the error that says why).

    The same answer, not an approximation: ``compare_codes``' GT, the median of the
    candidates, the first of them in table order closest to it (``test_reference``'s oracle
    checks it against the general path on generated stages and every task of two public
    logs)."""
    group, where = _group(cols)
    if group is None:
        return None
    code = int(cols.key(group)[first])
    stage = _SortedStage.of(cols, group, code)
    duration = float(cols.numeric("duration")[first])
    if stage is None or not (0.0 <= duration < math.inf):
        return None
    pattern = tuple(bool(some[first]) for some in _volumes_had(cols))
    values, rows = stage.comparable(pattern)
    fits = _count_faster(values, duration)
    comparable = ""
    if fits == 0:
        values, rows = stage.values, stage.rows
        fits = _count_faster(values, duration)
        if fits == 0:
            return None
        comparable = _NONE_COMPARABLE
    median = _median_of_sorted(values, fits)
    pick = _closest(values, rows, fits, median)
    return pick, _note(cols, pick, where, median, str(fits), comparable)


@dataclass(frozen=True)
class _SortedStage:
    """A stage's (a ``GROUP`` value's) durations sorted ascending, ties in table order, with
    their rows; and, per pattern of volumes a task has (``_comparable``), those of the
    stage's comparable tasks. Built once per stage (``Columns.derived``)."""

    cols: Columns
    key: tuple
    values: list[float]
    rows: list[int]

    @classmethod
    def of(cls, cols: Columns, group: str, code: int) -> _SortedStage | None:
        key = ("sorted stage", group, code)
        if key not in cols.derived:
            members = cols.rows_of(group, code)
            durations = cols.numeric("duration")[members]
            found = None
            if bool(np.all(np.isfinite(durations))) and bool(np.all(durations >= 0)):
                order = np.argsort(durations, kind="stable")
                found = cls(cols, key, durations[order].tolist(), members[order].tolist())
            cols.derived[key] = found
        return cols.derived[key]

    def comparable(self, pattern: tuple[bool, ...]) -> tuple[list[float], list[int]]:
        """The sorted durations and rows of the stage's tasks ``_comparable`` keeps for a task
        with ``pattern`` (which kinds of volume it has some of)."""
        key = (*self.key, pattern)
        found = self.cols.derived.get(key)
        if found is None:
            rows = np.asarray(self.rows, dtype=np.intp)
            keep = np.ones(len(rows), dtype=bool)
            succeeded = _succeeded(self.cols)
            if succeeded is not None:
                keep &= succeeded[rows]
            for has, some in zip(pattern, _volumes_had(self.cols)):
                if has:
                    keep &= some[rows]
            found = self.cols.derived[key] = (
                [v for v, k in zip(self.values, keep.tolist()) if k],
                [r for r, k in zip(self.rows, keep.tolist()) if k],
            )
        return found


def _count_faster(values: list[float], duration: float) -> int:
    """How many of the sorted, non-negative ``values`` are GT-slower than ``duration``
    (``compare_codes(duration, value) == GT``): a prefix, found by bisection. ``value ==
    duration`` is never GT, nor any value above it; below it, the gap grows as the value falls
    while the SIM bound (``SIMILARITY`` x the larger, ``duration``) stays."""
    bound = SIMILARITY * duration
    low, high = 0, len(values)
    while low < high:
        mid = (low + high) // 2
        value = values[mid]
        if value < duration and not abs(duration - value) <= bound:
            low = mid + 1
        else:
            high = mid
    return low


def _median_of_sorted(values: list[float], n: int) -> float:
    """``np.median`` of the first ``n`` of the sorted ``values``."""
    half = n // 2
    if n % 2:
        return float(values[half])
    return float((values[half - 1] + values[half]) / 2)


def _closest(values: list[float], rows: list[int], n: int, median: float) -> int:
    """The first row in table order among the first ``n`` sorted ``values`` closest to
    ``median`` (``np.argmin`` of the distances over the candidates in table order). The
    closest lie on either side of where ``median`` falls; a run of equal values has its rows
    in table order, so its first row stands for the run (a stage of repeated tasks ties by
    the hundred)."""
    at = bisect.bisect_left(values, median, 0, n)
    best = min(abs(values[i] - median) for i in (at - 1, at) if 0 <= i < n)
    tied = []
    i = at - 1
    while i >= 0 and abs(values[i] - median) == best:
        i = bisect.bisect_left(values, values[i], 0, i)
        tied.append(rows[i])
        i -= 1
    i = at
    while i < n and abs(values[i] - median) == best:
        tied.append(rows[i])
        i = bisect.bisect_right(values, values[i], i, n)
    return min(tied)


def _comparable(cols: Columns, first: int, fits: np.ndarray) -> tuple[np.ndarray, str]:
    """The candidate references comparable with task ``first``: successful, and with some of
    every kind of volume it has (never 0 records read against thousands; ``VOLUME_KINDS``).
    When none is, all candidates, and the words that say so."""
    if cols.entity != "task" or len(fits) == 0:
        return fits, ""
    ok = np.ones(len(fits), dtype=bool)
    succeeded = _succeeded(cols)
    if succeeded is not None:
        ok &= succeeded[fits]
    for some in _volumes_had(cols):
        if some[first]:
            ok &= some[fits]
    if ok.any():
        return fits[ok], ""
    return fits, _NONE_COMPARABLE


_NONE_COMPARABLE = (
    "; none of them is comparable (successful, with every kind of volume this task has): "
    "the gap may be a difference in kind"
)


def _volumes_had(cols: Columns) -> list[np.ndarray]:
    """For each kind of volume the table measures (``VOLUME_KINDS``), which rows have some of
    it (any of its measures > 0); found once per table (``Columns.derived``), as
    ``_succeeded``."""
    if "volumes had" not in cols.derived:
        had = []
        for kind in VOLUME_KINDS:
            present = [c for c in kind if c in cols.table.columns]
            if present:
                had.append(np.any([cols.numeric(c) > 0 for c in present], axis=0))
        cols.derived["volumes had"] = had
    return cols.derived["volumes had"]


def _succeeded(cols: Columns) -> np.ndarray | None:
    """Which rows succeeded (status ``SUCCESS``, Spark's word), or None where no row says so
    (other logs keep only finished tasks); found once per table (``Columns.derived``): a
    report names the cause of every straggler, and each would read the whole column."""
    if "succeeded" not in cols.derived:
        found = None
        if "status" in cols.table.columns:
            status = cols.table["status"].to_numpy() == "SUCCESS"
            found = status if status.any() else None
        cols.derived["succeeded"] = found
    return cols.derived["succeeded"]


STRUCTURE = {"stage": ("task_count",), "job": ("num_stages", "task_count")}
"""What a stage or job reference must share with the asked one to be compared with it: its
task count (a stage), its number of stages and of tasks (a job). A 128-task stage against a
1-task one, or two jobs of different shapes, differ in kind, not in why one was slower."""

STRUCTURE_WORDS = {"num_stages": "stages", "task_count": "tasks"}


def structure(cols: Columns, row: int) -> dict[str, float]:
    """``row``'s structure (``STRUCTURE``) as the log has it: {column: value}."""
    present = [c for c in STRUCTURE.get(cols.entity, ()) if c in cols.table.columns]
    values = {c: float(cols.numeric(c)[row]) for c in present}
    return {c: v for c, v in values.items() if np.isfinite(v)}


def say_structure(shape: dict[str, float]) -> str:
    """``2 stages, 400 tasks``."""
    return ", ".join(
        f"{v:,.0f} {STRUCTURE_WORDS[c].removesuffix('s') if v == 1 else STRUCTURE_WORDS[c]}"
        for c, v in shape.items()
    )


def _like_with_like(
    cols: Columns, first: int, fits: np.ndarray, group: str | None, where: str
) -> tuple[np.ndarray, str]:
    """The candidate stages or jobs with the asked one's structure (``STRUCTURE``), and the
    words for the note; none is an error that says why. A job of a feature store's recurring
    job is compared with the same job in other runs, whatever their size (``GROUP``)."""
    shape = structure(cols, first)
    if not shape or group == "recurring_job" or len(fits) == 0:
        return fits, ""
    same = np.ones(len(fits), dtype=bool)
    for column, value in shape.items():
        same &= cols.numeric(column)[fits] == value
    if same.any():
        return fits[same], f" of its structure ({say_structure(shape)})"
    entity = cols.entity
    found = {tuple(structure(cols, int(r)).items()) for r in fits}  # smallest first
    shapes = [say_structure(dict(s)) for s in sorted(found, key=lambda s: [v for _, v in s])]
    seen = "; ".join(shapes[:3]) + (f" and {len(shapes) - 3:,} more" if len(shapes) > 3 else "")
    raise ExplainError(
        f"no comparable reference: no other {entity} {where} as {entity} "
        f"{cols.table['id'].iloc[first]} has its structure ({say_structure(shape)}); those "
        f"for which OBSERVED holds have {seen}. A different shape differs in kind, not in why "
        f"it was slower: name the reference yourself (THAN {entity.upper()} ...)"
    )


VOLUME_KINDS = tuple(
    tuple(c for c, k, _ in VOLUMES if k == kind)
    for kind in ("input", "shuffle read", "shuffle write", "output")
)
"""Kinds of volume a comparable reference must have some of where the asked task has."""


OVERLAP_DRAWS = 20_000
"""Pairs checked for OBSERVED ∧ EXPECTED when the log has too many to check them all."""


class LogPairOracle:
    """``grammar.semantics.PairOracle`` over a log: evaluates clauses on the pair of interest,
    and counts pairs satisfying two clauses at once (all pairs when few, else an estimate
    from uniformly drawn pairs, never below 1 when one was seen)."""

    def __init__(self, cols: Columns, first: int, second: int, seed: int = 0) -> None:
        self.cols, self.first, self.second, self.seed = cols, first, second, seed

    def holds(self, predicate: Predicate) -> bool:
        return bool(
            conjunction_mask(
                self.cols, list(predicate.atoms), np.array([self.first]), np.array([self.second])
            )[0]
        )

    def overlap(self, a: Predicate, b: Predicate) -> int:
        n = self.cols.n
        total = n * (n - 1)
        if total == 0:
            return 0
        if total <= EXACT_LIMIT:
            i, j = all_pairs(blocks(self.cols, []))
        else:
            rng = np.random.default_rng(self.seed)
            i = rng.integers(0, n, OVERLAP_DRAWS)
            j = rng.integers(0, n - 1, OVERLAP_DRAWS)
            j += j >= i
        both = int(
            (
                conjunction_mask(self.cols, list(a.atoms), i, j)
                & conjunction_mask(self.cols, list(b.atoms), i, j)
            ).sum()
        )
        return (
            both
            if total <= EXACT_LIMIT
            else (max(1, round(both * total / OVERLAP_DRAWS)) if both else 0)
        )


def _has_its_duration(cols: Columns, row: int, query: Query) -> None:
    """Refuse a question on the duration of an execution the log gives none: a task whose
    end is not in the log (killed with its executor, the log cut or damaged) was refused
    for having no faster task in its stage, which blamed the question (a probe of the CLI)."""
    asked = (*query.observed.atoms, *query.expected.atoms)
    if "duration" not in cols.present or not any(a.feature == "duration" for a in asked):
        return
    if math.isfinite(float(cols.numeric("duration")[row])):
        return
    status = str(cols.values("status")[row]) if "status" in cols.present else ""
    why = {
        "UNKNOWN": "its end is not in the log",
        "KILLED": "it was killed",
        "RUNNING": "it was still running where the log ends",
    }.get(status, "the log gives none")
    raise ExplainError(
        f"{cols.entity} {cols.values('id')[row]} has no duration to explain ({why}): ask "
        f"about another {cols.entity}"
    )


def resolve_request(log: Log, query: Query, options: ExplainOptions) -> Request:
    """Resolve ids, pick the reference if needed, validate the pair: a ``Request`` with
    ``options`` (their width resolved from the query: ``ExplainOptions.for_query``)."""
    if len(log.table(query.entity)) == 0:
        raise ExplainError(f"the log has no {query.entity}s")
    cols = columns_for(log, query.entity)
    for atom in (*query.despite.atoms, *query.observed.atoms, *query.expected.atoms):
        cols.spec(atom.feature)
    first = find_row(cols, query.first)
    _has_its_duration(cols, first, query)
    notes: list[str] = []
    if query.second is None:
        second, note = pick_reference(cols, first, query)
        notes.append(note)
    else:
        second = find_row(cols, query.second)
        _has_its_duration(cols, second, query)
        if structure(cols, first) != structure(cols, second):
            notes.append(
                f"not like with like: {query.entity} {cols.table['id'].iloc[first]} has "
                f"{say_structure(structure(cols, first))}, {query.entity} "
                f"{cols.table['id'].iloc[second]} {say_structure(structure(cols, second))}"
            )
    if first == second:
        raise QueryFault(
            f"the pair of interest names the same {query.entity} twice",
            query.second.span if query.second is not None else None,
        )
    check_pair(query, LogPairOracle(cols, first, second, options.seed))
    ids = cols.table["id"]
    query = replace(
        query, first=EntityId(str(ids.iloc[first])), second=EntityId(str(ids.iloc[second]))
    )
    return Request(log, query, first, second, options, notes)
