"""``perfx mcp`` driven by the MCP SDK's own client over stdio, as an assistant drives it: its
tools, an answer equal to ``perfx explain --format json``, and a malformed query as a tool
error carrying perfx's message and caret."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import perfx
from tests.data_files import public_log

pytestmark = pytest.mark.slow  # a server subprocess answering on large logs

LOG = public_log("Netflix-Skunkworks__sparklens/local-fresh")
PERFX = [sys.executable, "-m", "perfx.cli"]
TOOLS = {"list_applications", "explain", "stragglers", "whatif", "compare_job", "culprits"}


def _perfx_json(*args: str) -> dict:
    done = subprocess.run([*PERFX, *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


async def _session(calls: list[tuple[str, dict]]) -> tuple[set[str], list]:
    """The server's tool names and the results of ``calls``, over one stdio connection."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    server = StdioServerParameters(command=PERFX[0], args=[*PERFX[1:], "mcp"], cwd=str(Path.cwd()))
    async with Client(server) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        results = [await client.call_tool(name, arguments) for name, arguments in calls]
    return tools, results


@pytest.fixture(scope="module")
def answers():
    return asyncio.run(
        _session(
            [
                ("explain", {"logs": [str(LOG)], "query": "WHY TASK 1 SLOWER"}),
                ("explain", {"logs": [str(LOG)], "query": "WHY TASK 1 SLOWR"}),
                ("list_applications", {"logs": [str(LOG)]}),
                ("stragglers", {"logs": [str(LOG)]}),
                ("whatif", {"logs": [str(LOG)], "without": ["gc"]}),
            ]
        )
    )


def _text(result) -> str:
    return "".join(part.text for part in result.content if hasattr(part, "text"))


def test_the_server_lists_its_tools(answers):
    tools, _ = answers
    assert tools >= TOOLS


def test_an_answer_is_the_json_of_perfx_explain(answers):
    _, (answer, *_) = answers
    assert not answer.is_error
    expected = _perfx_json("explain", "--log", str(LOG), "--format", "json", "WHY TASK 1 SLOWER")
    assert json.loads(_text(answer)) == expected


def test_a_malformed_query_is_a_tool_error_with_perfx_message_and_caret(answers):
    _, (_, bad, *_) = answers
    assert bad.is_error
    message = _text(bad)
    done = subprocess.run(
        [*PERFX, "explain", "--log", str(LOG), "WHY TASK 1 SLOWR"], capture_output=True, text=True
    )
    assert done.returncode == 2
    # the SDK puts "Error executing tool explain: " before the tool's message
    assert message.endswith(done.stderr.rstrip("\n"))
    assert "^" in message


def test_the_other_tools_answer_as_their_commands(answers):
    _, (_, _, apps, stragglers, whatif) = answers
    assert json.loads(_text(apps))["applications"][0]["id"] == "local-1714515292260"
    assert json.loads(_text(stragglers)) == _perfx_json(
        "stragglers", "--log", str(LOG), "--format", "json"
    )
    assert json.loads(_text(whatif)) == _perfx_json(
        "whatif", "--log", str(LOG), "--without", "gc", "--format", "json"
    )


def test_a_job_is_compared_with_its_latest_earlier_run():
    """Two runs of one program (sparklens' fresh and dynamic-allocation logs): a job's
    earlier run is the job of the same name in the application that started before."""
    from perfx.assistant import compare_with_earlier, job_runs
    from perfx.explain.errors import ExplainError

    folder = public_log("Netflix-Skunkworks__sparklens")
    session = perfx.open([folder / "local-fresh", folder / "local-fresh-dynamic"])
    later = session.raw.apps.sort_values("start_time")["app_key"].iloc[-1]
    job = f"{later}/5"
    runs = job_runs(session, job)
    assert runs["name"].nunique() == 1 and len(runs) == 2
    assert runs["id"].iloc[-1] == job
    with pytest.raises(ExplainError, match="too few related pairs"):  # two apps of 6 jobs
        compare_with_earlier(session, job, None)
    with pytest.raises(ExplainError, match="no earlier run"):
        compare_with_earlier(session, runs["id"].iloc[0], None)


NIGHTLY = "perfx-nightly-etl"


def _nightly_runs(spark, rows: list[int]) -> list[str]:
    """The same job run once per entry of ``rows`` (that many rows hashed), in a job group:
    the full ids (app/job) of the runs, oldest first."""
    sc = spark.sparkContext
    sc.setJobGroup(NIGHTLY, "nightly etl")
    try:
        for count in rows:
            spark.range(0, count, numPartitions=4).selectExpr(
                "sha2(CAST(id AS STRING), 256) AS h"
            ).write.format("noop").mode("overwrite").save()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    jobs = perfx.open(spark).raw.jobs
    return jobs[jobs["job_group"] == NIGHTLY].sort_values("submission_time")["id"].tolist()


@pytest.mark.spark
def test_compare_job_explains_a_run_of_a_live_session_with_ten_times_the_rows(spark):
    """The injected cause: a job's last run hashed 10x the rows of its earlier runs. Asked
    through ``compare_job`` over stdio, against the live session's REST API, the answer is
    complete (sentence, BECAUSE, metrics, gap) and names the records, and it is the answer
    ``compare_with_earlier`` gives of the same session in-process. The job runs 12 times
    before: PerfXplain learns from pairs of jobs that took about as long (within 10 %), and
    the first runs of a fresh JVM each take another time (6 runs left 1 such pair)."""
    from perfx.assistant import compare_with_earlier

    runs = _nightly_runs(spark, [200_000] * 12 + [2_000_000])
    job, earlier = runs[-1], runs[-2]
    url = spark.sparkContext.uiWebUrl
    _, (result,) = asyncio.run(
        _session([("compare_job", {"store": url, "job": job, "earlier": earlier})])
    )
    assert not result.is_error, _text(result)
    compared = json.loads(_text(result))
    assert compared["job"] == job and compared["earlier"] == earlier
    answer = compared["answer"]
    assert answer["entity"] == "job" and answer["pair"] == [job, earlier]
    assert f"job {job} was slower than job {earlier}" in answer["sentence"]  # after DESPITE
    # the planted cause leads: a job's lead carries the gap's largest share, as a task's does
    # (a full suite's once led with GC time, 78 ms against 11 ms, before it had to)
    found = [
        b["predicate"]
        for b in answer["because"][:1]
        if re.fullmatch(r"(input_records_sum|records_in_sum) compare = GT", b["predicate"])
    ]
    assert found, answer
    first = found[0]
    quoted = answer["quoted"][first.split()[0]]
    assert (quoted["first"], quoted["second"]) == (2_000_000, 200_000)
    assert answer["metrics"]["precision"] > 1 - answer["metrics"]["relevance"]
    assert answer["gap"]["compute_split"]["volume_ratio"] == 10
    assert answer["gap"]["gap_ms"] > 0
    again = compare_with_earlier(perfx.open(spark), job, earlier)
    assert json.loads(json.dumps(again)) == compared
