"""HUD removal methods behind one interface.

A method turns one case's source video into an edited video at `out_path` and returns the number
of frames written: `fn(case, out_path, **options) -> int`. Each method is registered here by
name with the traits the results table needs ("Mask": it uses a ground-truth mask; "Ref P.T.":
reference post-training, and for such a method where its reference came from) and whether it
wants a GPU. The function is named as "module:attr"
and imported on first use, so a CPU job never imports a GPU model's code.

A method may also accept `progress`: a callable that it calls with the frames written so far,
often (every frame is fine; the caller throttles) and at least once per frame it reads, so a
long clip can be followed and stopped: the callable may raise to abort the method, which then
leaves no output (writers discard partial files). `progress` is not an option: `run_method`
passes it only to methods that take it, and it is never recorded with the options.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass


class MethodInputError(ValueError):
    """A case's input that a method cannot use; `reason` becomes the case's error row's reason."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class Method:
    name: str
    target: str  # "module:function"
    mask: bool  # needs the case's ground-truth mask (an oracle)
    ref_pt: bool  # reference post-training
    gpu: bool = False  # prefers a GPU worker
    # What one removal task of it holds at 720p, with headroom, as the remove job declares it to Ray
    # (measured by benchmarks/remove_memory.py, docs/results/remove_memory.md): a flow-guided fill keeps
    # chunks of frames, masks and fills in flight, GameCleaner may clean its reference in the same
    # task; the baselines hold a few frames.
    memory_gib: float = 4.0

    def traits(self, options: dict | None = None) -> dict:
        """What the results table needs; a reference-taking method adds its reference source, and
        whether that is an oracle (the ground truth), for these options."""
        traits = {"mask": self.mask, "ref_pt": self.ref_pt}
        if self.ref_pt:
            from g2w.remove.gamecleaner_reference import (
                reference_record,
                reference_source,
            )

            options = options or {}
            source = reference_source(
                options.get("reference"), options.get("reference_image"), options.get("reference_edits")
            )
            traits.update(reference_record(source))
        return traits

    def function(self):
        module, attr = self.target.split(":")
        return getattr(importlib.import_module(module), attr)


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("identity", "g2w.remove.baselines:identity", mask=False, ref_pt=False, memory_gib=0.5),
        Method("telea-gt", "g2w.remove.baselines:telea_gt", mask=True, ref_pt=False, memory_gib=0.5),
        Method("telea", "g2w.remove.baselines:telea", mask=False, ref_pt=False),  # options: mask=segmenter|gt
        Method("propagate", "g2w.remove.propagate:propagate", mask=False, ref_pt=False),  # options: mask=segmenter|gt
        Method("unblend+propagate", "g2w.remove.propagate:unblend_propagate", mask=False, ref_pt=False),  # likewise
        Method("gamecleaner", "g2w.remove.gamecleaner:gamecleaner", mask=False, ref_pt=True, gpu=True),
    )
}


DEFAULT_METHOD = (
    "unblend+propagate"  # mask-free: the segmenter's mask, translucent layers inverted, the rest propagated
)


def get_method(name: str) -> Method:
    if name not in METHODS:
        raise ValueError(f"unknown removal method {name!r}: use one of {sorted(METHODS)}")
    return METHODS[name]


PROGRESS = "progress"  # the reserved keyword of the progress hook


def takes_progress(fn) -> bool:
    return PROGRESS in inspect.signature(fn).parameters


def run_method(name: str, case, out_path: str, progress=None, **options) -> int:
    """Run method `name` on one case with its options; returns the frames written.
    `progress(frames_done)` goes to methods that accept it and is dropped for the others."""
    fn = get_method(name).function()
    if progress is not None and takes_progress(fn):
        options = {**options, PROGRESS: progress}
    return fn(case, out_path, **options)
