"""A lineage store that writes every run to several stores at once and reads from the first:
one traced execution stored alike in Parquet and in Ignite, so that the two stores' answers
can be compared on the same lineage (latencies differ from one execution to the next)."""

from __future__ import annotations

from perfx.isolation.stores import LineageStore


class Tee(LineageStore):
    """Writes go to every store of ``stores``, reads to the first (its URL is the first's)."""

    def __init__(self, *stores: LineageStore):
        self.stores = stores
        self.url = stores[0].url

    def begin(self, run, meta):
        for store in self.stores:
            store.begin(run, meta)

    def write_partition(self, run, stage, partition, table, attempt=0, spark_stage=-1):
        for store in self.stores:
            store.write_partition(run, stage, partition, table, attempt, spark_stage)

    def mark_complete(self, run, meta):
        for store in self.stores:
            store.mark_complete(run, meta)

    def partitions(self, run):
        return self.stores[0].partitions(run)

    def run_meta(self, run):
        return self.stores[0].run_meta(run)

    def tables(self, run):
        return self.stores[0].tables(run)

    def runs(self):
        return self.stores[0].runs()

    def local_dir(self, run):
        return self.stores[0].local_dir(run)
