"""Shares that add up (issue 24): parts that moved one way are whole percents summing to 100;
parts that pulled in opposite directions are said as time lost and time saved, never as
"119 %" beside "-19 %"; an answer's JSON carries its sentence and the values it quotes."""

from __future__ import annotations

import json

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from perfx.cli import cli
from perfx.explain.gap import split_shares, whole_percents
from tests.data_files import public_log

LOG = public_log("groupon__sparklint")


@given(st.lists(st.floats(min_value=0, max_value=1e7), min_size=1, max_size=6))
def test_whole_percents_of_positive_parts_add_up_to_100(values):
    percents = whole_percents(values)
    assert all(p >= 0 for p in percents)
    assert sum(percents) == (100 if sum(values) > 0 else 0)
    for value, percent in zip(values, percents):
        exact = 100 * value / sum(values) if sum(values) else 0
        assert abs(percent - exact) < 1  # each is its exact share rounded up or down


def test_thirds_are_34_33_33_not_99():
    assert whole_percents([1.0, 1.0, 1.0]) == [34, 33, 33]


def test_parts_one_way_are_percents_and_opposite_parts_lost_and_saved():
    same = split_shares([("12.0x the records", 995.0), ("1.1x the time per record", 5.4)])
    assert same == "12.0x the records: 99 %; 1.1x the time per record: 1 %"
    opposite = split_shares([("2.0x the records", 1190.0), ("0.8x the time per record", -190.0)])
    assert opposite == "2.0x the records: lost 1.19 s; 0.8x the time per record: saved 190 ms"
    assert "%" not in opposite


def test_an_answers_json_carries_its_sentence_and_the_values_it_quotes():
    result = CliRunner().invoke(
        cli,
        [
            "explain",
            "--log",
            str(LOG / "application_1472176676028_407508_1"),
            "WHY TASK 554 SLOWER",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    text = (
        CliRunner()
        .invoke(
            cli,
            [
                "explain",
                "--log",
                str(LOG / "application_1472176676028_407508_1"),
                "WHY TASK 554 SLOWER",
            ],
            terminal_width=10_000,
        )
        .output
    )
    assert " ".join(data["sentence"].split()) in " ".join(text.split())
    assert data["quoted"]["gc_time"] == {"first": 269109.0, "second": 37281.0, "unit": "ms"}
    for feature in data["quoted"]:
        assert any(feature in step["predicate"] for step in data["despite"] + data["because"])
