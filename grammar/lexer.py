"""A faster contextual lexer for pxql.lark, plugged into lark as a custom lexer.

It lexes exactly like lark's ``lexer="contextual"`` — in each parser state only the terminals
that state can accept, tried in lark's order (priority, then longest possible match) — but
with one regular-expression match per token: whitespace and comments are skipped by the same
match, and line numbers are counted only across the skipped text (no PXQL token spans a
line). lark's own contextual lexer makes two matches and several Python calls per token,
which was half the time of a 10,000-atom query.

Errors are raised as lark's UnexpectedToken / UnexpectedCharacters (with the parser state,
so that syntax_errors.py can ask lark's interactive parser what was expected).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lark import Token
from lark.common import LexerConf
from lark.exceptions import UnexpectedCharacters, UnexpectedToken
from lark.lexer import Lexer, LexerState, TerminalDef

new_token = Token._future_new
"""Token's constructor without the argument shuffling of Token.__new__ (a tenth of the
lexing time): the lexer makes one per token."""


class PxqlLexer(Lexer):
    """lark custom lexer (interface 2: ``lex(lexer_state, parser_state)``)."""

    __future_interface__ = 2

    def __init__(self, conf: LexerConf) -> None:
        self.terminals: dict[str, TerminalDef] = {t.name: t for t in conf.terminals}
        self.ignore = set(conf.ignore)
        skip = "|".join(self.terminals[name].pattern.to_regexp() for name in sorted(self.ignore))
        self.flags = conf.g_regex_flags
        # An atomic group (emulated: a lookahead's match, then a backreference to it):
        # whitespace is itself a repetition, and backtracking into (?:\s+|--...)* after
        # a failed token tried every split of the run of spaces (minutes for 30 spaces).
        self.skip = f"(?=(?P<_skip>(?:{skip})*))(?P=_skip)"
        self.skip_re = re.compile(self.skip, self.flags)
        self.scanners: dict[object, re.Pattern[str]] = {}
        self._compiled: dict[frozenset[str], re.Pattern[str]] = {}

    def _scanner(self, names: frozenset[str]) -> re.Pattern[str]:
        """One pattern: skip whitespace and comments, then the first terminal that matches.
        Compiled once per set of terminals (many parser states share one)."""
        compiled = self._compiled.get(names)
        if compiled is None:
            ordered = sorted(
                (self.terminals[n] for n in names),
                key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name),
            )
            alternatives = "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in ordered)
            compiled = self._compiled[names] = re.compile(
                f"{self.skip}(?:{alternatives})", self.flags
            )
        return compiled

    def _state_scanner(self, parser_state) -> tuple[re.Pattern[str], frozenset[str]]:
        position = parser_state.position
        accepts = frozenset(
            n for n in parser_state.parse_conf.states[position] if n in self.terminals
        )
        scanner = self.scanners.get(position)
        if scanner is None:
            scanner = self.scanners[position] = self._scanner(accepts)
        return scanner, accepts

    def lex(self, lexer_state: LexerState, parser_state) -> Iterator[Token]:
        text = lexer_state.text.text
        pos, end = lexer_state.text.start, lexer_state.text.end
        line, line_start = 1, 0
        scanners = self.scanners
        while True:
            scanner = scanners.get(parser_state.position)
            if scanner is None:
                scanner = self._state_scanner(parser_state)[0]
            match = scanner.match(text, pos, end)
            if match is None:
                if self.skip_re.match(text, pos, end).end() == end:  # type: ignore[union-attr]
                    return
                raise self._error(text, pos, end, line, line_start, parser_state)
            kind = _terminal(match)
            start = match.start(kind)
            newlines = text.count("\n", pos, start)
            if newlines:
                line += newlines
                line_start = text.rfind("\n", pos, start) + 1
            pos = match.end()
            yield new_token(
                kind, match.group(kind), start, line, start - line_start + 1, line, None, pos
            )

    def _error(
        self, text: str, pos: int, end: int, line: int, line_start: int, parser_state
    ) -> Exception:
        """UnexpectedToken when the text is a terminal this state cannot accept (a keyword
        out of place, a misspelled word), else UnexpectedCharacters."""
        start = self.skip_re.match(text, pos, end).end()  # type: ignore[union-attr]
        newlines = text.count("\n", pos, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", pos, start) + 1
        column = start - line_start + 1
        accepts = self._state_scanner(parser_state)[1]
        match = self._scanner(frozenset(self.terminals) - self.ignore).match(text, start, end)
        if match is not None:
            kind = _terminal(match)
            token = Token(kind, match.group(kind), start, line, column, line, None, match.end())
            return UnexpectedToken(
                token, accepts, state=parser_state, terminals_by_name=self.terminals
            )
        return UnexpectedCharacters(text, start, line, column, allowed=accepts, state=parser_state)


def _terminal(match: re.Match[str]) -> str:
    """The terminal a scanner matched: every alternative of a scanner is a named group."""
    if match.lastgroup is None:
        raise ValueError(f"a PXQL scanner matched {match.group()!r} outside its named groups")
    return match.lastgroup
