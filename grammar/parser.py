"""parse(): PXQL text -> ast.Query, or a PxqlError that says where and what.

The pipeline is lark's LALR parser over pxql.lark, fed by a contextual lexer (lexer.py), with
ToAst (transformer.py) run inline, then the feature-list checks (checks.py). The Lark instance is built once per process and
its grammar analysis cached on disk by lark, so that ``perfx parse`` starts fast.

Nothing but PxqlError escapes parse(), whatever the input: a failure of the parser itself is
reported as a PxqlError whose message starts with "internal error" (and the property tests
make sure no input produces one).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import cast

from lark import Lark
from lark.exceptions import UnexpectedInput

from .ast import Query
from .checks import check_features
from .errors import PxqlError
from .lexer import PxqlLexer
from .syntax_errors import translate
from .transformer import ToAst

GRAMMAR = Path(__file__).with_name("pxql.lark")


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(
        GRAMMAR.read_text(encoding="utf-8"),
        parser="lalr",
        lexer=PxqlLexer,
        transformer=ToAst(),
        cache=True,
    )


def parse(text: str, *, features: Iterable[str] | Mapping[str, str | None] | None = None) -> Query:
    """Parse one PXQL query (full form or WHY sugar) into its typed AST.

    ``features``, when given (the log's feature names), makes every feature of the query be
    checked against it, with the closest names suggested for an unknown one; when it maps
    each name to its unit (the registry's ``FeatureSpec.unit``), a number written with a unit
    must measure what its feature does (checks.py). The returned Query keeps ``text`` as its
    ``source`` for later positioned errors (grammar.semantics)."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as err:
            raise PxqlError(
                f"the query is not valid UTF-8 text: {err.reason} at byte {err.start}"
            ) from None
    if not isinstance(text, str):
        raise PxqlError(f"a query is text, not {type(text).__name__}")
    if not text.strip() or all(
        line.strip().startswith("--") or not line.strip() for line in text.split("\n")
    ):
        raise PxqlError("the query is empty", expected=["FOR", "DESPITE", "OBSERVED", "WHY"])
    try:
        # the transformer (ToAst) builds the Query while lark parses: no Tree is left.
        query = cast(Query, _lark().parse(text))
        check_features(query, text, features)
        return replace(query, source=text)
    except PxqlError as err:
        raise err.with_source(text) from None
    except UnexpectedInput as err:
        raise translate(err, text) from None
    except Exception as err:
        raise PxqlError(
            f"internal error while parsing the query ({type(err).__name__}: {err}); please report it",
            source=text,
        ) from err
