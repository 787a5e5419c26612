"""Frame-level ground truth (Appendix G) measured from the layers that are composited.

For each frame and each drawn layer, the box is the tight half-open box of the layer's pixels
with composited alpha >= 8 that fall inside the frame, and `visible_fraction` is how many of the
layer's alpha >= 8 pixels are inside the frame (1.0 unless a transient is partly off-screen).
Layers with no pixel inside the frame are not listed. The instance table lists, once, every
instance that appears in some frame. Procedural text drawn into a widget (the HP/STM panel's
labels and numbers) belongs to that widget's layer: it is in the mask and the widget's box, and
is not an instance of its own.

`annotate_record` rebuilds the annotation from a record alone (reading the asset PNGs it
names), through the same `LayerSource` the renderer uses, so it reproduces the written file
exactly.
"""

from __future__ import annotations

from g2w.hud.layers import Layer, LayerSource
from g2w.hud.patches import support_box, visible_part

COORDINATES = "half-open xyxy"
ANNOTATION_VERSION = 1


def measure(layer: Layer, width: int, height: int) -> tuple[list[int], float] | None:
    """(box in frame pixels, visible fraction) of one layer, or None when nothing is on screen."""
    alpha = layer.rgba[..., 3]
    h, w = alpha.shape
    src, dst = visible_part(layer.x, layer.y, w, h, width, height)
    if dst.empty:
        return None
    inside = alpha[src.y1 : src.y2, src.x1 : src.x2]
    visible = int((inside > 0).sum())
    if visible == 0:
        return None
    total = int((alpha > 0).sum())
    box = support_box(inside, 1).shift(dst.x1, dst.y1)
    return box.to_list(), round(visible / total, 6)


class Annotator:
    """Collects per-frame objects while frames are rendered (or replayed from a record)."""

    def __init__(self, source: LayerSource):
        self.source = source
        self.frames: list[dict] = []
        self.seen: set[str] = set()

    def add(self, index: int, layers: list[Layer]) -> None:
        objects = []
        for layer in layers:
            m = measure(layer, self.source.width, self.source.height)
            if m is not None:
                objects.append({"id": layer.instance, "box": m[0], "visible_fraction": m[1]})
                self.seen.add(layer.instance)
        self.frames.append({"frame": index, "objects": objects})

    def result(self) -> dict:
        record = self.source.record
        video = record["video"]
        instances = [inst for iid, inst in self.source.instances().items() if iid in self.seen]
        return {
            "version": ANNOTATION_VERSION,
            "width": video["width"],
            "height": video["height"],
            "fps": float(video["fps"]),
            "frame_count": video["frame_count"],
            "coordinates": COORDINATES,
            "alpha_threshold": record["profile"]["alpha_threshold"],
            "instances": instances,
            "frames": self.frames,
        }


def annotate_record(record: dict, images) -> dict:
    """The annotation of a record, every frame in order; `images(asset_id)` gives RGBA pixels."""
    source = LayerSource(record, images)
    annotator = Annotator(source)
    for index in range(record["video"]["frame_count"]):
        annotator.add(index, source.frame(index))
    return annotator.result()
