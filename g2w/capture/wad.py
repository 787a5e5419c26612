"""Reading Doom WAD files: the lump directory, and the demo lumps an IWAD ships with.

A WAD is a 12-byte header (`IWAD`/`PWAD`, lump count, directory offset) and a directory of
16-byte entries (offset, size, 8-byte name). Freedoom's IWADs carry demos DEMO1..DEMO4, which
play back with `-playdemo`/`-timedemo` once written out as `.lmp` files.
"""

from __future__ import annotations

import struct

TICRATE = 35  # Doom game tics per second
_HEADER = struct.Struct("<4sii")
_ENTRY = struct.Struct("<ii8s")


def lumps(path: str) -> dict[str, tuple[int, int]]:
    """Lump name -> (offset, size); the last lump of a name wins, as in the engine."""
    with open(path, "rb") as f:
        magic, count, table = _HEADER.unpack(f.read(_HEADER.size))
        if magic not in (b"IWAD", b"PWAD"):
            raise ValueError(f"{path}: not a WAD file")
        f.seek(table)
        raw = f.read(count * _ENTRY.size)
    out = {}
    for k in range(count):
        offset, size, name = _ENTRY.unpack_from(raw, k * _ENTRY.size)
        out[name.rstrip(b"\0").decode("ascii", "replace")] = (offset, size)
    return out


def read_lump(path: str, name: str) -> bytes:
    offset, size = lumps(path)[name]
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(size)


def demo_lumps(path: str) -> list[str]:
    return sorted(n for n in lumps(path) if n.startswith("DEMO") and n[4:].isdigit())


def demo_tics(data: bytes) -> int:
    """Game tics in a vanilla (v1.9) single-player demo: 13-byte header, 4 bytes a tic, 0x80 end."""
    if len(data) < 14 or data[0] != 109:
        raise ValueError("not a Doom v1.9 demo")
    players = sum(data[9:13])
    return (len(data) - 14) // (4 * max(1, players))
