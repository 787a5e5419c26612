"""What one video's evaluation compares: sampled timestamps and, at each, the annotated elements.

The plan joins the three pieces of geometry (timestamp alignment, the annotation's boxes and
the canonical canvas) into one structure that everything downstream shares: the evidence
renderer draws it, the prompt lists it, the schema expects exactly its (sample, element)
pairs, the reference judge measures inside its boxes, and metrics group its elements into
tracks by instance id. Element ids are `E<n>`, n being the instance's position in the
annotation's instance table, so one UI element keeps one id across all timestamps.

Child instances (inventory icons inside their bar, Appendix G) are judged as elements of their
own only with `judge_children=True`. The paper is silent on this; by default they are not, since
the bar's box already covers them and the prompt judges a multi-part element "present" while any
part of it survives. Ids stay those of the full instance table either way.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from g2w.cases.annotation import Annotation
from g2w.cases.canvas import Box, context_box, map_box, needs_exact_pair
from g2w.evaluate.align import EVAL_FPS, align


@dataclass(frozen=True)
class PlannedElement:
    element_id: str
    instance_id: str
    label: str
    annotation_box: Box
    box: Box  # canonical canvas
    context: Box  # canonical canvas, padded and clipped
    exact: bool  # small target: the sheet also carries an exact-box pair


@dataclass(frozen=True)
class PlannedSample:
    sample_id: str
    t: float
    source_index: int
    edited_index: int
    elements: tuple[PlannedElement, ...] = field(default_factory=tuple)


DEFAULT_JUDGE_CHILDREN = False


@dataclass(frozen=True)
class Plan:
    canvas: tuple[int, int]
    eval_fps: float
    samples: tuple[PlannedSample, ...]
    judge_children: bool = DEFAULT_JUDGE_CHILDREN

    def expected_pairs(self) -> list[tuple[str, str]]:
        return [(s.sample_id, e.element_id) for s in self.samples for e in s.elements]

    def sample_ids(self) -> list[str]:
        return [s.sample_id for s in self.samples]

    def expected(self) -> dict:
        """The compact form kept with every judgment: enough to compute every metric
        (including tracks) from the judgments file alone."""
        return {
            "canvas": list(self.canvas),
            "eval_fps": self.eval_fps,
            "judge_children": self.judge_children,
            "samples": [
                {
                    "sample_id": s.sample_id,
                    "t": s.t,
                    "source_index": s.source_index,
                    "edited_index": s.edited_index,
                    "elements": [
                        {"element_id": e.element_id, "instance_id": e.instance_id, "label": e.label} for e in s.elements
                    ],
                }
                for s in self.samples
            ],
        }

    def to_dict(self) -> dict:
        return asdict(self)


def element_ids(annotation: Annotation) -> dict[str, str]:
    return {inst_id: f"E{n}" for n, inst_id in enumerate(annotation.element_order())}


def make_plan(
    annotation: Annotation,
    source_frames: int,
    source_fps: float,
    edited_frames: int,
    edited_fps: float,
    canvas: tuple[int, int],
    eval_fps: float = EVAL_FPS,
    judge_children: bool = DEFAULT_JUDGE_CHILDREN,
) -> Plan:
    ids = element_ids(annotation)
    order = {inst_id: n for n, inst_id in enumerate(annotation.element_order())}
    ann_size = (annotation.width, annotation.height)
    samples = []
    for a in align(source_frames, source_fps, edited_frames, edited_fps, eval_fps):
        elements = []
        objects = [
            o
            for o in annotation.objects_at(a.source_index)
            if judge_children or annotation.instances[o.id].kind != "child"
        ]
        for obj in sorted(objects, key=lambda o: order[o.id]):
            box = map_box(obj.box, ann_size, canvas)
            elements.append(
                PlannedElement(
                    ids[obj.id],
                    obj.id,
                    annotation.instances[obj.id].label,
                    obj.box,
                    box,
                    context_box(box, canvas),
                    needs_exact_pair(obj.box),
                )
            )
        samples.append(PlannedSample(a.sample_id, a.t, a.source_index, a.edited_index, tuple(elements)))
    return Plan(tuple(canvas), eval_fps, tuple(samples), judge_children)


def plan_from_dict(data: dict) -> Plan:
    """Inverse of `Plan.to_dict` (plans travel between workers as JSON)."""
    samples = []
    for s in data["samples"]:
        elements = tuple(
            PlannedElement(
                e["element_id"],
                e["instance_id"],
                e["label"],
                tuple(e["annotation_box"]),
                tuple(e["box"]),
                tuple(e["context"]),
                e["exact"],
            )
            for e in s["elements"]
        )
        samples.append(PlannedSample(s["sample_id"], s["t"], s["source_index"], s["edited_index"], elements))
    return Plan(tuple(data["canvas"]), data["eval_fps"], tuple(samples), data["judge_children"])
