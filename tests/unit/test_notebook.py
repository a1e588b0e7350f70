"""Answers in a notebook: HTML views built from the report's parts with every text from the
log escaped, and the example notebook (docs/live_session.ipynb) run headless by nbclient on a
live local session, whose HTML output holds the gap chart."""

from __future__ import annotations

import html
import re
from dataclasses import replace

import pytest

import perfx
from perfx.notebook import explanation_html
from perfx.session import Session
from tests.data_files import REPO, public_log

LOG = public_log("Netflix-Skunkworks__sparklens/local-fresh")
HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def session():
    return perfx.open(LOG)


def test_an_explanation_shows_its_sentence_values_and_gap_chart(session):
    answer = session.explain("WHY TASK 1 SLOWER")
    page = explanation_html(answer)
    assert html.escape(answer.sentence()) in page
    # the gap's lines, then its chart: both tasks' bars, named
    lines = "".join(f"<li>{html.escape(line)}</li>" for line in answer.gap_lines())
    assert f"<ul>{lines}</ul><figure><svg" in page
    chart = page.split(f"{lines}</ul><figure>", 1)[1].split("</svg>", 1)[0]
    first, second = answer.pair
    assert f"task {first}" in chart and f"task {second}" in chart


def test_text_from_the_log_stays_text(session):
    raw = session.raw
    hostile = Session(replace(raw, tasks=raw.tasks.assign(host=HOSTILE)))
    page = explanation_html(
        hostile.explain("WHY TASK 1 SLOWER THAN TASK 18 DESPITE host isSame = T", sample=200)
    )
    assert HOSTILE not in page and html.escape(HOSTILE) in page
    stragglers = Session(replace(raw, tasks=raw.tasks.assign(stage_key=HOSTILE)))
    assert HOSTILE not in stragglers.stragglers()._repr_html_()


@pytest.mark.slow
def test_tables_and_the_report_render(session):
    assert "Stragglers per stage" in session.stragglers()._repr_html_()
    assert "Without gc" in session.whatif(["gc"])._repr_html_()
    report = session.report(questions=1)
    frame = report._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and "<svg" not in frame  # all of it escaped
    assert html.escape(report.html, quote=True) in frame


@pytest.mark.spark
def test_the_example_notebook_runs_headless_and_shows_the_gap_chart(tmp_path):
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(REPO / "docs" / "live_session.ipynb", as_version=4)
    NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    ).execute()
    outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    pages = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    answers = [p for p in pages if 'class="sentence"' in p]
    assert len(answers) == 1, pages
    text = re.sub("<[^>]+>", " ", answers[0].split("<figure>")[0])  # the answer, for a failure
    assert "</ul><figure><svg" in answers[0], text  # the gap's lines, then its chart
    assert "data skew" in answers[0], text
    assert any("Stragglers per stage" in p for p in pages)
    assert any(p.startswith("<iframe srcdoc=") for p in pages)
