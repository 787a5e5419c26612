"""Fonts for drawn text (HUD assets, sample HUDs, report labels): DejaVu from the system, as the
Makefile installs it, or Pillow's bundled font where DejaVu is absent.

`family` picks among the DejaVu faces that fonts-dejavu-core ships (sans, condensed, mono,
serif), so procedurally drawn UI can vary its typography like real games do.
"""

from __future__ import annotations

import functools
import os

from PIL import ImageFont

DEJAVU_DIR = "/usr/share/fonts/truetype/dejavu"
_FAMILIES = {
    "sans": ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"),
    "condensed": ("DejaVuSansCondensed.ttf", "DejaVuSansCondensed-Bold.ttf"),
    "mono": ("DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf"),
    "serif": ("DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf"),
}
FAMILIES = tuple(_FAMILIES)


@functools.cache
def font(size: int, bold: bool = False, family: str = "sans") -> ImageFont.FreeTypeFont:
    if family not in _FAMILIES:
        raise ValueError(f"unknown font family {family!r}; use one of {FAMILIES}")
    path = os.path.join(DEJAVU_DIR, _FAMILIES[family][int(bold)])
    if os.path.exists(path):
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)
