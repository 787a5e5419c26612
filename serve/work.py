"""What a replica does for one job, as plain functions (testable without Ray or HTTP).

A removal goes through `g2w.jobs.remove.remove_one`, the same call `g2w remove` makes per case,
so the service's `edited.mp4` is byte for byte what the batch job writes for the same input.
An `s3://` source is copied into the job's folder first (methods read local files).
Every outcome is a dict with `state`, and on failure a `reason` and `message`: bad input never
raises out of here. With an output store, finished results are published there by the worker
(`publish`), so they never pass through the ingress's disk. `progress` (serve/progress.py) reaches the method; when it raises
`JobCanceled` the outcome is `canceled` with the frames done so far.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import threading
from typing import Any

import numpy as np
from PIL import Image, UnidentifiedImageError

from g2w.cases.case import Case
from g2w.io import storage
from g2w.jobs.remove import remove_one
from g2w.remove import takes_progress
from g2w.video import FrameReader, VideoError, VideoWriter
from serve.containers import container_of
from serve.inputs import InputError
from serve.progress import JobCanceled

EDITED = "edited"  # the case id of a service job: its edit is <workdir>/edited.mp4
EDIT_FILES = ("edited.mp4",)
DETECTION = "detection"  # the sub-folder of a job's detection results (a detection, or a removal with detect)
DETECTION_FILES = ("mask.mkv", "annotation.json", "preview.png")
RESULT_FILES = EDIT_FILES + DETECTION_FILES
ATTEMPT = "attempt-"  # a removal attempt's scratch folder in the job's folder: attempt-<n>


EVALUATION = "evaluation"  # the sub-folder of an evaluation job's outputs
EVALUATION_FILES = ("summary.json", "metrics.json", "report.html", "table.md", "results.parquet", "judgments.jsonl")


def result_rel(kind: str, name: str) -> str:
    """Where result `name` of a job of `kind` lives, relative to its folder (or its store prefix)."""
    if kind == EVALUATION:
        return f"{EVALUATION}/{name}"
    return f"{DETECTION}/{name}" if name in DETECTION_FILES else name


def publish(job: dict, names: list[str]) -> None:
    """Move a finished job's results to its output-store prefix (`results_at`), when it has one:
    a local folder or `s3://` (g2w.io.storage), uploaded by the worker that made them."""
    dest = job["params"].get("results_at")
    for rel in [result_rel(job["kind"], n) for n in names] if dest else []:
        storage.publish_file(os.path.join(job["workdir"], *rel.split("/")), storage.join(dest, rel))


def _published(job: dict, out: dict) -> dict:
    """`out` once its files are published; a store that refuses them fails the job with a reason."""
    try:
        publish(job, out.get("files", []))
    except OSError as exc:
        return {"state": "failed", "reason": "publish_failed", "message": f"{type(exc).__name__}: {exc}"}
    return out


def stage_source(source: str, workdir: str) -> str:
    """A local path for `source`: itself, or a copy of an object-store file inside `workdir`."""
    if not storage.is_uri(source):
        return source
    local = os.path.join(workdir, "source" + os.path.splitext(source)[1].lower())
    if not os.path.exists(local):
        tmp = f"{local}.partial-{os.getpid()}-{threading.get_ident()}"  # two attempts never share one
        with storage.open_binary(source) as src, open(tmp, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.replace(tmp, local)
    return local


def _outcome(row: dict, workdir: str) -> dict:
    files = [name for name in EDIT_FILES if os.path.exists(os.path.join(workdir, name))]
    if row["status"] == "ok":
        return {"state": "succeeded", "frames": int(row["frames"]), "files": files, "seconds": row["seconds"]}
    return {"state": "failed", "reason": row["reason"], "message": row["message"], "files": files}


def checked_source(job: dict) -> str:
    """The job's source as a local file whose container is still on the allow-list (checked again
    here, where it is decoded, not only at admission); OSError or InputError when not."""
    source = stage_source(job["input"], job["workdir"])
    container_of(source)
    return source


def _source_refused(exc: Exception) -> dict:
    if isinstance(exc, InputError):
        return {"state": "failed", "reason": exc.reason, "message": str(exc)}
    return {"state": "failed", "reason": "source_unreadable", "message": type(exc).__name__}


def run_removal(job: dict, progress=None) -> dict:
    """Run a queued removal job's method on its source into its folder.

    Each attempt writes into a folder of its own (`attempt-<n>`) and moves its finished edit over
    `edited.mp4` with one rename, so a stale attempt still running beside a new one (its lease
    lost) can never interleave with it: the edit is always one attempt's complete output."""
    workdir = job["workdir"]
    try:
        source = checked_source(job)
    except (OSError, InputError) as exc:
        return _source_refused(exc)
    case = Case(case_id=EDITED, split="wild", source=source, annotation="")
    options = job["params"].get("run_options", job["params"].get("options", {}))
    scratch = os.path.join(workdir, f"{ATTEMPT}{int(job.get('attempts') or 0)}")
    try:
        row = remove_one(job["method"], case, scratch, options, progress)
        if row["status"] == "ok":
            os.replace(row["path"], os.path.join(workdir, EDIT_FILES[0]))
    except JobCanceled as exc:
        return {"state": "canceled", "frames": exc.frames}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out = _outcome(row, workdir)
    return _published(job, out) if out["state"] == "succeeded" else out


