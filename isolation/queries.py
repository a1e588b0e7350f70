"""Queries on a stored run (any store, any time after the run): its outputs with their
latency and slowest input, the top culprits overall or inside one task's partition, and the
Titian-style backward trace of one output (the baseline PerfDebug improves on).

Every query runs DuckDB over the store's tables and refuses an incomplete run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import duckdb
import pandas as pd
import pyarrow as pa

from . import sources
from .costs import REST
from .errors import IsolationError
from .ids import NO_SOURCE, split_id
from .lineage import SCHEMA
from .propagation import rank_culprits
from .stores import LineageStore


def computed_partitions(info: dict) -> list[int]:
    """The partitions of a stored run's stage (its meta ``info``) that the run computed: all
    of them, unless only actions reading some partitions (take) needed the stage."""
    if "computed" in info:
        return [int(p) for p in info["computed"]]
    return list(range(int(info.get("partitions", 0))))


def check_intact(store: LineageStore, run: str, meta: dict) -> None:
    """Every partition of every stage the finished run stored is still in the store."""
    written = store.partitions(run)
    have = set(zip(written.stage.tolist(), written.partition.tolist()))
    for stage, info in sorted(meta.get("stages", {}).items(), key=lambda kv: int(kv[0])):
        for partition in computed_partitions(info):
            if (int(stage), partition) not in have:
                raise IsolationError(
                    f"run {run} is damaged: the lineage of stage {stage} partition {partition} "
                    "is missing from the store; re-run it with perfx isolate"
                )


@dataclass
class StoredRun:
    """A complete run opened for querying."""

    store: LineageStore
    run: str
    meta: dict
    tables: dict

    @classmethod
    def open(cls, store: LineageStore, run: str) -> StoredRun:
        """A complete run whose every stage still has every partition's lineage (a damaged
        store is refused, naming the first missing stage and partition)."""
        meta = store.complete_meta(run)
        check_intact(store, run, meta)
        return cls(store, run, meta, store.tables(run))

    @property
    def final_stage(self) -> int:
        if not self.meta.get("outputs"):
            raise IsolationError(f"run {self.run} has no output stage (no action ran)")
        return int(self.meta["outputs"][-1])

    def table(self, stage: int):
        if stage in self.tables:
            return self.tables[stage]
        if self._partitions(stage) == 0:
            return SCHEMA.empty_table()  # a stage of no partition (emptyRDD's): no rows
        known = ", ".join(str(s) for s in sorted(self.tables)) or "none"
        raise IsolationError(f"run {self.run} has no lineage for stage {stage} (stages: {known})")

    def _partitions(self, stage: int) -> int | None:
        """How many partitions the run's ``stage`` had (None: no such stage)."""
        info = self.meta.get("stages", {}).get(str(stage))
        return None if info is None else int(info.get("partitions", 0))

    def check_partition(self, stage: int, partition: int) -> None:
        """Refuses a partition the stage did not have (``StoredRun.open`` checked that each
        one it had is stored: one with no rows held no records)."""
        count = self._partitions(stage) or 0
        if not 0 <= partition < count:
            raise IsolationError(
                f"run {self.run}'s stage {stage} has no partition {partition} "
                f"({count} partition{'' if count == 1 else 's'}: 0 to {count - 1})"
            )
        computed = computed_partitions(self.meta["stages"][str(stage)])
        if partition not in computed:
            raise IsolationError(
                f"run {self.run}'s stage {stage} partition {partition} was never computed: "
                "the program's actions (take, first, ...) read only partition"
                f"{'' if len(computed) == 1 else 's'} {', '.join(map(str, computed))}"
            )

    def query(self, sql: str, params: list | None = None, **relations) -> pd.DataFrame:
        con = duckdb.connect()
        for name, relation in relations.items():
            con.register(name, relation)
        try:
            return con.execute(sql, params).df()
        finally:
            con.close()

    def locate(self, record_ids) -> dict[int, dict]:
        """Location and excerpt of source records (files are read back; collection sources
        come from their stored source table)."""
        record_ids = [int(i) for i in record_ids]
        by_table: dict[int, list[int]] = {}
        for record_id in record_ids:
            by_table.setdefault(split_id(record_id)[0], []).append(record_id)
        stored: dict[int, str] = {}
        for table, ids in by_table.items():
            source = self.meta.get("sources", {}).get(str(table))
            if source and source["kind"] == "collection" and table in self.tables:
                rows = self.query(
                    "SELECT out_id, record FROM t WHERE out_id IN (SELECT id FROM ids)",
                    t=self.tables[table],
                    ids=pa.table({"id": pa.array(ids, pa.int64())}),
                )
                stored.update(zip(rows.out_id.tolist(), rows.record.tolist()))
        return sources.locate(self.meta, record_ids, stored)

    def _with_sources(self, frame: pd.DataFrame, column: str) -> pd.DataFrame:
        found = self.locate(frame[column].tolist()) if len(frame) else {}
        return frame.assign(
            location=[found.get(int(i), {}).get("location", "") for i in frame[column]],
            excerpt=[found.get(int(i), {}).get("excerpt", "") for i in frame[column]],
        )


