"""The HUD asset library: `LIB/assets.parquet` (one row per asset) plus `LIB/images/<id>.png`.

An asset is a transparent RGBA crop of one UI element, tight to its alpha >= 8 support, with
where it came from (a video, time and box, or `procedural`), its normalized screen centre and
scale, whether it is verified and renderable, how it was extracted and how confident that was,
its internal structure (status-bar geometry; an inventory bar's slots, or an icon's parent
bar) and its appearance descriptor (Appendix D.2).

Writing is idempotent: ids derive from content or provenance, images are written under a
temporary name and renamed, and the table is rewritten atomically with rows merged by id.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from g2w.hud.descriptor import appearance_descriptor
from g2w.taxonomy import ICON_ROLE, check_label

ALPHA_MIN = 8
TABLE = "assets.parquet"
IMAGES = "images"

ASSETS_SCHEMA = pa.schema(
    [
        ("asset_id", pa.string()),
        ("label", pa.string()),  # one of the 21 taxonomy labels
        ("role", pa.string()),  # Table 8 role or visual form (panel, text, icon, ...)
        ("source", pa.string()),  # procedural | extracted
        ("source_video", pa.string()),  # video or image the asset was cut from (null if procedural)
        ("source_time", pa.float64()),
        ("source_box", pa.list_(pa.int32())),  # half-open xyxy in the source frame
        ("center_x", pa.float64()),  # normalized centre in the source frame (null: use anchors)
        ("center_y", pa.float64()),
        ("scale_w", pa.float64()),  # asset width / source frame width (procedural: / 1280)
        ("scale_h", pa.float64()),
        ("width", pa.int32()),  # PNG size in pixels
        ("height", pa.int32()),
        ("aspect", pa.float64()),  # width / height of the alpha support
        ("verified", pa.bool_()),
        ("renderable", pa.bool_()),
        ("extraction_method", pa.string()),  # procedural | temporal_matting | grabcut | inventory_split
        ("confidence", pa.float64()),
        ("structure", pa.string()),  # JSON: {"bars": [...]}, {"slots": [...]}, {"split": ...}
        ("parent_id", pa.string()),  # an inventory icon's bar
        ("descriptor", pa.list_(pa.float32())),
        ("notes", pa.string()),
    ]
)


@dataclass(frozen=True)
class Asset:
    asset_id: str
    label: str
    role: str
    source: str
    width: int
    height: int
    scale_w: float
    scale_h: float
    verified: bool = True
    renderable: bool = True
    extraction_method: str = "procedural"
    confidence: float = 1.0
    source_video: str | None = None
    source_time: float | None = None
    source_box: list[int] | None = None
    center_x: float | None = None
    center_y: float | None = None
    structure: dict = field(default_factory=dict)
    parent_id: str | None = None
    descriptor: list[float] = field(default_factory=list)
    notes: str = ""

    @property
    def aspect(self) -> float:
        return self.width / self.height

    @property
    def center(self) -> tuple[float, float] | None:
        if self.center_x is None or self.center_y is None:
            return None
        return (self.center_x, self.center_y)

    def to_row(self) -> dict:
        row = asdict(self)
        row["aspect"] = self.aspect
        row["structure"] = json.dumps(self.structure, sort_keys=True)
        return row

    @classmethod
    def from_row(cls, row: dict) -> Asset:
        row = {k: v for k, v in row.items() if k != "aspect"}
        row["structure"] = json.loads(row["structure"] or "{}")
        row["descriptor"] = list(row["descriptor"] or [])
        return cls(**row)


def asset_id(kind: str, label: str, *parts) -> str:
    """A stable id from what identifies the asset (provenance or generator seed)."""
    digest = hashlib.sha1("|".join([kind, label, *(str(p) for p in parts)]).encode()).hexdigest()[:12]
    return f"{kind}-{label}-{digest}"


def tighten(rgba: np.ndarray) -> tuple[np.ndarray, tuple[int, int]]:
    """Crop an RGBA image to its alpha >= 8 support; returns the crop and its (x, y) offset."""
    ys, xs = np.nonzero(rgba[..., 3] >= ALPHA_MIN)
    if len(xs) == 0:
        raise ValueError("asset has no visible pixels (alpha >= 8)")
    x0, y0 = int(xs.min()), int(ys.min())
    return np.ascontiguousarray(rgba[y0 : ys.max() + 1, x0 : xs.max() + 1]), (x0, y0)


def describe(rgba: np.ndarray) -> list[float]:
    return appearance_descriptor(rgba[..., :3], rgba[..., 3]).tolist()


class AssetLibrary:
    """Assets in memory with lazy image loading. `root=None` holds images in memory only."""

    def __init__(self, assets: Iterable[Asset], root: str | None = None, images: dict | None = None):
        self.assets = {a.asset_id: a for a in assets}
        self.root = os.path.abspath(root) if root else None
        self._images: dict[str, np.ndarray] = dict(images or {})
        self.memo: dict = {}  # values derived from assets (fitted supports), reused across samples

    @classmethod
    def open(cls, root: str | os.PathLike) -> AssetLibrary:
        root = os.fspath(root)
        path = os.path.join(root, TABLE)
        if not os.path.exists(path):
            raise FileNotFoundError(f"{root}: no {TABLE}; build a library with `g2w assets bootstrap` or `extract`")
        return cls((Asset.from_row(r) for r in pq.read_table(path).to_pylist()), root)

    def __len__(self) -> int:
        return len(self.assets)

    def __iter__(self) -> Iterator[Asset]:
        return iter(self.assets.values())

    def get(self, asset_id: str) -> Asset:
        return self.assets[asset_id]

    def image_path(self, asset_id: str) -> str:
        if self.root is None:
            raise ValueError("an in-memory library has no image files")
        return os.path.join(self.root, IMAGES, f"{asset_id}.png")

    def image(self, asset_id: str) -> np.ndarray:
        """The asset's RGBA uint8 pixels (cached after the first read)."""
        if asset_id not in self._images:
            with Image.open(self.image_path(asset_id)) as img:
                self._images[asset_id] = np.asarray(img.convert("RGBA"))
        return self._images[asset_id]

    def pool(self, label: str, roles: Iterable[str] | None = None, include_unverified: bool = False) -> list[Asset]:
        """Renderable top-level assets of a label (optionally of some roles), sorted by id.

        Only verified, renderable assets are eligible unless `include_unverified`; separated
        inventory icons are never top-level (they render as children of a bar).
        """
        roles = set(roles) if roles is not None else None
        out = [
            a
            for a in self.assets.values()
            if a.label == label
            and a.role != ICON_ROLE
            and (roles is None or a.role in roles)
            and a.renderable
            and (a.verified or include_unverified)
        ]
        return sorted(out, key=lambda a: a.asset_id)

    def icons(self, include_unverified: bool = False) -> list[Asset]:
        """Every renderable inventory icon, sorted by id."""
        out = [
            a
            for a in self.assets.values()
            if a.role == ICON_ROLE and a.renderable and (a.verified or include_unverified)
        ]
        return sorted(out, key=lambda a: a.asset_id)


