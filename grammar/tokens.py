"""Spans and small helpers over lark tokens, shared by the builders of the AST."""

from __future__ import annotations

import re
from typing import NamedTuple

from lark import Token

from .ast import Span
from .errors import PxqlError

_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t"}


class Located(NamedTuple):
    """A value with where it was written: values carry no span in the AST, but errors about
    them must point at them."""

    node: object
    span: Span


def token_span(token: Token) -> Span:
    return Span(
        _position(token.start_pos),
        _position(token.end_pos),
        _position(token.line),
        _position(token.column),
    )


def _position(value: int | None) -> int:
    """lark types a token's positions as optional (a token made by hand may have none); every
    token of PxqlLexer has them, so a missing one is a bug of ours."""
    if value is None:
        raise ValueError("a PXQL token without a position")
    return value


def join(first: Span, last: Span) -> Span:
    return Span(first.start, last.end, first.line, first.column)


def span_of(item: object) -> Span:
    """The span of a token or of anything built from tokens (which all carry ``span``)."""
    if isinstance(item, Token):
        return token_span(item)
    return item.span  # type: ignore[attr-defined]


def children_span(children: list) -> Span:
    return join(span_of(children[0]), span_of(children[-1]))


def error(message: str, span: Span, **kwargs) -> PxqlError:
    """A PxqlError located at ``span`` (parse() attaches the source text)."""
    return PxqlError(message, span=(span.start, span.end), **kwargs)


def unquote(token: Token) -> str:
    """The text of a quoted STRING token: ``\\n`` is a newline, ``\\t`` a tab, ``\\x`` is x."""
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), token.value[1:-1])
