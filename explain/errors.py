"""Errors in an explanation request that the user can fix by changing the query or the log.

The CLI registers ``ExplainError`` as a user error: it prints as one line ``perfx: <msg>``
with exit code 1, never a traceback. Messages say what is wrong and what to change."""

from __future__ import annotations


class ExplainError(Exception):
    """The query cannot be answered on this log (unknown id or feature, pair of interest that
    does not satisfy its own clauses, too few related pairs, contradictory clauses)."""

    exit_code = 1


class QueryFault(ExplainError):
    """A fault of the query's own text that only the log shows: an atom that does not apply
    to its feature's kind (``host compare = GT``, a nominal feature compared as a number),
    the same execution named twice. ``span`` is the text at fault (None: a generated atom,
    a built query's): the engine points at it as the parser points at a syntax error
    (``explain.engine``)."""

    def __init__(self, message: str, span):
        super().__init__(message)
        self.span = span


class TooFewPairs(ExplainError):
    """The log holds too few related pairs for PerfXplain to learn from: the question is
    sound, the history is short (a front that asked the question itself may answer it from
    the stage's peers instead, saying so)."""


class NoReference(ExplainError):
    """No row of the asked one's group fits as the reference of a one-sided question: none
    satisfies OBSERVED with it (a task asked SLOWER that is no slower than its stage's
    others). ``durations`` says how long it took beside them (' (it took 349 ms; the 3
    others ...)', or ''): a front that asked the question itself says what that means
    rather than tell its user to write THAN."""

    def __init__(self, message: str, durations: str):
        super().__init__(message)
        self.durations = durations
