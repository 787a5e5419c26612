"""Videos a user may hand any job: broken ones, and odd but valid ones."""

import os

import numpy as np

from g2w.video import MaskWriter, VideoWriter


def bad_and_odd_videos(folder, good: str) -> dict[str, str]:
    """corrupt, truncated (a third of `good`), a 1x1 FFV1 clip, a portrait clip and a 60 fps one."""
    os.makedirs(folder)
    paths = {
        k: os.path.join(folder, f"{k}.{ext}")
        for k, ext in (("corrupt", "mp4"), ("truncated", "mp4"), ("tiny", "mkv"), ("portrait", "mp4"), ("fast", "mp4"))
    }
    with open(paths["corrupt"], "wb") as f:
        f.write(np.random.default_rng(0).bytes(5000))
    data = open(good, "rb").read()
    with open(paths["truncated"], "wb") as f:
        f.write(data[: len(data) // 3])
    with MaskWriter(paths["tiny"], 1, 1, 30) as w:  # a 1x1 video (FFV1 allows odd sizes)
        for i in range(12):
            w.write(np.full((1, 1), i * 20, np.uint8))
    rng = np.random.default_rng(1)
    for name, (width, height, fps) in (("portrait", (90, 160, 30)), ("fast", (160, 90, 60))):
        with VideoWriter(paths[name], width, height, fps, preset="ultrafast") as w:
            for _ in range(40):
                w.write(rng.integers(0, 255, (height, width, 3), dtype=np.uint8))
    return paths
