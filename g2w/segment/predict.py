"""Running the segmenter over a video: per-frame UI masks at full size, instances and tracks.

`Segmenter.frames(video)` streams a video once at the model's resolution (swscale scales while
converting, so no full-size RGB is held) and yields, per frame, the UI probability and label
probabilities at model resolution. `full_mask` turns a frame's prediction into a mask at the video's
own size: when the checkpoint has a full-resolution refiner (`g2w.segment.fullres`), the one
`frames` computed from the video's own pixels near the UI, else the probability bilinearly
upsampled and thresholded; then the configured mask rules (`g2w.segment.mask_rules`) adjust it.
`instances` turns a frame's prediction into labelled boxes (connected components), and `Tracker` links them across
frames by overlap, which is what `annotation()` writes in the Appendix G format.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import torch

from g2w.models.hud_segmenter import HudSegmenter
from g2w.segment.centre_mark import centre_chroma
from g2w.segment.fullres import FullResTiles, frame_luma, load_refiner, window_refinement
from g2w.segment.inputs import model_size, stream_inputs
from g2w.segment.mask_rules import DETECT_RULES, MaskRule, apply_rules, parse_rules
from g2w.segment.metrics import box_iou
from g2w.taxonomy import LABELS
from g2w.video import probe
from g2w.video.decode import iter_video_frames
from g2w.video.overlap import prefetch

DEFAULT_CHECKPOINT = os.path.join(os.path.dirname(os.path.dirname(__file__)), "weights")
BATCH = 8
MIN_COMPONENT_PX = 6  # at model resolution: smaller specks are noise, not widgets
TRACK_IOU = 0.3


@dataclass
class FramePrediction:
    index: int
    ui: np.ndarray  # (h, w) float32 UI probability at model resolution
    labels: np.ndarray  # (L, ceil(h/2), ceil(w/2)) float32 label probabilities
    full_res: FullResTiles | None = None  # the full-resolution refinement, when `Segmenter.frames` made one

    def label_map(self) -> np.ndarray:
        """(h, w) most likely label index per pixel at the UI map's resolution."""
        best = self.labels.argmax(0).astype(np.uint8)
        return cv2.resize(best, self.ui.shape[::-1], interpolation=cv2.INTER_NEAREST)


def full_mask(
    prediction: FramePrediction,
    width: int,
    height: int,
    threshold: float = 0.5,
    rules: str | Sequence[MaskRule] | None = DETECT_RULES,
) -> np.ndarray:
    """(height, width) uint8 0/255 mask: the full-resolution refinement's when the prediction
    carries one for this size, else the probability upsampled bilinearly, then thresholded;
    then `rules` (`mask_rules.parse_rules`; by default detect's) applied in order.

    The probability is quantised to 1/255 steps before upsampling (uint8 resize and threshold
    run several times faster than float32 at 720p); a pixel can only flip where the upsampled
    probability lies within 1/255 of the threshold.
    """
    return apply_rules(
        parse_rules(rules), refined_mask(prediction, width, height, threshold), prediction, width, height
    )


def refined_mask(prediction: FramePrediction, width: int, height: int, threshold: float = 0.5) -> np.ndarray:
    """`full_mask` before any rule: the refiner's decision, or the upsampled threshold."""
    fr = prediction.full_res
    if fr is not None and (fr.width, fr.height) == (width, height):
        return fr.mask(threshold)
    prob = prediction.ui
    level = int(np.ceil(threshold * 255))  # prob >= threshold  <=>  quantised >= level (up to rounding)
    q = np.clip(prob * 255 + 0.5, 0, 255).astype(np.uint8)
    if q.shape != (height, width):
        q = cv2.resize(q, (width, height), interpolation=cv2.INTER_LINEAR)
    return cv2.threshold(q, level - 1, 255, cv2.THRESH_BINARY)[1]


