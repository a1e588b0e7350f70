"""``ExplainOptions``: every option of an explanation, with its default, its validation and its
help text, in one frozen value.

It is built once, from the command line's flags (perfx/commands/options.py makes the flags
from the fields below), from keywords (``perfx.explain``) or from a REPL's settings, checked
when built, and travels typed through every layer down to the method answering the request;
``for_query`` fills what the query's WITH clauses say. This module imports nothing heavy: the
command line reads its defaults and method names before any log is loaded."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from .errors import ExplainError

if TYPE_CHECKING:
    from perfx.grammar.ast import Query

DEFAULT_SAMPLE = 2000
"""Balanced training pairs sampled (section 4.3): the one definition of the default."""
MIN_PER_LABEL = 3
"""Pairs of each label (behaving as OBSERVED, as EXPECTED) a query needs to learn from."""
LEAST_SAMPLE = 2 * MIN_PER_LABEL
"""The smallest sample that can hold ``MIN_PER_LABEL`` pairs of each label: below it every
query was refused for "too few related pairs" of a log of thousands, and told to relax a
clause the user had not got wrong (a probe of the CLI)."""
DEFAULT_WIDTH = 3
"""BECAUSE width when neither the options nor the query's WITH WIDTH set one."""
GAP_WEIGHT = 0.7
"""Weight of the gap a candidate accounts for against the paper's precision/generality
score when the pair's gap is known (see ``search.grow``)."""

METHOD_NAMES = ("perfxplain", "peers", "ruleofthumb", "simbutdiff")
"""The methods ``method`` may name (explain/methods.py maps each to its function)."""
LEVELS = (1, 2, 3)


def _option(default: Any, help: str) -> Any:
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class ExplainOptions:
    """The options of one explanation (each field's help text is its ``help``)."""

    width: int | None = _option(
        None, "Width of the BECAUSE clause (overrides the query's WITH WIDTH; default: it, else 3)."
    )
    despite_width: int | None = _option(None, "Generate a DESPITE extension of up to this width.")
    sample: int = _option(DEFAULT_SAMPLE, "Balanced training pairs sampled (section 4.3).")
    seed: int = _option(0, "Seed of the pair sampling.")
    method: str = _option(
        "perfxplain", "perfxplain, ruleofthumb, simbutdiff or peers (robust z against the stage)."
    )
    level: int = _option(3, "Pair-feature level (1 isSame; 2 + compare, diff; 3 + base).")
    precision_weight: float = _option(
        0.8, "Weight of precision against generality in the paper's score (section 4.4)."
    )
    relevance_threshold: float = _option(
        0.9, "Relevance a DESPITE clause must reach to stop growing (section 4.5)."
    )
    gap_weight: float = _option(
        GAP_WEIGHT,
        "Weight of the share of the pair's duration gap a BECAUSE predicate accounts for "
        "against the paper's score (0: the paper's ranking alone).",
    )

    def __post_init__(self) -> None:
        for option in fields(self):
            problem = option_problem(option.name, getattr(self, option.name))
            if problem:
                raise ExplainError(f"option {option.name}: {problem}")

    @classmethod
    def of(cls, options: ExplainOptions | None = None, **changes: Any) -> ExplainOptions:
        """``options`` (default: the defaults) with ``changes`` (field names) applied; a
        change that is None leaves the field as it was, as an unset flag does."""
        given = {name: value for name, value in changes.items() if value is not None}
        unknown = set(given) - {f.name for f in fields(cls)}
        if unknown:
            raise TypeError(f"unknown explanation option(s): {', '.join(sorted(unknown))}")
        return replace(options or cls(), **given)

    def for_query(self, query: Query) -> ExplainOptions:
        """These options with what the query's WITH clauses say filled in where no option
        set it (width: else ``DEFAULT_WIDTH``)."""
        width = self.width if self.width is not None else query.width
        despite = self.despite_width if self.despite_width is not None else query.despite_width
        return replace(
            self, width=width if width is not None else DEFAULT_WIDTH, despite_width=despite
        )

    @staticmethod
    def help(name: str) -> str:
        """The help text of the option ``name``."""
        return next(f.metadata["help"] for f in fields(ExplainOptions) if f.name == name)

    @staticmethod
    def default(name: str) -> Any:
        """The default of the option ``name``."""
        return next(f.default for f in fields(ExplainOptions) if f.name == name)


def option_problem(name: str, value: Any) -> str | None:
    """Why ``value`` cannot be the option ``name`` (None: it can): the one check of every
    place an option is set (flags, keywords, the REPL's ``\\set``)."""
    if name == "method" and value not in METHOD_NAMES:
        return f"unknown method {value!r}; choose from {', '.join(sorted(METHOD_NAMES))}"
    if name == "level" and value not in LEVELS:
        return "must be 1, 2 or 3"
    if name == "sample" and value < LEAST_SAMPLE:
        return (
            f"must be at least {LEAST_SAMPLE} ({MIN_PER_LABEL} pairs behaving as OBSERVED and "
            f"{MIN_PER_LABEL} as EXPECTED)"
        )
    if name == "width" and value is not None and value < 1:
        return "must be at least 1"
    if name == "despite_width" and value is not None and value < 0:
        return "must be at least 0 (0: generate no DESPITE)"
    return None
