"""The feature store on the shared logs: a store reads back as the very Log the in-memory
reader gives, answers questions the same, re-ingests nothing unchanged, resumes an
in-progress log, keeps a failed log out, and reads a bounded part for one question."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfx.cli import cli
from perfx.explain.engine import explain
from perfx.logs.errors import NotALog
from perfx.logs.loader import load_log
from perfx.logs.store.fs import locate
from perfx.logs.store.ingest import ingest
from perfx.logs.store.manifest import DATA as STORE_DATA
from perfx.logs.store.manifest import Manifest
from perfx.logs.store.read import RECURRING_JOB, open_store, read_store
from perfx.logs.store.sources import find_sources
from perfx.logs.store.worker import Job, run
from perfx.session import open as open_session
from tests.data_files import fixture_log
from tests.store.helpers import assert_same_log

EVENTS = fixture_log("spark-events")
BIG = "app-20200706201101-0003"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """Every Spark event log of tests/data ingested: seconds, so its tests are ``slow``."""
    where = tmp_path_factory.mktemp("store") / "fleet"
    report = ingest([str(EVENTS)], where, workers=2)
    assert report.failed == []
    return where


@pytest.mark.slow
def test_a_store_reads_back_as_the_logs_it_holds(store):
    assert_same_log(load_log([EVENTS]), load_log([store]))


@pytest.mark.slow
def test_the_store_names_each_log_by_its_absolute_path(store):
    sources = set(load_log([store]).apps["source"])
    assert str(EVENTS.resolve() / BIG) in sources


def test_job_histories_read_back_alike(tmp_path):
    histories = fixture_log("hadoop-jhist")
    ingest([str(histories)], tmp_path / "s", workers=1)
    # one file at a time, a job history's counters come in another column order
    assert_same_log(load_log([histories]), load_log([tmp_path / "s"]), column_order=False)


def test_a_cut_off_job_history_is_cut_off_in_the_store_too(tmp_path):
    """A job history cut after line 30 (no end event) and a whole one, ingested: the store
    names the same cut-off file, line and last event as the log."""
    whole = fixture_log("hadoop-jhist") / "job_2.4.0-FAILED.jhist"
    sleep = next(fixture_log("hadoop-jhist").glob("*Sleep*.jhist"))
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(whole, logs / whole.name)
    cut = logs / "job_1329348432655_0001_1.jhist"
    cut.write_text("".join(sleep.read_text().splitlines(keepends=True)[:30]))
    ingest([str(logs)], tmp_path / "s", workers=1)
    last = json.loads(sleep.read_text().splitlines()[29])["type"]  # line 30's event
    read = load_log([logs]).cut_off
    assert [(c.path, c.line, c.last_event) for c in read] == [(str(cut), 30, last)]
    stored = load_log([tmp_path / "s"]).cut_off
    assert [(Path(c.path).name, c.line, c.last_event) for c in stored] == [(cut.name, 30, last)]


@pytest.mark.parametrize("complete_first", [True, False])
def test_a_duplicate_copy_counts_once_whichever_is_read_first(tmp_path, complete_first):
    """A log and a cut copy of it ingested: one source read, the cut copy a duplicate, in
    whichever order the workers finish them. Read second, the whole copy displaced the cut
    one, and both counted as read (the Spark engine's test saw 22 sources read against 21);
    the cut copy displaced kept its tables' registry and schemas, where one found to be a
    duplicate on arrival has none (the Spark engine's test saw the two manifests differ)."""
    whole = EVENTS / "local-1426533911241"
    logs = tmp_path / "logs"
    logs.mkdir()
    first, second = ("a", "b") if complete_first else ("b", "a")
    shutil.copy(whole, logs / f"{first}-whole")
    lines = whole.read_text().splitlines(keepends=True)
    (logs / f"{second}-cut").write_text("".join(lines[: len(lines) // 2]))
    report = ingest([str(logs)], tmp_path / "s", workers=1)  # in the sources' order
    assert (report.read, [Path(key).name for key, _ in report.duplicates]) == (
        1,
        [f"{second}-cut"],
    )
    assert report.tasks == len(load_log([logs / f"{first}-whole"]).tasks)
    entries = Manifest.open(open_store(tmp_path / "s").location).entries
    cut = next(e for key, e in entries.items() if Path(key).name == f"{second}-cut")
    assert (cut.partition, cut.tasks, cut.status, cut.registry, cut.schemas) == (
        "",
        0,
        "duplicate",
        "",
        {},
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "bind"),
    [
        ("WHY TASK ? SLOWER", ("app-20161115172038-0000/3",)),
        ("WHY TASK ? SLOWER THAN TASK ?", (f"{BIG}/32", f"{BIG}/17")),
        ("WHY STAGE ? SLOWER", (f"{BIG}/2/0",)),
    ],
)
def test_answers_from_a_store_equal_the_in_memory_answers(store, query, bind):
    in_memory = open_session([EVENTS], questions=[(query, bind)])
    stored = open_session([store], questions=[(query, bind)])
    assert (
        stored.explain(query, bind=bind).to_dict() == in_memory.explain(query, bind=bind).to_dict()
    )


@pytest.mark.slow
def test_reingesting_unchanged_logs_reads_none(store):
    manifest = Manifest.open(open_store(store).location)
    report = ingest([str(EVENTS)], store, workers=1)
    assert (report.read, report.unchanged) == (0, len(manifest.entries))


@pytest.mark.slow
def test_a_bounded_read_holds_the_question_stages_and_a_sample(store):
    everything = load_log([store])
    pair = [f"{BIG}/32", f"{BIG}/17"]
    stages = set(everything.tasks.loc[everything.tasks["id"].isin(pair), "stage_key"])
    stage_tasks = int(everything.tasks["stage_key"].isin(stages).sum())
    budget = stage_tasks + 60
    part = read_store(store, focus=pair, entity="task", budget=budget)
    assert set(pair) <= set(part.tasks["id"])
    assert int(part.tasks["stage_key"].isin(stages).sum()) == stage_tasks
    assert stage_tasks < len(part.tasks) <= budget < len(everything.tasks)
    # whole stages only: every stage read has all its tasks (stage keys name an app's attempt
    # only when several attempts are read, so stages are told apart by their columns here)
    stage = ["app_id", "app_attempt_id", "stage_id", "stage_attempt_id"]
    counts = part.tasks.groupby(stage).size()
    full = everything.tasks.groupby(stage).size()
    assert (counts == full[counts.index]).all()
    answer = explain(part, "WHY TASK ? SLOWER THAN TASK ?", bind=pair).to_dict()
    assert (
        answer["query"]
        == explain(everything, "WHY TASK ? SLOWER THAN TASK ?", bind=pair).to_dict()["query"]
    )


@pytest.mark.slow
def test_a_small_budget_samples_whole_applications(store):
    part = read_store(store, budget=500, seed=3)
    apps = set(part.tasks["app_key"])
    everything = load_log([store])
    assert 0 < len(part.tasks) <= 500
    assert len(part.tasks) == int(everything.tasks["app_key"].isin(apps).sum())
    assert set(part.apps["app_key"]) == apps | set(part.apps["app_key"])


@pytest.mark.slow
def test_a_job_question_compares_the_job_with_itself_in_other_runs(store):
    job = "application_1578436911597_0052/0"
    log = read_store(store, focus=[job], entity="job")
    recurring = log.jobs.set_index("id")[RECURRING_JOB]
    assert recurring[job] == "Spark shell/0"
    answer = explain(log, "WHY JOB ? SLOWER", bind=[job])
    reference = answer.to_dict()["query"]
    other = [r for r in recurring.index if r in reference and r != job]
    assert other and recurring[other[0]] == "Spark shell/0"
    assert not other[0].startswith("application_1578436911597_0052/")


def test_an_in_progress_log_resumes_from_the_bytes_read(tmp_path):
    whole = (EVENTS / BIG).read_bytes()
    live = tmp_path / "logs" / f"{BIG}.inprogress"
    live.parent.mkdir()
    cut = len(whole) // 2 + 17  # inside a line: that line is left for the next ingestion
    live.write_bytes(whole[:cut])
    store = tmp_path / "s"

    def bytes_read() -> int:
        return Manifest.open(open_store(store).location).entries[str(live)].bytes_read

    first = ingest([str(live.parent)], store, workers=1)
    assert (first.read, first.resumed) == (1, 0)
    read = bytes_read()
    assert whole[:read].endswith(b"\n") and b"\n" not in whole[read:cut]
    half = load_log([store])  # it ends at its last whole line, before its application did
    last = whole[:read].splitlines()[-1]
    assert [(c.path, c.line, c.execution) for c in half.cut_off] == [
        (str(live), whole[:read].count(b"\n"), "application")
    ]
    assert half.cut_off[0].last_event == last.split(b'"')[3].decode()
    with live.open("ab") as out:
        out.write(whole[cut:])
    second = ingest([str(live.parent)], store, workers=1)
    assert (second.read, second.resumed, second.unchanged) == (1, 1, 0)
    assert (bytes_read(), second.bytes) == (len(whole), len(whole) - read)
    assert len(half.tasks) < len(load_log([store]).tasks)
    assert_same_log(load_log([live]), load_log([store]))
    assert load_log([store]).cut_off == load_log([live]).cut_off == []  # it ended


def test_a_log_that_fails_is_reported_and_leaves_nothing(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in (BIG, "local-1426533911241"):
        shutil.copy(EVENTS / name, logs / name)
    sources = find_sources([str(logs)]).sources
    (logs / BIG).unlink()  # gone between listing and reading, as a rotated log
    where = locate(tmp_path / "s")
    failed = run(Job(next(s for s in sources if s.key.endswith(BIG)), where))
    assert failed.status == "failed" and BIG in failed.reason and failed.temporary == ""
    data = tmp_path / "s" / STORE_DATA
    assert not data.exists() or not any(p.name.startswith("_tmp") for p in data.iterdir())


def test_ingest_cli_reports_a_failed_log_and_exits_1(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(EVENTS / "local-1426533911241", logs / "local-1426533911241")
    result = CliRunner().invoke(
        cli, ["ingest", str(logs), "--store", str(tmp_path / "s"), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert (payload["read"], payload["tasks"]) == (1, 8)


@pytest.mark.slow
def test_stragglers_over_a_date_range_equal_those_of_its_logs(store):
    two = ["app-20161115172038-0000", "app-20161116163331-0000"]  # started in November 2016
    runner = CliRunner()
    fleet = runner.invoke(
        cli,
        [
            "stragglers",
            "--store",
            str(store),
            "--since",
            "2016-11-01",
            "--until",
            "2016-12-01",
            "--format",
            "json",
        ],
    )
    assert fleet.exit_code == 0, fleet.output
    logs = runner.invoke(
        cli,
        ["stragglers", *[a for n in two for a in ("--log", str(EVENTS / n))], "--format", "json"],
    )
    by_logs = json.loads(logs.output)
    by_store = json.loads(fleet.output)
    for task in by_logs["straggler_tasks"]:  # a store's tasks are no Log to ask WHY of
        task["cause"] = None
    named = ("text", "top_causes", "known")  # the summary's words for causes WHY names
    for data in (by_logs, by_store):
        data["summary"] = {k: v for k, v in data["summary"].items() if k not in named}
    assert by_store == by_logs


def test_questions_focus_a_store_read_on_their_executions():
    from perfx.session import _focus_of

    tasks = [("WHY TASK ? SLOWER", ["a/3"]), ("WHY TASK 'a/5' SLOWER THAN TASK 'a/7'", [])]
    assert _focus_of(tasks) == ("task", ("a/3", "a/5", "a/7"))
    # questions about two entities, or none that parses, read the store unfocused
    assert _focus_of([*tasks, ("WHY JOB ? SLOWER", ["a/1"])]) == (None, ())
    assert _focus_of([("WHY TASK", [])]) == (None, ())
    assert _focus_of([]) == (None, ())


def test_a_folder_of_logs_with_a_manifest_of_its_own_is_read_as_logs(tmp_path):
    """A folder of logs may hold a ``manifest.json`` that is no store's (the public corpus
    lists where each log came from in one): its logs are read, where the folder was refused
    as an unreadable store. A store's own manifest, damaged, is still said to be one."""
    log = fixture_log("spark-events/local-1430917381534")
    shutil.copy(log, tmp_path / log.name)
    for foreign in ("[]", '{"sources": []}', "not JSON"):
        (tmp_path / "manifest.json").write_text(foreign)
        assert len(load_log(tmp_path, cache=False).tasks) == len(load_log(log, cache=False).tasks)
    damaged = tmp_path / "store"
    (damaged / STORE_DATA).mkdir(parents=True)  # a store's partitions beside its manifest
    (damaged / "manifest.json").write_text('{"sources": []}')
    with pytest.raises(NotALog, match=r"its manifest\.json is not a perfx store's"):
        load_log(damaged)
