"""The methods that answer an explanation request, by the name ``--method`` gives them:
PerfXplain, the paper's two baselines (section 5) and the stage-wide one (``peers``). The engine looks a method up here; a
new method is one more entry."""

from __future__ import annotations

from collections.abc import Callable

from .baselines import rule_of_thumb, sim_but_diff
from .explanation import Explanation
from .peers import peers
from .perfxplain import perfxplain
from .request import Request

Method = Callable[[Request], Explanation]

METHODS: dict[str, Method] = {
    "perfxplain": perfxplain,
    "peers": peers,
    "ruleofthumb": rule_of_thumb,
    "simbutdiff": sim_but_diff,
}
"""Method name (``--method``) -> the function answering a validated request."""
