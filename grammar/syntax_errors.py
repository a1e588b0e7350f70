"""lark's syntax errors, said in words: what was found, what would have been accepted, and
the keyword the user probably meant.

lark reports the terminals a parser state accepts by their grammar names (``ORD_SIM``,
``QUALIFIED``); users get phrases (``LT, SIM or GT``, ``an id field like T1.TaskID``).
"""

from __future__ import annotations

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from . import vocabulary
from .errors import PxqlError, or_list
from .names import closest
from .tokens import token_span

KEYWORDS: dict[str, str] = {word: word for word in vocabulary.KEYWORDS}
"""Keyword terminals -> how they are spelled to the user (and offered as did-you-mean)."""

_SPELLINGS: dict[str, list[str]] = {
    **{name: [word] for name, word in KEYWORDS.items()},
    "PAIR_OP": list(vocabulary.PAIR_OPS),
    "BOOL": list(vocabulary.BOOLEANS),
    "ORDERING": list(vocabulary.ORDERINGS),
}
"""Terminals -> the words a misspelled token is compared with for a did-you-mean."""

_VALUE_TERMINALS = {"NUMBER", "STRING", "BAREWORD", "BOOL", "ORDERING", "LPAR"}

_PHRASES: dict[str, str] = {
    "WORD": "a feature name",
    "QUOTED_NAME": "a feature name",
    "NAME": "a variable name (e.g. T1)",
    "QUALIFIED": "an id field (e.g. T1.TaskID)",
    "QMARK": "an id (e.g. 33, app-1/33, or ? to bind later)",
    "ID": "an id (e.g. 33, app-1/33, or ? to bind later)",
    "OP": "a comparison operator (=, !=, <, <=, >, >=)",
    "EQ": "'='",
    "PAIR_OP": "a pair feature (isSame, compare or diff)",
    "ORDERING": "LT, SIM or GT",
    "BOOL": "T/F",
    "NUMBER": "a number",
    "STRING": "a quoted string",
    "BAREWORD": "a quoted string",
    "LPAR": "a pair (a, b)",
    "UNIT": "a unit (ms, s, min, KB, MB, GB, ...)",
    "COMMA": "','",
    "RPAR": "')'",
    "$END": "the end of the query",
}


def expected_words(terminals: set[str]) -> list[str]:
    """The phrases for a set of acceptable terminals, in a stable, readable order."""
    terminals = set(terminals)
    if "QMARK" in terminals:
        terminals.discard("STRING")  # a quoted id: "an id" says it
    if terminals >= _VALUE_TERMINALS:
        terminals = (terminals - _VALUE_TERMINALS) | {"<value>"}
    if "OP" in terminals:
        # Inside a feature name another word may follow, but the operator is the news.
        terminals.discard("WORD")
    words: list[str] = []
    for name in sorted(terminals, key=_order):
        word = _GROUPS.get(name) or KEYWORDS.get(name) or _PHRASES.get(name) or name
        if word not in words:
            words.append(word)
    return words


_GROUPS = {
    "<value>": "a value (a number, 'text', T/F, LT/SIM/GT or (a, b))",
    "APP": "APP, JOB, STAGE or TASK",
    "JOB": "APP, JOB, STAGE or TASK",
    "STAGE": "APP, JOB, STAGE or TASK",
    "TASK": "APP, JOB, STAGE or TASK",
}

_ORDER = [
    "WORD",
    "QUOTED_NAME",
    "NAME",
    "QUALIFIED",
    "QMARK",
    "ID",
    "OP",
    "EQ",
    "PAIR_OP",
    "<value>",
    "NUMBER",
    "UNIT",
    "STRING",
    "BAREWORD",
    "BOOL",
    "ORDERING",
    "LPAR",
    "COMMA",
    "RPAR",
    "FOR",
    "WHERE",
    "WHY",
    "APP",
    "JOB",
    "STAGE",
    "TASK",
    "SLOWER",
    "FASTER",
    "SAME",
    "THAN",
    "AS",
    "AND",
    "DESPITE",
    "OBSERVED",
    "EXPECTED",
    "WITH",
    "WIDTH",
    "$END",
]


def _order(name: str) -> int:
    return _ORDER.index(name) if name in _ORDER else len(_ORDER)


def _acceptable(err: UnexpectedInput, fallback: set[str]) -> set[str]:
    """The terminals acceptable where the error occurred. The LALR tables merge the states
    of a rule used in several places (an id after WHERE and after WHY TASK), so their
    lookahead sets over-approximate; lark's interactive parser replays the pending
    reductions for each candidate and gives the exact set."""
    interactive = getattr(err, "interactive_parser", None)
    if interactive is None:
        return fallback
    return set(interactive.accepts())


def translate(err: UnexpectedInput, source: str) -> PxqlError:
    """The PxqlError for one of lark's UnexpectedToken / UnexpectedCharacters."""
    if isinstance(err, UnexpectedToken):
        return _unexpected_token(err.token, _acceptable(err, set(err.expected)), source)
    if isinstance(err, UnexpectedCharacters):
        # lark declares pos_in_stream None on the base class and reads it as `or 0` itself;
        # UnexpectedCharacters sets it to the offset of the character.
        return _unexpected_character(
            err.pos_in_stream or 0, _acceptable(err, set(err.allowed or ())), source
        )
    return PxqlError("the query could not be parsed", source=source, span=(0, len(source)))


def _unexpected_token(token: Token, expected: set[str], source: str) -> PxqlError:
    words = expected_words(expected)
    wanted = f"; expected {or_list(words)}" if words else ""
    if token.type == "$END":
        end = len(source.rstrip())
        return PxqlError(
            f"unexpected end of query{wanted}", span=(end, end + 1), source=source, expected=words
        )
    if "WORD" in expected and token.value.lower() in vocabulary.RESERVED:
        wanted += (
            f" ('{token.value}' is a keyword: write `{token.value}` for a feature of that name)"
        )
    keywords = [word for name in sorted(expected, key=_order) for word in _SPELLINGS.get(name, ())]
    suggestions = closest(token.value, keywords, cutoff=0.6) if token.value.isidentifier() else []
    span = token_span(token)
    return PxqlError(
        f"unexpected '{token.value}'{wanted}",
        span=(span.start, span.end),
        source=source,
        expected=words,
        suggestions=suggestions,
    )


TYPOGRAPHIC_QUOTES = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}
"""Curly quotes and the straight quote each stands for."""


def _unexpected_character(pos: int, expected: set[str], source: str) -> PxqlError:
    char = source[pos]
    words = expected_words(expected)
    if char in "'\"":
        message = f"unterminated string: no closing {char} on this line"
    elif char == "`":
        message = "unterminated `name`: no closing ` on this line"
    elif char in TYPOGRAPHIC_QUOTES:
        # what a word processor or a chat makes of ' and " in a query pasted from it
        straight = TYPOGRAPHIC_QUOTES[char]
        message = f"typographic quote '{char}': write {straight} (a straight quote) instead"
    else:
        shown = f"'{char}'" if char.isprintable() and not char.isspace() else f"U+{ord(char):04X}"
        message = f"unexpected character {shown}"
        if words:
            message += f"; expected {or_list(words)}"
    end = pos + 1
    if char.isalnum() or char == "_":
        while end < len(source) and (source[end].isalnum() or source[end] == "_"):
            end += 1
    return PxqlError(message, span=(pos, end), source=source, expected=words)
