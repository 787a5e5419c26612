"""Letterbox/pillarbox bars: the one-pass-per-direction measurement gives exactly what measuring
each side on its own (the earlier, slower form, kept here as the reference) gives."""

import numpy as np
import pytest

from g2w.curate.borders import BAR_MAX_LUMA, BAR_MAX_SPREAD, border_bars, border_fraction


def side_by_side_reference(gray: np.ndarray) -> tuple[int, int, int, int]:
    def length(lines):
        spread = lines.max(axis=1).astype(np.int16) - lines.min(axis=1)
        flat = (lines.mean(axis=1) <= BAR_MAX_LUMA) & (spread <= BAR_MAX_SPREAD)
        bad = np.flatnonzero(~flat)
        return int(bad[0]) if len(bad) else len(flat)

    if length(gray) == gray.shape[0]:
        return 0, 0, 0, 0
    vertical = min(length(gray), length(gray[::-1]))
    horizontal = min(length(gray.T), length(gray.T[::-1]))
    return vertical, vertical, horizontal, horizontal


def framed(rng, h, w, top, bottom, left, right, level, noise):
    gray = rng.integers(0, 256, (h, w)).astype(np.uint8)
    bar = np.clip(level + rng.integers(-noise, noise + 1, (h, w)), 0, 255).astype(np.uint8)
    keep = np.zeros((h, w), bool)
    keep[top : h - bottom, left : w - right] = True
    return np.where(keep, gray, bar)


@pytest.mark.parametrize("seed", range(40))
def test_bars_match_the_side_by_side_reference(seed):
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(4, 90)), int(rng.integers(4, 160))
    sides = [int(rng.integers(0, max(1, n // 3))) for n in (h, h, w, w)]
    level, noise = int(rng.integers(0, 45)), int(rng.integers(0, 5))  # bar-like and not, near both limits
    gray = framed(rng, h, w, *sides, level, noise)
    assert border_bars(gray) == side_by_side_reference(gray)


def test_letterbox_pillarbox_and_darkness():
    rng = np.random.default_rng(1)
    letterbox = framed(rng, 90, 160, 10, 14, 0, 0, 8, 2)
    assert border_bars(letterbox) == (10, 10, 0, 0)  # only the part present on both sides
    pillarbox = framed(rng, 90, 160, 0, 0, 20, 20, 3, 1)
    assert border_bars(pillarbox) == (0, 0, 20, 20)
    assert border_fraction(pillarbox) == pytest.approx(40 / 160)
    assert border_bars(np.full((90, 160), 5, np.uint8)) == (0, 0, 0, 0)  # darkness, not bars
    assert border_bars(framed(rng, 90, 160, 10, 10, 0, 0, 60, 0)) == (0, 0, 0, 0)  # too bright for a bar
