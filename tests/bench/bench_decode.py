"""Decoding a log's TaskEnds: perfx's typed msgspec decoder called once per line (the fast
path, logs.eventlog.fastend) against decoders that take a whole block in one call: msgspec's
array decoding of ``[line,line,...]`` into the same structs, Arrow's JSON reader and DuckDB's
``read_json`` with an explicit schema of the fields perfx reads.

A bulk decoder would replace the per-line path only if it were faster (issue 26): each
option runs on the same TaskEnds of a generated log, interleaved, best of REPEATS, and the
table prints each one's time as a ratio of the per-line decoder's."""

from __future__ import annotations

import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import pyarrow as pa
import pyarrow.json as pajson

from perfx.logs import spark_metrics
from perfx.logs.eventlog import fastend
from perfx.logs.eventlog.lines import TASK_END_PREFIXES
from tests.bench.bench_load import synthesise

TASKS = 30_000
REPEATS = 3
BLOCKS = (64, 1024)
"""Lines per array decode: a block of 64 lines stays in the CPU's caches, one of 1024 does not."""


def _arrow_schema() -> pa.Schema:
    """The fields fastend's structs read, as Arrow types."""
    i64 = pa.int64()
    groups: dict[str, list[pa.Field]] = {}
    top = []
    for metric in spark_metrics.TASK_METRICS:
        field = pa.field(metric.field, i64)
        (groups.setdefault(metric.group, []) if metric.group else top).append(field)
    info = [(name, i64) for name in ("Task ID", "Index", "Attempt", "Partition ID", "Launch Time")]
    info += [(name, pa.string()) for name in ("Executor ID", "Host", "Locality")]
    info += [("Speculative", pa.bool_()), ("Getting Result Time", i64), ("Finish Time", i64)]
    info += [("Failed", pa.bool_()), ("Killed", pa.bool_())]
    metrics = pa.struct(top + [pa.field(g, pa.struct(f)) for g, f in groups.items()])
    return pa.schema(
        [
            ("Stage ID", i64),
            ("Stage Attempt ID", i64),
            ("Task Type", pa.string()),
            ("Task End Reason", pa.struct([("Reason", pa.string())])),
            ("Task Info", pa.struct(info)),
            ("Task Metrics", metrics),
        ]
    )


def _duckdb_columns(schema: pa.Schema) -> dict[str, str]:
    def sql(kind: pa.DataType) -> str:
        if pa.types.is_struct(kind):
            inner = ", ".join(f'"{f.name}" {sql(f.type)}' for f in kind)
            return f"STRUCT({inner})"
        return {"int64": "BIGINT", "string": "VARCHAR", "bool": "BOOLEAN"}[str(kind)]

    return {f.name: sql(f.type) for f in schema}


def options(ends: list[bytes], file: Path) -> dict[str, Callable[[], int]]:
    """Each decoder, returning the number of TaskEnds it decoded."""
    import duckdb

    array = msgspec.json.Decoder(list[fastend._TaskEnd]).decode
    schema = _arrow_schema()
    parse = pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    data = b"\n".join(ends)
    columns = _duckdb_columns(schema)

    single = fastend._DECODE  # the fast path's decoder, without building its row

    def per_line() -> int:
        return len([single(line) for line in ends])

    def blocks(size: int) -> Callable[[], int]:
        def decode() -> int:
            decoded = []
            for i in range(0, len(ends), size):
                decoded += array(b"[" + b",".join(ends[i : i + size]) + b"]")
            return len(decoded)

        return decode

    def arrow() -> int:
        return pajson.read_json(io.BytesIO(data), parse_options=parse).num_rows

    def duck() -> int:
        relation = duckdb.read_json(
            str(file), format="newline_delimited", columns=columns, maximum_object_size=1 << 24
        )
        return relation.arrow().read_all().num_rows

    found: dict[str, Callable[[], int]] = {"msgspec, one call per line (perfx)": per_line}
    for size in BLOCKS:
        found[f"msgspec array, {size} lines a call"] = blocks(size)
    found["pyarrow.json, explicit schema"] = arrow
    found["duckdb read_json, explicit columns"] = duck
    return found


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="perfx-bench-") as tmp:
        log = Path(tmp) / "app"
        synthesise(log, 0, 0, TASKS)
        ends = [
            line for line in log.read_bytes().splitlines() if line.startswith(TASK_END_PREFIXES)
        ]
        file = Path(tmp) / "ends.json"
        file.write_bytes(b"\n".join(ends))
        decoders = options(ends, file)
        best: dict[str, float] = {}
        for _ in range(REPEATS):
            for name, decode in decoders.items():
                started = time.perf_counter()
                decoded = decode()
                seconds = time.perf_counter() - started
                assert decoded == len(ends), (name, decoded, len(ends))
                best[name] = min(best.get(name, seconds), seconds)
    import os

    base = best["msgspec, one call per line (perfx)"]
    print(f"{len(ends)} TaskEnds (Spark 3.1), best of {REPEATS}, load {os.getloadavg()[0]:.1f}")
    print(f"{'decoder':>36} | {'seconds':>7} | vs per line")
    for name, seconds in best.items():
        print(f"{name:>36} | {seconds:7.3f} | {seconds / base:.2f}x")


if __name__ == "__main__":
    main()
