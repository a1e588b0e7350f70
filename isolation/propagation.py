"""Post-mortem latency propagation and culprit ranking (docs/design.md, "Record-level isolation"; PerfDebug section 4.3).

``propagate`` joins the lineage tables forward from the source, one table at a time, in
DuckDB: for each output r with inputs i (an input not produced by an earlier table is a
source: total 0, its own most impactful source)

    path_i   = total(i) + in_latency_i
    total(r) = max_i path_i + shuffle_latency(r)
    MIS(r)   = MIS of the argmax input (ties: the smaller source id)
    rem(r)   = max over inputs whose MIS differs from MIS(r) of path_i + shuffle_latency(r),
               or 0 when there are none.

``rank_culprits`` groups the final outputs by MIS: impact = max total - max remediated.
Both are set operations, so 10^7 rows take seconds, not a Python loop per row.
"""

from __future__ import annotations

import duckdb
import pandas as pd

from .errors import IsolationError

PROPAGATED = ["total_latency_ms", "most_impactful_source", "remediated_latency_ms"]
NEEDED = ["out_id", "in_ids", "in_latency_ms", "shuffle_latency_ms"]

_STEP = """
WITH edges AS (
    SELECT out_id, UNNEST(in_ids) AS in_id, UNNEST(in_latency_ms) AS latency FROM current
), paths AS (
    SELECT e.out_id, COALESCE(k.total, 0) + COALESCE(e.latency, 0) AS path,
           COALESCE(k.source, e.in_id) AS source
    FROM edges e LEFT JOIN known k ON k.out_id = e.in_id
), top AS (
    SELECT out_id, max(path) AS top FROM paths GROUP BY out_id
), leader AS (
    SELECT p.out_id, min(p.source) AS source
    FROM paths p JOIN top t ON p.out_id = t.out_id AND p.path = t.top GROUP BY p.out_id
), others AS (
    SELECT p.out_id, max(p.path) AS rest
    FROM paths p JOIN leader l ON p.out_id = l.out_id AND p.source <> l.source GROUP BY p.out_id
)
SELECT c.out_id,
       COALESCE(t.top, 0) + c.shuffle_latency_ms AS total_latency_ms,
       COALESCE(l.source, c.out_id) AS most_impactful_source,
       COALESCE(o.rest + c.shuffle_latency_ms, 0) AS remediated_latency_ms
FROM current c
LEFT JOIN top t ON t.out_id = c.out_id
LEFT JOIN leader l ON l.out_id = c.out_id
LEFT JOIN others o ON o.out_id = c.out_id
"""


def propagate(tables: list[pd.DataFrame]) -> list[pd.DataFrame]:
    """The tables (source table first, each a DataFrame with ``out_id``, ``in_ids``,
    ``in_latency_ms``, ``shuffle_latency_ms``) with the three propagated columns (re)computed."""
    con = duckdb.connect()
    result = []
    for number, table in enumerate(tables):
        missing = [c for c in NEEDED if c not in table.columns]
        if missing:
            raise IsolationError(f"lineage table {number} lacks column(s) {', '.join(missing)}")
        if table["in_ids"].isna().any():
            raise IsolationError(
                f"lineage table {number} has no input ids: propagate needs a run traced with "
                "--lineage full"
            )
        current = table[NEEDED]
        con.register("current", current)
        if number == 0:
            con.execute(
                "CREATE TEMP TABLE known AS SELECT out_id, 0.0::DOUBLE AS total, "
                "out_id AS source FROM current LIMIT 0"
            )
        step = con.execute(_STEP).df()
        con.execute(
            "INSERT INTO known SELECT out_id, total_latency_ms, most_impactful_source FROM step"
        )
        con.unregister("current")
        out = table.drop(columns=[c for c in PROPAGATED if c in table.columns])
        result.append(out.merge(step, on="out_id", how="left"))
    con.close()
    return result


def rank_culprits(final_table, top: int | None = None) -> pd.DataFrame:
    """``source, impact_ms, max_total_ms, max_remediated_ms`` per most impactful source of
    the final outputs, by impact (then source id). Takes a DataFrame or anything DuckDB
    scans (Arrow table or dataset)."""
    con = duckdb.connect()
    con.register("final", final_table)
    limit = f"LIMIT {int(top)}" if top else ""
    ranked = con.execute(f"""
        SELECT most_impactful_source AS source,
               max(total_latency_ms) - max(remediated_latency_ms) AS impact_ms,
               max(total_latency_ms) AS max_total_ms,
               max(remediated_latency_ms) AS max_remediated_ms
        FROM final GROUP BY most_impactful_source
        ORDER BY impact_ms DESC, source {limit}
    """).df()
    con.close()
    return ranked
