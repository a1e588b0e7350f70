"""A stage's cost model: what each unit of each volume its tasks handle costs in compute time.

A task's compute time (its duration less the measured parts: ``explain.gap``) is modelled as

    C = b + Σ_v β_v · x_v,    b ≥ 0, β_v ≥ 0

over every volume the log measures (input, shuffle read, shuffle write, output, the result,
spill: records and bytes of each), fitted on the stage's *typical* tasks. Non-negative least
squares (``scipy.optimize.nnls``) is the fit: a unit of work never saves time, and with every
coefficient and the intercept non-negative no volume can explain more extra time than its own
ratio allows (a task with 1.02x the result bytes cannot owe 10x its compute to them), which an
unconstrained fit on a dozen tasks would happily claim. scikit-learn's
``LinearRegression(positive=True)`` solves the same problem through the same routine but
leaves the intercept unconstrained, which is what lets a fit explain a ratio it cannot.

**Robust to stragglers.** The fit starts on every successful task of the stage and is
refitted without the tasks slower than it predicts by more than ``TRIM`` robust standard
deviations of its residuals (1.4826 MAD, floored at ``FLOOR_SHARE`` of the median compute
time: identical peers have a MAD of zero; for each task, at ``FLOOR_SHARE`` of its own
predicted compute: ``spread_at``), the slowest first (``_typical``), until the kept
set settles. A task whose extra
time follows a volume stays in and teaches the fit that volume's cost; one whose time follows
no volume (computation skew) is trimmed, and its extra time is left in its residual.

**The split.** A pair of tasks of the stage differs in compute time by
ΔC = Σ_v β_v·Δx_v + Δr: each volume's share is its cost times the difference in volume
("+2.1 s from 40x the shuffle records written"), the rest, Δr, is cost per unit. Only a
residual beyond the stage's spread (``TRIM`` robust deviations of the typical tasks'
residuals) is computation skew. Records and bytes of one kind are grouped: PySpark's batched
shuffle counts batches as records, and there the bytes carry the volume (the fit weighs
whichever measure follows the time).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from perfx.logs.time_parts import TIME_PARTS

from .columns import Columns

VOLUMES: tuple[tuple[str, str, str], ...] = (
    ("input_records", "input", "input records"),
    ("input_bytes", "input", "input bytes"),
    ("shuffle_read_records", "shuffle read", "shuffle records read"),
    ("shuffle_read_bytes", "shuffle read", "shuffle bytes read"),
    ("shuffle_write_records", "shuffle write", "shuffle records written"),
    ("shuffle_write_bytes", "shuffle write", "shuffle bytes written"),
    ("output_records", "output", "output records"),
    ("output_bytes", "output", "output bytes"),
    ("result_size", "result", "result bytes"),
    ("memory_bytes_spilled", "spill", "bytes spilled (memory)"),
    ("disk_bytes_spilled", "spill", "bytes spilled to disk"),
)
"""(column, kind, label): every volume a task's compute time may follow."""

KIND_OF = {column: kind for column, kind, _ in VOLUMES} | {
    "records_in": "input+shuffle read",
    "bytes_in": "input+shuffle read",
}
"""A volume feature -> the kind(s) of volume whose share of a gap it accounts for."""
_LABELS = {column: label for column, _, label in VOLUMES}
"""A volume column -> its words (``VOLUMES``)."""

MAX_MS_PER_UNIT = {"result_size": 1e-3}
"""The dearest a unit of a volume can plausibly be (ms): a task's result is serialized and
sent at 1 MB/s at the least. A model that prices it dearer learned a coincidence: in a probe
of held-out causes one task of a stage returned 34 KB against its peers' 1.6 KB and also
slept 1.5 s in its Python worker, and with all others alike the model put its whole gap on
the 32 KB (45 ms per KB, R² 1.00): "result size"."""
MIN_TYPICAL = 6
"""Typical tasks a stage needs for a fit: fewer fall back to the records-only split."""
TRIM = 3.5
"""Robust deviations (1.4826 MAD) beyond which a task is a straggler of the fit: Iglewicz and
Hoaglin's cut-off for outliers by modified z-score."""
TRIM_ROUNDS = 16
"""Refits the trimming may take (``_typical``); most stages settle in two or three."""
FLOOR_SHARE = 0.05
"""The spread of identical tasks is no less than this share of their median compute time
(timer resolution and scheduling noise; a MAD of zero would call every difference skew)."""


