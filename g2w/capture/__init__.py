"""Real gameplay footage from open-source engines, replayed twice: HUD on and HUD off.

`GAMES` maps a game's name to its module's `Game`; `g2w capture`, `ray_jobs.capture` and
`scripts/capture-deps.sh` all read this one registry.
"""

from __future__ import annotations

from g2w.capture.freedoom import Freedoom
from g2w.capture.game import Game

GAMES: dict[str, Game] = {g.name: g for g in (Freedoom(),)}


def get_game(name: str) -> Game:
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}: choose from {sorted(GAMES)}")
    return GAMES[name]
