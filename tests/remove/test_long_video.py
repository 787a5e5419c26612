"""The removal methods on a minute-scale segment: a 120 s video (low resolution, so the test is
fast) comes out with every frame and the HUD gone, and its peak memory is that of a 30 s video:
bounded by the chunk, not by the length, since long-mode segments reach 120 s and the removal
job cleans them whole."""

import tracemalloc

import numpy as np
import pytest

from g2w.cases.case import Case
from g2w.remove import run_method
from g2w.video import MaskWriter, VideoWriter, iter_frames, probe

W, H, FPS, SECONDS = 64, 36, 10, 120
FRAMES = FPS * SECONDS
HUD = (slice(26, 34), slice(4, 24))  # a bar near the bottom-left corner


def _world(t: int) -> np.ndarray:
    """A textured strip panning one pixel per frame, so every pixel behind the HUD is seen in
    neighbouring frames."""
    x = (np.arange(W)[None, :] + t) % 97
    y = np.arange(H)[:, None]
    r = (x * 5 + y * 3) % 256
    g = (x * 11) % 256 * np.ones_like(y)
    b = (y * 7 + x) % 256
    return np.stack([r, g, b], axis=-1).astype(np.uint8)


def _case(folder, seconds: int) -> Case:
    source, mask_path = folder / f"hud_{seconds}.mp4", folder / f"mask_{seconds}.mkv"
    mask = np.zeros((H, W), np.uint8)
    mask[HUD] = 255
    with VideoWriter(str(source), W, H, FPS, preset="ultrafast") as v, MaskWriter(str(mask_path), W, H, FPS) as m:
        for t in range(FPS * seconds):
            frame = _world(t)
            frame[HUD] = (255, 255, 0)
            v.write(frame)
            m.write(mask)
    return Case(f"long{seconds}", "synthetic", str(source), str(folder / "annotation.json"), mask=str(mask_path))


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    folder = tmp_path_factory.mktemp("long_case")
    return _case(folder, 2), _case(folder, 30), _case(folder, SECONDS)


def _peak_run(method: str, case: Case, out) -> tuple[int, int]:
    """(frames written, peak traced bytes) of one removal."""
    tracemalloc.start()
    try:
        frames = run_method(method, case, str(out), mask="gt")
        return frames, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("method", ["propagate", "unblend+propagate"])
def test_a_120_s_segment_is_cleaned_whole_in_bounded_memory(cases, tmp_path, method):
    warm, short, long = cases
    _peak_run(method, warm, tmp_path / "warm.mp4")  # one-time allocations (imports, codec set-up) out of the way
    _, peak_short = _peak_run(method, short, tmp_path / "short.mp4")
    out = tmp_path / f"{method}.mp4"
    frames, peak = _peak_run(method, long, out)
    assert frames == FRAMES == probe(str(out)).frame_count
    assert abs(probe(str(out)).duration_s - SECONDS) < 0.5
    # holding the video would cost 4x the 30 s peak; chunked, the 120 s peak is about the same
    assert peak < 1.3 * peak_short, f"peak {peak / 1e6:.1f} MB at 120 s, {peak_short / 1e6:.1f} MB at 30 s"
    yellow = np.array([255, 255, 0])
    edited = (f.rgb for k, f in enumerate(iter_frames(str(out))) if k % 100 == 50)
    for frame in edited:
        inside = frame[HUD].reshape(-1, 3).astype(int)
        assert np.abs(inside - yellow).sum(axis=1).mean() > 100  # the bar is gone, not kept
