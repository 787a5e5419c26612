"""The synthesize job: clean clips + asset library -> paired clean/HUD samples on Ray Data.

CLIPS is a curation output folder (`manifest.parquet` whose `kept` rows name
`clips/<clip_id>.mp4`) or any folder of `.mp4` files (clip id = file stem), on a disk or in a
bucket (`s3://...`: each worker fetches the clip it renders to a local temporary file). Sample k of a run
uses clip k mod n with seed `sample_seed(seed, k)`, and is named `<clip_id>_s<seed>_<k:05d>`.
Samples render in a Ray Data actor pool (the library loads once per actor; compositing runs on
the GPU where one is present, encoding on CPUs). A sample counts as finished when its
`record.json` exists, and that file is always written last: on a disk the folder is renamed
into place whole; for an `s3://` OUT the worker renders into a local temporary folder and
uploads it itself to `OUT/samples/<sample_id>/`, record last. A rerun therefore reuses finished
samples and renders (overwriting the same keys, never adding copies) only what is missing; a
bad clip becomes an error row. Outputs: `OUT/samples/<sample_id>/`, `OUT/manifest.parquet`
(one row per sample), `OUT/summary.json` and `OUT/report.html`, written by the driver through
`g2w.io.storage` (no step reads a worker's disk).
"""

from __future__ import annotations

import glob
import json
import logging
import os
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from g2w.hud.aesthetic import NeuralDescriptor
from g2w.hud.assets import AssetLibrary
from g2w.hud.profile import SynthProfile
from g2w.hud.render import OUTPUTS, EncodeSettings, render_sample, summarize
from g2w.hud.seeds import SeedStreams, sample_seed
from g2w.io import storage
from g2w.jobs.synthesize_page import write_report
from g2w.step import Batch, Resources, Step, rows_batch
from g2w.video.errors import VideoError

log = logging.getLogger(__name__)

MANIFEST_SCHEMA = pa.schema(
    [
        ("sample_id", pa.string()),
        ("status", pa.string()),  # ok | error
        ("reason", pa.string()),  # "" when ok; a VideoError reason or render_failed
        ("error", pa.string()),
        ("clip_id", pa.string()),
        ("clip_path", pa.string()),
        ("seed", pa.int64()),
        ("width", pa.int32()),
        ("height", pa.int32()),
        ("fps", pa.float64()),
        ("frame_count", pa.int32()),
        ("style", pa.string()),
        ("persistent", pa.int32()),  # persistent widgets drawn
        ("suppressed", pa.int32()),  # persistent widgets suppressed by collisions
        ("events", pa.int32()),  # transient events drawn
        ("instances", pa.int32()),  # annotation instances (icons included)
        ("render_s", pa.float64()),  # 0 when the sample was reused from an earlier run
        ("reused", pa.bool_()),
        ("device", pa.string()),
        ("sample_dir", pa.string()),
    ]
)


def list_clips(clips: str) -> list[dict]:
    """[{clip_id, path}] from a curation output folder or a plain folder of mp4 files, by clip id."""
    clips = storage.absolute(clips)
    manifest = storage.join(clips, "manifest.parquet")
    if storage.is_uri(clips):  # a curation output in a bucket: its manifest, or the mp4s under it
        if storage.is_dir(manifest) or storage.exists(manifest):
            table = pq.read_table(manifest, columns=["clip_id", "status"]).to_pylist()
            out = [
                {"clip_id": r["clip_id"], "path": storage.join(clips, "clips", f"{r['clip_id']}.mp4")}
                for r in table
                if r["status"] == "kept"
            ]
        else:
            out = [{"clip_id": p.rsplit("/", 1)[-1][:-4], "path": p} for p in storage.list_files(clips, ".mp4")]
    elif os.path.exists(manifest):  # a file, or the folder of shards curation now writes
        table = pq.read_table(manifest, columns=["clip_id", "status"]).to_pylist()
        out = [
            {"clip_id": r["clip_id"], "path": os.path.join(clips, "clips", f"{r['clip_id']}.mp4")}
            for r in table
            if r["status"] == "kept"
        ]
    else:
        out = [
            {"clip_id": os.path.splitext(os.path.basename(p))[0], "path": p}
            for p in sorted(glob.glob(os.path.join(clips, "*.mp4")))
        ]
    if not out:
        raise ValueError(f"{clips}: no kept clips in manifest.parquet and no .mp4 files")
    return sorted(out, key=lambda c: c["clip_id"])  # a sharded manifest reads in shard order


