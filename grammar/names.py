"""How a name a user wrote matches the names perfx knows: features, keywords, commands.

The one rule for every lookup and did-you-mean (the parser's checks, the feature registry,
the explanation engine, the REPL's completion and its commands): names agree ignoring case,
spaces, underscores, dots and dashes, because the paper writes them loosely (``jobID`` is
``job_id``, ``pig script`` is ``pig_script``). Pure text, no dependencies: the registry
(logs/) and the parser (grammar/) both use it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping

_SEPARATORS = re.compile(r"[\s_.\-]+")


def name_key(name: str) -> str:
    """The form under which names are compared: ``Job_ID`` and ``jobID`` agree."""
    return _SEPARATORS.sub("", name).lower()


def _spellings(known: Iterable[str] | Mapping[str, str]) -> list[tuple[str, str]]:
    """(spelling, name it stands for): a mapping gives aliases, an iterable its own names."""
    if isinstance(known, Mapping):
        return list(known.items())
    return [(name, name) for name in known]


def resolve_name(name: str, known: Iterable[str] | Mapping[str, str]) -> str | None:
    """The known name ``name`` refers to: the one spelled exactly so, else the first that
    agrees with it under ``name_key``; None if none does. ``known`` may map spellings
    (aliases) to the name they stand for."""
    spellings = _spellings(known)
    exact = next((target for spelling, target in spellings if spelling == name), None)
    if exact is not None:
        return exact
    key = name_key(name)
    return next((target for spelling, target in spellings if name_key(spelling) == key), None)


def closest(
    word: str, known: Iterable[str] | Mapping[str, str], *, cutoff: float = 0.6, n: int = 3
) -> list[str]:
    """Did-you-mean: up to ``n`` known names whose spelling is closest to ``word`` (compared
    under ``name_key``), best first. ``known`` may map spellings to names, as in
    ``resolve_name``."""
    by_key: dict[str, str] = {}
    for spelling, target in _spellings(known):
        by_key.setdefault(name_key(spelling), target)
    close = difflib.get_close_matches(name_key(word), list(by_key), n=n * 2, cutoff=cutoff)
    return list(dict.fromkeys(by_key[key] for key in close))[:n]


def completes(typed: str, name: str) -> bool:
    """Does ``name`` complete the prefix ``typed`` (under ``name_key``)?"""
    return name_key(name).startswith(name_key(typed))
