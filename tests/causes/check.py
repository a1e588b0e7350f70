"""Measure each injected task against its stage peers, from the event log, and check that it
is the slowest by a clear margin with the metric signature of its cause, and no other.

    python -m tests.causes.check DIR      # DIR as written by tests.causes.make_runs

Signatures (the injected task against the median of its peers, the other tasks of its stage):

* every kind: slowest of its stage, >= 2x the peers' median and >= 1.3x the slowest peer;
* data_skew: >= 10x the input records; shuffle_read_skew: >= 5x the shuffle records and bytes;
  gc_pressure: GC time >= 5x the peers' median and >= half of its extra time; spill: spilled
  bytes > 0 and no peer spilled; cold_start: the first task on its executor in the stage;
* and none of the others: records within 10% of the median (unless a skew), no spill anywhere
  (unless spill), GC time under a quarter of the extra time (unless gc_pressure), not the
  stage's first task (unless cold_start); for cold_start, the injected task is the only one
  that built the model (``details["paid"]``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

from .scenarios import Injected, find_injected_task, injected_stage_tasks


def measure(log, injected: Injected) -> dict:
    """The injected task's figures and its peers' (median, max) in the stage of interest."""
    tasks = injected_stage_tasks(log, injected)
    if tasks is None:
        raise LookupError(f"no stage of {injected.num_tasks} tasks for {injected.description}")
    tasks = tasks.assign(
        records=tasks["input_records"].fillna(0) + tasks["shuffle_read_records"].fillna(0),
        spilled=tasks["memory_bytes_spilled"].fillna(0) + tasks["disk_bytes_spilled"].fillna(0),
    )
    index = injected.partition
    if index < 0:  # a control: the task its question is about (scenarios.find_injected_task)
        index = int(
            tasks.loc[tasks["id"] == find_injected_task(log, injected), "task_index"].iloc[0]
        )
    mine = tasks[tasks["task_index"] == index].iloc[0]
    peers = tasks[tasks["task_index"] != index]
    row = {
        "kind": injected.kind,
        "seed": injected.seed,
        "size": injected.size,
        "tasks": len(tasks),
        "index": index,
        "id": mine["id"],
    }
    for name in (
        "duration",
        "records",
        "input_records",
        "shuffle_read_records",
        "shuffle_read_bytes",
        "gc_time",
        "spilled",
        "memory_bytes_spilled",
        "disk_bytes_spilled",
    ):
        row[name] = float(mine[name])
        row[f"{name}_med"] = float(peers[name].fillna(0).median())
        row[f"{name}_max"] = float(peers[name].fillna(0).max())
    row["slowest"] = bool(mine["duration"] > peers["duration"].max())
    row["first_task"] = mine["first_task_on_executor"] == "T"
    row["stage_wall_s"] = (tasks["finish_time"].max() - tasks["launch_time"].min()) / 1000
    return row


def _ratio(a: float, b: float) -> float:
    return a / b if b else (float("inf") if a else 1.0)


def problems(row: dict) -> list[str]:
    """What does not hold of ``row`` (from ``measure``) for its kind; empty if all does."""
    kind, out = row["kind"], []
    extra = row["duration"] - row["duration_med"]
    if kind == "control":  # nothing injected: no signature to hold
        return out
    if kind in LOOSE:
        return [p for p in _problems(row, "computation_skew", extra) if p not in LOOSE[kind]]
    return _problems(row, kind, extra)


LOOSE = {
    "spill_volume": {"records differ", "spill present"},
    "batched_shuffle_bytes": {"shuffle bytes differ"},
    "shuffle_write_fanout": set(),
    "result_size": set(),
    "output_skew": set(),
    "python_wait": set(),
}
"""The newer kinds are checked as computation skew (the slowest by a margin, no spill, no GC,
the same records) less what their own cause changes."""


def _problems(row: dict, kind: str, extra: float) -> list[str]:
    out: list[str] = []

    def need(ok: bool, what: str) -> None:
        if not ok:
            out.append(what)

    need(row["slowest"], "not the slowest")
    need(_ratio(row["duration"], row["duration_med"]) >= 2, "< 2x the median")
    need(_ratio(row["duration"], row["duration_max"]) >= 1.3, "< 1.3x the slowest peer")
    skew = {"data_skew": "input_records", "shuffle_read_skew": "shuffle_read_records"}.get(kind)
    if skew:
        need(
            _ratio(row[skew], row[f"{skew}_med"]) >= (10 if kind == "data_skew" else 5),
            f"{skew} not skewed",
        )
    else:
        need(abs(row["records"] - row["records_med"]) <= 0.1 * row["records_med"], "records differ")
    if kind == "shuffle_read_skew":
        need(
            _ratio(row["shuffle_read_bytes"], row["shuffle_read_bytes_med"]) >= 5,
            "shuffle bytes not skewed",
        )
    elif kind != "data_skew":
        need(
            abs(row["shuffle_read_bytes"] - row["shuffle_read_bytes_med"])
            <= 0.1 * max(row["shuffle_read_bytes_med"], 1),
            "shuffle bytes differ",
        )
    if kind == "gc_pressure":
        need(_ratio(row["gc_time"], row["gc_time_med"]) >= 5, "GC not >= 5x the median")
        need(row["gc_time"] >= 0.5 * extra, "GC < half the extra time")
    else:
        need(row["gc_time"] <= max(0.25 * extra, 100), "GC time notable")
    if kind == "spill":
        need(row["spilled"] > 0, "no spill")
        need(row["spilled_max"] == 0, "a peer spilled")
    else:
        need(row["spilled"] == 0 and row["spilled_max"] == 0, "spill present")
    need(row["first_task"] == (kind == "cold_start"), "first-task flag wrong")
    if kind == "cold_start" and row.get("paid") is not None:
        need(row["paid"] == [row["index"]], f"cold start paid by {row['paid']}")
    return out


def _mb(x: float) -> str:
    return f"{x / 2**20:.1f}M" if x else "0"


def table(rows: list[dict]) -> str:
    """The verification table, one line per run."""
    lines = []
    header = (
        f"{'kind':<18}{'seed':>4} {'size':<5}{'n':>3}{'idx':>4} {'dur':>6} {'med':>5} {'maxpeer':>7} "
        f"{'x med':>6} {'x max':>6} {'records':>15} {'gc ms':>11} {'spill (med)':>12} "
        f"{'shuf.bytes (med)':>17} {'1st':>3} {'slowest':>7} {'wall s':>6}  problems"
    )
    lines.append(header)
    for r in rows:
        lines.append(
            f"{r['kind']:<18}{r['seed']:>4} {r['size']:<5}{r['tasks']:>3}{r['index']:>4} {r['duration']:>6.0f} "
            f"{r['duration_med']:>5.0f} {r['duration_max']:>7.0f} {_ratio(r['duration'], r['duration_med']):>6.1f} "
            f"{_ratio(r['duration'], r['duration_max']):>6.2f} {r['records']:>7.0f}/{r['records_med']:<7.0f} "
            f"{r['gc_time']:>5.0f}/{r['gc_time_med']:<5.0f} {_mb(r['spilled']):>6}/{_mb(r['spilled_med']):<5} "
            f"{_mb(r['shuffle_read_bytes']):>8}/{_mb(r['shuffle_read_bytes_med']):<8} {'T' if r['first_task'] else 'F':>3} "
            f"{'yes' if r['slowest'] else 'NO':>7} {r.get('wall_s') or 0:>6.1f}  {', '.join(problems(r)) or 'ok'}"
        )
    walls = pd.DataFrame(rows).groupby("kind", sort=False)["wall_s"].agg(["mean", "max"])
    lines.append(
        "wall time per run (s): "
        + "; ".join(f"{k} {m:.1f} (max {x:.1f})" for k, (m, x) in walls.iterrows())
    )
    return "\n".join(lines)


def check_dir(out: str | Path) -> tuple[list[dict], str]:
    """Measure every run listed in ``out``/injected.json against ``out``'s event log."""
    from perfx.logs.loader import load_log

    out = Path(out)
    record = json.loads((out / "injected.json").read_text())
    runs, app_id = record["runs"], record["app_id"]
    event_log = out / app_id if (out / app_id).exists() else out / f"{app_id}.inprogress"
    log = load_log(event_log)
    rows = []
    for run in runs:
        injected = Injected(**{k: v for k, v in run.items() if k in Injected.__dataclass_fields__})
        rows.append(
            measure(log, injected)
            | {"wall_s": run.get("wall_s"), "paid": run["details"].get("paid")}
        )
    return rows, table(rows)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m tests.causes.check DIR", file=sys.stderr)
        return 2
    rows, text = check_dir(argv[0])
    print(text)
    pd.DataFrame(rows).to_csv(Path(argv[0]) / "check.csv", index=False)
    return 0 if all(not problems(r) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
