"""Fonts for drawn text (HUD assets, sample HUDs, report labels): DejaVu from the system, as the
Makefile installs it, or Pillow's bundled font where DejaVu is absent.

`family` picks among the DejaVu faces that fonts-dejavu-core ships (sans, condensed, mono,
serif), so procedurally drawn UI can vary its typography like real games do.

`FACES` is a wider, fixed catalogue for synthesized HUD text (kill feeds, chat, consoles): the
system DejaVu faces above plus the TrueType faces matplotlib's wheel ships (DejaVu obliques,
STIX, the Computer Modern sans, bold and typewriter faces). Both sources are installed by the
project itself (fonts-dejavu-core by the Makefile, matplotlib as a pinned dependency), so a
record that names a face renders with the same glyphs on every machine. The Computer Modern
faces map a few ASCII symbols to other glyphs; `TEXT_SAFE` is the character set every face in
the catalogue draws as written.
"""

from __future__ import annotations

import functools
import importlib.util
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

# face name -> (source, file, class): "system" is DEJAVU_DIR, "matplotlib" its mpl-data/fonts/ttf.
# The class says what kind of HUD text the face suits: sans (most HUDs), mono (consoles, fps
# counters), serif (fantasy and MMO HUDs).
FACES: dict[str, tuple[str, str, str]] = {
    "dejavu-sans": ("system", "DejaVuSans.ttf", "sans"),
    "dejavu-sans-bold": ("system", "DejaVuSans-Bold.ttf", "sans"),
    "dejavu-condensed": ("system", "DejaVuSansCondensed.ttf", "sans"),
    "dejavu-condensed-bold": ("system", "DejaVuSansCondensed-Bold.ttf", "sans"),
    "dejavu-sans-oblique": ("matplotlib", "DejaVuSans-Oblique.ttf", "sans"),
    "dejavu-sans-bold-oblique": ("matplotlib", "DejaVuSans-BoldOblique.ttf", "sans"),
    "cm-sans": ("matplotlib", "cmss10.ttf", "sans"),
    "dejavu-mono": ("system", "DejaVuSansMono.ttf", "mono"),
    "dejavu-mono-bold": ("system", "DejaVuSansMono-Bold.ttf", "mono"),
    "dejavu-mono-oblique": ("matplotlib", "DejaVuSansMono-Oblique.ttf", "mono"),
    "cm-typewriter": ("matplotlib", "cmtt10.ttf", "mono"),
    "dejavu-serif": ("system", "DejaVuSerif.ttf", "serif"),
    "dejavu-serif-bold": ("system", "DejaVuSerif-Bold.ttf", "serif"),
    "stix": ("matplotlib", "STIXGeneral.ttf", "serif"),
    "stix-bold": ("matplotlib", "STIXGeneralBol.ttf", "serif"),
    "cm-bold": ("matplotlib", "cmb10.ttf", "serif"),
}
FACE_CLASSES = ("sans", "mono", "serif")
TEXT_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;!?'-[]()/%+#=*&@$")


@functools.cache
def font(size: int, bold: bool = False, family: str = "sans") -> ImageFont.FreeTypeFont:
    if family not in _FAMILIES:
        raise ValueError(f"unknown font family {family!r}; use one of {FAMILIES}")
    path = os.path.join(DEJAVU_DIR, _FAMILIES[family][int(bold)])
    if os.path.exists(path):
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)


@functools.cache
def _matplotlib_fonts() -> str | None:
    spec = importlib.util.find_spec("matplotlib")  # its data folder, without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "mpl-data", "fonts", "ttf")


def face_path(name: str) -> str | None:
    """The file of a catalogue face, or None where its source is not installed."""
    if name not in FACES:
        raise ValueError(f"unknown font face {name!r}; use one of {sorted(FACES)}")
    source, filename, _ = FACES[name]
    folder = DEJAVU_DIR if source == "system" else _matplotlib_fonts()
    path = None if folder is None else os.path.join(folder, filename)
    return path if path is not None and os.path.exists(path) else None


def available_faces(face_class: str | None = None) -> tuple[str, ...]:
    """Catalogue faces present here, in catalogue order (optionally of one class)."""
    return tuple(
        n for n, (_, _, c) in FACES.items() if (face_class is None or c == face_class) and face_path(n) is not None
    )


@functools.cache
def face(name: str, size: int) -> ImageFont.FreeTypeFont:
    """A catalogue face at `size` px; Pillow's bundled font where the face is not installed."""
    path = face_path(name)
    if path is None:
        return ImageFont.load_default(size=size)
    return ImageFont.truetype(path, size)
