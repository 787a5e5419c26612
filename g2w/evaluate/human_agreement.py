"""Judge against human labels (§7.1: removed F1, artifact and preservation agreement, Cohen's κ).

Human labels are JSONL, one line per video, in the judge's own vocabulary (J.4) without
confidence or notes; any subset of a video's elements and frames may be labelled:

    {"case_id": "c1",
     "elements": [{"sample_id": "f0000", "element_id": "E0", "removal": "removed", "artifact": "none"}],
     "frames": [{"sample_id": "f0000", "preservation": "preserved"}]}

Element and sample ids are the ones in the run's `judgments.jsonl` (`expected`). Each label is
paired with the judge's verdict for the same (case, sample, element) or (case, sample); labels
the judge has no valid verdict for (video not judged "ok", unknown ids) are counted as
unmatched and left out. Per verdict kind:

- removal, over every paired element: agreement on the three labels, F1 of "removed" (the judge
  as the prediction, the human as the truth) and Cohen's κ over the three labels;
- artifact, over elements both call "removed" (otherwise both must say not_applicable, which
  would only repeat the removal disagreement): agreement, F1 of "none" (a clean fill) and κ;
- preservation, over every paired frame: agreement and κ over its four labels.
"""

from __future__ import annotations

from collections import Counter

from g2w.evaluate.records import numbered_jsonl, read_records
from g2w.evaluate.schema import ARTIFACT, PRESERVATION, REMOVAL


def cohen_kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Cohen's κ of (rater A, rater B) label pairs; None when chance agreement is total."""
    n = len(pairs)
    if not n:
        return None
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    chance = sum(first[k] * second[k] for k in first) / n**2
    return None if chance == 1 else (observed - chance) / (1 - chance)


def f1(pairs: list[tuple[str, str]], positive: str) -> dict:
    """Precision, recall and F1 of `positive`, the first of each pair being the prediction."""
    tp = sum(p == positive and t == positive for p, t in pairs)
    fp = sum(p == positive and t != positive for p, t in pairs)
    fn = sum(p != positive and t == positive for p, t in pairs)
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    score = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None
    return {"positive": positive, "precision": precision, "recall": recall, "F1": score}


def _summary(pairs: list[tuple[str, str]], positive: str | None) -> dict:
    out = {
        "n": len(pairs),
        "agreement": sum(a == b for a, b in pairs) / len(pairs) if pairs else None,
        "kappa": cohen_kappa(pairs),
    }
    if positive is not None:
        out.update(f1(pairs, positive))
    return out


def _need(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise ValueError(f"{where}: {message}")


def read_human_labels(path: str) -> list[dict]:
    """The label file, checked: every value in the judge's vocabulary, every id a string."""
    out = []
    for where, video in numbered_jsonl(path):
        _need(isinstance(video, dict) and isinstance(video.get("case_id"), str), where, "needs a case_id")
        _need(set(video) <= {"case_id", "elements", "frames"}, where, f"unexpected keys {sorted(video)}")
        for el in video.get("elements", []):
            _need(
                isinstance(el, dict) and isinstance(el.get("sample_id"), str) and isinstance(el.get("element_id"), str),
                where,
                "element labels need sample_id and element_id",
            )
            _need(el.get("removal") in REMOVAL, where, f"removal must be one of {REMOVAL}")
            _need(el.get("artifact") in ARTIFACT, where, f"artifact must be one of {ARTIFACT}")
        for fr in video.get("frames", []):
            _need(isinstance(fr, dict) and isinstance(fr.get("sample_id"), str), where, "frame labels need a sample_id")
            _need(fr.get("preservation") in PRESERVATION, where, f"preservation must be one of {PRESERVATION}")
        out.append(video)
    return out


def human_agreement(records: list[dict], labels: list[dict]) -> dict:
    """Agreement of a run's judgments (records) with human labels (as `read_human_labels` gives)."""
    judged = {r["case_id"]: r["judgment"] for r in records if r["status"] == "ok"}
    removal, artifact, preservation = [], [], []
    unmatched_elements = unmatched_frames = 0
    videos = set()
    for video in labels:
        judgment = judged.get(video["case_id"])
        elements = {(e["sample_id"], e["element_id"]): e for e in judgment["elements"]} if judgment else {}
        frames = {f["sample_id"]: f for f in judgment["frames"]} if judgment else {}
        for el in video.get("elements", []):
            j = elements.get((el["sample_id"], el["element_id"]))
            if j is None:
                unmatched_elements += 1
                continue
            videos.add(video["case_id"])
            removal.append((j["removal"], el["removal"]))
            if j["removal"] == el["removal"] == "removed":
                artifact.append((j["artifact"], el["artifact"]))
        for fr in video.get("frames", []):
            j = frames.get(fr["sample_id"])
            if j is None:
                unmatched_frames += 1
                continue
            videos.add(video["case_id"])
            preservation.append((j["preservation"], fr["preservation"]))
    return {
        "videos": len(videos),
        "unmatched_element_labels": unmatched_elements,
        "unmatched_frame_labels": unmatched_frames,
        "removal": _summary(removal, "removed"),
        "artifact": _summary(artifact, "none"),
        "preservation": _summary(preservation, None),
    }


def human_agreement_from_paths(judgments: str, human: str) -> dict:
    return {
        "judgments": judgments,
        "human": human,
        **human_agreement(read_records(judgments), read_human_labels(human)),
    }


def human_agreement_table(result: dict) -> str:
    def cell(v):
        return "–" if v is None else f"{v:.3f}"

    lines = [
        f"Judge vs human over {result['videos']} videos "
        f"({result['unmatched_element_labels']} element and {result['unmatched_frame_labels']} frame labels "
        "unmatched)",
        "",
        "| Verdict | n | Agreement | F1 (positive class) | Cohen's κ |",
        "|---|---|---|---|---|",
    ]
    for name, title in (
        ("removal", "removal"),
        ("artifact", "artifact (both removed)"),
        ("preservation", "preservation"),
    ):
        s = result[name]
        f1_cell = f"{cell(s['F1'])} ({s['positive']})" if "F1" in s else "–"
        lines.append(f"| {title} | {s['n']} | {cell(s['agreement'])} | {f1_cell} | {cell(s['kappa'])} |")
    return "\n".join(lines) + "\n"