def clear_attempts(workdir: str) -> None:
    """Remove the scratch folders attempts left in a finished job's folder: an attempt whose
    worker was killed never reached its own cleanup, and its partial edit must not outlive the job."""
    for name in os.listdir(workdir) if os.path.isdir(workdir) else ():
        if name.startswith(ATTEMPT):
            shutil.rmtree(os.path.join(workdir, name), ignore_errors=True)


def read_image(data: bytes, max_pixels: int) -> np.ndarray:
    """RGB uint8 pixels of an uploaded image; ValueError if it is not one or is too large."""
    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.width * img.height > max_pixels:
                raise OverflowError(f"{img.width}x{img.height} is over {max_pixels} pixels")
            return np.asarray(img.convert("RGB"))
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as exc:
        raise ValueError(f"not an image ({exc})") from exc


def run_frame(rgb: np.ndarray, method: str, options: dict) -> bytes:
    """Remove the UI from one image with a video method: a one-frame clip in, its frame out as PNG.

    The clip is written near-losslessly (crf 0); sizes are made even for yuv420p, so an odd
    image loses its last row or column.
    """
    h, w = rgb.shape[0] - rgb.shape[0] % 2, rgb.shape[1] - rgb.shape[1] % 2
    with tempfile.TemporaryDirectory(prefix="g2w-frame-") as tmp:
        source = os.path.join(tmp, "frame.mp4")
        with VideoWriter(source, w, h, 1, crf=0, preset="ultrafast") as writer:
            writer.write(np.ascontiguousarray(rgb[:h, :w]))
        row = remove_one(method, Case(case_id=EDITED, split="wild", source=source, annotation=""), tmp, options)
        if row["status"] != "ok":
            raise RuntimeError(f"{row['reason']}: {row['message']}")
        frame = FrameReader(row["path"]).read([0])[0]
    buf = io.BytesIO()
    Image.fromarray(frame).save(buf, format="PNG")
    return buf.getvalue()


def run_evaluation(job: dict, judges: dict) -> dict:
    """The evaluate job (`g2w evaluate`) over the job's cases and edits, into its folder. The judge
    is a name: "reference", or one of the service's configured `judges`, whose endpoint, model and
    key variable come from the server's settings only."""
    from g2w.jobs.evaluate import run_evaluate
    from g2w.runtime.watchdog import StageStalled

    p = job["params"]
    output = os.path.join(job["workdir"], EVALUATION)
    name = p.get("judge", "reference")
    if name != "reference" and name not in judges:
        return {"state": "failed", "reason": "unknown_judge", "message": f"the service has no judge {name!r}"}
    llm: dict[str, Any] = {"judge": "openai", **judges[name]} if name != "reference" else {"judge": "reference"}
    try:
        summary = run_evaluate(p["cases"], p["edited"], output, **llm)
    except StageStalled as exc:  # the node could not run a stage: its CPUs held by the replicas, say
        record = {"item": exc.stage, "reason": "stage_stalled", "message": str(exc)}
        return {"state": "failed", "reason": "stage_stalled", "message": str(exc), "errors": [record]}
    except (OSError, ValueError, VideoError) as exc:
        return {"state": "failed", "reason": "evaluation_failed", "message": f"{type(exc).__name__}: {exc}"}
    files = [name for name in EVALUATION_FILES if os.path.exists(os.path.join(output, name))]
    errors = [{"item": k, "reason": k, "count": n} for k, n in summary.get("errors_by_reason", {}).items()]
    return _published(job, {"state": "succeeded", "summary": summary, "files": files, "errors": errors})


def run_detection(job: dict, detect, progress=None) -> dict:
    """Detection only: `detect(video, out_dir, **options)` writes mask.mkv and annotation.json
    into `<workdir>/detection` (the detector may replace that folder whole; the upload stays)."""
    workdir = job["workdir"]
    options = dict(job["params"].get("options", {}))
    if progress is not None and takes_progress(detect):
        options["progress"] = progress
    out_dir = os.path.join(workdir, DETECTION)
    try:
        source = checked_source(job)
    except (OSError, InputError) as exc:
        return _source_refused(exc)
    try:
        frames = int(detect(source, out_dir, **options))
    except JobCanceled as exc:
        return {"state": "canceled", "frames": exc.frames}
    except VideoError as exc:
        return {"state": "failed", "reason": f"source_{exc.reason}", "message": str(exc)}
    except (OSError, ValueError, TypeError) as exc:  # TypeError: options the detector does not take
        return {"state": "failed", "reason": "detect_failed", "message": f"{type(exc).__name__}: {exc}"}
    files = [name for name in DETECTION_FILES if os.path.exists(os.path.join(out_dir, name))]
    return _published(job, {"state": "succeeded", "frames": frames, "files": files})
