"""The accuracy experiment of PerfDebug's section 5.5, reusable by tests and benchmarks.

A trial picks one input line at random (one whose text is unique, so that only it is
delayed), makes the program's first UDF sleep on it, runs the program traced with full
lineage and checks that the top-1 culprit is that line. It also backward-traces the slowest
output, as Titian would: the precision improvement is the number of inputs that trace
returns per input perfx returns (one).
"""

from __future__ import annotations

import importlib
import random
import time
from collections import Counter
from dataclasses import dataclass

from perfx.isolation.context import TracedContext
from perfx.isolation.ids import split_id
from perfx.isolation.queries import StoredRun, backward_trace, outputs, top_culprits
from perfx.isolation.sources import partition_splits, read_partition_lines

PAPER_PROGRAMS = ("movie_ratings", "college_student", "weather")
"""The three programs of the paper's Table 2."""


@dataclass
class Trial:
    program: str
    delayed_line: str
    culprit_line: str
    hit: bool
    traced_inputs: int
    seconds: float

    @property
    def precision_improvement(self) -> float:
        """Inputs of the slowest output's backward trace per input perfx names (one)."""
        return float(self.traced_inputs)


def pick_line(path: str, rng: random.Random) -> str:
    """A random line of ``path`` whose text occurs once."""
    with open(path) as handle:
        lines = handle.read().splitlines()
    counts = Counter(lines)
    while True:
        line = rng.choice(lines)
        if counts[line] == 1:
            return line


def run_trial(spark, program: str, path: str, store, seed: int, delay_s: float) -> Trial:
    module = importlib.import_module(f"perfx.isolation.programs.{program}")
    line = pick_line(path, random.Random(seed))
    started = time.perf_counter()
    with TracedContext(
        spark, store=store, lineage="full", meta={"program": program, "input": path}
    ) as ctx:
        module.pipeline(ctx, path, delay=(line, delay_s)).collect_traced()
    seconds = time.perf_counter() - started
    run = StoredRun.open(store, ctx.run_id)
    culprit = int(top_culprits(run, 1).source.iloc[0])
    table, partition, seq = split_id(culprit)
    splits = partition_splits(run.meta["sources"][str(table)], partition)
    culprit_line = read_partition_lines(splits, {seq}).get(seq, (None, None, ""))[2]
    slowest = outputs(run, limit=1).iloc[0]
    trace = backward_trace(run, str(slowest.out_id), show=0)
    return Trial(program, line, culprit_line, culprit_line == line, trace.count, seconds)
