"""The GameCleaner stage of `make demo`: precache -> a short tiny training on CPU -> removal ->
evaluation, on the demo's synthesized pairs.

The weights are random-initialised and trained for a few steps only: the removal quality is
not meaningful. The stage shows that the whole path (Ray Data precache, Ray Train with
checkpoints, the removal job, the judge) runs end to end. Removal uses no ground truth: its
reference is built from each source itself (`self`: the default CPU removal), as a user
without a clean frame would get it; the demo's own removal of the pairs by that method is
passed on, so its edit of the same source is the reference rather than a second removal pass.
Training pairs do use the clean video, as training does. Since only the path is shown, removal
and evaluation run on the first pair alone: on a CPU, the sampler costs the most of any stage
per case.
"""

from __future__ import annotations

import json
import logging
import os

log = logging.getLogger(__name__)

WARNING = (
    "GameCleaner here is the tiny preset with random-initialised weights trained for "
    "{steps} steps on CPU: its removal quality is not meaningful; the stage only shows the pipeline runs end to end."
)
STEPS = 2
SAMPLER_STEPS = 4
REFERENCE = "self"  # built from the source: never the ground truth
REMOVAL_CASES = 1  # removal and evaluation on this many pairs: the path, not a score


def first_cases(synth: str, out_path: str, count: int) -> str:
    """A JSONL listing (`g2w.cases.case.load_cases`) of the first `count` cases of a synthesis output."""
    from g2w.cases.case import jsonl_item, load_cases

    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        for case in load_cases(synth)[:count]:
            f.write(json.dumps(jsonl_item(case)) + "\n")
    return out_path


def run_gamecleaner_demo(synth: str, out_dir: str, seed: int = 0, reference_edits: str | None = None) -> dict:
    """`reference_edits`: the demo's removal of the pairs by the default method (the `self`
    reference's own), whose matching edits are reused."""
    from g2w.jobs.evaluate import run_evaluate
    from g2w.jobs.gamecleaner_precache import run_precache
    from g2w.jobs.gamecleaner_train import run_train
    from g2w.jobs.options import GameCleanerTrainOptions, PrecacheOptions
    from g2w.jobs.remove import run_remove

    paths = {k: os.path.join(out_dir, k) for k in ("cache", "run", "removed", "eval")}
    warning = WARNING.format(steps=STEPS)
    log.info(f"  NOTE: {warning}")
    cache = run_precache(PrecacheOptions([synth], paths["cache"], "tiny", seed=seed))
    batch = min(2, cache["ok"])
    train = run_train(
        GameCleanerTrainOptions(
            paths["cache"],
            paths["run"],
            steps=STEPS,
            global_batch=batch,
            checkpoint_every=STEPS,
            skip_errors=True,
            seed=seed,
            cpus_per_worker=0.5,
        )
    )
    cases = first_cases(synth, os.path.join(out_dir, "cases.jsonl"), REMOVAL_CASES)
    removed = run_remove(
        "gamecleaner",
        cases,
        paths["removed"],
        {
            "checkpoint": paths["run"],
            "steps": SAMPLER_STEPS,
            "reference": REFERENCE,
            **({"reference_edits": reference_edits} if reference_edits else {}),
        },
    )
    scores = run_evaluate(cases, paths["removed"], paths["eval"])
    return {
        "warning": warning,
        "precache": cache,
        "train": {k: train[k] for k in ("steps", "first_loss", "final_loss")},
        "remove": {k: removed[k] for k in ("ok", "error")},
        "reference": REFERENCE,
        "evaluate": scores,
    }