def instances(
    prediction: FramePrediction, width: int, height: int, threshold: float = 0.5
) -> list[tuple[str, float, list[int]]]:
    """[(label, score, box in video pixels)] for each connected UI region of one frame.

    A 3x3 closing first joins the glyphs of one text widget into one region. A centre mark the
    full-resolution step found (`centre_mark`) is one more region, a crosshair.
    """
    binary = (prediction.ui >= threshold).astype(np.uint8)
    binary = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    count, comp, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    h, w = binary.shape
    sx, sy = width / w, height / h
    out = []
    for k in range(1, count):
        x, y, bw, bh, area = stats[k]
        if area < MIN_COMPONENT_PX:
            continue
        ys, xs = np.nonzero(comp == k)
        label = LABELS[int(prediction.labels[:, ys // 2, xs // 2].mean(axis=1).argmax())]  # half-res label grid
        score = float(prediction.ui[ys, xs].mean())
        box = [
            int(np.floor(x * sx)),
            int(np.floor(y * sy)),
            min(width, int(np.ceil((x + bw) * sx))),
            min(height, int(np.ceil((y + bh) * sy))),
        ]
        if box[2] > box[0] and box[3] > box[1]:
            out.append((label, round(score, 4), box))
    fr = prediction.full_res
    if fr is not None and fr.mark is not None and (fr.width, fr.height) == (width, height):
        ys, xs = np.nonzero(fr.mark.mask)
        out.append(
            (
                "crosshair",
                1.0,
                [
                    fr.mark.x0 + int(xs.min()),
                    fr.mark.y0 + int(ys.min()),
                    fr.mark.x0 + int(xs.max()) + 1,
                    fr.mark.y0 + int(ys.max()) + 1,
                ],
            )
        )
    return out


class Tracker:
    """Links per-frame boxes into instances: same label and IoU >= TRACK_IOU with the instance's
    box on one of the last few frames."""

    def __init__(self, memory: int = 5):
        self.memory = memory
        self.tracks: dict[str, dict] = {}  # id -> {label, last_frame, box, frames}
        self.frames: list[dict] = []

    def add(self, index: int, found: list[tuple[str, float, list[int]]]) -> None:
        objects, taken = [], set()
        for label, score, box in sorted(found, key=lambda f: -f[1]):
            live = [
                (box_iou(box, t["box"]), tid)
                for tid, t in self.tracks.items()
                if t["label"] == label and tid not in taken and index - t["last_frame"] <= self.memory
            ]
            iou, tid = max(live, default=(0.0, None))
            if tid is None or iou < TRACK_IOU:
                tid = f"ui{len(self.tracks):04d}"
                self.tracks[tid] = {"label": label, "frames": 0}
            self.tracks[tid].update(last_frame=index, box=box, frames=self.tracks[tid]["frames"] + 1)
            taken.add(tid)
            objects.append({"id": tid, "box": box, "visible_fraction": 1.0, "score": score})
        self.frames.append({"frame": index, "objects": objects})

    def annotation(self, width: int, height: int, fps: float, frame_count: int) -> dict:
        """The Appendix G annotation: an instance seen on at least half the frames is persistent."""
        instances_ = [
            {
                "id": tid,
                "label": t["label"],
                "role": t["label"],
                "kind": "persistent" if t["frames"] >= frame_count / 2 else "transient",
                "parent": None,
            }
            for tid, t in self.tracks.items()
        ]
        return {
            "version": 1,
            "width": width,
            "height": height,
            "fps": float(fps),
            "frame_count": frame_count,
            "coordinates": "half-open xyxy",
            "alpha_threshold": None,
            "instances": instances_,
            "frames": self.frames,
        }


def _batched(items: Iterable, size: int) -> Iterator[list]:
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


class Segmenter:
    """A loaded segmenter checkpoint (a folder with hud_segmenter.json/.safetensors).

    `threads`: CPU cores to use. The network gets `threads - 1` intra-op threads (at least one)
    and decoding with the temporal statistics run beside it on another thread (`frames`):
    with two cores, one OpenMP thread for the network plus a decoding thread is several times
    faster than two OpenMP threads sharing cores with the decoder, whose spinning barriers
    stall whenever another thread holds a core (benchmarks/segmenter_speed.py).

    `full_res`: use the checkpoint's full-resolution refiner (`hud_refiner.*`) when it has one;
    `frames` then also reads each frame's luma at full size and attaches the refinement (what
    `full_mask` returns). Off by default, so callers that only read the model-resolution
    probability (removal masks, curation) do not pay for it; `g2w detect` turns it on.
    """

    def __init__(
        self, checkpoint: str | None = None, device: str = "cpu", threads: int | None = None, full_res: bool = False
    ):
        if threads:
            torch.set_num_threads(max(1, threads - 1))
        self.checkpoint = checkpoint or DEFAULT_CHECKPOINT
        self.model = HudSegmenter.from_pretrained(self.checkpoint, device=device).for_inference()
        self.config = self.model.config
        self.device = device
        self.refiner = load_refiner(self.checkpoint) if full_res else None
        if self.refiner is not None:
            self.refiner = self.refiner.to(memory_format=torch.channels_last).requires_grad_(False)

    @torch.inference_mode()
    def predict(self, batch: list[np.ndarray], first: int = 0) -> list[FramePrediction]:
        """Predictions for network inputs (C, h, w) float32, numbered from `first`."""
        x = torch.from_numpy(np.stack(batch)).to(self.device).contiguous(memory_format=torch.channels_last)
        ui, labels = self.model(x)
        ui = torch.sigmoid(ui[:, 0]).cpu().numpy()
        labels = torch.softmax(labels, 1).cpu().numpy()
        return [FramePrediction(first + k, ui[k], labels[k]) for k in range(len(batch))]

    def frames(self, video: str, decoded: Iterable | None = None) -> Iterator[FramePrediction]:
        """Predictions for every frame of `video`, in order (with the full-resolution refinement
        when the checkpoint has a refiner: each statistics window's predictions are then held
        until the window is complete).

        `decoded`: the video's frames as `av.VideoFrame`s, in order, from a decode the caller
        shares (a remover that also needs the full-size frames decodes once); by default the
        video is decoded here. It is read on this method's decoding thread."""
        info = probe(video)
        w, h = model_size(info.width, info.height, self.config.input_long_side)
        lumas: dict[int, np.ndarray] = {}  # full-size luma by frame number, filled by the decoding thread
        chromas: dict[int, np.ndarray | None] = {}  # the centre box's chroma, for the centre mark
        texts: dict[int, np.ndarray] = {}  # text-proposal maps by frame number, when the model reads them
        proposals = self._text_proposals(w, h)

        def low() -> Iterator[np.ndarray]:
            source = decoded if decoded is not None else (frame for _, _, frame in iter_video_frames(video))
            for k, frame in enumerate(source):
                if self.refiner is not None:
                    lumas[k] = frame_luma(frame)
                    chromas[k] = centre_chroma(frame)
                if proposals is not None:
                    image = None
                    if proposals.due(k):  # the detector's copy, scaled while converting
                        dw, dh = proposals.detector.size_for(frame.width, frame.height)
                        image = frame.to_ndarray(format="rgb24", width=dw, height=dh)
                    texts[k] = proposals.step(k, image)
                yield frame.to_ndarray(format="rgb24", width=w, height=h)  # swscale scales while converting

        text = texts.pop if proposals is not None else None

        span = self.config.span
        # the statistics make the inputs a window at a time and the refinement takes a window at a
        # time: each queue holds a window and a batch, so every stage keeps working while the next
        # one takes a whole window (with shorter queues the network and the refinement took turns)
        ahead = -(-span // BATCH) + 1

        def predicted() -> Iterator[FramePrediction]:
            first = 0
            for batch in prefetch(
                _batched(stream_inputs(low(), self.config, text), BATCH), depth=ahead
            ):  # decode beside the network
                yield from self.predict(batch, first)
                first += len(batch)

        if self.refiner is None:
            yield from predicted()
            return
        window = []
        for pred in prefetch(predicted(), depth=ahead * BATCH):  # the network beside the refinement
            window.append(pred)
            if (pred.index + 1) % span == 0:  # the window (`stream_inputs`' statistics span) is complete
                yield from self._refine(window, lumas, chromas)
                window = []
        if window:
            yield from self._refine(window, lumas, chromas)

    def _text_proposals(self, width: int, height: int):
        """A fresh `TextProposals` at the model's input size when the checkpoint reads the text
        channel, else None."""
        if not self.config.text_channel:
            return None
        from g2w.segment.text_proposals import TextDetector, TextProposals

        if getattr(self, "_text_detector", None) is None:
            self._text_detector = TextDetector(long_side=self.config.text_long_side)
        return TextProposals((width, height), self.config.text_every, self._text_detector)

    def _refine(
        self, window: list[FramePrediction], lumas: dict[int, np.ndarray], chromas: dict[int, np.ndarray | None]
    ) -> list[FramePrediction]:
        found = window_refinement(
            self.refiner, [p.ui for p in window], [lumas[p.index] for p in window], [chromas[p.index] for p in window]
        )
        for pred, fr in zip(window, found):
            pred.full_res = fr
            del lumas[pred.index], chromas[pred.index]
        return window
