"""Where GameCleaner's clean reference frame comes from: only what a user has, or an oracle.

- `none`: no reference (no reference tokens, the state the model is trained in when a reference
  is dropped).
- `image`: the user's own clean frame (`reference_image`): one image file used for every case,
  or a folder holding `<case_id>.png` / `.jpg` / `.jpeg` per case. Every window of the case gets
  that frame. An image of another size is centre-cropped to the source's aspect ratio and then
  resized to the model's frame size, as the source frames are; an unreadable or missing one is a
  `ReferenceError`, so that case becomes an error row.
- `self`: built from the input itself: the case's source cleaned by the default CPU removal
  (`g2w.remove.DEFAULT_METHOD`: the learned segmenter's mask, translucent layers un-blended, the
  rest filled by flow-guided propagation), once per case; each window takes the cleaned frame at
  its own start. It is what `g2w remove` makes by default, so where such a removal of the case
  already exists (`reference_edits`: that job's output folder), its edit is taken instead of
  cleaning the source again, if it was made from this very source with the default options
  (`g2w.remove.made_from`); any other edit is ignored and the source cleaned here.
- `oracle`: the case's ground-truth clean video at each window start (synthetic cases only). A
  user never has it, so results with it are labelled as an oracle wherever they are recorded.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator

import cv2
import numpy as np

from g2w.cases.case import Case
from g2w.io import storage
from g2w.remove import DEFAULT_METHOD, MethodInputError, run_method
from g2w.remove.made_from import reusable_edit

REFERENCES = ("none", "image", "self", "oracle")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


class ReferenceError(MethodInputError):
    """The case's reference frame cannot be had (unreadable image, no ground truth for an oracle)."""


def reference_source(
    reference: str | None = None, reference_image: str | None = None, reference_edits: str | None = None
) -> str:
    """The source a removal's options name: `image` when an image is given, else `reference` (default none)."""
    if reference_image:
        if reference not in (None, "image"):
            raise ValueError(f"reference {reference!r} and a reference image: give one of them")
        reference = "image"
    reference = reference or "none"
    if reference not in REFERENCES:
        raise ValueError(f"reference {reference!r}: use one of {REFERENCES}")
    if reference == "image" and not reference_image:
        raise ValueError("reference 'image' needs a reference image (--reference-image PATH)")
    if reference_edits and reference != "self":
        raise ValueError(f"reference edits to reuse apply to the 'self' reference, not {reference!r}")
    return reference


def reference_record(source: str) -> dict:
    """What a removal run records about its reference (method.json, the evaluation's method)."""
    return {"reference": source, "reference_oracle": source == "oracle"}


def image_path(reference_image: str, case_id: str) -> str:
    """The case's image: the file itself, or `<case_id>.<png|jpg|jpeg>` inside a folder."""
    if not reference_image.endswith("/") and os.path.splitext(reference_image)[1].lower() in IMAGE_SUFFIXES:
        return reference_image
    for suffix in IMAGE_SUFFIXES:
        path = storage.join(reference_image, case_id + suffix)
        if storage.exists(path):
            return path
    raise ReferenceError("reference_missing", f"{reference_image}: no {case_id}.png/.jpg/.jpeg reference image")


def fit_reference(image: np.ndarray, width: int, height: int, source_aspect: float) -> np.ndarray:
    """RGB uint8 [H, W, 3] -> [height, width, 3]: centre-cropped to `source_aspect` (width / height),
    then resized like the source frames."""
    h, w = image.shape[:2]
    if w / h > source_aspect:  # too wide: crop the sides
        keep = max(1, round(h * source_aspect))
        image = image[:, (w - keep) // 2 : (w - keep) // 2 + keep]
    elif w / h < source_aspect:  # too tall: crop top and bottom
        keep = max(1, round(w / source_aspect))
        image = image[(h - keep) // 2 : (h - keep) // 2 + keep]
    if image.shape[:2] == (height, width):
        return np.ascontiguousarray(image)
    interp = cv2.INTER_AREA if image.shape[1] >= width else cv2.INTER_CUBIC
    return cv2.resize(image, (width, height), interpolation=interp)


def read_reference_image(path: str, width: int, height: int, source_aspect: float) -> np.ndarray:
    """The user's reference image as one model frame [1, height, width, 3]; ReferenceError if unreadable."""
    try:
        data = np.frombuffer(storage.read_bytes(path), np.uint8)
    except OSError as exc:
        raise ReferenceError("reference_unreadable", f"{path}: {exc}") from exc
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ReferenceError("reference_unreadable", f"{path}: not a readable image")
    return fit_reference(cv2.cvtColor(image, cv2.COLOR_BGR2RGB), width, height, source_aspect)[None]


@contextlib.contextmanager
def reference_video(case: Case, source: str, progress=None, reference_edits: str | None = None) -> Iterator[str | None]:
    """The video whose frame at each window start is that window's reference (None for none/image).
    `progress()` is called while `self` cleans the source, so a canceled job can stop there too;
    `reference_edits`: a remove job's output whose matching edit `self` takes instead."""
    if source == "oracle":
        if not case.reference or not os.path.exists(case.reference):
            raise ReferenceError(
                "reference_missing",
                f"{case.case_id}: an oracle reference needs the case's clean video (synthetic cases only)",
            )
        yield case.reference
    elif source == "self":
        edit = (
            reusable_edit(reference_edits, case.case_id, case.source, DEFAULT_METHOD, {}) if reference_edits else None
        )
        if edit is not None:
            with storage.local_copy(edit) as local:
                yield local
            return
        with tempfile.TemporaryDirectory(prefix="g2w-reference-") as tmp:
            cleaned = os.path.join(tmp, "cleaned.mp4")
            run_method(DEFAULT_METHOD, case, cleaned, (lambda _: progress()) if progress else None)
            yield cleaned
    else:
        yield None
