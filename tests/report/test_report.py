"""``perfx report`` on real logs, checked the way a reader gets it: rendered in headless
Chromium (no console error, no request beyond the file itself, every section there, the
timeline drawn), with a screenshot kept under tests/artifacts/ to look at. The Movie Ratings
reports trace the chain fixture's input in the tests' session, as tests/chain does."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfx.cli import cli
from tests.data_files import REPO, fixture_log, public_log
from tests.report.browser import Browser, chromium

ARTIFACTS = REPO / "tests" / "artifacts"
CHAIN = fixture_log("chain")
SECTIONS = ["overview", "stages", "timeline", "questions"]
MARKUP = '<script>alert(1)</script>"><img src=x onerror=alert(2)>[bold red]rich[/bold red]'
"""Text that would be markup in HTML or in rich, planted in a log and in an input record."""


@pytest.fixture(scope="module")
def browser():
    binary = chromium()
    if binary is None:
        pytest.skip(
            "chromium is not installed (./dev test installs it when run as root; "
            "else: apt-get install chromium)"
        )
    with Browser(binary) as running:
        yield running


def _report(out: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["report", *args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "report written to" in result.output
    return out.read_text()


def _check_page(browser, path: Path, shot: str):
    """Open the page and check what every report must hold; returns the page."""
    page = browser.open(path)
    assert page.errors == []
    assert page.requests == [page.url]  # itself, nothing else: styles and plots are inline
    assert page.evaluate("[...document.querySelectorAll('body > section')].map(s => s.id)") == (
        SECTIONS
    )
    links = page.evaluate("[...document.querySelectorAll('nav a')].map(a => a.hash)")
    assert links == [f"#{s}" for s in SECTIONS]
    summaries = page.evaluate(
        "[...document.querySelectorAll('section > p.summary')].map(p => p.textContent)"
    )
    assert len(summaries) == 4 and all(summaries)
    # the timeline is drawn: an SVG whose bars are paths, laid out at a real size
    drawn = page.evaluate(
        "(() => { const svg = document.querySelector('#timeline figure svg');"
        " const box = svg.getBoundingClientRect();"
        " return [svg.querySelectorAll('path').length, box.width, box.height]; })()"
    )
    assert drawn[0] > 20 and drawn[1] > 400 and drawn[2] > 100, drawn
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(ARTIFACTS / shot)
    return page


@pytest.mark.slow
def test_report_of_a_spark_shell_log(browser, tmp_path):
    log = fixture_log("spark-events/local-1430917381534")
    html = _report(tmp_path / "report.html", "--log", str(log))
    page = _check_page(browser, tmp_path / "report.html", "report-local-1430917381534.png")
    text = page.evaluate("document.body.innerText")
    for expected in (
        "Spark shell",
        "1.4.0-SNAPSHOT",
        "Where the time went",
        "without stragglers",
        "map at <console>:26",
        "first task",
        "WHY TASK 'local-1430917381534/",
    ):
        assert expected in text, expected
    # one task-time distribution per stage (2), a gap chart and a figures chart per answer
    assert page.evaluate("document.querySelectorAll('#stages figure svg').length") == 2
    answers = page.evaluate("document.querySelectorAll('#questions article').length")
    # one question per cause: the 27 stragglers of stage 0 and its slowest task have 4
    causes = page.evaluate(
        "[...document.querySelectorAll('#questions article p.note .cause')]"
        ".map(c => c.dataset.cause)"
    )
    assert answers == len(causes) == len(set(causes)) == 4 and html.count("gap: ") == answers


@pytest.fixture(scope="module")
def traced_ratings(spark, tmp_path_factory):
    """The chain fixture's input traced in the tests' session: (store, run id)."""
    from perfx.isolation.programs import movie_ratings
    from perfx.isolation.runner import run_traced

    store = str(tmp_path_factory.mktemp("runs"))
    return store, run_traced(
        movie_ratings.__file__, str(CHAIN / "ratings"), spark=spark, store=store
    ).run_id


@pytest.mark.spark
def test_movie_ratings_report_with_a_traced_run(browser, traced_ratings, tmp_path):
    store, run = traced_ratings
    out = tmp_path / "report.html"
    _report(out, "--log", str(CHAIN / "slow-run"), "--run", run, "--store", store)
    page = _check_page(browser, out, "report-movie-ratings.png")
    text = page.evaluate("document.body.innerText")
    assert "movie_ratings.py" in text and f"Traced run {run}" in text
    # PerfDebug's heat map, and the hot movie's record among the culprits of the slowest task
    assert page.evaluate("document.querySelectorAll('#questions > figure svg').length") == 1
    assert "Culprit records" in text and "day-09.txt@" in text


def _rewritten_log(target: Path) -> Path:
    """The chain fixture's log with MARKUP as its app name, its jobs' description and its
    host (every field naming it), as one plain JSON-lines file."""
    import zstandard

    (source,) = (CHAIN / "slow-run").glob("*/events_1_*.zstd")
    with source.open("rb") as raw:
        lines = zstandard.ZstdDecompressor().stream_reader(raw).read().decode().splitlines()

    def plant(value):
        if isinstance(value, dict):
            return {
                k: MARKUP if k in ("App Name", "Host", "Host Name") else plant(v)
                for k, v in value.items()
            }
        return [plant(v) for v in value] if isinstance(value, list) else value

    events = [plant(json.loads(line)) for line in lines if line.strip()]
    for event in events:
        if event["Event"] == "SparkListenerJobStart":
            event.setdefault("Properties", {})["spark.job.description"] = MARKUP
    target.write_text("".join(json.dumps(e) + "\n" for e in events))
    return target


def _marked_ratings(target: Path) -> Path:
    """The chain fixture's input with MARKUP as the id of day 9's hot movie (the program
    ignores ids): the record that costs the most carries it."""
    shutil.copytree(CHAIN / "ratings", target)
    day = target / "day-09.txt"
    lines = day.read_text().splitlines(keepends=True)
    hot = max(range(len(lines)), key=lambda i: len(lines[i]))
    lines[hot] = MARKUP.replace(":", "") + lines[hot][lines[hot].index(":") :]
    day.write_text("".join(lines))
    return target


@pytest.mark.spark
def test_markup_in_a_log_and_a_record_is_shown_as_text(browser, spark, tmp_path):
    from perfx.isolation.programs import movie_ratings
    from perfx.isolation.runner import run_traced

    log = _rewritten_log(tmp_path / "events")
    store = str(tmp_path / "runs")
    run = run_traced(
        movie_ratings.__file__, str(_marked_ratings(tmp_path / "ratings")), spark=spark, store=store
    ).run_id
    out = tmp_path / "report.html"
    _report(out, "--log", str(log), "--run", run, "--store", store)
    page = _check_page(browser, out, "report-markup.png")
    assert page.evaluate("document.querySelectorAll('script, img, [onerror]').length") == 0
    text = page.evaluate("document.body.textContent")
    shown = {
        "app name": f"{MARKUP} (local-",  # the overview's heading
        "job description": f"job 0{MARKUP}",  # the what-if table's row
        "host": f"driver ({MARKUP})",  # the timeline's lane label (SVG text)
        "record": MARKUP.replace(":", ""),  # the culprit record's excerpt
    }
    for where, literal in shown.items():
        assert literal in text, where


def test_markup_in_a_log_is_escaped_in_the_file(tmp_path):
    """Without a browser too: the file holds the planted markup only as escaped text."""
    from html.parser import HTMLParser

    html = _report(tmp_path / "report.html", "--log", str(_rewritten_log(tmp_path / "events")))
    tags: list[str] = []
    sections: list[str] = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append(tag)
            if tag == "section":
                sections.append(dict(attrs)["id"])
            assert not any(name.startswith("on") for name, _ in attrs), (tag, attrs)

    Tags().feed(html)
    assert "script" not in tags and "img" not in tags
    assert sections == SECTIONS
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x") >= 3


def test_the_default_questions_ask_each_task_once():
    """The slowest task of a stage is often one of its stragglers too: it is asked about once."""
    import perfx
    from perfx.report.questions import candidate_tasks
    from perfx.report.stages import stage_table

    session = perfx.open([public_log("NVIDIA__spark-rapids-tools/rp_nosql_eventlog")])
    analysis = session.straggler_analysis
    slowest = analysis.tasks.sort_values("duration").iloc[-1]
    assert slowest["straggler"]
    assert candidate_tasks(stage_table(session.log, analysis)) == [str(slowest["id"])]


def test_one_question_per_cause_stands_for_every_task_of_it():
    """Tasks of one cause are asked about once, about the first of them (the longest), and
    the question says how many it stands for; the limit counts questions, not tasks."""
    from perfx.report.questions import default_questions

    causes = {"a": "cold start", "b": "data skew", "c": "cold start", "d": "cold start"}
    questions = default_questions(["a", "b", "c", "d", "e"], causes, limit=8)
    assert [(q.task, q.cause, q.covers) for q in questions] == [
        ("a", "cold start", ("a", "c", "d")),
        ("b", "data skew", ("b",)),
        ("e", "no reference", ("e",)),
    ]
    assert [q.query for q in default_questions(["a", "b", "c"], causes, limit=1)] == [
        "WHY TASK 'a' SLOWER"
    ]


def test_a_log_whose_stages_ran_evenly_has_no_question_to_ask(tmp_path):
    """No task of its stages ran 10 % longer than another: perfx asks nothing rather than
    refuse questions of its own choosing, and says so."""
    out = tmp_path / "report.html"
    log = fixture_log("spark-events/local-1422981759269")
    result = CliRunner().invoke(cli, ["report", "--log", str(log), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("no question to ask; report written to")
    html = out.read_text()
    assert "none asked" in html and "No task to ask about" in html


@pytest.mark.slow
def test_the_page_is_the_same_whatever_the_hash_seed(tmp_path):
    """Two runs of perfx report on one log write the same bytes: no part of the page follows
    the order of a set of strings, which changes with the process's hash seed (the executors
    of a timeline whose first tasks started in the same millisecond were once drawn in that
    order)."""
    import os
    import subprocess
    import sys

    log = public_log("groupon__sparklint/application_1472176676028_407508_1")
    pages = []
    for seed in ("1", "2"):
        out = tmp_path / f"seed-{seed}.html"
        done = subprocess.run(
            [sys.executable, "-m", "perfx.cli", "report", "--log", str(log), "--out", str(out)],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        pages.append(out.read_bytes())
    assert pages[0] == pages[1]


def test_attempts_left_out_of_a_replay_are_said_of_their_own_application(tmp_path):
    """A folder of a clean log and one with tasks launched outside their application's span:
    every application's summary said the folder's count was left out of its replay (a
    probe of the report)."""
    from perfx.explain.blocked.whatif import whatifs
    from perfx.logs.loader import load_log

    damaged = public_log(
        "ucesys__sparkscope/app-20231025121456-0004-eventLog-finished-exec-removed"
    )
    for log in (damaged, fixture_log("spark-events/local-1430917381534")):
        shutil.copy(log, tmp_path / log.name)
    (result,) = whatifs(load_log(tmp_path, cache=False), [["gc"]])
    assert list(result.left_out_by_app.values()) == [result.left_out] != [0]
    assert next(iter(result.left_out_by_app)).startswith("app-20231025121456-0004")
    out = tmp_path / "page.html"
    ran = CliRunner().invoke(cli, ["report", "--log", str(tmp_path), "--out", str(out)])
    assert ran.exit_code == 0, ran.output
    text = " ".join(re.sub(r"<[^>]+>", " ", out.read_text()).split())
    said = {"Spark shell": [], "Spark Pi": []}  # what follows each mention of each app
    for name in said:
        for found in re.finditer(name, text):
            rest = text[found.end() :]
            other = min((rest.find(o) for o in said if o != name and o in rest), default=-1)
            said[name].append(rest[: other if other >= 0 else len(rest)])
    assert not any("left out of the replay" in part for part in said["Spark shell"])
    assert any("left out of the replay" in part for part in said["Spark Pi"])


def test_a_question_the_report_chose_and_cannot_answer_does_not_fail_it(tmp_path):
    """The report asks its own questions: one the log cannot answer (too few related pairs)
    ended the command with exit 1 after writing the page whole (a probe of the report)."""
    out = tmp_path / "page.html"
    log = public_log("NVIDIA__spark-rapids-tools/rp_nosql_eventlog")
    ran = CliRunner().invoke(cli, ["report", "--log", str(log), "--out", str(out)])
    assert ran.exit_code == 0 and out.is_file()
    assert "0 of 1 questions answered" in ran.output
    assert "a question the report chose, not answered: WHY TASK" in ran.output


def test_job_histories_of_no_application_have_each_jobs_own_capacity():
    """A folder of three MapReduce jobs years apart on one host was one span of slots: "100 %
    idle of 8,266,598.1 min slot-time" (a probe of the report)."""
    from perfx.logs.loader import load_log
    from perfx.report.overview import idle_capacity

    capacity, idle = idle_capacity(load_log(fixture_log("hadoop-jhist"), cache=False).tasks)
    assert capacity < 10 * 60_000 and 0 < idle < 0.5
