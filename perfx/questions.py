"""The log that questions are asked of: the loaded log plus the blocked-time analysis's
straggler cause and time shares as task features, so that an explanation may say "because
its GC share was higher" or "because it was the first task on its executor"."""

from __future__ import annotations

from collections.abc import Sequence


def load_for_questions(paths: Sequence[str], *, host_metrics=None, progress: bool = False):
    """``perfx.load_log`` then ``add_straggler_features``: what explain, batch and the REPL use."""
    from perfx.explain.blocked.features import add_straggler_features
    from perfx.logs.loader import load_log

    return add_straggler_features(
        load_log(list(paths), host_metrics=host_metrics, progress=progress)
    )