@dataclass(frozen=True)
class StageModel:
    """A fitted cost model of one stage (``fit``)."""

    columns: tuple[str, ...]
    coef: np.ndarray
    """Compute ms per unit of each of ``columns``."""
    intercept: float
    typical: int
    """Tasks the fit kept (the stage's tasks less its stragglers)."""
    tasks: int
    r2: float
    """R² of the fit on the typical tasks (NaN when their compute times are all equal)."""
    spread: float
    """Robust standard deviation of the typical tasks' residuals (ms, floored)."""
    centre: float
    """Median residual of the typical tasks (ms)."""

    def quality(self) -> str:
        """``R² 0.93 on 11 of 12 tasks``: how far the model can be trusted."""
        r2 = (
            f"R² {round(self.r2, 2) or 0.0:.2f}"
            if np.isfinite(self.r2)
            else f"spread ±{self.spread:,.0f} ms"
        )
        return f"{r2} on {self.typical} of {self.tasks} tasks"


def compute_times(cols: Columns, rows: np.ndarray) -> np.ndarray:
    """Compute time of ``rows`` (task rows): duration less its measured parts (computed for
    the whole table once: every straggler of a report asks for its own and its reference's)."""
    found = cols.derived.get("compute times")
    if found is None:
        present = cols.present
        found = cols.numeric("duration").copy()
        for part in TIME_PARTS:
            for column in part.columns:
                if column in present:
                    found -= np.nan_to_num(cols.numeric(column))
        cols.derived["compute times"] = found
    return found[rows]


def stage_rows(cols: Columns, row: int) -> np.ndarray:
    """The successful task rows of ``row``'s stage (``row`` included)."""
    if "stage_key" not in cols.present:
        return np.array([row])
    code = int(cols.key("stage_key")[row])
    rows, success = _stage(cols, code)
    if success is None:
        return rows
    if success[rows.searchsorted(row)]:  # the stage's successful rows, kept: every
        key = ("successful rows", code)  # straggler of a stage asks, and its reference
        if key not in cols.derived:
            cols.derived[key] = rows[success]
        return cols.derived[key]
    return rows[success | (rows == row)]


