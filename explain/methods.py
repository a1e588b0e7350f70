"""The methods that answer an explanation request, by the name ``--method`` gives them:
PerfXplain and the paper's two baselines (section 5). The engine looks a method up here; a
new method is one more entry."""

from __future__ import annotations

from collections.abc import Callable

from .baselines import rule_of_thumb, sim_but_diff
from .explanation import Explanation
from .perfxplain import perfxplain
from .request import Request

Method = Callable[[Request], Explanation]

METHODS: dict[str, Method] = {
    "perfxplain": perfxplain,
    "ruleofthumb": rule_of_thumb,
    "simbutdiff": sim_but_diff,
}
"""Method name (``--method``) -> the function answering a validated request."""
