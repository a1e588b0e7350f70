"""The errors whose message is meant for the user: what the command line (perfx.cli), the
batch, the REPL, the demo and the MCP assistant each print as one line instead of a
traceback. Its own module, so that none of them imports another's front."""

from __future__ import annotations

import functools
import pkgutil

USER_ERRORS: tuple[str, ...] = (
    "perfx.grammar.errors:PxqlError",
    "perfx.logs.errors:LogError",
    "perfx.explain.errors:ExplainError",
    "perfx.isolation.errors:IsolationError",
)
"""Exception classes whose message is meant for the user; each may set ``exit_code``."""


@functools.cache
def user_error_types() -> tuple[type[Exception], ...]:
    """The classes of ``USER_ERRORS``, imported when first needed."""
    return tuple(map(pkgutil.resolve_name, USER_ERRORS))
