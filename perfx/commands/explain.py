"""``perfx explain``: answer one PXQL question from a log, as text (rich) or stable JSON."""

from __future__ import annotations

import json

import click


@click.command()
@click.option(
    "--log",
    "logs",
    multiple=True,
    required=True,
    type=click.Path(exists=True),
    help="Event log file or folder (repeatable).",
)
@click.option(
    "--width",
    type=int,
    default=None,
    help="Width of the BECAUSE clause (default: the query's WITH WIDTH, else 3).",
)
@click.option(
    "--despite-width",
    type=int,
    default=None,
    help="Generate a DESPITE extension of up to this width.",
)
@click.option(
    "--sample",
    type=int,
    default=2000,
    show_default=True,
    help="Balanced training pairs sampled (section 4.3).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the pair sampling.")
@click.option(
    "--bind", "binds", multiple=True, help="Value for a '?' placeholder, in order (repeatable)."
)
@click.option(
    "--method",
    default="perfxplain",
    show_default=True,
    help="perfxplain, ruleofthumb or simbutdiff.",
)
@click.option(
    "--level",
    type=click.IntRange(1, 3),
    default=3,
    show_default=True,
    help="Pair-feature level (1 isSame; 2 + compare, diff; 3 + base).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--host-metrics",
    type=click.Path(exists=True, dir_okay=False),
    help="Host metrics CSV/Parquet (host, timestamp, metrics...) to join onto tasks and jobs.",
)
@click.option(
    "--run",
    default=None,
    help="A traced run (perfx isolate, perfx runs): add the culprit records "
    "inside the first task's partition.",
)
@click.option("--store", default=None, help="Lineage store of --run (default: $PERFX_HOME/runs).")
@click.argument("query")
def explain(
    logs,
    width,
    despite_width,
    sample,
    seed,
    binds,
    method,
    level,
    fmt,
    host_metrics,
    run,
    store,
    query,
) -> None:
    """Explain why a pair of executions behaved as OBSERVED rather than EXPECTED.

    QUERY is PXQL, e.g. "WHY TASK 33 SLOWER" or a full FOR ... DESPITE ... OBSERVED ...
    EXPECTED query. The answer is a DESPITE/BECAUSE explanation with its relevance,
    precision and generality, the duration gap split into its parts with a diagnosis, and,
    with --run, the input records inside the slow task's partition that cost the time.
    """
    from perfx.chain import explain as answer_of
    from perfx.questions import load_for_questions

    log = load_for_questions(logs, host_metrics=host_metrics, query=query, bind=binds)
    answer = answer_of(
        log,
        query,
        width=width,
        despite_width=despite_width,
        sample=sample,
        seed=seed,
        method=method,
        bind=binds,
        level=level,
        run=run,
        store=store,
    )
    if fmt == "json":
        click.echo(json.dumps(answer.to_dict(), indent=2))
    else:
        from rich.console import Console

        Console().print(answer)
