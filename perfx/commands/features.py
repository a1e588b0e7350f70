"""``perfx features``: the features a log offers for one entity kind, with kind, unit, role
and description, so users know what they can write in PXQL."""

from __future__ import annotations

import click

from .logs import ENTITY_CHOICES
from .options import (
    all_option,
    choice_option,
    emit,
    format_option,
    host_metrics_option,
    log_option,
    open_session,
)


@click.command()
@log_option()
@choice_option("--entity", ENTITY_CHOICES, "task")
@format_option
@host_metrics_option
@all_option
def features(logs, entity, fmt, host_metrics, show_all) -> None:
    """List the features of a log's tasks (or stages, jobs, apps).

    Role ``feature`` may appear in generated explanations; ``outcome`` (restates the duration),
    ``symptom`` (computed from an outcome: time per record, shares) and ``identity`` (names an
    execution) may be written in queries but are never proposed.
    """
    session = open_session(logs, host_metrics, progress=True)
    emit(session.features(entity), fmt, show_all=show_all)
