"""Typed, cached access to one entity table's columns for the pair computations.

Pair features and atom checks read the same few columns again and again (every query blocks
on the stage key, every check reads duration), so each column is converted once per log —
numeric to float64 with NaN for missing, nominal to integer codes with -1 for missing — and
kept on the ``Log`` object. Feature names are resolved here too, with did-you-mean errors.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from perfx.grammar.ast import Bool, Number, String
from perfx.logs.model import Log
from perfx.logs.registry import FeatureSpec

from .errors import ExplainError

_CACHE_ATTR = "_perfx_explain_columns"
ID_SCANS = 16
"""Lookups by id answered by scanning the column before ``Columns`` builds a dict of it."""


@dataclass
class Columns:
    """The columns of ``log.table(entity)`` as arrays; build with ``columns_for``."""

    log: Log
    entity: str
    table: pd.DataFrame
    _numeric: dict[str, np.ndarray] = field(default_factory=dict)
    _codes: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    _ids: dict[str, int] | None = None
    _id_scans: int = 0
    _values: dict[str, np.ndarray] = field(default_factory=dict)
    _keys: dict[str, np.ndarray] = field(default_factory=dict)
    derived: dict = field(default_factory=dict)
    """Whole-table results other modules compute once per table (e.g. the Relief ranking);
    they go when the table does, since ``columns_for`` rebuilds ``Columns`` then."""

    @property
    def n(self) -> int:
        return len(self.table)

    @cached_property
    def present(self) -> frozenset[str]:
        """The table's column names as a set: the pair computations ask of every straggler of
        a report whether a column is logged, and a pandas Index's ``in`` costs 30x a set's."""
        return frozenset(self.table.columns)

    def values(self, name: str) -> np.ndarray:
        """A column's values as the table holds them (``table[name].to_numpy()``, what
        ``.iat`` reads), taken out once: read per straggler, ``.iat`` costs microseconds."""
        values = self._values.get(name)
        if values is None:
            values = self._values[name] = self.table[name].to_numpy()
        return values

    def spec(self, name: str) -> FeatureSpec:
        """The registered feature a user-written name refers to, present in this table."""
        spec = self.log.registry.resolve(self.entity, name)
        if spec is None and name in self.table.columns:
            spec = FeatureSpec(
                name,
                "numeric" if _is_numeric(self.table[name]) else "nominal",
                "none",
                "feature",
                "",
            )
        if spec is None:
            hint = self.log.registry.suggest(self.entity, name)
            did = f"; did you mean {' or '.join(repr(h) for h in hint)}?" if hint else ""
            raise ExplainError(f"unknown {self.entity} feature {name!r}{did}")
        if spec.name not in self.table.columns:
            raise ExplainError(
                f"{self.entity} feature {spec.name!r} is not in this log (no such column)"
            )
        return spec

    def candidates(self) -> list[FeatureSpec]:
        """Features the search may propose: role ``feature`` and present in the table.
        Outcome and identity features are never candidates (they restate or name the run)."""
        columns = set(self.table.columns)
        return [s for s in self.log.registry.candidates(self.entity) if s.name in columns]

    def context(self) -> list[FeatureSpec]:
        """Features a generated DESPITE may use: context (``FeatureRegistry.context``) present
        in the table."""
        columns = set(self.table.columns)
        return [s for s in self.log.registry.context(self.entity) if s.name in columns]

    @cached_property
    def _id_texts(self) -> np.ndarray:
        """The ``id`` column as text (an object array of str)."""
        return self.table["id"].astype(str).to_numpy()

    def rows_with_id(self, text: str) -> np.ndarray:
        """Rows whose unique ``id`` is ``text`` (the last, if a damaged table repeats it). A
        question looks up two ids: each is a scan of the column (a millisecond for 150,000
        tasks). A report looks up every straggler's: from the ``ID_SCANS``-th lookup on, a
        dict is built once (twenty milliseconds) and asked instead."""
        if self._ids is None and self._id_scans < ID_SCANS:
            self._id_scans += 1
            return np.flatnonzero(self._id_texts == text)[-1:]
        if self._ids is None:
            self._ids = {str(text): row for row, text in enumerate(self._id_texts)}
        row = self._ids.get(text)
        return np.array([row] if row is not None else [], dtype=np.intp)

    def rows_of(self, name: str, code: int) -> np.ndarray:
        """The rows whose ``key(name)`` is ``code``, in table order (as ``np.flatnonzero(
        key == code)`` finds them), from an index of every group built once per column: a
        report asks for the stage of every straggler, and each search would read the whole
        table."""
        groups = self.derived.get(("groups", name))
        if groups is None:
            key = self.key(name)
            order = np.argsort(key, kind="stable")
            cuts = np.flatnonzero(np.diff(key[order])) + 1
            groups = {int(key[part[0]]): part for part in np.split(order, cuts) if len(part)}
            self.derived[("groups", name)] = groups
        found = groups.get(int(code))
        return found if found is not None else np.zeros(0, dtype=np.intp)

    def numeric(self, name: str) -> np.ndarray:
        values = self._numeric.get(name)
        if values is None:
            values = pd.to_numeric(self.table[name], errors="coerce").to_numpy(
                dtype=np.float64, na_value=np.nan
            )
            self._numeric[name] = values
        return values

    def codes(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(codes, categories) of a nominal column; code -1 is missing. Factorised once per
        log and cached: per query only the sampled pairs' codes are read."""
        cached = self._codes.get(name)
        if cached is None:
            codes, categories = pd.factorize(self.table[name], use_na_sentinel=True)
            cached = (_narrow(codes, len(categories)), np.asarray(categories, dtype=object))
            self._codes[name] = cached
        return cached

    def key(self, name: str, spec: FeatureSpec | None = None) -> np.ndarray:
        """Integer codes for equality tests on any column (numeric values factorised too);
        -1 for missing. Used to block pairs on isSame atoms."""
        if spec is None:  # resolved once per name: a report asks for the stage key per straggler
            found = self._keys.get(name)
            if found is None:
                found = self._keys[name] = self.key(name, self.spec(name))
            return found
        if spec.kind == "nominal":
            return self.codes(spec.name)[0]
        cached = self._codes.get(spec.name)
        if cached is None:
            codes, uniques = pd.factorize(self.numeric(spec.name), use_na_sentinel=True)
            cached = (_narrow(codes, len(uniques)), np.asarray(uniques, dtype=object))
            self._codes[spec.name] = cached
        return cached[0]


