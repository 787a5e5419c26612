"""The judge prompt: g2w's own text (`prompt.txt`, package data) or a replacement file.

A template may contain only two placeholders, `{IMAGE_COUNT}` and `{EVIDENCE_MAPPING_JSON}`,
and must contain both. They are substituted by plain string replacement, so any other braces in
the text (JSON examples) stay as written. The template's SHA-256 goes into every judgment's run
config and into the cache key, so changing a word re-judges every video.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from importlib import resources

PLACEHOLDERS = ("{IMAGE_COUNT}", "{EVIDENCE_MAPPING_JSON}")
# Anything that looks like a placeholder (an upper-case name in braces) but is not one of ours
# is almost certainly a typo that would reach the judge unsubstituted.
_LOOKS_LIKE_PLACEHOLDER = re.compile(r"\{[A-Z][A-Z0-9_]*\}")


class PromptError(ValueError):
    pass


@dataclass(frozen=True)
class PromptTemplate:
    text: str
    source: str  # "builtin" or the file it came from

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    def render(self, image_count: int, mapping_json: str) -> str:
        return self.text.replace("{IMAGE_COUNT}", str(image_count)).replace("{EVIDENCE_MAPPING_JSON}", mapping_json)


def check_template(text: str) -> None:
    missing = [p for p in PLACEHOLDERS if p not in text]
    if missing:
        raise PromptError(f"prompt template lacks the placeholder(s) {missing}")
    unknown = sorted(set(_LOOKS_LIKE_PLACEHOLDER.findall(text)) - set(PLACEHOLDERS))
    if unknown:
        raise PromptError(f"prompt template has unknown placeholder(s) {unknown}; only {list(PLACEHOLDERS)} exist")


def load_prompt(path: str | os.PathLike | None = None) -> PromptTemplate:
    """The built-in prompt, or the template in `path` (UTF-8 text)."""
    if path is None:
        text = resources.files("g2w.evaluate").joinpath("prompt.txt").read_text(encoding="utf-8")
        source = "builtin"
    else:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        source = os.fspath(path)
    check_template(text)
    return PromptTemplate(text, source)
