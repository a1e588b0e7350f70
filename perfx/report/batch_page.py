"""``perfx batch``'s page: the questions of a batch and their answers, nothing else."""

from __future__ import annotations

from collections.abc import Sequence

from .page import document
from .questions import questions_section


def render_html(items: Sequence, *, title: str = "perfx report", log_summary: str = "") -> str:
    """The page of a batch's answers (``perfx.batch.BatchItem``s)."""
    return document(title, [log_summary] if log_summary else [], [questions_section(items)])
