"""Which real games a segmenter checkpoint has seen, kept beside its weights.

Results pages on real captures (`benchmarks/removal_quality.py`) must say which games are held
out. A checkpoint folder records its training data in `hud_segmenter.training.json`: the games
whose real HUD/clean pairs the segmenter trained on (`real_pairs`), the games whose real clean
clips carried synthesized HUDs in its training (`real_clean_clips`), and the games whose real
pairs its refiner trained on (`refiner_real_pairs`; the refiner may have other data). A folder
without the file states nothing, and the pages say so.
"""

from __future__ import annotations

import json
import os

TRAINING_NAME = "hud_segmenter.training.json"
KEYS = ("real_pairs", "real_clean_clips", "refiner_real_pairs")


def read_training(directory: str) -> dict[str, list[str]] | None:
    path = os.path.join(directory, TRAINING_NAME)
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        data = json.load(f)
    return {k: sorted(data.get(k, [])) for k in KEYS}


def write_training(directory: str, **games: list[str]) -> str:
    unknown = set(games) - set(KEYS)
    if unknown:
        raise ValueError(f"unknown training record keys {sorted(unknown)}")
    path = os.path.join(directory, TRAINING_NAME)
    with open(path, "w") as f:
        json.dump({k: sorted(games.get(k, [])) for k in KEYS}, f, indent=1)
    return path


def training_sentence(training: dict[str, list[str]] | None) -> str:
    """What a checkpoint trained on, by game, for a results page's header."""
    if training is None:
        return "The checkpoint records no training data, so no game here is stated to be held out."

    def games(key: str) -> str:
        return ", ".join(training[key]) or "no game"

    return (
        f"The segmenter trained on real HUD/clean pairs of {games('real_pairs')} and on synthesized HUDs over "
        f"real clean clips of {games('real_clean_clips')}; its full-resolution refiner on real pairs of "
        f"{games('refiner_real_pairs')}. Figures for a game whose real pairs were trained on are in-sample; "
        "every other game's HUD is held out."
    )
