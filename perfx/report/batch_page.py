"""``perfx batch``'s page: the questions of a batch and their answers, nothing else."""

from __future__ import annotations

from collections.abc import Sequence

from . import colours
from .page import document
from .questions import questions_section


def render_html(items: Sequence, *, title: str = "perfx report", log_summary: str = "") -> str:
    """The page of a batch's answers (``perfx.batch.BatchItem``s), with the legend of the
    causes' colours."""
    section = questions_section(items)
    return document(
        title,
        [log_summary] if log_summary else [],
        [section],
        colours.legend(list(section.causes)),
    )
