"""The injected-cause suite at size (``./dev bench causes``): ten seeds of each kind of
``tests/causes/scenarios.py`` run in one local[2] session, then ``WHY TASK <injected> SLOWER``
for each. Prints each answer's gap and diagnosis, the confusion tables (injected kind x the
kind the answer's lead names, and x the kind its diagnosis names), the same table for the
paper's ranking alone (``gap_weight=0``) and for each baseline, then every method's right
answers per kind side by side.

Acceptance (issues 12 and 30): the injected cause leads, and the diagnosis names it, in at
least 9 of 10 seeds of every kind; on the controls (nothing injected) the diagnosis says no
cause stands out. The baselines (the paper's ranking alone, ``ruleofthumb``, ``simbutdiff``
and the stage-wide ``peers``) are judged on the same runs and printed beside perfx, with
whether perfx's lead is right on at least as many runs as each in every kind.
``PERFX_BENCH_CAUSES_SEEDS``, ``PERFX_BENCH_CAUSES_SIZE`` (small|large) and
``PERFX_BENCH_CAUSES_KINDS`` (space-separated) change the runs; ``PERFX_BENCH_CAUSES_REUSE=DIR``
asks the questions again of the runs an earlier benchmark left in DIR (its event log path is
printed), without running Spark."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

WANTED = 0.9


BASELINES = ("ruleofthumb", "simbutdiff", "peers")


class Unanswered:
    """A question perfx refused (``ExplainError``), e.g. a control whose asked task is not
    slower than any task of its stage by the similarity margin: no lead, no gap, no
    diagnosis, so it is right for no kind, a control included (the judge reads it as it reads
    an answer; the error is printed as its sentence)."""

    because = ()
    gap = None

    def __init__(self, task_id: str, error: Exception) -> None:
        self.pair, self.error = (task_id, None), error

    def sentence(self) -> str:
        return f"unanswered: {self.error}"


def _answers(log, runs: list[dict], **options) -> list[tuple[dict, object, str]]:
    from perfx.explain.engine import explain
    from perfx.explain.errors import ExplainError

    from ..causes.judge import named_cause

    out = []
    for run in runs:
        try:
            answer = explain(log, f"WHY TASK '{run['task_id']}' SLOWER", **options)
        except ExplainError as err:  # one refused question must not end the benchmark
            answer = Unanswered(run["task_id"], err)
        out.append((run, answer, named_cause(answer, log)))
    return out


def _table(title: str, answers, kinds, log, name=None, control=True) -> dict[str, float]:
    """The confusion table of ``answers``: rows injected, columns what ``name`` reads (by
    default the lead's kind, the injected kind where ``judge.lead_right`` accepts the lead:
    spill for spill with volume, a lead saying where the time went for a Python wait; without
    ``control``, a baseline's, a control's row shows its raw lead: no lead says "nothing")."""
    from ..causes.judge import lead_right

    if name is None:

        def name(run, answer, named):
            judged = control or run["kind"] != "control"
            return run["kind"] if judged and lead_right(answer, log, run["kind"]) else named

    named_as = [(run, name(run, answer, n)) for run, answer, n in answers]
    names = sorted({n for _, n in named_as} | set(kinds))
    counts = Counter((run["kind"], n) for run, n in named_as)
    width = max(len(n) for n in names) + 2
    print(f"\n{title}: rows injected, columns named")
    print(" " * 22 + "".join(n[: width - 1].rjust(width) for n in names) + "   right")
    share = {}
    for kind in kinds:
        total = sum(counts[(kind, n)] for n in names)
        share[kind] = counts[(kind, kind)] / total if total else float("nan")
        print(
            kind.ljust(22)
            + "".join(str(counts[(kind, n)] or ".").rjust(width) for n in names)
            + f"   {counts[(kind, kind)]}/{total}"
        )
    return share


def _right(log, kind: str, answer) -> tuple[bool, bool]:
    """(lead right, diagnosis right) for one answer (``tests/causes/judge.py``)."""
    from ..causes.judge import diagnosed, lead_right

    return lead_right(answer, log, kind), kind in diagnosed(answer, log)


def main() -> None:
    from perfx.explain.options import GAP_WEIGHT
    from perfx.logs.loader import load_log

    from ..causes import make_runs
    from ..causes.judge import diagnosed
    from ..causes.scenarios import KINDS

    seeds = os.environ.get("PERFX_BENCH_CAUSES_SEEDS", "10")
    size = os.environ.get("PERFX_BENCH_CAUSES_SIZE", "large")
    kinds = os.environ.get("PERFX_BENCH_CAUSES_KINDS", " ".join(KINDS)).split()
    reuse = os.environ.get("PERFX_BENCH_CAUSES_REUSE")
    out = Path(reuse) if reuse else Path(tempfile.mkdtemp(prefix="perfx-bench-causes-"))
    started = time.perf_counter()
    if not reuse:
        make_runs.main(
            ["--out", str(out), "--seeds", seeds, "--size", size, "--no-check", "--kinds", *kinds]
        )
    ran = time.perf_counter() - started
    record = json.loads((out / "injected.json").read_text())
    log = load_log(out / record["app_id"])
    runs = [r for r in record["runs"] if r["kind"] in kinds]

    started = time.perf_counter()
    ours = _answers(log, runs, gap_weight=GAP_WEIGHT)
    asked = time.perf_counter() - started
    methods = {"paper (gap_weight 0)": _answers(log, runs, gap_weight=0.0)}
    for method in BASELINES:
        methods[method] = _answers(log, runs, method=method)

    print(
        f"\n{len(runs)} runs ({size}) in {ran:.0f} s; {len(runs)} questions in {asked:.1f} s "
        f"({asked / max(len(runs), 1):.2f} s each); event log {out}"
    )
    print("\nanswers (perfx):")
    for run, answer, named in ours:
        lead, diag = _right(log, run["kind"], answer)
        mark = "ok  " if lead and diag else "MISS"
        diagnosis = answer.gap.diagnosis if answer.gap is not None else None
        print(
            f"{mark} {run['kind']:<20} seed {run['seed']:<3} lead {named:<22} "
            f"diagnosis {diagnosis.name if diagnosis else '-'}"
        )
        print(f"     gap: {answer.gap.line() if answer.gap is not None else 'no gap'}")
        if diagnosis is not None:
            print(f"     diagnosis: {diagnosis.detail}")
        if not (lead and diag):
            print(f"     {answer.sentence()}")
    _table("perfx's BECAUSE lead", ours, kinds, log)
    _table(
        "perfx's diagnosis (kind and sentence)",
        ours,
        kinds,
        log,
        name=lambda run, answer, _: (
            run["kind"]
            if run["kind"] in diagnosed(answer, log)
            else next(iter(sorted(diagnosed(answer, log))), "none")
        ),
    )
    for method, answers in methods.items():
        _table(f"{method}'s BECAUSE lead", answers, kinds, log, control=False)

    columns = ["perfx lead", "perfx diagnosis", "perfx both", *methods]
    print("\nright per kind (of the runs of each): " + ", ".join(columns))
    print("kind".ljust(22) + "".join(c[:18].rjust(20) for c in columns))
    totals = Counter()
    short = []
    for kind in kinds:
        mine = [(r, a) for r, a, _ in ours if r["kind"] == kind]
        judged = [_right(log, kind, a) for _, a in mine]
        row = {
            "perfx lead": sum(lead for lead, _ in judged),
            "perfx diagnosis": sum(d for _, d in judged),
            "perfx both": sum(lead and d for lead, d in judged),
        }
        for method, answers in methods.items():  # a control has no lead to judge: 0
            row[method] = (kind != "control") * sum(
                _right(log, kind, a)[0] for r, a, _ in answers if r["kind"] == kind
            )
        totals.update(row)
        if row["perfx both"] < WANTED * len(mine):
            short.append(kind)
        print(kind.ljust(22) + "".join(f"{row[c]}/{len(mine)}".rjust(20) for c in columns))
    print("all".ljust(22) + "".join(f"{totals[c]}/{len(runs)}".rjust(20) for c in columns))
    for method, answers in methods.items():
        beaten = [
            k
            for k in kinds
            if sum(_right(log, k, a)[0] for r, a, _ in ours if r["kind"] == k)
            < (k != "control") * sum(_right(log, k, a)[0] for r, a, _ in answers if r["kind"] == k)
        ]
        print(
            f"perfx's lead right on at least as many runs as {method} in every kind: "
            + ("yes" if not beaten else f"NO ({', '.join(beaten)})")
            + f"; overall {totals['perfx lead']} against {totals[method]}"
        )
    print(
        "every kind at >= 9 of 10 (lead and diagnosis): "
        + ("yes" if not short else f"NO ({', '.join(short)})")
    )
