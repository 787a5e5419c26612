"""Judges: the MLLM judge over an OpenAI-compatible endpoint, and the pixel-based reference judge."""

from __future__ import annotations

from g2w.evaluate.judges.base import Judge, JudgeNotApplicable, JudgeReply, JudgeRequest, JudgeUnavailable

JUDGES = ("reference", "openai")


def make_judge(name: str, **options) -> Judge:
    """A judge by name; `options` are its dataclass fields (endpoint, model, ... for openai)."""
    if name == "reference":
        from g2w.evaluate.judges.reference import ReferenceJudge

        return ReferenceJudge(**options)
    if name == "openai":
        from g2w.evaluate.judges.openai_judge import OpenAIJudge

        return OpenAIJudge(**options)
    raise ValueError(f"unknown judge {name!r}: use one of {JUDGES}")


__all__ = ["JUDGES", "Judge", "JudgeNotApplicable", "JudgeReply", "JudgeRequest", "JudgeUnavailable", "make_judge"]
