"""UI-contamination screens: how much of each window is covered by screen-space overlay.

Two screens answer the same `UiScreen` protocol: "static-edges" (`static_edges`, a heuristic
over edges that stay put in front of a moving scene) and "segmenter" (`segmenter`, the shipped
learned HUD segmenter). The step that uses one asks the registry `UI_SCREENS` by name; "auto"
(curation's default) is the segmenter when the shipped checkpoint loads, else the heuristic.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

import numpy as np

from g2w.video.decode import iter_frames

Bars = tuple[int, int, int, int]  # letterbox/pillarbox (top, bottom, left, right) to ignore


class UiScreen(Protocol):
    """Fed a source's sampled luma frames window by window; answers per-window coverages once
    the source is finished."""

    def start_window(self) -> None: ...

    def add(self, gray: np.ndarray, rgb: np.ndarray | None = None) -> None: ...

    def end_window(self, bars: Bars) -> None: ...

    def coverages(self) -> list[float]: ...


def _segmenter_screen() -> UiScreen:
    from g2w.curate.ui_screen.segmenter import SegmenterScreen  # torch only when asked for

    return SegmenterScreen()


def _static_edge_screen() -> UiScreen:
    from g2w.curate.ui_screen.static_edges import StaticEdgeScreen

    return StaticEdgeScreen()


UI_SCREENS = {"static-edges": _static_edge_screen, "segmenter": _segmenter_screen}


def resolve_ui_screen(name: str) -> tuple[str, str | None]:
    """(the screen `name` stands for, why "auto" fell back to the heuristic or None)."""
    if name != "auto":
        if name not in UI_SCREENS:
            raise ValueError(f"unknown UI screen {name!r}; known: auto, {', '.join(sorted(UI_SCREENS))}")
        return name, None
    problem = _segmenter_problem()
    return ("static-edges", problem) if problem else ("segmenter", None)


@lru_cache(maxsize=1)
def _segmenter_problem() -> str | None:
    """Why the shipped segmenter cannot be loaded here (None: it loads)."""
    try:
        from g2w.curate.ui_screen.segmenter import _segmenter

        _segmenter(None)
    except Exception as exc:  # any failure (missing torch, weights, a bad file) means: use the heuristic
        return f"shipped segmenter not loadable ({type(exc).__name__}: {exc})"
    return None


def make_ui_screen(name: str) -> UiScreen:
    return UI_SCREENS[resolve_ui_screen(name)[0]]()


def mask_coverages(mask_video: str, spans: list[tuple[float, float]]) -> list[float]:
    """The truth a screen is judged against: the mean share of UI pixels (mask >= 128) over the
    frames of each (start_s, end_s) span of a pair's `mask.mkv` (0 for a span without frames)."""
    shares = [(f.time_s, float((f.rgb[..., 0] >= 128).mean())) for f in iter_frames(mask_video, width=320, height=180)]
    return [float(np.mean([s for t, s in shares if start <= t < end] or [0.0])) for start, end in spans]
