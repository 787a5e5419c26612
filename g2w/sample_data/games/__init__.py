"""The procedural games: each a distinct visual style with camera motion and moving actors."""

from g2w.sample_data.games.base import Scene
from g2w.sample_data.games.corridor import Corridor
from g2w.sample_data.games.racing import Racing
from g2w.sample_data.games.sidescroller import SideScroller
from g2w.sample_data.games.topdown import TopDown

GAMES: dict[str, type[Scene]] = {
    "corridor": Corridor,
    "topdown": TopDown,
    "sidescroller": SideScroller,
    "racing": Racing,
}
