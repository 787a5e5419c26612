"""Small building blocks for the HTML/PNG reports that jobs write next to their outputs.

Reports are static files (one HTML page, PNGs beside it) so they open anywhere, including from
a cluster's shared storage, without a server.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence

import cv2
import numpy as np
from PIL import Image, ImageDraw

from g2w.fonts import font


def save_png(path: str | os.PathLike, rgb: np.ndarray) -> None:
    Image.fromarray(rgb).save(os.fspath(path))


def fit_box(rgb: np.ndarray, width: int, height: int) -> np.ndarray:
    """Scale to fit inside width x height, keeping the aspect ratio."""
    h, w = rgb.shape[:2]
    scale = min(width / w, height / h)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)


def contact_sheet(
    images: Sequence[np.ndarray], labels: Sequence[str], columns: int, thumb_width: int = 240
) -> np.ndarray:
    """A grid of thumbnails in 16:9 cells (portrait frames stay narrow), each with its label in a
    strip beneath, never over pixels."""
    thumb_height = thumb_width * 9 // 16
    label_h = 18
    cell_h = thumb_height + label_h
    rows = (len(images) + columns - 1) // columns
    sheet = Image.new("RGB", (columns * thumb_width, rows * cell_h), (24, 24, 28))
    draw = ImageDraw.Draw(sheet)
    for k, (image, label) in enumerate(zip(images, labels)):
        thumb = fit_box(image, thumb_width, thumb_height)
        x, y = (k % columns) * thumb_width, (k // columns) * cell_h
        sheet.paste(Image.fromarray(thumb), (x + (thumb_width - thumb.shape[1]) // 2, y))
        draw.text((x + 4, y + thumb_height + 2), label, font=font(12), fill=(230, 230, 230))
    return np.asarray(sheet)


def table(rows: Sequence[dict], columns: Sequence[str], images: Sequence[str] = ()) -> str:
    """An HTML table; columns named in `images` hold relative PNG paths shown as pictures."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for row in rows:
        cells = []
        for c in columns:
            value = row.get(c, "")
            if c in images and value:
                cells.append(f'<td><img src="{html.escape(str(value))}" width="200"></td>')
            else:
                cells.append(f"<td>{html.escape(str(value))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def key_values(values: dict) -> str:
    return table([{"what": k, "value": v} for k, v in values.items()], ["what", "value"])


def write_html(path: str | os.PathLike, title: str, sections: Sequence[tuple[str, str]]) -> None:
    """One self-contained page: a title, then (heading, HTML body) sections in order."""
    style = (
        "body{font-family:sans-serif;margin:24px;background:#fafafa}table{border-collapse:collapse;"
        "margin:8px 0}td,th{border:1px solid #ccc;padding:4px 8px;font-size:13px;vertical-align:top}"
        "th{background:#eee}img{display:block}"
    )
    parts = [
        f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title><style>{style}</style>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    for heading, body in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2>{body}")
    with open(os.fspath(path), "w") as f:
        f.write("\n".join(parts))
