"""``perfx verify``: the input copy without the culprit records, and the remediation run
end to end (its timings are measured, not asserted: speed belongs in benchmarks)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from perfx.cli import cli
from perfx.isolation.errors import IsolationError
from perfx.isolation.programs import movie_ratings
from perfx.isolation.runner import run_traced
from perfx.verify import without_records
from tests.data_files import fixture_log

RATINGS = fixture_log("chain/ratings")


def test_the_copy_drops_exactly_the_lines_at_the_culprit_offsets(tmp_path):
    source = tmp_path / "in"
    source.mkdir()
    (source / "a.txt").write_bytes(b"one\ntwo\nthree\n")
    (source / "b.txt").write_bytes(b"four\nfive\n")
    copy = without_records(
        str(source), [f"{source / 'a.txt'}@4", f"{source / 'b.txt'}@0"], tmp_path / "out"
    )
    assert (copy / "a.txt").read_bytes() == b"one\nthree\n" and (
        copy / "b.txt"
    ).read_bytes() == b"five\n"
    assert (source / "a.txt").read_bytes() == b"one\ntwo\nthree\n"  # the input is never touched
    with pytest.raises(IsolationError, match="outside the input"):
        without_records(str(source), [f"{tmp_path / 'elsewhere.txt'}@0"], tmp_path / "out2")
    with pytest.raises(IsolationError, match="only text records"):
        without_records(str(source), ["parallelize[3]"], tmp_path / "out3")


@pytest.mark.spark
def test_verify_reruns_the_program_without_the_top_culprit(spark, tmp_path):
    store = str(tmp_path / "runs")
    run = run_traced(movie_ratings.__file__, str(RATINGS), spark=spark, store=store).run_id
    result = CliRunner().invoke(
        cli, ["verify", run, "--store", store, "--repeats", "1", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert len(data["removed"]) == 1 and "day-09.txt@" in data["removed"][0]
    assert data["job_ms"]["with"] > 0 and data["job_ms"]["without"] > 0
    assert data["predicted_ms"]["with"] > data["predicted_ms"]["without"]
    assert data["predicted_ms"]["what"].startswith("the traced run's tasks predicted Spark stage")


@pytest.mark.parametrize("command", ["isolate", "why"])
def test_a_missing_input_is_refused_before_spark_starts(command, tmp_path, capsys):
    from perfx.cli import main

    with pytest.raises(SystemExit) as done:
        main(
            [
                command,
                movie_ratings.__file__,
                "--input",
                str(tmp_path / "missing"),
                "--store",
                str(tmp_path / "runs"),
            ]
        )
    out, err = capsys.readouterr()
    assert done.value.code == 1
    assert (
        err == f"perfx: no input at {tmp_path / 'missing'}: no file or folder matches it\n"
        and out == ""
    )


@pytest.mark.spark
def test_verify_keeps_sparks_own_output_off_the_terminal(spark, tmp_path):
    """A JVM started by ``perfx verify`` (a fresh process, as a user runs it) writes its
    log4j lines and notices to a file: stderr holds our one progress line and nothing else."""
    import subprocess
    import sys

    store = str(tmp_path / "runs")
    run = run_traced(movie_ratings.__file__, str(RATINGS), spark=spark, store=store).run_id
    done = subprocess.run(
        [sys.executable, "-m", "perfx.cli", "verify", run, "--store", store, "--repeats", "1"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"Re-running run {run}'s program plain on local[2] ..."
    ], done.stderr
    assert "measured" in done.stdout or done.stdout.strip(), done.stdout