def outputs(run: StoredRun, limit: int | None = None) -> pd.DataFrame:
    """The final outputs, slowest first: ``out_id, key, record, latency_ms, source,
    remediated_ms, location, excerpt`` (location and excerpt of the slowest input)."""
    limit_sql = f"LIMIT {int(limit)}" if limit else ""
    frame = run.query(
        f"""
        SELECT out_id, key, record, total_latency_ms AS latency_ms,
               most_impactful_source AS source, remediated_latency_ms AS remediated_ms
        FROM final ORDER BY latency_ms DESC, out_id {limit_sql}
    """,
        final=run.table(run.final_stage),
    )
    return run._with_sources(frame, "source")


def top_culprits(
    run: StoredRun, top: int = 10, stage: int | None = None, partition: int | None = None
) -> pd.DataFrame:
    """The input records that cost the most, over the whole run or, with ``stage`` and
    ``partition``, inside that one task: ``source, impact_ms, max_total_ms,
    max_remediated_ms, outputs, cost_ms, location, excerpt``.

    A record's ``impact_ms`` is the larger of two credits for the same time, never their
    sum: what removing it takes off the slowest output it leads (propagation's impact) and
    its own cost in the stage that read it (``cost_ms``, costs.py), which a combine, group or
    join does not dilute. ``outputs`` counts the outputs it leads; a record credited for its
    cost alone leads none (its ``max_total_ms`` is its cost, its ``max_remediated_ms`` 0)."""
    if (stage is None) != (partition is None):
        raise IsolationError("give both --stage and --partition, or neither")
    table = run.table(run.final_stage if stage is None else stage)
    where = "" if partition is None else f"AND partition = {int(partition)}"
    rows = run.query(  # an output made from no input record has no culprit
        "SELECT most_impactful_source, total_latency_ms, remediated_latency_ms FROM t "
        f"WHERE most_impactful_source <> {NO_SOURCE} {where}",
        t=table,
    )
    if partition is not None and rows.empty:
        run.check_partition(cast(int, stage), partition)  # an empty one holds no culprit
    # the top by the larger credit are among the top by impact and the top by cost
    costs = _record_costs(run, stage, partition, top)
    ranked = rank_culprits(rows, top=top)
    counts = rows.most_impactful_source.value_counts()
    ranked["outputs"] = [int(counts.get(s, 0)) for s in ranked.source]
    if len(costs):
        ranked = ranked.merge(costs, on="source", how="outer")
        alone = ranked.impact_ms.isna()
        ranked.loc[alone, "max_total_ms"] = ranked.loc[alone, "cost_ms"]
        ranked = ranked.fillna({"impact_ms": 0.0, "max_remediated_ms": 0.0, "outputs": 0})
        ranked["impact_ms"] = ranked[["impact_ms", "cost_ms"]].max(axis=1)
        ranked = ranked.sort_values(["impact_ms", "source"], ascending=[False, True])
        ranked = ranked.head(top).reset_index(drop=True).astype({"outputs": int})
    # a record without a kept cost has none (None, not NaN: answers compare equal)
    ranked["cost_ms"] = (
        ranked.cost_ms.astype(object).where(ranked.cost_ms.notna(), None) if len(costs) else None
    )
    return run._with_sources(ranked, "source")


def _record_costs(
    run: StoredRun, stage: int | None, partition: int | None, top: int
) -> pd.DataFrame:
    """``source, cost_ms`` of the ``top`` costliest records: the costs kept beside stage end ``stage`` for ``partition``, or,
    without a stage, beside every stage end of the run (a record read by two stages: its
    larger cost). Empty for a stage that reads no source records and for runs stored before
    costs were kept."""
    stages = run.meta.get("stages", {})
    if stage is None:
        found = [int(s) for s, info in stages.items() if info.get("kind") == "costs"]
    else:
        found = [int(stages[str(stage)]["costs"])] if "costs" in stages.get(str(stage), {}) else []
    frames = [
        run.query(
            "SELECT most_impactful_source AS source, max(total_latency_ms) AS cost_ms FROM t "
            f"WHERE most_impactful_source <> {REST} "
            + ("" if partition is None else f"AND partition = {int(partition)} ")
            + f"GROUP BY source ORDER BY cost_ms DESC, source LIMIT {int(top)}",
            t=run.table(costs),
        )
        for costs in found
    ]
    if not frames:
        return pd.DataFrame({"source": pd.Series(dtype="int64"), "cost_ms": pd.Series(dtype=float)})
    joined = pd.concat(frames, ignore_index=True)
    return joined.groupby("source", as_index=False)["cost_ms"].max()


