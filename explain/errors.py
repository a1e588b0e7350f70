"""Errors in an explanation request that the user can fix by changing the query or the log.

The CLI registers ``ExplainError`` as a user error: it prints as one line ``perfx: <msg>``
with exit code 1, never a traceback. Messages say what is wrong and what to change."""

from __future__ import annotations


class ExplainError(Exception):
    """The query cannot be answered on this log (unknown id or feature, pair of interest that
    does not satisfy its own clauses, too few related pairs, contradictory clauses)."""

    exit_code = 1


class TooFewPairs(ExplainError):
    """The log holds too few related pairs for PerfXplain to learn from: the question is
    sound, the history is short (a front that asked the question itself may answer it from
    the stage's peers instead, saying so)."""
