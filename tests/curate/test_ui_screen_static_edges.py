import cv2
import numpy as np

from g2w.curate.ui_screen import make_ui_screen
from g2w.sample_data.textures import colorize, tileable_noise


def _scrolling(n=30, h=540, w=960, seed=0, speed=(14, 5)):
    rng = np.random.default_rng(seed)
    world = cv2.cvtColor(
        colorize(tileable_noise(rng, 2 * h, 2 * w, 10, 4), (30, 40, 30), (200, 210, 190)), cv2.COLOR_RGB2GRAY
    )
    return [world[speed[1] * i : speed[1] * i + h, speed[0] * i : speed[0] * i + w].copy() for i in range(n)]


def _hud(frame: np.ndarray) -> np.ndarray:
    """A minimap ring, a status panel and a line of text: ~6 % of the frame."""
    out = frame.copy()
    cv2.circle(out, (860, 100), 70, 235, 3)
    cv2.rectangle(out, (30, 460), (290, 515), 20, -1)
    cv2.rectangle(out, (40, 470), (220, 485), 210, -1)
    cv2.putText(out, "AMMO 30/120", (650, 510), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 255, 2)
    return out


def _screen(windows, bars=(0, 0, 0, 0)):
    screen = make_ui_screen("static-edges")
    for frames in windows:
        screen.start_window()
        for f in frames:
            screen.add(f)
        screen.end_window(bars)
    return screen


def _coverage(frames) -> float:
    return _screen([frames]).coverages()[0]


def test_static_overlay_over_moving_world_is_found():
    frames = _scrolling()
    clean, hud = _coverage(frames), _coverage([_hud(f) for f in frames])
    assert clean < 0.01
    assert 0.04 < hud < 0.12


def test_a_still_world_gives_no_evidence():
    frame = _scrolling(1)[0]
    assert _coverage([_hud(frame)] * 20) == 0.0


def test_lines_along_the_motion_are_world_not_ui():
    frames = _scrolling(speed=(14, 0))
    for f in frames:
        f[::40] = 40  # horizontal stripes across the whole width, scrolling sideways
    assert _coverage(frames) < 0.01


def test_bars_edges_are_ignored_and_ring_is_filled():
    regions = _screen([[_hud(f) for f in _scrolling()]]).evidence_maps()[0]
    assert regions[100, 860] == 255  # the inside of the minimap ring counts
    boxed = [np.pad(f[60:-60], ((60, 60), (0, 0))) for f in _scrolling()]
    assert _screen([boxed], bars=(60, 60, 0, 0)).coverages()[0] < 0.01


def test_the_whole_source_finds_a_hud_over_a_still_background():
    """A minimap over a sky that stays still for one window: the window alone cannot tell, the
    source can, because elsewhere the scene behind it moved and the minimap did not."""
    moving = _scrolling()
    still = [moving[0]] * 30
    screen = _screen([[_hud(f) for f in moving], [_hud(f) for f in still]])
    assert all(c > 0.04 for c in screen.coverages())
    alone = _screen([[_hud(f) for f in still]])
    assert alone.coverages()[0] == 0.0


def test_a_world_that_only_paused_is_not_ui():
    """An idle shot: the scene stood still in one window but moved in the others."""
    moving = _scrolling(60)
    windows = [moving[:30], [moving[30]] * 30, moving[30:]]
    assert max(_screen(windows).coverages()) < 0.01


def test_mask_coverages_average_the_true_ui_share_over_each_span(tmp_path):
    from g2w.curate.ui_screen import mask_coverages
    from g2w.video.masks import MaskWriter

    path = str(tmp_path / "mask.mkv")
    with MaskWriter(path, 64, 36, 10) as writer:  # 1 s with a quarter of the frame UI, then 1 s with half
        for i in range(20):
            mask = np.zeros((36, 64), np.uint8)
            mask[:, : 16 if i < 10 else 32] = 255
            writer.write(mask)
    quarter, half, empty = mask_coverages(path, [(0.0, 1.0), (1.0, 2.0), (5.0, 6.0)])
    assert abs(quarter - 0.25) < 0.01 and abs(half - 0.5) < 0.01
    assert empty == 0.0
