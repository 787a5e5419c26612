"""Judge reliability (Table 5) against published values and hand-checked cases."""

import math

import numpy as np
import pytest

from g2w.evaluate.agreement import agreement, agreement_table, icc_absolute, kendall_w, krippendorff_interval

NAN = math.nan


def test_icc_matches_shrout_fleiss():
    # Shrout & Fleiss (1979), 6 targets x 4 judges: ICC(2,1) = 0.29, ICC(2,4) = 0.62.
    x = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], float)
    single, average = icc_absolute(x)
    assert single == pytest.approx(0.29, abs=0.005) and average == pytest.approx(0.62, abs=0.005)


def test_krippendorff_interval_with_missing_values():
    # Krippendorff's reliability data (4 coders x 12 units with gaps): alpha_interval = 0.849.
    coders = np.array(
        [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
            [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
        ]
    )
    assert krippendorff_interval(coders.T) == pytest.approx(0.849, abs=0.0005)


def test_kendall_w():
    assert kendall_w(np.array([[1, 10, 5], [2, 20, 6], [3, 30, 7.0]])) == pytest.approx(1.0)
    assert kendall_w(np.array([[1, 3], [2, 2], [3, 1.0]])) == pytest.approx(0.0)
    # Two raters, three items, ranks (1,2,3) and (1,3,2): R = (2,5,5), S = 6, W = 12*6/(4*24) = 0.75.
    assert kendall_w(np.array([[1, 1], [2, 3], [3, 2.0]])) == pytest.approx(0.75)
    # Ties are averaged and corrected for: ranks (1.5,1.5,3) and (1,2,3): R = (2.5,3.5,6),
    # S = 6.5, tie term 2*3-2 = 6 -> W = 12*6.5 / (4*24 - 2*6) = 78/84.
    assert kendall_w(np.array([[1, 1], [1, 2], [3, 3.0]])) == pytest.approx(78 / 84)


def _run(scores: dict[str, tuple[str, str]]) -> list[dict]:
    """Records where each video has one element and one frame with the given verdicts."""
    out = []
    for cid, (removal, preservation) in scores.items():
        artifact = "none" if removal == "removed" else "not_applicable"
        out.append(
            {
                "case_id": cid,
                "split": "wild",
                "status": "ok",
                "reason": "",
                "method_fault": False,
                "expected": {
                    "samples": [
                        {"sample_id": "f0000", "elements": [{"element_id": "E0", "instance_id": "a", "label": "x"}]}
                    ]
                },
                "judgment": {
                    "elements": [
                        {
                            "sample_id": "f0000",
                            "element_id": "E0",
                            "removal": removal,
                            "artifact": artifact,
                            "confidence": 1,
                            "note": "",
                        }
                    ],
                    "frames": [{"sample_id": "f0000", "preservation": preservation, "confidence": 1, "note": ""}],
                },
            }
        )
    return out


def test_agreement_over_runs_of_records():
    a = _run({"v1": ("removed", "preserved"), "v2": ("present", "major_change"), "v3": ("removed", "minor_change")})
    b = _run({"v1": ("removed", "preserved"), "v2": ("present", "major_change"), "v3": ("present", "minor_change")})
    result = agreement([a, a, b])
    assert (result["raters"], result["videos"]) == (3, 3)
    bg = result["metrics"]["BG"]
    assert bg["ICC(A,1)"] == pytest.approx(1.0) and bg["Krippendorff alpha"] == pytest.approx(1.0)
    assert 0 < result["metrics"]["UI"]["ICC(A,1)"] < 1 and "ICC(A,3)" in result["metrics"]["UI"]
    assert "| AAR |" in agreement_table(result)