def removed_costs(run: StoredRun, sources: list[int]) -> pd.DataFrame:
    """``source, stage, partition, spark_stage, cost_ms`` of the given source records, from the
    costs kept beside the stage ends that read them (costs.py): where each one's time was
    spent. A record kept by two stage ends is taken where it cost the most; records without
    a kept cost are left out."""
    columns = ["source", "stage", "partition", "spark_stage", "cost_ms"]
    ids = pa.table({"id": pa.array([int(s) for s in sources], pa.int64())})
    kept = _over_costs(
        run,
        "SELECT most_impactful_source AS source, stage, partition, "
        "total_latency_ms AS cost_ms FROM t WHERE most_impactful_source IN (SELECT id FROM ids)",
        columns,
        ids=ids,
    )
    kept = kept.sort_values("cost_ms", ascending=False).drop_duplicates("source")
    return kept.reset_index(drop=True)


def partition_times(run: StoredRun) -> pd.DataFrame:
    """``stage, partition, spark_stage, traced_ms``: the traced time of every partition of
    every stage end that kept record costs (its rows add up to it, costs.py), with the Spark
    stage that ran it."""
    return _over_costs(
        run,
        "SELECT stage, partition, sum(total_latency_ms) AS traced_ms FROM t "
        "GROUP BY stage, partition",
        ["stage", "partition", "spark_stage", "traced_ms"],
    )


def _over_costs(run: StoredRun, sql: str, columns: list[str], **relations) -> pd.DataFrame:
    """``sql`` over each costs table of the run (as ``t``), the results together with the
    Spark stage that wrote each partition: ``columns``."""
    stages = run.meta.get("stages", {})
    found = [int(s) for s, info in stages.items() if info.get("kind") == "costs"]
    if not found:
        return pd.DataFrame(columns=columns)
    written = run.store.partitions(run.run)[["stage", "partition", "spark_stage"]]
    frames = [run.query(sql, t=run.table(costs), **relations) for costs in found]
    joined = pd.concat(frames, ignore_index=True).merge(written, on=["stage", "partition"])
    return joined[columns]


def heavy_keys(run: StoredRun, stage: int, partition: int, top: int = 5) -> pd.DataFrame:
    """The keys one task's partition combined the most records of (a combine stage's rows):
    ``key, records, share, latency_ms``, most records first; empty for other stages and for
    runs stored before combine rows kept their keys."""
    table = run.table(stage)
    if "records" not in table.schema.names:
        return pd.DataFrame(columns=["key", "records", "share", "latency_ms"])
    return run.query(
        f"""
        SELECT key, records, records / SUM(records) OVER () AS share, total_latency_ms AS latency_ms
        FROM t WHERE partition = {int(partition)} AND records IS NOT NULL
        ORDER BY records DESC, key LIMIT {int(top)}
    """,
        t=table,
    )


@dataclass
class Trace:
    """The backward trace of one output: every source record it derives from."""

    output: dict
    sources: pd.DataFrame
    count: int


def backward_trace(run: StoredRun, output: str, show: int = 20) -> Trace:
    """Titian-style: follow ``in_ids`` from the output matching ``output`` (its key, its
    record text or its out_id) back to the sources. Needs a run traced with full lineage."""
    if run.meta.get("lineage") != "full":
        raise IsolationError(
            f"run {run.run} was traced with {run.meta.get('lineage')} lineage: "
            "backward tracing needs --lineage full"
        )
    final = run.table(run.final_stage)
    match = run.query(
        """
        SELECT out_id, key, record, total_latency_ms, in_ids FROM final
        WHERE key = $1 OR record = $1 OR CAST(out_id AS VARCHAR) = $1
        ORDER BY total_latency_ms DESC LIMIT 1
    """,
        [output],
        final=final,
    )
    if match.empty:
        raise IsolationError(f"no output of run {run.run} has key, record or id {output!r}")
    row = match.iloc[0]
    frontier = {int(i) for i in row.in_ids}
    found: set[int] = set()
    while frontier:
        by_table: dict[int, list[int]] = {}
        for record_id in frontier:
            by_table.setdefault(split_id(record_id)[0], []).append(record_id)
        frontier = set()
        for table, ids in by_table.items():
            kind = run.meta["stages"].get(str(table), {}).get("kind")
            if kind in (None, "source"):
                found.update(ids)
                continue
            inputs = run.query(
                "SELECT DISTINCT UNNEST(in_ids) AS id FROM t WHERE out_id IN (SELECT id FROM ids)",
                t=run.tables[table],
                ids=pa.table({"id": pa.array(ids, pa.int64())}),
            )
            frontier.update(int(i) for i in inputs.id)
    ordered = pd.DataFrame({"source": sorted(found)[:show]})
    return Trace(
        output={
            "out_id": int(row.out_id),
            "key": row.key,
            "record": row.record,
            "latency_ms": float(row.total_latency_ms),
        },
        sources=run._with_sources(ordered, "source"),
        count=len(found),
    )