def _write_png(path: str, rgba: np.ndarray) -> None:
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".partial")
    Image.fromarray(rgba, "RGBA").save(tmp, format="PNG")
    os.replace(tmp, path)


class LibraryWriter:
    """Adds assets to a library folder; `close()` merges the new rows into `assets.parquet`."""

    def __init__(self, root: str | os.PathLike):
        self.root = os.fspath(root)
        os.makedirs(os.path.join(self.root, IMAGES), exist_ok=True)
        self.rows: dict[str, dict] = {}

    def add(self, asset: Asset, rgba: np.ndarray) -> Asset:
        """Store one asset (its image already tight to alpha support) and return it as stored."""
        check_label(asset.label)
        if rgba.dtype != np.uint8 or rgba.ndim != 3 or rgba.shape[2] != 4:
            raise ValueError(f"asset {asset.asset_id}: expected RGBA uint8, got {rgba.dtype} {rgba.shape}")
        asset = replace(asset, width=rgba.shape[1], height=rgba.shape[0], descriptor=asset.descriptor or describe(rgba))
        _write_png(os.path.join(self.root, IMAGES, f"{asset.asset_id}.png"), rgba)
        self.rows[asset.asset_id] = asset.to_row()
        return asset

    def close(self) -> int:
        """Write the merged table atomically; returns the library's row count."""
        path = os.path.join(self.root, TABLE)
        merged = {}
        if os.path.exists(path):
            merged = {r["asset_id"]: r for r in pq.read_table(path).to_pylist()}
        merged.update(self.rows)
        rows = [merged[k] for k in sorted(merged)]
        table = pa.Table.from_pylist(rows, schema=ASSETS_SCHEMA)
        tmp = path + ".partial"
        pq.write_table(table, tmp)
        os.replace(tmp, path)
        return table.num_rows

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
