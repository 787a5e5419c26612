import cv2
import numpy as np

from g2w.curate.ui_screen import StaticEdgeScreen, make_ui_screen
from g2w.sample_data.textures import colorize, tileable_noise


def _scrolling(n=30, h=540, w=960, seed=0, speed=(14, 5)):
    rng = np.random.default_rng(seed)
    world = cv2.cvtColor(colorize(tileable_noise(rng, 2 * h, 2 * w, 10, 4), (30, 40, 30), (200, 210, 190)),
                         cv2.COLOR_RGB2GRAY)
    return [world[speed[1] * i : speed[1] * i + h, speed[0] * i : speed[0] * i + w].copy() for i in range(n)]


def _hud(frame: np.ndarray) -> np.ndarray:
    """A minimap ring, a status panel and a line of text: ~6 % of the frame."""
    out = frame.copy()
    cv2.circle(out, (860, 100), 70, 235, 3)
    cv2.rectangle(out, (30, 460), (290, 515), 20, -1)
    cv2.rectangle(out, (40, 470), (220, 485), 210, -1)
    cv2.putText(out, "AMMO 30/120", (650, 510), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 255, 2)
    return out


def _coverage(frames) -> float:
    screen = make_ui_screen("static-edges")
    for f in frames:
        screen.add(f)
    return screen.coverage()


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
    frames = [_hud(f) for f in _scrolling()]
    screen = StaticEdgeScreen()
    for f in frames:
        screen.add(f)
    regions = screen.regions()
    assert regions[100, 860] == 255  # the inside of the minimap ring counts
    boxed = [np.pad(f[60:-60], ((60, 60), (0, 0))) for f in _scrolling()]
    assert _coverage(boxed) < 0.01
