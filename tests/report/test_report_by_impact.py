"""``perfx report`` by impact, checked in headless Chromium on four real logs at once: the
applications and the stages are in the order of their time at stake (``perfx stragglers``'
figure, computed here apart from the page as the oracle), stages of one or two tasks are
folded into a note, one question per cause, every cause has one colour in every chart and
table it appears in (and two causes never share one), and no markup shows as text."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

import perfx
from perfx.cli import cli
from tests.data_files import fixture_log
from tests.report.browser import Browser, chromium

pytestmark = pytest.mark.slow  # four logs' report, rendered in headless Chromium

LOGS = [
    fixture_log("spark-events") / name
    for name in (  # not in the order of their time at stake: the page must reorder them
        "local-1642039451826",
        "local-1430917381534",
        "app-20180109111548-0000",
        "application_1516285256255_0012",
    )
]
LITERAL_MARKUP = re.compile(
    r"</?(br|p|b|i|em|strong|span|div|a|code|td|tr|th|table|svg|g|path|li|ul|h[1-6])\b[^>]*>"
    r"|&(lt|gt|amp|quot|#x?[0-9a-f]+);",
    re.IGNORECASE,
)
"""Markup or an entity shown as text (``<console>`` in a Spark call site is text, not a tag)."""


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    binary = chromium()
    if binary is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    out = tmp_path_factory.mktemp("impact") / "report.html"
    args = [a for log in LOGS for a in ("--log", str(log))]
    result = CliRunner().invoke(cli, ["report", *args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    with Browser(binary) as browser:
        opened = browser.open(out)
        assert opened.errors == []
        yield opened


@pytest.fixture(scope="module")
def stragglers():
    return perfx.open(LOGS).stragglers()


def test_applications_are_ordered_by_time_at_stake(page, stragglers):
    per_app: dict[str, float] = {}
    for stage, stake in stragglers.at_stake().items():
        app = stage.rsplit("/", 2)[0]
        per_app[app] = per_app.get(app, 0.0) + stake
    headings = page.evaluate(
        "[...document.querySelectorAll('#overview h3')].map(h => h.textContent)"
    )
    shown = [re.search(r"\(([^()]*)\)$", h).group(1) for h in headings]
    assert sorted(shown) == sorted(str(a) for a in stragglers.report.tasks["app_key"].unique())
    stakes = [per_app.get(app, 0.0) for app in shown]
    assert stakes == sorted(stakes, reverse=True) and sum(s > 0 for s in stakes) >= 3
    assert shown != [log.name for log in LOGS]
    # the timeline follows the same order
    timelines = page.evaluate(
        "[...document.querySelectorAll('#timeline h3')].map(h => h.textContent)"
    )
    assert timelines == headings


def test_stages_are_ordered_by_time_at_stake_and_small_ones_folded(page, stragglers):
    report = stragglers.report
    stakes = stragglers.at_stake()
    labels = page.evaluate(
        "[...document.querySelectorAll('#stages table tbody tr')].map(r => r.cells[0].textContent)"
    )
    key_of = {
        f"{k.rsplit('/', 2)[0]} {k.rsplit('/', 2)[1]}": k
        for k in report.stages["stage_key"].astype(str)
        if k.rsplit("/", 2)[2] == "0"
    }
    keys = [key_of[label] for label in labels]
    shown = [stakes.get(k, 0.0) for k in keys]
    assert shown == sorted(shown, reverse=True) and sum(s > 0 for s in shown) >= 4
    tasks = report.stages.set_index(report.stages["stage_key"].astype(str))["tasks"]
    small = int((tasks <= 2).sum())
    assert small > 0 and all(tasks[k] > 2 for k in keys)
    assert len(keys) == len(tasks) - small
    note = page.evaluate("document.querySelector('#stages p.note').textContent")
    assert note.startswith(f"{small} stages of one or two tasks folded away (")


def test_one_question_per_cause(page):
    causes = page.evaluate(
        "[...document.querySelectorAll('#questions article > p.note .cause')]"
        ".map(c => c.dataset.cause)"
    )
    articles = page.evaluate("document.querySelectorAll('#questions article').length")
    assert articles == len(causes) == len(set(causes)) > 1
    covered = page.evaluate(
        "[...document.querySelectorAll('#questions p.covers')].map(p => +p.dataset.covers)"
    )
    assert covered and all(n > 1 for n in covered)  # some question stands for several tasks


def test_one_colour_per_cause_in_every_chart_and_table(page):
    marks = page.evaluate(
        """(() => {
        const out = [];
        for (const c of document.querySelectorAll('.cause[data-slug]')) {
          const sw = c.querySelector('.swatch');
          out.push([c.dataset.slug, getComputedStyle(sw).backgroundColor,
                    c.closest('section, p.legend').id || c.closest('section, p.legend').className]);
        }
        for (const g of document.querySelectorAll('svg g[id^="cause-"]')) {
          const path = g.querySelector('path');
          out.push([g.id.slice(6).split('--')[0], getComputedStyle(path).fill,
                    g.closest('section').id]);
        }
        return out; })()"""
    )
    colour_of: dict[str, set[str]] = {}
    for slug, colour, _where in marks:
        colour_of.setdefault(slug, set()).add(colour)
    assert all(len(c) == 1 for c in colour_of.values()), colour_of
    colours = [next(iter(c)) for c in colour_of.values()]
    assert len(set(colours)) == len(colours), colour_of  # different causes differ
    where = {slug: {w for s, _, w in marks if s == slug} for slug in colour_of}
    # causes meet in several places: the legend, the overview's bars, the stage table, the gap charts
    assert {"legend", "overview", "stages", "questions"} <= set().union(*where.values())
    assert any(len(w - {"legend"}) >= 2 for w in where.values())
    legend = {s for s, _, w in marks if w == "legend"}
    assert legend == set(colour_of)  # the legend names every cause the page colours


def test_no_markup_shows_as_text(page):
    text = page.evaluate("document.body.innerText")
    assert LITERAL_MARKUP.search(text) is None, LITERAL_MARKUP.search(text)
    # SVG text (chart labels) too
    labels = page.evaluate("[...document.querySelectorAll('svg text')].map(t => t.textContent)")
    assert not any(LITERAL_MARKUP.search(t) for t in labels)