def plan_rows(clips: list[dict], count: int, seed: int) -> list[dict]:
    rows = []
    for k in range(count):
        clip = clips[k % len(clips)]
        rows.append(
            {
                "sample_id": f"{clip['clip_id']}_s{seed}_{k:05d}",
                "clip_id": clip["clip_id"],
                "clip_path": storage.absolute(clip["path"]),
                "seed": sample_seed(seed, k),
            }
        )
    return rows


def _empty(kind: pa.DataType):
    """A column's value when a row has nothing to say (error rows): no nulls, so batches keep
    their numpy dtypes through Ray Data."""
    if pa.types.is_string(kind):
        return ""
    if pa.types.is_boolean(kind):
        return False
    return 0.0 if pa.types.is_floating(kind) else 0


def _row(base: dict, **values) -> dict:
    row = {f.name: _empty(f.type) for f in MANIFEST_SCHEMA}
    row.update(status="ok", **base)
    row.update({k: (_empty(MANIFEST_SCHEMA.field(k).type) if v is None else v) for k, v in values.items()})
    return row


@dataclass
class SynthesizeSamples(Step):
    """Batch of planned samples (sample_id, clip_id, clip_path, seed) -> manifest rows."""

    assets: str
    output: str
    profile: dict = field(default_factory=lambda: SynthProfile().to_dict())
    encode: dict = field(default_factory=lambda: EncodeSettings().__dict__)
    device: str = "auto"
    num_gpus: float = 0.0
    neural_weights: str | None = None

    def resources(self) -> Resources:
        return Resources(num_cpus=1, num_gpus=self.num_gpus, batch_size=1)

    def setup(self) -> None:
        self._library = AssetLibrary.open(self.assets)
        self._neural = NeuralDescriptor(self.neural_weights) if self.neural_weights else None

    def _one(self, base: dict) -> dict:
        sample_dir = storage.join(self.output, "samples", base["sample_id"])
        try:
            if sample_complete(sample_dir):
                record = _read_json(storage.join(sample_dir, OUTPUTS["record"]))
                info = summarize(record, _read_json(storage.join(sample_dir, OUTPUTS["annotation"])))
                return _row(base, **_geometry(record), **info, reused=True, sample_dir=sample_dir)
            with storage.local_copy(base["clip_path"]) as clip:  # a clip in a bucket: fetched by this worker
                if storage.is_uri(sample_dir):  # render here, then publish: every file, record.json last
                    with tempfile.TemporaryDirectory(prefix="g2w-sample-") as local:
                        folder = os.path.join(local, base["sample_id"])
                        info = self._render(base, clip, folder)
                        record = _read_json(os.path.join(folder, OUTPUTS["record"]))
                        storage.upload_tree(folder, sample_dir, last=(OUTPUTS["record"],))
                else:
                    info = self._render(base, clip, sample_dir)
                    record = _read_json(os.path.join(sample_dir, OUTPUTS["record"]))
            return _row(base, **_geometry(record), **info, sample_dir=sample_dir)
        except VideoError as exc:
            return _row(base, status="error", reason=exc.reason, error=str(exc))
        except Exception as exc:  # one broken sample must not stop the others; the row says why
            return _row(base, status="error", reason="render_failed", error=f"{type(exc).__name__}: {exc}")

    def _render(self, base: dict, clip: str, sample_dir: str) -> dict:
        return render_sample(
            clip,
            sample_dir,
            sample_id=base["sample_id"],
            clip_id=base["clip_id"],
            streams=SeedStreams(int(base["seed"])),
            profile=SynthProfile.from_dict(self.profile),
            library=self._library,
            encode=EncodeSettings(**self.encode),
            device=self.device,
            neural=self._neural,
            clip_uri=base["clip_path"],
        )

    def __call__(self, batch: Batch) -> Batch:
        bases = [
            {"sample_id": str(s), "clip_id": str(c), "clip_path": str(p), "seed": int(e)}
            for s, c, p, e in zip(batch["sample_id"], batch["clip_id"], batch["clip_path"], batch["seed"])
        ]
        rows = [self._one(b) for b in bases]
        return rows_batch(rows, MANIFEST_SCHEMA.names)


