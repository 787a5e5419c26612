"""The precache as a movable tree: bf16 shards named relative to the cache root, so a cache copied
to a bucket trains from its `s3://` URI (a moto server) with the same batches as the local folder."""

import json
import os
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import torch
from safetensors.torch import load_file, save

from g2w.io import storage
from g2w.jobs.gamecleaner_precache import INDEX_SCHEMA, PrecachePairs
from g2w.models.gamecleaner.task import GameCleanerTask


def _cache(tmp_path, make_video) -> str:
    """Two pairs precached by the real step (no Ray), the index and cache.json as the job writes them."""
    ids, dirs = [], []
    for k in range(2):
        sample = tmp_path / "synth" / f"s{k}"
        sample.mkdir(parents=True)
        for name in ("hud.mp4", "clean.mp4"):
            shutil.move(make_video(name, frames=20, width=64, height=48), sample / name)
        ids.append(f"s{k}")
        dirs.append(str(sample))
    cache = str(tmp_path / "cache")
    os.makedirs(os.path.join(cache, "shards"))
    step = PrecachePairs("tiny", cache)
    step.setup()
    rows = step({"pair_id": ids, "sample_dir": dirs})
    pq.write_table(
        pa.table({n: rows[n].tolist() for n in INDEX_SCHEMA.names}, schema=INDEX_SCHEMA), f"{cache}/index.parquet"
    )
    storage.write_json(f"{cache}/cache.json", {"kind": "states"})
    return cache


def test_shards_are_bf16_named_relative_to_the_root_and_train_from_s3(tmp_path, make_video, s3_bucket):
    cache = _cache(tmp_path, make_video)
    index = pq.read_table(os.path.join(cache, "index.parquet")).to_pylist()
    assert [r["path"] for r in index] == ["shards/s0.safetensors", "shards/s1.safetensors"]
    shard = load_file(os.path.join(cache, index[0]["path"]))
    assert set(shard) == {"source", "target", "reference", "states"}
    assert {t.dtype for t in shard.values()} == {torch.bfloat16}
    fp32_bytes = len(save({k: v.float() for k, v in shard.items()}))
    bf16_bytes = os.path.getsize(os.path.join(cache, index[0]["path"]))
    print(f"tiny shard per pair: fp32 {fp32_bytes} B, bf16 {bf16_bytes} B")
    assert bf16_bytes < 0.6 * fp32_bytes

    moved = str(tmp_path / "moved")  # relative paths: the tree works wherever it lies
    shutil.move(cache, moved)
    local = GameCleanerTask(moved, validation_pairs=0)
    remote_root = storage.join(s3_bucket, "caches", "tiny")
    storage.upload_tree(moved, remote_root)
    remote = GameCleanerTask(remote_root, validation_pairs=0)
    assert remote.kind == "states" and remote.num_examples() == 2
    assert all(p.startswith(remote_root + "/shards/") for p in remote.paths)
    ours, theirs = local.load_batch([1, 0], "cpu"), remote.load_batch([1, 0], "cpu")
    assert set(ours) == set(theirs) and all(t.dtype == torch.float32 for t in theirs.values())
    for key in ours:
        torch.testing.assert_close(theirs[key], ours[key], rtol=0, atol=0)
    assert json.loads(storage.read_bytes(storage.join(remote_root, "cache.json")))["kind"] == "states"