def _stage(cols: Columns, code: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The rows of the stage of key code ``code`` and which of them succeeded (None: the log
    has no status), found once per stage (``cols.derived``): every straggler of a stage asks."""
    found = cols.derived.get(("stage rows", code))
    if found is None:
        rows = cols.rows_of("stage_key", code)
        success = None
        if "status" in cols.present:
            codes, categories = cols.codes("status")
            ok = np.array([str(c) == "SUCCESS" for c in categories], dtype=bool)
            success = np.where(codes[rows] >= 0, ok[np.maximum(codes[rows], 0)], False)
        found = cols.derived[("stage rows", code)] = (rows, success)
    return found


def fit(
    cols: Columns, row: int, without: tuple[str, ...] = ()
) -> tuple[StageModel, np.ndarray] | None:
    """The cost model of ``row``'s stage (of the volumes but those named in ``without``) and
    the stage's rows, or None when the stage is too small to fit (fewer than ``MIN_TYPICAL``
    typical tasks, or no volume measured). Fitted once per stage (kept in ``cols.derived``)."""
    rows = stage_rows(cols, row)
    key = ("cost model", int(cols.key("stage_key")[row]) if len(rows) > 1 else row, without)
    if key not in cols.derived:
        cols.derived[key] = _fit(cols, rows, without)
    model = cols.derived[key]
    return None if model is None else (model, rows)


def _fit(cols: Columns, rows: np.ndarray, without: tuple[str, ...] = ()) -> StageModel | None:
    if len(rows) < MIN_TYPICAL:
        return None
    y = compute_times(cols, rows)
    present = [c for c, _, _ in VOLUMES if c in cols.present and c not in without]
    x = (
        np.column_stack([np.nan_to_num(cols.numeric(c)[rows]) for c in present])
        if present
        else np.zeros((len(rows), 0))
    )
    # A volume that only a few tasks have cannot be told apart from "those few tasks": its
    # coefficient would be fitted to them alone (the slow ones, as often as not: 95 B of
    # shuffle read on a stage's 4 first tasks given their whole cold start). It enters the
    # fit only where at least MIN_TYPICAL tasks have some of it.
    varied = [k for k in range(x.shape[1]) if (x[:, k] > 0).sum() >= MIN_TYPICAL]
    if not varied or not np.isfinite(y).all():
        return None
    nnls = nnls_solver()
    x = x[:, varied]
    scale = x.max(axis=0)
    design = np.column_stack([np.ones(len(rows)), x / scale])
    keep = _typical(design, y, nnls)
    if keep.sum() < MIN_TYPICAL:
        return None
    solution, _ = nnls(design[keep], y[keep])
    residual = y - design @ solution
    centre, spread = _centre_spread(residual[keep], y[keep])
    total = float(((y[keep] - y[keep].mean()) ** 2).sum())
    r2 = 1 - float((residual[keep] ** 2).sum()) / total if total > 0 else float("nan")
    return StageModel(
        tuple(present[k] for k in varied),
        solution[1:] / scale,
        float(solution[0]),
        int(keep.sum()),
        len(rows),
        r2,
        spread,
        centre,
    )


def _typical(
    design: np.ndarray, y: np.ndarray, nnls: Callable[[np.ndarray, np.ndarray], tuple]
) -> np.ndarray:
    """Which tasks the fit keeps: every task, less the stragglers of the fit, trimmed the
    slowest first. Each round trims the tasks beyond ``TRIM`` robust deviations whose
    residual is at least half the largest, and takes back any trimmed task the refit
    predicts again. Trimming every task beyond the cut at once would trim the one that
    teaches the fit a volume's cost: a few cold tasks (normal volume, 10x the time) lift the
    first fit's line, the well-fitted task of 64x the records read lies above the median of
    the others' (now negative) residuals, and once it is trimmed no refit can predict it. A
    round that keeps a set seen before ends the search (a task trimmed and taken back in
    turn)."""
    keep = np.ones(len(y), dtype=bool)
    seen: set[bytes] = set()
    for _ in range(TRIM_ROUNDS):
        seen.add(keep.tobytes())
        solution, _ = nnls(design[keep], y[keep])
        predicted = design @ solution
        residual = y - predicted
        centre, spread = _centre_spread(residual[keep], y[keep])
        slow = residual > centre + TRIM * spread_at(spread, predicted)
        trimmed = keep & slow
        if trimmed.any():
            trimmed &= residual >= 0.5 * residual[trimmed].max()
        settled = (keep & ~trimmed) | (~keep & ~slow)
        if settled.sum() < MIN_TYPICAL or settled.tobytes() in seen:
            break
        keep = settled
    return keep


@cache
def nnls_solver() -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, float]]:
    """``scipy.optimize.nnls``: the same compiled routine (Lawson and Hanson's, in scipy's
    ``_slsqplib``) called as that function calls it, loaded from its extension module alone.
    Importing it from ``scipy.optimize`` first imports the package's 60-odd other solvers
    (linprog, shgo, ...): 0.6 s, the largest single cost of ``perfx explain`` and the one
    part of a report that no other work can overlap. Where scipy keeps the routine elsewhere
    (another version), the package's function is used."""
    routine = _slsqplib_nnls()
    if routine is None:
        from scipy.optimize import nnls

        return nnls

    def solve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
        a = np.asarray_chkfinite(a, dtype=np.float64, order="C")
        b = np.asarray_chkfinite(b, dtype=np.float64)
        x, rnorm, info = routine(a, b, 3 * a.shape[1])
        if info == 3:
            raise RuntimeError("Maximum number of iterations reached.")
        return x, rnorm

    return solve


