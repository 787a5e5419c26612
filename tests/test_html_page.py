import numpy as np

from g2w.io.html_page import contact_sheet, table, write_html


def test_contact_sheet_grid_keeps_aspect_and_labels_outside_pixels():
    landscape = np.full((90, 160, 3), 200, np.uint8)
    portrait = np.full((160, 90, 3), 100, np.uint8)
    sheet = contact_sheet([landscape, portrait, landscape], ["a", "b", "c"], columns=2, thumb_width=160)
    assert sheet.shape == (2 * (90 + 18), 320, 3)
    cell = sheet[:90, 160:320]
    assert (cell[:, :30] == (24, 24, 28)).all(), "a portrait thumbnail is centred, not stretched"
    assert (cell[:, 80] == 100).all()
    assert (sheet[:90, :160] == 200).all(), "the label strip lies below the image"


def test_html_escapes_values(tmp_path):
    path = tmp_path / "r.html"
    write_html(path, "t", [("rows", table([{"name": "<script>"}], ["name"]))])
    assert "&lt;script&gt;" in path.read_text() and "<script>" not in path.read_text()
