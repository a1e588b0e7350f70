"""``perfx fixtures ec2``: write EC2-style fixture logs (the PerfXplain paper's experiment,
simulated) to a directory that ``perfx explain --log`` and ``perfx evaluate --log`` read."""

from __future__ import annotations

import click

from .options import format_option, number_option, out_option


@click.group()
def fixtures() -> None:
    """Generate fixture logs whose causes are known."""


@fixtures.command()
@click.option(
    "--seed",
    type=int,
    required=True,
    help="Seed: the same seed, scale and repeats give byte-identical files.",
)
@out_option("Directory to write jobs.csv, tasks.csv, host_metrics.csv.", folder=True)
@number_option("--repeats", 1, "Runs of each configuration.", least=1)
@click.option(
    "--scale",
    type=click.FloatRange(0, 1, min_open=True),
    default=1.0,
    show_default=True,
    help="Fraction of the paper's Table 2 grid (540 configurations) to run.",
)
@format_option
def ec2(seed: int, out: str, repeats: int, scale: float, fmt: str) -> None:
    """Simulate Pig jobs on 1-16 two-core EC2 instances with Ganglia sampling every 5 s.

    Task times come from slot scheduling, the work per byte and contention on each
    instance; nothing in the files says why a task or job was slow.
    """
    import json

    from perfx.paper.ec2.generate import generate

    logs = generate(seed, scale=scale, repeats=repeats)
    paths = logs.write(out)
    summary = {
        "out": out,
        "seed": seed,
        "scale": scale,
        "repeats": repeats,
        "jobs": len(logs.jobs),
        "tasks": len(logs.tasks),
        "host_metric_rows": len(logs.host_metrics),
        "files": [str(p) for p in paths],
    }
    if fmt == "json":
        click.echo(json.dumps(summary, indent=2))
    else:
        click.echo(
            f"wrote {summary['jobs']} jobs, {summary['tasks']} tasks and {summary['host_metric_rows']} "
            f"host-metric samples to {out} (seed {seed}, scale {scale}, repeats {repeats})"
        )