def _slsqplib_nnls() -> Callable | None:
    """``nnls`` of scipy's ``optimize/_slsqplib`` extension (scipy 1.17 has it), loaded from its
    file without its package; None where there is none."""
    import importlib.machinery
    import importlib.util

    found = importlib.util.find_spec("scipy")
    if found is None or not found.submodule_search_locations:
        return None
    folder = Path(next(iter(found.submodule_search_locations))) / "optimize"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / f"_slsqplib{suffix}"
        if path.is_file():
            loader = importlib.machinery.ExtensionFileLoader("_slsqplib", str(path))
            spec = importlib.util.spec_from_file_location("_slsqplib", path, loader=loader)
            if spec is None:
                return None
            module = importlib.util.module_from_spec(spec)
            try:
                loader.exec_module(module)
            except ImportError:
                return None
            return getattr(module, "nnls", None)
    return None


def _centre_spread(residual: np.ndarray, compute: np.ndarray) -> tuple[float, float]:
    centre = float(np.median(residual))
    mad = 1.4826 * float(np.median(np.abs(residual - centre)))
    return centre, max(mad, FLOOR_SHARE * abs(float(np.median(compute))), 1.0)


def spread_at(spread: float, predicted: np.ndarray | float) -> np.ndarray | float:
    """The spread a task's residual is judged by: the stage's, and no less than
    ``FLOOR_SHARE`` of the compute time the model predicts for the task. Noise grows with the
    work: a task of 10x the records varies by 10x the milliseconds of its peers, and the fit
    cannot place it to the millisecond either (its intercept is held at zero or above). Judged
    by its 35 ms peers' spread alone, the one task of 10x the records of a stage on a busy
    host (3.97 s, 3 % off the fit's 3.85 s) was trimmed as a straggler, after which no refit
    could price its records and its data skew was called computation skew."""
    return np.maximum(spread, FLOOR_SHARE * np.abs(predicted))


@dataclass(frozen=True)
class VolumePart:
    """One kind of volume's share of a compute gap."""

    kind: str
    column: str
    label: str
    """The measure of the kind that moved the most time (its column, and in words:
    ``shuffle records written``)."""
    first: float
    second: float
    ms: float

    @property
    def ratio(self) -> float:
        return self.first / self.second if self.second > 0 else float("inf")


@dataclass(frozen=True)
class ModelSplit:
    """A compute gap split by the stage's cost model (see the module docstring)."""

    model: StageModel
    volumes: tuple[VolumePart, ...]
    cost_ms: float
    """The residual difference: what the volumes do not explain (cost per unit)."""
    beyond_spread: bool
    """Is the first task's residual beyond the stage's spread (computation skew)?"""
    residual_z: float
    """The first task's residual in robust deviations from the typical tasks'."""

    @property
    def volume_ms(self) -> float:
        return sum(v.ms for v in self.volumes)


