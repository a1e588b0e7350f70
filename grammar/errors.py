"""PxqlError: the one exception a bad query raises, positioned and readable.

``str(err)`` is what a user sees (the CLI prints it after ``perfx:``): one line saying where
and what, then the offending source line with carets under the offending text::

    line 1, column 66: unknown pair feature 'comare' (did you mean 'compare'?)
      FOR J1, J2 WHERE J1.JobID = ? and J2.JobID = ? OBSERVED duration comare = GT
                                                                       ^^^^^^

The structured fields (line, column, span, expected, suggestions) are for programs: the REPL
underlines the span, tests compare fields rather than text.
"""

from __future__ import annotations

from collections.abc import Sequence

_WINDOW = 120
"""Longest source excerpt shown under the message: a 10,000-atom query is one long line."""


def or_list(words: Sequence[str]) -> str:
    """``['a', 'b', 'c']`` -> ``"a, b or c"``."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} or {words[-1]}"


class PxqlError(Exception):
    """A query that cannot be parsed, or that makes no sense for the pair it names.

    ``message`` is the one-line description, did-you-mean included; ``span`` is the
    ``(start, end)`` character offsets of the offending text in ``source``; ``line`` and
    ``column`` (1-based) locate ``start``. All location fields are None for errors that
    concern no particular text (e.g. binding the wrong number of ``?`` placeholders).
    ``expected`` lists, in words, what the parser would have accepted at that point;
    ``suggestions`` the closest valid spellings of the offending word."""

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        span: tuple[int, int] | None = None,
        source: str | None = None,
        expected: Sequence[str] = (),
        suggestions: Sequence[str] = (),
    ) -> None:
        self.suggestions = list(suggestions)
        if self.suggestions:
            quoted = [f"'{s}'" for s in self.suggestions]
            message = f"{message} (did you mean {or_list(quoted)}?)"
        self.message = message
        self.expected = list(expected)
        self.span = span
        self.source: str | None = None
        self.line: int | None = None
        self.column: int | None = None
        super().__init__(message)
        if source is not None:
            self.with_source(source)

    def with_source(self, source: str) -> PxqlError:
        """Attach the query text (once) so that line, column and the caret can be shown.
        Checks deep in the parser know spans but not the text; parse() attaches it."""
        if self.source is None:
            self.source = source
            if self.span is not None:
                start = min(self.span[0], len(source))
                self.line = source.count("\n", 0, start) + 1
                self.column = start - (source.rfind("\n", 0, start) + 1) + 1
        return self

    def __str__(self) -> str:
        if self.line is None or self.column is None or self.source is None or self.span is None:
            return self.message
        return f"line {self.line}, column {self.column}: {self.message}\n{self.excerpt()}"

    def excerpt(self) -> str:
        """The offending source line (or a window of it) and a caret line under the span."""
        assert self.source is not None and self.span is not None and self.column is not None
        line_start = self.span[0] - (self.column - 1)
        line_end = self.source.find("\n", line_start)
        if line_end < 0:
            line_end = len(self.source)
        text = self.source[line_start:line_end].removesuffix("\r")  # CRLF line endings
        start = self.column - 1
        width = max(1, min(self.span[1], line_end) - self.span[0])
        prefix = suffix = ""
        if len(text) > _WINDOW:
            lo = max(0, min(start - _WINDOW // 2, len(text) - _WINDOW))
            hi = lo + _WINDOW
            prefix = "..." if lo > 0 else ""
            suffix = "..." if hi < len(text) else ""
            text, start = text[lo:hi], start - lo + len(prefix)
            width = min(width, len(text) + len(prefix) - start)
        shown = prefix + "".join(c if c.isprintable() or c == "\t" else "?" for c in text) + suffix
        pad = "".join("\t" if c == "\t" else " " for c in shown[:start])
        return f"  {shown}\n  {pad}{'^' * max(1, width)}"
