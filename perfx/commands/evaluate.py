"""``perfx evaluate``: the PerfXplain paper's evaluation (section 6) on a log, PerfXplain
against the RuleOfThumb and SimButDiff baselines, written as results.json, results.md and
PNG plots."""

from __future__ import annotations

import click

from perfx.explain.options import DEFAULT_SAMPLE, LEAST_SAMPLE

from .options import format_option, number_option, out_option


@click.command()
@click.option(
    "--log",
    "log_path",
    required=True,
    type=click.Path(exists=True),
    help="Log with jobs and tasks, e.g. from 'perfx fixtures ec2'.",
)
@out_option("Directory for results.json, results.md and the plots.", folder=True)
@number_option("--runs", 10, "Random 50 % job splits (the paper: 10).", least=1)
@number_option("--seed", 0, "Seed of the splits, pairs of interest and sampling.")
@number_option(
    "--sample", DEFAULT_SAMPLE, "Balanced training pairs per explanation.", least=LEAST_SAMPLE
)
@format_option
def evaluate(log_path: str, out: str, runs: int, seed: int, sample: int, fmt: str) -> None:
    """Reproduce section 6: precision vs width (Fig. 3a-d), precision vs generality (4b),
    feature levels (4c) and relevance with and without a generated DESPITE (Table 3)."""
    import json
    import sys

    from perfx.logs.loader import load_log
    from perfx.paper.evaluation import evaluate as run
    from perfx.paper.report import summarise, write

    log = load_log([log_path])
    evaluation = run(log, runs=runs, seed=seed, sample=sample, progress=sys.stderr.isatty())
    paths = write(evaluation, out)
    if fmt == "json":
        summary = summarise(evaluation)
        click.echo(
            json.dumps(
                {"files": [str(p) for p in paths], "checks": summary["checks"]},
                indent=2,
                default=str,
            )
        )
        return
    click.echo((paths[1]).read_text())
    click.echo("wrote " + ", ".join(str(p) for p in paths))
