import numpy as np
import pyarrow as pa

from g2w.curate.config import CurateConfig, QualityThresholds
from g2w.curate.rows import WINDOW_SCHEMA
from g2w.curate.select import check_matrix, select, select_table
from g2w.curate.work_shards import embedding_column


def _row(i, source="s", **measures):
    base = {
        "clip_id": f"{source}-{i:05d}",
        "source_id": source,
        "window_index": i,
        "width": 1280,
        "height": 720,
        "fps": 30.0,
        "cut_count": 0,
        "luma_mean": 100.0,
        "dark_fraction": 0.0,
        "bright_fraction": 0.0,
        "sharpness": 200.0,
        "motion": 10.0,
        "frozen_fraction": 0.0,
        "shake": 0.0,
        "border_fraction": 0.0,
        "ui_coverage": 0.0,
    }
    return {**base, **measures}


def _cols(rows):
    return {k: np.array([r[k] for r in rows]) for k in rows[0]}


def failed_checks(rows, cfg):
    names, failed, _ = check_matrix(_cols(rows), cfg)
    return [[names[j] for j in np.flatnonzero(f)] for f in failed]


def test_failed_checks_put_the_cut_first_and_keep_every_failure():
    rows = [_row(0, cut_count=2, dark_fraction=0.9, ui_coverage=0.2), _row(1), _row(2, sharpness=1.0)]
    assert failed_checks(rows, CurateConfig()) == [["scene_cut", "too_dark", "ui_overlay"], [], ["blurry"]]


def test_gameverse_constraints_are_opt_in():
    row = _row(0, width=854, height=480, fps=120.0)
    assert failed_checks([row], CurateConfig()) == [[]]
    strict = CurateConfig(quality=QualityThresholds(min_short_side=720, min_fps=24, max_fps=65))
    assert failed_checks([row], strict) == [["low_resolution", "fps_out_of_range"]]


def test_verdicts_from_checks_sampling_and_dedup():
    rows = [_row(0), _row(1), _row(2, frozen_fraction=1.0), _row(3), _row(0, source="t")]
    e = np.array([[1, 0, 0], [1, 0.01, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0.1]], np.float32)
    e /= np.linalg.norm(e, axis=1, keepdims=True)
    v = select(_cols(rows), e, CurateConfig())
    assert list(v["status"]) == ["kept", "rejected", "rejected", "kept", "kept"]
    assert list(v["reason"]) == ["", "near_duplicate", "frozen", "", ""]
    assert v["dup_of"][1] == 0 and v["dup_similarity"][1] > 0.99
    assert list(v["sampled"]) == [True, True, False, True, True]
    assert v["k"] == 5 and len(v["cluster"]) == 5


def test_the_cap_leaves_eligible_windows_unsampled():
    rows = [_row(i, source=f"s{i}") for i in range(6)]
    e = np.eye(6, dtype=np.float32)
    v = select(_cols(rows), e, CurateConfig(max_candidates=4))
    assert list(v["reason"]).count("not_sampled") == 2 and list(v["status"]).count("kept") == 4


def test_the_table_gets_verdicts_and_windows_that_failed_analysis_keep_their_error():
    rows = [_row(0), _row(1), _row(2, frozen_fraction=1.0), _row(3), _row(0, source="t"), _row(4)]
    rows[5].update(status="error", reason="truncated")
    e = np.array([[1, 0, 0], [1, 0.01, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0.1], [0, 0, 0]], np.float32)
    e[:5] /= np.linalg.norm(e[:5], axis=1, keepdims=True)
    base = {
        "source": "x",
        "reason": "",
        "error": "",
        "status": "ok",
        "rotation": 0,
        "start_s": 0.0,
        "end_s": 5.0,
        "samples": 40,
        "cut_score": 0.0,
        "cut_times": [],
    }
    table = pa.Table.from_pylist(
        [{**base, **r} for r in rows], schema=WINDOW_SCHEMA.remove(WINDOW_SCHEMA.get_field_index("embedding"))
    )
    table = table.append_column(WINDOW_SCHEMA.field("embedding"), embedding_column(e, np.arange(6) < 5))
    out, k = select_table(table, CurateConfig())
    got = out.select(["status", "reason", "checks_failed", "cluster", "sampled", "dup_of"]).to_pylist()
    assert k == 5 and out.column("embedding").equals(table.column("embedding"))
    assert [g["status"] for g in got] == ["kept", "rejected", "rejected", "kept", "kept", "error"]
    assert [g["reason"] for g in got] == ["", "near_duplicate", "frozen", "", "", "truncated"]
    assert got[2]["checks_failed"] == ["frozen"] and got[5]["checks_failed"] == []
    assert got[1]["dup_of"] == "s-00000" and got[0]["dup_of"] is None
    assert got[5]["cluster"] is None and got[5]["sampled"] is None and got[0]["sampled"] is True


def test_a_random_clip_is_the_same_model_in_every_worker(tiny_clip_config):
    from g2w.models.clip_embedder import ClipEmbedder, ClipSpec

    crops = np.random.default_rng(0).integers(0, 256, (3, 224, 224, 3), dtype=np.uint8)
    a = ClipEmbedder(ClipSpec(tiny_clip_config, None, "cpu", seed=5)).embed(crops)
    np.random.default_rng(1).random(10)
    b = ClipEmbedder(ClipSpec(tiny_clip_config, None, "cpu", seed=5)).embed(crops)
    c = ClipEmbedder(ClipSpec(tiny_clip_config, None, "cpu", seed=6)).embed(crops)
    assert np.array_equal(a, b) and not np.allclose(a, c)
