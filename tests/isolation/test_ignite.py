"""The Ignite lineage store end to end, against a real Apache Ignite node: the commands a user
runs on a traced run stored in Ignite answer exactly as they do on the same execution stored
in Parquet (the oracle), and the store's failure modes: no node at the address, and a node
that stops during a run. (A reader during a write is in the conformance suite,
test_stores.py, for every store.)"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfx.cli import cli, main
from tests.conftest import ignite_node
from tests.ignite.node import free_ports
from tests.isolation.tee import Tee

pytestmark = [pytest.mark.spark, pytest.mark.ignite]

PROGRAM = str(Path(__file__).resolve().parents[2] / "isolation" / "programs" / "movie_ratings.py")


@pytest.fixture(scope="module")
def ratings(tmp_path_factory):
    from perfx.isolation.programs import movie_ratings

    folder = tmp_path_factory.mktemp("ignite-e2e") / "ratings"
    folder.mkdir()
    for day in range(4):  # a stage of four tasks, one of them reading the hot movie
        hot = 30000 if day == 2 else 0
        movie_ratings.generate(str(folder / f"day-{day}.txt"), 300, seed=day, hot_ratings=hot)
    return str(folder)


def _json(*args: str):
    result = CliRunner().invoke(cli, [*args, "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _answers(store: str, why: dict, isolated: dict, event_log: str, tmp_path: Path) -> dict:
    """What the commands answer about the two runs, read from ``store`` alone."""
    question = f"WHY TASK '{why['culprits']['task']}' SLOWER"
    queries = tmp_path / "why.pxql"
    queries.write_text(question + "\n")
    why_run, task = why["culprits"]["run"], why["culprits"]
    on_why_run = ["--log", event_log, "--run", why_run, "--store", store]
    out = tmp_path / ("report-ignite.html" if store.startswith("ignite:") else "report.html")
    runs = {r["run"]: r for r in _json("runs", "--store", store)["runs"]}
    return {
        "runs": [runs[why_run], runs[isolated["run"]]],
        "culprits": _json("culprits", isolated["run"], "--store", store, "--top", "5"),
        "partition": _json(
            *("culprits", why_run, "--store", store),
            *("--stage", str(task["traced_stage"]), "--partition", str(task["partition"])),
        ),
        "trace": _json(
            "culprits", isolated["run"], "--store", store, "--trace", isolated["outputs"][0]["key"]
        ),
        "explain": _json("explain", *on_why_run, question),
        "report": _json("report", *on_why_run, "--queries", str(queries), "--out", str(out))[
            "items"
        ],
    }


def test_a_run_through_ignite_answers_as_through_parquet(
    spark, ignite_url, ratings, tmp_path, monkeypatch
):
    """perfx why and perfx isolate store their runs in Ignite (and, through a tee, the same
    executions in Parquet); then perfx runs, culprits (all, one task's, a trace), explain
    --run and report --run give the same answers from either store, and why's and isolate's
    own answers, read back from Ignite as they ran, are Parquet's."""
    import perfx.isolation.stores as stores

    parquet = str(tmp_path / "runs")
    opened = stores.open_store

    def teed(url=None):
        return Tee(opened(url), opened(parquet)) if url == ignite_url else opened(url)

    with monkeypatch.context() as patched:
        patched.setattr(stores, "open_store", teed)
        why = _json("why", PROGRAM, "--input", ratings, "--store", ignite_url)
        isolated = _json(
            "isolate", PROGRAM, "--input", ratings, "--store", ignite_url, "--lineage", "full"
        )
    event_log = stores.open_store(parquet).run_meta(isolated["run"])["event_log"]
    through = {
        url: _answers(url, why, isolated, event_log, tmp_path) for url in (ignite_url, parquet)
    }
    assert through[ignite_url] == through[parquet]
    oracle = through[parquet]
    assert [r["complete"] for r in oracle["runs"]] == [True, True]
    # why's explanation weighs the whole log, which isolate's run has grown since; its
    # culprits are the run's own
    assert why["culprits"] == oracle["explain"]["culprits"]
    assert isolated["culprits"] == oracle["culprits"]["culprits"]
    [asked] = oracle["report"]
    assert asked["error"] is None and asked["explanation"]["culprits"] == why["culprits"]


def _free_url() -> str:
    return f"ignite://127.0.0.1:{free_ports(1)[0]}"


@pytest.mark.parametrize("command", ["isolate", "why"])
def test_no_node_at_the_address_is_one_line_before_spark_starts(
    command, ratings, monkeypatch, capsys
):
    import perfx.isolation.runner as runner

    def no_spark(*args, **kwargs):
        raise AssertionError("Spark was started for a store that cannot be reached")

    monkeypatch.setattr(runner, "spark_session", no_spark)
    url = _free_url()
    with pytest.raises(SystemExit) as caught:
        main([command, PROGRAM, "--input", ratings, "--store", url])
    assert caught.value.code == 1
    out, err = capsys.readouterr()
    address = url.removeprefix("ignite://")
    assert out == "" and re.fullmatch(rf"perfx: cannot reach Ignite at {address} .*\n", err)


@pytest.mark.parametrize("command", [["runs"], ["culprits", "some-run"]])
def test_queries_with_no_node_at_the_address_say_so_in_one_line(command, capsys):
    url = _free_url()
    with pytest.raises(SystemExit) as caught:
        main([*command, "--store", url])
    assert caught.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith(f"perfx: cannot reach Ignite at {url.removeprefix('ignite://')} ")
    assert err.count("\n") == 1


STOPPING_PROGRAM = textwrap.dedent("""
    import os, signal, socket, time
    from operator import add

    NODE_PID, NODE_PORT = {pid}, {port}

    def stop_node():
        os.kill(NODE_PID, signal.SIGKILL)
        while True:  # until the node's client port is closed
            try:
                socket.create_connection(("127.0.0.1", NODE_PORT), 1).close()
                time.sleep(0.1)
            except OSError:
                return

    def words(line):
        if line == "STOP":
            stop_node()
        return [(word, 1) for word in line.split()]

    def pipeline(ctx, input_path):
        return ctx.textFile(input_path, 2).flatMap(words).reduceByKey(add)
""")


def test_a_node_that_stops_during_a_run_fails_it_naming_stage_and_partition(
    spark, tmp_path, capsys
):
    """A persistent node dies (SIGKILL) while a task of the run computes; the run fails with
    one line naming the stage and partition whose lineage was not written and the node's
    address; the node, restarted, lists the run as incomplete and refuses to query it."""
    node = ignite_node(tmp_path / "node", persistent=True)
    try:
        program = tmp_path / "stops_the_node.py"
        program.write_text(STOPPING_PROGRAM.format(pid=node.process.pid, port=node.port))
        data = tmp_path / "words.txt"
        lines = [f"w{i % 50} x{i % 7}" for i in range(4000)]
        lines[3000] = "STOP"
        data.write_text("\n".join(lines) + "\n")
        with pytest.raises(SystemExit) as caught:
            main(["isolate", str(program), "--input", str(data), "--store", node.url])
        assert caught.value.code == 1
        status, err = capsys.readouterr().err.splitlines()  # "Starting Spark ..." and the error
        address = f"127.0.0.1:{node.port}"
        assert status.startswith("Starting Spark")
        assert re.match(
            rf"perfx: lineage of stage \d+ partition \d+ \(Spark stage \d+, attempt 0\) of run "
            rf"\S+ not written: cannot (reach|write to) Ignite at {re.escape(address)}\b",
            err,
        ), err
        assert node.process.poll() is not None
        node.kill()
        node = ignite_node(tmp_path / "node", persistent=True, ports=node.ports)
        runs = json.loads(_output(["runs", "--store", node.url, "--format", "json"]))["runs"]
        assert len(runs) == 1 and runs[0]["complete"] is False
        refused = CliRunner().invoke(cli, ["culprits", runs[0]["run"], "--store", node.url])
        assert refused.exit_code == 1 and "is incomplete" in str(refused.exception)
    finally:
        node.stop()


def _output(args: list[str]) -> str:
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_run_in_ignite_keeps_its_event_log_on_this_machine(ignite_url, tmp_path, monkeypatch):
    """The files a run keeps beside its lineage (the event log perfx why reads, spark.log)
    go under $PERFX_HOME/ignite/<host>-<port>/<run> when the lineage is in Ignite."""
    from perfx.isolation.runner import prepare_run

    monkeypatch.setenv("PERFX_HOME", str(tmp_path))
    _, run, event_dir = prepare_run(ignite_url, "r1")
    where = ignite_url.removeprefix("ignite://").replace(":", "-")
    assert (run, event_dir) == ("r1", str(tmp_path / "ignite" / where / "r1" / "events"))