def sample_complete(sample_dir: str) -> bool:
    """A sample folder (local or in a bucket) is finished once its record, written last, exists."""
    return storage.exists(storage.join(sample_dir, OUTPUTS["record"]))


def _read_json(path: str) -> dict:
    return json.loads(storage.read_bytes(path))


def _geometry(record: dict) -> dict:
    v = record["video"]
    return {"width": v["width"], "height": v["height"], "fps": v["fps"], "frame_count": v["frame_count"]}


def run_synthesize(
    clips: str,
    assets: str,
    output: str,
    count: int,
    seed: int,
    profile: SynthProfile | None = None,
    encode: EncodeSettings = EncodeSettings(),
    device: str = "auto",
    neural_weights: str | None = None,
) -> dict:
    """Render `count` samples from CLIPS with the library at `assets` into `output`; returns the summary."""
    from g2w.runtime.pipeline import apply_steps, dataset_from_rows, write_parquet
    from g2w.runtime.ray_init import init_ray

    profile = profile or SynthProfile()
    output = storage.absolute(output)
    storage.makedirs(storage.join(output, "samples"))
    AssetLibrary.open(assets)  # fail fast, before Ray starts, when the library is missing
    rows = plan_rows(list_clips(clips), count, seed)
    init_ray(output=output)
    gpus = 0.0  # the renderer composites in the clip's YUV on the CPU (g2w.hud.render): no GPU to ask for
    step = SynthesizeSamples(
        os.path.abspath(assets), output, profile.to_dict(), dict(encode.__dict__), device, gpus, neural_weights
    )
    start = time.perf_counter()
    log.info(f"synthesize: {count} samples from {clips} -> {output} (GPUs per worker {gpus})")
    write_parquet(
        apply_steps(dataset_from_rows(rows), [step]), storage.join(output, "manifest.parquet"), MANIFEST_SCHEMA
    )
    return finish(output, time.perf_counter() - start, count, seed, clips, assets, profile, encode)


def finish(
    output: str,
    seconds: float,
    count: int,
    seed: int,
    clips: str,
    assets: str,
    profile: SynthProfile,
    encode: EncodeSettings,
) -> dict:
    """After the samples and OUT/manifest.parquet exist: OUT/summary.json and the report, written
    through `g2w.io.storage` (so OUT may be a bucket prefix); returns the summary."""
    manifest = storage.join(output, "manifest.parquet")
    with storage.open_binary(manifest) as f:
        table = pq.read_table(f).to_pylist()
    summary = _summary(table, seconds, count, seed, clips, assets, profile, encode)
    storage.write_json(storage.join(output, "summary.json"), summary)
    with storage.staged_dir(output) as local:
        write_report(local, table, summary)
    log.info(
        f"manifest: {manifest}\nsummary:  {storage.join(output, 'summary.json')}\n"
        f"report:   {storage.join(output, 'report.html')}"
    )
    return summary


def _summary(
    table: list[dict],
    seconds: float,
    count: int,
    seed: int,
    clips: str,
    assets: str,
    profile: SynthProfile,
    encode: EncodeSettings,
) -> dict:
    ok = [r for r in table if r["status"] == "ok"]
    rendered = [r for r in ok if not r["reused"]]
    frames = sum(r["frame_count"] for r in rendered)
    return {
        "samples": len(table),
        "requested": count,
        "seed": seed,
        "clips": clips,
        "assets": assets,
        "ok": len(ok),
        "error": len(table) - len(ok),
        "reused": len(ok) - len(rendered),
        "errors_by_reason": dict(Counter(r["reason"] for r in table if r["status"] != "ok")),
        "styles": dict(Counter(r["style"] for r in ok)),
        "mean_persistent": round(float(np.mean([r["persistent"] for r in ok])), 3) if ok else None,
        "mean_events": round(float(np.mean([r["events"] for r in ok])), 3) if ok else None,
        "suppressed": sum(r["suppressed"] for r in ok),
        "devices": dict(Counter(r["device"] for r in rendered)),
        "profile": profile.to_dict(),
        "encoding": encode.__dict__,
        "seconds": round(seconds, 3),
        "frames_rendered": frames,
        "samples_per_s": round(len(rendered) / seconds, 4) if seconds and rendered else None,
        "frames_per_s": round(frames / seconds, 2) if seconds and rendered else None,
    }
