"""Text proposals: where a pretrained scene-text detector sees text, as a per-frame probability map.

HUD text (kill feeds, chat, console lines, counters, name tags) comes in styles no synthesized
asset library covers, but a detector trained on real-world text finds most of it. The detector
is PP-OCRv4's text-detection network (a DB segmentation model), which `rapidocr-onnxruntime`
ships in its wheel and runs on onnxruntime; only detection runs here, never recognition, because
where text is matters and what it says does not.

Detection costs far more per frame than the segmenter, so it runs sparsely: on every `every`-th
frame, on a copy scaled so its long side is `long_side`. HUD text is static or changes slowly, so
the boxes of the last run are carried to the frames in between, and the map (each box filled
with its detection score, the maximum where boxes overlap) is rasterised once per run at the
size the caller asks for, the segmenter's input size. Text boxes are a cue, not a mask: they
also cover signs and labels in the world, and they cover the gaps between glyphs.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

DEFAULT_EVERY = 30  # frames between detector runs: once a second at 30 fps
DEFAULT_LONG_SIDE = 640  # the detector's input long side (a multiple of 32)


@dataclass(frozen=True)
class TextBox:
    """One detected text region: its corner points (4, 2) as fractions of the frame's width and
    height (so a box found on the reduced copy places on a map of any size) and its score."""

    points: np.ndarray
    score: float

    def pixel_box(self, width: int, height: int) -> list[int]:
        """Half-open xyxy bounding box in a `width` x `height` frame."""
        xs, ys = self.points[:, 0] * width, self.points[:, 1] * height
        return [
            max(0, int(np.floor(xs.min()))),
            max(0, int(np.floor(ys.min()))),
            min(width, int(np.ceil(xs.max()))),
            min(height, int(np.ceil(ys.max()))),
        ]


@cache
def _detector(threads: int, box_thresh: float, unclip_ratio: float):
    """The wheel's PP-OCRv4 detector, built by the package's own config and loading code."""
    from rapidocr_onnxruntime.ch_ppocr_det import TextDetector
    from rapidocr_onnxruntime.main import DEFAULT_CFG_PATH
    from rapidocr_onnxruntime.utils import read_yaml, update_model_path

    config = copy.deepcopy(update_model_path(read_yaml(DEFAULT_CFG_PATH))["Det"])
    config.update(
        intra_op_num_threads=threads,
        inter_op_num_threads=1,
        box_thresh=box_thresh,
        unclip_ratio=unclip_ratio,
        use_cuda=False,
        use_dml=False,
    )
    return TextDetector(config)


def detector_size(width: int, height: int, long_side: int = DEFAULT_LONG_SIDE) -> tuple[int, int]:
    """(w, h) a `width` x `height` frame is scaled to for detection: the long side to
    `long_side` (never up), both sides rounded to multiples of 32 as the network needs."""
    scale = min(1.0, long_side / max(width, height))
    return max(32, round(width * scale / 32) * 32), max(32, round(height * scale / 32) * 32)


class TextDetector:
    """PP-OCRv4 text detection on one image; `threads` onnxruntime intra-op threads."""

    def __init__(
        self,
        long_side: int = DEFAULT_LONG_SIDE,
        threads: int = 1,
        box_thresh: float = 0.5,
        unclip_ratio: float = 1.6,
    ):
        self.long_side = long_side
        self._det = _detector(threads, box_thresh, unclip_ratio)

    def size_for(self, width: int, height: int) -> tuple[int, int]:
        return detector_size(width, height, self.long_side)

    def __call__(self, rgb: np.ndarray) -> list[TextBox]:
        """Text boxes of an RGB uint8 frame (H, W, 3) of any size; an empty list when the frame is
        too small to hold text."""
        h, w = rgb.shape[:2]
        if min(h, w) < 8:
            return []
        dw, dh = self.size_for(w, h)
        bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)  # PaddleOCR's models take BGR
        if (w, h) != (dw, dh):
            bgr = cv2.resize(bgr, (dw, dh), interpolation=cv2.INTER_AREA if dw < w else cv2.INTER_LINEAR)
        x = ((bgr.astype(np.float32) * np.float32(1 / 255) - 0.5) / 0.5).transpose(2, 0, 1)[None]
        prob = self._det.infer(np.ascontiguousarray(x))[0]
        boxes, scores = self._det.postprocess_op(prob, (dh, dw))
        out = []
        for box, score in zip(boxes, scores):
            pts = np.asarray(box, np.float32).reshape(4, 2) / np.array([dw, dh], np.float32)
            out.append(TextBox(np.clip(pts, 0.0, 1.0), float(score)))
        return out


def rasterize(boxes: Iterable[TextBox], width: int, height: int) -> np.ndarray:
    """(height, width) float32 map: each box's quadrilateral filled with its score (the maximum
    where boxes overlap), 0 elsewhere."""
    out = np.zeros((height, width), np.float32)
    scale = np.array([width, height], np.float32)
    for box in sorted(boxes, key=lambda b: b.score):  # the highest score is drawn last, on top
        poly = np.round(box.points * scale).astype(np.int32)
        cv2.fillPoly(out, [poly], float(box.score))
    return out


class TextProposals:
    """Per-frame text-proposal maps of one video, the detector run on every `every`-th frame.

    `step(t, image)` is called for frames 0, 1, 2, ... in order; `due(t)` says whether frame t
    needs the detector, and only then does `image` (the frame, at any size, e.g. already scaled
    to `detector.size_for`) have to be given, as an array or a callable that makes one (so the
    caller converts a frame only when it is needed). Between runs the last map is returned as is.
    """

    def __init__(self, size: tuple[int, int], every: int = DEFAULT_EVERY, detector: TextDetector | None = None):
        if every < 1:
            raise ValueError("every must be at least 1")
        self.width, self.height = size
        self.every = every
        self.detector = detector or TextDetector()
        self.boxes: list[TextBox] = []
        self.runs = 0
        self._map = np.zeros((self.height, self.width), np.float32)

    def due(self, t: int) -> bool:
        return t % self.every == 0

    def step(self, t: int, image: np.ndarray | Callable[[], np.ndarray] | None = None) -> np.ndarray:
        """The (height, width) float32 proposal map for frame t (shared between frames until the
        next run: copy it before writing to it)."""
        if self.due(t):
            if image is None:
                raise ValueError(f"frame {t} runs the detector: its image is needed")
            frame = image() if callable(image) else image
            self.boxes = self.detector(frame)
            self._map = rasterize(self.boxes, self.width, self.height)
            self.runs += 1
        return self._map


def proposal_maps(
    frames: Iterable[np.ndarray],
    size: tuple[int, int],
    every: int = DEFAULT_EVERY,
    detector: TextDetector | None = None,
) -> Iterator[np.ndarray]:
    """The proposal map of every frame of an RGB uint8 sequence, at `size` (w, h)."""
    proposals = TextProposals(size, every, detector)
    for t, frame in enumerate(frames):
        yield proposals.step(t, frame)
