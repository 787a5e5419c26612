"""Fonts for drawn text (sample HUDs, report labels): DejaVu from the system, as the Makefile
installs it, or Pillow's bundled font where DejaVu is absent."""

from __future__ import annotations

import functools
import os

from PIL import ImageFont

DEJAVU_DIR = "/usr/share/fonts/truetype/dejavu"


@functools.cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    path = os.path.join(DEJAVU_DIR, name)
    if os.path.exists(path):
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)
