"""RuleOfThumb and SimButDiff (section 5), through the engine's ``--method`` switch."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from perfx.explain.baselines import rrelieff
from perfx.explain.engine import explain
from perfx.logs.model import Log
from perfx.logs.registry import FeatureRegistry
from perfx.logs.tabular import column_specs

QUERY = """FOR J1, J2 WHERE J1.JobID = "{a}" AND J2.JobID = "{b}"
DESPITE numinstances isSame = T
OBSERVED duration compare = GT EXPECTED duration compare = SIM"""


@pytest.fixture(scope="module")
def log() -> Log:
    """Jobs whose duration is input size x work per byte / instances, plus nuisance columns."""
    rng = np.random.default_rng(0)
    n = 400
    jobs = pd.DataFrame(
        {
            "id": [f"j{k}" for k in range(n)],
            "num_instances": rng.choice([1, 4], n),
            "input_size": rng.choice([1.0, 2.0], n) * 1e9,
            "color": rng.choice(["red", "blue", "green"], n),
            "noise": rng.normal(0, 1, n),
        }
    )
    for k in range(8):  # configuration knobs that do not matter (SimButDiff needs >= 10 features)
        jobs[f"knob_{k}"] = rng.choice([0, 1], n, p=[0.9, 0.1])
    jobs["duration"] = jobs.input_size / 1e6 / jobs.num_instances * rng.lognormal(0, 0.02, n) * 1000
    registry = FeatureRegistry()
    registry.register_all("job", column_specs(jobs))
    return Log(tasks=pd.DataFrame({"id": [], "duration": []}), jobs=jobs, registry=registry)


def _pair(log: Log) -> tuple[str, str]:
    j = log.jobs
    a = j[(j.num_instances == 1) & (j.input_size == 2e9)].id.iloc[0]
    b = j[
        (j.num_instances == 1) & (j.input_size == 1e9) & (j.color != j.set_index("id").color[a])
    ].id.iloc[0]
    return a, b


def test_relief_ranks_the_feature_that_drives_duration_first():
    rng = np.random.default_rng(1)
    x = rng.random((300, 4))
    y = 10 * x[:, 2] + rng.normal(0, 0.1, 300)
    x[rng.random(300) < 0.1, 0] = np.nan  # missing values are allowed
    weights = rrelieff(x, np.array([False, False, False, True]), y, 10)
    assert int(np.argmax(weights)) == 2


def test_rule_of_thumb_names_important_features_the_pair_disagrees_on(log):
    a, b = _pair(log)
    answer = explain(log, QUERY.format(a=a, b=b), method="ruleofthumb", width=2)
    assert answer.method == "ruleofthumb"
    atoms = answer.because_atoms
    assert (
        atoms[0].feature == "input_size"
        and atoms[0].pair_op == "isSame"
        and atoms[0].value.value is False
    )
    assert len(atoms) == 2 and "num_instances" not in [
        x.feature for x in atoms
    ]  # the pair agrees on it
    assert answer.metrics.precision > 0.5


def test_sim_but_diff_builds_is_same_predicates_with_the_pairs_values(log):
    a, b = _pair(log)
    answer = explain(log, QUERY.format(a=a, b=b), method="simbutdiff", width=3)
    assert answer.method == "simbutdiff" and 1 <= len(answer.because) <= 3
    jobs = log.jobs.set_index("id")
    for atom in answer.because_atoms:
        assert atom.pair_op == "isSame"
        assert atom.value.value == bool(jobs.loc[a, atom.feature] == jobs.loc[b, atom.feature])
    assert "input_size isSame = F" in [s.predicate for s in answer.because]
    assert answer.to_dict()["method"] == "simbutdiff"


def test_methods_are_selectable_from_the_cli(tmp_path, log):
    from click.testing import CliRunner

    from perfx.cli import cli

    log.jobs.to_csv(tmp_path / "jobs.csv", index=False)
    pd.DataFrame({"id": ["t"], "job_id": [log.jobs.id.iloc[0]], "duration": [1]}).to_csv(
        tmp_path / "tasks.csv", index=False
    )
    a, b = _pair(log)
    for method in ("perfxplain", "ruleofthumb", "simbutdiff"):
        result = CliRunner().invoke(
            cli,
            [
                "explain",
                "--log",
                str(tmp_path),
                "--method",
                method,
                "--format",
                "json",
                QUERY.format(a=a, b=b),
            ],
        )
        assert result.exit_code == 0, result.output
        assert f'"method": "{method}"' in result.output
