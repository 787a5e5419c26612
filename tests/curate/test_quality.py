import cv2
import numpy as np

from g2w.curate.borders import border_bars, border_fraction
from g2w.curate.config import QualityThresholds
from g2w.curate.quality import QualityAccumulator, quality_reasons, shake_score
from g2w.sample_data.textures import colorize, tileable_noise

Q = QualityThresholds()


def _texture(seed=0, h=360, w=640):
    """Detailed texture: a gameplay-like mix of smooth shading and fine structure."""
    rng = np.random.default_rng(seed)
    rgb = colorize(tileable_noise(rng, h, w + 200, 48, 4), (20, 20, 20), (230, 230, 230))
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    gray[::12] //= 2  # tile seams
    gray[:, ::16] //= 2
    return gray


def _measure(frames):
    acc = QualityAccumulator()
    for g in frames:
        acc.add(g)
    m = acc.measures(Q)
    m["ui_coverage"], m["shake"] = 0.0, 0.0
    return m


def test_brightness_fractions():
    t = _texture()[:, :640]
    m = _measure([(t * 0.05).astype(np.uint8)] * 6 + [t] * 2)
    assert m["dark_fraction"] == 0.75 and m["bright_fraction"] == 0.0
    assert "too_dark" in quality_reasons(m, Q, 720, 30)
    bright = _measure([np.full((360, 640), 250, np.uint8)] * 4)
    assert bright["bright_fraction"] == 1.0 and "too_bright" in quality_reasons(bright, Q, 720, 30)


def test_blur_lowers_sharpness_below_the_threshold():
    t = _texture()[:, :640]
    sharp = _measure([t] * 3)["sharpness"]
    blurred = _measure([cv2.GaussianBlur(t, (0, 0), 6)] * 3)["sharpness"]
    assert blurred < Q.min_sharpness < sharp


def test_frozen_and_moving():
    t = _texture()
    still = _measure([t[:, :640]] * 8)
    moving = _measure([t[:, 10 * i : 10 * i + 640] for i in range(8)])
    assert still["frozen_fraction"] == 1.0 and still["motion"] == 0.0
    assert moving["frozen_fraction"] == 0.0 and moving["motion"] > 1.0
    assert "frozen" in quality_reasons(still, Q, 720, 30) and "frozen" not in quality_reasons(moving, Q, 720, 30)


def test_shake_is_jitter_not_speed():
    fast_pan = np.tile([0.2, 0.01], (60, 1))  # a fifth of the frame per frame, steady
    turn_and_back = np.array([[0.05, 0]] * 30 + [[-0.05, 0]] * 30)  # one reversal
    jitter = np.diff(np.random.default_rng(0).normal(0, 0.015, (61, 2)), axis=0)
    assert shake_score(fast_pan) == 0.0 and shake_score(turn_and_back) < 0.05
    assert shake_score(jitter) > 0.5 > Q.max_shake
    assert shake_score(np.full((5, 2), np.nan)) == 0.0  # unknown shifts are skipped
    tiny = np.array([[0.001, 0], [-0.001, 0]] * 20)  # codec noise and aim correction
    assert shake_score(tiny) == 0.0


def test_letterbox_and_pillarbox_bars():
    t = _texture()[:, :640]
    boxed = t.copy()
    boxed[:45], boxed[-45:] = 0, 0
    assert border_bars(boxed)[:2] == (45, 45)
    assert abs(border_fraction(boxed) - 0.25) < 0.01
    pillar = t.copy()
    pillar[:, :160], pillar[:, -160:] = 16, 16
    assert abs(border_fraction(pillar) - 0.5) < 0.01
    assert border_fraction(np.zeros((360, 640), np.uint8)) == 0.0  # darkness, not a letterbox
    sky = t.copy()
    sky[:100] = 5  # a dark band on one side only is scenery
    assert border_fraction(sky) == 0.0


def test_reason_order_and_all_failures_reported():
    m = {
        "dark_fraction": 0.9,
        "bright_fraction": 0.0,
        "frozen_fraction": 0.9,
        "sharpness": 1.0,
        "shake": 0.0,
        "border_fraction": 0.5,
        "ui_coverage": 0.5,
    }
    assert quality_reasons(m, Q, 720, 30) == ["too_dark", "frozen", "border", "ui_overlay"]
