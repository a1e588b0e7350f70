"""The CLI: ``perfx isolate`` on the shared SparkSession (an active session is reused, not
stopped), then ``perfx runs`` and ``perfx culprits`` on what it stored; errors are one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfx.cli import cli, main

pytestmark = pytest.mark.spark

PROGRAM = str(Path(__file__).resolve().parents[2] / "isolation" / "programs" / "movie_ratings.py")


@pytest.fixture(scope="module")
def hot_movies(tmp_path_factory):
    from perfx.isolation.programs import movie_ratings

    path = tmp_path_factory.mktemp("cli") / "ratings.txt"
    # the hot movie's 300,000 ratings cost ~100 ms, clear of a pause in a short record's call
    # on a busy CI host (30,000 cost ~10 ms, and a 2-rating line's pause outran them once)
    movie_ratings.generate(str(path), 800, seed=5, hot_ratings=300_000)
    return str(path)


def _invoke(args):
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_isolate_runs_and_culprits(spark, tmp_path, hot_movies):
    store = str(tmp_path / "runs")
    hot = next(line for line in open(hot_movies) if line.count(",") > 20000)
    report = json.loads(
        _invoke(
            [
                "isolate",
                PROGRAM,
                "--input",
                hot_movies,
                "--store",
                store,
                "--lineage",
                "full",
                "--top",
                "3",
                "--format",
                "json",
            ]
        )
    )
    assert spark.sparkContext._jsc is not None, "the shared session was stopped"
    assert sorted(o["key"] for o in report["outputs"]) == ["1", "2", "3", "4", "5"]
    top = report["culprits"][0]
    assert hot.startswith(top["excerpt"].rstrip("…")) and top["location"].startswith(
        hot_movies + "@"
    )
    assert all(o["slowest_input"] == top["id"] for o in report["outputs"])
    said = _invoke(["isolate", PROGRAM, "--input", hot_movies, "--store", store + "-text"])
    assert said.index("Top culprit input records") < said.index("Output records")

    runs = json.loads(_invoke(["runs", "--store", store, "--format", "json"]))["runs"]
    assert [r["run"] for r in runs] == [report["run"]] and runs[0]["complete"]
    listed = CliRunner(env={"COLUMNS": "60"}).invoke(cli, ["runs", "--store", store]).output
    assert report["run"] in listed  # whole on one line at 60 columns, never wrapped mid-id

    text = _invoke(["culprits", report["run"], "--store", store, "--top", "2"])
    assert "Top culprit input records" in text and report["run"] in text
    # the answer first: the culprits before the outputs they lead
    assert text.index("Top culprit input records") < text.index("Output records")
    again = json.loads(_invoke(["culprits", report["run"], "--store", store, "--format", "json"]))
    assert again["culprits"][0]["id"] == top["id"]

    stage = next(int(s) for s, info in runs[0]["stages"].items() if info["kind"] == "combine")
    inside = json.loads(
        _invoke(
            [
                "culprits",
                report["run"],
                "--store",
                store,
                "--stage",
                str(stage),
                "--partition",
                "0",
                "--format",
                "json",
            ]
        )
    )
    assert inside["scope"] == f"stage {stage} partition 0" and inside["culprits"]

    trace = json.loads(
        _invoke(["culprits", report["run"], "--store", store, "--trace", "4", "--format", "json"])
    )
    assert trace["output"]["key"] == "4" and trace["sources"] > 100

    # what an assistant gets from perfx mcp's culprits tool is the command's JSON
    assert _assistant("culprits", {"run": report["run"], "store": store}) == again


def _assistant(tool: str, arguments: dict) -> dict:
    """One call of perfx mcp's ``tool`` through the MCP SDK's client, in process."""
    import asyncio

    from mcp import Client

    from perfx.assistant import server

    async def call():
        async with Client(server()) as client:
            return await client.call_tool(tool, arguments)

    result = asyncio.run(call())
    assert not result.is_error
    return json.loads("".join(part.text for part in result.content))


def test_errors_are_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["culprits", "no-such-run", "--store", str(tmp_path)])
    assert caught.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("perfx: no run no-such-run") and err.count("\n") == 1


def test_program_without_pipeline(tmp_path, capsys):
    program = tmp_path / "empty.py"
    program.write_text("x = 1\n")
    with pytest.raises(SystemExit) as caught:
        main(["isolate", str(program), "--input", str(program), "--store", str(tmp_path)])
    assert caught.value.code == 1
    assert "defines no pipeline(ctx, input_path)" in capsys.readouterr().err


def test_program_that_is_not_python(tmp_path, capsys):
    """A program with a suffix Python does not load (Python has no loader for it) is refused
    in one line, before a JVM starts."""
    program = tmp_path / "prog.txt"
    program.write_text("def pipeline(ctx, input_path):\n    pass\n")
    with pytest.raises(SystemExit) as caught:
        main(["isolate", str(program), "--input", str(program), "--store", str(tmp_path)])
    assert caught.value.code == 1
    err = capsys.readouterr().err
    assert err == f"perfx: {program} is not a Python program (a .py file)\n"
