"""What a task's gap diagnoses, in words (``Diagnosis``): shared by the gap's mechanisms
(``explain.gap``) and those of a task's attempt and host (``explain.attempts``,
``explain.hosts``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnosis:
    """What the gap's largest part says, in words, with the next step where there is one."""

    name: str
    detail: str
    next_step: str = ""
    parts: tuple[str, ...] = ()
    """The parts of the gap (``Gap.shares``' keys) the mechanism took the time of, where
    its own features are not what the split credits them with: spill that came with 5x the
    input records took the time the cost model puts on the input (the stage's other tasks
    did not spill, so the fit cannot tell the two apart)."""
    carried_by: str = ""
    """The kind of volume (``costmodel.KIND_OF``) whose features measure the mechanism."""

    def to_dict(self) -> dict:
        return {"name": self.name, "detail": self.detail, "next_step": self.next_step or None}
