"""From a case and its edit to validated geometry, a plan and evidence on disk.

`prepare_case` never raises for bad input: a missing or broken edit, a truncated one, a wrong
aspect ratio, a broken source or annotation all become a result with `status="error"`, a
`reason`, and `method_fault` saying whether the removal method is to blame (then the case
scores zero) or the benchmark case itself (then it is excluded and lowers coverage).

Evidence is written once per (source, edit, canvas, rate) and reused on reruns: the folder's
`evidence.json` records a fingerprint of those inputs, and a stale or partial folder is
rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os

from g2w.cases.annotation import AnnotationError, load_annotation
from g2w.cases.canvas import oriented_canvas
from g2w.cases.case import Case
from g2w.evaluate.align import EVAL_FPS
from g2w.evaluate.canonical_frames import read_canonical
from g2w.evaluate.evidence import build_evidence, load_evidence, write_evidence
from g2w.evaluate.plan import DEFAULT_JUDGE_CHILDREN, make_plan
from g2w.evaluate.validate import CaseInvalid, Geometry, check_edit, check_source
from g2w.video.errors import VideoError
from g2w.video.probe import probe
from g2w.video.sources import source_id

EVIDENCE_VERSION = 1


def _error(reason: str, message: str, method_fault: bool, **extra) -> dict:
    return {"status": "error", "reason": reason, "message": message, "method_fault": method_fault, **extra}


def _probe(path: str, prefix: str, method_fault: bool) -> Geometry:
    try:
        info = probe(path)
    except VideoError as exc:
        raise CaseInvalid(f"{prefix}_{exc.reason}", str(exc), method_fault) from exc
    except OSError as exc:
        raise CaseInvalid(f"{prefix}_unreadable", f"{path}: {exc}", method_fault) from exc
    if not info.has_video:
        raise CaseInvalid(f"{prefix}_no_video_stream", f"{path}: no video stream", method_fault)
    return Geometry.of(info)


def fingerprint(case: Case, edited_path: str, canvas: tuple[int, int], eval_fps: float, judge_children: bool) -> str:
    with open(case.annotation, "rb") as f:
        annotation = hashlib.sha256(f.read()).hexdigest()
    parts = {
        "version": EVIDENCE_VERSION,
        "source": source_id(case.source),
        "edited": source_id(edited_path),
        "annotation": annotation,
        "canvas": list(canvas),
        "eval_fps": eval_fps,
        "judge_children": judge_children,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def prepare_case(
    case: Case,
    edited_dir: str,
    evidence_root: str,
    canvas: tuple[int, int],
    eval_fps: float = EVAL_FPS,
    judge_children: bool = DEFAULT_JUDGE_CHILDREN,
    edited_path: str | None = None,
) -> dict:
    """Validate, plan and (re)build evidence for one case; returns a plain dict. `edited_path`
    overrides `<edited_dir>/<case_id>.mp4` (a local copy of an edit in a bucket)."""
    edited_path = edited_path or case.edited_path(edited_dir)
    expected = None
    try:
        try:
            annotation = load_annotation(case.annotation)
        except AnnotationError as exc:
            raise CaseInvalid(exc.reason, str(exc), method_fault=False) from exc
        source = _probe(case.source, "source", method_fault=False)
        listed = Geometry(case.width, case.height, case.fps, case.frame_count)
        if listed.usable() and (listed.width, listed.height, listed.frame_count) != (
            source.width,
            source.height,
            source.frame_count,
        ):
            raise CaseInvalid(
                "case_metadata", f"{case.source}: the case lists {listed} but the video is {source}", method_fault=False
            )
        check_source(source, Geometry(annotation.width, annotation.height, annotation.fps, annotation.frame_count))
        oriented = oriented_canvas(canvas, source.width, source.height)
        # What is to be judged depends only on the source and its annotation, so it is known
        # (and kept with error rows, for scoring them as failures) before the edit is opened.
        source_plan = make_plan(
            annotation,
            source.frame_count,
            source.fps,
            source.frame_count,
            source.fps,
            oriented,
            eval_fps,
            judge_children,
        )
        # A frame the annotation does not list is unannotated, not UI-free (a UI-free frame is
        # listed with no objects): judging it would count removed UI as background change.
        gaps = [s.source_index for s in source_plan.samples if s.source_index not in annotation.frames]
        if gaps:
            raise CaseInvalid(
                "annotation_gaps",
                f"{case.annotation}: sampled source frames {gaps[:5]} are not "
                "annotated (wild annotations must cover the 2 FPS evaluation grid)",
                method_fault=False,
            )
        expected = source_plan.expected()
        if not os.path.exists(edited_path):
            raise CaseInvalid("missing_edited", f"{edited_path}: no edited video for this case", method_fault=True)
        edited = _probe(edited_path, "edited", method_fault=True)
        checks = check_edit(source, edited, eval_fps)
        plan = make_plan(
            annotation,
            source.frame_count,
            source.fps,
            edited.frame_count,
            edited.fps,
            oriented,
            eval_fps,
            judge_children,
        )
        folder = os.path.join(evidence_root, case.case_id)
        stamp = fingerprint(case, edited_path, oriented, eval_fps, judge_children)
        evidence = load_evidence(folder)
        if evidence is None or evidence.fingerprint != stamp:
            try:
                src = read_canonical(case.source, [s.source_index for s in plan.samples], oriented)
            except VideoError as exc:
                raise CaseInvalid(f"source_{exc.reason}", str(exc), method_fault=False) from exc
            try:
                edt = read_canonical(edited_path, [s.edited_index for s in plan.samples], oriented)
            except (VideoError, IndexError) as exc:
                raise CaseInvalid("edited_corrupt", str(exc), method_fault=True) from exc
            evidence = write_evidence(folder, plan, build_evidence(plan, src, edt), fingerprint=stamp)
    except CaseInvalid as exc:
        return _error(exc.reason, str(exc), exc.method_fault, expected=expected, edited_path=edited_path)
    return {
        "status": "ready",
        "reason": "",
        "message": "",
        "method_fault": False,
        "expected": expected,
        "edited_path": edited_path,
        "plan": plan.to_dict(),
        "checks": checks,
        "evidence_dir": evidence.folder,
        "evidence_sha256": evidence.sha256,
    }
