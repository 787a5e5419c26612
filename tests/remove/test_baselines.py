"""Removal baselines: identity copies, telea-gt inpaints inside the ground-truth mask."""

import filecmp

import cv2
import numpy as np

from g2w.cases.annotation import parse_annotation
from g2w.cases.case import load_cases
from g2w.remove.baselines import telea_gt
from g2w.remove.masks import box_masks
from g2w.video import FrameReader, VideoWriter, iter_frames, probe, read_masks


def test_identity_is_a_byte_copy(synth_out, edits):
    for case in load_cases(synth_out):
        assert filecmp.cmp(case.source, case.edited_path(edits["identity"]), shallow=False)


def test_telea_fills_the_mask_and_keeps_the_rest(synth_out, edits, tmp_path):
    case = load_cases(synth_out)[0]
    out = case.edited_path(edits["telea-gt"])
    # What re-encoding alone changes: the same write path with nothing inpainted.
    plain = str(tmp_path / "plain.mp4")
    with VideoWriter(plain, 320, 180, 30, crf=18, preset="veryfast") as writer:
        for frame in iter_frames(case.source):
            writer.write(frame.rgb)
    src_info, out_info = probe(case.source), probe(out)
    assert (out_info.width, out_info.height, out_info.frame_count) == (
        src_info.width,
        src_info.height,
        src_info.frame_count,
    )
    idx = [0, 45, 89]
    src, edt, clean, reenc = (
        FrameReader(p).read(idx).astype(np.float32) for p in (case.source, out, case.reference, plain)
    )
    masks = read_masks(case.mask)[idx]
    for k in range(len(idx)):
        inside = masks[k] > 0
        far = cv2.dilate(masks[k], np.ones((17, 17), np.uint8)) == 0
        # Away from the UI the edit differs from the source only as much as a plain re-encode.
        assert np.abs(edt[k] - src[k])[far].mean() < np.abs(reenc[k] - src[k])[far].mean() + 0.5
        # Inside the mask the UI is gone: the fill is much closer to the clean frame than the HUD was.
        assert np.abs(edt[k] - clean[k])[inside].mean() < 0.6 * np.abs(src[k] - clean[k])[inside].mean()


def test_box_masks_follow_the_nearest_annotated_frame():
    ann = parse_annotation(
        {
            "version": 1,
            "width": 64,
            "height": 32,
            "fps": 10.0,
            "frame_count": 12,
            "coordinates": "half-open xyxy",
            "alpha_threshold": 8,
            "instances": [{"id": "a", "label": "subtitle", "role": "subtitle", "kind": "transient", "parent": None}],
            "frames": [
                {"frame": 0, "objects": [{"id": "a", "box": [0, 0, 8, 8]}]},
                {"frame": 10, "objects": [{"id": "a", "box": [32, 16, 48, 24]}]},
            ],
        }
    )
    masks = list(box_masks(ann, 128, 64, 12))  # the video is twice the annotation canvas
    assert len(masks) == 12
    assert all(m[:16, :16].all() and m.sum() == 16 * 16 * 255 for m in masks[:6])  # 0..5 (5 ties -> earlier)
    assert all(m[32:48, 64:96].all() and m.sum() == 32 * 16 * 255 for m in masks[6:])


def test_telea_on_a_wild_case_uses_annotation_boxes(wild_cases, tmp_path):
    case = load_cases(wild_cases)[0]
    assert case.mask is None
    out = tmp_path / "w.mp4"
    frames = telea_gt(case, str(out))
    assert frames == probe(case.source).frame_count == probe(out).frame_count
