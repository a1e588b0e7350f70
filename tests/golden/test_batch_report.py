"""``perfx batch``: query files, placeholder pairs, straggler questions, and the HTML report
(compared with a golden file, plots elided)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfx.batch import expand, read_queries, straggler_questions
from perfx.cli import cli
from tests.data_files import fixture_log

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "reports"
QUERIES = """\
-- the slowest kind of question; a ';' inside a comment does not split
WHY TASK 5 SLOWER;
WHY TASK 7 SLOWER THAN TASK 9 WITH WIDTH 2;
FOR T1, T2 WHERE T1.TaskID = ? AND T2.TaskID = ?
OBSERVED duration compare = GT EXPECTED duration compare = SIM
"""


@pytest.fixture(scope="module")
def log_path() -> str:
    return str(fixture_log("spark-events/local-1430917381534"))


def _without_plots(html: str) -> str:
    """The page with each inline SVG plot reduced to its first line (matplotlib's own
    drawing is not this page's structure)."""
    return re.sub(r"(<svg[^>]*>).*?</svg>", r"\1...</svg>", html, flags=re.DOTALL)


def test_read_queries_ignores_semicolons_in_comments_and_strings():
    text = "WHY TASK 1 SLOWER; -- a; b\nWHY TASK 'a;b' FASTER;;\n-- only a comment\n"
    assert [q.text for q in read_queries(text)] == ["WHY TASK 1 SLOWER", "WHY TASK 'a;b' FASTER"]


def test_placeholder_queries_run_once_per_pair():
    jobs = expand(
        [
            "WHY TASK 1 SLOWER",
            "FOR T1, T2 WHERE T1.TaskID = ? AND T2.TaskID = ? "
            "OBSERVED duration compare = GT EXPECTED duration compare = SIM",
        ],
        [("5", "43"), ("6", "44")],
    )
    assert [item.binding for item in jobs] == [(), ("5", "43"), ("6", "44")]
    assert all(item.ok for item in jobs)


def test_placeholders_without_pairs_fail_that_query_only():
    items = expand(
        [
            "FOR T1, T2 WHERE T1.TaskID = ? AND T2.TaskID = ? OBSERVED duration compare = GT "
            "EXPECTED duration compare = SIM",
            "WHY TASK 1 SLOWER",
        ],
        None,
    )
    assert "no --pairs file" in items[0].error
    assert items[1].ok


def test_pairs_of_no_row_or_of_another_number_of_ids_fail_their_questions():
    """A pairs file of its header alone was said to be no file, and a row of three ids bound
    the query's two ? with its first two, unsaid (a probe of the CLI)."""
    query = "WHY TASK ? SLOWER THAN TASK ?"
    (empty,) = expand([query], [])
    assert empty.error == (
        "the query has 2 '?' placeholder(s) but the --pairs file holds no row of ids"
    )
    three, two = expand([query], [("0", "50", "7"), ("0", "50")])
    assert (
        three.error == "the --pairs row 0, 50, 7 has 3 id(s) for the query's 2 '?' placeholder(s)"
    )
    assert two.ok and two.binding == ("0", "50")


def test_batch_report_matches_golden(tmp_path, log_path):
    (tmp_path / "q.pxql").write_text(QUERIES)
    (tmp_path / "pairs.csv").write_text("first,second\n5,43\n99999,1\n")
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        cli,
        [
            "batch",
            "--log",
            log_path,
            "--queries",
            str(tmp_path / "q.pxql"),
            "--pairs",
            str(tmp_path / "pairs.csv"),
            "--out",
            str(out),
        ],
    )
    # One pair names a task that does not exist: the report says so and the exit code is 1.
    assert result.exit_code == 1
    assert "3 of 4 questions answered" in result.output
    html = _without_plots(out.read_text()).replace(log_path, "LOG")
    golden = GOLDEN / "batch_local-1430917381534.html"
    if os.environ.get("PERFX_UPDATE_GOLDEN"):
        golden.write_text(html)
    assert html == golden.read_text()
    # each of the 3 answers: its gap chart and its precision / generality chart
    assert html.count("...</svg>") == 6


def test_straggler_questions_name_real_stragglers(log_path):
    import perfx

    asked = straggler_questions(perfx.open(log_path).log, limit=5)
    assert len(asked.queries) == 5 and asked.total > 5
    assert asked.describe() == f"the 5 longest of {asked.total} stragglers"
    assert all(re.fullmatch(r"WHY TASK 'local-1430917381534/\d+' SLOWER", q) for q in asked.queries)


def test_a_log_without_stragglers_says_so(tmp_path):
    # The committed EC2-style sample: every task's time per byte is within 1.5x of its stage's.
    sample = Path(__file__).resolve().parents[2] / "paper" / "fixtures" / "ec2-seed1-small"
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        cli, ["batch", "--log", str(sample), "--stragglers", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert (
        result.output.splitlines()[-1]
        == f"no stragglers (inverse progress rate > 1.5x their stage's median): nothing to ask; report written to {out}"
    )
    assert out.exists()


def test_files_of_questions_are_utf8_text_or_refused_in_one_line(tmp_path, log_path):
    """A query or pairs file in Latin-1 ended the command in an internal error (exit 70),
    and one saved with a byte order mark made its first query "unexpected character
    U+FEFF" (a probe of the CLI). Host metrics alike."""
    from perfx.logs.errors import NotALog
    from perfx.logs.loader import load_log

    def batch(*args: str):
        out = str(tmp_path / "page.html")
        return CliRunner().invoke(cli, ["batch", "--log", log_path, "--out", out, *args])

    marked = tmp_path / "marked.pxql"
    marked.write_bytes("\ufeffWHY TASK 5 SLOWER\n".encode())
    assert batch("--queries", str(marked)).exit_code == 0
    latin = tmp_path / "latin.pxql"
    latin.write_bytes("WHY TASK 5 SLOWER -- café\n".encode("latin-1"))
    refused = batch("--queries", str(latin))
    assert refused.exit_code == 2 and "is not UTF-8 text (byte 0xe9 at offset 24)" in (
        refused.output
    )
    placeholders = tmp_path / "pairs.pxql"
    placeholders.write_text("WHY TASK ? SLOWER THAN TASK ?\n")
    pairs = tmp_path / "pairs.csv"
    pairs.write_bytes("first,second\n5,é\n".encode("latin-1"))
    refused = batch("--queries", str(placeholders), "--pairs", str(pairs))
    assert refused.exit_code == 2 and "'--pairs'" in refused.output
    metrics = tmp_path / "hosts.csv"
    metrics.write_bytes("host,timestamp,cpu\nhé,1,2\n".encode("latin-1"))
    with pytest.raises(NotALog, match="host metrics are not UTF-8 text"):
        load_log(log_path, host_metrics=metrics)
