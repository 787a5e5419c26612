"""What every judge receives and returns.

A judge sees one video at a time (one call per video, Appendix J.6) and answers with raw text
that must pass `g2w.evaluate.schema.validate`; the MLLM judge and the pixel-based reference
judge are interchangeable behind this interface. `settings()` is the judge's frozen run
configuration: it is written into every judgment and keys the cache, so it must hold every
knob that can change an answer and nothing secret.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: keeps `import g2w.evaluate.judges` light for the CLI
    from g2w.cases.case import Case
    from g2w.evaluate.evidence import Evidence
    from g2w.evaluate.plan import Plan
    from g2w.evaluate.prompt import PromptTemplate


class JudgeUnavailable(Exception):
    """No answer could be obtained (transport failures after retries, a refused request).

    Unlike an invalid answer, this says nothing about the edit: the video stays unjudged, is
    not cached, and a rerun tries again.
    """


class JudgeNotApplicable(Exception):
    """The judge cannot judge this case at all (the reference judge on a wild case)."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class JudgeRequest:
    case: Case
    edited_path: str
    plan: Plan
    evidence: Evidence
    prompt: PromptTemplate


@dataclass
class JudgeReply:
    text: str  # what schema validation reads
    meta: dict = field(default_factory=dict)  # transport details kept in the record


class Judge(Protocol):
    name: str
    uses_prompt: bool  # False for judges that never read the prompt (kept out of the cache key)

    def settings(self) -> dict: ...

    def cache_inputs(self, request: JudgeRequest) -> dict:
        """Inputs beyond evidence, prompt and settings that decide the answer."""
        ...

    def call(self, request: JudgeRequest, attempt: int) -> JudgeReply: ...
