"""Standardize a kept window to exactly 5 s, 1280x720, 30 fps, 150 frames (Appendix B.1).

Geometry: the display-rotated picture is scaled to fit inside the canvas with its display
aspect ratio kept (stored size times the sample aspect ratio, so anamorphic sources with
non-square pixels come out undistorted), and centred on black: wide sources get bars above and below, tall ones (portrait phone
footage) bars left and right. HD outputs (720p and up) are converted with BT.709 and tagged so. Time: output frame j shows what was on screen at t = start + j/30,
the last source frame that starts at or before t, so 24 fps sources repeat frames and 60 fps
sources skip them by timestamp, never by index (variable frame rate stays correct too).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from g2w.curate.analyze import upright
from g2w.io import storage
from g2w.step import Batch, Resources, Step
from g2w.video.decode import iter_video_frames
from g2w.video.encode import VideoWriter
from g2w.video.errors import VideoError
from g2w.video.probe import open_media

_EPS = 1e-3


@dataclass(frozen=True)
class Placement:
    width: int  # scaled picture size
    height: int
    x: int  # top-left corner on the canvas
    y: int


def sample_aspect(path: str) -> float:
    """How wide a stored pixel is shown, relative to its height (1.0 unless the stream says)."""
    with open_media(path) as container:
        sar = container.streams.video[0].sample_aspect_ratio
    return float(sar) if sar and sar > 0 else 1.0


def fit(src_w: int, src_h: int, rotation: int, out_w: int, out_h: int, sar: float = 1.0) -> Placement:
    """Where the source picture goes on the canvas: display aspect kept, centred, even sizes."""
    src_w = src_w * sar  # the stored width as shown
    if rotation % 180:
        src_w, src_h = src_h, src_w
    scale = min(out_w / src_w, out_h / src_h)
    w = min(out_w, max(2, round(src_w * scale / 2) * 2))
    h = min(out_h, max(2, round(src_h * scale / 2) * 2))
    return Placement(w, h, (out_w - w) // 2, (out_h - h) // 2)


def output_times(start_s: float, frames: int, fps: int) -> np.ndarray:
    return start_s + np.arange(frames) / fps


def on_screen(frames: Iterable[tuple[float, object]], wanted: np.ndarray, frame_duration: float) -> Iterator:
    """For each wanted time in order, the frame on screen then: the last one starting at or
    before it. Streams: holds one frame. The last frame stays on screen for `frame_duration`;
    wanted times before the first frame or after the last are not produced."""
    j = 0
    held = None  # (start time, frame)
    for t, frame in frames:
        while j < len(wanted) and held is not None and t > wanted[j] + _EPS:
            yield held[1]
            j += 1
        if j == len(wanted):
            return
        held = (t, frame)
    while j < len(wanted) and held is not None and wanted[j] < held[0] + frame_duration - _EPS:
        yield held[1]
        j += 1


@dataclass
class StandardizeClips(Step):
    """Batch of kept window rows -> one row each: `clip_id`, `clip_path`, `std_status`, `std_error`."""

    out_dir: str
    width: int = 1280
    height: int = 720
    fps: int = 30
    window_s: float = 5.0
    crf: int = 18
    preset: str = "fast"

    def resources(self) -> Resources:
        return Resources(num_cpus=1, batch_size=1)

    def _threads(self) -> int:
        """Decode and encode threads: the task's CPUs, so N tasks on an N-core node use N cores."""
        return max(1, int(self.resources().num_cpus))

    def __call__(self, batch: Batch) -> Batch:
        out = {"clip_id": [], "clip_path": [], "std_status": [], "std_error": []}
        for i in range(len(batch["clip_id"])):
            row = {k: batch[k][i] for k in ("clip_id", "source", "start_s", "width", "height", "fps", "rotation")}
            path = storage.join(self.out_dir, f"{row['clip_id']}.mp4")
            status, error = "ok", ""
            if not storage.exists(path):  # published only once complete, so an existing clip is whole
                try:
                    with storage.staged_file(path) as local:  # encoded here, then renamed or uploaded
                        self.write_clip(row, local)
                except (VideoError, ValueError) as exc:
                    status, error = "error", str(exc)
            out["clip_id"].append(str(row["clip_id"]))
            out["clip_path"].append(path if status == "ok" else "")
            out["std_status"].append(status)
            out["std_error"].append(error)
        return {k: np.array(v) for k, v in out.items()}

    def write_clip(self, row: dict, path: str) -> None:
        count = round(self.window_s * self.fps)
        start = float(row["start_s"])
        wanted = output_times(start, count, self.fps)
        rotation = int(row["rotation"])
        sar = sample_aspect(str(row["source"]))
        place = fit(int(row["width"]), int(row["height"]), rotation, self.width, self.height, sar)
        scaled = (place.height, place.width) if rotation % 180 else (place.width, place.height)
        canvas = np.zeros((self.height, self.width, 3), np.uint8)
        stream = (
            (t, f)
            for _, t, f in iter_video_frames(
                str(row["source"]), max(0.0, start - 1.0), wanted[-1] + 1.0, threads=self._threads()
            )
        )
        hd = self.height >= 720  # HD output: BT.709, converted and tagged
        with VideoWriter(
            path, self.width, self.height, self.fps, crf=self.crf, preset=self.preset, bt709=hd, threads=self._threads()
        ) as writer:
            for frame in on_screen(stream, wanted, 1.0 / max(float(row["fps"]), 1.0)):
                picture = frame.to_ndarray(format="rgb24", width=scaled[0], height=scaled[1], interpolation="AREA")
                canvas[place.y : place.y + place.height, place.x : place.x + place.width] = upright(picture, rotation)
                writer.write(canvas)
            if writer.frames_written != count:
                raise ValueError(f"{row['source']}: only {writer.frames_written} of {count} frames could be made")
