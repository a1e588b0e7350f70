"""The oracle on random pipelines (tests/isolation/pipelines.py): plain PySpark and the traced
run agree on 1 to 6 operators drawn from the traced API, in either lineage mode."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.isolation.oracle import assert_same_outputs
from tests.isolation.pipelines import build, pipelines

pytestmark = pytest.mark.spark


@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drawn=pipelines(), lineage=st.sampled_from(["impact", "full"]))
def test_random_pipeline_traced_equals_plain(spark, tmp_path, drawn, lineage):
    from perfx.isolation.stores import open_store

    store = open_store(str(tmp_path / "runs"))
    assert_same_outputs(spark, store, build(*drawn), {}, lineages=(lineage,))
