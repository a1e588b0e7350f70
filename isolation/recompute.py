"""Side effects plain Spark repeats: an accumulator added to by a dataset's function.

Plain Spark computes a dataset again for every action that needs it, unless it holds the
dataset in its cache (the program persisted it, and an action computed it since); a traced
run computes each dataset once and keeps it (its records' ids must stay those it traced).
Where the function of a dataset computed again plainly adds to an accumulator, plain Spark
adds again and the traced run does not: the program would print another value (a probe of
PySpark programs: "seen: 153" plainly, "seen: 50" traced, exit 0). Such an action is
refused, naming the dataset, before it runs.

``TracedDataset`` keeps what this needs: the datasets each was made from (``_parents``),
whether its own function adds to an accumulator (``_adds``), whether an action computed it
(``_computed``) and whether plain Spark would hold it in its cache (``_plain_cached``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterable

from pyspark.accumulators import Accumulator

NESTED = 3
"""How deep into the functions a function calls (by global name or closure) the search for
an accumulator goes."""


def adds_to_accumulator(*functions: object) -> bool:
    """Does any of ``functions`` (or a function it refers to, ``NESTED`` deep) refer to a
    Spark accumulator: a global, a closure cell or a default argument that is one?"""
    return any(_refers(f, NESTED, set()) for f in functions)


def _refers(function: object, depth: int, seen: set[int]) -> bool:
    if isinstance(function, Accumulator):
        return True
    if id(function) in seen or depth < 0:
        return False
    seen.add(id(function))
    if isinstance(function, functools.partial):
        return _refers(function.func, depth, seen) or any(
            _refers(a, depth, seen) for a in (*function.args, *function.keywords.values())
        )
    if inspect.ismethod(function):
        return _refers(function.__func__, depth, seen)
    code = getattr(function, "__code__", None)
    if code is None:  # a callable object: its __call__
        call = vars(type(function)).get("__call__")
        return inspect.isfunction(call) and _refers(call, depth, seen)
    referred: list[object] = [cell.cell_contents for cell in _cells(function)]
    names = getattr(function, "__globals__", {})
    referred += [names[n] for n in code.co_names if n in names]
    referred += list(getattr(function, "__defaults__", None) or ())
    return any(
        isinstance(r, Accumulator) or (callable(r) and _refers(r, depth - 1, seen))
        for r in referred
        if not inspect.ismodule(r) and not inspect.isclass(r)
    )


def _cells(function: object) -> Iterable:
    for cell in getattr(function, "__closure__", None) or ():
        try:
            cell.cell_contents  # noqa: B018 - an empty cell raises
        except ValueError:
            continue
        yield cell


def recomputed_plainly(dataset) -> list:
    """The datasets an action on ``dataset`` would compute again in plain Spark that a
    traced run computed before, whose own function adds to an accumulator. Plain Spark
    computes nothing above a dataset it holds, nor the map side of a shuffle it ran before
    (its files are read again)."""
    found, todo, seen = [], [dataset], set()
    while todo:
        current = todo.pop()
        if id(current) in seen or current._plain_cached:
            continue  # plain Spark reads a dataset it holds: nothing above it runs again
        seen.add(id(current))
        if current._computed and current._adds:
            found.append(current)
        if not (current._shuffled and current._computed):  # else its shuffle files are read
            todo.extend(current._parents)
    return found


def mark_computed(dataset, whole: bool) -> None:
    """An action computes ``dataset`` and what it is made from: plain Spark keeps those the
    program persisted, where the action computed them ``whole`` (a take computes some
    partitions only)."""
    todo, seen = [dataset], set()
    while todo:
        current = todo.pop()
        if id(current) in seen or current._plain_cached:
            continue
        seen.add(id(current))
        current._computed = True
        if whole and current._asked is not None:
            current._plain_cached = True
        todo.extend(current._parents)