def split(
    cols: Columns, first: int, second: int, without: tuple[str, ...] = ()
) -> ModelSplit | None:
    """The compute gap between task rows ``first`` and ``second`` of one stage, split by its
    cost model; None when the tasks are of different stages or the stage cannot be fitted.
    Where the volume that takes most of the gap (of the volumes) is priced dearer than it can
    be (``MAX_MS_PER_UNIT``), the gap is split by the stage's model without that volume."""
    fitted = fit(cols, first, without)
    if fitted is None:
        return None
    model, rows = fitted
    at = int(rows.searchsorted(second))  # rows are in table order
    if at == len(rows) or rows[at] != second:
        return None
    terms = _Terms.of(cols, model, first)
    i, j = terms.position(first), terms.position(second)
    columns, coefs = model.columns, terms.coefs
    firsts: list[float] = terms.volumes[i].tolist()
    seconds: list[float] = terms.volumes[j].tolist()
    kinds: dict[str, VolumePart] = {}
    for column, coef, a, b in zip(columns, coefs, firsts, seconds):
        ms = coef * (a - b)
        kind, label = KIND_OF[column], _LABELS[column]
        held = kinds.get(kind)
        if held is None:
            kinds[kind] = VolumePart(kind, column, label, a, b, ms)
        else:
            lead = (
                (column, label, a, b)
                if abs(ms) > abs(held.ms)
                else (held.column, held.label, held.first, held.second)
            )
            kinds[kind] = VolumePart(kind, *lead, held.ms + ms)
    residual = terms.residual
    largest = max(kinds.values(), key=lambda part: abs(part.ms), default=None)
    if largest is not None and largest.ms > 0:
        coef = coefs[columns.index(largest.column)]
        if coef > MAX_MS_PER_UNIT.get(largest.column, np.inf):
            fitted_without = split(cols, first, second, (*without, largest.column))
            if fitted_without is not None:
                return fitted_without
    predicted = float(compute_times(cols, np.array([first]))[0]) - float(residual[i])
    z = (float(residual[i]) - model.centre) / float(spread_at(model.spread, predicted))
    return ModelSplit(
        model,
        tuple(kinds.values()),
        float(residual[i] - residual[j]),
        z > TRIM,
        z,
    )


@dataclass(frozen=True)
class _Terms:
    """A fitted stage's model applied to each of its tasks, successful or not: the volumes
    it reads (``np.nan_to_num``'d: a missing volume is none) and the compute time the
    model leaves unexplained (the residual). Computed once per stage (``cols.derived``):
    a report splits the gap of every straggler of a stage against its reference, and the
    sums are those ``split`` would add per task, term by term in the same order."""

    rows: np.ndarray
    """The stage's rows, in table order."""
    coefs: list[float]
    volumes: np.ndarray
    """Per row of ``rows``, the model's volumes (its ``columns``)."""
    residual: np.ndarray
    """Per row of ``rows``, compute time less the model's prediction."""

    @classmethod
    def of(cls, cols: Columns, model: StageModel, row: int) -> _Terms:
        code = int(cols.key("stage_key")[row])
        key = ("model terms", code, model.columns)
        found = cols.derived.get(key)
        if found is None:
            rows = _stage(cols, code)[0]
            coefs = [float(coef) for coef in model.coef]
            volumes = np.column_stack([np.nan_to_num(cols.numeric(c)[rows]) for c in model.columns])
            predicted = np.zeros(len(rows))
            for k, coef in enumerate(coefs):
                predicted = predicted + coef * volumes[:, k]
            residual = compute_times(cols, rows) - (model.intercept + predicted)
            found = cols.derived[key] = cls(rows, coefs, volumes, residual)
        return found

    def position(self, row: int) -> int:
        return int(self.rows.searchsorted(row))


@dataclass(frozen=True)
class Standing:
    """How far a task's duration lies from its stage's other tasks (robust z, fold change)."""

    value: float
    median: float
    low: float
    high: float
    """The stage's normal spread: ``TRIM`` robust deviations about the peers' median, and
    at least ``NORMAL_FOLD`` of it above (a 26 ms gap on a uniform stage is no cause)."""
    z: float
    peers: int

    @property
    def stands_out(self) -> bool:
        return self.value > self.high

    @property
    def top(self) -> str:
        """What sets ``high`` (``standing``): a threshold, not a task the stage ran."""
        if self.high == NORMAL_FOLD * self.median:
            return f"{NORMAL_FOLD:g}x the median"
        return f"{TRIM:g} robust deviations above the median"


NORMAL_FOLD = 1.5
"""A task within this many times its stage's median duration lies within the normal spread,
however uniform its peers: on 2 busy cores or a shared cluster, tasks doing the same work
vary by this much (the issue's controls: robust z 9-27 at under 1.5x the median)."""


