"""The REST source against a real History Server: every application of a folder of shipped
event logs (Spark 1.4 to 4.1; failed tasks and jobs, a 12k-task app that takes several pages)
read over HTTP gives the tables its event log gives, column by column, and the executors
(``/allexecutors``) its events give.

Spark's REST API carries dates to the millisecond, as the log does, and every metric whole,
so no column needs a tolerance beyond the order of a float sum; the columns it does not carry are missing (logs.rest.fields.REST_NOTES)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from perfx.logs.loader import load_log
from perfx.logs.rest.client import RestAccess, RestError
from perfx.logs.rest.reader import list_apps, read_rest
from tests.data_files import fixture_log, public_log
from tests.rest.history_server import history_server

pytestmark = pytest.mark.spark

LOGS = [
    fixture_log("spark-events/local-1430917381534"),  # Spark 1.4
    fixture_log("spark-events/app-20161115172038-0000"),  # 2.1, failed tasks
    fixture_log("spark-events/application_1516285256255_0012"),  # 2.3, failed tasks
    fixture_log("spark-events/local-1642039451826"),  # 3.3, SQL with skipped stages
    fixture_log("spark-events/application_1628109047826_1317105"),  # 3.1, executors removed
    public_log("Netflix-Skunkworks__sparklens/local-fresh"),  # 3.3.4
    public_log("kubeflow__mcp-apache-spark-history-server/local-1776286786993.zstd"),
    public_log("NVIDIA__spark-rapids-tools/gpu_oom_eventlog.zstd"),  # 12k tasks
    # two attempts of one YARN application (4.1): REST reads the latest, under its attempt id
    public_log("kubeflow__mcp-apache-spark-history-server/application_1713000000000_0001_1.zstd"),
    public_log("kubeflow__mcp-apache-spark-history-server/application_1713000000000_0001_2.zstd"),
]
"""Logs the History Server of the installed pyspark replays (zstd by its file extension)."""


@pytest.fixture(scope="module")
def latest_attempts():
    """app id -> the event-log Log of its latest attempt."""
    by_id: dict = {}
    for path in LOGS:
        log = load_log(path)
        app = log.apps.iloc[0]
        if (
            app["app_id"] not in by_id
            or app["start_time"] > by_id[app["app_id"]].apps["start_time"].iloc[0]
        ):
            by_id[app["app_id"]] = log
    return by_id


@pytest.fixture(scope="module")
def server(tmp_path_factory, latest_attempts):
    folder = tmp_path_factory.mktemp("history")
    with history_server(LOGS, folder, len(latest_attempts)) as url:
        yield url


@pytest.fixture(scope="module")
def pairs(server, latest_attempts):
    """(event-log Log, REST Log) of every application the server lists."""
    by_id = latest_attempts
    apps = list_apps(server)
    assert sorted(a["id"] for a in apps) == sorted(by_id)
    return {a["id"]: (by_id[a["id"]], read_rest(server, app=a["id"])) for a in apps}


def _same(left: pd.Series, right: pd.Series) -> np.ndarray:
    """Element-wise equality, missing equal to missing; floats to 1e-12 relative: the REST
    tasks come in id order, the log's in end order, and a stage's sums add the same values
    in another order."""
    both_missing = left.isna().to_numpy() & right.isna().to_numpy()
    if pd.api.types.is_numeric_dtype(left) and pd.api.types.is_numeric_dtype(right):
        a, b = left.astype(float).to_numpy(), right.astype(float).to_numpy()
        equal = np.isclose(a, b, rtol=1e-12, atol=0)
    else:
        equal = left.astype(object).to_numpy() == right.astype(object).to_numpy()
    return equal | both_missing


NOT_CARRIED = {
    "app": ("source",),
    "stage": ("parent_ids",),
    "job": ("plan_engine", "plan_input"),
}
"""Columns compared elsewhere: where the app was read from; what REST does not carry (the
REST reader does not read a SQL execution's plan: its jobs have none, as RDD jobs)."""


@pytest.mark.parametrize("entity", ["task", "stage", "job", "app"])
def test_rest_tables_equal_the_event_log_tables(pairs, entity):
    for app_id, (from_log, from_rest) in pairs.items():
        left = from_log.table(entity).sort_values("id").reset_index(drop=True)
        right = from_rest.table(entity).sort_values("id").reset_index(drop=True)
        assert list(left.columns) == list(right.columns), app_id
        assert left["id"].tolist() == right["id"].tolist(), app_id
        keep = np.ones(len(left), dtype=bool)
        for column in left.columns:
            if column in NOT_CARRIED.get(entity, ()):
                continue
            rows = keep
            if entity == "task" and column == "end_reason":
                rows = left["status"].to_numpy() != "FAILED"  # carried for the others
            if entity == "task" and column == "failure":  # an exception's words, as the log's
                rows = left["end_reason"].isin(["Success", "ExceptionFailure"]).to_numpy()
            if entity == "job" and column == "failure_reason":
                rows = left["status"].to_numpy() != "FAILED"
            same = _same(left[column], right[column])[rows]
            assert same.all(), (
                f"{app_id} {entity}.{column}: "
                f"{left[column][rows][~same].head(3).tolist()} != "
                f"{right[column][rows][~same].head(3).tolist()}"
            )


def test_the_latest_attempt_is_read(pairs):
    from_log, from_rest = pairs["application_1713000000000_0001"]
    assert (
        from_rest.apps["app_attempt_id"].tolist()
        == ["2"]
        == from_log.apps["app_attempt_id"].tolist()
    )
    assert from_rest.apps["source"].iloc[0].endswith("/applications/application_1713000000000_0001")


def test_features_say_what_rest_does_not_carry(server):
    from click.testing import CliRunner

    from perfx.cli import cli

    args = ["features", "--log", server, "--app", "local-1776286786993", "--entity", "stage"]
    result = CliRunner().invoke(cli, [*args, "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    features = {f["name"]: f for f in json.loads(result.output)["features"]}
    assert "REST API" in features["parent_ids"]["description"]


def test_what_rest_does_not_carry_is_missing_and_said(pairs):
    _, rest = pairs["local-1776286786993"]  # failed tasks and a failed job
    failed = rest.tasks["status"] == "FAILED"
    assert failed.any() and rest.tasks.loc[failed, "end_reason"].isna().all()
    assert rest.stages["parent_ids"].isna().all()
    assert rest.jobs.loc[rest.jobs["status"] == "FAILED", "failure_reason"].isna().all()
    described = {s.name: s.description for s in rest.registry.specs("stage")}
    assert "REST API" in described["parent_ids"]


def test_the_latest_app_by_default_and_one_by_name(server, pairs):
    latest = max(list_apps(server), key=lambda a: a["start_time"])
    assert read_rest(server).apps["app_id"].iloc[0] == latest["id"]
    by_name = read_rest(server, app="Spark shell")  # several share it: the latest of them
    assert by_name.apps["name"].iloc[0] == "Spark shell"
    with pytest.raises(RestError, match="no application with id or name 'nope'"):
        read_rest(server, app="nope")


def test_a_refused_connection_is_one_line_naming_the_address():
    from tests.rest.history_server import free_port

    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(RestError) as caught:
        read_rest(url, access=RestAccess(retries=0))
    assert str(caught.value) == f"{url}: connection refused (is the server running?)"


def test_every_command_reads_the_rest_api_with_app_and_header(server, capsys):
    """``--log http://...`` with ``--app`` and ``--header``: the same answer as the log's.

    The REST API lists tasks by id, the log in the order they ended; the explanation's pair
    sample and its pick of a reference among equals follow the rows' order, so the question
    names its reference and samples every pair (404 tasks: fewer than 200,000 pairs)."""
    from perfx.cli import main

    local = str(public_log("Netflix-Skunkworks__sparklens/local-fresh"))
    query = "WHY TASK 1 SLOWER THAN TASK 18"
    answers = []
    for source in (
        [local],
        [server, "--app", "local-1714515292260", "--header", "X-Proxy-Token: abc"],
    ):
        with pytest.raises(SystemExit) as done:
            main(["explain", "--log", *source, "--format", "json", "--sample", "200000", query])
        assert done.value.code == 0
        answers.append(json.loads(capsys.readouterr().out))
    assert answers[0] == answers[1]


def test_a_refused_connection_on_the_command_line_is_one_line(capsys):
    from perfx.cli import main
    from tests.rest.history_server import free_port

    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(SystemExit) as done:
        main(["stragglers", "--log", url])
    assert done.value.code == 1
    assert capsys.readouterr().err == f"perfx: {url}: connection refused (is the server running?)\n"


def test_a_malformed_header_is_a_usage_error(capsys):
    from perfx.cli import main

    with pytest.raises(SystemExit) as done:
        main(["whatif", "--log", "http://127.0.0.1:1", "--header", "no colon", "--without", "gc"])
    assert done.value.code == 2
    assert "NAME: VALUE" in capsys.readouterr().err


def test_rest_executors_equal_the_event_log_executors(pairs):
    """``/allexecutors`` against the log's ExecutorAdded, BlockManagerAdded and
    ExecutorRemoved events: every executor (the driver's block manager too), its host and
    port, cores, storage memory, add and remove times and reason."""
    removed = 0
    for app_id, (from_log, from_rest) in pairs.items():
        left = from_log.executors.sort_values("id").reset_index(drop=True)
        right = from_rest.executors.sort_values("id").reset_index(drop=True)
        assert len(left) and list(left.columns) == list(right.columns), app_id
        assert left["id"].tolist() == right["id"].tolist(), app_id
        for column in left.columns:
            same = _same(left[column], right[column])
            assert same.all(), (
                f"{app_id} executors.{column}: "
                f"{left[column][~same].head(3).tolist()} != {right[column][~same].head(3).tolist()}"
            )
        removed += int(left["remove_time"].notna().sum())
    assert removed  # the YARN app's removed executors were compared too
