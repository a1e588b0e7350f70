"""``--engine spark``: the per-source reader run as a Spark job on local[2] writes the same
store as local worker processes."""

from __future__ import annotations

import pytest

from perfx.logs.loader import load_log
from perfx.logs.store.ingest import ingest
from perfx.logs.store.manifest import Manifest
from perfx.logs.store.read import open_store
from tests.data_files import fixture_log
from tests.store.helpers import assert_same_log

EVENTS = fixture_log("spark-events")


@pytest.mark.spark
def test_spark_engine_writes_the_store_local_workers_write(spark, tmp_path):
    on_spark = ingest([str(EVENTS)], tmp_path / "spark", engine="spark", spark=spark)
    local = ingest([str(EVENTS)], tmp_path / "local", workers=2)
    assert (on_spark.read, on_spark.tasks, on_spark.failed) == (local.read, local.tasks, [])
    assert_same_log(load_log([tmp_path / "local"]), load_log([tmp_path / "spark"]))
    entries = {
        where: {
            key: (e.partition, e.tasks, e.status, e.registry, e.schemas)
            for key, e in Manifest.open(open_store(tmp_path / where).location).entries.items()
        }
        for where in ("spark", "local")
    }
    assert entries["spark"] == entries["local"]