def robust_z(value: float, peers: np.ndarray) -> float:
    """|value − median| / (1.4826 MAD) over ``peers``; a fold change (value / median) when
    the peers are all equal (MAD = 0)."""
    peers = peers[np.isfinite(peers)]
    if not len(peers):
        return float("nan")
    median = float(np.median(peers))
    return _z(value, median, 1.4826 * float(np.median(np.abs(peers - median))))


def _z(value: float, median: float, sigma: float) -> float:
    """``robust_z`` given the peers' median and robust deviation (1.4826 MAD)."""
    if sigma > 0:
        return abs(value - median) / sigma
    return value / median if median > 0 else (float("inf") if value > 0 else 0.0)


def standing(
    cols: Columns, row: int, column: str = "duration", least_peers: int = 2
) -> Standing | None:
    """Where ``row``'s ``column`` lies among its stage's other successful tasks; None when it
    has fewer than ``least_peers``. One peer has no spread: its normal range is up to
    ``NORMAL_FOLD`` times the peer's value, what tasks doing the same work vary by anyway
    (the diagnosis of a two-task stage). The median and MAD are those of ``robust_z`` over the peers,
    read from the stage's values sorted once (``_Peers``): a report asks for every straggler
    of a stage, and each would sort the stage again."""
    value = float(cols.numeric(column)[row])
    if "stage_key" not in cols.present or not math.isfinite(value):
        return None
    peers = _Peers.of(cols, row, column, value)
    if peers.n < max(least_peers, 1):
        return None
    median = peers.median()
    sigma = 1.4826 * peers.mad(median)
    high = max(median + TRIM * sigma, NORMAL_FOLD * median)
    low = max(peers.least(), median - TRIM * sigma)
    return Standing(value, median, low, high, _z(value, median, sigma), peers.n)


@dataclass(frozen=True)
class _Peers:
    """A task's peers on one column, as its stage's sorted values less its own: the finite
    values of the stage's successful tasks (``stage_rows``), without one occurrence of the
    task's value where the task is one of them. Their median and MAD are found by position,
    equal to ``np.median``'s over the peers themselves."""

    cols: Columns
    code: int
    column: str
    values: np.ndarray
    """The stage's sorted values."""
    without: int
    """The position in ``values`` of the task's own value, left out; -1: none is."""

    @classmethod
    def of(cls, cols: Columns, row: int, column: str, value: float) -> _Peers:
        code = int(cols.key("stage_key")[row])
        key = ("sorted values", code, column)
        values = cols.derived.get(key)
        rows, success = _stage(cols, code)
        if values is None:
            found = cols.numeric(column)[rows if success is None else rows[success]]
            values = cols.derived[key] = np.sort(found[np.isfinite(found)])
        mine = success is None or bool(success[rows.searchsorted(row)])
        without = int(values.searchsorted(value)) if mine else -1
        return cls(cols, code, column, values, without)

    @property
    def n(self) -> int:
        return len(self.values) - (self.without >= 0)

    def least(self) -> float:
        return float(self.values[1] if self.without == 0 else self.values[0])

    def median(self) -> float:
        return _median_without(self.values, self.without)

    def mad(self, median: float) -> float:
        """The median absolute deviation from ``median`` (unscaled)."""
        key = ("sorted deviations", self.code, self.column, median)
        deviations = self.cols.derived.get(key)
        if deviations is None:
            deviations = self.cols.derived[key] = np.sort(np.abs(self.values - median))
        without = -1
        if self.without >= 0:
            own = abs(float(self.values[self.without]) - median)
            without = int(deviations.searchsorted(own))
        return _median_without(deviations, without)


def _median_without(values: np.ndarray, without: int) -> float:
    """``np.median`` of sorted ``values`` less the one at ``without`` (-1: none)."""
    n = len(values) - (without >= 0)

    def at(i: int) -> np.floating:
        return values[i] if without < 0 or i < without else values[i + 1]

    half = n // 2
    if n % 2:
        return float(at(half))
    return float((at(half - 1) + at(half)) / 2)
