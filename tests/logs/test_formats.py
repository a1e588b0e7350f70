"""The registry of log formats (logs.formats) is the one place a format is known: a format
registered there is read by ``perfx logs`` (every command that loads logs) and by ``perfx
ingest`` alike, and a format not registered by neither."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from perfx.cli import cli, main
from perfx.logs.formats import FORMATS, LogFormat, find_logs, registered
from perfx.logs.model import Log
from perfx.logs.registry import FeatureRegistry
from perfx.logs.tabular import column_specs
from tests.data_files import fixture_log

HEADER = b"TOYLOG 1\n"
ROWS = [("t1", 0, 120.0, "hostA"), ("t2", 0, 480.0, "hostB"), ("t3", 1, 95.5, "hostA")]


def _is_toy(path: Path) -> bool:
    with open(path, "rb") as file:
        return file.read(len(HEADER)) == HEADER


def _read_toy(logs, options) -> Log:
    frames = []
    for found in logs:
        text = found.root.read_bytes()[len(HEADER) :].decode()
        frame = pd.read_csv(io.StringIO(text), names=["id", "stage_id", "duration", "host"])
        frames.append(frame.assign(id=frame["id"].astype(str)))
    tasks = pd.concat(frames, ignore_index=True)
    registry = FeatureRegistry()
    registry.register_all("task", column_specs(tasks, source="toy"))
    return Log(tasks=tasks, registry=registry, sources=[str(f.root) for f in logs])


TOY = LogFormat("toy", "toy log", ("task",), recognise=_is_toy, read=_read_toy)


@pytest.fixture
def toy_log(tmp_path) -> Path:
    path = tmp_path / "logs" / "run.toy"
    path.parent.mkdir()
    lines = "".join(f"{t},{s},{d},{h}\n" for t, s, d, h in ROWS)
    path.write_bytes(HEADER + lines.encode())
    return path


def _tasks(runner: CliRunner, source: Path) -> pd.DataFrame:
    result = runner.invoke(cli, ["logs", str(source), "--entity", "task", "--format", "csv"])
    assert result.exit_code == 0, result.output
    return pd.read_csv(io.StringIO(result.output)).sort_values("id", ignore_index=True)


def _expected() -> pd.DataFrame:
    return pd.DataFrame(ROWS, columns=["id", "stage_id", "duration", "host"])


def test_a_registered_format_is_read_by_logs_and_by_ingest(toy_log, tmp_path):
    runner = CliRunner()
    with registered(TOY):
        read = _tasks(runner, toy_log.parent)
        pd.testing.assert_frame_equal(read[["id", "stage_id", "duration", "host"]], _expected())

        store = tmp_path / "store"
        ingested = runner.invoke(
            cli, ["ingest", str(toy_log.parent), "--store", str(store), "--format", "json"]
        )
        assert ingested.exit_code == 0, ingested.output
        report = json.loads(ingested.output)
        assert (report["read"], report["tasks"], report["failed"]) == (1, len(ROWS), [])
        from_store = _tasks(runner, store)
        pd.testing.assert_frame_equal(
            from_store[["id", "stage_id", "duration", "host"]], _expected()
        )
    assert TOY not in FORMATS


def test_an_unregistered_format_is_read_by_neither(toy_log, tmp_path, capsys):
    for args in (["logs", str(toy_log)], ["ingest", str(toy_log), "--store", str(tmp_path / "s")]):
        with pytest.raises(SystemExit) as exit_info:
            main(args)
        assert exit_info.value.code == 1
        err = capsys.readouterr().err
        assert "perfx: " in err and "no Spark event log" in err and "Traceback" not in err, err


def test_each_format_finds_its_own_test_log():
    """The registry's formats recognise the repository's real logs, each only its own."""
    cases = {
        "spark": fixture_log("spark-events"),
        "jhist": fixture_log("hadoop-jhist"),
        "ousterhout": fixture_log("ousterhout-traces"),
    }
    for name, path in cases.items():
        found = find_logs(path, [])
        assert found and {f.format for f in found} == {name}, (name, found[:3])


def test_each_format_recognises_its_own_files_only():
    files = {
        "spark": fixture_log("spark-events/local-1426533911241"),
        "jhist": fixture_log("hadoop-jhist/job_2.4.0-FAILED.jhist"),
        "ousterhout": fixture_log("ousterhout-traces/04_15_14_mem/1a_mem_job_log"),
    }
    for name, file in files.items():
        assert [f.name for f in FORMATS if f.recognise(file)] == [name], file


def test_a_job_log_beside_spark_logs_is_read_with_them(tmp_path):
    """An Ousterhout job log (a whole-folder format) in a folder that also holds Spark event
    logs was passed over as "not a Spark event log": each of its files is a log of its own."""
    import shutil

    from perfx.logs.loader import load_log

    spark = fixture_log("spark-events/local-1426533911241")
    job_logs = [
        fixture_log("ousterhout-traces/test_files/test_job_log"),
        fixture_log("ousterhout-traces/04_15_14_mem/1a_mem_job_log"),
    ]
    shutil.copy(spark, tmp_path / spark.name)
    shutil.copy(job_logs[0], tmp_path / job_logs[0].name)
    (tmp_path / "more").mkdir()
    shutil.copy(job_logs[1], tmp_path / "more" / job_logs[1].name)
    skipped: list = []
    assert sorted((f.format, f.root.name) for f in find_logs(tmp_path, skipped)) == [
        ("ousterhout", "1a_mem_job_log"),
        ("ousterhout", "test_job_log"),
        ("spark", spark.name),
    ]
    assert skipped == []
    together = load_log(tmp_path, cache=False)
    alone = [load_log(p, cache=False) for p in (spark, *job_logs)]
    assert len(together.tasks) == sum(len(log.tasks) for log in alone)
    assert len(together.apps) == sum(len(log.apps) for log in alone)


@pytest.mark.parametrize("shape", ["indented", "array"])
def test_events_spread_over_lines_are_told_with_how_to_fix_them(tmp_path, shape, capsys):
    """Spark events pretty-printed or in one JSON array (a log exported for people to read)
    were 'no Spark event log in this file': the message says what the file is and how to
    rewrite it one event per line."""
    log = fixture_log("spark-events/local-1426533911241")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    text = (
        "\n".join(json.dumps(e, indent=4) for e in events)
        if shape == "indented"
        else json.dumps(events, indent=2)
    )
    (tmp_path / "log.json").write_text(text)
    with pytest.raises(SystemExit) as exit_info:
        main(["logs", str(tmp_path / "log.json")])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "Spark events, but not one per line (indented JSON or a JSON array)" in err
    assert "jq -c 'if type == \"array\" then .[] else . end'" in err