def columns_for(log: Log, entity: str) -> Columns:
    """The cached ``Columns`` of ``log.table(entity)`` (rebuilt if the table was replaced)."""
    cache = log.__dict__.setdefault(_CACHE_ATTR, {})
    table = log.table(entity)
    cols = cache.get(entity)
    if cols is None or cols.table is not table or len(table) != cols.n:
        cols = Columns(log, entity, table)
        cache[entity] = cols
    return cols


def _narrow(codes: np.ndarray, categories: int) -> np.ndarray:
    """Codes in the smallest signed integer type that holds them (and -1): nominal columns
    of a million-task log are kept for every later query, most with a handful of values."""
    for dtype in (np.int8, np.int16, np.int32):
        if categories < np.iinfo(dtype).max:
            return codes.astype(dtype)
    return codes.astype(np.int64)


def _is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def value_matches(categories: np.ndarray, value) -> np.ndarray:
    """Which categories of a nominal column a PXQL literal denotes (as a boolean mask).

    Strings match by text (case-insensitively when no exact match exists); ``T``/``F``
    match booleans and their usual spellings; numbers match numerically."""
    if isinstance(value, Bool):
        spellings = {"true", "t", "1", "yes"} if value.value else {"false", "f", "0", "no"}
        return np.array(
            [
                (c is value.value)
                or (isinstance(c, (bool, np.bool_)) and bool(c) == value.value)
                or str(c).lower() in spellings
                for c in categories
            ],
            dtype=bool,
        )
    if isinstance(value, Number):
        return np.array([_as_float(c) == value.value for c in categories], dtype=bool)
    if isinstance(value, String):
        text = np.array([str(c) for c in categories], dtype=object)
        exact = text == value.value
        return (
            exact
            if exact.any()
            else np.array([t.lower() == value.value.lower() for t in text], dtype=bool)
        )
    raise ExplainError(f"a nominal feature cannot be compared with {value!r}")


def _as_float(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")
