"""Errors a user can fix by pointing perfx at other files: one readable message, exit code 1.

The CLI registers ``LogError`` as a user error, so every subclass prints as ``perfx: <msg>``
instead of a traceback."""

from __future__ import annotations


class LogError(Exception):
    """A log could not be read as a whole (as opposed to a bad line, which is skipped)."""

    exit_code = 1


class NotALog(LogError):
    """The input is not any log format perfx recognises, or holds no log at all."""


class CorruptStream(LogError):
    """A compressed stream's framing is broken beyond the point where lines can be recovered."""


def not_utf8(err: UnicodeDecodeError) -> str:
    """Where a text perfx was given is not UTF-8, in words: ``byte 0xe9 at offset 24``
    (a file of queries, pairs or host metrics)."""
    return f"byte 0x{err.object[err.start]:02x} at offset {err.start}"
