"""The front end: one streaming decode per source, turned into one measured row per window.

Every frame is decoded once, in order (H.264 needs its references anyway). Every frame feeds the
cut and shake cues through a tiny thumbnail read from its planes (decided per window at the
source's end, since a cut is judged against the frames after it too) and, where TransNetV2
judges the cuts (`cut_modes`), a 48x27 RGB copy scaled by swscale from the same decoded frame; only sampled frames are
converted in full: `analysis_fps` per second at a fixed short side for quality and the UI screen,
and the frame on screen at each window's centre, scaled and centre-cropped for CLIP. Memory holds one
window's accumulators, never the video, so an hour-long source costs what a minute does.

A task analyses one segment of a source (`CurateConfig.segment_windows` windows, 5 minutes by
default; `g2w.curate.windows.segments`), not the whole source: a 10-hour stream becomes 120
tasks spread over the cluster, a retry re-decodes one segment, and the rows (with their crops)
leave the worker at the end of each segment instead of the end of the source.

The 224x224 centre crop (150 kB) travels to the embedding actors with the row; that replaces
a second, seeking decode of every central frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from g2w.curate import cut_model, transnet
from g2w.curate.borders import border_bars
from g2w.curate.config import QualityThresholds
from g2w.curate.cut_modes import frame_cut_scores, needs_frames
from g2w.curate.cuts import FLASH_S, MAX_BRIDGE_S, RETURN_FRAMES, CutThresholds, FrameSignals, luma_thumb
from g2w.curate.quality import QualityAccumulator, shake_score
from g2w.curate.rows import CROP_SIZE, base_row, error_row, to_columns
from g2w.curate.ui_screen import UiScreen, make_ui_screen
from g2w.curate.windows import Window, plan_windows
from g2w.step import Batch, Resources, Step
from g2w.video.decode import iter_video_frames, luma
from g2w.video.errors import VideoError

_EPS = 1e-3


def analysis_size(width: int, height: int, short_side: int) -> tuple[int, int]:
    """(w, h) with the given short side (never above the source's), aspect kept, both even."""
    scale = min(1.0, short_side / min(width, height))
    return max(2, round(width * scale / 2) * 2), max(2, round(height * scale / 2) * 2)


def center_crop(frame, size: int, rotation: int) -> np.ndarray:
    """The frame scaled so its short side is `size`, centre-cropped square, display-rotated."""
    w, h = frame.width, frame.height
    scale = size / min(w, h)
    rgb = frame.to_ndarray(
        format="rgb24", width=max(size, round(w * scale)), height=max(size, round(h * scale)), interpolation="AREA"
    )
    rgb = upright(rgb, rotation)
    y0, x0 = (rgb.shape[0] - size) // 2, (rgb.shape[1] - size) // 2
    return np.ascontiguousarray(rgb[y0 : y0 + size, x0 : x0 + size])


def upright(image: np.ndarray, rotation: int) -> np.ndarray:
    """Apply a display-matrix rotation (degrees counter-clockwise) to decoded pixels."""
    return np.rot90(image, k=(rotation // 90) % 4) if rotation % 360 else image


def cut_and_shake(times: np.ndarray, scores: np.ndarray, shifts: np.ndarray, start_s: float, end_s: float) -> dict:
    """A window's cut and shake measures from its source's per-frame times, cut scores and
    global shifts. A cut onto the window's first frame is not inside its clip, so it is not
    counted; it is still listed in `cut_times`, because the window before ends just ahead of it
    and a segment joining the two must break there."""
    frames = (times + _EPS >= start_s) & (times + _EPS < end_s)
    inside = np.flatnonzero(frames & (times > start_s + _EPS))
    cuts = inside[scores[inside] >= 1.0]
    listed = np.flatnonzero(frames & (scores >= 1.0))
    return {
        "cut_count": len(cuts),
        "cut_times": [round(float(times[i]), 3) for i in listed],
        "cut_score": float(scores[inside].max()) if len(inside) else 0.0,
        "shake": shake_score(shifts[frames]),
    }


@dataclass
class _WindowState:
    window: Window
    ui: UiScreen  # the source's screen, shared by all its windows
    quality: QualityAccumulator = field(default_factory=QualityAccumulator)
    crop: np.ndarray | None = None
    next_sample_t: float = 0.0
    bars: tuple[int, int, int, int] | None = None


@dataclass
class AnalyzeWindows(Step):
    """Batch of sources-table rows -> batch of window rows (with `crop` for the embedder)."""

    window_s: float = 5.0
    analysis_fps: float = 8.0
    analysis_short_side: int = 540
    ui_detector: str = "auto"
    quality: QualityThresholds = field(default_factory=QualityThresholds)
    cut_thresholds: CutThresholds = field(default_factory=CutThresholds)
    cuts: str = "rules"  # rules | cascade | transnetv2 | learned (cut_modes)
    cut_probability: float = transnet.THRESHOLD  # TransNetV2's per-frame probability that is a cut

    def resources(self) -> Resources:
        return Resources(num_cpus=1, batch_size=1)

    def __call__(self, batch: Batch) -> Batch:
        rows = []
        for i in range(len(batch["path"])):
            source = {k: batch[k][i] for k in batch}
            if source["status"] == "ok":
                first = int(source.get("first_window", 0))
                end = int(source["end_window"]) if "end_window" in source else None
                rows += self.analyze_source(source, first, end)
        return to_columns(rows)

    def analyze_source(self, src: dict, first_window: int = 0, end_window: int | None = None) -> list[dict]:
        """Rows for windows [first_window, end_window) of a source (all of them by default).

        A segment decodes from a few frames before its first window (seeking to the keyframe
        before that) to a few frames after its last, so the cut cues at its edges see the same
        neighbours as in a whole-source pass; the UI screen's evidence is the segment's own."""
        every = plan_windows(float(src["duration_s"]), self.window_s)
        windows = every[first_window:end_window]
        if not windows:
            return []
        size = analysis_size(int(src["width"]), int(src["height"]), self.analysis_short_side)
        fps = max(float(src["fps"]), 1.0)
        frame_gap = 1.5 / fps
        context = (self.cut_thresholds.neighbours + 2) / fps  # frames each cut score looks at, and some
        # before the first window, also the longest flat run a cut is bridged across (cuts.MAX_BRIDGE_S)
        start_s = max(0.0, windows[0].start_s - context - MAX_BRIDGE_S) if first_window > 0 else 0.0
        after = max(context, (RETURN_FRAMES + 2) / fps, FLASH_S + 2 / fps)  # ... and the frames the return veto
        # and the flash test look ahead
        tail_s = windows[-1].end_s + after if windows[-1].index + 1 < len(every) else None
        measure_from = cut_model.CANDIDATE_SCORE if self.cuts == "learned" else None  # the model's cues
        signals = FrameSignals(self.cut_thresholds, measure_from)
        small = [] if needs_frames(self.cuts) else None  # the network's 48x27 RGB frames
        ui = make_ui_screen(self.ui_detector)
        rows: list[dict] = []
        position = 0
        state = self._open(windows[0], ui)
        prev = None  # (t, frame) of the last decoded frame
        failure = None
        try:
            for _, t, frame in iter_video_frames(str(src["path"]), start_s=start_s, threads=1):
                while state is not None and t + _EPS >= state.window.end_s:
                    rows.append(self._row(src, state))
                    position += 1
                    state = self._open(windows[position], ui) if position < len(windows) else None
                if state is None and (tail_s is None or t + _EPS >= tail_s):
                    break
                signals.add(t, luma_thumb(frame))
                if small is not None:
                    small.append(frame.to_ndarray(format="rgb24", width=transnet.SIZE[0], height=transnet.SIZE[1]))
                if state is not None and t + _EPS >= state.window.start_s:
                    self._see(src, state, frame, prev, size, t)
                prev = (t, frame)
        except VideoError as exc:
            failure = (exc.reason, str(exc))
        if failure is None and state is not None and prev is not None and prev[0] + frame_gap >= state.window.end_s:
            rows.append(self._row(src, state))  # the normal end of the stream
        for row, coverage in zip(rows, ui.coverages()):  # needs the whole segment, so last
            row["ui_coverage"] = coverage
        self._cuts_and_shake(rows, signals, small)
        done = len(rows)
        ended = f"{prev[0]:.2f} s" if prev else f"{start_s:.2f} s (no frame decoded from there)"
        reason, message = failure or ("truncated", f"{src['path']}: stream ends at {ended}, before this window ends")
        return rows + [error_row(src, w, reason, message) for w in windows[done:]]

    def _cuts_and_shake(self, rows: list[dict], signals: FrameSignals, small: list | None) -> None:
        """Fill each finished window's cut and shake measures from the source's frame signals
        (and, for the network's modes, its 48x27 frames), naming the detector that decided."""
        times, shifts = np.array(signals.times), np.array(signals.shift).reshape(-1, 2)
        frames = None
        if small is not None:
            frames = np.stack(small) if small else np.zeros((0, transnet.SIZE[1], transnet.SIZE[0], 3), np.uint8)
        scores = frame_cut_scores(self.cuts, signals, frames, self.cut_thresholds, self.cut_probability)
        for row in rows:
            row.update(cut_and_shake(times, scores, shifts, row["start_s"], row["end_s"]), cut_detector=self.cuts)

    def _see(self, src, state: _WindowState, frame, prev, size, t: float) -> None:
        """One decoded frame inside the window: take the centre crop and samples as they come."""
        if state.crop is None and t + _EPS >= state.window.center_s:
            on_screen = frame if prev is None or t <= state.window.center_s + _EPS else prev[1]
            state.crop = center_crop(on_screen, CROP_SIZE, int(src["rotation"]))
        if t + _EPS >= state.next_sample_t:
            gray = luma(frame, *size)
            state.quality.add(gray)
            rgb = None
            if getattr(state.ui, "needs_rgb", False):  # the learned screen: colour at its own size
                w, h = state.ui.model_size(*size)
                rgb = frame.to_ndarray(format="rgb24", width=w, height=h, interpolation="AREA")
            state.ui.add(gray, rgb)
            if state.bars is None:
                state.bars = border_bars(gray)
            state.next_sample_t = t + 1.0 / self.analysis_fps - _EPS

    @staticmethod
    def _open(window: Window, ui: UiScreen) -> _WindowState:
        ui.start_window()
        return _WindowState(window, ui, next_sample_t=window.start_s)

    def _row(self, src: dict, state: _WindowState) -> dict:
        measures = state.quality.measures(self.quality)
        state.ui.end_window(state.bars or (0, 0, 0, 0))
        return {
            **base_row(src, state.window),
            **measures,
            "crop": state.crop if state.crop is not None else np.zeros((CROP_SIZE, CROP_SIZE, 3), np.uint8),
        }
